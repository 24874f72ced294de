// libFuzzer harness: any bytes (or the first code section of an ELF object), loaded as code and
// data into region 0 and run on all six workers (with a vertex base into the same bytes), must
// end in a normal return, a simulated exception or the cycle limit: never a crash, undefined
// behaviour or a hang. Each input runs on the fast paths and cycle by cycle, which must agree:
// the same exception (or none), and after a normal return the same cycles, bundles, stalls and
// memory (after an exception the statistics and memory may differ: other workers may have run
// ahead of the faulting bundle, and one inside a batched rpt loop is raised at the rpt's issue:
// docs/tile-timing.md, the end of "Running ahead"). A difference aborts with both outcomes.
#include "ipusim/arch/Config.h"
#include "ipusim/cc/Object.h"
#include "ipusim/sim/Tile.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace ipusim;

namespace {
struct Outcome {
  std::string exception; ///< empty: a normal return
  sim::TileStats stats;
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const arch::SystemConfig cfg = arch::loadConfig(IPUSIM_SOURCE_CONFIG_DIR "/mk2.toml");
  // Reused: a run resets the contexts, and decoded code is checked against memory on every fetch.
  static sim::Tile tiles[2] = {sim::Tile(cfg.tile), sim::Tile(cfg.tile)};
  constexpr size_t kWindow = 0x4000;
  std::vector<uint8_t> code(data, data + size);
  if (size >= 4 && std::memcmp(data, "\x7f" "ELF", 4) == 0) {
    try {
      cc::ObjectFile obj = cc::readElf(code, "seed.o");
      code.clear();
      for (const cc::Section &s : obj.sections)
        if (s.isCode() && !s.data.empty()) {
          code = s.data;
          break;
        }
    } catch (const cc::ObjectError &) {
    }
  }
  if (code.size() < 8) return 0;
  const uint32_t base = cfg.tile.memoryBase;
  Outcome out[2];
  for (unsigned fast = 0; fast < 2; ++fast) {
    sim::Tile &tile = tiles[fast];
    tile.setFastPaths(fast);
    // All of memory afresh: after an exception the two tiles' memories may differ (other workers
    // ran ahead), and the next input must start them alike.
    std::memset(tile.memory().at(base), 0, tile.memory().end() - base);
    std::memcpy(tile.memory().at(base), code.data(), std::min(code.size(), kWindow));
    try {
      tile.runSupervisor(tile.installWorkerLauncher(base, base + 0x2000, size & 2), 0, 50000);
    } catch (const sim::SimException &e) {
      out[fast].exception = e.what();
    }
    out[fast].stats = tile.stats();
  }
  bool same = out[0].exception == out[1].exception;
  if (same && out[0].exception.empty()) {
    same = out[0].stats.cycles == out[1].stats.cycles;
    for (unsigned c = 0; c < 7; ++c)
      same = same && out[0].stats.bundles[c] == out[1].stats.bundles[c] &&
             out[0].stats.stallCycles[c] == out[1].stats.stallCycles[c];
    same = same && std::memcmp(tiles[0].memory().at(base), tiles[1].memory().at(base), tiles[0].memory().end() - base) == 0;
  }
  if (!same) {
    std::fprintf(stderr, "fast and cycle-by-cycle paths differ:\n  stepped: %llu cycles, %s\n  fast:    %llu cycles, %s\n",
                 (unsigned long long)out[0].stats.cycles, out[0].exception.empty() ? "returned" : out[0].exception.c_str(),
                 (unsigned long long)out[1].stats.cycles, out[1].exception.empty() ? "returned" : out[1].exception.c_str());
    std::abort();
  }
  return 0;
}
