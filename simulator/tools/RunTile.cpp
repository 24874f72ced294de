// ipusim run-tile: one tile image on one simulated tile, with JSON stats (docs/tile-timing.md).
#include "RunTile.h"
#include "CliChecks.h"
#include "EntryMode.h"
#include "Progress.h"
#include "Stats.h"

#include "ipusim/arch/Config.h"
#include "ipusim/arch/Files.h"
#include "ipusim/cc/Object.h"
#include "ipusim/sim/Image.h"
#include "ipusim/sim/Tile.h"
#include "ipusim/sim/TraceSpool.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>

namespace ipusim::tools {

namespace {

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

uint32_t parseAddress(const std::string &text, const std::string &what) {
  uint64_t v = 0;
  if (const std::string why = tools::parseNumber(text, 0xFFFFFFFFu, v); !why.empty())
    throw BadInput("ipusim: error: " + what + ": " + why);
  return uint32_t(v);
}

void checkRange(const sim::TileMemory &mem, uint32_t addr, uint64_t len, const std::string &what) {
  if (addr < mem.base() || addr + len > mem.end()) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "ipusim: error: %s: 0x%x..0x%llx is outside tile memory 0x%x..0x%x", what.c_str(),
                  addr, static_cast<unsigned long long>(addr + len), mem.base(), mem.end());
    throw BadInput(buf);
  }
}

} // namespace

int runTile(const RunTileOptions &o) {
  try {
    arch::SystemConfig cfg = arch::loadConfigArgument(o.config);
    cc::ObjectFile image = cc::readElfFile(o.image);
    if (o.mode != "supervisor" && o.mode != "worker" && o.mode != "multi")
      throw BadInput("ipusim: error: --mode must be supervisor, worker or multi, not '" + o.mode + "'");
    if (!image.linked) throw BadInput(o.image + ": error: not a linked tile image (link it with ipu-ld)");
    int entrySym = image.findSymbol(o.entry);
    if (entrySym < 0) throw BadInput(o.image + ": error: no symbol '" + o.entry + "'");
    if (std::string why = entryModeMismatch(image, image.symbols[size_t(entrySym)], o.mode); !why.empty())
      throw BadInput(o.image + ": error: " + why);
    uint32_t entry = image.symbols[size_t(entrySym)].value;
    uint32_t vertexBase = parseAddress(o.vertexBase, "--vertex-base");

    sim::Tile tile(cfg.tile);
    sim::TileMemory &mem = tile.memory();
    sim::loadImage(tile, image, o.image);
    for (const std::string &spec : o.loads) {
      auto at = spec.rfind('@');
      if (at == std::string::npos) throw BadInput("ipusim: error: --load wants FILE@ADDR, not '" + spec + "'");
      std::string file = spec.substr(0, at);
      if (const std::string bad = arch::unreadableFile(file, "a data file"); !bad.empty()) throw BadInput(bad);
      std::ifstream in(file, std::ios::binary);
      if (!in) throw BadInput(file + ": error: cannot open file");
      std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      uint32_t addr = parseAddress(spec.substr(at + 1), "--load");
      checkRange(mem, addr, bytes.size(), "--load " + spec);
      std::copy(bytes.begin(), bytes.end(), mem.at(addr));
    }
    struct Dump { uint32_t addr, len; std::string file; };
    std::vector<Dump> dumps;
    for (const std::string &spec : o.dumps) {
      auto c1 = spec.find(':'), c2 = spec.find(':', c1 == std::string::npos ? c1 : c1 + 1);
      if (c1 == std::string::npos || c2 == std::string::npos)
        throw BadInput("ipusim: error: --dump wants ADDR:LEN:FILE, not '" + spec + "'");
      Dump d{parseAddress(spec.substr(0, c1), "--dump"), parseAddress(spec.substr(c1 + 1, c2 - c1 - 1), "--dump"),
             spec.substr(c2 + 1)};
      checkRange(mem, d.addr, d.len, "--dump " + spec);
      dumps.push_back(d);
    }

    std::ofstream trace;
    sim::TraceSpool spool; // an instruction trace of a long run waits on disk, not in memory
    if (!o.trace.empty()) {
      trace.open(o.trace);
      if (!trace) throw BadInput(o.trace + ": error: cannot write file");
      tile.setTracing(true, true);
      tile.setTraceSpool(&spool, 1, size_t(1) << 16);
    }

    // The trace is written whether or not the run ends in an exception: it shows the way there.
    auto writeTrace = [&] {
      if (!trace.is_open()) return;
      // The canonical order (docs/trace-format.md): by cycle, the supervisor before the workers,
      // each context's events in the order they happened (sim::TraceKey).
      trace << sim::formatTraceHeader({cfg.name, cfg.ipu.clockHz, 1, 1});
      spool.drain(tile.takeKeyedEvents(), [&](sim::TraceEvent &&e) { trace << sim::formatTraceEvent(e) << '\n'; });
      if (!trace.flush()) throw BadInput(o.trace + ": error: cannot write file");
    };
    sim::TileStats stats;
    Progress progress("ipusim run-tile");
    tile.setProgress([&](uint64_t cycle) { progress.update(cycle); }, uint64_t(1) << 20);
    try {
      uint32_t start = o.mode == "supervisor" ? entry : tile.installWorkerLauncher(entry, vertexBase, o.mode == "multi");
      stats = tile.runSupervisor(start, o.mode == "supervisor" ? vertexBase : 0, o.maxCycles);
    } catch (const sim::SimException &e) {
      writeTrace();
      std::fprintf(stderr, "ipusim: simulated exception: %s\n", e.what());
      return 2;
    }
    const double seconds = progress.seconds();
    progress.finish();
    writeTrace();

    for (const Dump &d : dumps) {
      std::ofstream out(d.file, std::ios::binary);
      out.write(reinterpret_cast<const char *>(mem.at(d.addr)), d.len);
      if (!out) throw BadInput(d.file + ": error: cannot write file");
    }
    // exit_status: true (1) if every worker that ran exited with a true status.
    int status = 1;
    for (unsigned w = 1; w <= 6; ++w)
      if (tile.context(w).exitStatus == 0) status = 0;
    // The shape of `ipusim run`'s statistics (hierarchical names), for the one tile; the host's
    // figures are the only ones that differ between runs.
    Stats j;
    j.add("ipu0.cycles", stats.cycles);
    j.add("ipu0.tile0.cycles", stats.cycles);
    j.add("ipu0.tile0.exit_status", status);
    j.addContexts("ipu0.tile0.", stats.bundles, stats.stallCycles);
    j.addHost(seconds, stats.cycles);
    std::fputs(j.dump().c_str(), stdout);
    return 0;
  } catch (const BadInput &e) {
    std::fprintf(stderr, "%s\n", e.what());
  } catch (const std::exception &e) {
    std::string m = e.what();
    std::fprintf(stderr, "%s%s", m.c_str(), !m.empty() && m.back() == '\n' ? "" : "\n");
  }
  return 1;
}

} // namespace ipusim::tools
