// ipusim bench (docs/bench.md): the microbenchmarks' figures on 16 tiles, each derived by hand
// below from docs/tile-timing.md and the exchange layout (arch::ExchangeLayout, worked in
// tests/arch/exchange_layout_test.cpp).
#include "TestUtil.h"

#include "ipusim/arch/Config.h"
#include "ipusim/arch/ExchangeLayout.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace ipusim;
using namespace ipusim::test;

namespace {

const nlohmann::json &bench16() {
  static const nlohmann::json j = [] {
    ToolResult r = run(tool("ipusim") + " bench --json --tiles 16 --threads 2");
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }();
  return j;
}
const nlohmann::json &result(const std::string &id) { return bench16().at("results").at(id); }

constexpr uint64_t kIterations = 2048; // each worker's rpt count (Bench.cpp kMemoryIterations)

TEST(Bench, MemoryReadIsSixteenBytesABundleOverTheComputePhase) {
  // Each worker issues ld32, ld32, setzi, nop, the rpt bundle, N = 2048 ld128step bundles, st32
  // and exitz: N + 7 issues. The supervisor's setzi is at 0 and runall at 6 (it waits 6 for
  // $m1); worker k (1..6) may first issue at 6 + 6 in its slot k - 1, at 11 + k, and its exitz is
  // at 11 + k + 6 (N + 6). With six workers the supervisor owns no slot: worker 1's exit at
  // 6N + 48 frees slot 0, so sync 2 issues at 6N + 54, after worker 6's exit (6N + 53), and
  // sync 3 six cycles later, at 6N + 60 = 12348: the measured phase. Bytes: 16 tiles x 6 workers
  // x N x 16 = 3145728, i.e. 6 x 2048 x 16 = 196608 a tile over 12348 cycles.
  const nlohmann::json &r = result("memory.read");
  EXPECT_EQ(r["bytes"], 16u * 6 * kIterations * 16);
  EXPECT_EQ(r["cycles"], 6 * kIterations + 60);
  EXPECT_EQ(r["worker_bundles"], 16u * 6 * (kIterations + 7));
  EXPECT_DOUBLE_EQ(r["bytes_per_cycle_per_tile"].get<double>(), 196608.0 / 12348.0); // 15.922
  EXPECT_DOUBLE_EQ(r["published_bytes_per_cycle_per_tile"].get<double>(), 16.0);
  // Per IPU: x 1472 tiles x 1.325 GHz.
  EXPECT_NEAR(r["tb_per_s"].get<double>(), 196608.0 / 12348.0 * 1472 * 1.325e9 / 1e12, 1e-9);
}

TEST(Bench, MemoryWriteIsEightBytesABundle) {
  // The same shape with st64step: 8 bytes a bundle, 6 x 2048 x 8 = 98304 a tile over 12348.
  const nlohmann::json &r = result("memory.write");
  EXPECT_EQ(r["bytes"], 16u * 6 * kIterations * 8);
  EXPECT_EQ(r["cycles"], 12348u);
  EXPECT_DOUBLE_EQ(r["bytes_per_cycle_per_tile"].get<double>(), 98304.0 / 12348.0); // 7.961
}

TEST(Bench, MemoryReadWriteIsTwentyFourBytesABundleWithoutConflicts) {
  // ld2xst64pace reads the even and odd 64-bit words of interleaved memory (two element arrays)
  // and writes region 0 (a third element): no conflict stall. Six instructions before the rpt
  // bundle: N + 10 issues, worker 1's exitz at 12 + 6 (N + 9) = 6N + 66, sync 2 at 6N + 72,
  // sync 3 at 6N + 78 = 12366. Bytes a tile: 6 x 2048 x (16 + 8) = 294912.
  const nlohmann::json &r = result("memory.read_write");
  EXPECT_EQ(r["bytes_read"], 16u * 6 * kIterations * 16);
  EXPECT_EQ(r["bytes_written"], 16u * 6 * kIterations * 8);
  EXPECT_EQ(r["cycles"], 6 * kIterations + 78);
  EXPECT_DOUBLE_EQ(r["bytes_per_cycle_per_tile"].get<double>(), 294912.0 / 12366.0); // 23.849
  EXPECT_DOUBLE_EQ(r["published_tb_per_s"].get<double>(), 47.5);
}

TEST(Bench, NeighbourStreamsRunAtFourBytesACycleLessTheLastWordsFlight) {
  // Tiles 0..15 are pairs (2k, 2k + 1) in physical rows 0..7 of column 0. Their muxes are set
  // in the phase before; from the release R each tile streams 4096 words to its partner (64 sends
  // of 64, back to back: R .. R + 4095), then waits for the longest write offset among the pairs
  // and syncs: delay at R + 4096, sync at R + 4096 + 39. The longest is tile 14 -> 15 in row 7:
  // ttm 6 - 33 = -27, written 52 + 2 x 7 later: 39. The exchange phase: 4135 cycles; each tile
  // receives 16384 bytes: 16384 / 4135 B/cycle.
  arch::ExchangeLayout layout(arch::loadNamedConfig("mk2"));
  EXPECT_EQ(layout.writeOffset(14, 15), 39);
  const nlohmann::json &r = result("exchange.neighbour32");
  EXPECT_EQ(r["tail_cycles"], 39u);
  EXPECT_EQ(r["cycles"], 4096u + 39);
  EXPECT_EQ(r["bytes"], 16u * 4096 * 4);
  EXPECT_DOUBLE_EQ(r["bytes_per_cycle_per_tile"].get<double>(), 16384.0 / 4135.0); // 3.962
  // From a receiver's first write to its last: one word a cycle.
  EXPECT_DOUBLE_EQ(r["streaming_bytes_per_cycle_per_tile"].get<double>(), 4.0);
}

TEST(Bench, SixtyFourBitItemsReachBothTilesOfThePair) {
  // Tiles 0, 2, 4 ... 14 (the first of each pair) stream 4096 64-bit items to both tiles of the
  // other pair in their group of four; every tile receives 4096 x 8 bytes. The longest write is
  // tile 14 (row 7) -> 13 (row 6): 39. Phase 4096 + 39; 32768 / 4135 B/cycle a tile, twice the
  // 32-bit rate, as [F] S5's shared bus allows.
  arch::ExchangeLayout layout(arch::loadNamedConfig("mk2"));
  EXPECT_EQ(layout.writeOffset(14, 13), 39);
  const nlohmann::json &r = result("exchange.pair64");
  EXPECT_EQ(r["cycles"], 4135u);
  EXPECT_EQ(r["bytes"], 16u * 4096 * 8);
  EXPECT_DOUBLE_EQ(r["bytes_per_cycle_per_tile"].get<double>(), 32768.0 / 4135.0); // 7.925
  EXPECT_DOUBLE_EQ(r["distinct_bytes_per_cycle_per_tile"].get<double>(), 16384.0 / 4135.0);
}

TEST(Bench, AllToAllStepsAreLongerThanTheirStreamsByTheFlightTimeSpread) {
  // One group of 16: 15 steps of 256 words. The mux offsets over its pairs run from -42 (tile
  // 0 -> 14) to -13 (14 -> 1). In each step the put that selects the next source comes after the
  // slowest word of this step has arrived: at 256 - 13 + 1 = 244 (a one-cycle gap in the sends),
  // and the next step must start so that its fastest word arrives no sooner: 244 + 42 = 286. The
  // last step's stream ends at 257, then a delay of the longest write offset (39, tile 14 -> 1)
  // and the sync: 14 x 286 + 257 + 39 = 4300 cycles; each tile receives 15 x 256 x 4 bytes.
  arch::ExchangeLayout layout(arch::loadNamedConfig("mk2"));
  EXPECT_EQ(layout.muxOffset(0, 14), -42);
  EXPECT_EQ(layout.muxOffset(14, 1), -13);
  EXPECT_EQ(layout.writeOffset(14, 1), 39);
  const nlohmann::json &r = result("exchange.all_to_all");
  EXPECT_EQ(r["step_cycles"], 286u);
  EXPECT_EQ(r["cycles"], 4300u);
  EXPECT_EQ(r["bytes"], 16u * 15 * 256 * 4);
  EXPECT_DOUBLE_EQ(r["bytes_per_cycle_per_tile"].get<double>(), 15360.0 / 4300.0); // 3.572
}

TEST(Bench, LatencyIsTheLayoutsWriteOffset) {
  // The setup phase: four ld32 (0..3), put $INCOMING_MUX at 6 (waits for $m1), the other puts at
  // 7, 8 and 9, sync 3 at 10; released at 136, when tile 0 sends. Its pair partner writes the
  // word writeOffset(0, 1) = 25 later.
  arch::ExchangeLayout layout(arch::loadNamedConfig("mk2"));
  const nlohmann::json &r = result("exchange.latency.same_pair");
  EXPECT_EQ(r["send_cycle"], 136u);
  EXPECT_EQ(r["cycles"], layout.writeOffset(0, 1));
  EXPECT_EQ(r["cycles"], 25u);
  EXPECT_EQ(r["receiver"], 1u);
  EXPECT_TRUE(r["published"].is_null());
  // The far corner, physical row 22, column 15: its latency as the layout gives it.
  const nlohmann::json &far = result("exchange.latency.far_corner");
  EXPECT_EQ(far["receiver_physical"], 64u * 22 + 4 * 15 + 3);
  EXPECT_EQ(far["cycles"], layout.writeOffset(0, far["receiver"].get<unsigned>()));
}

TEST(Bench, InternalSyncLatencyIsTheModelParameter) {
  // Tile t counts down t mod 11 with brnzdec (ld32 at 0, brnzdec from 6, 6 cycles a turn) and
  // syncs at 7 + 6 (t mod 11): tile 10 is last, at 67; the release comes 126 later, at 193.
  const nlohmann::json &r = result("sync.internal");
  EXPECT_EQ(r["first_arrival_cycle"], 7u);
  EXPECT_EQ(r["last_arrival_cycle"], 67u);
  EXPECT_EQ(r["release_cycle"], 193u);
  EXPECT_EQ(r["cycles"], 126u);
}

TEST(Bench, ResultsDoNotDependOnTheThreadCount) {
  ToolResult one = run(tool("ipusim") + " bench --json --tiles 16 --threads 1");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(nlohmann::json::parse(one.out), bench16());
}

TEST(Bench, TablePrintsMeasuredBesidePublished) {
  ToolResult r = run(tool("ipusim") + " bench --tiles 16");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("ipusim bench: mk2, 16 of 1472 tiles, clock 1.325 GHz"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("metric"), std::string::npos);
  // A row: metric, measured, unit, published, ratio, source; cells apart by two spaces or more.
  auto row = [&](const std::string &metric) {
    std::vector<std::string> cells;
    auto p = r.out.find(metric);
    if (p == std::string::npos) return cells;
    const std::string line = r.out.substr(p, r.out.find('\n', p) - p);
    for (size_t i = 0; i < line.size();) {
      size_t gap = line.find("  ", i);
      cells.push_back(line.substr(i, gap == std::string::npos ? std::string::npos : gap - i));
      if (gap == std::string::npos) break;
      i = line.find_first_not_of(' ', gap);
    }
    return cells;
  };
  EXPECT_EQ(row("memory read (ld128step), per tile"),
            (std::vector<std::string>{"memory read (ld128step), per tile", "15.922", "B/cycle/tile", "16", "0.995",
                                      "[D] ipu-facts §1: 16 B/cycle load"}));
  EXPECT_EQ(row("internal sync latency"),
            (std::vector<std::string>{"internal sync latency (sync 3), last arrival to release", "126", "cycles", "126",
                                      "1.000",
                                      "[RE] S9, provisional: the model parameter sync.internal_latency_cycles"}));
  const std::vector<std::string> latency = row("exchange latency, same pair");
  ASSERT_EQ(latency.size(), 6u);
  EXPECT_EQ(latency[1], "25");
  EXPECT_EQ(latency[3], "n/a");
}

TEST(Bench, BadTileCountsAreRefused) {
  ToolResult r = run(tool("ipusim") + " bench --tiles 3");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "ipusim bench: error: --tiles 3 is not in [4, 1472]\n");
  EXPECT_EQ(r.out, "");
}

} // namespace

namespace {

// A config of one supertile row, inheriting the built-in mk2 from another folder (issue 14): the
// benchmarks run; the latency cases that need a second row are named as skipped.
TEST(Bench, SmallConfigRunsWhatFitsAndSaysWhatItSkips) {
  TempDir d;
  const std::string cfg = d.file("row.toml", "inherits = \"mk2\"\nname = \"row\"\n[ipu]\ntiles = 64\n");
  ToolResult r = run(tool("ipusim") + " bench --json --config " + cfg + " --threads 2");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["config"], "row");
  EXPECT_EQ(j["tiles"], 64);
  EXPECT_TRUE(j["results"].contains("exchange.latency.same_pair"));
  EXPECT_FALSE(j["results"].contains("exchange.latency.next_row"));
  EXPECT_EQ(j["skipped"], (nlohmann::json{"exchange.latency.next_row: needs 2 supertile rows (128 tiles); the config has 64",
                                          "exchange.latency.far_corner: needs 2 supertile rows (128 tiles); the config has 64",
                                          "host.streaming_memory: config 'row' has no Streaming Memory (try --config m2000)",
                                          "link.*, sync.external: config 'row' has one IPU (try --config m2000)"}));
  // A config that is not whole rows is refused at load, saying why.
  const std::string bad = d.file("bad.toml", "inherits = \"mk2\"\nname = \"bad\"\n[ipu]\ntiles = 16\n");
  ToolResult b = run(tool("ipusim") + " bench --config " + bad);
  EXPECT_EQ(b.status, 1);
  EXPECT_EQ(b.err, bad + ":1:1: error: ipu.tiles = 16 is not a whole number of supertile rows (a multiple of 64); a "
                         "program may still use fewer tiles\n");
}

} // namespace

namespace {

// On an M2000 (docs/systems.md), 64 tiles an IPU:
// - link.latency: a 1-word packet's last word leaves at S; it reaches the link interface at
//   S + 1 + 64, takes the rung for ceil(12 B x 1.325e9 / 16e9) = 1 cycle and the hop's 1000, and
//   is written 64 later: 1130 cycles.
// - link.bandwidth: each tile sends 4 packets of 258 words (a 1 KiB payload) back to back from c0,
//   packet p's last word at c0 + 258 (p + 1) - 1, ready at the interface 65 later. 256 packets
//   take the rung's 6 links 86 cycles each (ceil(1032 x 1.325 / 16) = ceil(85.46)) without a gap
//   (they come faster than the links carry them): the last starts at c0 + 322 + 42 x 86 and is
//   written from 86 + 1000 + 64 later, its 256 words to c0 + 322 + 3612 + 1150 + 255: a window of
//   5340 cycles for 64 x 4 KiB = 262144 bytes: 49.09 B/cycle = 65.05 GB/s (the fixed latencies
//   weigh on so few tiles; all 1472 reach 0.967 of the 96 GB/s).
// - sync.external: the model's parameter, 600.
// - host.*: 64 transactions of 4 KiB over the gateway's link, each 4096 x 1.325e9 / 25e9 =
//   217.088 cycles on the link (a byte stream: no rounding between transactions), one after
//   another, and 1024 at its tile's exchange port (4 B a cycle) at the same time: the last starts
//   at 63 x 217.088 = 13676.544, leaves its port 1024 later (14700.544, rounded up to 14701) and
//   is done 4000 (host.latency_cycles) after that: 18701 cycles for 262144 bytes, in each
//   direction and into Streaming Memory.
TEST(Bench, SystemBenchmarksOnAnM2000) {
  ToolResult r = run(tool("ipusim") + " bench --json --config m2000 --tiles 64 --threads 2");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json &res = j["results"];
  EXPECT_EQ(res["link.latency"]["cycles"], 1130);
  EXPECT_EQ(res["link.bandwidth"]["bytes"], 262144);
  EXPECT_EQ(res["link.bandwidth"]["cycles"], 5340);
  EXPECT_EQ(res["link.bandwidth"]["links"], 6);
  EXPECT_EQ(res["link.bandwidth"]["published_gb_per_s"], 96.0);
  EXPECT_NEAR(res["link.bandwidth"]["gb_per_s"].get<double>(), 262144.0 / 5340 * 1.325, 1e-9);
  EXPECT_EQ(res["sync.external"]["cycles"], 600);
  EXPECT_EQ(res["link.allreduce"]["ipus"], 4);
  EXPECT_EQ(res["link.allreduce"]["published_gb_per_s"], 32.0); // the ring's rails: 2 links
  EXPECT_GT(res["link.allreduce"]["ratio"].get<double>(), 0.0);
  EXPECT_LT(res["link.allreduce"]["ratio"].get<double>(), 1.0);
  for (const char *id : {"host.write", "host.read", "host.streaming_memory"}) {
    EXPECT_EQ(res[id]["bytes"], 262144) << id;
    EXPECT_EQ(res[id]["cycles"], 14701 + 4000) << id;
    EXPECT_EQ(res[id]["published_gb_per_s"], 25.0) << id;
  }
  EXPECT_EQ(j["skipped"].size(), 0u);
}

} // namespace
