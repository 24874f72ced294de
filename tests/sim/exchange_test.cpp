// The exchange fabric beyond 32-bit point-to-point words: 64-bit tile-pair items, send
// directions, and the errors of each; the ANS and EXTERNAL sync zones; $INCOMING_SINIT. Every
// cycle is derived by hand in a comment from docs/tile-timing.md and the flight times of
// arch::ExchangeLayout (worked in tests/arch/exchange_layout_test.cpp).
#include "SimUtil.h"

#include "ipusim/sim/Ipu.h"

#include <gtest/gtest.h>

using namespace ipusim;
using namespace ipusim::test;

namespace {

/// Runs `entries[t]` (a symbol of `program`) as the supervisor of tile t, with $m0 = 0x70000.
struct PairRun {
  cc::ObjectFile image;
  std::unique_ptr<sim::Ipu> ipu;
  sim::IpuStats stats;
  std::vector<sim::TraceEvent> trace;
};
PairRun runTiles(const std::string &program, const std::vector<std::string> &entries,
             std::function<void(sim::Ipu &)> prepare = {}) {
  PairRun r;
  r.image = cc::link({{"t.o", assemble("  .supervisor\n" + program)}}, mk2Config().tile);
  r.ipu = std::make_unique<sim::Ipu>(mk2Config(), unsigned(entries.size()));
  r.ipu->setTracing(true, false);
  for (unsigned t = 0; t < entries.size(); ++t) {
    sim::loadImage(r.ipu->tile(t), r.image, "t.elf");
    if (prepare) prepare(*r.ipu);
    r.ipu->start(t, r.image.symbols[size_t(r.image.findSymbol(entries[t]))].value, 0x70000);
  }
  r.stats = r.ipu->run(2);
  r.trace = r.ipu->takeTrace();
  return r;
}
std::string errorOf(const std::string &program, const std::vector<std::string> &entries) {
  try {
    runTiles(program, entries);
  } catch (const std::exception &e) {
    return e.what();
  }
  return "no error";
}

// Tile 0 sends two 64-bit items east to the pair of tiles 2 and 3 (physical 64 and 66, the pair
// above it). Tile 2 selects tile 0 with $INCOMING_MUXPAIR, which sets tile 3's mux a cycle later;
// both set $INCOMING_FORMAT 1 (64-bit from the east) and their own base.
const char *kPair = R"(
sender:
  sync 3                         // 0; released at 126
  setzi $m4, 0x70000             // 126
  put $OUTGOING_BASE, $m4        // 132 (waits for $m4)
  delay 60                       // 133; next issue at 193
  send 0, 2, 5                   // 193: items at 193 and 194, east, 64-bit; next issue 195
  delay 40                       // 195; next issue 235
  sync 3                         // 235
  br $lr
partnerSends:                    // tile 1, breaking the rule that it must not send meanwhile
  sync 3
  setzi $m4, 0x70000
  put $OUTGOING_BASE, $m4
  delay 60
  send 0, 1, 1                   // 193, the cycle tile 0's first item takes its lane
  delay 41
  sync 3
  br $lr
partnerSendsSecond:              // tile 1 again, a cycle later
  sync 3
  setzi $m4, 0x70000
  put $OUTGOING_BASE, $m4
  delay 61
  send 0, 1, 1                   // 194, the cycle tile 0's second item takes its lane
  delay 40
  sync 3
  br $lr
idle:
  sync 3
  sync 3
  br $lr
primary:                         // tile 2
  sync 3                         // 0
  setzi $m1, 0                   // 126
  put $INCOMING_MUXPAIR, $m1     // 132: tile 2's mux now, tile 3's at 133
  setzi $m2, 1                   // 133
  put $INCOMING_FORMAT, $m2      // 139
  setzi $m3, 0x71000             // 140
  put $INCOMING_BASE, $m3        // 146
  put $INCOMING_DELTA, $mzero    // 147
  delay 88                       // 148; next issue 236
  sync 3                         // 236
  br $lr
secondary:                       // tile 3
  sync 3
  setzi $m2, 1                   // 126
  put $INCOMING_FORMAT, $m2      // 132
  setzi $m3, 0x72000             // 133
  put $INCOMING_BASE, $m3        // 139
  put $INCOMING_DELTA, $mzero    // 140
  delay 90                       // 141; next issue 231
  sync 3                         // 231
  br $lr
noFormat:                        // tile 3 without its format
  sync 3
  setzi $m3, 0x72000
  put $INCOMING_BASE, $m3
  delay 90
  sync 3
  br $lr
ownMux:                          // tile 3 writing its own mux in the cycle tile 2's MUXPAIR lands
  sync 3
  nop                            // 126
  setzi $m1, 0                   // 127
  put $INCOMING_MUX, $m1         // 133 (waits for $m1)
  sync 3
  br $lr
)";

void fillItems(sim::Ipu &ipu) {
  for (uint32_t i = 0; i < 4; ++i) ipu.tile(0).memory().write<uint32_t>(0x70000 + 4 * i, 0xA0 + i);
}

TEST(Exchange, SixtyFourBitItemsReachBothTilesOfTheReceivingPair) {
  // Flight times: physical 0 -> 64 (tile 2) ttm -31, 0 -> 66 (tile 3) ttm -30, both east. The muxes
  // must select tile 0 at 193 - 30 = 163 (tile 2, set at 132) and 193 - 29 = 164 (tile 3, set at
  // 133 by the MUXPAIR write). Items are written 52 + 2 x row 1 = 54 after that: tile 2 at 217
  // and 218, tile 3 at 218 and 219; formats (139, 132) and bases (146, 139) are set by then. The
  // last arrival is tile 2's sync at 236: released at 362, br $lr, done at 368.
  PairRun r = runTiles(kPair, {"sender", "idle", "primary", "secondary"}, fillItems);
  EXPECT_EQ(r.stats.cycles, 368u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r.ipu->tile(2).memory().read<uint32_t>(0x71000 + 4 * i), 0xA0 + i) << i;
    EXPECT_EQ(r.ipu->tile(3).memory().read<uint32_t>(0x72000 + 4 * i), 0xA0 + i) << i;
  }
  EXPECT_EQ(r.stats.tiles[0].wordsSent, 4u);
  EXPECT_EQ(r.stats.tiles[2].wordsReceived, 4u);
  EXPECT_EQ(r.stats.tiles[3].wordsReceived, 4u);
  EXPECT_EQ(r.ipu->tile(3).incomingMux, 0u); // set by tile 2's MUXPAIR write
  EXPECT_EQ(r.ipu->tile(2).incomingDelta, 0u); // the second sync reset it from $INCOMING_SINIT (0)
  std::vector<std::string> exchange;
  for (const sim::TraceEvent &e : r.trace)
    if (e.event.rfind("exchange.", 0) == 0) exchange.push_back(sim::formatTraceEvent(e));
  EXPECT_EQ(exchange, (std::vector<std::string>{
                          "193 exchange.send ipu0.tile0.supervisor words=2 addr=0x70000 width=64 receivers=2",
                          "217 exchange.receive ipu0.tile2.supervisor from=0 words=4 addr=0x71000 last_cycle=218",
                          "218 exchange.receive ipu0.tile3.supervisor from=0 words=4 addr=0x72000 last_cycle=219"}));
}

TEST(Exchange, PairErrorsNameTheTilesAndCycle) {
  EXPECT_EQ(errorOf(kPair, {"sender", "idle", "primary", "noFormat"}),
            "exchange: the 64-bit item tile 0 sent at cycle 193 reaches tile 3 at cycle 218 while its "
            "$INCOMING_FORMAT is 0 (it needs 1: 64-bit from the east)");
  EXPECT_EQ(errorOf(kPair, {"sender", "partnerSends", "primary", "secondary"}),
            "exchange: tile 1 sends at cycle 193 while its pair partner, tile 0, sends 64-bit items on both tiles' lanes");
  EXPECT_EQ(errorOf(kPair, {"sender", "partnerSendsSecond", "primary", "secondary"}),
            "exchange: tile 1 sends at cycle 194 while its pair partner, tile 0, sends 64-bit items on both tiles' lanes");
  EXPECT_EQ(errorOf(kPair, {"sender", "idle", "primary", "ownMux"}),
            "exchange: tile 2's $INCOMING_MUXPAIR write reaches tile 3 in cycle 133, the cycle tile 3 writes its own "
            "$INCOMING_MUX");
}

// A phase in which no tile sends still leaves each tile's incoming CSRs as the phase's puts left
// them, its pair partner's MUXPAIR write included: tile 2 puts $INCOMING_MUXPAIR 1 (tile 3's mux
// too, a cycle later) and $INCOMING_DELTA 0x40 after the sync, then every tile returns.
TEST(Exchange, APhaseWithoutWordsLeavesTheIncomingCsrsAsPut) {
  const char *program = R"(
idle:
  sync 3
  br $lr
setter:
  sync 3
  setzi $m1, 1
  put $INCOMING_MUXPAIR, $m1
  setzi $m2, 0x40
  put $INCOMING_DELTA, $m2
  br $lr
)";
  PairRun r = runTiles(program, {"idle", "idle", "setter", "idle"});
  EXPECT_EQ(r.ipu->tile(2).incomingMux, 1u);
  EXPECT_EQ(r.ipu->tile(3).incomingMux, 1u); // from its partner's write; 0x7FF (none) before it
  EXPECT_EQ(r.ipu->tile(1).incomingMux, 0x7FFu);
  EXPECT_EQ(r.ipu->tile(2).incomingDelta, 0x40u);
  EXPECT_EQ(r.ipu->tile(3).incomingDelta, 0u);
  EXPECT_EQ(r.stats.wordsSent, 0u);
}

// Tile 0 sends one word to tile 1 (physical 0 -> 2: ttm -28, east): east reaches it, west does
// not, and a send with no direction puts nothing on the fabric.
std::string directed(unsigned sctl) {
  return R"(
s:
  sync 3                         // released at 126
  setzi $m4, 0x70000             // 126
  put $OUTGOING_BASE, $m4        // 132
  delay 60                       // 133
  send 0, 1, )" + std::to_string(sctl) + R"(            // 193
  delay 100
  sync 3
  br $lr
r:
  sync 3
  setzi $m1, 0                   // 126
  put $INCOMING_MUX, $m1         // 132; tile 0's word must meet it at 193 - 27 = 166
  setzi $m3, 0x71000
  put $INCOMING_BASE, $m3
  delay 100
  sync 3
  br $lr
)";
}

TEST(Exchange, SendDirectionsDecideWhichReceiversAWordReaches) {
  // East: written at 193 + 25 (-27 + 52 + 2 x row 0) = 218.
  PairRun east = runTiles(directed(1), {"s", "r"}, [](sim::Ipu &ipu) { ipu.tile(0).memory().write<uint32_t>(0x70000, 77); });
  EXPECT_EQ(east.ipu->tile(1).memory().read<uint32_t>(0x71000), 77u);
  PairRun both = runTiles(directed(3), {"s", "r"}, [](sim::Ipu &ipu) { ipu.tile(0).memory().write<uint32_t>(0x70000, 78); });
  EXPECT_EQ(both.ipu->tile(1).memory().read<uint32_t>(0x71000), 78u);
  // No direction: the word goes to the external exchange, which an IPU on its own does not have
  // (docs/systems.md).
  EXPECT_EQ(errorOf(directed(0), {"s", "r"}),
            "exchange: tile 0 sent a word to the external exchange (a send with no direction) at cycle 193, but ipu0 "
            "is not part of a system of IPUs");
  EXPECT_EQ(errorOf(directed(2), {"s", "r"}),
            "exchange: the word tile 0 sent at cycle 193 is selected by no tile's $INCOMING_MUX when it arrives");
}

TEST(Sync, AnsTilesTakePartInTheInternalSyncFromTheirSans) {
  // Tile 0 syncs at 50 (delay 50 at 0); tile 1 arms ANS at 0 and waits in sync 1 from 1. The sync
  // completes at the last arrival, 50: both are released at 50 + 126 = 176 and return at 182.
  PairRun r = runTiles(R"(
late:
  delay 50
  sync 3
  br $lr
ans:
  sans 0
  sync 1
  br $lr
)",
                   {"late", "ans"});
  EXPECT_EQ(r.stats.syncs, 1u);
  EXPECT_EQ(r.stats.tiles[0].cycles, 182u);
  EXPECT_EQ(r.stats.tiles[1].cycles, 182u);
  EXPECT_EQ(r.stats.tiles[1].syncWaitCycles, 176u); // from its arrival (the sans, at 0)
  EXPECT_EQ(errorOf("s:\n  sync 1\n  br $lr\n", {"s", "s"}),
            "ipu 0, tile 0, context 0 (supervisor), pc 0x4c000 (sync 1) at t.s:3:3: sync 1 (ANS) without a sans to arm it");
}

TEST(Sync, ExternalZonesReleaseAfterTheExternalLatency) {
  // Both tiles sync in GS1 (zone 4) at 0: released at 0 + sync.external_latency_cycles (600);
  // br $lr at 600, done at 606.
  PairRun r = runTiles("s:\n  sync 4\n  br $lr\n", {"s", "s"});
  EXPECT_EQ(r.stats.cycles, 606u);
  EXPECT_EQ(r.stats.syncCycles, 600u);
  std::vector<std::string> syncs;
  for (const sim::TraceEvent &e : r.trace)
    if (e.event.rfind("sync", 0) == 0) syncs.push_back(sim::formatTraceEvent(e));
  EXPECT_EQ(syncs, (std::vector<std::string>{"0 sync.enter ipu0.tile0.supervisor zone=4",
                                             "0 sync.enter ipu0.tile1.supervisor zone=4",
                                             "600 sync ipu0.sync zone=4 index=0 last_arrival_cycle=0 tiles=2",
                                             "600 sync.release ipu0.tile0.supervisor zone=4 wait_cycles=600",
                                             "600 sync.release ipu0.tile1.supervisor zone=4 wait_cycles=600"}));
  EXPECT_EQ(errorOf("a:\n  sync 3\n  br $lr\nb:\n  sync 6\n  br $lr\n", {"a", "b", "a"}),
            "deadlock: tiles 0, 2 wait in sync 3 (INTERNAL) but tiles 1 wait in sync 6 (EXTERNAL GS2)");
}

TEST(Exchange, SyncSetsTheIncomingDeltaFromSinit) {
  // put $INCOMING_SINIT at 6 (waits for $m1), sync 3 at 7 copies it to $INCOMING_DELTA.
  PairRun r = runTiles(R"(
s:
  setzi $m1, 0x40
  put $INCOMING_SINIT, $m1
  sync 3
  get $m2, $INCOMING_DELTA
  st32 $m2, $m0, 0
  br $lr
)",
                   {"s", "s"});
  EXPECT_EQ(r.ipu->tile(0).memory().read<uint32_t>(0x70000), 0x40u);
}

} // namespace

namespace {

TEST(Sync, ReleaseSkewGrowsWithTheTilesRow) {
  // sync.release_skew_cycles = 2: all tiles sync at 0; the controller releases at 126, tile t
  // issues again 2 x its physical row later: tile 0 (row 0) at 126, tile 2 (row 1) at 128, tile
  // 46 (row 22, the top of column 0's second side) at 170. Each stores its cycle counter then.
  arch::SystemConfig cfg = mk2Config();
  cfg.sync.releaseSkewCycles = 2;
  cc::ObjectFile img = cc::link({{"t.o", assemble(R"(
  .supervisor
  .globl s
s:
  sync 3
  get $m1, $SCOUNT_L
  st32 $m1, $m0, 0
  br $lr
)")}},
                                cfg.tile);
  sim::Ipu ipu(cfg, 47);
  for (unsigned t : {0u, 2u, 46u}) {
    sim::loadImage(ipu.tile(t), img, "t.elf");
    ipu.start(t, img.symbols[size_t(img.findSymbol("s"))].value, 0x70000);
  }
  ipu.run(2);
  EXPECT_EQ(ipu.tile(0).memory().read<uint32_t>(0x70000), 126u);
  EXPECT_EQ(ipu.tile(2).memory().read<uint32_t>(0x70000), 128u);
  EXPECT_EQ(ipu.tile(46).memory().read<uint32_t>(0x70000), 170u);
}

} // namespace

namespace {

// Timed incoming controls. Tile 0 sends one word, then two more with sendpic (continuing the
// stream), whose PIC control sets tile 0's own receive pointer. Tile 1 (physical 2: ttm from 0 is
// -28, east) selects tile 0 with delayxpic at the last cycle of its wait and sets its pointer
// (word address 0x1C400 = byte 0x71000) with delaypic.
std::string timedControls(unsigned xpicWait) {
  return R"(
s:
  sync 3                         // released at 126
  setzi $m4, 0x70000             // 126
  put $OUTGOING_BASE, $m4        // 132
  delay 60                       // 133; next issue 193
  send 0, 1, 1                   // 193: word 0 leaves at 193
  sendpic 2, 2, 0x1C800          // 194: words 1, 2 at 194, 195; own pointer 0x72000 at 194
  get $m5, $INCOMING_DELTA       // 196
  st32 $m5, $m0, 0               // 202
  delay 100                      // 203
  sync 3                         // 303
  br $lr
r:
  sync 3
  delayxpic )" + std::to_string(xpicWait) + R"(, 0, 0       // 126: $INCOMING_MUX = 0 at 126 + wait - 1
  delaypic 10, 0, 0x1C400        // pointer 0x71000 ten cycles later, less one
  delay 200
  sync 3
  br $lr
)";
}

TEST(Exchange, DelayPicXpicAndSendpicApplyTheirControlsOnTime) {
  // The words leave at 193, 194, 195 and must meet tile 1's mux at 166, 167, 168: delayxpic 41
  // sets it at 166. They are written 25 later, at 218..220, from the pointer delaypic set at 175
  // (issued at 167, when delayxpic's wait ended). Tile 1 syncs at 167 + 10 + 200 = 377; release
  // 503; done at 509.
  PairRun r = runTiles(timedControls(41), {"s", "r"}, [](sim::Ipu &ipu) {
    for (uint32_t i = 0; i < 3; ++i) ipu.tile(0).memory().write<uint32_t>(0x70000 + 4 * i, 500 + i);
  });
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(r.ipu->tile(1).memory().read<uint32_t>(0x71000 + 4 * i), 500 + i) << i;
  EXPECT_EQ(r.ipu->tile(0).memory().read<uint32_t>(0x70000), 0x72000u); // sendpic's PIC control
  EXPECT_EQ(r.stats.cycles, 509u);
  // Two cycles later the mux misses the first word (it meets the mux at 166).
  EXPECT_EQ(errorOf(timedControls(43), {"s", "r"}),
            "exchange: the word tile 0 sent at cycle 193 is selected by no tile's $INCOMING_MUX when it arrives");
  EXPECT_EQ(errorOf("s:\n  sendpic 1, 0, 0\n  br $lr\n", {"s", "s"}),
            "ipu 0, tile 0, context 0 (supervisor), pc 0x4c000 (sendpic 1, 0, 0) at t.s:3:3: sendpic continues an "
            "outgoing stream, but nothing was sent before it");
}

TEST(Exchange, AWindowTakesItsPartOfASendsWords) {
  // One send's four words leave at 193..196 and meet tile 1's mux at 166..169 (timedControls'
  // flight times). Tile 1 selects tile 0 at 166 (delayxpic 41, issued at 126) and again at 168
  // (delayxpic 2, issued at 167): two windows, [166, 168) and [168, ...), each taking its part of
  // the send. The words are written 25 cycles after they leave, at 218..221: the pointer set at
  // 170 (delaypic 2 at 169) puts the first two at 0x71000, the one set at 220 (delaypic 50 at
  // 171) the last two at 0x72000.
  PairRun r = runTiles(R"(
s:
  sync 3
  setzi $m4, 0x70000             // 126
  put $OUTGOING_BASE, $m4        // 132
  delay 60                       // 133; next issue 193
  send 0, 4, 1                   // 193: words at 193..196
  delay 100
  sync 3
  br $lr
r:
  sync 3
  delayxpic 41, 0, 0             // 126: $INCOMING_MUX = 0 at 166
  delayxpic 2, 0, 0              // 167: 0 again at 168
  delaypic 2, 0, 0x1C400         // 169: pointer 0x71000 at 170
  delaypic 50, 0, 0x1C800        // 171: pointer 0x72000 at 220
  delay 150
  sync 3
  br $lr
)",
                       {"s", "r"}, [](sim::Ipu &ipu) {
                         for (uint32_t i = 0; i < 4; ++i) ipu.tile(0).memory().write<uint32_t>(0x70000 + 4 * i, 500 + i);
                       });
  const sim::TileMemory &m = r.ipu->tile(1).memory();
  EXPECT_EQ(m.read<uint32_t>(0x71000), 500u);
  EXPECT_EQ(m.read<uint32_t>(0x71004), 501u);
  EXPECT_EQ(m.read<uint32_t>(0x71008), 0u);
  EXPECT_EQ(m.read<uint32_t>(0x72000), 502u);
  EXPECT_EQ(m.read<uint32_t>(0x72004), 503u);
  // Each window's part is one receive event (the trace's exchange.receive, as a run).
  unsigned receives = 0;
  for (const sim::TraceEvent &e : r.trace) receives += e.event == "exchange.receive";
  EXPECT_EQ(receives, 2u);
}

} // namespace
