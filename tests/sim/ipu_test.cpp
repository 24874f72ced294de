// Tiles of one IPU meeting in INTERNAL syncs: release timing, determinism for any thread count,
// and deadlocks reported rather than hung.
#include "SimUtil.h"

#include "ipusim/sim/Ipu.h"

#include <gtest/gtest.h>

using namespace ipusim;
using namespace ipusim::test;

namespace {

// Each tile counts down K (its vertex state word 0) with brnzdec, syncs with the IPU, stores the
// cycle counter and returns.
const char *kProgram = R"(
  .supervisor
  .globl s
s:
  ld32 $m1, $m0, 0
1:
  brnzdec $m1, 1b
  sync 3
  get $m2, $SCOUNT_L
  st32 $m2, $m0, 1
  br $lr
)";

struct IpuRun {
  std::unique_ptr<cc::ObjectFile> image; // outlives the tiles' source look-ups
  std::unique_ptr<sim::Ipu> ipu;
  sim::IpuStats stats;
};

IpuRun runIpu(const std::vector<uint32_t> &counts, unsigned threads) {
  IpuRun r;
  r.image = std::make_unique<cc::ObjectFile>(cc::link({{"t.o", assemble(kProgram)}}, mk2Config().tile));
  r.ipu = std::make_unique<sim::Ipu>(mk2Config(), unsigned(counts.size()));
  uint32_t pc = r.image->symbols[size_t(r.image->findSymbol("s"))].value;
  for (unsigned t = 0; t < counts.size(); ++t) {
    sim::loadImage(r.ipu->tile(t), *r.image, "t.elf");
    r.ipu->tile(t).memory().write<uint32_t>(0x70000, counts[t]);
    r.ipu->start(t, pc, 0x70000);
  }
  r.stats = r.ipu->run(threads);
  return r;
}

TEST(Ipu, InternalSyncReleasesAllTilesAfterTheLastArrival) {
  // Tile t: c0 ld32; brnzdec (needs $m1) at 6, 12, ... taken K times, the last (not taken) at
  // 6 + 6K; sync 3 at 7 + 6K. With K = 1, 5, 3 the tiles arrive at 13, 37 and 25; all are released
  // at 37 + 126 (sync.internal_latency_cycles) = 163: get $SCOUNT_L reads 163, st32 (needs $m2)
  // at 169, br $lr at 170, returning at 176.
  IpuRun r = runIpu({1, 5, 3}, 1);
  const sim::IpuStats &s = r.stats;
  EXPECT_EQ(s.syncs, 1u);
  EXPECT_EQ(s.cycles, 176u);
  for (unsigned t = 0; t < 3; ++t) {
    EXPECT_EQ(r.ipu->tile(t).memory().read<uint32_t>(0x70004), 163u) << t;
    EXPECT_EQ(s.tiles[t].cycles, 176u);
  }
  EXPECT_EQ(s.tiles[0].bundles[0], 7u); // ld32, brnzdec twice (K = 1), sync, get, st32, br
}

TEST(Ipu, ResultsAreIdenticalForAnyThreadCount) {
  std::vector<uint32_t> counts;
  for (unsigned t = 0; t < 64; ++t) counts.push_back((t * 37) % 23);
  const sim::IpuStats one = runIpu(counts, 1).stats, two = runIpu(counts, 2).stats, many = runIpu(counts, 7).stats;
  for (const sim::IpuStats *s : {&two, &many}) {
    EXPECT_EQ(s->cycles, one.cycles);
    ASSERT_EQ(s->tiles.size(), one.tiles.size());
    for (size_t t = 0; t < one.tiles.size(); ++t) {
      EXPECT_EQ(s->tiles[t].cycles, one.tiles[t].cycles);
      EXPECT_EQ(s->tiles[t].bundles[0], one.tiles[t].bundles[0]);
      EXPECT_EQ(s->tiles[t].stallCycles[0], one.tiles[t].stallCycles[0]);
    }
  }
}

TEST(Ipu, ASyncThatOthersNeverReachIsADeadlock) {
  cc::ObjectFile img = cc::link({{"t.o", assemble(R"(
  .supervisor
  .globl s
  .globl r
s:
  sync 3
  br $lr
r:
  br $lr
)")}},
                                mk2Config().tile);
  sim::Ipu ipu(mk2Config(), 3);
  for (unsigned t = 0; t < 3; ++t) {
    sim::loadImage(ipu.tile(t), img, "t.elf");
    ipu.start(t, img.symbols[size_t(img.findSymbol(t == 1 ? "r" : "s"))].value, 0x70000);
  }
  try {
    ipu.run(2);
    FAIL() << "no deadlock reported";
  } catch (const sim::DeadlockError &e) {
    EXPECT_EQ(std::string(e.what()),
              "deadlock: tiles 0, 2 wait in sync 3 (INTERNAL) from cycle 0, which tiles 1 never reach (they returned)");
  }
}

TEST(Ipu, OneTileAloneCannotSyncWithTheIpu) {
  try {
    runAsm("  .supervisor\nf:\n  sync 3\n  br $lr\n", "f", Mode::Supervisor);
    FAIL();
  } catch (const sim::SimException &e) {
    EXPECT_EQ(e.reason, "sync zone 3 waits for other tiles: it needs the IPU model (ipusim run, not run-tile)");
  }
}

} // namespace
