// The ipu-cc codelet corpus: every vertex of tests/cc/corpus/*.cpp is compiled with
// compileCodelet, its state laid out from the VertexLayout the compiler reports, run on the tile
// ISS (Vertex: one worker; MultiVertex: all six with runall; SupervisorVertex: called on the
// supervisor) and its outputs compared with an independent host reference.
//
// Exactness: add, sub, mul, div and sqrt of f32 are checked bit for bit; f16 results against the
// exact result rounded once to binary16 (arch::doubleToHalf; a double-computed +,-,*,/,sqrt of
// halves is exact or rounded innocuously, 53 >= 2 x 11 + 2). C++ allows a*b+c to be contracted to
// a fused multiply-add (-ffp-contract=on, clang's default), so where a codelet has that shape both
// results are accepted (expectF32OneOf). Sums are checked bit for bit where the data makes every
// partial sum exact (then the order does not matter); otherwise the bound is stated at the test.
// Transcendentals (exp, tanh) get an ulp bound stated at the test.
#include "CorpusHarness.h"

#include <fstream>
#include <limits>
#include <random>
#include <regex>

using namespace ipusim;
using namespace ipusim::corpus;

namespace {

constexpr float kEps = std::numeric_limits<float>::epsilon();

/// Grid values lo + k * step (k integral), exactly representable: data whose sums stay exact.
std::vector<float> grid(Rng &rng, size_t n, int lo, int hi, float step) {
  std::vector<float> v(n);
  for (auto &x : v) x = float(lo + int(rng.next() % uint32_t(hi - lo + 1))) * step;
  return v;
}

float fmaf32(float a, float b, float c) { return std::fma(a, b, c); }

// ---------------------------------------------------------------------------------------------
// unary.cpp

void unaryF32(const std::string &cls, const std::vector<float> &in, float (*ref)(float), uint64_t ulp = 0) {
  VertexRun r("unary.cpp", cls);
  r.set("in", buf(in)).set("out", out(uint32_t(in.size()), 4));
  if (!r.run()) return;
  std::vector<float> want;
  for (float x : in) want.push_back(ref(x));
  expectF32(r, r.get<float>("out"), want, ulp);
}

void unaryHalf(const std::string &cls, const std::vector<float> &inF, double (*ref)(double)) {
  std::vector<uint16_t> in = toHalves(inF);
  VertexRun r("unary.cpp", cls);
  r.set("in", buf(in)).set("out", out(uint32_t(in.size()), 2));
  if (!r.run()) return;
  std::vector<uint16_t> want;
  for (uint16_t h : in) want.push_back(f2h(ref(h2f(h))));
  expectHalf(r, r.get<uint16_t>("out"), want);
}

std::vector<float> signedInputs(uint32_t seed, size_t n, float range) {
  Rng rng(seed);
  auto v = rng.floats(n, -range, range);
  v[0] = 0.0f;
  if (n > 1) v[1] = -0.0f;
  return v;
}

// The dot product in double: exact for the grid data the exact-data tests use.
double exactDot(const std::vector<float> &a, const std::vector<float> &b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += double(a[i]) * b[i];
  return s;
}

TEST(CorpusUnary, NegF32) { unaryF32("corpus::Neg<float>", signedInputs(1, 21, 100), [](float x) { return -x; }); }
TEST(CorpusUnary, NegHalf) {
  unaryHalf("corpus::Neg<half>", signedInputs(2, 19, 100), [](double x) { return -x; });
}
TEST(CorpusUnary, AbsF32) {
  unaryF32("corpus::Abs<float>", signedInputs(3, 17, 50), [](float x) { return std::fabs(x); });
}
TEST(CorpusUnary, AbsHalf) {
  unaryHalf("corpus::Abs<half>", signedInputs(4, 18, 50), [](double x) { return std::fabs(x); });
}
TEST(CorpusUnary, ReluF32) {
  // x > 0 ? x : 0: -0 gives +0.
  unaryF32("corpus::Relu<float>", signedInputs(5, 23, 10), [](float x) { return x > 0.0f ? x : 0.0f; });
}
TEST(CorpusUnary, ReluHalf) {
  unaryHalf("corpus::Relu<half>", signedInputs(6, 22, 10), [](double x) { return x > 0.0 ? x : 0.0; });
}
TEST(CorpusUnary, SquareF32) {
  unaryF32("corpus::Square<float>", signedInputs(7, 25, 1000), [](float x) { return x * x; });
}
TEST(CorpusUnary, SquareHalf) {
  // Products up to 64^2: no overflow in binary16; small ones round to subnormals.
  auto in = signedInputs(8, 26, 64);
  in[2] = 0.003f;
  unaryHalf("corpus::Square<half>", in, [](double x) { return x * x; });
}
TEST(CorpusUnary, SqrtF32) {
  Rng rng(9);
  auto in = rng.floats(27, 0.0f, 1000.0f);
  in[0] = 0.0f;
  in[1] = 2.0f;
  in[2] = 1e-30f;
  unaryF32("corpus::SqrtF32", in, [](float x) { return std::sqrt(x); });
}
TEST(CorpusUnary, SqrtHalf) {
  Rng rng(10);
  auto in = rng.floats(20, 0.0f, 300.0f);
  in[0] = 0.0f;
  in[1] = 2.0f;
  unaryHalf("corpus::SqrtHalf", in, [](double x) { return std::sqrt(x); });
}
TEST(CorpusUnary, ExpF32) {
  // Bound: 4 ulp of the correctly rounded result (expf is not correctly rounded on any common
  // implementation; glibc's is < 1 ulp, a short polynomial on the tile a few).
  unaryF32("corpus::ExpF32", signedInputs(11, 29, 20), [](float x) { return float(std::exp(double(x))); }, 4);
}
TEST(CorpusUnary, SigmoidF32) {
  // 1 / (1 + exp(-x)): exp within 4 ulp, then one add and one divide (each correctly rounded)
  // scale that error by at most 1 (the derivative of 1/(1+e) in e is below 1 relative): 6 ulp.
  unaryF32("corpus::SigmoidF32", signedInputs(12, 31, 12),
           [](float x) { return float(1.0 / (1.0 + std::exp(-double(x)))); }, 6);
}
TEST(CorpusUnary, TanhF32) {
  // Bound: 6 ulp of the correctly rounded result, inputs in [-5, 5] (away from the underflow of
  // tiny arguments, which a formula via exp would lose).
  auto in = signedInputs(13, 33, 5);
  in[0] = 0.5f;
  in[1] = -0.25f;
  unaryF32("corpus::TanhF32", in, [](float x) { return float(std::tanh(double(x))); }, 6);
}

// ---------------------------------------------------------------------------------------------
// binary.cpp

enum class Op { Add, Sub, Mul, Div, Max, Min, SqDiff };

double refOp(Op op, double a, double b) {
  switch (op) {
  case Op::Add: return a + b;
  case Op::Sub: return a - b;
  case Op::Mul: return a * b;
  case Op::Div: return a / b;
  case Op::Max: return a > b ? a : b;
  case Op::Min: return a < b ? a : b;
  case Op::SqDiff: return (a - b) * (a - b);
  }
  return 0;
}
float refOpF32(Op op, float a, float b) {
  switch (op) {
  case Op::Add: return a + b;
  case Op::Sub: return a - b;
  case Op::Mul: return a * b;
  case Op::Div: return a / b;
  case Op::Max: return a > b ? a : b;
  case Op::Min: return a < b ? a : b;
  case Op::SqDiff: {
    float d = a - b;
    return d * d;
  }
  }
  return 0;
}

/// Operands: b stays away from zero (for the divisions); a few equal pairs for max/min.
std::pair<std::vector<float>, std::vector<float>> operands(uint32_t seed, size_t n, float range) {
  Rng rng(seed);
  auto a = rng.floats(n, -range, range), b = rng.floats(n, 0.25f, range);
  for (size_t i = 0; i < n; ++i)
    if (rng.next() & 1) b[i] = -b[i];
  a[3] = b[3]; // equal operands (b is never zero)
  return {a, b};
}

void binaryF32(const std::string &sym, Op op, uint32_t seed) {
  auto [a, b] = operands(seed, 29, 1000.0f);
  VertexRun r("binary.cpp", sym);
  r.set("in1", buf(a)).set("in2", buf(b)).set("out", out(29, 4));
  if (!r.run()) return;
  std::vector<float> want;
  for (size_t i = 0; i < a.size(); ++i) want.push_back(refOpF32(op, a[i], b[i]));
  expectF32(r, r.get<float>("out"), want);
}

void binaryHalf(const std::string &sym, Op op, uint32_t seed) {
  auto [af, bf] = operands(seed, 27, 60.0f);
  auto a = toHalves(af), b = toHalves(bf);
  VertexRun r("binary.cpp", sym);
  r.set("in1", buf(a)).set("in2", buf(b)).set("out", out(27, 2));
  if (!r.run()) return;
  std::vector<uint16_t> want;
  for (size_t i = 0; i < a.size(); ++i) want.push_back(f2h(refOp(op, h2f(a[i]), h2f(b[i]))));
  expectHalf(r, r.get<uint16_t>("out"), want);
}

const std::string kBin = "__runCodelet_corpus__Binary___corpus__BinOp__";

TEST(CorpusBinary, AddF32) { binaryF32(kBin + "ADD_float", Op::Add, 20); }
TEST(CorpusBinary, SubF32) { binaryF32(kBin + "SUBTRACT_float", Op::Sub, 21); }
TEST(CorpusBinary, MulF32) { binaryF32(kBin + "MULTIPLY_float", Op::Mul, 22); }
TEST(CorpusBinary, DivF32) { binaryF32(kBin + "DIVIDE_float", Op::Div, 23); }
TEST(CorpusBinary, MaxF32) { binaryF32(kBin + "MAXIMUM_float", Op::Max, 24); }
TEST(CorpusBinary, MinF32) { binaryF32(kBin + "MINIMUM_float", Op::Min, 25); }
TEST(CorpusBinary, SquaredDiffF32) { binaryF32(kBin + "SQUARED___DIFF_float", Op::SqDiff, 26); }
TEST(CorpusBinary, AddHalf) { binaryHalf(kBin + "ADD_half", Op::Add, 27); }
TEST(CorpusBinary, SubHalf) { binaryHalf(kBin + "SUBTRACT_half", Op::Sub, 28); }
TEST(CorpusBinary, MulHalf) { binaryHalf(kBin + "MULTIPLY_half", Op::Mul, 29); }
TEST(CorpusBinary, DivHalf) { binaryHalf(kBin + "DIVIDE_half", Op::Div, 30); }
TEST(CorpusBinary, MaxHalf) { binaryHalf(kBin + "MAXIMUM_half", Op::Max, 31); }
TEST(CorpusBinary, MinHalf) { binaryHalf(kBin + "MINIMUM_half", Op::Min, 32); }

TEST(CorpusBinary, BroadcastScalarAddF32) {
  Rng rng(33);
  auto d = rng.floats(19, -10, 10);
  float b = 0.3f;
  VertexRun r("binary.cpp", "__runCodelet_corpus__BroadcastScalar___corpus__BinOp__ADD_float");
  r.set("data", buf(d)).value("B", b).set("out", out(19, 4));
  if (!r.run()) return;
  std::vector<float> want;
  for (float x : d) want.push_back(x + b);
  expectF32(r, r.get<float>("out"), want);
}
TEST(CorpusBinary, BroadcastScalarSubF32) {
  Rng rng(34);
  auto d = rng.floats(18, -10, 10);
  float b = -7.125f;
  VertexRun r("binary.cpp", "__runCodelet_corpus__BroadcastScalar___corpus__BinOp__SUBTRACT_float");
  r.set("data", buf(d)).value("B", b).set("out", out(18, 4));
  if (!r.run()) return;
  std::vector<float> want;
  for (float x : d) want.push_back(x - b);
  expectF32(r, r.get<float>("out"), want);
}
TEST(CorpusBinary, BroadcastScalarMulHalf) {
  Rng rng(35);
  auto d = toHalves(rng.floats(21, -30, 30));
  uint16_t b = f2h(-1.7);
  VertexRun r("binary.cpp", "__runCodelet_corpus__BroadcastScalar___corpus__BinOp__MULTIPLY_half");
  r.set("data", buf(d)).value("B", b).set("out", out(21, 2));
  if (!r.run()) return;
  std::vector<uint16_t> want;
  for (uint16_t x : d) want.push_back(f2h(double(h2f(x)) * h2f(b)));
  expectHalf(r, r.get<uint16_t>("out"), want);
}

// ---------------------------------------------------------------------------------------------
// vectorised.cpp

TEST(CorpusVectorised, AddFloat2OddLength) {
  Rng rng(40);
  auto a = rng.floats(13, -100, 100), b = rng.floats(13, -100, 100);
  VertexRun r("vectorised.cpp", "corpus::AddFloat2");
  r.set("a", buf(a)).set("b", buf(b)).set("out", out(13, 4));
  if (!r.run()) return;
  std::vector<float> want;
  for (size_t i = 0; i < a.size(); ++i) want.push_back(a[i] + b[i]);
  expectF32(r, r.get<float>("out"), want);
}
TEST(CorpusVectorised, MulHalf4WithTail) {
  Rng rng(41);
  auto a = toHalves(rng.floats(15, -20, 20)), b = toHalves(rng.floats(15, -20, 20));
  VertexRun r("vectorised.cpp", "corpus::MulHalf4");
  r.set("a", buf(a)).set("b", buf(b)).set("out", out(15, 2));
  if (!r.run()) return;
  std::vector<uint16_t> want;
  for (size_t i = 0; i < a.size(); ++i) want.push_back(f2h(double(h2f(a[i])) * h2f(b[i])));
  expectHalf(r, r.get<uint16_t>("out"), want);
}
TEST(CorpusVectorised, ScaleHalf4InlineScale) {
  Rng rng(42);
  auto in = toHalves(rng.floats(18, -50, 50));
  uint16_t s = f2h(0.7);
  VertexRun r("vectorised.cpp", "corpus::ScaleHalf4");
  r.set("in", buf(in)).set("out", out(18, 2)).value("scale", s);
  if (!r.run()) return;
  std::vector<uint16_t> want;
  for (uint16_t x : in) want.push_back(f2h(double(h2f(x)) * h2f(s)));
  expectHalf(r, r.get<uint16_t>("out"), want);
}
TEST(CorpusVectorised, AxpyFloat2InPlace) {
  // a * x + y: with or without a fused multiply-add (one of the two, per element).
  Rng rng(43);
  auto x = rng.floats(11, -10, 10), y = rng.floats(11, -10, 10);
  float a = 1.3f;
  VertexRun r("vectorised.cpp", "corpus::AxpyFloat2");
  r.set("x", buf(x)).set("y", buf(y)).value("a", a);
  if (!r.run()) return;
  std::vector<float> unfused, fused;
  for (size_t i = 0; i < x.size(); ++i) {
    unfused.push_back(a * x[i] + y[i]);
    fused.push_back(fmaf32(a, x[i], y[i]));
  }
  expectF32OneOf(r, r.get<float>("y"), {unfused, fused});
}
TEST(CorpusVectorised, AbsHalf4) {
  auto in = toHalves(signedInputs(44, 14, 100));
  VertexRun r("vectorised.cpp", "corpus::AbsHalf4");
  r.set("in", buf(in)).set("out", out(14, 2));
  if (!r.run()) return;
  std::vector<uint16_t> want;
  for (uint16_t h : in) want.push_back(h & 0x7FFF);
  expectHalf(r, r.get<uint16_t>("out"), want);
}
TEST(CorpusVectorised, SqrtFloat2) {
  Rng rng(45);
  auto in = rng.floats(9, 0, 5000);
  VertexRun r("vectorised.cpp", "corpus::SqrtFloat2");
  r.set("in", buf(in)).set("out", out(9, 4));
  if (!r.run()) return;
  std::vector<float> want;
  for (float x : in) want.push_back(std::sqrt(x));
  expectF32(r, r.get<float>("out"), want);
}

// ---------------------------------------------------------------------------------------------
// casts.cpp

template <class In, class Out> void castTest(const std::string &sym, const std::vector<In> &in,
                                             const std::vector<Out> &want) {
  VertexRun r("casts.cpp", "__runCodelet_corpus__Cast___" + sym);
  r.set("src", buf(in)).set("dst", out(uint32_t(in.size()), sizeof(Out)));
  if (!r.run()) return;
  expectEq(r, r.get<Out>("dst"), want);
}

TEST(CorpusCast, FloatToHalf) {
  // Round to nearest even, once; includes a tie, a subnormal half and the largest finite half.
  std::vector<float> in = {0.0f, -0.0f, 1.0f, -2.5f, 0.1f, 3.14159265f, 65504.0f, -1000.3f, 1.0009765625f * 1.00048828125f,
                           1.00048828125f /* tie: 1 + 2^-11 -> 1 */, 3.0e-5f, -6.0e-6f, 12345.678f};
  std::vector<uint16_t> want;
  for (float f : in) want.push_back(f2h(f));
  castTest<float, uint16_t>("float_half", in, want);
}
TEST(CorpusCast, HalfToFloat) {
  std::vector<uint16_t> in = {0x0000, 0x8000, 0x3C00, 0xC100, 0x7BFF, 0x0001, 0x03FF, 0x3555, 0xFBFF, 0x2E66};
  std::vector<float> want;
  for (uint16_t h : in) want.push_back(h2f(h));
  castTest<uint16_t, float>("half_float", in, want);
}
TEST(CorpusCast, IntToFloat) {
  std::vector<int> in = {0, 1, -1, 16777217, -16777219, 2147483647, -2147483647 - 1, 123456789, -7};
  std::vector<float> want;
  for (int i : in) want.push_back(float(i));
  castTest<int, float>("int_float", in, want);
}
TEST(CorpusCast, FloatToIntTruncates) {
  std::vector<float> in = {0.0f, 0.99f, -0.99f, 1.5f, -1.5f, 2.5f, 123456.7f, -987654.3f, 2147483520.0f, -2147483648.0f};
  std::vector<int> want;
  for (float f : in) want.push_back(int(f));
  castTest<float, int>("float_int", in, want);
}
TEST(CorpusCast, UnsignedToFloatRoundsAbove2To24) {
  std::vector<unsigned> in = {0u, 1u, 16777217u, 0x80000000u, 0x80000081u, 0xFFFFFF7Fu, 0xFFFFFF80u, 0xFFFFFFFFu, 3000000000u};
  std::vector<float> want;
  for (unsigned u : in) want.push_back(float(u));
  castTest<unsigned, float>("unsigned_int_float", in, want);
}
TEST(CorpusCast, UnsignedCharToFloat) {
  std::vector<uint8_t> in;
  for (int i = 0; i < 21; ++i) in.push_back(uint8_t(i * 13 + 1));
  in.push_back(255);
  std::vector<float> want;
  for (uint8_t b : in) want.push_back(float(b));
  castTest<uint8_t, float>("unsigned_char_float", in, want);
}
TEST(CorpusCast, ShortToFloat) {
  std::vector<int16_t> in = {0, 1, -1, 32767, -32768, 1234, -4321, 255, -256};
  std::vector<float> want;
  for (int16_t s : in) want.push_back(float(s));
  castTest<int16_t, float>("short_float", in, want);
}
TEST(CorpusCast, FloatToUnsignedShort) {
  std::vector<float> in = {0.0f, 0.5f, 1.99f, 255.5f, 256.0f, 40000.9f, 65535.0f, 32768.25f};
  std::vector<uint16_t> want;
  for (float f : in) want.push_back(uint16_t(f));
  castTest<float, uint16_t>("float_unsigned_short", in, want);
}
TEST(CorpusCast, SignedCharToIntSignExtends) {
  std::vector<int8_t> in = {0, 1, -1, 127, -128, 100, -100, 55, -3, 17, -77};
  std::vector<int> want(in.begin(), in.end());
  castTest<int8_t, int>("signed_char_int", in, want);
}
TEST(CorpusCast, UnsignedShortToUnsignedZeroExtends) {
  std::vector<uint16_t> in = {0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x1234, 0xABCD};
  std::vector<unsigned> want(in.begin(), in.end());
  castTest<uint16_t, unsigned>("unsigned_short_unsigned_int", in, want);
}

// ---------------------------------------------------------------------------------------------
// reduce.cpp

/// |error| bound of a float sum of xs in any order: (n - 1) eps sum |x| (Higham 4.3, first order;
/// a small margin covers the second-order term).
double sumBound(const std::vector<double> &xs) {
  double s = 0;
  for (double x : xs) s += std::fabs(x);
  return 1.01 * double(xs.size()) * kEps * s;
}

TEST(CorpusReduce, SumF32ExactData) {
  // Multiples of 1/8 below 16 in magnitude: every partial sum is exact, in any order.
  Rng rng(50);
  auto in = grid(rng, 37, -128, 128, 0.125f);
  VertexRun r("reduce.cpp", "corpus::SumF32");
  r.set("in", buf(in)).set("out", out(1, 4));
  if (!r.run()) return;
  double s = 0;
  for (float x : in) s += x;
  expectF32(r, r.get<float>("out"), {float(s)});
}
TEST(CorpusReduce, SumF32RandomData) {
  // In order (no reassociation without -ffast-math) the result is the sequential float sum; any
  // order is within sumBound of the exact sum.
  Rng rng(51);
  auto in = rng.floats(100, -1, 1);
  VertexRun r("reduce.cpp", "corpus::SumF32");
  r.set("in", buf(in)).set("out", out(1, 4));
  if (!r.run()) return;
  double exact = 0;
  std::vector<double> xs;
  for (float x : in) {
    exact += x;
    xs.push_back(x);
  }
  expectNear(r, r.get<float>("out"), {exact}, {sumBound(xs)});
}
TEST(CorpusReduce, SumHalfF32AccExactData) {
  // Halves that are multiples of 1/16 below 8: float partial sums exact.
  Rng rng(52);
  auto inF = grid(rng, 45, -128, 128, 0.0625f);
  auto in = toHalves(inF);
  VertexRun r("reduce.cpp", "corpus::SumHalfF32Acc");
  r.set("in", buf(in)).set("out", out(1, 4));
  if (!r.run()) return;
  double s = 0;
  for (uint16_t h : in) s += h2f(h);
  expectF32(r, r.get<float>("out"), {float(s)});
}
TEST(CorpusReduce, MaxF32) {
  Rng rng(53);
  auto in = rng.floats(33, -1000, 10);
  in[17] = 11.5f;
  VertexRun r("reduce.cpp", "corpus::Max<float>");
  r.set("in", buf(in)).set("out", out(1, 4));
  if (!r.run()) return;
  expectF32(r, r.get<float>("out"), {*std::max_element(in.begin(), in.end())});
}
TEST(CorpusReduce, MaxHalf) {
  Rng rng(54);
  auto in = toHalves(rng.floats(30, -100, -1));
  in[29] = f2h(-0.5);
  VertexRun r("reduce.cpp", "corpus::Max<half>");
  r.set("in", buf(in)).set("out", out(1, 2));
  if (!r.run()) return;
  expectHalf(r, r.get<uint16_t>("out"), {f2h(-0.5)});
}
TEST(CorpusReduce, ArgMaxFirstOfEqual) {
  Rng rng(55);
  auto in = rng.floats(40, -5, 5);
  in[9] = 7.0f;
  in[30] = 7.0f;
  VertexRun r("reduce.cpp", "corpus::ArgMaxF32");
  r.set("in", buf(in)).set("index", out(1, 4));
  if (!r.run()) return;
  expectEq(r, r.get<uint32_t>("index"), {9u});
}
TEST(CorpusReduce, SumSquaresExactData) {
  // Multiples of 1/4 below 4: squares multiples of 1/16 below 16, sums exact (fused or not).
  Rng rng(56);
  auto in = grid(rng, 41, -16, 16, 0.25f);
  VertexRun r("reduce.cpp", "corpus::SumSquaresF32");
  r.set("in", buf(in)).set("out", out(1, 4));
  if (!r.run()) return;
  double s = 0;
  for (float x : in) s += double(x) * x;
  expectF32(r, r.get<float>("out"), {float(s)});
}
TEST(CorpusReduce, DotF32ExactData) {
  Rng rng(57);
  auto a = grid(rng, 35, -32, 32, 0.25f), b = grid(rng, 35, -32, 32, 0.125f);
  VertexRun r("reduce.cpp", "corpus::DotF32");
  r.set("a", buf(a)).set("b", buf(b)).set("out", out(1, 4));
  if (!r.run()) return;
  expectF32(r, r.get<float>("out"), {float(exactDot(a, b))});
}
TEST(CorpusReduce, DotF32RandomData) {
  // Any order, fused or not: within (n + 1) eps sum |a b| of the exact dot product.
  Rng rng(58);
  auto a = rng.floats(64, -1, 1), b = rng.floats(64, -1, 1);
  VertexRun r("reduce.cpp", "corpus::DotF32");
  r.set("a", buf(a)).set("b", buf(b)).set("out", out(1, 4));
  if (!r.run()) return;
  double s = 0;
  std::vector<double> prods;
  for (size_t i = 0; i < a.size(); ++i) {
    s += double(a[i]) * b[i];
    prods.push_back(double(a[i]) * b[i]);
  }
  expectNear(r, r.get<float>("out"), {s}, {sumBound(prods) + 2 * kEps * std::fabs(s)});
}
TEST(CorpusReduce, DotHalfF32AccExactData) {
  Rng rng(59);
  auto a = toHalves(grid(rng, 28, -32, 32, 0.125f)), b = toHalves(grid(rng, 28, -32, 32, 0.125f));
  VertexRun r("reduce.cpp", "corpus::DotHalfF32Acc");
  r.set("a", buf(a)).set("b", buf(b)).set("out", out(1, 4));
  if (!r.run()) return;
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += double(h2f(a[i])) * h2f(b[i]);
  expectF32(r, r.get<float>("out"), {float(s)});
}

// ---------------------------------------------------------------------------------------------
// matmul.cpp

std::vector<double> matmulRef(const std::vector<float> &a, const std::vector<float> &b, unsigned M, unsigned K,
                              unsigned N) {
  std::vector<double> c(M * N, 0.0);
  for (unsigned i = 0; i < M; ++i)
    for (unsigned j = 0; j < N; ++j)
      for (unsigned k = 0; k < K; ++k) c[i * N + j] += double(a[i * K + k]) * b[k * N + j];
  return c;
}

TEST(CorpusMatMul, MatMul4x8By8x3ExactData) {
  Rng rng(60);
  auto a = grid(rng, 32, -20, 20, 0.5f), b = grid(rng, 24, -20, 20, 0.25f);
  VertexRun r("matmul.cpp", "corpus::MatMul");
  r.set("a", buf(a)).set("b", buf(b)).set("c", out(12, 4)).value("M", 4u).value("K", 8u).value("N", 3u);
  if (!r.run()) return;
  std::vector<float> want;
  for (double x : matmulRef(a, b, 4, 8, 3)) want.push_back(float(x));
  expectF32(r, r.get<float>("c"), want);
}
TEST(CorpusMatMul, MatMul3x5By5x6RandomData) {
  // Each output: within (K + 1) eps sum_k |a b| (any accumulation order, fused or not).
  Rng rng(61);
  auto a = rng.floats(15, -2, 2), b = rng.floats(30, -2, 2);
  VertexRun r("matmul.cpp", "corpus::MatMul");
  r.set("a", buf(a)).set("b", buf(b)).set("c", out(18, 4)).value("M", 3u).value("K", 5u).value("N", 6u);
  if (!r.run()) return;
  auto want = matmulRef(a, b, 3, 5, 6);
  std::vector<double> tol;
  for (unsigned i = 0; i < 3; ++i)
    for (unsigned j = 0; j < 6; ++j) {
      double s = 0;
      for (unsigned k = 0; k < 5; ++k) s += std::fabs(double(a[i * 5 + k]) * b[k * 6 + j]);
      tol.push_back(6 * kEps * s);
    }
  expectNear(r, r.get<float>("c"), want, tol);
}
TEST(CorpusMatMul, MatMulRowsVectorOfVectors) {
  Rng rng(62);
  const unsigned M = 3, K = 5, N = 4;
  auto a = grid(rng, M * K, -16, 16, 0.5f), b = grid(rng, K * N, -16, 16, 0.25f);
  std::vector<Data> aRows, cRows;
  for (unsigned i = 0; i < M; ++i) {
    aRows.push_back(buf(std::vector<float>(a.begin() + i * K, a.begin() + (i + 1) * K)));
    cRows.push_back(out(N, 4));
  }
  VertexRun r("matmul.cpp", "corpus::MatMulRows");
  r.set2d("aRows", aRows).set("b", buf(b)).set2d("cRows", cRows);
  if (!r.run()) return;
  auto want = matmulRef(a, b, M, K, N);
  for (unsigned i = 0; i < M; ++i) {
    std::vector<float> row;
    for (unsigned j = 0; j < N; ++j) row.push_back(float(want[i * N + j]));
    expectF32(r, r.get<float>("cRows", i), row);
  }
}
TEST(CorpusMatMul, TransposeF32) {
  const unsigned R = 5, C = 7;
  std::vector<float> in(R * C);
  for (unsigned i = 0; i < R * C; ++i) in[i] = float(i) + 0.5f;
  VertexRun r("matmul.cpp", "corpus::Transpose<float>");
  r.set("in", buf(in)).set("out", out(R * C, 4)).value<uint16_t>("rows", R).value<uint16_t>("cols", C);
  if (!r.run()) return;
  std::vector<float> want(R * C);
  for (unsigned i = 0; i < R; ++i)
    for (unsigned j = 0; j < C; ++j) want[j * R + i] = in[i * C + j];
  expectF32(r, r.get<float>("out"), want);
}
TEST(CorpusMatMul, TransposeHalf) {
  const unsigned R = 3, C = 9;
  std::vector<uint16_t> in(R * C);
  for (unsigned i = 0; i < R * C; ++i) in[i] = f2h(double(i) * 0.25 - 3);
  VertexRun r("matmul.cpp", "corpus::Transpose<half>");
  r.set("in", buf(in)).set("out", out(R * C, 2)).value<uint16_t>("rows", R).value<uint16_t>("cols", C);
  if (!r.run()) return;
  std::vector<uint16_t> want(R * C);
  for (unsigned i = 0; i < R; ++i)
    for (unsigned j = 0; j < C; ++j) want[j * R + i] = in[i * C + j];
  expectHalf(r, r.get<uint16_t>("out"), want);
}

// ---------------------------------------------------------------------------------------------
// softmax.cpp

TEST(CorpusSoftmax, Max) {
  Rng rng(70);
  auto in = rng.floats(26, -8, 8);
  VertexRun r("softmax.cpp", "corpus::SoftmaxMax");
  r.set("in", buf(in)).set("max", out(1, 4));
  if (!r.run()) return;
  expectF32(r, r.get<float>("max"), {*std::max_element(in.begin(), in.end())});
}
TEST(CorpusSoftmax, ExpSum) {
  // exp within 4 ulp (as ExpF32); the sum of n positive terms each within 4 ulp, in any order:
  // within (4 + n) eps sum.
  Rng rng(71);
  auto in = rng.floats(24, -8, 8);
  float m = *std::max_element(in.begin(), in.end());
  VertexRun r("softmax.cpp", "corpus::SoftmaxExpSum");
  r.set("in", buf(in)).value("max", m).set("out", out(24, 4)).set("sum", out(1, 4));
  if (!r.run()) return;
  std::vector<float> e;
  double s = 0;
  for (float x : in) {
    // x - m is exact: both lie on a 2^-12 grid below 8 in magnitude.
    double v = std::exp(double(x - m));
    e.push_back(float(v));
    s += v;
  }
  expectF32(r, r.get<float>("out"), e, 4);
  expectNear(r, r.get<float>("sum"), {s}, {(4.0 + 24) * kEps * s});
}
TEST(CorpusSoftmax, Normalise) {
  Rng rng(72);
  auto x = rng.floats(23, 0.01f, 1);
  float s = 7.3f;
  VertexRun r("softmax.cpp", "corpus::SoftmaxNormalise");
  r.set("x", buf(x)).value("sum", s);
  if (!r.run()) return;
  std::vector<float> want;
  for (float v : x) want.push_back(v / s);
  expectF32(r, r.get<float>("x"), want);
}
TEST(CorpusSoftmax, WholeSoftmaxHalf) {
  // Float arithmetic errors (a few ulp of float) are far below half's precision: the result is
  // the correctly rounded softmax or, near a rounding boundary, 1 ulp of half from it.
  Rng rng(73);
  auto x = toHalves(rng.floats(17, -6, 6));
  VertexRun r("softmax.cpp", "corpus::SoftmaxHalf");
  r.set("x", buf(x));
  if (!r.run()) return;
  double m = -1e9, s = 0;
  for (uint16_t h : x) m = std::max(m, double(h2f(h)));
  for (uint16_t h : x) s += std::exp(h2f(h) - m);
  std::vector<uint16_t> want;
  for (uint16_t h : x) want.push_back(f2h(std::exp(h2f(h) - m) / s));
  expectHalf(r, r.get<uint16_t>("x"), want, 1);
}

// ---------------------------------------------------------------------------------------------
// layernorm.cpp

TEST(CorpusLayerNorm, Stats) {
  // mean: the in-order float sum (exact here: a 1/64 grid below 4) divided by n, bit exact.
  // invStd, against the double-computed value: d = x - mu rounds (0.5 ulp), d * d (1.5 ulp with
  // it), the in-order sum of 48 positive terms ((n - 1) eps = 47 ulp at worst), fused or not;
  // sqrt halves the relative error, then sqrt and the division round once each: 28 ulp.
  Rng rng(80);
  auto in = grid(rng, 48, -256, 256, 1.0f / 64);
  const float eps = 1e-5f;
  VertexRun r("layernorm.cpp", "corpus::LayerNormStats");
  r.set("in", buf(in)).set("mean", out(1, 4)).set("invStd", out(1, 4)).value("eps", eps);
  if (!r.run()) return;
  double s = 0;
  for (float x : in) s += x;
  float mu = float(s) / 48.0f;
  double v = 0;
  for (float x : in) v += (double(x) - mu) * (double(x) - mu);
  expectF32(r, r.get<float>("mean"), {mu});
  expectF32(r, r.get<float>("invStd"), {float(1.0 / std::sqrt(v / 48 + eps))}, 28);
}
TEST(CorpusLayerNorm, Apply) {
  // (x - mu) * r * scale + bias: the last multiply-add fused or not.
  Rng rng(81);
  auto in = rng.floats(21, -3, 3), scale = rng.floats(21, 0.5f, 1.5f), bias = rng.floats(21, -1, 1);
  float mu = 0.1f, invStd = 1.7f;
  VertexRun r("layernorm.cpp", "corpus::LayerNormApply");
  r.set("in", buf(in)).set("scale", buf(scale)).set("bias", buf(bias)).value("mean", mu).value("invStd", invStd);
  r.set("out", out(21, 4));
  if (!r.run()) return;
  std::vector<float> unfused, fused;
  for (size_t i = 0; i < in.size(); ++i) {
    float t = (in[i] - mu) * invStd;
    unfused.push_back(t * scale[i] + bias[i]);
    fused.push_back(fmaf32(t, scale[i], bias[i]));
  }
  expectF32OneOf(r, r.get<float>("out"), {unfused, fused});
}
TEST(CorpusLayerNorm, WholeLayerNormHalf) {
  // The float computation's error (a few dozen eps relative to the terms, each below 16 in
  // magnitude: < 1e-4 absolute) is far below half precision except where the result cancels
  // to near 0: within 1 ulp of half of the double-computed result, or 1e-4 absolute.
  Rng rng(82);
  auto in = toHalves(rng.floats(30, -4, 4)), scale = toHalves(rng.floats(30, 0.5f, 2)),
       bias = toHalves(rng.floats(30, -1, 1));
  const float eps = 1e-3f;
  VertexRun r("layernorm.cpp", "corpus::LayerNormHalf");
  r.set("in", buf(in)).set("scale", buf(scale)).set("bias", buf(bias)).set("out", out(30, 2)).value("eps", eps);
  if (!r.run()) return;
  double s = 0, v = 0;
  for (uint16_t h : in) s += h2f(h);
  double mu = s / 30;
  for (uint16_t h : in) v += (h2f(h) - mu) * (h2f(h) - mu);
  double rs = 1 / std::sqrt(v / 30 + double(eps));
  auto got = r.get<uint16_t>("out");
  if (!r.ok() || got.size() != in.size()) return;
  for (size_t i = 0; i < in.size(); ++i) {
    double exact = (h2f(in[i]) - mu) * rs * h2f(scale[i]) + h2f(bias[i]);
    EXPECT_TRUE(ulpDistanceHalf(got[i], f2h(exact)) <= 1 || std::fabs(h2f(got[i]) - exact) <= 1e-4)
        << "[" << i << "] got " << h2f(got[i]) << " want " << exact;
  }
}

// ---------------------------------------------------------------------------------------------
// optim.cpp

TEST(CorpusOptim, SgdF32) {
  Rng rng(90);
  auto w = rng.floats(25, -1, 1), g = rng.floats(25, -0.1f, 0.1f);
  float lr = 0.01f;
  VertexRun r("optim.cpp", "corpus::SgdUpdate<float>");
  r.set("w", buf(w)).set("g", buf(g)).value("lr", lr);
  if (!r.run()) return;
  std::vector<float> unfused, fused;
  for (size_t i = 0; i < w.size(); ++i) {
    unfused.push_back(w[i] - lr * g[i]);
    fused.push_back(fmaf32(-lr, g[i], w[i]));
  }
  expectF32OneOf(r, r.get<float>("w"), {unfused, fused});
}
TEST(CorpusOptim, SgdHalf) {
  // float(w) - lr * float(g) (fused or not), rounded once to half.
  Rng rng(91);
  auto w = toHalves(rng.floats(22, -1, 1)), g = toHalves(rng.floats(22, -1, 1));
  float lr = 0.05f;
  VertexRun r("optim.cpp", "corpus::SgdUpdate<half>");
  r.set("w", buf(w)).set("g", buf(g)).value("lr", lr);
  if (!r.run()) return;
  auto got = r.get<uint16_t>("w");
  if (!r.ok() || got.size() != w.size()) return;
  for (size_t i = 0; i < w.size(); ++i) {
    uint16_t a = f2h(h2f(w[i]) - lr * h2f(g[i])), b = f2h(fmaf32(-lr, h2f(g[i]), h2f(w[i])));
    EXPECT_TRUE(got[i] == a || got[i] == b) << "[" << i << "] got 0x" << std::hex << got[i] << " want 0x" << a
                                            << " or 0x" << b;
  }
}
TEST(CorpusOptim, SgdMomentum) {
  // v = momentum * v + g and w = w - lr * v, each fused or not; w is checked against the v the
  // vertex computed.
  Rng rng(92);
  auto w = rng.floats(19, -1, 1), v = rng.floats(19, -0.5f, 0.5f), g = rng.floats(19, -0.2f, 0.2f);
  float lr = 0.1f, mom = 0.9f;
  VertexRun r("optim.cpp", "corpus::SgdMomentum");
  r.set("w", buf(w)).set("v", buf(v)).set("g", buf(g)).value("lr", lr).value("momentum", mom);
  if (!r.run()) return;
  std::vector<float> vu, vf;
  for (size_t i = 0; i < w.size(); ++i) {
    vu.push_back(mom * v[i] + g[i]);
    vf.push_back(fmaf32(mom, v[i], g[i]));
  }
  auto vGot = r.get<float>("v");
  expectF32OneOf(r, vGot, {vu, vf});
  if (vGot.size() != w.size()) return;
  std::vector<float> wu, wf;
  for (size_t i = 0; i < w.size(); ++i) {
    wu.push_back(w[i] - lr * vGot[i]);
    wf.push_back(fmaf32(-lr, vGot[i], w[i]));
  }
  expectF32OneOf(r, r.get<float>("w"), {wu, wf});
}
TEST(CorpusOptim, Adam) {
  // m and v: two products and a sum of terms of one sign (no cancellation), fused or not: 2 ulp
  // of the double-computed value. w in [0.5, 1.5]: the update lr * mHat / (sqrt(vHat) + eps) is
  // below 1e-3, its few-ulp error far below w's ulp: 1 ulp of w.
  Rng rng(93);
  const size_t n = 20;
  auto w = rng.floats(n, 0.5f, 1.5f), m = rng.floats(n, 0.0f, 0.1f), v = rng.floats(n, 0.001f, 0.01f),
       g = rng.floats(n, 0.0f, 0.3f);
  const float lr = 0.001f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, bc1 = 1 - 0.9f * 0.9f * 0.9f,
              bc2 = 1 - 0.999f * 0.999f * 0.999f;
  VertexRun r("optim.cpp", "corpus::AdamUpdate");
  r.set("w", buf(w)).set("m", buf(m)).set("v", buf(v)).set("g", buf(g));
  r.value("lr", lr).value("beta1", b1).value("beta2", b2).value("eps", eps);
  r.value("biasCorrection1", bc1).value("biasCorrection2", bc2);
  if (!r.run()) return;
  std::vector<float> wm, wv, ww;
  for (size_t i = 0; i < n; ++i) {
    double mi = double(b1) * m[i] + double(1.0f - b1) * g[i];
    double vi = double(b2) * v[i] + double(1.0f - b2) * g[i] * g[i];
    wm.push_back(float(mi));
    wv.push_back(float(vi));
    ww.push_back(float(w[i] - double(lr) * (mi / bc1) / (std::sqrt(vi / bc2) + eps)));
  }
  expectF32(r, r.get<float>("m"), wm, 2);
  expectF32(r, r.get<float>("v"), wv, 2);
  expectF32(r, r.get<float>("w"), ww, 1);
}

// ---------------------------------------------------------------------------------------------
// multivertex.cpp

TEST(CorpusMultiVertex, ScaledAddInterleaved) {
  // Float2 atoms interleaved over six workers, the odd element by worker 5. Fused or not.
  Rng rng(100);
  const uint16_t n = 37;
  auto A = rng.floats(n, -10, 10), B = rng.floats(n, -10, 10);
  float s = -0.37f;
  VertexRun r("multivertex.cpp", "corpus::ScaledAddMV");
  r.set("A", buf(A)).set("B", buf(B)).set("scaleB", buf(std::vector<float>{s})).value<uint16_t>("size", n);
  if (!r.run()) return;
  std::vector<float> unfused, fused;
  for (size_t i = 0; i < n; ++i) {
    unfused.push_back(A[i] + s * B[i]);
    fused.push_back(fmaf32(s, B[i], A[i]));
  }
  expectF32OneOf(r, r.get<float>("A"), {unfused, fused});
}
TEST(CorpusMultiVertex, SumPartialsContiguous) {
  // Each worker's in-order sum of its range: bit exact.
  Rng rng(101);
  auto in = rng.floats(50, -1, 1);
  VertexRun r("multivertex.cpp", "corpus::SumPartialsMV");
  r.set("in", buf(in)).set("partials", out(6, 4));
  if (!r.run()) return;
  std::vector<float> want;
  for (unsigned w = 0; w < 6; ++w) {
    float acc = 0;
    for (unsigned i = w * 50 / 6; i < (w + 1) * 50 / 6; ++i) acc += in[i];
    want.push_back(acc);
  }
  expectF32(r, r.get<float>("partials"), want);
}
TEST(CorpusMultiVertex, ScaleHalf4Interleaved) {
  Rng rng(102);
  auto d = toHalves(rng.floats(55, -40, 40));
  uint16_t s = f2h(1.25);
  VertexRun r("multivertex.cpp", "corpus::ScaleHalf4MV");
  r.set("data", buf(d)).value("scale", s);
  if (!r.run()) return;
  std::vector<uint16_t> want;
  for (uint16_t h : d) want.push_back(f2h(double(h2f(h)) * 1.25));
  expectHalf(r, r.get<uint16_t>("data"), want);
}
TEST(CorpusMultiVertex, CountOddPerWorker) {
  Rng rng(103);
  std::vector<uint32_t> in(47);
  for (auto &x : in) x = rng.next();
  VertexRun r("multivertex.cpp", "corpus::CountOddMV");
  r.set("in", buf(in)).set("counts", out(6, 4));
  if (!r.run()) return;
  std::vector<uint32_t> want(6, 0);
  for (size_t i = 0; i < in.size(); ++i) want[i % 6] += in[i] & 1;
  expectEq(r, r.get<uint32_t>("counts"), want);
}

TEST(CorpusMultiVertex, ScaleStridedElements) {
  Rng rng(104);
  auto d = rng.floats(41, -100, 100);
  const float s = 1.0f / 3.0f;
  VertexRun r("multivertex.cpp", "corpus::ScaleStridedMV");
  r.set("data", buf(d)).value("scale", s).value<uint16_t>("size", 41);
  if (!r.run()) return;
  std::vector<float> want;
  for (float x : d) want.push_back(x * s);
  expectF32(r, r.get<float>("data"), want);
}

// ---------------------------------------------------------------------------------------------
// supervisor.cpp

TEST(CorpusSupervisor, IntSum) {
  std::vector<int> in;
  for (int i = 0; i < 30; ++i) in.push_back(i * i * (i % 3 == 0 ? -7 : 3) + 100000 * (i % 5));
  VertexRun r("supervisor.cpp", "corpus::SupervisorIntSum");
  r.set("in", buf(in)).set("out", out(1, 4));
  if (!r.run()) return;
  int s = 0;
  for (int x : in) s += x;
  expectEq(r, r.get<int>("out"), {s});
}
TEST(CorpusSupervisor, Copy) {
  Rng rng(110);
  std::vector<uint32_t> in(21);
  for (auto &x : in) x = rng.next();
  VertexRun r("supervisor.cpp", "corpus::SupervisorCopy");
  r.set("src", buf(in)).set("dst", out(21, 4));
  if (!r.run()) return;
  expectEq(r, r.get<uint32_t>("dst"), in);
}
TEST(CorpusSupervisor, ShortStats) {
  std::vector<int16_t> in = {-5, 300, -32768, 12, 32767, 7, 32767, -1, 0, -9};
  VertexRun r("supervisor.cpp", "corpus::SupervisorShortStats");
  r.set("in", buf(in)).set("stats", out(3, 4));
  if (!r.run()) return;
  expectEq(r, r.get<int>("stats"), {32767, 4, 4});
}

// ---------------------------------------------------------------------------------------------
// integer.cpp

TEST(CorpusInteger, Histogram16) {
  Rng rng(120);
  std::vector<uint8_t> in(77);
  for (auto &b : in) b = uint8_t(rng.next());
  in[0] = 0;
  in[1] = 255;
  VertexRun r("integer.cpp", "corpus::Histogram16");
  r.set("in", buf(in)).set("bins", out(16, 4));
  if (!r.run()) return;
  std::vector<uint32_t> want(16, 0);
  for (uint8_t b : in) ++want[b >> 4];
  expectEq(r, r.get<uint32_t>("bins"), want);
}
TEST(CorpusInteger, BitCount) {
  std::vector<uint32_t> in = {0u, 1u, 0x80000000u, 0xFFFFFFFFu, 0x00F0F000u, 0x12345678u, 6u, 0x7FFFFFFFu};
  VertexRun r("integer.cpp", "corpus::BitCount");
  r.set("in", buf(in)).set("out", out(uint32_t(3 * in.size()), 4));
  if (!r.run()) return;
  std::vector<uint32_t> want;
  for (uint32_t x : in) {
    uint32_t pop = 0, clz = 32, ctz = 32;
    for (int b = 0; b < 32; ++b) pop += (x >> b) & 1;
    for (int b = 31; b >= 0; --b)
      if ((x >> b) & 1) {
        clz = uint32_t(31 - b);
        break;
      }
    for (int b = 0; b < 32; ++b)
      if ((x >> b) & 1) {
        ctz = uint32_t(b);
        break;
      }
    want.insert(want.end(), {pop, clz, ctz});
  }
  expectEq(r, r.get<uint32_t>("out"), want);
}
TEST(CorpusInteger, BitOps) {
  Rng rng(121);
  std::vector<uint32_t> a(9), b(9);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = rng.next();
    b[i] = rng.next();
  }
  a[0] = 0x80000001u;
  b[0] = 0; // shift by 0
  a[1] = 0xF0000000u;
  b[1] = 31;
  VertexRun r("integer.cpp", "corpus::BitOps");
  r.set("a", buf(a)).set("b", buf(b)).set("out", out(uint32_t(8 * a.size()), 4));
  if (!r.run()) return;
  std::vector<uint32_t> want;
  for (size_t i = 0; i < a.size(); ++i) {
    uint32_t x = a[i], y = b[i], s = y & 31;
    uint32_t sar = (x & 0x80000000u) && s ? (x >> s) | ~(0xFFFFFFFFu >> s) : x >> s;
    uint32_t rot = s ? (x << s) | (x >> (32 - s)) : x;
    want.insert(want.end(), {x & y, x | y, x ^ y, ~x, x << s, x >> s, sar, rot});
  }
  expectEq(r, r.get<uint32_t>("out"), want);
}
TEST(CorpusInteger, DivModByConstants) {
  std::vector<int> in = {0, 1, -1, 7, -7, 13, -13, 1000, -1001, 2147483647, -2147483647 - 1, 123456789, -99};
  VertexRun r("integer.cpp", "corpus::DivModConst");
  r.set("in", buf(in)).set("out", out(uint32_t(8 * in.size()), 4));
  if (!r.run()) return;
  std::vector<int> want;
  for (int x : in) {
    // C++ semantics: truncating division, remainder with the dividend's sign.
    int64_t X = x;
    uint32_t u = uint32_t(x);
    auto q = [&](int64_t d) { return int(X / d); };
    auto m = [&](int64_t d) { return int(X - X / d * d); };
    want.insert(want.end(), {q(7), m(7), q(10), m(10), q(8), m(8), int(u / 3u), int(u % 1000u)});
  }
  expectEq(r, r.get<int>("out"), want);
}
TEST(CorpusInteger, DivModByVariables) {
  // The runtime steps only the quotient's possible bits (from the operands' leading zeros): the
  // cases below include x < y, x == y, a divisor of 1 under a 32-bit dividend (32 steps), a
  // divisor with its top bit set (one step) and powers of two.
  std::vector<int> a = {100, -100, 7, -7, 2147483647, -2147483647 - 1, 0, 12345, -1, 99999,
                        -1, -2147483647 - 1, 5, 3, -1, 1000000, -2, 65536, 1 << 30};
  std::vector<int> b = {7, 7, -3, -3, 2, 3, 5, -1, 2, 100000,
                        1, 1, 5, 5, -2147483647 - 1, 1000, -1, 256, 3};
  std::mt19937 rng(11);
  for (int i = 0; i < 64; ++i) { // operands of random widths, so every step count occurs
    const int x = int(rng() >> (rng() % 32)), y = int(rng() >> (rng() % 32));
    if (y == 0 || (x == -2147483647 - 1 && y == -1)) continue;
    a.push_back(x), b.push_back(y);
  }
  VertexRun r("integer.cpp", "corpus::DivModVar");
  r.set("a", buf(a)).set("b", buf(b)).set("out", out(uint32_t(4 * a.size()), 4));
  if (!r.run()) return;
  std::vector<int> want;
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t x = a[i], y = b[i];
    uint32_t ux = uint32_t(a[i]), uy = uint32_t(b[i]);
    want.insert(want.end(), {int(x / y), int(x - x / y * y), int(ux / uy), int(ux % uy)});
  }
  expectEq(r, r.get<int>("out"), want);
}
TEST(CorpusInteger, Int16Ops) {
  std::vector<int16_t> a = {0, 1, -1, 32767, -32768, 300, -300, 12345, -7};
  std::vector<uint16_t> b = {0, 65535, 2, 1, 65535, 300, 40000, 3, 9};
  VertexRun r("integer.cpp", "corpus::Int16Ops");
  r.set("a", buf(a)).set("b", buf(b)).set("out", out(uint32_t(4 * a.size()), 2)).set("uout", out(9, 2));
  if (!r.run()) return;
  std::vector<int16_t> want;
  std::vector<uint16_t> uwant;
  for (size_t i = 0; i < a.size(); ++i) {
    int x = a[i], y = b[i];
    int ys = y >= 32768 ? y - 65536 : y;
    auto wrap = [](int v) { return int16_t(uint16_t(uint32_t(v))); };
    want.insert(want.end(), {wrap(x + y), wrap(x * ys), int16_t(x >> 3), int16_t(x > ys ? x : ys)});
    uwant.push_back(uint16_t(uint32_t(y) * 3u + 1u));
  }
  expectEq(r, r.get<int16_t>("out"), want);
  expectEq(r, r.get<uint16_t>("uout"), uwant);
}
TEST(CorpusInteger, Int8Ops) {
  std::vector<int8_t> a = {0, 1, -1, 127, -128, 100, -100, 55, -3, 64};
  std::vector<uint8_t> b = {0, 255, 128, 200, 10, 1, 250, 77, 128, 193};
  VertexRun r("integer.cpp", "corpus::Int8Ops");
  r.set("a", buf(a)).set("b", buf(b)).set("out", out(uint32_t(3 * a.size()), 1)).set("uout", out(10, 1));
  if (!r.run()) return;
  std::vector<int8_t> want;
  std::vector<uint8_t> uwant;
  for (size_t i = 0; i < a.size(); ++i) {
    int x = a[i], y = b[i];
    int sat = std::min(127, std::max(-128, x + y - 128));
    want.insert(want.end(), {int8_t(uint8_t(x + y)), int8_t(sat), int8_t(uint8_t(x ^ y))});
    uwant.push_back(uint8_t((y >> 3) | (y << 5)));
  }
  expectEq(r, r.get<int8_t>("out"), want);
  expectEq(r, r.get<uint8_t>("uout"), uwant);
}

TEST(CorpusInteger, SmallIntDivMod) {
  std::vector<int16_t> a = {0, 1, -1, 32767, -32768, 1000, -1000, 7, -8, 12345, -12345, 299};
  std::vector<uint8_t> b = {1, 255, 2, 3, 7, 10, 10, 200, 3, 128, 1, 13};
  VertexRun r("integer.cpp", "corpus::SmallIntDivMod");
  r.set("a", buf(a)).set("b", buf(b)).set("out", out(uint32_t(4 * a.size()), 2)).set("bout", out(uint32_t(2 * a.size()), 1));
  if (!r.run()) return;
  std::vector<int16_t> want;
  std::vector<uint8_t> bwant;
  for (size_t i = 0; i < a.size(); ++i) {
    // Promoted to int: truncating division, remainder with the dividend's sign.
    int x = a[i], y = b[i];
    int q = x / y, q3 = x / 3;
    want.insert(want.end(), {int16_t(q), int16_t(x - q * y), int16_t(q3), int16_t(x - q3 * 3)});
    bwant.insert(bwant.end(), {uint8_t(y / 5), uint8_t(y % 7)});
  }
  expectEq(r, r.get<int16_t>("out"), want);
  expectEq(r, r.get<uint8_t>("bout"), bwant);
}

// ---------------------------------------------------------------------------------------------
// layouts.cpp

TEST(CorpusLayouts, CompactEncodingsAndPackedMembers) {
  Rng rng(150);
  auto a = rng.floats(13, -50, 50), b = rng.floats(13, -50, 50);
  for (uint8_t addBias : {uint8_t(0), uint8_t(1)}) {
    VertexRun r("layouts.cpp", "corpus::CompactLayouts");
    r.set("a", buf(a)).set("b", buf(b)).set("out", out(13, 4)).value<uint8_t>("addBias", addBias);
    r.value<int16_t>("bias", -3);
    if (!r.run()) return;
    std::vector<float> want;
    for (size_t i = 0; i < a.size(); ++i) want.push_back(a[i] + b[i] + (addBias ? -3.0f : 0.0f));
    expectF32(r, r.get<float>("out"), want);
  }
}
TEST(CorpusLayouts, BoolOutputs) {
  Rng rng(151);
  auto a = rng.floats(21, -1, 1), b = rng.floats(21, -1, 1);
  b[4] = a[4];
  VertexRun r("layouts.cpp", "corpus::GreaterThan");
  r.set("a", buf(a)).set("b", buf(b)).set("out", out(21, 1)).set("count", out(1, 4));
  if (!r.run()) return;
  std::vector<uint8_t> want;
  uint32_t c = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    want.push_back(a[i] > b[i] ? 1 : 0);
    c += want.back();
  }
  expectEq(r, r.get<uint8_t>("out"), want);
  expectEq(r, r.get<uint32_t>("count"), {c});
}
TEST(CorpusLayouts, ScaledAddTemplatedHalfData) {
  // float(A) + scale * float(B) in float (fused or not), rounded once to half.
  Rng rng(152);
  auto A = toHalves(rng.floats(29, -20, 20)), B = toHalves(rng.floats(29, -20, 20));
  const float s = 0.37f;
  VertexRun r("layouts.cpp", "corpus::ScaledAddT<half, float>");
  r.set("A", buf(A)).set("B", buf(B)).value("scale", s).value<uint16_t>("size", 29);
  if (!r.run()) return;
  auto got = r.get<uint16_t>("A");
  if (!r.ok() || got.size() != A.size()) return;
  for (size_t i = 0; i < A.size(); ++i) {
    uint16_t u = f2h(h2f(A[i]) + s * h2f(B[i])), f = f2h(fmaf32(s, h2f(B[i]), h2f(A[i])));
    EXPECT_TRUE(got[i] == u || got[i] == f) << "[" << i << "] got 0x" << std::hex << got[i] << " want 0x" << u
                                            << " or 0x" << f;
  }
}
TEST(CorpusLayouts, ScaledAddTemplatedHalfScale) {
  Rng rng(153);
  auto A = rng.floats(17, -20, 20), B = rng.floats(17, -20, 20);
  const uint16_t s = f2h(-1.375);
  VertexRun r("layouts.cpp", "corpus::ScaledAddT<float, half>");
  r.set("A", buf(A)).set("B", buf(B)).value("scale", s).value<uint16_t>("size", 17);
  if (!r.run()) return;
  std::vector<float> unfused, fused;
  for (size_t i = 0; i < A.size(); ++i) {
    unfused.push_back(A[i] + h2f(s) * B[i]);
    fused.push_back(fmaf32(h2f(s), B[i], A[i]));
  }
  expectF32OneOf(r, r.get<float>("A"), {unfused, fused});
}

TEST(CorpusLayouts, ScaledAddStridedHalfScale) {
  Rng rng(154);
  auto A = rng.floats(23, -20, 20), B = rng.floats(23, -20, 20);
  const uint16_t s = f2h(0.6875);
  VertexRun r("strided.cpp", "corpus::ScaledAddStrided<float, half>");
  r.set("A", buf(A)).set("B", buf(B)).value("scale", s).value<uint16_t>("size", 23);
  if (!r.run()) return;
  std::vector<float> unfused, fused;
  for (size_t i = 0; i < A.size(); ++i) {
    unfused.push_back(A[i] + h2f(s) * B[i]);
    fused.push_back(fmaf32(h2f(s), B[i], A[i]));
  }
  expectF32OneOf(r, r.get<float>("A"), {unfused, fused});
}

// ---------------------------------------------------------------------------------------------
// frames.cpp

TEST(CorpusFrames, SpillSlotsBeyondTheImmediateReach) {
  Rng rng(170);
  auto in = rng.floats(40, -4, 4);
  VertexRun r("frames.cpp", "corpus::BigFrameSpills");
  r.set("in", buf(in)).set("out", out(40, 4));
  if (!r.run()) return;
  std::vector<float> table(6000), v(40), want(40);
  for (unsigned i = 0; i < 6000; ++i) table[i] = in[i % 40] + float(i);
  for (unsigned i = 0; i < 40; ++i) v[i] = in[i] * table[i * 149];
  for (unsigned i = 0; i < 40; ++i) want[i] = v[i] * v[(i * 7 + 3) % 40] + v[39 - i];
  expectF32(r, r.get<float>("out"), want);
}
TEST(CorpusFrames, SavedLinkRegisterBeyondTheImmediateReach) {
  Rng rng(171);
  auto in = rng.floats(7, -4, 4);
  VertexRun r("frames.cpp", "corpus::BigFrameCalls");
  r.set("in", buf(in)).set("out", out(1, 4));
  if (!r.run()) return;
  std::vector<float> scaled(5000);
  for (unsigned i = 0; i < 5000; ++i) scaled[i] = in[i % 7] * float(i % 3 + 1);
  float sum = 0;
  for (unsigned i = 0; i < 5000; i += 1000) sum += scaled[i] + scaled[i + 1];
  expectF32(r, r.get<float>("out"), {sum});
}

// ---------------------------------------------------------------------------------------------
// intrinsics.cpp

TEST(CorpusIntrinsics, PostIncrementLoadsAndStores) {
  Rng rng(160);
  auto in = rng.floats(15, -30, 30);
  const float s = -2.75f;
  VertexRun r("intrinsics.cpp", "corpus::PostIncScale");
  r.set("in", buf(in)).set("out", out(15, 4)).value("scale", s);
  if (!r.run()) return;
  std::vector<float> want;
  for (float x : in) want.push_back(x * s);
  expectF32(r, r.get<float>("out"), want);
}
TEST(CorpusIntrinsics, WorkerIdFromWsr) {
  VertexRun r("intrinsics.cpp", "corpus::WorkerIdFromCsr");
  r.set("ids", out(6, 4));
  if (!r.run()) return;
  expectEq(r, r.get<uint32_t>("ids"), {0u, 17u, 34u, 51u, 68u, 85u});
}

// ---------------------------------------------------------------------------------------------
// control.cpp

TEST(CorpusControl, PrefixSumLoopCarried) {
  Rng rng(130);
  auto in = rng.floats(31, -1, 1);
  VertexRun r("control.cpp", "corpus::PrefixSumF32");
  r.set("in", buf(in)).set("out", out(31, 4));
  if (!r.run()) return;
  std::vector<float> want;
  float acc = 0;
  for (float x : in) want.push_back(acc += x); // the order is the dependence: bit exact
  expectF32(r, r.get<float>("out"), want);
}
TEST(CorpusControl, IirFilterExactData) {
  // a = 0.5, x on a 1/4 grid below 4: every y needs at most 4 + 2 + 16 bits: exact, fused or not.
  Rng rng(131);
  auto x = grid(rng, 16, -16, 16, 0.25f);
  VertexRun r("control.cpp", "corpus::IirFilter");
  r.set("x", buf(x)).set("y", out(16, 4)).value("a", 0.5f);
  if (!r.run()) return;
  std::vector<float> want;
  double y = 0;
  for (float v : x) want.push_back(float(y = 0.5 * y + v));
  expectF32(r, r.get<float>("y"), want);
}
TEST(CorpusControl, CallsNoinlineHelpers) {
  // Horner with small integer coefficients at x on a 1/2 grid: exact. gcd: integers.
  std::vector<float> x = {-2, -1.5f, -1, -0.5f, 0, 0.5f, 1, 1.5f, 2, 3};
  std::vector<float> c = {3, -2, 0, 5, 1}; // 3 - 2x + 5x^3 + x^4
  std::vector<uint32_t> pairs = {12, 18, 17, 5, 0, 9, 100, 75, 1071, 462, 65536, 4096};
  VertexRun r("control.cpp", "corpus::CallsHelpers");
  r.set("x", buf(x)).set("coeffs", buf(c)).set("y", out(10, 4)).set("pairs", buf(pairs)).set("gcds", out(6, 4));
  if (!r.run()) return;
  std::vector<float> want;
  for (float v : x) {
    double d = v;
    want.push_back(float(3 - 2 * d + 5 * d * d * d + d * d * d * d));
  }
  expectF32(r, r.get<float>("y"), want);
  expectEq(r, r.get<uint32_t>("gcds"), {6u, 1u, 9u, 25u, 21u, 4096u});
}
TEST(CorpusControl, ReturnsTrue) {
  std::vector<float> in = {1, 2, 0.5f, 1e-30f, 3};
  VertexRun r("control.cpp", "corpus::AllPositive");
  r.set("in", buf(in)).set("firstBad", out(1, 4)).expectReturn(true);
  if (!r.run()) return;
  expectEq(r, r.get<uint32_t>("firstBad"), {5u});
}
TEST(CorpusControl, ReturnsFalseExitnz) {
  std::vector<float> in = {1, 2, 0.5f, 4, 5, 6, 7, 0.0f, -1};
  VertexRun r("control.cpp", "corpus::AllPositive");
  r.set("in", buf(in)).set("firstBad", out(1, 4)).expectReturn(false);
  if (!r.run()) return;
  expectEq(r, r.get<uint32_t>("firstBad"), {7u});
}
TEST(CorpusControl, ReturnsFalseOnNaN) {
  std::vector<float> in = {1, 2, 3, std::numeric_limits<float>::quiet_NaN(), 5};
  VertexRun r("control.cpp", "corpus::AllPositive");
  r.set("in", buf(in)).set("firstBad", out(1, 4)).expectReturn(false);
  if (!r.run()) return;
  expectEq(r, r.get<uint32_t>("firstBad"), {3u});
}
TEST(CorpusControl, LocalArraysOnTheStack) {
  Rng rng(132);
  std::vector<int> in(40);
  for (auto &x : in) x = int(rng.next() % 2001) - 1000;
  VertexRun r("control.cpp", "corpus::LocalArrayStats");
  r.set("in", buf(in)).set("medians", out(5, 4)).set("modes", out(5, 4));
  if (!r.run()) return;
  std::vector<int> med, mode;
  for (int g = 0; g < 5; ++g) {
    std::vector<int> v(in.begin() + 8 * g, in.begin() + 8 * g + 8);
    int counts[10] = {};
    for (int x : v) ++counts[std::abs(x % 10)];
    std::sort(v.begin(), v.end());
    med.push_back(v[3]);
    mode.push_back(int(std::max_element(counts, counts + 10) - counts)); // first of the largest
  }
  expectEq(r, r.get<int>("medians"), med);
  expectEq(r, r.get<int>("modes"), mode);
}

// ---------------------------------------------------------------------------------------------
// popops_like.cpp

TEST(CorpusPopops, FillFloat) {
  VertexRun r("popops_like.cpp", "popops::Fill<float>");
  r.value("in", 3.25f).set("out", out(13, 4));
  if (!r.run()) return;
  expectF32(r, r.get<float>("out"), std::vector<float>(13, 3.25f));
}
TEST(CorpusPopops, FillHalf) {
  VertexRun r("popops_like.cpp", "popops::Fill<half>");
  r.value("in", f2h(-0.375)).set("out", out(11, 2));
  if (!r.run()) return;
  expectHalf(r, r.get<uint16_t>("out"), std::vector<uint16_t>(11, f2h(-0.375)));
}
TEST(CorpusPopops, FillInt) {
  VertexRun r("popops_like.cpp", "popops::Fill<int>");
  r.value("in", -123456).set("out", out(7, 4));
  if (!r.run()) return;
  expectEq(r, r.get<int>("out"), std::vector<int>(7, -123456));
}
TEST(CorpusPopops, CircBufIncrIndex) {
  for (uint32_t start : {3u, 9u}) {
    VertexRun r("popops_like.cpp", "popops::CircBufIncrIndex");
    r.set("index", buf(std::vector<uint32_t>{start})).value("hSize", 10u);
    if (!r.run()) return;
    expectEq(r, r.get<uint32_t>("index"), {(start + 1) % 10});
  }
}
TEST(CorpusPopops, IotaUnsigned) {
  std::vector<uint32_t> sizes = {5, 1, 8}, offsets = {0, 100, 0xFFFFFFFCu};
  std::vector<Data> rows;
  for (uint32_t n : sizes) rows.push_back(out(n, 4));
  VertexRun r("popops_like.cpp", "popops::Iota<unsigned int>");
  r.set2d("out", rows).set("offsets", buf(offsets));
  if (!r.run()) return;
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<uint32_t> want;
    for (uint32_t j = 0; j < sizes[i]; ++j) want.push_back(offsets[i] + j);
    expectEq(r, r.get<uint32_t>("out", i), want);
  }
}
TEST(CorpusPopops, IotaInt) {
  std::vector<uint32_t> sizes = {4, 6};
  std::vector<int> offsets = {-3, 1000};
  std::vector<Data> rows;
  for (uint32_t n : sizes) rows.push_back(out(n, 4));
  VertexRun r("popops_like.cpp", "popops::Iota<int>");
  r.set2d("out", rows).set("offsets", buf(offsets));
  if (!r.run()) return;
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<int> want;
    for (uint32_t j = 0; j < sizes[i]; ++j) want.push_back(offsets[i] + int(j));
    expectEq(r, r.get<int>("out", i), want);
  }
}
TEST(CorpusPopops, HadamardProdFloat) {
  Rng rng(140);
  std::vector<std::vector<float>> A, B;
  std::vector<Data> dA, dB;
  for (uint32_t n : {3u, 7u, 2u}) {
    A.push_back(rng.floats(n, -5, 5));
    B.push_back(rng.floats(n, -5, 5));
    dA.push_back(buf(A.back()));
    dB.push_back(buf(B.back()));
  }
  VertexRun r("popops_like.cpp", "popops::HadamardProd<float>");
  r.set2d("A", dA).set2d("B", dB);
  if (!r.run()) return;
  for (size_t i = 0; i < A.size(); ++i) {
    std::vector<float> want;
    for (size_t j = 0; j < A[i].size(); ++j) want.push_back(A[i][j] * B[i][j]);
    expectF32(r, r.get<float>("A", i), want);
  }
}
TEST(CorpusPopops, HadamardProdHalf) {
  Rng rng(141);
  std::vector<std::vector<uint16_t>> A, B;
  std::vector<Data> dA, dB;
  for (uint32_t n : {5u, 4u}) {
    A.push_back(toHalves(rng.floats(n, -9, 9)));
    B.push_back(toHalves(rng.floats(n, -9, 9)));
    dA.push_back(buf(A.back()));
    dB.push_back(buf(B.back()));
  }
  VertexRun r("popops_like.cpp", "popops::HadamardProd<half>");
  r.set2d("A", dA).set2d("B", dB);
  if (!r.run()) return;
  for (size_t i = 0; i < A.size(); ++i) {
    std::vector<uint16_t> want;
    for (size_t j = 0; j < A[i].size(); ++j) want.push_back(f2h(double(h2f(A[i][j])) * h2f(B[i][j])));
    expectHalf(r, r.get<uint16_t>("A", i), want);
  }
}
TEST(CorpusPopops, ScaledAdd2DShortSpanRows) {
  Rng rng(142);
  std::vector<std::vector<float>> A, B;
  std::vector<Data> dA, dB;
  for (uint32_t n : {6u, 1u, 9u}) {
    A.push_back(rng.floats(n, -5, 5));
    B.push_back(rng.floats(n, -5, 5));
    dA.push_back(buf(A.back()));
    dB.push_back(buf(B.back()));
  }
  float s = 0.6f;
  VertexRun r("popops_like.cpp", "popops::ScaledAdd2D<float>");
  r.set2d("A", dA).set2d("B", dB).value("scaleB", s);
  if (!r.run()) return;
  for (size_t i = 0; i < A.size(); ++i) {
    std::vector<float> unfused, fused;
    for (size_t j = 0; j < A[i].size(); ++j) {
      unfused.push_back(A[i][j] + s * B[i][j]);
      fused.push_back(fmaf32(s, B[i][j], A[i][j]));
    }
    expectF32OneOf(r, r.get<float>("A", i), {unfused, fused});
  }
}
TEST(CorpusPopops, TutorialDotProductVertex) {
  Rng rng(143);
  auto a = grid(rng, 16, -40, 40, 0.25f), b = grid(rng, 16, -40, 40, 0.25f);
  VertexRun r("popops_like.cpp", "DotProductVertex");
  r.set("a", buf(a)).set("b", buf(b)).set("out", out(1, 4));
  if (!r.run()) return;
  expectF32(r, r.get<float>("out"), {float(exactDot(a, b))});
}
TEST(CorpusPopops, ScaleUnrolledHalfClamp) {
  Rng rng(144);
  auto d = toHalves(rng.floats(14, -20, 20));
  uint16_t s = f2h(0.9);
  VertexRun r("popops_like.cpp", "__runCodelet_corpus__ScaleUnrolled___half_true_4");
  r.set("data", buf(d)).value("scale", s);
  if (!r.run()) return;
  std::vector<uint16_t> want;
  for (uint16_t h : d) {
    uint16_t p = f2h(double(h2f(h)) * h2f(s));
    want.push_back(h2f(p) < 0 ? uint16_t(0) : p);
  }
  expectHalf(r, r.get<uint16_t>("data"), want);
}
TEST(CorpusPopops, ScaleUnrolledFloat) {
  Rng rng(145);
  auto d = rng.floats(9, -20, 20);
  float s = -1.1f;
  VertexRun r("popops_like.cpp", "__runCodelet_corpus__ScaleUnrolled___float_false_2");
  r.set("data", buf(d)).value("scale", s);
  if (!r.run()) return;
  std::vector<float> want;
  for (float x : d) want.push_back(x * s);
  expectF32(r, r.get<float>("data"), want);
}

// ---------------------------------------------------------------------------------------------
// Layouts and entry symbols (asm-dialect §3.2, §3.3).

const cc::VertexLayout *layoutOf(const std::string &file, const std::string &name) {
  const Compiled &c = compiled(corpusFile(file));
  if (!c.ok) {
    ADD_FAILURE() << file << ": " << c.error;
    return nullptr;
  }
  const cc::VertexLayout *v = findVertex(c.result, name);
  if (!v) ADD_FAILURE() << file << ": no vertex " << name << "; it defines:" << vertexNames(c.result);
  return v;
}
const cc::VertexField *fieldOf(const cc::VertexLayout &v, const std::string &name) {
  for (const auto &f : v.fields)
    if (f.name == name) return &f;
  ADD_FAILURE() << "no field " << name << " in " << describe(v);
  return nullptr;
}
void expectField(const cc::VertexLayout &v, const std::string &name, uint32_t offset, uint32_t size,
                 const std::string &kind, const std::string &layout, const std::string &innerLayout = "") {
  const cc::VertexField *f = fieldOf(v, name);
  if (!f) return;
  EXPECT_EQ(f->offset, offset) << name << " in " << describe(v);
  EXPECT_EQ(f->size, size) << name << " in " << describe(v);
  EXPECT_EQ(f->kind, kind) << name << " in " << describe(v);
  EXPECT_EQ(f->layout, layout) << name << " in " << describe(v);
  EXPECT_EQ(f->innerLayout, innerLayout) << name << " in " << describe(v);
}

TEST(CorpusLayout, FillFloatIsInAt0OutSpanAt4) {
  auto *v = layoutOf("popops_like.cpp", "popops::Fill<float>");
  if (!v) return;
  EXPECT_EQ(v->className, "popops::Fill<float>");
  EXPECT_EQ(v->entrySymbol, "__runCodelet_popops__Fill___float");
  EXPECT_EQ(v->vertexKind, "Vertex");
  EXPECT_EQ(v->size, 12u);
  expectField(*v, "in", 0, 4, "Value", "");
  expectField(*v, "out", 4, 8, "Output", "SPAN"); // pointer at 4, count at 8
  EXPECT_EQ(fieldOf(*v, "out") ? fieldOf(*v, "out")->elementType : "", "float");
}
TEST(CorpusLayout, FillHalfPacksTheValue) {
  auto *v = layoutOf("popops_like.cpp", "popops::Fill<half>");
  if (!v) return;
  EXPECT_EQ(v->entrySymbol, "__runCodelet_popops__Fill___half");
  expectField(*v, "in", 0, 2, "Value", "");
  expectField(*v, "out", 4, 8, "Output", "SPAN");
}
TEST(CorpusLayout, ScaledAddSupervisorLikeMultiVertex) {
  auto *v = layoutOf("multivertex.cpp", "corpus::ScaledAddMV");
  if (!v) return;
  EXPECT_EQ(v->vertexKind, "MultiVertex");
  EXPECT_EQ(v->entrySymbol, "__runCodelet_corpus__ScaledAddMV");
  EXPECT_EQ(v->size, 12u);
  expectField(*v, "A", 0, 4, "InOut", "ONE_PTR");
  expectField(*v, "B", 4, 4, "Input", "ONE_PTR");
  expectField(*v, "scaleB", 8, 2, "Input", "SCALED_PTR32");
  expectField(*v, "size", 10, 2, "Value", "");
  if (auto *a = fieldOf(*v, "A")) EXPECT_EQ(a->elementAlign, 8u);
}
TEST(CorpusLayout, ScaledAdd2DVectorsOfVectors) {
  auto *v = layoutOf("popops_like.cpp", "popops::ScaledAdd2D<float>");
  if (!v) return;
  EXPECT_EQ(v->entrySymbol, "__runCodelet_popops__ScaledAdd2D___float");
  expectField(*v, "A", 0, 8, "Vector", "SPAN", "SHORT_SPAN"); // rows pointer at 0, rows at 4
  expectField(*v, "B", 8, 4, "Vector", "ONE_PTR", "ONE_PTR");
  expectField(*v, "scaleB", 12, 4, "Input", "PTR");
  if (auto *a = fieldOf(*v, "A")) EXPECT_EQ(a->elementType, "float");
}
TEST(CorpusLayout, CompactEncodingsAndPackedMembers) {
  auto *v = layoutOf("layouts.cpp", "corpus::CompactLayouts");
  if (!v) return;
  EXPECT_EQ(v->size, 12u);
  expectField(*v, "a", 0, 4, "Input", "SHORT_SPAN");
  expectField(*v, "b", 4, 2, "Input", "SCALED_PTR64");
  expectField(*v, "out", 6, 2, "Output", "SCALED_PTR32");
  expectField(*v, "addBias", 8, 1, "Value", "");
  expectField(*v, "bias", 10, 2, "Value", "");
}
TEST(CorpusLayout, TemplatedMultiVertex) {
  auto *v = layoutOf("layouts.cpp", "corpus::ScaledAddT<half, float>");
  if (!v) return;
  EXPECT_EQ(v->vertexKind, "MultiVertex");
  EXPECT_EQ(v->entrySymbol, "__runCodelet_corpus__ScaledAddT___half_float");
  expectField(*v, "A", 0, 4, "InOut", "ONE_PTR");
  expectField(*v, "B", 4, 4, "Input", "ONE_PTR");
  expectField(*v, "scale", 8, 4, "Value", "");
  expectField(*v, "size", 12, 2, "Value", "");
  auto *h = layoutOf("layouts.cpp", "corpus::ScaledAddT<float, half>");
  if (!h) return;
  EXPECT_EQ(h->entrySymbol, "__runCodelet_corpus__ScaledAddT___float_half");
  expectField(*h, "scale", 8, 2, "Value", "");
  expectField(*h, "size", 10, 2, "Value", "");
}
TEST(CorpusLayout, CircBufIncrIndexNotTemplated) {
  auto *v = layoutOf("popops_like.cpp", "popops::CircBufIncrIndex");
  if (!v) return;
  EXPECT_EQ(v->entrySymbol, "__runCodelet_popops__CircBufIncrIndex");
  expectField(*v, "index", 0, 4, "InOut", "PTR");
  expectField(*v, "hSize", 4, 4, "Value", "");
}
TEST(CorpusLayout, SupervisorVertexKind) {
  auto *v = layoutOf("supervisor.cpp", "corpus::SupervisorIntSum");
  if (!v) return;
  EXPECT_EQ(v->vertexKind, "SupervisorVertex");
  EXPECT_EQ(v->entrySymbol, "__runCodelet_corpus__SupervisorIntSum");
  expectField(*v, "in", 0, 8, "Input", "SPAN");
  expectField(*v, "out", 8, 4, "Output", "PTR");
}
TEST(CorpusLayout, EntrySymbolsOfTemplates) {
  // asm-dialect §3.3: types spelled as in C++ with spaces -> '_', bool as true/false, integers in
  // decimal, enums fully qualified with '::' -> '__' and '_' in an enumerator -> '___'.
  struct Case {
    const char *file, *className, *symbol;
  } cases[] = {
      {"popops_like.cpp", "corpus::ScaleUnrolled<half, true, 4>", "__runCodelet_corpus__ScaleUnrolled___half_true_4"},
      {"popops_like.cpp", "corpus::ScaleUnrolled<float, false, 2>",
       "__runCodelet_corpus__ScaleUnrolled___float_false_2"},
      {"popops_like.cpp", "popops::Iota<unsigned int>", "__runCodelet_popops__Iota___unsigned_int"},
      {"popops_like.cpp", "DotProductVertex", "__runCodelet_DotProductVertex"},
      {"casts.cpp", "corpus::Cast<unsigned char, float>", "__runCodelet_corpus__Cast___unsigned_char_float"},
      {"casts.cpp", "corpus::Cast<signed char, int>", "__runCodelet_corpus__Cast___signed_char_int"},
      {"casts.cpp", "corpus::Cast<float, unsigned short>", "__runCodelet_corpus__Cast___float_unsigned_short"},
      {"unary.cpp", "corpus::Neg<half>", "__runCodelet_corpus__Neg___half"},
      {"unary.cpp", "corpus::SqrtF32", "__runCodelet_corpus__SqrtF32"},
  };
  for (const auto &c : cases) {
    auto *v = layoutOf(c.file, c.className);
    if (!v) continue;
    EXPECT_EQ(v->entrySymbol, c.symbol) << c.className;
    EXPECT_GE(compiled(corpusFile(c.file)).result.object.findSymbol(c.symbol), 0) << c.symbol << " not in the object";
  }
  // Enum template arguments: found by symbol (the class name's spelling of an enum argument is
  // not pinned), and the object defines them.
  for (const char *sym : {"__runCodelet_corpus__Binary___corpus__BinOp__ADD_float",
                          "__runCodelet_corpus__Binary___corpus__BinOp__SQUARED___DIFF_float",
                          "__runCodelet_corpus__BroadcastScalar___corpus__BinOp__MULTIPLY_half"}) {
    auto *v = layoutOf("binary.cpp", sym);
    if (!v) continue;
    EXPECT_GE(compiled(corpusFile("binary.cpp")).result.object.findSymbol(sym), 0) << sym;
  }
}
TEST(CorpusLayout, EveryCorpusVertexIsReported) {
  // The number of vertex classes each corpus file defines (explicit instantiations count).
  const std::pair<const char *, size_t> files[] = {
      {"unary.cpp", 13},     {"binary.cpp", 16},   {"vectorised.cpp", 6}, {"casts.cpp", 10},
      {"reduce.cpp", 8},     {"matmul.cpp", 4},    {"softmax.cpp", 4},    {"layernorm.cpp", 3},
      {"optim.cpp", 4},      {"multivertex.cpp", 5}, {"supervisor.cpp", 3}, {"integer.cpp", 8},
      {"control.cpp", 5},    {"popops_like.cpp", 12}, {"layouts.cpp", 4},    {"strided.cpp", 1},    {"intrinsics.cpp", 2},
      {"frames.cpp", 2}};
  size_t total = 0;
  for (const auto &[file, n] : files) {
    total += n;
    const Compiled &c = compiled(corpusFile(file));
    if (!c.ok) {
      ADD_FAILURE() << file << ": " << c.error;
      continue;
    }
    EXPECT_EQ(c.result.vertices.size(), n) << file << " defines:" << vertexNames(c.result);
    for (const auto &v : c.result.vertices) EXPECT_FALSE(v.external) << v.className;
  }
  EXPECT_EQ(total, 110u);
}

// ---------------------------------------------------------------------------------------------
// Diagnostics: what the tile cannot run is rejected at compile time with a located error.

struct Diag {
  const char *file;
  const char *reason; ///< a regular expression the message must match (case-insensitive)
};

void expectDiagnostic(const Diag &d) {
  std::string path = std::string(IPUSIM_CORPUS_DIR) + "/diag/" + d.file;
  std::vector<int> lines; // the lines marked "// DIAG"
  {
    std::ifstream in(path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      if (line.find("// DIAG") != std::string::npos) lines.push_back(n);
  }
  ASSERT_FALSE(lines.empty()) << path;
  std::string msg;
  try {
    cc::CompileOptions options;
    options.optLevel = corpusOptLevel();
    cc::compileCodelet(path, options);
    ADD_FAILURE() << d.file << " compiled; it must fail with a CompileError";
    return;
  } catch (const cc::CompileError &e) {
    msg = e.what();
  } catch (const std::exception &e) {
    ADD_FAILURE() << d.file << ": threw something other than CompileError: " << e.what();
    return;
  }
  // `file:line:col: error: ` naming the file (full path or base name) and a marked line.
  std::regex located("(^|\\n)([^\\n:]*" + std::string(d.file) + "):([0-9]+):([0-9]+): error: ([^\\n]*)");
  std::smatch m;
  bool found = false;
  for (auto it = std::sregex_iterator(msg.begin(), msg.end(), located); it != std::sregex_iterator(); ++it) {
    int line = std::stoi((*it)[3]);
    if (std::find(lines.begin(), lines.end(), line) == lines.end()) continue;
    found = true;
    std::string text = (*it)[5];
    EXPECT_TRUE(std::regex_search(text, std::regex(d.reason, std::regex::icase)))
        << d.file << ": the error at line " << line << " does not say why (want /" << d.reason << "/): " << text;
  }
  EXPECT_TRUE(found) << d.file << ": no `" << d.file << ":LINE:COL: error:` at a marked line (" << lines.front()
                     << "...); the message was:\n"
                     << msg;
}

TEST(CorpusDiagnostics, ThrowIsRejected) { expectDiagnostic({"throw.cpp", "exception|throw"}); }
TEST(CorpusDiagnostics, TypeidIsRejected) { expectDiagnostic({"typeid.cpp", "typeid|rtti"}); }
TEST(CorpusDiagnostics, DynamicCastIsRejected) { expectDiagnostic({"dynamic_cast.cpp", "dynamic_cast|rtti"}); }
TEST(CorpusDiagnostics, NewDeleteIsRejected) {
  expectDiagnostic({"new_delete.cpp", "new|delete|heap|dynamic (memory )?allocation"});
}
TEST(CorpusDiagnostics, UnboundedRecursionIsRejected) {
  expectDiagnostic({"unbounded_recursion.cpp", "recursi"});
}
TEST(CorpusDiagnostics, ComputedGotoIsRejected) { expectDiagnostic({"computed_goto.cpp", "computed goto"}); }
TEST(CorpusDiagnostics, DoubleArithmeticIsRejected) {
  expectDiagnostic({"double_math.cpp", "double-precision arithmetic is not supported.*compute in float"});
}
TEST(CorpusDiagnostics, DynamicInitialiserIsRejected) {
  expectDiagnostic({"dynamic_init.cpp", "static local 'first' needs code to initialise it"});
}
TEST(CorpusDiagnostics, ThreadLocalIsRejected) { expectDiagnostic({"thread_local.cpp", "thread_local.*'calls'"}); }
TEST(CorpusDiagnostics, VertexWithoutComputeIsRejected) {
  expectDiagnostic({"no_compute.cpp", "vertex class 'Forgotten' has no compute\\(\\)"});
}
TEST(CorpusDiagnostics, OversizedFrameIsRejected) {
  expectDiagnostic({"big_frame.cpp", "need 40000 bytes of stack.*32768"});
}
TEST(CorpusDiagnostics, InlineAssemblyTypoIsTheUsersError) {
  expectDiagnostic({"inline_asm_typo.cpp", "^unknown instruction 'sedzi'$"});
}
// No message may leak LLVM IR or ipu-cc's temporary wrapper file.
TEST(CorpusDiagnostics, MessagesSpeakCxx) {
  for (const char *file : {"double_math.cpp", "big_frame.cpp", "inline_asm_typo.cpp"}) {
    try {
      cc::compileCodelet(std::string(IPUSIM_CORPUS_DIR) + "/diag/" + file);
      ADD_FAILURE() << file << " compiled";
    } catch (const cc::CompileError &e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.find("ipucc-entry"), std::string::npos) << msg;
      EXPECT_EQ(msg.find("internal"), std::string::npos) << msg;
      EXPECT_EQ(msg.find("%"), std::string::npos) << msg; // IR value names
    }
  }
}
// An uninstantiated vertex template compiles to nothing, with a warning that says how to fix it.
// sdk_visible.cpp
TEST(CorpusSdkVisible, NamesTheSdkHeadersMakeVisible) {
  std::vector<float> in = {-2.5f, -0.75f, 0.0f, 0.3f, 1.0f, 1.6f, 2.25f, 7.125f};
  std::vector<uint32_t> words = {0x12345678u, 0xFFFF0000u, 0x0000ABCDu, 0u, 1u, 0x80000001u, 0xDEADBEEFu, 42u};
  VertexRun r("sdk_visible.cpp", "corpus::VisibleNames");
  r.set("in", buf(in)).set("out", out(8, 4)).set("rem", out(8, 4)).set("root", out(8, 4)).set("flags", out(8, 4));
  r.set("words", buf(words)).set("swapped", out(8, 4));
  if (!r.run()) return;
  std::vector<float> e, m, s;
  std::vector<uint32_t> f, w;
  for (size_t i = 0; i < in.size(); ++i) {
    e.push_back(float(std::exp(-double(in[i]))));
    m.push_back(std::fmod(in[i], 0.75f)); // exact
    s.push_back(std::sqrt(std::fabs(in[i]))); // x * 0.5 doubled: exact; sqrt correctly rounded
    f.push_back(in[i] >= 1.0f);
    w.push_back(words[i] >> 16 | words[i] << 16);
  }
  expectF32(r, r.get<float>("out"), e, 4); // exp: 4 ulp, as CorpusUnary.ExpF32
  expectF32(r, r.get<float>("rem"), m);
  expectF32(r, r.get<float>("root"), s);
  expectEq(r, r.get<uint32_t>("flags"), f);
  expectEq(r, r.get<uint32_t>("swapped"), w);
}
TEST(CorpusSdkVisible, LoopLongerThanRptRunsAsACountedLoop) {
  // 0, 1 and 5 iterations: the count-0 skip, the single pass and the branch back.
  for (unsigned n : {0u, 1u, 5u}) {
    Rng rng(140 + n);
    auto in = rng.floats(n, -4, 4);
    VertexRun r("sdk_visible.cpp", "corpus::LongLoopBody");
    r.set("in", buf(in)).set("out", out(n, 4));
    if (!r.run()) return;
    std::vector<float> want;
    for (float x : in) {
      for (int k = 0; k < 80; ++k) { // STEP4 is two of these pairs; 5 x STEP32 = 160 steps
        volatile float t = x * 1.0009765625f; // one rounding per operation, as the tile (no fma)
        x = t + 0.5f;
        t = x * 0.9990234375f;
        x = t - 0.25f;
      }
      want.push_back(x);
    }
    expectF32(r, r.get<float>("out"), want);
  }
}

TEST(CorpusSdkVisible, SaturatingAndWideUnsigned) {
  std::vector<uint32_t> a = {0u, 5u, 7u, 0xFFFFFFF0u, 100u, 0x80000000u};
  std::vector<uint32_t> b = {0u, 7u, 5u, 0x20u, 100u, 0x80000000u};
  std::vector<uint64_t> wa = {0ull, 1ull << 32, 0xFFFFFFFFull, 5ull << 32 | 1, 7ull, 0xFFFFFFFFFFFFFFFFull};
  std::vector<uint64_t> wb = {0ull, 0xFFFFFFFFull, 1ull << 32, 5ull << 32 | 2, 7ull, 0ull};
  VertexRun r("sdk_visible.cpp", "corpus::SaturatingAndWide");
  r.set("a", buf(a)).set("b", buf(b)).set("subSat", out(6, 4)).set("addSat", out(6, 4));
  r.set("wa", buf(wa)).set("wb", buf(wb)).set("wmax", out(6, 8)).set("wmin", out(6, 8));
  std::vector<int64_t> sa = {0, -1, INT64_MIN, 5ll << 32, -(5ll << 32), 3};
  std::vector<int64_t> sb = {0, 1, INT64_MAX, (5ll << 32) | 0xFFFFFFFFll, -(5ll << 32) + 1, -3};
  r.set("sa", buf(sa)).set("sb", buf(sb)).set("smax", out(6, 8)).set("smin", out(6, 8)).set("sabs", out(6, 8));
  if (!r.run()) return;
  std::vector<uint32_t> sub, add;
  std::vector<uint64_t> mx, mn;
  for (size_t i = 0; i < a.size(); ++i) {
    sub.push_back(a[i] < b[i] ? 0 : a[i] - b[i]);
    add.push_back(uint64_t(a[i]) + b[i] > 0xFFFFFFFFull ? 0xFFFFFFFFu : a[i] + b[i]);
    mx.push_back(std::max(wa[i], wb[i]));
    mn.push_back(std::min(wa[i], wb[i]));
  }
  expectEq(r, r.get<uint32_t>("subSat"), sub);
  expectEq(r, r.get<uint32_t>("addSat"), add);
  expectEq(r, r.get<uint64_t>("wmax"), mx);
  expectEq(r, r.get<uint64_t>("wmin"), mn);
  std::vector<int64_t> smx, smn;
  for (size_t i = 0; i < sa.size(); ++i) smx.push_back(std::max(sa[i], sb[i])), smn.push_back(std::min(sa[i], sb[i]));
  expectEq(r, r.get<int64_t>("smax"), smx);
  expectEq(r, r.get<int64_t>("smin"), smn);
  std::vector<int64_t> ab;
  for (int64_t v : sa) ab.push_back(v == INT64_MIN ? v : v < 0 ? -v : v); // |INT64_MIN| wraps, as llabs
  expectEq(r, r.get<int64_t>("sabs"), ab);
}
TEST(CorpusSdkVisible, InlineAsmClobbersNamedRegisters) {
  std::vector<float> in = {1.5f, 2.25f, 3.0f, 4.0f, 10.0f, 4.0f, 0.0f};
  VertexRun r("sdk_visible.cpp", "corpus::ClobberingAsm");
  r.set("in", buf(in)).set("out", out(1, 4));
  if (!r.run()) return;
  // 1.5 + 2.25 + 3 * 4 - 10 / 4 + 7, every step exact.
  expectF32(r, r.get<float>("out"), {3.75f + 12.0f - 2.5f + 7.0f});
}

TEST(CorpusSdkVisible, PackedPointersAsAnMrfPairOperand) {
  std::vector<float> a = {1.5f, 2.0f}, b = {4.0f, -0.25f};
  VertexRun r("sdk_visible.cpp", "corpus::PackedPointerAsm");
  r.set("a", buf(a)).set("b", buf(b)).set("out", out(1, 4)).set("moved", out(2, 4));
  if (!r.run()) return;
  expectF32(r, r.get<float>("out"), {1.5f * 4.0f + 2.0f * -0.25f});
  // tapack: a and b in the low 21 bits of the two words (the third address, 0, in their tops);
  // ld2x64pace advanced each by 8 bytes.
  uint32_t pa = r.address("a") + 8, pb = r.address("b") + 8;
  expectEq(r, r.get<uint32_t>("moved"), {pa, pb});
}

TEST(CorpusSdkVisible, SupervisorComputeWithSupervisorAsm) {
  std::vector<int32_t> in = {0, 1, -5, 1000};
  VertexRun r("sdk_visible.cpp", "corpus::SupervisorSync<int>");
  r.set("in", buf(in)).set("out", out(4, 4));
  if (!r.run()) return;
  expectEq(r, r.get<int32_t>("out"), {1, 4, -14, 3001});
}

TEST(CorpusDiagnostics, UninstantiatedTemplateWarns) {
  // A folder of this process's own: ctest runs this file's tests once per optimisation level, in parallel.
  const std::string dir = ::testing::TempDir() + "/uninstantiated." + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/uninstantiated.cpp";
  std::ofstream(path) << "#include <poplar/Vertex.hpp>\n"
                         "template <class T> class Scale : public poplar::Vertex {\n"
                         "public:\n  poplar::Output<T> out;\n  bool compute() { *out = 1; return true; }\n};\n";
  const cc::CompileResult r = cc::compileCodelet(path);
  EXPECT_TRUE(r.vertices.empty());
  EXPECT_NE(r.warnings.find("uninstantiated.cpp:2:26: warning: vertex class template 'Scale' is never instantiated"),
            std::string::npos)
      << r.warnings;
  EXPECT_NE(r.warnings.find("template class Scale<float>;"), std::string::npos) << r.warnings;
}

} // namespace

// quarter.cpp
namespace {
// Poplar's quarter formats, written from their definition (poplar/QuarterFloat.hpp's header
// comment) independently of the device code: F143 has 3 mantissa bits and bias 8, F152 2 and
// 16; 0x80 is the NaN; the value is scaled by 2^scale.
struct QuarterRef {
  bool f143;
  int scale;
  uint8_t metadataByte() const { return uint8_t((f143 ? 0x80 : 0) | (scale & 0x3f)); }
  double decode(unsigned code) const {
    const int mbits = f143 ? 3 : 2, bias = f143 ? 8 : 16;
    const unsigned e = (code & 0x7f) >> mbits, m = code & ((1u << mbits) - 1);
    const double v = e ? std::ldexp(1.0 + std::ldexp(m, -mbits), int(e) - bias) : std::ldexp(m, 1 - bias - mbits);
    return std::ldexp(code & 0x80 ? -v : v, scale);
  }
  // Round to nearest, ties to the even code, by searching every code; overflow at or beyond
  // the largest value plus half its step.
  uint8_t encode(double x, bool nanoo) const {
    if (std::isnan(x)) return 0x80;
    const double max = decode(0x7f), limit = max + (max - decode(0x7e)) / 2;
    if (std::fabs(x) >= limit) return nanoo ? 0x80 : uint8_t((x < 0 ? 0x80 : 0) | 0x7f);
    unsigned best = 0;
    for (unsigned c = 0; c < 256; ++c) {
      if (c == 0x80) continue;
      const double d = std::fabs(decode(c) - x), b = std::fabs(decode(best) - x);
      if (d < b || (d == b && (c & 1) == 0 && (best & 1) == 1)) best = c;
    }
    return uint8_t(best);
  }
};

void quarterRoundTrip(QuarterRef inFormat, QuarterRef outFormat, bool nanoo) {
  std::vector<uint8_t> codes(256);
  for (unsigned c = 0; c < 256; ++c) codes[c] = uint8_t(c);
  // Every value of the output format, the midpoints between neighbours (ties), points just off
  // them, beyond the largest value, infinities, NaN, signed zeros and values below the smallest.
  std::vector<float> src;
  for (unsigned c = 0; c < 0x7f; ++c) {
    const double a = outFormat.decode(c), b = outFormat.decode(c + 1), mid = (a + b) / 2;
    for (double x : {a, mid, std::nextafter(mid, a), std::nextafter(mid, b)}) {
      src.push_back(float(x));
      src.push_back(float(-x));
    }
  }
  const double max = outFormat.decode(0x7f);
  for (double x : {max, max * 1.03, max * 1.0625, max * 1.07, max * 4, double(INFINITY), -double(INFINITY),
                   double(NAN), 0.0, -0.0, outFormat.decode(1) / 3, -outFormat.decode(1) / 3, outFormat.decode(1) / 2})
    src.push_back(float(x));
  src.push_back(-float(max * 1.0625));

  VertexRun r("quarter.cpp", "corpus::QuarterConvert");
  r.set("in", buf(codes)).metadata("in", inFormat.metadataByte());
  r.set("asFloat", out(256, 4)).set("asHalf", out(256, 2));
  r.set("src", buf(src)).set("out", out(uint32_t(src.size()), 1)).metadata("out", outFormat.metadataByte());
  r.value("nanoo", unsigned(nanoo));
  if (!r.run()) return;
  std::vector<float> wantF;
  std::vector<uint16_t> wantH;
  for (unsigned c = 0; c < 256; ++c) {
    const double v = c == 0x80 ? 0.0 : inFormat.decode(c); // NaN checked below
    wantF.push_back(float(v));
    wantH.push_back(arch::doubleToHalf(v));
  }
  std::vector<float> gotF = r.get<float>("asFloat");
  std::vector<uint16_t> gotH = r.get<uint16_t>("asHalf");
  ASSERT_EQ(gotF.size(), 256u);
  EXPECT_TRUE(std::isnan(gotF[0x80])) << "0x80 is quarter's NaN";
  EXPECT_TRUE(std::isnan(arch::halfToFloat(gotH[0x80])));
  gotF[0x80] = 0.0f;
  gotH[0x80] = 0;
  expectF32(r, gotF, wantF);
  expectHalf(r, gotH, wantH);
  std::vector<uint8_t> want;
  for (float x : src) want.push_back(outFormat.encode(double(x), nanoo));
  expectEq(r, r.get<uint8_t>("out"), want);
}
} // namespace

TEST(CorpusQuarter, F143ScaledDecodeAndNanOnOverflowEncode) {
  quarterRoundTrip({true, -3}, {true, 2}, true);
}
TEST(CorpusQuarter, F152ScaledDecodeAndSaturatingEncode) {
  quarterRoundTrip({false, 5}, {false, -7}, false);
}
TEST(CorpusQuarter, MixedFormatsAtTheScaleLimits) {
  quarterRoundTrip({true, 31}, {false, -32}, false);
  quarterRoundTrip({false, -32}, {true, 31}, true);
}

TEST(CorpusQuarter, SdkRulesOfPoplibsCodelets) {
  std::vector<uint32_t> words = {0x11223344u, 0xA0B0C0D0u, 0u};
  std::vector<float> hf = {1, 2, 3, 4, -0.5f, 0.25f, 8, 1024, 3.5f, -7, 0.125f, 65504};
  std::vector<uint16_t> h;
  for (float x : hf) h.push_back(arch::floatToHalf(x));
  std::vector<uint32_t> sel = {2, 7, 0}; // lane 2, 3 (7 & 3), 0
  std::vector<int8_t> bytes = {-1, 0x7f, -128};
  VertexRun r("quarter.cpp", "corpus::SdkRules");
  r.set("words", buf(words)).set("out", out(3, 4)).set("h", buf(h)).set("sel", buf(sel));
  r.set("lane", out(3, 2)).set("replaced", out(12, 2)).set("bytes", buf(bytes)).set("masked", out(3, 1));
  r.set2d("first", {out(1, 4)}); // a vector of one scalar output edge
  if (!r.run()) return;
  const cc::VertexField *hField = nullptr;
  for (const auto &f : r.layout()->fields)
    if (f.name == "h") hField = &f;
  ASSERT_NE(hField, nullptr);
  EXPECT_EQ(hField->layout, "ONE_PTR") << "COMPACT_PTR of 2-byte aligned data is a full pointer";
  EXPECT_EQ(hField->size, 4u);
  expectEq(r, r.get<uint32_t>("out"), {0x44332211u, 0xD0C0B0A0u, 0u});
  expectHalf(r, r.get<uint16_t>("lane"), {h[2], h[7], h[8]});
  std::vector<uint16_t> rep = h;
  for (unsigned i = 0; i < 3; ++i) {
    uint16_t &x = rep[4 * i + (sel[i] & 3)];
    x = arch::floatToHalf(arch::halfToFloat(x) + 1.0f);
  }
  expectHalf(r, r.get<uint16_t>("replaced"), rep);
  expectEq(r, r.get<int8_t>("masked"), {int8_t(-1), int8_t(0x7f), int8_t(-1)});
  expectEq(r, r.get<int32_t>("first"), {3});
}
