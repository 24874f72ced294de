// The ipu-cc command line (-S, -c, --print-vertex-layout, diagnostics and exit statuses) and
// external codelets: a vertex whose C++ declares IS_EXTERNAL_CODELET(true) links to assembly.
#include "CorpusHarness.h"
#include "TestUtil.h"

#include "ipusim/cc/Assembler.h"
#include "ipusim/cc/Compiler.h"
#include "ipusim/cc/Linker.h"
#include "ipusim/arch/Config.h"

#include "ipusim/arch/Half.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace ipusim;
using test::run;
using test::tool;

namespace {

std::string example() { return std::string(IPUSIM_SOURCE_DIR) + "/examples/codelets/vector_add.cpp"; }
std::string input(const std::string &name) { return std::string(IPUSIM_CORPUS_DIR) + "/inputs/" + name; }
std::string slurp(const std::string &path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST(IpuCc, AssemblyOutputHasTheEntryAndItsLoop) {
  test::TempDir d;
  std::string s = (d.path / "v.s").string();
  auto r = run(tool("ipu-cc") + " -S " + example() + " -o " + s);
  ASSERT_EQ(r.status, 0) << r.err;
  std::string text = slurp(s);
  EXPECT_NE(text.find(".globl __runCodelet_VectorAdd\n"), std::string::npos);
  EXPECT_NE(text.find("__runCodelet_VectorAdd:"), std::string::npos);
  // The steady state of the loop: two loads, a store and the add in one bundle.
  EXPECT_NE(text.find("ld2xst64pace"), std::string::npos) << text;
  EXPECT_NE(text.find("f32v2add"), std::string::npos);
  EXPECT_NE(text.find("exitz $mzero"), std::string::npos);
  // The assembly is what ipu-as accepts.
  EXPECT_NO_THROW(cc::assembleText(text, "v.s"));
}

TEST(IpuCc, ObjectCarriesTheVertexLayout) {
  test::TempDir d;
  std::string o = (d.path / "v.o").string();
  auto c = run(tool("ipu-cc") + " -c -O2 " + example() + " -o " + o);
  ASSERT_EQ(c.status, 0) << c.err;
  auto r = run(tool("ipu-cc") + " --print-vertex-layout " + o);
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["class"], "VectorAdd");
  EXPECT_EQ(j[0]["entry"], "__runCodelet_VectorAdd");
  EXPECT_EQ(j[0]["vertexKind"], "Vertex");
  EXPECT_EQ(j[0]["size"], 16);
  EXPECT_EQ(j[0]["align"], 4);
  const auto &f = j[0]["fields"];
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0]["name"], "a");
  EXPECT_EQ(f[0]["offset"], 0);
  EXPECT_EQ(f[0]["size"], 8);
  EXPECT_EQ(f[0]["kind"], "Input");
  EXPECT_EQ(f[0]["layout"], "SPAN");
  EXPECT_EQ(f[0]["elementType"], "float");
  EXPECT_EQ(f[0]["elementAlign"], 8);
  EXPECT_EQ(f[1]["offset"], 8);
  EXPECT_EQ(f[1]["layout"], "ONE_PTR");
  EXPECT_EQ(f[2]["name"], "out");
  EXPECT_EQ(f[2]["offset"], 12);
  EXPECT_EQ(f[2]["kind"], "Output");
  // The same, read back through the library.
  auto layouts = cc::readVertexLayouts(cc::readElfFile(o));
  ASSERT_EQ(layouts.size(), 1u);
  EXPECT_EQ(layouts[0].fields[2].offset, 12u);
}

// A linked tile image keeps the layouts of the vertices of every object in it (issue 14: the
// linker dropped them and --print-vertex-layout printed []).
TEST(IpuCc, LinkedImageKeepsTheVertexLayouts) {
  test::TempDir d;
  const std::string a = (d.path / "a.o").string(), b = (d.path / "b.o").string(), elf = (d.path / "t.elf").string();
  ASSERT_EQ(run(tool("ipu-cc") + " -c " + example() + " -o " + a).status, 0);
  const std::string src = (d.path / "fill.cpp").string();
  std::ofstream(src) << "#include <poplar/Vertex.hpp>\ntemplate <class T> class Fill : public poplar::Vertex {\npublic:\n"
                        "  poplar::Output<poplar::Vector<T>> out;\n  T value;\n"
                        "  bool compute() { for (auto &x : out) x = value; return true; }\n};\n"
                        "template class Fill<float>;\ntemplate class Fill<int>;\n";
  ASSERT_EQ(run(tool("ipu-cc") + " -c " + src + " -o " + b).status, 0);
  auto l = run(tool("ipu-ld") + " " + a + " " + b + " -o " + elf);
  ASSERT_EQ(l.status, 0) << l.err;
  auto r = run(tool("ipu-cc") + " --print-vertex-layout " + elf);
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 3u) << r.out;
  EXPECT_EQ(j[0]["class"], "VectorAdd");
  EXPECT_EQ(j[1]["class"], "Fill<float>");
  EXPECT_EQ(j[2]["class"], "Fill<int>");
  EXPECT_EQ(j[2]["fields"][1]["name"], "value");
  EXPECT_EQ(j[2]["fields"][1]["kind"], "Value");
}

TEST(IpuCc, SourceErrorsAreLocatedAndFail) {
  test::TempDir d;
  std::string src = (d.path / "bad.cpp").string();
  std::ofstream(src) << "#include <poplar/Vertex.hpp>\nclass V : public poplar::Vertex {\npublic:\n  bool compute() { return undeclared; }\n};\n";
  auto r = run(tool("ipu-cc") + " -c " + src + " -o " + (d.path / "bad.o").string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("bad.cpp:4:27: error: use of undeclared identifier 'undeclared'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("generated"), std::string::npos) << "clang's error count leaks: " << r.err;
  EXPECT_FALSE(std::filesystem::exists(d.path / "bad.o"));
}

TEST(IpuCc, MissingInputAndUsage) {
  auto r = run(tool("ipu-cc") + " -c /nonexistent/x.cpp -o /tmp/x.o");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("/nonexistent/x.cpp: error: no such file"), std::string::npos) << r.err;
  auto u = run(tool("ipu-cc"));
  EXPECT_EQ(u.status, 1);
  EXPECT_NE(u.err.find("no input file"), std::string::npos) << u.err;
}

TEST(IpuCc, ExternalCodeletLinksToItsAssembly) {
  cc::CompileResult c = cc::compileCodelet(input("external.cpp"));
  ASSERT_EQ(c.vertices.size(), 2u);
  const cc::VertexLayout *triple = nullptr, *twice = nullptr;
  for (const auto &v : c.vertices) (v.className == "ext::Triple" ? triple : twice) = &v;
  ASSERT_TRUE(triple && twice);
  EXPECT_TRUE(triple->external);
  EXPECT_FALSE(twice->external);
  EXPECT_EQ(triple->entrySymbol, "__runCodelet_ext__Triple");
  EXPECT_EQ(triple->fields[1].offset, 4u);
  // No compiled entry for the external vertex; the compiled one is there.
  int t = c.object.findSymbol("__runCodelet_ext__Triple");
  EXPECT_TRUE(t < 0 || c.object.symbols[size_t(t)].section == cc::kUndefinedSection);
  EXPECT_GE(c.object.findSymbol("__runCodelet_ext__Double"), 0);
  cc::ObjectFile s = cc::assembleFile(input("external.S"), {});
  for (const char *entry : {"__runCodelet_ext__Triple", "__runCodelet_ext__Double"}) {
    constexpr uint32_t kState = 0x70000, kIn = 0x60000, kOut = 0x64000;
    auto r = corpus::runBoth({{"external.o", c.object}, {"external_s.o", s}}, entry, test::Mode::Worker, kState,
                             [](sim::Tile &tile) {
                               test::putWords(tile, kState, {kIn, kOut});
                               test::putWords(tile, kIn, {14});
                             });
    EXPECT_EQ(r.tile->memory().read<uint32_t>(kOut), std::string(entry).find("Triple") != std::string::npos ? 42u : 28u)
        << entry;
  }
}

TEST(IpuCc, WideVectorsUseLd128FromInterleavedMemory) {
  cc::CompileResult c = cc::compileCodelet(input("wide.cpp"));
  EXPECT_NE(c.assembly.find("ld128 "), std::string::npos) << c.assembly;
  ASSERT_EQ(c.vertices.size(), 1u);
  EXPECT_TRUE(c.vertices[0].fields[0].interleaved);
  EXPECT_FALSE(c.vertices[0].fields[1].interleaved);
  // a in region 1 (interleaved, from 0x80000), the rest in region 0.
  constexpr uint32_t kState = 0x70000, kA = 0x80000, kB = 0x60000, kOut = 0x64000, kOutH = 0x68000, n = 5;
  std::vector<float> a(4 * n), b(4 * n);
  for (uint32_t i = 0; i < 4 * n; ++i) a[i] = 0.5f * float(i) + 1.0f, b[i] = -0.25f * float(i) + 3.0f;
  auto r = corpus::runBoth({{"wide.o", c.object}}, "__runCodelet_Wide", test::Mode::Worker, kState, [&](sim::Tile &t) {
    test::putWords(t, kState, {kA, n, kB, kOut, kOutH});
    for (uint32_t i = 0; i < 4 * n; ++i) {
      t.memory().write<float>(kA + 4 * i, a[i]);
      t.memory().write<float>(kB + 4 * i, b[i]);
    }
  });
  for (uint32_t i = 0; i < 4 * n; ++i) {
    // x = -(a * b - b) + {1, 2, 3, 4}: each f32 operation rounded once, as on the host.
    float x = -(a[i] * b[i] - b[i]) + float(i % 4 + 1);
    EXPECT_EQ(r.tile->memory().read<float>(kOut + 4 * i), x) << i;
    EXPECT_EQ(r.tile->memory().read<uint16_t>(kOutH + 2 * i), arch::doubleToHalf(double(x))) << i;
  }
}

TEST(IpuCc, StackArgumentsBeyondTheRegisters) {
  std::vector<int> in = {0, 1, -3, 1000, -77};
  corpus::VertexRun r("../inputs/many_args.cpp", "args::ManyArgs");
  r.set("in", corpus::buf(in)).set("out", corpus::out(uint32_t(in.size()), 4));
  if (!r.run()) return;
  std::vector<float> want;
  for (int x : in) {
    // mix() on the host with the same arguments (every operation exact or rounded once, in order).
    float h0 = 1, h1 = 2, h2 = 3, h3 = 4.5f, h4 = 5, h5 = 6, h6 = 7, h7 = float(x), h8 = 0.25f;
    long long f = (long long)x << 33, i = (long long)x << 40;
    want.push_back(float(x - 2 * x + 3 - -x + 5) + float(f) + float(x + 1) * 0.5f +
                   (h0 - h1 + h2 - h3 + h4 - h5 + h6 - h7) * h8 + float(x) * 2.0f + float(i >> 20) + float(7u));
  }
  corpus::expectF32(r, r.get<float>("out"), want);
}

TEST(IpuCc, SimulatedExceptionsNameTheCppLine) {
  cc::CompileResult c = cc::compileCodelet(input("bad_access.cpp"));
  constexpr uint32_t kState = 0x70000, kIn = 0x60000, kOut = 0x61000;
  try {
    corpus::runOnce({{"bad_access.o", c.object}}, "__runCodelet_Bad", test::Mode::Worker, kState,
                    [](sim::Tile &t) { test::putWords(t, kState, {kIn, 16, kOut}); }, true);
    FAIL() << "no simulated exception";
  } catch (const sim::SimException &e) {
    std::string what = e.what();
    // Line 11 of bad_access.cpp: `*out = p[in.size() * 100000];`.
    EXPECT_NE(what.find("bad_access.cpp:11:"), std::string::npos) << what;
    EXPECT_NE(what.find("outside tile memory"), std::string::npos) << what;
    EXPECT_NE(what.find("context 1 (worker 1)"), std::string::npos) << what;
  }
}

TEST(IpuCc, InlineAsmMrfPairOutput) {
  // tapack packs three 21-bit addresses (ipusim/arch/PackedAddresses.h): a and b in the low 21
  // bits of the two registers, out across their top bits.
  constexpr uint32_t kState = 0x70000, kA = 0x60000, kB = 0x64100, kOut = 0x68200;
  auto r = corpus::runBoth({{"tapack.o", cc::compileCodelet(input("tapack.cpp")).object}}, "__runCodelet_Tap",
                           test::Mode::Worker, kState, [](sim::Tile &t) { test::putWords(t, kState, {kA, 1, kB, kOut}); });
  EXPECT_EQ(r.tile->memory().read<uint32_t>(kOut), kA | (kOut & 0x7FF) << 21);
  EXPECT_EQ(r.tile->memory().read<uint32_t>(kOut + 4), kB | (kOut >> 11) << 21);
}

// Miscompilations found by review, each against a host computation (tests/cc/inputs/review.cpp).
const std::string kReview = "../inputs/review.cpp";

TEST(IpuCcRegression, UnorderedTestsBothOperands) {
  corpus::VertexRun r(kReview, "rev::Unordered");
  r.set("a", corpus::buf(std::vector<float>{1.0f, std::nanf("")})).set("out", corpus::out(2, 4));
  if (!r.run()) return;
  corpus::expectEq(r, r.get<int>("out"), {1, 0});
}

TEST(IpuCcRegression, NarrowSwitchComparesZeroExtended) {
  corpus::VertexRun r(kReview, "rev::NarrowSwitch");
  r.set("a", corpus::buf(std::vector<int>{200, 0x101, 7})).set("out", corpus::out(3, 4));
  if (!r.run()) return;
  corpus::expectEq(r, r.get<int>("out"), {20, 10, 30}); // 0x101 truncates to 1
}

TEST(IpuCcRegression, BranchReadsThePhiBeforeItsCopies) {
  std::vector<unsigned> a = {5};
  int cnt = 0; // the host's answer
  for (unsigned x = a[0];;) {
    cnt += int(x & 1);
    bool stop = int(x) < 0;
    x = x * 1103515245u + 12345u;
    if (stop) break;
  }
  corpus::VertexRun r(kReview, "rev::BranchOnPhi");
  r.set("a", corpus::buf(a)).set("out", corpus::out(1, 4));
  if (!r.run()) return;
  corpus::expectEq(r, r.get<int>("out"), {cnt});
}

TEST(IpuCcRegression, PipelinedPaceStoreWaitsForItsLoad) {
  for (uint32_t n : {1u, 2u, 3u, 4u, 9u}) {
    std::vector<float> a, b;
    float s0 = 0, s1 = 0;
    for (uint32_t i = 0; i < 2 * n; ++i) a.push_back(float(i + 1)), b.push_back(0.5f * float(i));
    for (uint32_t i = 0; i < n; ++i) s0 += b[2 * i], s1 += b[2 * i + 1];
    struct Float2 {
      float x, y;
    };
    auto pairs = [](const std::vector<float> &v) { // n float2 elements (the SPAN's size is n)
      std::vector<Float2> p;
      for (size_t i = 0; i + 1 < v.size(); i += 2) p.push_back({v[i], v[i + 1]});
      return p;
    };
    corpus::VertexRun r(kReview, "rev::PaceCopy");
    r.set("a", corpus::buf(pairs(a))).set("b", corpus::buf(pairs(b))).set("out", corpus::out(n, 8)).set("acc", corpus::out(1, 8));
    if (!r.run()) return;
    auto bitsOf = [](float lo, float hi) { // a float2 as 64 bits
      uint64_t v;
      float f[2] = {lo, hi};
      std::memcpy(&v, f, 8);
      return v;
    };
    std::vector<uint64_t> want;
    for (uint32_t i = 0; i < n; ++i) want.push_back(bitsOf(a[2 * i], a[2 * i + 1]));
    corpus::expectEq(r, r.get<uint64_t>("out"), want);
    corpus::expectEq(r, r.get<uint64_t>("acc"), {bitsOf(s0, s1)});
  }
}

TEST(IpuCcRegression, UnsignedDivisionByConstants) {
  const std::vector<unsigned> in = {0u, 1u, 2u, 47u, 48u, 49u, 1000u, 65535u, 65536u, 65537u, 1000000006u, 1000000007u,
                                    0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu, 123456789u, 3000000000u};
  corpus::VertexRun r(kReview, "rev::DivByConstant");
  r.set("a", corpus::buf(in)).set("out", corpus::out(uint32_t(10 * in.size()), 4));
  if (!r.run()) return;
  std::vector<unsigned> want;
  for (unsigned x : in) {
    want.insert(want.end(), {x / 3, x % 7, x / 48, x / 1000000007u, x % 0xFFFFFFFFu, x / 0x80000001u, x / 640, x % 65537,
                             unsigned((unsigned short)x / 10), unsigned((unsigned char)x % 6)});
  }
  corpus::expectEq(r, r.get<unsigned>("out"), want);
}

TEST(IpuCcRegression, SignedDivisionByConstants) {
  const std::vector<int> in = {0, 1, -1, 2, -2, 47, -47, 48, -48, 49, -49, 1000, -1000, 32767, -32768, 65537, -65537,
                               1000000007, -1000000007, 2147483647, -2147483647 - 1, -2147483647, 123456789, -123456789};
  corpus::VertexRun r(kReview, "rev::SDivByConstant");
  r.set("a", corpus::buf(in)).set("out", corpus::out(uint32_t(8 * in.size()), 4));
  if (!r.run()) return;
  std::vector<int> want;
  for (int x : in)
    want.insert(want.end(), {x / 3, x % 7, x / 48, x / 1000000007, x % 65537, x / 8, x % 16, int(short(x) / short(10))});
  corpus::expectEq(r, r.get<int>("out"), want);
}

TEST(IpuCcRegression, FreezeKeepsBothWordsOfI64) {
  corpus::VertexRun r(kReview, "rev::DivRem64");
  r.set("a", corpus::buf(std::vector<unsigned>{7, 5, 3, 0})).set("out", corpus::out(4, 4));
  if (!r.run()) return;
  uint64_t x = 0x500000007ull, q = x / 3, rem = x % 3;
  corpus::expectEq(r, r.get<unsigned>("out"), {unsigned(q), unsigned(q >> 32), unsigned(rem), unsigned(rem >> 32)});
}

TEST(IpuCcRegression, Rotate64) {
  std::vector<uint64_t> in = {0, 1, 0x8000000000000001ull, 0x0123456789abcdefull, ~0ull};
  corpus::VertexRun r(kReview, "rev::Rotate64");
  r.set("in", corpus::buf(in)).set("out", corpus::out(uint32_t(3 * in.size()), 8));
  if (!r.run()) return;
  std::vector<uint64_t> want;
  for (uint64_t x : in) want.push_back((x << 13) | (x >> 51)), want.push_back((x >> 40) | (x << 24)),
                                     want.push_back((x << 32) | (x >> 32));
  corpus::expectEq(r, r.get<uint64_t>("out"), want);
}

TEST(IpuCcRegression, UnalignedIntegerVectorsAsmBarrierRoundAndSin) {
  // in[0..2] bytes for the unaligned copies; in[3] two halves {NaN, 1.0}; in[4] = 2.5f; in[5] = 10.
  std::vector<unsigned> in = {0x44332211u, 0x88776655u, 0xccbbaa99u, 0x3c007e00u, 0x40200000u, 10};
  corpus::VertexRun r(kReview, "rev::Misc");
  r.set("in", corpus::buf(in)).set("out", corpus::out(9, 4));
  if (!r.run()) return;
  std::vector<unsigned> got = r.get<unsigned>("out");
  ASSERT_EQ(got.size(), 9u);
  EXPECT_EQ(got[0], 0x55443322u);                       // bytes 1..4 of in
  EXPECT_EQ(got[1] >> 16, 0xaa99u);                     // bytes 6, 7 of out: in[2]'s low half
  EXPECT_EQ(got[2] & 0xFFFFu, 0xccbbu);                 // bytes 8, 9: its high half
  EXPECT_EQ(got[3], 0xFFFFFFFFu);                       // isnan(NaN): all ones, sign-extended
  EXPECT_EQ(got[4], 0u);                                // isnan(1.0)
  EXPECT_EQ(got[5], 0x40400000u);                       // round(2.5) = 3 (halfway away from zero)
  EXPECT_EQ(got[6], 0xc0400000u);                       // round(-2.5) = -3
  EXPECT_EQ(got[7], 4u);                                // log10(10000) + 0.25 = 4.25 (within 2 ulp)
  EXPECT_EQ(got[8], unsigned(100.0f * std::sin(2.5f) + 1000.0f)); // 1059: sin within a few ulp
}

TEST(IpuCcRegression, SpillsWhenManyPairsAreLive) {
  std::vector<float> in;
  for (int i = 0; i < 18; ++i) in.push_back(0.125f * float(i) - 1.0f);
  // The host's result of the same loop nest (each f32 operation rounded once, in order).
  float v[9][2], s[2] = {0, 0};
  for (int i = 0; i < 9; ++i) v[i][0] = in[2 * size_t(i)], v[i][1] = in[2 * size_t(i) + 1];
  for (int r = 0; r < 5; ++r)
    for (int i = 0; i < 9; ++i)
      for (int k = 0; k < 2; ++k) {
        s[k] = s[k] * 0.5f + v[i][k] * v[(i + r) % 9][k];
        v[i][k] = v[i][k] + s[k];
      }
  std::vector<float> want;
  for (int i = 0; i < 9; ++i) want.push_back(v[i][0]), want.push_back(v[i][1]);
  want.push_back(s[0]), want.push_back(s[1]);
  std::vector<uint64_t> packed(9);
  std::memcpy(packed.data(), in.data(), 72);
  corpus::VertexRun r(kReview, "rev::ManyPairs");
  r.set("in", corpus::buf(packed)).set("out", corpus::out(10, 8));
  if (!r.run()) return;
  std::vector<uint64_t> got = r.get<uint64_t>("out");
  std::vector<float> gotF(got.size() * 2);
  std::memcpy(gotF.data(), got.data(), gotF.size() * 4);
  corpus::expectF32(r, gotF, want);
}

TEST(IpuCcRegression, TiedMultiInstructionInlineAsm) {
  std::vector<unsigned> in = {1, 2, 3, 100, 0xFFFFFFFFu};
  corpus::VertexRun r(kReview, "rev::TiedAsm");
  r.set("in", corpus::buf(in)).set("out", corpus::out(uint32_t(in.size()), 4));
  if (!r.run()) return;
  corpus::expectEq(r, r.get<unsigned>("out"), {4u, 5u, 6u, 103u, 2u});
}

TEST(IpuCcRegression, OddWidthIntegersOfClosedForms) {
  for (unsigned n : {0u, 1u, 70000u, 100000u, 131071u, 131072u}) {
    unsigned u = 0, q2 = 0; // the host's wrapping sums
    for (unsigned q = 0; q < n; ++q) u += q, q2 += q * q;
    corpus::VertexRun r(kReview, "rev::ClosedFormSums");
    r.set("in", corpus::buf(std::vector<unsigned>{n})).set("out", corpus::out(2, 4));
    if (!r.run()) return;
    corpus::expectEq(r, r.get<unsigned>("out"), {u, q2});
  }
}

TEST(IpuCcRegression, SupervisorDividesByConstants) {
  corpus::VertexRun r(kReview, "rev::SupervisorDivide");
  r.set("in", corpus::buf(std::vector<unsigned>{1000003, 12345})).set("out", corpus::out(2, 4));
  if (!r.run()) return;
  corpus::expectEq(r, r.get<unsigned>("out"), {1000003u % 12, 12345u / 10});
}

} // namespace

// A C++ function of another codelet file: the call links, and ipu-ld writes the entry's
// stack_usage as the sum of the frames along the chain (the entry, compute() inlined into it, and
// weighted), each recorded by ipu-cc as NAME.stack_size_own.
TEST(IpuCc, CallsIntoAnotherCodeletFileLinkWithTheirStack) {
  cc::CompileResult caller = cc::compileCodelet(input("cross_caller.cpp"));
  cc::CompileResult callee = cc::compileCodelet(input("cross_callee.cpp"));
  auto value = [](const cc::ObjectFile &o, const std::string &name) -> int64_t {
    int s = o.findSymbol(name);
    return s < 0 || o.symbols[size_t(s)].section != cc::kAbsoluteSection ? int64_t(-1) : int64_t(o.symbols[size_t(s)].value);
  };
  const std::string entry = "__runCodelet_CrossCaller", fn = "_ZN5xfile8weightedEPKij";
  EXPECT_EQ(value(caller.object, entry + ".stack_usage"), -1) << "the chain leaves the file: ipu-ld adds it up";
  const int64_t own = value(caller.object, entry + ".stack_size_own"),
                weighted = value(callee.object, fn + ".stack_size_own");
  EXPECT_EQ(value(caller.object, "_ZN11CrossCaller7computeEv.stack_size_own"), -1) << "compute() is inlined";
  ASSERT_GE(own, 0);
  ASSERT_GE(weighted, 32) << "8 ints on its stack";
  const arch::SystemConfig cfg = arch::loadNamedConfig("mk2");
  cc::ObjectFile image = cc::link({{"caller.o", caller.object}, {"callee.o", callee.object}}, cfg.tile, {"", {entry}});
  EXPECT_EQ(value(image, entry + ".stack_usage"), own + weighted);

  constexpr uint32_t kState = 0x70000, kIn = 0x60000, kOut = 0x64000;
  auto r = corpus::runBoth({{"caller.o", caller.object}, {"callee.o", callee.object}}, entry, test::Mode::Worker, kState,
                           [](sim::Tile &tile) {
                             test::putWords(tile, kState, {kIn, 10, kOut});
                             test::putWords(tile, kIn, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
                           });
  // 1*1 + 2*2 + ... + 8*8 = 204, then buf wraps: 1*9 + 2*10 = 29; plus 1.
  EXPECT_EQ(r.tile->memory().read<uint32_t>(kOut), 234u);

  // Without the callee the call is undefined; with a callee that records no stack use the
  // stack cannot be sized.
  try {
    cc::link({{"caller.o", caller.object}}, cfg.tile, {"", {entry}});
    ADD_FAILURE() << "linked without the callee";
  } catch (const cc::LinkError &e) {
    EXPECT_NE(std::string(e.what()).find("undefined symbol '" + fn + "'"), std::string::npos) << e.what();
  }
  try {
    cc::link({{"caller.o", caller.object}, {"norecord.o", cc::assembleFile(input("cross_callee_norecord.S"), {})}},
             cfg.tile, {"", {entry}});
    ADD_FAILURE() << "linked a callee without stack records";
  } catch (const cc::LinkError &e) {
    EXPECT_NE(std::string(e.what()).find("it calls '" + fn + "', which records no stack use"), std::string::npos)
        << e.what();
  }
}

TEST(IpuCc, TheSameTemplateInTwoObjectsLinks) {
  cc::CompileResult a = cc::compileCodelet(input("shared_template_a.cpp"));
  cc::CompileResult b = cc::compileCodelet(input("shared_template_b.cpp"));
  for (const cc::ObjectFile *o : {&a.object, &b.object})
    for (const char *name : {"_Z5twiceIiET_S0_", "_Z5twiceIiET_S0_.stack_size_own"}) {
      int s = o->findSymbol(name);
      ASSERT_GE(s, 0) << name;
      EXPECT_EQ(o->symbols[size_t(s)].binding, cc::SymbolBinding::Weak) << name;
    }
  const arch::SystemConfig cfg = arch::loadNamedConfig("mk2");
  EXPECT_NO_THROW(cc::link({{"a.o", a.object}, {"b.o", b.object}}, cfg.tile, {}));
}
