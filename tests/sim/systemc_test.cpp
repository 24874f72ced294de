// The SystemC tile module: a vertex's compute phase advances SystemC time by exactly its cycles.
// One SystemC simulation per process, so this file has its own main (sc_main).
#include "SimUtil.h"

#include "ipusim/sim/TileModule.h"

#include <gtest/gtest.h>

using namespace ipusim;

namespace {

struct Observer : sc_core::sc_module {
  SC_HAS_PROCESS(Observer);
  Observer(sc_core::sc_module_name n, sim::TileModule &m) : sc_core::sc_module(n), module(m) { SC_THREAD(watch); }
  void watch() {
    wait(module.done);
    doneAt = sc_core::sc_time_stamp();
  }
  sim::TileModule &module;
  sc_core::sc_time doneAt;
};

TEST(TileModule, ComputePhaseTakesItsCyclesAtTheIpuClock) {
  // The supervisor test of tests/sim/timing_test.cpp: 19 cycles.
  cc::ObjectFile img = cc::link({{"t.o", test::assemble(R"(
  .supervisor
f:
  setzi $m1, 5
  add $m2, $m1, 1
  add $m3, $m0, 2
  st32 $m2, $m0, 0
  br $lr
)")}},
                                test::mk2Config().tile);
  sim::Tile tile(test::mk2Config().tile);
  sim::loadImage(tile, img, "t.elf");
  const double clock = test::mk2Config().ipu.clockHz; // 1.325 GHz, [D] S12
  sim::TileModule module("tile0", tile, clock);
  Observer observer("observer", module);
  module.start(img.symbols[size_t(img.findSymbol("f"))].value, 0x70000);
  sc_core::sc_start();
  EXPECT_EQ(module.error(), "");
  EXPECT_EQ(module.stats().cycles, 19u);
  EXPECT_EQ(tile.memory().read<uint32_t>(0x70000), 6u);
  sc_core::sc_time expect = sc_core::sc_time(1.0 / clock, sc_core::SC_SEC) * 19.0;
  EXPECT_EQ(observer.doneAt, expect);
}

} // namespace

int sc_main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
