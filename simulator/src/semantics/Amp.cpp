// The AMP (accumulating matrix product), following the ISA documentation's "8x1x1x16" example
// table for f16v4hihoamp and f16v4sisoamp ([F] S2; ipu-facts §3.2; docs/tile-timing.md "AMP"):
//  - eight engines; engine k keeps its running sum R_k in $AACC[2k];
//  - four issues make a set, phase p bringing input channels 4p..4p+3 (four halves):
//    phase 0 starts a new set, R_k = x . CWEI_k_0 + Pin_k; phase p adds x . CWEI_k_p;
//    $CWEI_k_p is the 64-bit entry 4k+p (four f16 weights);
//  - every issue also takes two partials, for engines 2p and 2p+1 of the NEXT set (the partials
//    given in the four issues before a phase 0 are the Pin of the set it starts), and returns two
//    results of the PREVIOUS set: (R_2p, R_2p+1). So results emerge four AMP issues after the
//    phase-0 input that starts their set, and a program first runs four warm-up issues.
// Where the pending partials and the finished set wait is not public: here, $AACC[2k+1] and a
// hidden buffer of eight. f32sisoamp runs the same set over eight issues of one f32 input each
// (below). The E1/E2 engine selections and the 16-output forms are not modelled.
#include "../Half.h"
#include "../Semantics.h"

namespace ipusim::sim {

namespace {

/// Flags as TileConstants.hpp defines them (ours): (log2(engines) << 3) | phase. f16v4 inputs
/// take 4 phases with four engines, f32 inputs 8 ([F] S5: TAMP_F16V4_E4_P0..P3, TAMP_F32_E4_P0..P7).
unsigned phaseOf(Tile &t, Context &c, const Op &op, unsigned phases = 4) {
  unsigned flags = unsigned(op.v[3]);
  if ((flags >> 3) != 2) t.raise(c, "AMP with fewer than four engines (E1/E2 flags) is not modelled yet");
  if ((flags & 7) >= phases)
    t.raise(c, "AMP phase " + std::to_string(flags & 7) + " does not exist for " + (phases == 4 ? "f16v4" : "f32") +
                   " inputs");
  return flags & 7;
}

/// Partials and results move through the AMP in order, a pair an issue, whatever the phase:
/// poplibs primes the partials with four phase-1 issues on IPU21 ([F] S5 inlineAssemblerConv.hpp,
/// "phase != 0"). A phase 0 starts the set from the pairs queued before it, finishes the running
/// set into the result queue, and its own pairs are the first of the next ([I] the queue's reset).
void startSet(Context &c) {
  for (unsigned k = 0; k < 8; ++k) c.ampResults[k] = c.aacc[2 * k];
  c.ampIn = c.ampOut = 0;
}
/// Returns the next result pair and queues a partial pair for the next set.
void movePairs(Context &c, float partial0, float partial1, float &out0, float &out1) {
  out0 = c.ampResults[2 * c.ampOut];
  out1 = c.ampResults[2 * c.ampOut + 1];
  c.ampOut = uint8_t((c.ampOut + 1) % 4);
  c.aacc[4 * c.ampIn + 1] = partial0; // Pin of engines 2i and 2i + 1, waiting in the odd AACC
  c.aacc[4 * c.ampIn + 3] = partial1;
  c.ampIn = uint8_t((c.ampIn + 1) % 4);
}

/// One issue: returns the previous set's next results, then feeds the input and partials.
void issueAmp(Tile &t, Context &c, unsigned p, unsigned inputReg, float partial0, float partial1, float &out0,
              float &out1) {
  float pin[8];
  for (unsigned k = 0; k < 8; ++k) pin[k] = c.aacc[2 * k + 1];
  if (p == 0) startSet(c); // the running set is finished: it is read out over the next four issues
  float x[4];
  for (unsigned i = 0; i < 4; ++i) x[i] = halfToFloat(uint16_t(c.a[inputReg + i / 2] >> (16 * (i % 2))));
  const uint64_t *w = t.commonWeights();
  for (unsigned k = 0; k < 8; ++k) {
    uint64_t weights = w[4 * k + p];
    float dot = 0;
    for (unsigned i = 0; i < 4; ++i) dot += halfToFloat(uint16_t(weights >> (16 * i))) * x[i];
    c.aacc[2 * k] = (p == 0 ? pin[k] : c.aacc[2 * k]) + dot; // phase 0 starts from Pin_k
  }
  movePairs(c, partial0, partial1, out0, out1);
}

} // namespace

// f16v4hihoamp $aD, $aIn:In+1, $aPartials, flags: f16 partials in and results out.
IPU_SEMANTICS(f16v4hihoamp) {
  unsigned p = phaseOf(t, c, op);
  uint32_t partials = c.a[op.v[2]];
  float out0, out1;
  issueAmp(t, c, p, unsigned(op.v[1]), halfToFloat(uint16_t(partials)), halfToFloat(uint16_t(partials >> 16)), out0,
           out1);
  c.setA(unsigned(op.v[0]), floatToHalf(out0) | uint32_t(floatToHalf(out1)) << 16);
}

// f16v4sihoamp $aD, $aIn:In+1, $aPartials:P+1, flags: f32 partials in, f16 results out ([F] S2
// operands; no public use, so [I] the same set pipeline as the other forms).
IPU_SEMANTICS(f16v4sihoamp) {
  unsigned p = phaseOf(t, c, op);
  unsigned pr = unsigned(op.v[2]);
  float out0, out1;
  issueAmp(t, c, p, unsigned(op.v[1]), asFloat(c.a[pr]), asFloat(c.a[pr + 1]), out0, out1);
  c.setA(unsigned(op.v[0]), floatToHalf(out0) | uint32_t(floatToHalf(out1)) << 16);
}

// f32sisoamp $aD:D+1, $aIn, $aPartials:P+1, flags: eight f32 output channels; a set takes eight
// issues (phases 0-7), each one f32 input channel j, weighted by the low (j even) or high (j odd)
// 32 bits of $CWEI_k_(j/2) ([F] S2 operands; Graphcore's tutorial matrix code and poplibs'
// conv_partial_1x1_float_float load order, [I] the lane map). Partials and results move on the
// even phases only ([F] the tutorial: "only on even phases for f32sisoamp"; poplibs passes
// $azeros at odd phases), a pair an even issue as above. On odd phases the destination is left as
// it was ([I]).
IPU_SEMANTICS(f32sisoamp) {
  const unsigned j = phaseOf(t, c, op, 8), q = j / 2;
  const float x = asFloat(c.a[op.v[1]]);
  const uint64_t *w = t.commonWeights();
  float pin[8];
  for (unsigned k = 0; k < 8; ++k) pin[k] = c.aacc[2 * k + 1];
  if (j == 0) startSet(c);
  for (unsigned k = 0; k < 8; ++k) {
    const float weight = asFloat(uint32_t(w[4 * k + q] >> (32 * (j & 1))));
    c.aacc[2 * k] = (j == 0 ? pin[k] : c.aacc[2 * k]) + x * weight; // phase 0 starts from Pin_k
  }
  if (j & 1) return;
  const unsigned pr = unsigned(op.v[2]), d = unsigned(op.v[0]);
  float out0, out1;
  movePairs(c, asFloat(c.a[pr]), asFloat(c.a[pr + 1]), out0, out1);
  c.setA(d, asBits(out0));
  c.setA(d + 1, asBits(out1));
}

// f16v4sisoamp $aD:D+1, $aIn:In+1, $aPartials:P+1, flags: f32 partials in and results out.
IPU_SEMANTICS(f16v4sisoamp) {
  unsigned p = phaseOf(t, c, op);
  unsigned pr = unsigned(op.v[2]);
  float out0, out1;
  issueAmp(t, c, p, unsigned(op.v[1]), asFloat(c.a[pr]), asFloat(c.a[pr + 1]), out0, out1);
  c.setA(unsigned(op.v[0]), asBits(out0));
  c.setA(unsigned(op.v[0]) + 1, asBits(out1));
}

} // namespace ipusim::sim
