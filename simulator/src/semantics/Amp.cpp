// The AMP (accumulating matrix product), following the ISA documentation's "8x1x1x16" example
// table for f16v4hihoamp and f16v4sisoamp ([F] S2; ipu-facts §3.2; docs/tile-timing.md "AMP"):
//  - an AMP set of up to eight outputs k (four engines of two, [F] S8 constants); output k keeps
//    its running sum R_k in $AACC[2k];
//  - a set takes one issue a phase; with f16v4 inputs phase p brings input channels 4p..4p+3 (four
//    halves); phase 0 starts a new set, R_k = x . CWEI_k_0 + Pin_k, phase p adds x . CWEI_k_p;
//    $CWEI_k_p is the 64-bit entry 4k+p (four f16 weights);
//  - partials go in and results come out in order, a pair an issue: the pairs given since the last
//    phase 0 are the Pin of the set the next phase 0 starts, and the issues from a phase 0 on
//    return (R_0, R_1), (R_2, R_3) ... of the set it finished. Results emerge four issues after the
//    phase-0 input that starts their set; a program begins with warm-up issues.
// Where the pending partials and the finished set wait is not public: here, $AACC[2k+1] and a
// hidden buffer. The flags select the engines (E1, E2, E4: 2, 4 or 8 outputs, with as many f16v4
// phases as engines and twice as many f32 ones, [I] from poplibs' and popsparse's use); the
// 16-output forms (f16v4hihov4amp, f32sisov2amp) run a second set beside the first ([F] Mk2 has
// 64 $CWEI entries, [I] the second set's lane order from poplibs' weight placement).
#include "ipusim/arch/Half.h"
#include "../Semantics.h"

#include <optional>
#include <utility>

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
#endif

namespace ipusim::sim {
using namespace arch; // the f16 conversions (ipusim/arch/Half.h)

namespace {

/// One AMP set's state: running sums, pending partials (Pin) and the finished set being read out.
struct AmpSet {
  float *sum, *pin; ///< output k's at sum[k] ($AACC[2k]) and pin[k] ($AACC[2k+1])
  float *results;   ///< the finished set's outputs
  unsigned weightBase; ///< output k's weights are $CWEI_(weightBase + k)_p
};
AmpSet setA(Context &c) { return {c.aacc.even(), c.aacc.odd(), c.ampResults, 0}; }
AmpSet setB(Context &c) { return {c.ampB.even(), c.ampB.odd(), c.ampResultsB, 8}; }

/// The flags (TileConstants.hpp, ours: (log2(engines) << 3) | phase): outputs and phase.
struct Flags {
  unsigned outputs, phase;
};
/// Raises the exception for flags that flagsOf refuses.
[[gnu::noinline, gnu::cold]] void badFlags(Tile &t, Context &c, unsigned flags, unsigned phasesPerEngine,
                                           bool allEngines) {
  const unsigned log2Engines = flags >> 3;
  if (log2Engines > 2) t.raise(c, "AMP flags " + std::to_string(flags) + " select no engine count (E1, E2, E4)");
  if (allEngines && log2Engines != 2) t.raise(c, "the 16-output AMP forms use all four engines (E4)");
  const unsigned engines = 1u << log2Engines, phases = engines * phasesPerEngine;
  t.raise(c, "AMP phase " + std::to_string(flags & 7) + " does not exist with " + std::to_string(engines) +
                 " engine(s) (" + std::to_string(phases) + " phases)");
}
inline Flags flagsOf(Tile &t, Context &c, const Op &op, unsigned phasesPerEngine, bool allEngines = false) {
  const unsigned flags = unsigned(op.v[3]), log2Engines = flags >> 3;
  if (log2Engines > 2 || (allEngines && log2Engines != 2) || (flags & 7) >= (phasesPerEngine << log2Engines))
    [[unlikely]] badFlags(t, c, flags, phasesPerEngine, allEngines);
  return {2u << log2Engines, flags & 7};
}

/// The pair after `pair` in a set of `outputs` outputs (outputs / 2 is 1, 2 or 4 engines).
uint8_t nextPair(unsigned pair, unsigned outputs) { return uint8_t((pair + 1) & (outputs / 2 - 1)); }

// Four and eight binary32 lanes (GCC/Clang vectors: SSE or AVX on x86-64, NEON on AArch64). Each
// lane's multiplies and adds are the scalar ones, rounded alike, so several outputs' sums go at once.
using Lanes = float __attribute__((vector_size(16)));
using Lanes8 = float __attribute__((vector_size(32)));
inline Lanes lanesAt(const float *p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// Returns result pair `i` of the finished set and queues a partial pair as Pin of outputs 2i, 2i+1.
inline void movePair(const AmpSet &s, unsigned i, float partial0, float partial1, float &out0, float &out1) {
  out0 = s.results[2 * i];
  out1 = s.results[2 * i + 1];
  // One 64-bit store: a phase 0 reads the pending partials back a pair a load (sumsFor), which
  // the host forwards from a store of the same size but not from two halves.
  const float pin[2] = {partial0, partial1};
  std::memcpy(s.pin + 2 * i, pin, sizeof pin);
}

/// Four f16 inputs (a register pair) as floats (the SLIC forms').
struct Inputs {
  float x[4];
  [[gnu::always_inline]] Inputs(const Context &c, unsigned reg) {
    for (unsigned i = 0; i < 4; ++i) x[i] = halfToFloat(uint16_t(c.a[reg + i / 2] >> (16 * (i % 2))));
  }
};

/// The dot product of four f16 inputs with the four f16 weights of $CWEI entry `entry`, summed in
/// order in binary32.
float dot4(const Tile &t, const Inputs &in, unsigned entry) {
  float dot = 0;
  for (unsigned i = 0; i < 4; ++i) dot += t.ampHalfWeights(entry % 4, i)[entry / 4] * in.x[i];
  return dot;
}

// The AMP forms (AmpForms.inc), for any host and for hosts with AVX2 and F16C. (The portable copy
// passes eight-lane values between its own internal functions, which -Wpsabi warns of: its
// callers are all in this copy, so the ABI is the same at both ends.)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpsabi"
namespace portable {
#define IPUSIM_HOST_F16C 0
#include "AmpForms.inc"
#undef IPUSIM_HOST_F16C
} // namespace portable
#pragma clang diagnostic pop
#if defined(__x86_64__) && defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,f16c"))), apply_to = function)
namespace avx2 {
#define IPUSIM_HOST_F16C 1
#include "AmpForms.inc"
#undef IPUSIM_HOST_F16C
} // namespace avx2
#pragma clang attribute pop
// A third copy for hosts with AVX-512, of which the tile takes only the pace-AMP executor
// (vectorPaceAmpLoop): both sets' sixteen lanes one value (LoopSets). Its handlers go unused.
#pragma clang attribute push(__attribute__((target("avx2,f16c,avx512f,avx512vl"))), apply_to = function)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
namespace avx512 {
#define IPUSIM_HOST_F16C 1
#define IPUSIM_HOST_AVX512 1
#include "AmpForms.inc"
#undef IPUSIM_HOST_AVX512
#undef IPUSIM_HOST_F16C
} // namespace avx512
#pragma clang diagnostic pop
#pragma clang attribute pop
#endif
} // namespace

// Each form's handler, and where the host has them its AVX2 and F16C one, which the tile's fast
// path takes (Semantics.h, RegisterHostVector).
#if defined(__x86_64__) && defined(__clang__)
#define AMP_FORM(name)                                                                           \
  static RegisterHandler reg_##name(#name, portable::name);                                      \
  static RegisterHostVector vec_##name(#name, avx2::name);
#else
#define AMP_FORM(name) static RegisterHandler reg_##name(#name, portable::name);
#endif
AMP_FORM(f16v4hihoamp)
AMP_FORM(f16v4sisoamp)
AMP_FORM(f16v4sihoamp)
AMP_FORM(f16v4hihov4amp)
AMP_FORM(f32sisoamp)
AMP_FORM(f32sisov2amp)
#undef AMP_FORM

uint64_t vectorPaceAmpLoop(Tile &t, Context &c, PaceLoop &loop) {
#if defined(__x86_64__) && defined(__clang__)
  // The same bits either way (each lane's operations are the same); the wider one is faster.
  if (hostWideVectorUnits()) return avx512::paceAmpLoop(t, c, loop);
  return avx2::paceAmpLoop(t, c, loop);
#else
  (void)t, (void)c, (void)loop;
  return 0;
#endif
}

// ---- SLIC: slim convolutions (1-D kernels of 4 or 3 taps over 4 f16 input channels, 2 outputs) ----
// From the ISA documentation's SLIC tables ([F] S2): the taps are chains of accumulators, the
// even output's AACC[12] -> [8] -> [4] -> [0] and the odd output's [14] -> [10] -> [6] -> [2]
// (the 3-tap form starts at [8] and [10]). Issue i takes input x_i and a partial pair: the chain
// heads start R_2i = x_i . CW_6 + P_2i and R_2i+1 = x_i . CW_7 + P_2i+1, every later link adds
// x_i times its own weights (CW_4/CW_5, CW_2/CW_3, CW_0/CW_1) to the sum the link before it held,
// and the issue returns the pair that left the tail: (R_2i-8, R_2i-7) with 4 taps, the first
// valid one at the fifth issue ([F] poplibs ConvPartial1x4SLIC: "1st valid output"). CW_m is
// $CWEI_m_0 or $CWEI_m_1 as the flags' bank bit says ([F] poplibs: TSLIC_F16V4_1x4_W0/W1 select
// the bank). The flag values are ours (TileConstants.hpp): bit 0 the bank, bit 1 the 3-tap form.
// The 16-output forms run a second set of chains beside the first, as the 16-output AMP forms do:
// set B's chains are hidden state laid out as AACC's ([I]) and its output channel m is weighted
// by $CWEI_(8+m)_bank ([F] poplibs' half_half_16 SLIC loads the second output pair's weights at
// entries 32 + 4m; [I] that the bank bit selects set B's bank too, as IPU21's f8v8hihov4slic
// weight loads imply).
namespace {

/// Output channel m's weights in set s: $CWEI_(base + m)_bank (the entry's index).
unsigned slicEntry(const AmpSet &s, unsigned bank, unsigned m) { return 4 * (s.weightBase + m) + bank; }

/// One issue of a set's chains: returns the tail pair, shifts every link by one and adds the
/// input's products; `product(m)` is the input times output channel m's weights. The chains'
/// accumulators are the even ones: AACC[2j] is s.sum[j], so link l of the even chain (AACC[4l])
/// is sum[2l] and of the odd chain (AACC[4l + 2]) sum[2l + 1].
template <class Product>
void slicIssue(const AmpSet &s, bool threeTaps, float partial0, float partial1, Product product, float &out0,
               float &out1) {
  float *acc = s.sum;
  out0 = acc[0];
  out1 = acc[1];
  const unsigned head = threeTaps ? 4 : 6;
  for (unsigned j = 0; j < head; j += 2) { // tail first: each link takes the one above
    acc[j] = acc[j + 2] + product(j);
    acc[j + 1] = acc[j + 3] + product(j + 1);
  }
  acc[head] = partial0 + product(head);
  acc[head + 1] = partial1 + product(head + 1);
}

/// The f32 forms' high issue: adds the products to the same links, without shifting ([I]), and
/// a partial pair to the heads.
template <class Product>
void slicAdd(const AmpSet &s, bool threeTaps, float partial0, float partial1, Product product) {
  float *acc = s.sum;
  const unsigned head = threeTaps ? 4 : 6;
  for (unsigned j = 0; j < head; j += 2) {
    acc[j] += product(j);
    acc[j + 1] += product(j + 1);
  }
  acc[head] += partial0 + product(head);
  acc[head + 1] += partial1 + product(head + 1);
}

unsigned slicFlags(Tile &t, Context &c, const Op &op) {
  const unsigned flags = unsigned(op.v[3]);
  if (flags > 3) t.raise(c, "SLIC flags " + std::to_string(flags) + " are not a form (bit 0 bank, bit 1 3-tap)");
  return flags;
}

/// A f16v4 SLIC issue on set s: four f16 inputs in a register pair.
void slicF16(Tile &t, Context &c, const Op &op, const AmpSet &s, float partial0, float partial1, float &out0,
             float &out1) {
  const unsigned flags = slicFlags(t, c, op);
  const Inputs in(c, unsigned(op.v[1]));
  slicIssue(s, flags & 2, partial0, partial1, [&](unsigned m) { return dot4(t, in, slicEntry(s, flags & 1, m)); }, out0,
            out1);
}

/// The f32 forms' flags (ours): bit 0 the bank, bit 1 the 3-tap form, bit 2 the high issue.
unsigned f32SlicFlags(Tile &t, Context &c, const Op &op) {
  const unsigned flags = unsigned(op.v[3]);
  if (flags > 7)
    t.raise(c, "SLIC flags " + std::to_string(flags) + " are not a form (bit 0 bank, bit 1 3-tap, bit 2 high)");
  return flags;
}

/// An f32 issue's products for set s: the input element times the low (low issue) or high (high
/// issue) word of output channel m's weights.
auto f32SlicProduct(Tile &t, const AmpSet &s, unsigned flags, float x) {
  // Word (flags >> 2 & 1) of $CWEI_(base + m)_bank: ampFloatWeights' input 2 bank + word.
  const float *w = t.ampFloatWeights(2 * (flags & 1) + ((flags >> 2) & 1)) + s.weightBase;
  return [w, x](unsigned m) { return x * w[m]; };
}

} // namespace

// f16v4hihoslic $aD, $aIn:In+1, $aPartials: f16 partial pair in, f16 result pair out.
IPU_SEMANTICS(f16v4hihoslic) {
  const uint32_t p = c.a[op.v[2]];
  float out0, out1;
  slicF16(t, c, op, setA(c), halfToFloat(uint16_t(p)), halfToFloat(uint16_t(p >> 16)), out0, out1);
  c.setA(unsigned(op.v[0]), floatToHalf(out0) | uint32_t(floatToHalf(out1)) << 16);
}
// f16v4sihoslic $aD, $aIn:In+1, $aPartials:P+1: f32 partials in, f16 results out.
IPU_SEMANTICS(f16v4sihoslic) {
  const unsigned pr = unsigned(op.v[2]);
  float out0, out1;
  slicF16(t, c, op, setA(c), asFloat(c.a[pr]), asFloat(c.a[pr + 1]), out0, out1);
  c.setA(unsigned(op.v[0]), floatToHalf(out0) | uint32_t(floatToHalf(out1)) << 16);
}
// f16v4sisoslic $aD:D+1, $aIn:In+1, $aPartials:P+1: f32 partials in and results out.
IPU_SEMANTICS(f16v4sisoslic) {
  const unsigned pr = unsigned(op.v[2]);
  float out0, out1;
  slicF16(t, c, op, setA(c), asFloat(c.a[pr]), asFloat(c.a[pr + 1]), out0, out1);
  c.setA(unsigned(op.v[0]), asBits(out0));
  c.setA(unsigned(op.v[0]) + 1, asBits(out1));
}

// f16v4hihov4slic $aD:D+1, $aIn:In+1, $aPartials:P+1, flags: four f16 partials in and results out
// ([F] S2 operands and "4 x half-precision" partial-sums). Both sets take the same input and shift
// every issue, so the pipeline and warm-up are the 8-output forms' ([F] poplibs runs it through
// the same 5-issue lead-in as f16v4sisoslic). Lanes (A_2i, A_2i+1, B_2i, B_2i+1): [I] from
// poplibs' weight placement (its IPU21 SLIC code names entries 4m, 4m + 4, 32 + 4m, 36 + 4m, m
// even, output channels 0..3; on Mk2 its half_half_16 SLIC puts at 32 + 4m the weights that the
// 8-output form's W1 pass, the next two channels, takes from $CWEI_m_1).
IPU_SEMANTICS(f16v4hihov4slic) {
  const unsigned pr = unsigned(op.v[2]);
  auto half = [&](unsigned lane) { return halfToFloat(uint16_t(c.a[pr + lane / 2] >> (16 * (lane % 2)))); };
  float r[4];
  slicF16(t, c, op, setA(c), half(0), half(1), r[0], r[1]);
  slicF16(t, c, op, setB(c), half(2), half(3), r[2], r[3]);
  c.setA(unsigned(op.v[0]), floatToHalf(r[0]) | uint32_t(floatToHalf(r[1])) << 16);
  c.setA(unsigned(op.v[0]) + 1, floatToHalf(r[2]) | uint32_t(floatToHalf(r[3])) << 16);
}

// f32sisoslic $aD:D+1, $aIn, $aPartials:P+1, flags: the chains over f32 input pairs ([F] S2's
// "2x1x3x2" table): each input position takes two issues, its low element x_L (with the partial
// pair P) and its high element x_U (with a pair D, "0 under normal circumstances"), weighted by
// the low and high words of CW_m; the chains shift and return their tail pair at the low issue.
// The high issue adds to the same links without shifting ([I]) and leaves the destination as it
// was ([I]). Flags (ours): bit 0 the bank, bit 1 the 3-tap form, bit 2 the high issue.
IPU_SEMANTICS(f32sisoslic) {
  const unsigned flags = f32SlicFlags(t, c, op), pr = unsigned(op.v[2]);
  const AmpSet a = setA(c);
  const auto product = f32SlicProduct(t, a, flags, asFloat(c.a[op.v[1]]));
  const float partial0 = asFloat(c.a[pr]), partial1 = asFloat(c.a[pr + 1]);
  if (flags & 4) {
    slicAdd(a, flags & 2, partial0, partial1, product);
    return;
  }
  float out0, out1;
  slicIssue(a, flags & 2, partial0, partial1, product, out0, out1);
  c.setA(unsigned(op.v[0]), asBits(out0));
  c.setA(unsigned(op.v[0]) + 1, asBits(out1));
}

// f32sisov2slic $aD:D+1, $aIn, $aPartials:P+1, flags: four output channels ([F] S2: "4 output
// channels are processed/produced") with f32sisoslic's operands, so a pair an issue: [I] as
// f32sisov2amp moves a pair at every phase where f32sisoamp moves one every other, the low issue
// moves set A's pair and the high issue set B's (in f32sisoslic's D slot). Both sets shift at the
// low issue, set B's heads starting from its products alone; set B's tail pair waits in a hidden
// buffer for the high issue, which adds set B's partials to its heads and returns that pair ([I]).
IPU_SEMANTICS(f32sisov2slic) {
  const unsigned flags = f32SlicFlags(t, c, op), pr = unsigned(op.v[2]);
  const bool threeTaps = flags & 2;
  const AmpSet a = setA(c), b = setB(c);
  const float x = asFloat(c.a[op.v[1]]), partial0 = asFloat(c.a[pr]), partial1 = asFloat(c.a[pr + 1]);
  float out0, out1;
  if (flags & 4) {
    slicAdd(a, threeTaps, 0, 0, f32SlicProduct(t, a, flags, x));
    slicAdd(b, threeTaps, partial0, partial1, f32SlicProduct(t, b, flags, x));
    out0 = b.results[0];
    out1 = b.results[1];
  } else {
    slicIssue(a, threeTaps, partial0, partial1, f32SlicProduct(t, a, flags, x), out0, out1);
    slicIssue(b, threeTaps, 0, 0, f32SlicProduct(t, b, flags, x), b.results[0], b.results[1]);
  }
  c.setA(unsigned(op.v[0]), asBits(out0));
  c.setA(unsigned(op.v[0]) + 1, asBits(out1));
}

} // namespace ipusim::sim
