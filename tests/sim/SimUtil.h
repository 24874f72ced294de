// Runs assembly on one simulated tile: assemble, link at the Mk2 memory map, load, run.
#pragma once

#include "TestUtil.h"

#include "ipusim/arch/Config.h"
#include "ipusim/cc/Linker.h"
#include "ipusim/sim/Image.h"
#include "ipusim/sim/Tile.h"

#include <functional>
#include <memory>

namespace ipusim::test {

inline const arch::SystemConfig &mk2Config() {
  static const arch::SystemConfig cfg = arch::loadNamedConfig("mk2");
  return cfg;
}

enum class Mode { Supervisor, Worker, Multi };

struct TileRun {
  std::unique_ptr<cc::ObjectFile> imageOwner = std::make_unique<cc::ObjectFile>(); // outlives the tile's lookups
  cc::ObjectFile &image = *imageOwner;
  std::unique_ptr<sim::Tile> tile;
  sim::TileStats stats;
  uint32_t word(uint32_t addr) const { return tile->memory().read<uint32_t>(addr); }
  float f32(uint32_t addr) const {
    uint32_t w = word(addr);
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  }
};

/// Assembles `source` (preprocessed if `path` names a .S file instead), links it, runs `entry`.
inline TileRun runTile(const cc::ObjectFile &object, const std::string &entry, Mode mode, uint32_t vertexBase,
                       const std::function<void(sim::Tile &)> &setup = {}) {
  TileRun r;
  r.image = cc::link({{"t.o", object}}, mk2Config().tile);
  r.tile = std::make_unique<sim::Tile>(mk2Config().tile);
  sim::loadImage(*r.tile, r.image, "t.elf");
  if (setup) setup(*r.tile);
  int sym = r.image.findSymbol(entry);
  if (sym < 0) throw std::runtime_error("no symbol " + entry);
  uint32_t pc = r.image.symbols[size_t(sym)].value;
  if (mode == Mode::Supervisor) r.stats = r.tile->runSupervisor(pc, vertexBase);
  else r.stats = r.tile->runSupervisor(r.tile->installWorkerLauncher(pc, vertexBase, mode == Mode::Multi), 0);
  return r;
}

inline TileRun runAsm(const std::string &source, const std::string &entry, Mode mode, uint32_t vertexBase = 0x70000,
                      const std::function<void(sim::Tile &)> &setup = {}) {
  return runTile(assemble(source), entry, mode, vertexBase, setup);
}

inline void putWords(sim::Tile &t, uint32_t addr, std::initializer_list<uint32_t> words) {
  for (uint32_t w : words) {
    t.memory().write<uint32_t>(addr, w);
    addr += 4;
  }
}
inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

} // namespace ipusim::test
