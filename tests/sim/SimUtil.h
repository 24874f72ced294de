// Runs assembly on one simulated tile: assemble, link at the Mk2 memory map, load, run.
#pragma once

#include "TestUtil.h"

#include "ipusim/arch/Config.h"
#include "ipusim/cc/Linker.h"
#include "ipusim/sim/Image.h"
#include "ipusim/sim/Tile.h"

#include <functional>
#include <gtest/gtest.h>
#include <memory>
#include <optional>

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

/// Links `object`, loads it into a fresh tile and runs `entry`, with the fast paths (batched rpt
/// loops, skipped idle cycles) on or off.
inline TileRun runOnce(const cc::ObjectFile &object, const std::string &entry, Mode mode, uint32_t vertexBase,
                       const std::function<void(sim::Tile &)> &setup, bool fast) {
  TileRun r;
  r.image = cc::link({{"t.o", object}}, mk2Config().tile);
  r.tile = std::make_unique<sim::Tile>(mk2Config().tile);
  r.tile->setFastPaths(fast);
  sim::loadImage(*r.tile, r.image, "t.elf");
  if (setup) setup(*r.tile);
  int sym = r.image.findSymbol(entry);
  if (sym < 0) throw std::runtime_error("no symbol " + entry);
  uint32_t pc = r.image.symbols[size_t(sym)].value;
  if (mode == Mode::Supervisor) r.stats = r.tile->runSupervisor(pc, vertexBase);
  else r.stats = r.tile->runSupervisor(r.tile->installWorkerLauncher(pc, vertexBase, mode == Mode::Multi), 0);
  return r;
}

/// Runs `entry` with the fast paths, and again stepping every cycle: every test that uses this
/// also checks that both give the same cycles, bundles, stalls, memory and exceptions.
inline TileRun runTile(const cc::ObjectFile &object, const std::string &entry, Mode mode, uint32_t vertexBase,
                       const std::function<void(sim::Tile &)> &setup = {}) {
  std::optional<TileRun> fastRun; // TileRun holds a reference: constructed in place, never assigned
  try {
    fastRun.emplace(runOnce(object, entry, mode, vertexBase, setup, true));
  } catch (const sim::SimException &e) {
    try {
      runOnce(object, entry, mode, vertexBase, setup, false);
      ADD_FAILURE() << "only the fast path raised: " << e.what();
    } catch (const sim::SimException &slow) {
      EXPECT_EQ(std::string(slow.what()), std::string(e.what()));
    }
    throw;
  }
  TileRun &fast = *fastRun;
  TileRun slow = runOnce(object, entry, mode, vertexBase, setup, false);
  EXPECT_EQ(fast.stats.cycles, slow.stats.cycles) << "fast and cycle-by-cycle paths differ";
  for (unsigned c = 0; c < 7; ++c) {
    EXPECT_EQ(fast.stats.bundles[c], slow.stats.bundles[c]) << "context " << c;
    EXPECT_EQ(fast.stats.stallCycles[c], slow.stats.stallCycles[c]) << "context " << c;
  }
  const sim::TileMemory &a = fast.tile->memory(), &b = slow.tile->memory();
  EXPECT_EQ(std::memcmp(a.at(a.base()), b.at(b.base()), a.end() - a.base()), 0) << "memory differs";
  return std::move(fast);
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
/// Runs a worker body that reads its inputs from the vertex state at 0x70000 and writes results
/// after them.
inline TileRun worker(const std::string &body, std::initializer_list<uint32_t> inputs) {
  return runAsm("w:\n" + body + "\n  exitz $mzero\n", "w", Mode::Worker, 0x70000,
                [&](sim::Tile &t) { putWords(t, 0x70000, inputs); });
}

inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

} // namespace ipusim::test
