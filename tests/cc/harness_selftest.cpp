// Checks the corpus harness itself, independent of ipu-cc: hand-written assembly vertices with
// hand-written layouts are put into the compile cache, and VertexRun must lay out their state
// (Value, SPAN, ONE_PTR, PTR, SCALED_PTR32, vectors of SHORT_SPAN rows), start them the way their
// kind says (one worker with $mworker_base set, six workers, the supervisor with a stack) and
// read their exit statuses.
#include "CorpusHarness.h"

#include <gtest/gtest-spi.h>

using namespace ipusim;
using namespace ipusim::corpus;

namespace {

cc::VertexField field(const std::string &name, uint32_t offset, uint32_t size, const std::string &kind,
                      const std::string &layout, const std::string &type, const std::string &inner = "") {
  cc::VertexField f;
  f.name = name;
  f.offset = offset;
  f.size = size;
  f.kind = kind;
  f.layout = layout;
  f.elementType = type;
  f.innerLayout = inner;
  f.elementAlign = 4;
  return f;
}

/// Registers `source` (assembly) with one vertex layout as the compile result of corpus file
/// `file`.
void inject(const std::string &file, const std::string &source, cc::VertexLayout v) {
  auto c = std::make_unique<Compiled>();
  c->ok = true;
  c->result.object = cc::assembleText(source, file + ".s");
  c->result.assembly = source;
  c->result.vertices.push_back(std::move(v));
  compileCache()[corpusFile(file)] = std::move(c);
}

cc::VertexLayout layout(const std::string &cls, const std::string &entry, const std::string &kind, uint32_t size,
                        std::vector<cc::VertexField> fields) {
  cc::VertexLayout v;
  v.className = cls;
  v.entrySymbol = entry;
  v.vertexKind = kind;
  v.size = size;
  v.align = 4;
  v.fields = std::move(fields);
  return v;
}

std::string header(const std::string &sym, const char *mode) {
  return "  .section .text." + sym + ", \"ax\"\n  .globl " + sym + "\n  .align 8\n  " + mode + "\n" + sym + ":\n";
}

TEST(CorpusHarness, WorkerValueAndSpanWithWorkerStack) {
  // Fill: in (float value) at 0, out SPAN at 4. The count goes through the worker's scratch
  // area at $mworker_base and back.
  inject("selftest_fill.cpp",
         header("__runCodelet_selftest__Fill", ".worker") + R"(
  ld32 $a0, $mvertex_base, 0
  ld32 $m0, $mvertex_base, 1
  ld32 $m1, $mvertex_base, 2
  st32 $m1, $mworker_base, 0
  ld32 $m1, $mworker_base, 0
  add $m1, $m1, -1
1:
  st32 $a0, $m0, 0
  add $m0, $m0, 4
  brnzdec $m1, 1b
  exitz $mzero
)",
         layout("selftest::Fill", "__runCodelet_selftest__Fill", "Vertex", 12,
                {field("in", 0, 4, "Value", "", "float"), field("out", 4, 8, "Output", "SPAN", "float")}));
  VertexRun r("selftest_fill.cpp", "selftest::Fill");
  r.value("in", 2.5f).set("out", out(5, 4));
  ASSERT_TRUE(r.run());
  EXPECT_EQ(r.exitStatus(), 1);
  expectF32(r, r.get<float>("out"), std::vector<float>(5, 2.5f));
}

TEST(CorpusHarness, WorkerReturningFalse) {
  inject("selftest_false.cpp", header("__runCodelet_selftest__False", ".worker") + "  exitnz $mzero\n",
         layout("selftest::False", "__runCodelet_selftest__False", "Vertex", 4,
                {field("x", 0, 4, "Value", "", "unsigned int")}));
  VertexRun r("selftest_false.cpp", "selftest::False");
  r.value("x", 0u).expectReturn(false);
  ASSERT_TRUE(r.run());
  EXPECT_EQ(r.exitStatus(), 0);
}

TEST(CorpusHarness, MultiVertexWithScaledPointer) {
  // out (ONE_PTR) at 0, base (SCALED_PTR32 to one word) at 4, pad at 6: worker w writes
  // *base + w to out[w].
  inject("selftest_multi.cpp",
         header("__runCodelet_selftest__Multi", ".worker") + R"(
  get $m0, $WSR
  and $m0, $m0, 7
  ld32 $m1, $mvertex_base, 0
  ldz16 $m2, $mvertex_base, 2
  shl $m2, $m2, 2
  setzi $m6, 0x4c000
  add $m2, $m2, $m6
  ld32 $m3, $m2, 0
  add $m3, $m3, $m0
  shl $m4, $m0, 2
  add $m5, $m1, $m4
  st32 $m3, $m5, 0
  exitz $mzero
)",
         layout("selftest::Multi", "__runCodelet_selftest__Multi", "MultiVertex", 8,
                {field("out", 0, 4, "Output", "ONE_PTR", "unsigned int"),
                 field("base", 4, 2, "Input", "SCALED_PTR32", "unsigned int"),
                 field("pad", 6, 2, "Value", "", "unsigned short")}));
  VertexRun r("selftest_multi.cpp", "selftest::Multi");
  r.set("out", out(6, 4)).set("base", buf(std::vector<uint32_t>{1000})).value<uint16_t>("pad", 0);
  ASSERT_TRUE(r.run());
  expectEq(r, r.get<uint32_t>("out"), {1000u, 1001u, 1002u, 1003u, 1004u, 1005u});
}

TEST(CorpusHarness, SupervisorWithStackAndScalarEdge) {
  // in SPAN at 0, out PTR at 8: the sum of the ints, the running sum kept on the stack.
  inject("selftest_sup.cpp",
         header("__runCodelet_selftest__Sup", ".supervisor") + R"(
  add $sp, $sp, -8
  st32 $mzero, $sp, 0
  ld32 $m1, $m0, 0
  ld32 $m2, $m0, 1
  add $m2, $m2, -1
1:
  ld32 $m4, $m1, 0
  ld32 $m3, $sp, 0
  add $m3, $m3, $m4
  st32 $m3, $sp, 0
  add $m1, $m1, 4
  brnzdec $m2, 1b
  ld32 $m5, $m0, 2
  ld32 $m3, $sp, 0
  st32 $m3, $m5, 0
  add $sp, $sp, 8
  br $lr
)",
         layout("selftest::Sup", "__runCodelet_selftest__Sup", "SupervisorVertex", 12,
                {field("in", 0, 8, "Input", "SPAN", "int"), field("out", 8, 4, "Output", "PTR", "int")}));
  VertexRun r("selftest_sup.cpp", "selftest::Sup");
  r.set("in", buf(std::vector<int>{5, -7, 100, 3})).set("out", out(1, 4));
  ASSERT_TRUE(r.run());
  expectEq(r, r.get<int>("out"), {101});
}

TEST(CorpusHarness, VectorOfShortSpanRows) {
  // rows: SPAN outer (table pointer at 0, count at 4) of SHORT_SPAN words; out ONE_PTR at 8:
  // out[i] = sum of row i.
  inject("selftest_rows.cpp",
         header("__runCodelet_selftest__Rows", ".worker") + R"(
  ld32 $m0, $mvertex_base, 0
  ld32 $m1, $mvertex_base, 1
  ld32 $m2, $mvertex_base, 2
  add $m1, $m1, -1
1:
  ld32 $m3, $m0, 0
  shr $m4, $m3, 20
  shl $m3, $m3, 12
  shr $m3, $m3, 12
  setzi $m5, 0
  add $m4, $m4, -1
2:
  ld32 $m6, $m3, 0
  add $m5, $m5, $m6
  add $m3, $m3, 4
  brnzdec $m4, 2b
  st32 $m5, $m2, 0
  add $m2, $m2, 4
  add $m0, $m0, 4
  brnzdec $m1, 1b
  exitz $mzero
)",
         layout("selftest::Rows", "__runCodelet_selftest__Rows", "Vertex", 12,
                {field("rows", 0, 8, "Vector", "SPAN", "unsigned int", "SHORT_SPAN"),
                 field("out", 8, 4, "Output", "ONE_PTR", "unsigned int")}));
  VertexRun r("selftest_rows.cpp", "selftest::Rows");
  r.set2d("rows", {buf(std::vector<uint32_t>{1, 2, 3}), buf(std::vector<uint32_t>{10}),
                   buf(std::vector<uint32_t>{7, 7, 7, 7, 7})})
      .set("out", out(3, 4));
  ASSERT_TRUE(r.run());
  expectEq(r, r.get<uint32_t>("out"), {6u, 10u, 35u});
}

TEST(CorpusHarness, OverrunIsReported) {
  // Writes one word past its output: the guard check must catch it.
  inject("selftest_overrun.cpp",
         header("__runCodelet_selftest__Overrun", ".worker") + R"(
  ld32 $m0, $mvertex_base, 0
  ld32 $m1, $mvertex_base, 1
  shl $m1, $m1, 2
  add $m0, $m0, $m1
  st32 $m1, $m0, 0
  exitz $mzero
)",
         layout("selftest::Overrun", "__runCodelet_selftest__Overrun", "Vertex", 8,
                {field("out", 0, 8, "Output", "SPAN", "unsigned int")}));
  EXPECT_NONFATAL_FAILURE(
      {
        VertexRun r("selftest_overrun.cpp", "selftest::Overrun");
        r.set("out", out(2, 4));
        r.run();
      },
      "was overwritten");
}

} // namespace
