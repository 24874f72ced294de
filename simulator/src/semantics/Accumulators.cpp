// The $AACC accumulators and the instructions that feed and drain them (docs/tile-timing.md,
// "Accumulators"). Sixteen binary32 accumulators per worker ([F] S2; [RE] S8), zeroed by the
// ZAACC bit of $FP_CLR. The lane maps follow the public evidence where there is some: gina reads
// the head pair of the even (or odd) chain and shifts the chain ([F] S2 gina table; [RE]
// tessellate-ipu); f32v2mac and f32v4acc feed the even accumulators 0, 2, 4, 6 (Graphcore's
// tutorial AsmTest results); f32v2axpy is a one-stage pipeline through AACC[0]/[2] and f32v2aop
// an outer product into AACC[0,2,4,6] ([RE] tessellate-ipu). Lane maps that nothing public shows
// (f16v8acc, f32mac, the cmac forms, f16v4stacc) are ours, marked [I].
#include "../Half.h"
#include "../Semantics.h"

#include <cmath>

namespace ipusim::sim {

namespace {

float lanef32(const Context &c, unsigned reg, unsigned k) { return asFloat(c.a[reg + k]); }
float lanef16(const Context &c, unsigned reg, unsigned k) { return halfToFloat(uint16_t(c.a[reg + k / 2] >> (16 * (k % 2)))); }

/// Lane k adds into AACC[2k], the even chain.
template <class F> void accumulate(Context &c, const Op &op, unsigned lanes, bool half, F f) {
  unsigned r = unsigned(op.v[0]);
  for (unsigned k = 0; k < lanes; ++k) c.aacc[2 * k] += f(half ? lanef16(c, r, k) : lanef32(c, r, k));
}

float identity(float x) { return x; }
float absolute(float x) { return std::fabs(x); }
float square(float x) { return x * x; }

} // namespace

IPU_SEMANTICS(f32v4acc) { accumulate(c, op, 4, false, identity); }
IPU_SEMANTICS(f32v4absacc) { accumulate(c, op, 4, false, absolute); }
IPU_SEMANTICS(f32v4sqacc) { accumulate(c, op, 4, false, square); }
IPU_SEMANTICS(f16v4acc) { accumulate(c, op, 4, true, identity); }
IPU_SEMANTICS(f16v4absacc) { accumulate(c, op, 4, true, absolute); }
IPU_SEMANTICS(f16v8acc) { accumulate(c, op, 8, true, identity); }
IPU_SEMANTICS(f16v8absacc) { accumulate(c, op, 8, true, absolute); }
IPU_SEMANTICS(f16v8sqacc) { accumulate(c, op, 8, true, square); }

// Multiply-accumulate: f32v2mac lane k into AACC[2k] (tutorial evidence); f32mac into AACC[0]
// and the f16 "cmac" forms' pair sums into AACC[0] (and AACC[2]) [I].
IPU_SEMANTICS(f32mac) { c.aacc[0] += asFloat(c.a[op.v[0]]) * asFloat(c.a[op.v[1]]); }
IPU_SEMANTICS(f32v2mac) {
  for (unsigned k = 0; k < 2; ++k) c.aacc[2 * k] += lanef32(c, unsigned(op.v[0]), k) * lanef32(c, unsigned(op.v[1]), k);
}
IPU_SEMANTICS(f16v2cmac) {
  unsigned a = unsigned(op.v[0]), b = unsigned(op.v[1]);
  c.aacc[0] += lanef16(c, a, 0) * lanef16(c, b, 0) + lanef16(c, a, 1) * lanef16(c, b, 1);
}
IPU_SEMANTICS(f16v4cmac) {
  unsigned a = unsigned(op.v[0]), b = unsigned(op.v[1]);
  for (unsigned p = 0; p < 2; ++p)
    c.aacc[2 * p] += lanef16(c, a, 2 * p) * lanef16(c, b, 2 * p) + lanef16(c, a, 2 * p + 1) * lanef16(c, b, 2 * p + 1);
}

namespace {
/// gina: the head pair of one chain (immediate bit 0: the even chain 0, 2, ... 14 or the odd one)
/// comes out, the chain moves down a pair, and the input enters at its tail (AACC[12], [14] or
/// [13], [15]) ([F] S2 gina table; [RE] tessellate-ipu). Other immediate bits are not modelled.
void gina(Context &c, unsigned imm, float in0, float in1, float &out0, float &out1) {
  unsigned odd = imm & 1;
  out0 = c.aacc[odd];
  out1 = c.aacc[2 + odd];
  for (unsigned i = odd; i + 4 < 16; i += 2) c.aacc[i] = c.aacc[i + 4];
  c.aacc[12 + odd] = in0;
  c.aacc[14 + odd] = in1;
}
} // namespace

IPU_SEMANTICS(f32v2gina) {
  unsigned d = unsigned(op.v[0]), s = unsigned(op.v[1]);
  float out0, out1;
  gina(c, unsigned(op.v[2]), lanef32(c, s, 0), lanef32(c, s, 1), out0, out1);
  c.setA(d, asBits(out0));
  c.setA(d + 1, asBits(out1));
}
IPU_SEMANTICS(f16v2gina) {
  unsigned s = unsigned(op.v[1]);
  float out0, out1;
  gina(c, unsigned(op.v[2]), lanef16(c, s, 0), lanef16(c, s, 1), out0, out1);
  c.setA(unsigned(op.v[0]), floatToHalf(out0) | uint32_t(floatToHalf(out1)) << 16);
}
// f16v4stacc: four accumulators (phase p: AACC[4p..4p+3]) as halves [I]: the real permutation is
// in S1, not public.
IPU_SEMANTICS(f16v4stacc) {
  unsigned base = 4 * (unsigned(op.v[1]) % 4), d = unsigned(op.v[0]);
  c.setA(d, floatToHalf(c.aacc[base]) | uint32_t(floatToHalf(c.aacc[base + 1])) << 16);
  c.setA(d + 1, floatToHalf(c.aacc[base + 2]) | uint32_t(floatToHalf(c.aacc[base + 3])) << 16);
}

// f32v2axpy: a one-stage pipeline: the result of the previous axpy comes out while
// $TAS * x + y goes in, in AACC[0] and AACC[2] ([RE] tessellate-ipu).
IPU_SEMANTICS(f32v2axpy) {
  unsigned d = unsigned(op.v[0]), x = unsigned(op.v[1]), y = unsigned(op.v[2]);
  float scale = asFloat(c.tas);
  float n0 = scale * lanef32(c, x, 0) + lanef32(c, y, 0), n1 = scale * lanef32(c, x, 1) + lanef32(c, y, 1);
  c.setA(d, asBits(c.aacc[0]));
  c.setA(d + 1, asBits(c.aacc[2]));
  c.aacc[0] = n0;
  c.aacc[2] = n1;
}
// f32v2aop: the outer product of two pairs: AACC[0] += x0 y0, [2] += x1 y0, [4] += x0 y1,
// [6] += x1 y1 ([RE] tessellate-ipu).
IPU_SEMANTICS(f32v2aop) {
  unsigned x = unsigned(op.v[0]), y = unsigned(op.v[1]);
  for (unsigned j = 0; j < 2; ++j)
    for (unsigned i = 0; i < 2; ++i) c.aacc[2 * (i + 2 * j)] += lanef32(c, x, i) * lanef32(c, y, j);
}

} // namespace ipusim::sim
