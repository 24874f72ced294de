// The AMP (accumulating matrix product) unit: a model of ours ([I], docs/tile-timing.md "AMP"),
// built from the public facts (ipu-facts §3.2): the weights are the 64 $CWEI words loaded by the
// supervisor with ld64putcs/ld128putcs; an instruction takes four input halves and, for the
// "hiho" form, two f16 partials in and two f16 results out (the "siso" form: two f32 of each);
// the four phases P0..P3 of the TAMP_*_E4 flags each bring four of sixteen input channels, so a
// round of four issues computes eight output channels (32 MACs an issue), and results come out
// in the next round: four AMP issues after the input that completes them ([F] S2 example table).
// $CWEI_n_m (index 4n+m) holds the weights of input channel n for output channels 2m and 2m+1.
// The in-flight sums live in $AACC[0..7], the finished round's results in $AACC[8..15].
#include "../Half.h"
#include "../Semantics.h"

namespace ipusim::sim {

namespace {

/// Flags as TileConstants.hpp defines them (ours): (log2(engines) << 3) | phase.
unsigned phaseOf(Tile &t, Context &c, const Op &op, unsigned flagOperand) {
  unsigned flags = unsigned(op.v[flagOperand]);
  if ((flags >> 3) != 2) t.raise(c, "AMP with fewer than four engines (E1/E2 flags) is not modelled yet");
  return flags & 7;
}

/// One phase: input channels 4p..4p+3 into all eight outputs; partials for outputs 2p, 2p+1 in.
void phase(Tile &t, Context &c, unsigned p, const float in[4], float partial0, float partial1) {
  const uint32_t *w = t.commonWeights();
  for (unsigned i = 0; i < 4; ++i) {
    unsigned n = 4 * p + i;
    for (unsigned m = 0; m < 4; ++m) {
      uint32_t word = w[4 * n + m];
      c.aacc[2 * m] += halfToFloat(uint16_t(word)) * in[i];
      c.aacc[2 * m + 1] += halfToFloat(uint16_t(word >> 16)) * in[i];
    }
  }
  c.aacc[2 * p] += partial0;
  c.aacc[2 * p + 1] += partial1;
}

/// After phase 3 the round's sums become the results the next round reads out.
void endRound(Context &c, unsigned p) {
  if (p != 3) return;
  for (unsigned o = 0; o < 8; ++o) {
    c.aacc[8 + o] = c.aacc[o];
    c.aacc[o] = 0;
  }
}

void inputs(const Context &c, unsigned reg, float in[4]) {
  for (unsigned i = 0; i < 4; ++i) in[i] = halfToFloat(uint16_t(c.a[reg + i / 2] >> (16 * (i % 2))));
}

} // namespace

// f16v4hihoamp $aD, $aIn:In+1, $aPartials, flags: f16 partials in and out.
IPU_SEMANTICS(f16v4hihoamp) {
  unsigned p = phaseOf(t, c, op, 3);
  float in[4];
  inputs(c, unsigned(op.v[1]), in);
  uint32_t partials = c.a[op.v[2]];
  uint32_t out = floatToHalf(c.aacc[8 + 2 * p]) | uint32_t(floatToHalf(c.aacc[8 + 2 * p + 1])) << 16;
  phase(t, c, p, in, halfToFloat(uint16_t(partials)), halfToFloat(uint16_t(partials >> 16)));
  endRound(c, p);
  c.setA(unsigned(op.v[0]), out);
}

// f16v4sisoamp $aD:D+1, $aIn:In+1, $aPartials:P+1, flags: f32 partials in and out.
IPU_SEMANTICS(f16v4sisoamp) {
  unsigned p = phaseOf(t, c, op, 3);
  float in[4];
  inputs(c, unsigned(op.v[1]), in);
  unsigned pr = unsigned(op.v[2]);
  float p0 = asFloat(c.a[pr]), p1 = asFloat(c.a[pr + 1]);
  uint32_t out0 = asBits(c.aacc[8 + 2 * p]), out1 = asBits(c.aacc[8 + 2 * p + 1]);
  phase(t, c, p, in, p0, p1);
  endRound(c, p);
  c.setA(unsigned(op.v[0]), out0);
  c.setA(unsigned(op.v[0]) + 1, out1);
}

} // namespace ipusim::sim
