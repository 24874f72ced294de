// The canonical trace format (docs/trace-format.md): exact lines from the writer (quoting and
// escaping), the reader's round trip, and every reader error with its line and column.
#include "ipusim/sim/Trace.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace ipusim::sim;

namespace {

const std::string kHeader = "ipusim-trace 1\nconfig name=mk2 clock_hz=1325000000 ipus=1 tiles=4\n";

/// The reader's message for `text` (named t.trace), or "" if it reads.
std::string readError(const std::string &text) {
  std::istringstream in(text);
  try {
    readTrace(in, "t.trace");
  } catch (const TraceError &e) {
    return e.what();
  }
  return "";
}

/// The message for one event line after a valid header (so it is line 3).
std::string eventError(const std::string &line) { return readError(kHeader + line + "\n"); }

} // namespace

TEST(TraceFormat, FormatsEventsWithBareAndQuotedValues) {
  TraceEvent e;
  e.cycle = 1234;
  e.event = "tile.begin";
  e.where = "ipu0.tile17.supervisor";
  e.addHex("pc", 0x4C000).addHex("m0", 0x70000).add("symbol", "ring_shift");
  EXPECT_EQ(formatTraceEvent(e), "1234 tile.begin ipu0.tile17.supervisor pc=0x4c000 m0=0x70000 symbol=ring_shift");

  // Anything outside letters, digits and ._:+-/ is quoted, with " and \ escaped; "" is empty.
  TraceEvent q;
  q.cycle = 0;
  q.event = "issue";
  q.where = "ipu0.tile0.worker2";
  q.add("insn", "f32add $a0, $a1, $a2").add("note", R"(say "hi" \ bye)").add("empty", "").add("path", "a/b:c+d-e.f");
  EXPECT_EQ(formatTraceEvent(q),
            R"(0 issue ipu0.tile0.worker2 insn="f32add $a0, $a1, $a2" note="say \"hi\" \\ bye" empty="" path=a/b:c+d-e.f)");

  TraceEvent bare;
  bare.cycle = 7;
  bare.event = "tile.end";
  bare.where = "ipu1.tile0.supervisor";
  EXPECT_EQ(formatTraceEvent(bare), "7 tile.end ipu1.tile0.supervisor");
}

TEST(TraceFormat, HexFieldsAreLowerCaseWithoutPadding) {
  TraceEvent e;
  e.addHex("a", 0).addHex("b", 0x4C000).addHex("c", 0xFFFFFFFF).add("d", uint64_t(18446744073709551615ull));
  EXPECT_EQ(*e.field("a"), "0x0");
  EXPECT_EQ(*e.field("b"), "0x4c000");
  EXPECT_EQ(*e.field("c"), "0xffffffff");
  EXPECT_EQ(*e.field("d"), "18446744073709551615");
  EXPECT_EQ(e.field("e"), nullptr);
}

TEST(TraceFormat, CycleFieldsEndInCycleOrCycles) {
  EXPECT_TRUE(isCycleField("cycles"));
  EXPECT_TRUE(isCycleField("wait_cycles"));
  EXPECT_TRUE(isCycleField("last_cycle"));
  EXPECT_TRUE(isCycleField("last_arrival_cycle"));
  EXPECT_FALSE(isCycleField("cycle_count"));
  EXPECT_FALSE(isCycleField("pc"));
  EXPECT_FALSE(isCycleField("cycl"));
}

TEST(TraceFormat, FormatsTheHeader) {
  TraceHeader h{"mk2", 1325000000, 1, 1472};
  EXPECT_EQ(formatTraceHeader(h), "ipusim-trace 1\nconfig name=mk2 clock_hz=1325000000 ipus=1 tiles=1472\n");
  // A fractional clock keeps its fraction; a name that is not a bare token is quoted.
  TraceHeader odd{"my config", 1234.5, 16, 4};
  EXPECT_EQ(formatTraceHeader(odd), "ipusim-trace 1\nconfig name=\"my config\" clock_hz=1234.5 ipus=16 tiles=4\n");
}

TEST(TraceFormat, RoundTripsThroughTheReader) {
  TraceHeader h{"pod16", 1325000000, 16, 1472};
  std::vector<TraceEvent> events(3);
  events[0].cycle = 0;
  events[0].event = "tile.begin";
  events[0].where = "ipu3.tile1471.supervisor";
  events[0].addHex("pc", 0x4C000).add("symbol", "a \"quoted\" \\ name");
  events[1].cycle = 0;
  events[1].event = "phase";
  events[1].where = "ipu3";
  events[1].add("kind", "compute").add("index", uint64_t(0)).add("empty", "");
  events[2].cycle = 18446744073709551615ull; // the largest cycle still reads
  events[2].event = "issue";
  events[2].where = "ipu3.tile5.worker5";
  events[2].addHex("pc", 0x4C010).add("insn", "{ f32add $a0, $a1, $a2 ; ld32 $m0, $m1, 0 }");
  std::string text = formatTraceHeader(h);
  for (const TraceEvent &e : events) text += formatTraceEvent(e) + "\n";

  std::istringstream in(text);
  TraceFile t = readTrace(in, "rt.trace");
  EXPECT_EQ(t.header.config, "pod16");
  EXPECT_EQ(t.header.clockHz, 1325000000.0);
  EXPECT_EQ(t.header.ipus, 16u);
  EXPECT_EQ(t.header.tiles, 1472u);
  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(t.lines, (std::vector<unsigned>{3, 4, 5}));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(t.events[i].cycle, events[i].cycle);
    EXPECT_EQ(t.events[i].event, events[i].event);
    EXPECT_EQ(t.events[i].where, events[i].where);
    EXPECT_EQ(t.events[i].fields, events[i].fields);
  }
  EXPECT_EQ(*t.events[0].field("symbol"), "a \"quoted\" \\ name");
  // Writing what was read gives the same text.
  std::string again = formatTraceHeader(t.header);
  for (const TraceEvent &e : t.events) again += formatTraceEvent(e) + "\n";
  EXPECT_EQ(again, text);
}

TEST(TraceFormat, SkipsCommentsAndEmptyLinesAndKeepsFileLines) {
  std::istringstream in(kHeader + "\n# a comment\n5 tile.end ipu0.tile0.supervisor\n\n9 tile.end ipu0.tile1.supervisor\n");
  TraceFile t = readTrace(in, "t.trace");
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.lines, (std::vector<unsigned>{5, 7}));
  EXPECT_EQ(t.events[1].cycle, 9u);
  // Quoted values may hold spaces and '='; unknown config keys are ignored.
  std::istringstream in2("ipusim-trace 1\nconfig name=mk2 clock_hz=1e9 ipus=2 tiles=8 seed=7\n"
                         "3 issue ipu1.tile7.worker5 insn=\"a = b\" pc=0x4c000\n");
  TraceFile t2 = readTrace(in2, "t2.trace");
  EXPECT_EQ(t2.header.clockHz, 1e9);
  EXPECT_EQ(t2.header.ipus, 2u);
  EXPECT_EQ(t2.header.tiles, 8u);
  EXPECT_EQ(*t2.events[0].field("insn"), "a = b");
}

TEST(TraceFormat, HeaderErrors) {
  EXPECT_EQ(readError(""), "t.trace:1:1: error: not an ipusim trace: the first line must be 'ipusim-trace 1'");
  EXPECT_EQ(readError("0 tile.end ipu0\n"),
            "t.trace:1:1: error: not an ipusim trace: the first line must be 'ipusim-trace 1'");
  // The version is the 14th column.
  EXPECT_EQ(readError("ipusim-trace 2\n"),
            "t.trace:1:14: error: unsupported trace format version '2' (this reader knows version 1)");
  const std::string expectConfig =
      "error: expected the config line 'config name=... clock_hz=... ipus=... tiles=...'";
  EXPECT_EQ(readError("ipusim-trace 1\n"), "t.trace:2:1: " + expectConfig);
  EXPECT_EQ(readError("ipusim-trace 1\n0 tile.end ipu0.tile0.supervisor\n"), "t.trace:2:1: " + expectConfig);
  // A missing key is reported just past the end of the line (42 characters).
  EXPECT_EQ(readError("ipusim-trace 1\nconfig name=mk2 clock_hz=1325000000 ipus=1\n"),
            "t.trace:2:43: error: the config line has no 'tiles'");
  // "config name=mk2 clock_hz=" is 25 characters: the value starts at column 26.
  EXPECT_EQ(readError("ipusim-trace 1\nconfig name=mk2 clock_hz=fast ipus=1 tiles=4\n"),
            "t.trace:2:26: error: clock_hz must be a positive number of Hz, got 'fast'");
  EXPECT_EQ(readError("ipusim-trace 1\nconfig name=mk2 clock_hz=inf ipus=1 tiles=4\n"),
            "t.trace:2:26: error: clock_hz must be a positive number of Hz, got 'inf'");
  // "config name=mk2 clock_hz=1325000000 ipus=" is 41 characters.
  EXPECT_EQ(readError("ipusim-trace 1\nconfig name=mk2 clock_hz=1325000000 ipus=0 tiles=4\n"),
            "t.trace:2:42: error: ipus must be a positive whole number, got '0'");
}

TEST(TraceFormat, EventErrorsNameTheColumn) {
  EXPECT_EQ(eventError("x tile.begin ipu0"), "t.trace:3:1: error: expected a cycle number, got 'x'");
  EXPECT_EQ(eventError(" 5 tile.begin ipu0"), "t.trace:3:1: error: expected a cycle number at the start of the line");
  EXPECT_EQ(eventError("99999999999999999999 tile.end ipu0"),
            "t.trace:3:1: error: cycle '99999999999999999999' is too large");
  EXPECT_EQ(eventError("5"), "t.trace:3:2: error: expected an event name after the cycle");
  // "5 tile.begin" is 12 characters.
  EXPECT_EQ(eventError("5 tile.begin"),
            "t.trace:3:13: error: expected WHERE (the part the event happened in) after the event name");
  EXPECT_EQ(eventError("5 tile.begin pc=0x4c000"), "t.trace:3:14: error: expected WHERE, got the field 'pc=0x4c000'");
  EXPECT_EQ(eventError("5 tile.begin ipu0.tile0#"), "t.trace:3:24: error: invalid character '#' in WHERE");
  EXPECT_EQ(eventError("5 tile\"begin ipu0"), "t.trace:3:7: error: invalid character '\"' in an event name");
  EXPECT_EQ(eventError("5  tile.begin ipu0"), "t.trace:3:3: error: expected one space between fields, found two");
  // 33 characters, the last a space.
  EXPECT_EQ(eventError("5 tile.end ipu0.tile0.supervisor "), "t.trace:3:33: error: trailing space at the end of the line");

  // Fields: "5 tile.begin ipu0.tile0.supervisor " is 35 characters, so the first key is column 36.
  const std::string at = "5 tile.begin ipu0.tile0.supervisor ";
  EXPECT_EQ(eventError(at + "PC=0x4c000"),
            "t.trace:3:36: error: invalid character 'P' in a key (keys are [a-z_][a-z0-9_]*)");
  EXPECT_EQ(eventError(at + "symbol"), "t.trace:3:36: error: expected KEY=VALUE, got 'symbol'");
  EXPECT_EQ(eventError(at + "=1"), "t.trace:3:36: error: expected a key before '='");
  // "symbol=" takes columns 36-42: the value starts at column 43, so its '$' is at 44.
  EXPECT_EQ(eventError(at + "symbol=a$b"), "t.trace:3:44: error: invalid character '$' in the value of 'symbol' "
                                           "(quote values other than letters, digits and ._:+-/)");
  EXPECT_EQ(eventError(at + "symbol="), "t.trace:3:43: error: empty value of 'symbol' (an empty value is written \"\")");
  EXPECT_EQ(eventError(at + "symbol=\"abc"), "t.trace:3:43: error: unterminated quoted value of 'symbol'");
  EXPECT_EQ(eventError(at + "symbol=\"a\\nb\""),
            "t.trace:3:45: error: invalid escape in a quoted value (the escapes are \\\", \\\\ and \\xNN)");
  // Raw bytes outside printable ASCII are errors (issue 14: they reached the Perfetto export).
  EXPECT_EQ(eventError(at + "symbol=\"a\xff" "b\""),
            "t.trace:3:45: error: byte 0xFF in a quoted value: traces are printable ASCII (write the byte as \\xFF)");
  EXPECT_EQ(eventError(at + "symbol=\"a\"b"), "t.trace:3:46: error: expected a space after the quoted value of 'symbol'");
  EXPECT_EQ(eventError(at + "pc=0x1 pc=0x2"), "t.trace:3:43: error: duplicate key 'pc'");
  // A tab is no separator: it is the 7th character of the field, column 42.
  EXPECT_EQ(eventError(at + "pc=0x1\tm0=0x2"),
            "t.trace:3:42: error: invalid character '\\x09' in the value of 'pc' "
            "(quote values other than letters, digits and ._:+-/)");
}

TEST(TraceFormat, EventsMustBeInCycleOrder) {
  EXPECT_EQ(readError(kHeader + "10 tile.end ipu0.tile0.supervisor\n10 tile.end ipu0.tile1.supervisor\n"
                                "# late\n9 tile.end ipu0.tile2.supervisor\n"),
            "t.trace:6:1: error: cycle 9 is before the previous event's cycle 10 (line 4): events must be in cycle "
            "order");
}

TEST(TraceFormat, UnreadableFile) {
  try {
    readTrace("/nonexistent/x.trace");
    FAIL() << "no error";
  } catch (const TraceError &e) {
    EXPECT_STREQ(e.what(), "/nonexistent/x.trace: error: no such file");
  }
}

// A value with bytes outside printable ASCII (a symbol name with 0xFF, a tab) is written with
// \xNN escapes and reads back as the same bytes (issue 14: such bytes made the Perfetto export abort).
TEST(TraceFormat, EscapesBytesOutsidePrintableAscii) {
  TraceEvent e;
  e.cycle = 3;
  e.event = "tile.begin";
  e.where = "ipu0.tile0.supervisor";
  e.add("symbol", std::string("f\xff\tg\"h"));
  const std::string line = formatTraceEvent(e);
  EXPECT_EQ(line, "3 tile.begin ipu0.tile0.supervisor symbol=\"f\\xFF\\x09g\\\"h\"");
  std::istringstream in(formatTraceHeader(TraceHeader{"mk2", 1325e6, 1, 4}) + line + "\n");
  TraceFile t = readTrace(in, "t.trace");
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(*t.events[0].field("symbol"), std::string("f\xff\tg\"h"));
}
