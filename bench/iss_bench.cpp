// ISS speed, single host thread: simulated bundles per host second with full timing.
//   build/bin/iss_bench
#include "ipusim/arch/Config.h"
#include "ipusim/cc/Assembler.h"
#include "ipusim/cc/Linker.h"
#include "ipusim/sim/Image.h"

#include <benchmark/benchmark.h>

using namespace ipusim;

namespace {

const arch::SystemConfig &mk2() {
  static arch::SystemConfig c = arch::loadNamedConfig("mk2");
  return c;
}

cc::ObjectFile image(const cc::ObjectFile &obj) { return cc::link({{"b.o", obj}}, mk2().tile); }

void run(benchmark::State &state, const cc::ObjectFile &img, const char *entry, bool multi,
         const std::function<void(sim::Tile &)> &setup) {
  sim::Tile tile(mk2().tile);
  sim::loadImage(tile, img, "bench");
  setup(tile);
  uint32_t pc = img.symbols[size_t(img.findSymbol(entry))].value;
  uint64_t bundles = 0, cycles = 0;
  for (auto _ : state) {
    sim::TileStats s = multi ? tile.runSupervisor(pc, 0x70000) : tile.runSupervisor(pc, 0x70000);
    for (unsigned i = 0; i < 7; ++i) bundles += s.bundles[i];
    cycles += s.cycles;
  }
  state.counters["bundles/s"] = benchmark::Counter(double(bundles), benchmark::Counter::kIsRate);
  state.counters["cycles/s"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsRate);
}

// Six workers adding 12,000 float pairs (examples/asm/vector_add.S): an elementwise loop.
void BM_Elementwise(benchmark::State &state) {
  static cc::ObjectFile img = image(cc::assembleFile(IPUSIM_SOURCE_DIR "/examples/asm/vector_add.S", {}));
  run(state, img, "VectorAdd_f32", true, [](sim::Tile &t) {
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

} // namespace

BENCHMARK_MAIN();
