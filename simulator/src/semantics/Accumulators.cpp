// The $AACC accumulators and the instructions that feed and drain them (docs/tile-timing.md,
// "Accumulators"). Sixteen binary32 accumulators per worker ([F] S2; [RE] S8), zeroed by the
// ZAACC bit of $FP_CLR. The lane maps follow the public evidence where there is some: gina reads
// the head pair of the even (or odd) chain and shifts the chain ([F] S2 gina table; [RE]
// tessellate-ipu); f32v2mac and f32v4acc feed the even accumulators 0, 2, 4, 6 (Graphcore's
// tutorial AsmTest results); f32v2axpy is a one-stage pipeline through AACC[0]/[2] and f32v2aop
// an outer product into AACC[0,2,4,6] ([RE] tessellate-ipu). Lane maps that nothing public shows
// (f16v8acc, f32mac, the cmac forms, f16v4mix/gacc, the istacc/stacc transpose's state) are ours,
// marked [I].
#include "ipusim/arch/Half.h"
#include "../Semantics.h"

#include <cmath>
#include <cstring>
#include <string>

namespace ipusim::sim {
using namespace arch; // the f16 conversions (ipusim/arch/Half.h)

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
// ---- f16v4istacc / f16v4stacc: a 4x4 transpose of 16-bit values through $AACC ----
// [F] S2: istacc presents 128 bits of input to be permuted through $AACC, propagates the $AACC
// state and writes 64 bits taken from $AACC, each as the immediate says; stacc does the same
// without input. [F] poplibs' transpose (S5's repository, popops inlineAssemblerTranspose.hpp,
// IPU21 code; the same use on Mk2 is [I]) uses them as a 4x4 transpose of 16-bit values: istacc
// P0 takes rows R0, R1 (its two source pairs), istacc P1 rows R2, R3, stacc P0 and P1 return
// columns 0 and 1, and the next block's istacc P0 and P1 return columns 2 and 3 of the previous
// block while loading the new rows; istacc with $azeros flushes the last block. Tracing that
// code's bytes gives column c = (R0.hc, R1.hc, R2.hc, R3.hc), R0's in the low half of the
// destination's first register ([I]: our reading of that code).
// Ours ([I]), where nothing public shows the state: the block is kept as raw 16-bit values (a
// permutation must keep any bit pattern, e.g. the 8-bit pairs poplibs moves this way), row r in
// AACC[2r] (halves 0, 1) and AACC[2r+1] (halves 2, 3); istacc P0 first moves the block to
// AACC[8..15], where P0 and P1 read columns 2 and 3; stacc leaves the state as it is; the flag
// values are TileConstants.hpp's (ours): P0 = 0, P1 = 1; other values are not modelled.
namespace {
uint32_t aaccBits(const Context &c, unsigned i) {
  uint32_t u;
  std::memcpy(&u, &c.aacc[i], 4);
  return u;
}
void setAaccBits(Context &c, unsigned i, uint32_t u) { std::memcpy(&c.aacc[i], &u, 4); }
/// Half h of row r of the block at AACC[base..base+7].
uint32_t blockHalf(const Context &c, unsigned base, unsigned r, unsigned h) {
  return aaccBits(c, base + 2 * r + h / 2) >> (16 * (h % 2)) & 0xFFFF;
}
/// Column h of the block at AACC[base..]: rows 0, 1 in the first register, 2, 3 in the second.
void writeColumn(Context &c, unsigned dst, unsigned base, unsigned h) {
  c.setA(dst, blockHalf(c, base, 0, h) | blockHalf(c, base, 1, h) << 16);
  c.setA(dst + 1, blockHalf(c, base, 2, h) | blockHalf(c, base, 3, h) << 16);
}
unsigned transposePhase(Tile &t, const Context &c, const Op &op, unsigned flagOperand) {
  const int32_t flags = op.v[flagOperand];
  if (flags != 0 && flags != 1)
    t.raise(c, std::string(op.desc->mnemonic) + " flags " + std::to_string(flags) +
                   " are not modelled (only P0 = 0 and P1 = 1, the 4x4 16-bit transpose)");
  return unsigned(flags);
}
} // namespace

IPU_SEMANTICS(f16v4istacc) {
  const unsigned phase = transposePhase(t, c, op, 3), d = unsigned(op.v[0]);
  const uint32_t in[4] = {c.a[op.v[1]], c.a[op.v[1] + 1], c.a[op.v[2]], c.a[op.v[2] + 1]};
  if (phase == 0)
    for (unsigned i = 0; i < 8; ++i) setAaccBits(c, 8 + i, aaccBits(c, i)); // the previous block
  writeColumn(c, d, 8, 2 + phase);
  for (unsigned i = 0; i < 4; ++i) setAaccBits(c, 4 * phase + i, in[i]); // rows 2p and 2p+1
}
IPU_SEMANTICS(f16v4stacc) { writeColumn(c, unsigned(op.v[0]), 0, transposePhase(t, c, op, 1)); }

// ---- f16v4mix / f16v4gacc ----
// f16v4mix $aD:D+1, $aX:X+1, $aY:Y+1: z = a x + b y on four halves, a and b from $TAS; z stays in
// the accumulators and the destination gets the previous z ([F] S2). [RE] S9 (osmarks/ipu-stack,
// docs/BIAS_GELU_MIX), quoting the IPU21 ISA: the two coefficients are halves in $TAS, the
// intermediates FP32, the previous result comes back as four halves, and f16v4gacc reads the new
// one as halves. Ours ([I]): a = $TAS bits 15:0, b = bits 31:16 (the F16_0 / F16_16 fields of
// $TAS, [RE] S8); lane k of z in AACC[2k], the even chain of f16v4acc and of f32v2axpy (so gacc
// also reads f16v4acc's sums); each product of halves is exact in binary32 and their sum is
// rounded once to binary32 (so contraction to an FMA cannot change it); halves are rounded to
// nearest even (floatToHalf) whatever $FP_CTL says, and no $FP_STS flag is raised.
namespace {
/// AACC[0], [2], [4], [6] as four halves into $aD:D+1 (f16v4mix's previous result, f16v4gacc).
void evenAccumulatorsAsHalves(Context &c, unsigned d) {
  c.setA(d, floatToHalf(c.aacc[0]) | uint32_t(floatToHalf(c.aacc[2])) << 16);
  c.setA(d + 1, floatToHalf(c.aacc[4]) | uint32_t(floatToHalf(c.aacc[6])) << 16);
}
} // namespace
IPU_SEMANTICS(f16v4mix) {
  const unsigned d = unsigned(op.v[0]), x = unsigned(op.v[1]), y = unsigned(op.v[2]);
  const float a = halfToFloat(uint16_t(c.tas)), b = halfToFloat(uint16_t(c.tas >> 16));
  float z[4];
  for (unsigned k = 0; k < 4; ++k) z[k] = a * lanef16(c, x, k) + b * lanef16(c, y, k);
  evenAccumulatorsAsHalves(c, d);
  for (unsigned k = 0; k < 4; ++k) c.aacc[2 * k] = z[k];
}
// f16v4gacc $aD:D+1: AACC[0], [2], [4], [6] as four halves ([F] S2 "get accumulators"; which four
// is ours, [I], as for f16v4mix); the accumulators are left as they are.
IPU_SEMANTICS(f16v4gacc) { evenAccumulatorsAsHalves(c, unsigned(op.v[0])); }

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
