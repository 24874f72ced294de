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

TEST(Ipu, OneTileAloneCannotSendOnTheExchange) {
  try {
    runAsm("  .supervisor\nf:\n  send 0, 1, 1\n  br $lr\n", "f", Mode::Supervisor);
    FAIL();
  } catch (const sim::SimException &e) {
    EXPECT_EQ(e.reason, "send on a lone tile: the exchange needs the IPU model (ipusim run, not run-tile)");
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

namespace {

// A ring shift on four tiles (logical 0-3: physical 0, 2, 64, 66, two pairs in two rows of
// column 0): after an IPU sync, each tile selects its left neighbour ((id + 3) mod 4) with
// $INCOMING_MUX, points $INCOMING_BASE at 0x71000, waits 40 cycles for every receiver's mux to be
// set, and sends the four words at 0x70000 east; then it waits and syncs again. `wait` is the
// delay before that sync.
std::string ringProgram(unsigned wait, bool setMux = true) {
  return std::string(R"(
  .supervisor
  .globl s
s:
  sync 3
  get $m1, $TILE_ID
  add $m2, $m1, 3
  and $m2, $m2, 3
)") + (setMux ? "  put $INCOMING_MUX, $m2\n" : "  nop\n") + R"(
  setzi $m3, 0x71000
  put $INCOMING_BASE, $m3
  put $INCOMING_DELTA, $mzero
  setzi $m4, 0x70000
  put $OUTGOING_BASE, $m4
  delay 40
  send 0, 4, 1
  delay )" + std::to_string(wait) + R"(
  sync 3
  br $lr
)";
}

sim::IpuStats runRing(const std::string &program, sim::Ipu &ipu, cc::ObjectFile &img) {
  img = cc::link({{"t.o", assemble(program)}}, mk2Config().tile);
  for (unsigned t = 0; t < 4; ++t) {
    sim::loadImage(ipu.tile(t), img, "t.elf");
    for (uint32_t i = 0; i < 4; ++i) ipu.tile(t).memory().write<uint32_t>(0x70000 + 4 * i, 100 * t + i);
    ipu.start(t, img.symbols[size_t(img.findSymbol("s"))].value, 0x70000);
  }
  return ipu.run(2);
}

TEST(Exchange, RingShiftBetweenNeighbours) {
  // All tiles reach the first sync at 0 and resume at 126. get at 126; add (needs $m1) at 132;
  // and at 138; put $INCOMING_MUX at 144; setzi 145; put $INCOMING_BASE (needs $m3) 151; put
  // $INCOMING_DELTA 152; setzi 153; put $OUTGOING_BASE 159; delay 40 at 160; send at 200 streams
  // words at 200..203 and the next issue waits to 204; delay 30: the second sync at 234.
  // Flight times (arch::ExchangeLayout, [RE] S9 time_to_mux, worked in
  // tests/arch/exchange_layout_test.cpp): ttm 0->1 (physical 0->2) -28, 1->2 (2->64) -31,
  // 2->3 (64->66) -28, 3->0 (66->0) -27, all east. Each receiver's mux must select at send + ttm + 1
  // = 173, 170, 173, 174 (>= 144: set in time); the words are written 52 + 2 x row(receiver) after
  // that: tile 1 at 225..228, tile 2 at 224..227, tile 3 at 227..230, tile 0 at 226..229, all
  // before 234. Release at 234 + 126 = 360; br $lr: done at 366.
  sim::Ipu ipu(mk2Config(), 4);
  cc::ObjectFile img;
  sim::IpuStats s = runRing(ringProgram(30), ipu, img);
  EXPECT_EQ(s.syncs, 2u);
  EXPECT_EQ(s.cycles, 366u);
  for (unsigned t = 0; t < 4; ++t)
    for (uint32_t i = 0; i < 4; ++i)
      EXPECT_EQ(ipu.tile(t).memory().read<uint32_t>(0x71000 + 4 * i), 100 * ((t + 3) % 4) + i) << t << " " << i;
  EXPECT_EQ(ipu.latency(0, 1), 25u);
  EXPECT_EQ(ipu.latency(1, 2), 24u);
  EXPECT_EQ(ipu.latency(2, 3), 27u);
  EXPECT_EQ(ipu.latency(3, 0), 26u);
  EXPECT_EQ(s.wordsSent, 16u);
  EXPECT_EQ(s.wordsReceived, 16u);
  EXPECT_EQ(s.exchangePhases, 1u); // the phase between the syncs; before the first and after the last: compute
  EXPECT_EQ(s.computePhases, 2u);
  EXPECT_EQ(s.exchangeCycles, 234u - 126u);
  EXPECT_EQ(s.syncCycles, 2u * 126u);
}

TEST(Exchange, APutWhileWordsArriveAppliesFromItsCycle) {
  // The ring shift, each receiver putting a new $INCOMING_DELTA (0x100) or $INCOMING_BASE
  // (0x71200) `d` cycles after its send's last issue (the put at 204 + d), while its words arrive
  // (225..230, RingShiftBetweenNeighbours). Words written from the put's cycle on use the new
  // value: word i of the four goes to 0x71000 + 4i before, and after it to 0x71100 + 4(i - k)
  // (the delta restarts from the put) or 0x71200 + 4i (the delta keeps counting), k the words
  // before. Over d = 14..28 some receiver must see the put land between its words (0 < k < 4).
  for (const char *csr : {"$INCOMING_DELTA", "$INCOMING_BASE"}) {
    const bool delta = std::string(csr) == "$INCOMING_DELTA";
    bool between = false;
    for (unsigned d = 14; d <= 28; ++d) {
      std::string program = ringProgram(30);
      program.replace(program.find("  delay 40\n"), 11, std::string("  setzi $m5, ") + (delta ? "0x100" : "0x71200") + "\n  delay 39\n");
      program.replace(program.find("  delay 30\n"), 11,
                      "  delay " + std::to_string(d) + "\n  put " + csr + ", $m5\n  delay " + std::to_string(29 - d) + "\n");
      sim::Ipu ipu(mk2Config(), 4);
      cc::ObjectFile img;
      runRing(program, ipu, img);
      for (unsigned t = 0; t < 4; ++t) {
        auto at = [&](uint32_t addr) { return ipu.tile(t).memory().read<uint32_t>(addr); };
        int found = -1;
        for (unsigned k = 0; k <= 4 && found < 0; ++k) {
          bool match = true;
          for (uint32_t i = 0; i < 4; ++i) {
            const uint32_t addr = i < k ? 0x71000 + 4 * i : delta ? 0x71100 + 4 * (i - k) : 0x71200 + 4 * i;
            match &= at(addr) == 100 * ((t + 3) % 4) + i;
          }
          if (match) found = int(k);
        }
        EXPECT_GE(found, 0) << csr << " d " << d << " tile " << t;
        between |= found > 0 && found < 4;
      }
    }
    EXPECT_TRUE(between) << csr;
  }
}

TEST(Exchange, ErrorsNameSenderReceiverAndCycle) {
  {
    sim::Ipu ipu(mk2Config(), 4);
    cc::ObjectFile img;
    try {
      runRing(ringProgram(1), ipu, img); // delay 1: the sync at 205, before the words arrive (224..)
      FAIL() << "no error";
    } catch (const sim::ExchangeError &e) {
      EXPECT_EQ(std::string(e.what()), "exchange: the word tile 3 sent at cycle 200 reaches tile 0 at cycle 226, after it "
                                       "entered the sync at cycle 205");
    }
  }
  {
    sim::Ipu ipu(mk2Config(), 4);
    cc::ObjectFile img;
    try {
      // No mux is set (a nop instead of the put, with no dependency): and at 138, nop 139, setzi
      // 140, put $INCOMING_BASE 146, put $INCOMING_DELTA 147, setzi 148, put $OUTGOING_BASE 154,
      // delay 40 at 155, send at 195; every mux still selects no tile.
      runRing(ringProgram(30, false), ipu, img);
      FAIL() << "no error";
    } catch (const sim::ExchangeError &e) {
      EXPECT_EQ(std::string(e.what()), "exchange: the word tile 0 sent at cycle 195 is selected by no tile's $INCOMING_MUX when it arrives");
    }
  }
}

} // namespace
