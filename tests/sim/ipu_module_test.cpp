// The SystemC IPU module: it meets the kernel at each sync's release and ends at the IPU cycle the
// last tile returns, with the trace handed over superstep by superstep. One SystemC simulation
// per process, so this file has its own sc_main.
#include "SimUtil.h"

#include "ipusim/sim/IpuModule.h"

#include <gtest/gtest.h>

using namespace ipusim;

namespace {

struct Observer : sc_core::sc_module {
  SC_HAS_PROCESS(Observer);
  Observer(sc_core::sc_module_name n, sim::IpuModule &m) : sc_core::sc_module(n), module(m) { SC_THREAD(watch); }
  void watch() {
    wait(module.done);
    doneAt = sc_core::sc_time_stamp();
  }
  sim::IpuModule &module;
  sc_core::sc_time doneAt;
};

TEST(IpuModule, SuperstepsMeetTheKernelAtTheIpuClock) {
  // Two tiles: sync 3 at 0, released at 126 (sync.internal_latency_cycles); sync 3 again at 126,
  // released at 252; br $lr at 252, returning at 258.
  cc::ObjectFile img = cc::link({{"t.o", test::assemble(R"(
  .supervisor
  .globl s
s:
  sync 3
  sync 3
  br $lr
)")}},
                                test::mk2Config().tile);
  sim::Ipu ipu(test::mk2Config(), 2);
  ipu.setTracing(true, false);
  for (unsigned t = 0; t < 2; ++t) {
    sim::loadImage(ipu.tile(t), img, "t.elf");
    ipu.start(t, img.symbols[size_t(img.findSymbol("s"))].value, 0x70000);
  }
  const double clock = test::mk2Config().ipu.clockHz;
  sim::IpuModule module("ipu0", ipu, clock, 2);
  Observer observer("observer", module);
  std::vector<size_t> batches; // events handed over after each superstep
  std::vector<uint64_t> syncAt;
  module.onTrace = [&](std::vector<sim::TraceEvent> &&events) {
    batches.push_back(events.size());
    for (const sim::TraceEvent &e : events)
      if (e.event == "sync") syncAt.push_back(e.cycle);
  };
  sc_core::sc_start();
  EXPECT_FALSE(module.error());
  EXPECT_EQ(module.stats().cycles, 258u);
  EXPECT_EQ(module.stats().syncs, 2u);
  EXPECT_EQ(observer.doneAt, sc_core::sc_time(258.0 / clock, sc_core::SC_SEC));
  // Superstep 1: phase, 2 tile.begin, 2 sync.enter. 2: sync, phase, 2 sync.release, 2 sync.enter.
  // 3: sync, phase, 2 sync.release, 2 tile.end.
  EXPECT_EQ(batches, (std::vector<size_t>{5, 6, 6}));
  EXPECT_EQ(syncAt, (std::vector<uint64_t>{126, 252}));
}

} // namespace

int sc_main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
