// ISS speed, single host thread: simulated bundles per host second with full timing.
//   build/bin/iss_bench
#include "ipusim/arch/Config.h"
#include "ipusim/cc/Assembler.h"
#include "ipusim/cc/Linker.h"
#include "ipusim/sim/Image.h"

#include <benchmark/benchmark.h>

#include <memory>

using namespace ipusim;

namespace {

const arch::SystemConfig &mk2() {
  static arch::SystemConfig c = arch::loadNamedConfig("mk2");
  return c;
}

cc::ObjectFile image(const cc::ObjectFile &obj) { return cc::link({{"b.o", obj}}, mk2().tile); }

/// Runs the supervisor at `entry` with $m0 = 0x70000 (or, with `worker`, starts that worker entry
/// alone through the tile's launcher, its vertex state at 0x70000).
void run(benchmark::State &state, const cc::ObjectFile &img, const char *entry, bool worker,
         const std::function<void(sim::Tile &)> &setup) {
  // On the heap, as an IPU's tiles are.
  auto owned = std::make_unique<sim::Tile>(mk2().tile);
  sim::Tile &tile = *owned;
  sim::loadImage(tile, img, "bench");
  setup(tile);
  uint32_t pc = img.symbols[size_t(img.findSymbol(entry))].value;
  uint32_t m0 = 0x70000;
  if (worker) {
    pc = tile.installWorkerLauncher(pc, 0x70000, false);
    m0 = 0;
  }
  uint64_t bundles = 0, cycles = 0;
  for (auto _ : state) {
    sim::TileStats s = tile.runSupervisor(pc, m0);
    for (unsigned i = 0; i < 7; ++i) bundles += s.bundles[i];
    cycles += s.cycles;
  }
  state.counters["bundles/s"] = benchmark::Counter(double(bundles), benchmark::Counter::kIsRate);
  state.counters["cycles/s"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsRate);
}

// Six workers adding 12,000 float pairs (examples/asm/vector_add.S): an elementwise loop.
void BM_Elementwise(benchmark::State &state) {
  static cc::ObjectFile img = image(cc::assembleFile(IPUSIM_SOURCE_DIR "/examples/asm/vector_add.S", {}));
  run(state, img, "VectorAdd_f32", false, [](sim::Tile &t) {
    uint32_t state[] = {0x80000, 0x98000, 0xB0000, 12000};
    for (int i = 0; i < 4; ++i) t.memory().write<uint32_t>(0x70000 + 4 * i, state[i]);
  });
}
BENCHMARK(BM_Elementwise)->Unit(benchmark::kMillisecond);

// The AMP: a 1x1 convolution partial (tests/sim/vertices/conv1x1.S), 16 to 8 channels, 400 positions.
void BM_AmpLoop(benchmark::State &state) {
  static cc::ObjectFile img = image(cc::assembleFile(IPUSIM_SOURCE_DIR "/tests/sim/vertices/conv1x1.S", {}));
  run(state, img, "conv1x1", false, [](sim::Tile &t) {
    uint32_t state[] = {0x90000, 0x80000, 0x88000, 0x60000, 400};
    for (int i = 0; i < 5; ++i) t.memory().write<uint32_t>(0x70000 + 4 * i, state[i]);
  });
}
BENCHMARK(BM_AmpLoop)->Unit(benchmark::kMillisecond);

// The supervisor alone: a counted loop of dependent integer instructions and taken branches.
void BM_SupervisorLoop(benchmark::State &state) {
  static cc::ObjectFile img = image(cc::assembleText(R"(
  .supervisor
  .globl loop
loop:
  setzi $m1, 20000
1:
  add $m2, $m2, 3
  add $m3, $m3, $m2
  ld32 $m4, $m0, 0
  brnzdec $m1, 1b
  br $lr
)",
                                                     "loop.s"));
  run(state, img, "loop", false, [](sim::Tile &) {});
}
BENCHMARK(BM_SupervisorLoop)->Unit(benchmark::kMillisecond);

// A compiled C++ vertex (bench/iss/collatz.cpp, compiled by ipu-cc in the build: the bench does
// not link the compiler): straight-line code between data-dependent branches, one worker, 2,000
// inputs.
void BM_CompiledBranches(benchmark::State &state) {
  static cc::ObjectFile img = image(cc::readElfFile(IPUSIM_COLLATZ_OBJECT));
  run(state, img, "__runCodelet_Collatz", true, [](sim::Tile &t) {
    const uint32_t n = 2000;
    for (uint32_t i = 0; i < n; ++i) t.memory().write<uint32_t>(0x60000 + 4 * i, i * 2654435761u >> 8);
    t.memory().write<uint32_t>(0x70000, 0x60000);
    t.memory().write<uint32_t>(0x70004, n);
    t.memory().write<uint32_t>(0x70008, 0x68000);
  });
}
BENCHMARK(BM_CompiledBranches)->Unit(benchmark::kMillisecond);

// An rpt loop of scalar work (bench/iss/rpt_scalar.S) on 1 to 6 workers: 20,000 bundles each.
void BM_RptScalar(benchmark::State &state) {
  static cc::ObjectFile img = image(cc::assembleFile(IPUSIM_SOURCE_DIR "/bench/iss/rpt_scalar.S", {}));
  const uint32_t workers = uint32_t(state.range(0));
  run(state, img, "rpt_scalar", false, [workers](sim::Tile &t) {
    t.memory().write<uint32_t>(0x70000, 20000);
    t.memory().write<float>(0x70004, 0.5f);
    t.memory().write<uint32_t>(0x70008, workers);
  });
}
BENCHMARK(BM_RptScalar)->DenseRange(1, 6)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
