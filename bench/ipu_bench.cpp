// Full-chip speed: simulated IPU cycles per host second for all 1472 tiles of one IPU, on 1 and 2
// host threads (docs/performance.md).   build/bin/ipu_bench
#include "ipusim/arch/Config.h"
#include "ipusim/cc/Assembler.h"
#include "ipusim/cc/Linker.h"
#include "ipusim/sim/Image.h"
#include "ipusim/sim/Ipu.h"

#include <benchmark/benchmark.h>

#include <functional>

using namespace ipusim;

namespace {

const arch::SystemConfig &mk2() {
  static arch::SystemConfig c = arch::loadNamedConfig("mk2");
  return c;
}

/// Loads `img` onto every tile of `ipu` (one decode cache for all) and lets `fill` write tile t's
/// data; returns the address of `entry`.
uint32_t loadEveryTile(sim::Ipu &ipu, const cc::ObjectFile &img, const char *entry,
                       const std::function<void(unsigned, sim::TileMemory &)> &fill) {
  for (unsigned t = 0; t < ipu.tileCount(); ++t) {
    sim::Tile &tile = ipu.tile(t);
    sim::loadImage(tile, img, "bench");
    if (t) tile.shareDecodeCache(ipu.tile(0).decodeCache());
    fill(t, tile.memory());
  }
  return img.symbols[size_t(img.findSymbol(entry))].value;
}

/// The timed loop: every tile starts at `pc` with $m0 = 0x70000 at cycle 0 and the IPU runs to
/// the end; IPU cycles and bundles per host second, and the cycles of a run (the same every run).
void timeRuns(benchmark::State &state, sim::Ipu &ipu, uint32_t pc, unsigned threads) {
  uint64_t cycles = 0, bundles = 0, perRun = 0;
  for (auto _ : state) {
    ipu.newRun();
    for (unsigned t = 0; t < ipu.tileCount(); ++t) ipu.start(t, pc, 0x70000);
    sim::IpuStats s = ipu.run(threads);
    perRun = s.cycles;
    cycles += s.cycles;
    for (const sim::TileStats &ts : s.tiles)
      for (uint64_t b : ts.bundles) bundles += b;
  }
  state.counters["ipu_cycles/s"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsRate);
  state.counters["bundles/s"] = benchmark::Counter(double(bundles), benchmark::Counter::kIsRate);
  state.counters["ipu_cycles_per_run"] = double(perRun);
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
  const uint32_t pc = loadEveryTile(ipu, img, "step", [pairs](unsigned t, sim::TileMemory &m) {
    uint32_t vertex[] = {0x80000, 0x98000, 0xB0000, pairs};
    for (int i = 0; i < 4; ++i) m.write<uint32_t>(0x70000 + 4 * i, vertex[i]);
    for (uint32_t i = 0; i < 2 * pairs; ++i) {
      m.write<float>(0x80000 + 4 * i, float(i));
      m.write<float>(0x98000 + 4 * i, float(t));
      m.write<float>(0xB0000 + 4 * i, 0.0f); // the output's pages exist before the timing
    }
  });
  timeRuns(state, ipu, pc, threads);
}
BENCHMARK(BM_FullChipElementwise)
    ->ArgsProduct({{1, 2}, {1200, 12000}})
    ->ArgNames({"threads", "pairs"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Every tile runs an AMP workload between two IPU syncs: the supervisor loads 32 $CWEI entries and
// starts six workers, each running tests/sim/vertices/conv1x1.S's worker (a 1x1 convolution
// partial, 16 to 8 channels on the AMP) over `positions` positions: the all-tile AMP workload of
// issue 15 (matmul and convolution partials on every tile).
void BM_FullChipAmp(benchmark::State &state) {
  static cc::ObjectFile img = cc::link({{"step.o", cc::assembleText(R"(
  .supervisor
  .globl amp_step
amp_step:
  sync 3                         // INTERNAL
  ld32 $m1, $m0, 0
  put $CCCSLOAD, $m1
  ld128putcs 0
  ld128putcs 2
  ld128putcs 4
  ld128putcs 6
  ld128putcs 8
  ld128putcs 10
  ld128putcs 12
  ld128putcs 14
  ld128putcs 16
  ld128putcs 18
  ld128putcs 20
  ld128putcs 22
  ld128putcs 24
  ld128putcs 26
  ld128putcs 28
  ld128putcs 30
  setzi $m2, conv1x1_worker
  add $m3, $m0, 4
  setzi $m4, 0x4c000             // TMEM_REGION0_BASE_ADDR: run takes its vertex base relative to it
  sub $m3, $m3, $m4
  setzi $m5, 6
1:
  run $m2, $m3, 0
  add $m3, $m3, 16               // the next worker's state
  add $m5, $m5, -1
  brnz $m5, 1b
  sync 2                         // LOCAL
  sync 3
  br $lr
)", "amp_step.s")},
                                        {"conv1x1.o", cc::assembleFile(IPUSIM_SOURCE_DIR "/tests/sim/vertices/conv1x1.S", {})}},
                                       mk2().tile);
  const unsigned tiles = 1472, threads = unsigned(state.range(0)), positions = unsigned(state.range(1));
  sim::Ipu ipu(mk2(), tiles);
  const uint32_t pc = loadEveryTile(ipu, img, "amp_step", [positions](unsigned t, sim::TileMemory &m) {
    m.write<uint32_t>(0x70000, 0x90000); // weights (interleaved memory): f16 values 1/64 k + 1/8
    for (uint32_t i = 0; i < 128; ++i) m.write<uint64_t>(0x90000 + 8 * i, 0x3000300030003000ull + i);
    for (uint32_t w = 0; w < 6; ++w) {
      const uint32_t in = 0x50000 + w * 0x3400, partials = 0x64000 + w * 0x1A00, out = 0x78000 + w * 0x1A00;
      const uint32_t vertex[] = {in, partials, out, positions};
      for (int i = 0; i < 4; ++i) m.write<uint32_t>(0x70004 + 16 * w + 4 * i, vertex[i]);
      for (uint32_t i = 0; i < 16 * positions; ++i) m.write<uint16_t>(in + 2 * i, uint16_t(0x3C00 + (i + t) % 64));
      for (uint32_t i = 0; i < 8 * positions; ++i) {
        m.write<uint16_t>(partials + 2 * i, 0x3800);
        m.write<uint16_t>(out + 2 * i, 0); // the output's pages exist before the timing
      }
    }
  });
  timeRuns(state, ipu, pc, threads);
}
BENCHMARK(BM_FullChipAmp)
    ->ArgsProduct({{1, 2}, {100}})
    ->ArgNames({"threads", "positions"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace

BENCHMARK_MAIN();
