// Full-chip speed: simulated IPU cycles per host second for all 1472 tiles of one IPU, on 1 and 2
// host threads (docs/performance.md).   build/bin/ipu_bench
#include "ipusim/arch/Config.h"
#include "ipusim/cc/Assembler.h"
#include "ipusim/cc/Linker.h"
#include "ipusim/sim/Image.h"
#include "ipusim/sim/Ipu.h"

#include <benchmark/benchmark.h>

using namespace ipusim;

namespace {

const arch::SystemConfig &mk2() {
  static arch::SystemConfig c = arch::loadNamedConfig("mk2");
  return c;
}

// Every tile runs examples/asm/vector_add.S's supervisor vertex (six workers adding `pairs` float
// pairs each tile) between two IPU syncs: the all-tile elementwise workload of issue 4.
void BM_FullChipElementwise(benchmark::State &state) {
  static cc::ObjectFile img = cc::link({{"step.o", cc::assembleText(R"(
  .supervisor
  .globl step
step:
  sync 3                         // INTERNAL
  setzi $m1, VectorAdd_f32_worker
  runall $m1, $m0, 0
  sync 2                         // LOCAL
  sync 3
  br $lr
)", "step.s")},
                                        {"vector_add.o", cc::assembleFile(IPUSIM_SOURCE_DIR "/examples/asm/vector_add.S", {})}},
                                       mk2().tile);
  const unsigned tiles = 1472, threads = unsigned(state.range(0)), pairs = unsigned(state.range(1));
  sim::Ipu ipu(mk2(), tiles);
  const uint32_t pc = img.symbols[size_t(img.findSymbol("step"))].value;
  for (unsigned t = 0; t < tiles; ++t) {
    sim::Tile &tile = ipu.tile(t);
    sim::loadImage(tile, img, "bench");
    if (t) tile.shareDecodeCache(ipu.tile(0).decodeCache());
    uint32_t vertex[] = {0x80000, 0x98000, 0xB0000, pairs};
    for (int i = 0; i < 4; ++i) tile.memory().write<uint32_t>(0x70000 + 4 * i, vertex[i]);
    for (uint32_t i = 0; i < 2 * pairs; ++i) {
      tile.memory().write<float>(0x80000 + 4 * i, float(i));
      tile.memory().write<float>(0x98000 + 4 * i, float(t));
      tile.memory().write<float>(0xB0000 + 4 * i, 0.0f); // the output's pages exist before the timing
    }
  }
  uint64_t cycles = 0, bundles = 0, perRun = 0;
  for (auto _ : state) {
    ipu.newRun();
    for (unsigned t = 0; t < tiles; ++t) ipu.start(t, pc, 0x70000); // every tile from cycle 0
    sim::IpuStats s = ipu.run(threads);
    perRun = s.cycles;
    cycles += s.cycles;
    for (const sim::TileStats &ts : s.tiles)
      for (uint64_t b : ts.bundles) bundles += b;
  }
  state.counters["ipu_cycles/s"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsRate);
  state.counters["bundles/s"] = benchmark::Counter(double(bundles), benchmark::Counter::kIsRate);
  state.counters["ipu_cycles_per_run"] = double(perRun); // the same every run
}
BENCHMARK(BM_FullChipElementwise)
    ->ArgsProduct({{1, 2}, {1200, 12000}})
    ->ArgNames({"threads", "pairs"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace

BENCHMARK_MAIN();
