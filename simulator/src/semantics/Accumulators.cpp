// The $AACC accumulators and the instructions that feed and drain them. The ISA document (S1)
// that defines which accumulator each lane uses is not public, so this is a model of ours
// ([I], docs/tile-timing.md "Accumulators"), made to agree with what is public: 16 binary32
// accumulators ([F] S2 tables; [RE] S8), zeroed by the ZAACC bit of $FP_CLR, f32v2axpy as a
// one-stage pipeline through AACC[0]/[2] and f32v2aop into AACC[0,2,4,6] as in Graphcore
// Research's host model of the AMP ([RE] tessellate-ipu ipu_amp.hpp, asm-dialect §5).
#include "../Half.h"
#include "../Semantics.h"

#include <cmath>

namespace ipusim::sim {

namespace {

float lanef32(const Context &c, unsigned reg, unsigned k) { return asFloat(c.a[reg + k]); }
float lanef16(const Context &c, unsigned reg, unsigned k) { return halfToFloat(uint16_t(c.a[reg + k / 2] >> (16 * (k % 2)))); }

template <class F> void accumulate(Context &c, const Op &op, unsigned lanes, bool half, F f) {
  unsigned r = unsigned(op.v[0]);
  for (unsigned k = 0; k < lanes; ++k) c.aacc[k] += f(half ? lanef16(c, r, k) : lanef32(c, r, k));
}

float identity(float x) { return x; }
float absolute(float x) { return std::fabs(x); }
float square(float x) { return x * x; }

} // namespace

// Lane k adds into AACC[k].
IPU_SEMANTICS(f32v4acc) { accumulate(c, op, 4, false, identity); }
IPU_SEMANTICS(f32v4absacc) { accumulate(c, op, 4, false, absolute); }
IPU_SEMANTICS(f32v4sqacc) { accumulate(c, op, 4, false, square); }
IPU_SEMANTICS(f16v4acc) { accumulate(c, op, 4, true, identity); }
IPU_SEMANTICS(f16v4absacc) { accumulate(c, op, 4, true, absolute); }
IPU_SEMANTICS(f16v8acc) { accumulate(c, op, 8, true, identity); }
IPU_SEMANTICS(f16v8absacc) { accumulate(c, op, 8, true, absolute); }
IPU_SEMANTICS(f16v8sqacc) { accumulate(c, op, 8, true, square); }

// Multiply-accumulate: f32mac into AACC[0]; f32v2mac lane k into AACC[k]; the f16 "cmac" forms
// add the sum of each pair of products (the 2x2 lateral sum) into AACC[0] (and AACC[1]).
IPU_SEMANTICS(f32mac) { c.aacc[0] += asFloat(c.a[op.v[0]]) * asFloat(c.a[op.v[1]]); }
IPU_SEMANTICS(f32v2mac) {
  for (unsigned k = 0; k < 2; ++k) c.aacc[k] += lanef32(c, unsigned(op.v[0]), k) * lanef32(c, unsigned(op.v[1]), k);
}
IPU_SEMANTICS(f16v2cmac) {
  unsigned a = unsigned(op.v[0]), b = unsigned(op.v[1]);
  c.aacc[0] += lanef16(c, a, 0) * lanef16(c, b, 0) + lanef16(c, a, 1) * lanef16(c, b, 1);
}
IPU_SEMANTICS(f16v4cmac) {
  unsigned a = unsigned(op.v[0]), b = unsigned(op.v[1]);
  for (unsigned p = 0; p < 2; ++p)
    c.aacc[p] += lanef16(c, a, 2 * p) * lanef16(c, b, 2 * p) + lanef16(c, a, 2 * p + 1) * lanef16(c, b, 2 * p + 1);
}

// gina ("get and insert accumulators"): the immediate selects the pair AACC[2i], AACC[2i+1];
// their old values go to the destination and the source's values replace them.
IPU_SEMANTICS(f32v2gina) {
  unsigned i = 2 * (unsigned(op.v[2]) % 8), d = unsigned(op.v[0]), s = unsigned(op.v[1]);
  float in0 = lanef32(c, s, 0), in1 = lanef32(c, s, 1);
  c.setA(d, asBits(c.aacc[i]));
  c.setA(d + 1, asBits(c.aacc[i + 1]));
  c.aacc[i] = in0;
  c.aacc[i + 1] = in1;
}
IPU_SEMANTICS(f16v2gina) {
  unsigned i = 2 * (unsigned(op.v[2]) % 8), s = unsigned(op.v[1]);
  float in0 = lanef16(c, s, 0), in1 = lanef16(c, s, 1);
  c.setA(unsigned(op.v[0]), floatToHalf(c.aacc[i]) | uint32_t(floatToHalf(c.aacc[i + 1])) << 16);
  c.aacc[i] = in0;
  c.aacc[i + 1] = in1;
}
// f16v4stacc: four accumulators (phase p: AACC[4p..4p+3]) stored as halves.
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
// f32v2aop: the outer product of two pairs added into AACC[0], [2], [4], [6] ([RE] tessellate-ipu).
IPU_SEMANTICS(f32v2aop) {
  unsigned a = unsigned(op.v[0]), b = unsigned(op.v[1]);
  for (unsigned i = 0; i < 2; ++i)
    for (unsigned j = 0; j < 2; ++j) c.aacc[2 * (2 * i + j)] += lanef32(c, a, i) * lanef32(c, b, j);
}

} // namespace ipusim::sim
