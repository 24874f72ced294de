// ipu-trace show, diff and export --perfetto on small hand-written traces (tests/trace/inputs),
// run as the built tool: exact output, exit statuses and the JSON structure.
#include "TestUtil.h"

#include "ipusim/sim/TraceTools.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

using ipusim::test::run;
using ipusim::test::TempDir;
using ipusim::test::tool;

namespace {

std::string fixture(const std::string &name) { return std::string(IPUSIM_TEST_DIR) + "/trace/inputs/" + name; }

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// `text` with the one occurrence of `from` replaced by `to`.
std::string replaced(std::string text, const std::string &from, const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from << " occurs twice";
  return text.replace(at, from.size(), to);
}

/// Runs ipu-trace in `dir`, so reports name the files as given (a.trace, b.trace).
ipusim::test::ToolResult ipuTrace(const TempDir &dir, const std::string &args) {
  return run("cd " + dir.path.string() + " && " + tool("ipu-trace") + " " + args);
}

/// A directory with a.trace = two_tiles.trace and b.trace = `b`.
struct DiffPair {
  TempDir dir;
  explicit DiffPair(const std::string &b) {
    dir.file("a.trace", slurp(fixture("two_tiles.trace")));
    dir.file("b.trace", b);
  }
  ipusim::test::ToolResult diff(const std::string &options = "") {
    return ipuTrace(dir, "diff a.trace b.trace" + options);
  }
};

const std::string kTwoTiles = slurp(fixture("two_tiles.trace"));

} // namespace

// ---- show ----

TEST(IpuTraceShow, OneTile) {
  auto r = run(tool("ipu-trace") + " show " + fixture("two_tiles.trace") + " --tile 1");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, " 0  tile.begin    ipu0.tile1.supervisor  pc=0x4c000 m0=0x70000 symbol=main\n"
                   " 7  vertex.begin  ipu0.tile1.worker0     pc=0x4c100 vertex_base=0x70020 symbol=Add\n"
                   "46  vertex.end    ipu0.tile1.worker0     status=1\n"
                   "52  sync.enter    ipu0.tile1.supervisor  zone=3\n"
                   "60  sync.release  ipu0.tile1.supervisor  zone=3 wait_cycles=8\n"
                   "66  tile.end      ipu0.tile1.supervisor\n"
                   "\n"
                   "6 of 14 events, cycles 0 to 66 (66 cycles)\n"
                   "  sync.enter    1\n"
                   "  sync.release  1\n"
                   "  tile.begin    1\n"
                   "  tile.end      1\n"
                   "  vertex.begin  1\n"
                   "  vertex.end    1\n");
}

TEST(IpuTraceShow, CycleWindowAndEventPrefix) {
  // --from and --to both include their cycle: the syncs at 50, 52 and 60.
  auto r = run(tool("ipu-trace") + " show " + fixture("two_tiles.trace") + " --from 50 --to 60 --event sync");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "50  sync.enter    ipu0.tile0.supervisor  zone=3\n"
                   "52  sync.enter    ipu0.tile1.supervisor  zone=3\n"
                   "60  sync          ipu0.sync              zone=3 index=0 last_arrival_cycle=52 tiles=2\n"
                   "60  sync.release  ipu0.tile0.supervisor  zone=3 wait_cycles=10\n"
                   "60  sync.release  ipu0.tile1.supervisor  zone=3 wait_cycles=8\n"
                   "\n"
                   "5 of 14 events, cycles 50 to 60 (10 cycles)\n"
                   "  sync          1\n"
                   "  sync.enter    2\n"
                   "  sync.release  2\n");
  // Nothing chosen: an empty listing and a summary of none.
  auto none = run(tool("ipu-trace") + " show " + fixture("two_tiles.trace") + " --event vertex.begin --to 6");
  EXPECT_EQ(none.status, 0);
  EXPECT_EQ(none.out, "0 of 14 events\n");
}

TEST(IpuTraceShow, QuotedValues) {
  auto r = run(tool("ipu-trace") + " show " + fixture("every_event.trace") + " --from 2 --to 2");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "2  issue  ipu0.tile0.supervisor  pc=0x4c000 insn=\"setzi $m1, 0x10\"\n"
                   "\n"
                   "1 of 12 events, cycles 2 to 2 (0 cycles)\n"
                   "  issue  1\n");
}

TEST(IpuTraceShow, UnreadableTraceExits2) {
  TempDir dir;
  dir.file("bad.trace", "ipusim-trace 1\nconfig name=mk2 clock_hz=1325000000 ipus=1 tiles=4\n5 tile.end ipu0 X=1\n");
  auto r = ipuTrace(dir, "show bad.trace");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "bad.trace:3:17: error: invalid character 'X' in a key (keys are [a-z_][a-z0-9_]*)\n");
}

// ---- diff ----

TEST(IpuTraceDiff, EqualTracesExit0Silently) {
  DiffPair p(kTwoTiles);
  auto r = p.diff();
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  // Comments and empty lines are not events: they do not count.
  DiffPair q(replaced(kTwoTiles, "# Two tiles", "\n# rerun\n# Two tiles"));
  EXPECT_EQ(q.diff().status, 0);
}

TEST(IpuTraceDiff, DifferingFieldReportsBothPlacesAndContext) {
  // b.trace has one more comment line, so its events are one line further down.
  DiffPair p(replaced(replaced(kTwoTiles, "# Two tiles", "# rerun\n# Two tiles"), "vertex_base=0x70020",
                      "vertex_base=0x70024"));
  auto r = p.diff();
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out,
            "first divergence: a.trace:8 vs b.trace:9 (event 5)\n"
            "  field vertex_base: 0x70020 vs 0x70024\n"
            "--- a.trace\n"
            "  a.trace:5: 0 tile.begin ipu0.tile0.supervisor pc=0x4c000 m0=0x70000 symbol=main\n"
            "  a.trace:6: 0 tile.begin ipu0.tile1.supervisor pc=0x4c000 m0=0x70000 symbol=main\n"
            "  a.trace:7: 7 vertex.begin ipu0.tile0.worker0 pc=0x4c100 vertex_base=0x70010 symbol=Add\n"
            "> a.trace:8: 7 vertex.begin ipu0.tile1.worker0 pc=0x4c100 vertex_base=0x70020 symbol=Add\n"
            "+++ b.trace\n"
            "  b.trace:6: 0 tile.begin ipu0.tile0.supervisor pc=0x4c000 m0=0x70000 symbol=main\n"
            "  b.trace:7: 0 tile.begin ipu0.tile1.supervisor pc=0x4c000 m0=0x70000 symbol=main\n"
            "  b.trace:8: 7 vertex.begin ipu0.tile0.worker0 pc=0x4c100 vertex_base=0x70010 symbol=Add\n"
            "> b.trace:9: 7 vertex.begin ipu0.tile1.worker0 pc=0x4c100 vertex_base=0x70024 symbol=Add\n");
}

TEST(IpuTraceDiff, CycleOffByThree) {
  // Tile 1's vertex ends at 49 instead of 46 (line 10, the 7th event).
  DiffPair p(replaced(kTwoTiles, "46 vertex.end", "49 vertex.end"));
  const std::string context = "--- a.trace\n"
                              "  a.trace:7: 7 vertex.begin ipu0.tile0.worker0 pc=0x4c100 vertex_base=0x70010 symbol=Add\n"
                              "  a.trace:8: 7 vertex.begin ipu0.tile1.worker0 pc=0x4c100 vertex_base=0x70020 symbol=Add\n"
                              "  a.trace:9: 40 vertex.end ipu0.tile0.worker0 status=1\n"
                              "> a.trace:10: 46 vertex.end ipu0.tile1.worker0 status=1\n"
                              "+++ b.trace\n"
                              "  b.trace:7: 7 vertex.begin ipu0.tile0.worker0 pc=0x4c100 vertex_base=0x70010 symbol=Add\n"
                              "  b.trace:8: 7 vertex.begin ipu0.tile1.worker0 pc=0x4c100 vertex_base=0x70020 symbol=Add\n"
                              "  b.trace:9: 40 vertex.end ipu0.tile0.worker0 status=1\n"
                              "> b.trace:10: 49 vertex.end ipu0.tile1.worker0 status=1\n";
  auto exact = p.diff();
  EXPECT_EQ(exact.status, 1);
  EXPECT_EQ(exact.out, "first divergence: a.trace:10 vs b.trace:10 (event 7)\n  cycle: 46 vs 49\n" + context);

  auto two = p.diff(" --cycle-tolerance 2");
  EXPECT_EQ(two.status, 1);
  EXPECT_EQ(two.out, "first divergence: a.trace:10 vs b.trace:10 (event 7)\n  cycle: 46 vs 49 (tolerance 2)\n" + context);

  EXPECT_EQ(p.diff(" --cycle-tolerance 3").status, 0);
  // 10% of 46 is 4.6 >= 3; 5% is 2.3 < 3.
  auto tenPercent = p.diff(" --cycle-tolerance 10%");
  EXPECT_EQ(tenPercent.status, 0) << tenPercent.out;
  auto fivePercent = p.diff(" --cycle-tolerance 5%");
  EXPECT_EQ(fivePercent.status, 1);
  EXPECT_EQ(fivePercent.out,
            "first divergence: a.trace:10 vs b.trace:10 (event 7)\n  cycle: 46 vs 49 (tolerance 5% of 46 = 2.3)\n" +
                context);
}

TEST(IpuTraceDiff, ToleranceAppliesToCycleFieldsOnly) {
  // wait_cycles is a cycle field: 8 vs 11 is within 3, not within 2.
  DiffPair cycles(replaced(kTwoTiles, "wait_cycles=8", "wait_cycles=11"));
  auto r = cycles.diff(" --cycle-tolerance 2");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out.substr(0, r.out.find("---")), "first divergence: a.trace:15 vs b.trace:15 (event 12)\n"
                                                "  field wait_cycles: 8 vs 11 (tolerance 2)\n");
  EXPECT_EQ(cycles.diff(" --cycle-tolerance 3").status, 0);
  // index is a number but not a cycle field: any difference counts.
  DiffPair index(replaced(kTwoTiles, "index=0 last", "index=1 last"));
  auto i = index.diff(" --cycle-tolerance 100");
  EXPECT_EQ(i.status, 1);
  EXPECT_EQ(i.out.substr(0, i.out.find("---")),
            "first divergence: a.trace:13 vs b.trace:13 (event 10)\n  field index: 0 vs 1\n");
}

TEST(IpuTraceDiff, MissingFieldAndEveryDifferenceOfTheEvent) {
  DiffPair p(replaced(kTwoTiles, "7 vertex.begin ipu0.tile0.worker0 pc=0x4c100 vertex_base=0x70010 symbol=Add",
                      "6 vertex.begin ipu0.tile0.worker1 pc=0x4c100 vertex_base=0x70010 status=\"a b\""));
  auto r = p.diff();
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out.substr(0, r.out.find("---")), "first divergence: a.trace:7 vs b.trace:7 (event 4)\n"
                                                "  cycle: 7 vs 6\n"
                                                "  where: ipu0.tile0.worker0 vs ipu0.tile0.worker1\n"
                                                "  field symbol: Add vs (missing)\n"
                                                "  field status: (missing) vs \"a b\"\n");
}

TEST(IpuTraceDiff, OneTraceLonger) {
  DiffPair p(replaced(kTwoTiles, "66 tile.end ipu0.tile1.supervisor\n", ""));
  auto r = p.diff();
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "first divergence: a.trace:17 vs the end of b.trace\n"
                   "  a.trace is longer: 14 events, b.trace 13\n"
                   "--- a.trace\n"
                   "  a.trace:14: 60 sync.release ipu0.tile0.supervisor zone=3 wait_cycles=10\n"
                   "  a.trace:15: 60 sync.release ipu0.tile1.supervisor zone=3 wait_cycles=8\n"
                   "  a.trace:16: 66 tile.end ipu0.tile0.supervisor\n"
                   "> a.trace:17: 66 tile.end ipu0.tile1.supervisor\n"
                   "+++ b.trace\n"
                   "  b.trace:14: 60 sync.release ipu0.tile0.supervisor zone=3 wait_cycles=10\n"
                   "  b.trace:15: 60 sync.release ipu0.tile1.supervisor zone=3 wait_cycles=8\n"
                   "  b.trace:16: 66 tile.end ipu0.tile0.supervisor\n"
                   "> b.trace: end of trace (13 events)\n");
  // The other way round, the second trace is the longer one.
  auto back = ipuTrace(p.dir, "diff b.trace a.trace");
  EXPECT_EQ(back.status, 1);
  EXPECT_EQ(back.out.substr(0, back.out.find("---")), "first divergence: a.trace:17 vs the end of b.trace\n"
                                                      "  a.trace is longer: 14 events, b.trace 13\n");
}

TEST(IpuTraceDiff, Headers) {
  // The clock is not a cycle field: no tolerance applies.
  DiffPair p(replaced(kTwoTiles, "clock_hz=1325000000", "clock_hz=1300000000"));
  auto r = p.diff(" --cycle-tolerance 50%");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "first divergence: a.trace:2 vs b.trace:2 (the config line)\n"
                   "  clock_hz: 1325000000 vs 1300000000\n"
                   "--- a.trace\n"
                   "> a.trace:2: config name=mk2 clock_hz=1325000000 ipus=1 tiles=2\n"
                   "+++ b.trace\n"
                   "> b.trace:2: config name=mk2 clock_hz=1300000000 ipus=1 tiles=2\n");
}

TEST(IpuTraceDiff, UnreadableInputExits2) {
  DiffPair p(replaced(kTwoTiles, "40 vertex.end", "40 vertex.end  "));
  auto r = p.diff();
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  // "40 vertex.end" is 13 characters; the second space is column 15.
  EXPECT_EQ(r.err, "b.trace:9:15: error: expected one space between fields, found two\n");
  auto missing = ipuTrace(p.dir, "diff a.trace nothing.trace");
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err, "nothing.trace: error: no such file\n");
}

// ---- command-line errors ----

TEST(IpuTraceCommandLine, ErrorsComeFromCli11) {
  auto unknown = run(tool("ipu-trace") + " frobnicate");
  EXPECT_NE(unknown.status, 0);
  EXPECT_NE(unknown.err.find("A subcommand is required"), std::string::npos) << unknown.err;
  auto option = run(tool("ipu-trace") + " show " + fixture("two_tiles.trace") + " --bogus");
  EXPECT_NE(option.status, 0);
  EXPECT_NE(option.err.find("The following argument was not expected: --bogus"), std::string::npos) << option.err;
  auto tolerance = run(tool("ipu-trace") + " diff a b --cycle-tolerance 3x");
  EXPECT_NE(tolerance.status, 0);
  EXPECT_NE(tolerance.err.find("--cycle-tolerance: expected N (cycles) or P% (percent), got '3x'"), std::string::npos)
      << tolerance.err;
  auto format = run(tool("ipu-trace") + " export " + fixture("two_tiles.trace"));
  EXPECT_NE(format.status, 0);
  EXPECT_NE(format.err.find("--perfetto is required"), std::string::npos) << format.err;
  EXPECT_EQ(format.out, "");
}

// ---- export --perfetto ----

TEST(IpuTraceExport, PerfettoJson) {
  auto r = run(tool("ipu-trace") + " export --perfetto " + fixture("every_event.trace"));
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["displayTimeUnit"], "ns");
  EXPECT_EQ(j["otherData"]["clock_hz"], 2000000.0);

  // Metadata: a process per IPU (pid = IPU + 1), a thread per tile context that has events
  // (tid = 1 + tile*7 + context, context 0 the supervisor, 1..6 workers 0..5), tid 0 the IPU.
  std::map<std::pair<int, int>, std::string> threads;
  std::map<int, std::string> processes;
  struct Slice {
    std::string ph, name;
    double ts, dur;
    int pid, tid;
  };
  std::vector<Slice> slices;
  std::vector<nlohmann::json> raw;
  for (const auto &e : j["traceEvents"]) {
    if (e["ph"] == "M") {
      const int pid = e["pid"].get<int>(), tid = e["tid"].get<int>();
      if (e["name"] == "process_name") processes[pid] = e["args"]["name"].get<std::string>();
      if (e["name"] == "thread_name") threads[{pid, tid}] = e["args"]["name"].get<std::string>();
      continue;
    }
    slices.push_back({e["ph"].get<std::string>(), e.value("name", std::string()), e["ts"].get<double>(),
                      e.value("dur", -1.0), e["pid"].get<int>(), e["tid"].get<int>()});
    raw.push_back(e);
  }
  EXPECT_EQ(processes, (std::map<int, std::string>{{1, "ipu0"}, {2, "ipu1"}}));
  EXPECT_EQ(threads, (std::map<std::pair<int, int>, std::string>{{{1, 0}, "phases & syncs"},
                                                                   {{1, 1}, "tile0 supervisor"},
                                                                   {{1, 8}, "tile1 supervisor"},
                                                                   {{1, 12}, "tile1 worker3"},
                                                                   {{2, 2}, "tile0 worker0"}}));

  // At 2 MHz a cycle is 0.5 us: ts = cycle / 2, dur = cycles / 2 (-1: none). Sorted by start; in
  // one cycle B/E before X (longest first) before instants.
  const std::vector<Slice> expect = {
      {"B", "main", 0, -1, 1, 1},              // tile.begin at 0: the symbol
      {"X", "exchange", 0, 15, 1, 0},          // phase at 0, cycles=30
      {"X", "setzi $m1, 0x10", 1, 0.5, 1, 1},  // issue at 2: one cycle
      {"B", "Scale", 2, -1, 1, 12},            // vertex.begin at 4 on tile1 worker3
      {"B", "0x4c200", 3, -1, 2, 2},           // no symbol: the pc; ipu1 tile0 worker0
      {"X", "exchange.send", 5, 2, 1, 1},      // 4 words from 10
      {"X", "exchange.receive", 7, 2, 1, 8},   // 14 to last_cycle 17 + 1
      {"E", "", 10, -1, 1, 12},                // vertex.end at 20
      {"X", "sync 3", 12, 6, 1, 1},            // sync.enter 24 .. sync.release 36
      {"i", "sync", 18, -1, 1, 0},             // ipu0.sync at 36
      {"E", "", 20, -1, 1, 1},                 // tile.end at 40
      {"E", "", 20, -1, 2, 2},                 // ipu1's vertex never ended: closed at the last cycle, 40
  };
  ASSERT_EQ(slices.size(), expect.size());
  for (size_t i = 0; i < expect.size(); ++i) {
    SCOPED_TRACE("event " + std::to_string(i) + ": " + raw[i].dump());
    EXPECT_EQ(slices[i].ph, expect[i].ph);
    EXPECT_EQ(slices[i].name, expect[i].name);
    EXPECT_DOUBLE_EQ(slices[i].ts, expect[i].ts);
    EXPECT_DOUBLE_EQ(slices[i].dur, expect[i].dur);
    EXPECT_EQ(slices[i].pid, expect[i].pid);
    EXPECT_EQ(slices[i].tid, expect[i].tid);
  }
  // Every field is an argument; decimal numbers are numbers, addresses stay hex strings.
  EXPECT_EQ(raw[2]["args"], nlohmann::json({{"cycle", 2}, {"pc", "0x4c000"}, {"insn", "setzi $m1, 0x10"}}));
  EXPECT_EQ(raw[5]["args"], nlohmann::json({{"cycle", 10}, {"words", 4}, {"addr", "0x50000"}, {"width", 32},
                                            {"receivers", 1}}));
  EXPECT_EQ(raw[8]["args"], nlohmann::json({{"cycle", 24}, {"release_cycle", 36}, {"zone", 3}, {"wait_cycles", 12}}));
  EXPECT_EQ(raw[7]["args"]["status"], 1);
  EXPECT_EQ(raw[9]["s"], "t");
}

// ---- the library behind the tool ----

namespace {

ipusim::sim::TraceFile readText(const std::string &events) {
  std::istringstream in("ipusim-trace 1\nconfig name=mk2 clock_hz=1000000 ipus=1 tiles=32\n" + events);
  return ipusim::sim::readTrace(in, "t.trace");
}

} // namespace

TEST(TraceTools, Places) {
  using ipusim::sim::parseTracePlace;
  auto ipu = parseTracePlace("ipu2");
  ASSERT_TRUE(ipu);
  EXPECT_EQ(ipu->ipu, 2u);
  EXPECT_FALSE(ipu->tile);
  auto sync = parseTracePlace("ipu0.sync");
  ASSERT_TRUE(sync);
  EXPECT_FALSE(sync->tile);
  auto sup = parseTracePlace("ipu1.tile17.supervisor");
  ASSERT_TRUE(sup);
  EXPECT_EQ(sup->ipu, 1u);
  EXPECT_EQ(*sup->tile, 17u);
  EXPECT_EQ(sup->context, 0u);
  auto worker = parseTracePlace("ipu0.tile1471.worker5");
  ASSERT_TRUE(worker);
  EXPECT_EQ(*worker->tile, 1471u);
  EXPECT_EQ(worker->context, 6u); // workers 0..5 are contexts 1..6
  for (const char *bad : {"ipu", "tile3", "ipu0.tile3", "ipu0.tile3.worker6", "ipu0.tile3.supervisorx", "ipu0.syncx",
                          "ipu0.tile.worker0"})
    EXPECT_FALSE(parseTracePlace(bad)) << bad;
}

TEST(TraceTools, ShowTileIsTheWholeNumber) {
  auto t = readText("1 tile.end ipu0.tile1.supervisor\n2 tile.end ipu0.tile17.supervisor\n3 tile.end ipu0.tile10.supervisor\n");
  ipusim::sim::TraceShowOptions o;
  o.tile = 1;
  EXPECT_EQ(ipusim::sim::showTrace(t, o), "1  tile.end  ipu0.tile1.supervisor\n\n"
                                          "1 of 3 events, cycles 1 to 1 (0 cycles)\n"
                                          "  tile.end  1\n");
}

TEST(TraceTools, PerfettoClosesWhatIsOpenAndKeepsUnpairedEnds) {
  // At 1 MHz a cycle is 1 us. Tile 0's sync never releases (closed at the last cycle, 10); tile 1's
  // vertex.end and tile 2's sync.release have nothing to end: they become instants.
  auto t = readText("0 sync.enter ipu0.tile0.supervisor zone=3\n"
                    "5 vertex.end ipu0.tile1.worker0 status=0\n"
                    "8 sync.release ipu0.tile2.supervisor zone=3 wait_cycles=2\n"
                    "10 future.event ipu0.tile3.worker5 answer=42\n");
  nlohmann::json j = nlohmann::json::parse(ipusim::sim::exportPerfetto(t));
  std::vector<std::string> got;
  for (const auto &e : j["traceEvents"])
    if (e["ph"] != "M")
      got.push_back(e["ph"].get<std::string>() + " " + e["name"].get<std::string>() + " ts=" +
                    std::to_string(e["ts"].get<double>()) + " dur=" + std::to_string(e.value("dur", -1.0)) +
                    " tid=" + std::to_string(e["tid"].get<int>()));
  EXPECT_EQ(got, (std::vector<std::string>{
                     "X sync 3 ts=0.000000 dur=10.000000 tid=1",
                     "i vertex.end ts=5.000000 dur=-1.000000 tid=9",     // 1 + 1*7 + 1
                     "i sync.release ts=8.000000 dur=-1.000000 tid=15",  // 1 + 2*7
                     "i future.event ts=10.000000 dur=-1.000000 tid=28", // 1 + 3*7 + 6
                 }));
}

TEST(TraceTools, PerfettoNestsSlicesThatStartTogether) {
  // The supervisor issues `sync 3` at 8 and waits to 20: the sync slice (12 cycles) must come
  // before the issue (1 cycle) so that viewers nest the issue inside it; likewise the send.
  auto t = readText("0 tile.begin ipu0.tile0.supervisor pc=0x4c000 m0=0x0\n"
                    "0 issue ipu0.tile0.supervisor pc=0x4c000 insn=\"send 0, 4, 3\"\n"
                    "0 exchange.send ipu0.tile0.supervisor words=4 addr=0x70000 width=32 receivers=1\n"
                    "8 issue ipu0.tile0.supervisor pc=0x4c004 insn=\"sync 3\"\n"
                    "8 sync.enter ipu0.tile0.supervisor zone=3\n"
                    "20 sync.release ipu0.tile0.supervisor zone=3 wait_cycles=12\n"
                    "20 tile.end ipu0.tile0.supervisor\n");
  nlohmann::json j = nlohmann::json::parse(ipusim::sim::exportPerfetto(t));
  std::vector<std::string> got;
  for (const auto &e : j["traceEvents"])
    if (e["ph"] != "M")
      got.push_back(e["ph"].get<std::string>() + " " + e.value("name", std::string()) + " " +
                    std::to_string(e.value("dur", -1.0)));
  EXPECT_EQ(got, (std::vector<std::string>{"B 0x4c000 -1.000000", "X exchange.send 4.000000",
                                           "X send 0, 4, 3 1.000000", "X sync 3 12.000000", "X sync 3 1.000000",
                                           "E  -1.000000"}));
}

// A value holding a byte that is not UTF-8 (a trace escapes it as \xFF) still exports: the
// JSON carries U+FFFD in its place (issue 14: the export aborted with an uncaught exception).
TEST(IpuTraceExport, BytesOutsideUtf8) {
  TempDir dir;
  {
    std::ofstream out(dir.path / "a.trace");
    out << "ipusim-trace 1\nconfig name=mk2 clock_hz=1325000000 ipus=1 tiles=1\n"
           "0 tile.begin ipu0.tile0.supervisor pc=0x4c000 m0=0x0 symbol=\"f\\xFFg\"\n"
           "8 tile.end ipu0.tile0.supervisor\n";
  }
  auto r = ipuTrace(dir, "export --perfetto a.trace");
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_NE(r.out.find("f\xEF\xBF\xBDg"), std::string::npos) << r.out;
}
