// Floating-point instructions of the AUX pipeline: IEEE binary32 and binary16, scalar and SIMD
// ([F] S2; ipu-facts §3.1). Results round as $FP_CTL.RND says (nearest even by default), binary16
// results stochastically when $FP_CTL.ESR is set; invalid, divide-by-zero and overflow set $FP_STS
// and trap when $FP_CTL enables them (bit layout: docs/tile-timing.md).
// Data-dependent instructions occupy the worker for the cycles of [tile.fp_worker_cycles].
#include "ipusim/arch/Half.h"
#include "../Semantics.h"

#include <cfenv>
#include <cmath>
#include <limits>
#include <optional>

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
#endif

namespace ipusim::sim {
using namespace arch; // the f16 conversions (ipusim/arch/Half.h)

namespace {

constexpr uint32_t kTrue32 = 0xFFFFFFFF; // TFPU_FP32_TRUE (TileConstants.hpp)
constexpr uint16_t kTrue16 = 0xFFFF;

// $FP_STS flags and $FP_CTL enables: invalid, divide by zero, overflow (bits 0-2); RND (bits
// 16-18) the rounding mode; ESR (bit 19) stochastic rounding of binary16 results; NANOO (bit 20)
// NaN for overflows ([RE] S8: the field layout of Graphcore's tile constants, dumped for the Mk1).
constexpr uint32_t kInvalid = 1, kDivZero = 2, kOverflow = 4, kStochastic = 1u << 19, kNanOnOverflow = 1u << 20;
constexpr unsigned kRoundingShift = 16;
constexpr uint32_t kRoundingMask = 7u << kRoundingShift;

Rounding rounding(const Context &c) { return Rounding((c.fpCtl & kRoundingMask) >> kRoundingShift); }

/// The host's rounding mode set to $FP_CTL.RND for the scope (binary32 results are rounded by the
/// host FPU; this file is compiled with -frounding-math so that the compiler honours it).
class HostRounding {
public:
  explicit HostRounding(Rounding mode) : saved_(std::fegetround()) {
    static const int modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    std::fesetround(modes[unsigned(mode)]);
  }
  ~HostRounding() { std::fesetround(saved_); }

private:
  int saved_;
};

void multiCycle(Tile &t, Context &c, const Op &op) {
  auto it = t.config().timing.fpWorkerCycles.find(op.desc->mnemonic);
  if (it != t.config().timing.fpWorkerCycles.end()) c.extraWorkerCycles += it->second - 1;
}

/// The flags one lane raises: a NaN from non-NaN inputs is invalid; an infinity from finite
/// inputs is an overflow, or a division by zero when the divisor is zero.
uint32_t laneFlags(double r, double x, double y, bool division) {
  if (std::isfinite(r)) return 0; // the common case
  if (std::isnan(r) && !std::isnan(x) && !std::isnan(y)) return kInvalid;
  if (std::isinf(r) && std::isfinite(x) && std::isfinite(y)) return division && y == 0 ? kDivZero : kOverflow;
  return 0;
}

/// Records the flags in $FP_STS and traps if $FP_CTL enables any of them.
void raiseFlags(Tile &t, Context &c, uint32_t flags) {
  c.fpSts |= flags;
  uint32_t trap = flags & c.fpCtl & (kInvalid | kDivZero | kOverflow);
  if (!trap) return;
  t.raise(c, std::string("floating-point exception: ") +
                 (trap & kInvalid ? "invalid operation" : trap & kDivZero ? "division by zero" : "overflow"));
}

/// Lane k of a source operand: 32-bit lanes of a register group, or a broadcast scalar.
uint32_t lane32(const Context &c, const Op &op, unsigned i, unsigned k) {
  unsigned r = unsigned(op.v[i]);
  if (op.kind[i] == arch::OperandKind::ABroadcast) return c.a[r];
  return c.a[r + k];
}
/// Half lane k (0..3) of a source operand, with the :BL / :BU broadcasts.
uint16_t lane16(const Context &c, const Op &op, unsigned i, unsigned k) {
  unsigned r = unsigned(op.v[i]);
  switch (op.kind[i]) {
  case arch::OperandKind::ABroadcastLo: return uint16_t(c.a[r]);
  case arch::OperandKind::ABroadcastHi: return uint16_t(c.a[r] >> 16);
  default: return uint16_t(c.a[r + k / 2] >> (16 * (k % 2)));
  }
}
/// Lanes of the destination (operand 0): 32-bit registers it spans.
unsigned words(const Op &op) { return op.dstRegs; }

/// Rounds to binary16 as $FP_CTL says: in the RND mode, or stochastically with the PRNG.
uint16_t roundHalf(Context &c, double x) {
  if (!(c.fpCtl & (kStochastic | kRoundingMask))) return doubleToHalf(x);
  if (!(c.fpCtl & kStochastic)) return doubleToHalf(x, rounding(c));
  return doubleToHalfStochastic(x, nextRandom32(c));
}

/// roundHalf of a binary32 value: in the default mode floatToHalf, the same result on the bits alone.
uint16_t roundHalf(Context &c, float x) {
  if (!(c.fpCtl & (kStochastic | kRoundingMask))) return floatToHalf(x);
  return roundHalf(c, double(x));
}

/// arith32 in general: every lane, flags and traps, in the host's current rounding mode.
template <class F> void arith32Rounded(Tile &t, Context &c, const Op &op, bool division, F f) {
  float x[4], y[4], r[4];
  const unsigned n = words(op);
  const bool binary = op.desc->numOperands > 2;
  bool finite = true;
  for (unsigned k = 0; k < n; ++k) {
    x[k] = asFloat(lane32(c, op, 1, k));
    y[k] = binary ? asFloat(lane32(c, op, 2, k)) : 0.0f;
    r[k] = float(f(x[k], y[k]));
    finite &= std::isfinite(r[k]);
  }
  if (!finite) [[unlikely]] { // flags, traps and NaN on overflow concern only non-finite results
    uint32_t flags = 0;
    for (unsigned k = 0; k < n; ++k) {
      uint32_t lf = laneFlags(r[k], x[k], y[k], division);
      if ((lf & kOverflow) && (c.fpCtl & kNanOnOverflow)) r[k] = std::numeric_limits<float>::quiet_NaN();
      flags |= lf;
    }
    raiseFlags(t, c, flags);
  }
  for (unsigned k = 0; k < n; ++k) c.setA(unsigned(op.v[0]) + k, asBits(r[k]));
}
/// arith32's uncommon cases: a directed rounding mode, non-finite results, other operand forms
/// (out of line, so that the common cases' handler saves no registers).
template <class F> [[gnu::noinline]] void arith32Other(Tile &t, Context &c, const Op &op, bool division, F f) {
  if (c.fpCtl & kRoundingMask) {
    HostRounding scope(rounding(c));
    return arith32Rounded(t, c, op, division, f);
  }
  arith32Rounded(t, c, op, division, f);
}
/// isfinite as a compare in the FP unit (the value need not move to an integer register).
inline bool isFinite(float x) { return std::fabs(x) <= std::numeric_limits<float>::max(); }
/// Arithmetic on binary32 lanes: `f` gives the result, rounded in the host's mode.
template <class F> void arith32(Tile &t, Context &c, const Op &op, bool division, F f) {
  if (c.fpCtl & kRoundingMask) [[unlikely]]
    return arith32Other(t, c, op, division, f);
  // The common cases first: an f32 operation on single registers, or f32v2 on two register pairs,
  // with a finite result.
  if (op.dstRegs == 1 && op.kind[1] == arch::OperandKind::AReg && op.desc->numOperands > 2 &&
      op.kind[2] == arch::OperandKind::AReg) {
    const float r = float(f(asFloat(c.a[op.v[1]]), asFloat(c.a[op.v[2]])));
    if (isFinite(r)) [[likely]] {
      c.setAFloat(unsigned(op.v[0]), r);
      return;
    }
  }
  if (op.dstRegs == 2 && op.kind[1] == arch::OperandKind::APair && op.desc->numOperands > 2 &&
      op.kind[2] == arch::OperandKind::APair) {
    const unsigned a = unsigned(op.v[1]), b = unsigned(op.v[2]), d = unsigned(op.v[0]);
    float r0 = float(f(asFloat(c.a[a]), asFloat(c.a[b]))), r1 = float(f(asFloat(c.a[a + 1]), asFloat(c.a[b + 1])));
    if (isFinite(r0) && isFinite(r1)) [[likely]] {
      c.setAFloat(d, r0);
      c.setAFloat(d + 1, r1);
      return;
    }
  }
  arith32Other(t, c, op, division, f);
}
/// Arithmetic on binary16 lanes, computed in double and rounded once. `Exact`: f's double result
/// is the exact one (adds, multiplies, max and min of halves need at most 40 bits), so in the
/// default mode it may go through binary32 on the way (innocuous double rounding: 24 >= 2 x 11 +
/// 2 bits) and take floatToHalf, on the bits, instead of doubleToHalf's arithmetic.
template <bool Exact, class F> void arith16(Tile &t, Context &c, const Op &op, F f) {
  uint32_t out[2] = {0, 0}, flags = 0;
  unsigned n = words(op) * 2;
  const bool viaFloat = Exact && !(c.fpCtl & (kStochastic | kRoundingMask));
  for (unsigned k = 0; k < n; ++k) {
    double x = halfToFloat(lane16(c, op, 1, k)), y = op.desc->numOperands > 2 ? halfToFloat(lane16(c, op, 2, k)) : 0.0;
    const double result = f(x, y);
    uint16_t h = viaFloat ? floatToHalf(float(result)) : roundHalf(c, result);
    double r = halfToFloat(h);
    uint32_t lf = laneFlags(r, x, y, false);
    if ((lf & kOverflow) && (c.fpCtl & kNanOnOverflow)) h = 0x7E00;
    flags |= lf;
    out[k / 2] |= uint32_t(h) << (16 * (k % 2));
  }
  raiseFlags(t, c, flags);
  for (unsigned k = 0; k < n / 2; ++k) c.setA(unsigned(op.v[0]) + k, out[k]);
}
/// Comparisons: all ones for true, zero for false; NaN operands are invalid.
template <class F> void compare32(Tile &t, Context &c, const Op &op, F f) {
  uint32_t out[2], flags = 0;
  unsigned n = words(op);
  for (unsigned k = 0; k < n; ++k) {
    float x = asFloat(lane32(c, op, 1, k)), y = asFloat(lane32(c, op, 2, k));
    if (std::isnan(x) || std::isnan(y)) flags |= kInvalid;
    out[k] = f(x, y) ? kTrue32 : 0;
  }
  raiseFlags(t, c, flags);
  for (unsigned k = 0; k < n; ++k) c.setA(unsigned(op.v[0]) + k, out[k]);
}
template <class F> void compare16(Tile &t, Context &c, const Op &op, F f) {
  uint32_t out[2] = {0, 0}, flags = 0;
  unsigned n = words(op) * 2;
  for (unsigned k = 0; k < n; ++k) {
    double x = halfToFloat(lane16(c, op, 1, k)), y = halfToFloat(lane16(c, op, 2, k));
    if (std::isnan(x) || std::isnan(y)) flags |= kInvalid;
    out[k / 2] |= uint32_t(f(x, y) ? kTrue16 : 0) << (16 * (k % 2));
  }
  raiseFlags(t, c, flags);
  for (unsigned k = 0; k < n / 2; ++k) c.setA(unsigned(op.v[0]) + k, out[k]);
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
float clampf(float x, float lo, float hi) { return std::fmin(std::fmax(x, lo), hi); }

} // namespace

// ---- binary32: one definition serves the scalar and the f32v2 form (lanes follow the
// destination's size) ----
#define F32_BINARY(name, expr)                                                                  \
  IPU_SEMANTICS(f32##name) {                                                                    \
    arith32(t, c, op, false, [](float x, float y) { return expr; });                            \
  }                                                                                             \
  IPU_SAME_SEMANTICS(f32v2##name, f32##name)
// The fast path's forms of add, subtract and multiply (Semantics.h, RegisterFastForm): single
// registers or register pairs, the default rounding mode and finite results; anything else goes to
// the general handler, which computes the same result again with its flags.
/// `f` of two register pairs' binary32 lanes, lane by lane, as a pair's bits. On x86-64 one SSE
/// operation on both (the loads zero the upper two lanes, whose results go unused): the compiler
/// splits a two-lane vector into scalar operations under -frounding-math.
template <class F> uint64_t pairLanes(const uint32_t *a, const uint32_t *b, F f) {
#if defined(__x86_64__) && defined(__clang__)
  const __m128 x = _mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(a)));
  const __m128 y = _mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(b)));
  return uint64_t(_mm_cvtsi128_si64(_mm_castps_si128(f(x, y))));
#else
  const uint32_t r0 = asBits(f(asFloat(a[0]), asFloat(b[0]))), r1 = asBits(f(asFloat(a[1]), asFloat(b[1])));
  return uint64_t(r0) | uint64_t(r1) << 32;
#endif
}
/// Whether both lanes of a pair's bits are finite (a lane's exponent all ones is an infinity or
/// a NaN).
inline bool bothFinite(uint64_t bits) {
  constexpr uint64_t kExponents = 0x7F8000007F800000ull;
  const uint64_t e = (bits & kExponents) ^ kExponents; // a lane's part zero: not finite
  return (e & 0xFFFFFFFFull) && (e >> 32);
}
#define F32_FAST_FORMS(name, expr)                                                              \
  static void fast_f32##name(Tile &t, Context &c, const Op &op) {                               \
    const float x = asFloat(c.a[op.v[1]]), y = asFloat(c.a[op.v[2]]), r = expr;                 \
    if ((c.fpCtl & kRoundingMask) || !isFinite(r)) [[unlikely]]                                 \
      return sem_f32##name(t, c, op);                                                           \
    c.setAFloat(unsigned(op.v[0]), r);                                                          \
  }                                                                                             \
  static void fast_f32v2##name(Tile &t, Context &c, const Op &op) {                             \
    /* both lanes at once: each lane's operation is the scalar one, rounded alike */             \
    const uint64_t bits = pairLanes(&c.a[op.v[1]], &c.a[op.v[2]], [](auto x, auto y) { return expr; }); \
    if ((c.fpCtl & kRoundingMask) || !bothFinite(bits)) [[unlikely]]                             \
      return sem_f32##name(t, c, op);                                                           \
    setPairA(c, unsigned(op.v[0]), bits);                                                       \
  }                                                                                             \
  static RegisterFastForm fastForm_f32##name("f32" #name " aaa", fast_f32##name);               \
  static RegisterFastForm fastForm_f32v2##name("f32v2" #name " ppp", fast_f32v2##name);
F32_BINARY(add, x + y)
F32_FAST_FORMS(add, x + y)
F32_BINARY(sub, x - y)
F32_FAST_FORMS(sub, x - y)
F32_BINARY(mul, x * y)
F32_FAST_FORMS(mul, x * y)
#undef F32_FAST_FORMS
F32_BINARY(max, std::fmax(x, y))
F32_BINARY(min, std::fmin(x, y))
F32_BINARY(absadd, std::fabs(x) + std::fabs(y))
F32_BINARY(absmax, std::fmax(std::fabs(x), std::fabs(y)))
#undef F32_BINARY
#define F32_COMPARE(name, expr)                                                                 \
  IPU_SEMANTICS(f32##name) {                                                                    \
    compare32(t, c, op, [](float x, float y) { return expr; });                                 \
  }                                                                                             \
  IPU_SAME_SEMANTICS(f32v2##name, f32##name)
F32_COMPARE(cmpeq, x == y)
F32_COMPARE(cmpne, x != y)
F32_COMPARE(cmplt, x < y)
F32_COMPARE(cmple, x <= y)
F32_COMPARE(cmpgt, x > y)
F32_COMPARE(cmpge, x >= y)
#undef F32_COMPARE

// f32clamp $d, $x, $lo:hi; f32v2clamp clamps each lane to the same pair.
IPU_SEMANTICS(f32clamp) {
  unsigned b = unsigned(op.v[2]);
  c.setA(unsigned(op.v[0]), asBits(clampf(asFloat(c.a[op.v[1]]), asFloat(c.a[b]), asFloat(c.a[b + 1]))));
}
IPU_SEMANTICS(f32v2clamp) {
  unsigned b = unsigned(op.v[2]);
  float lo = asFloat(c.a[b]), hi = asFloat(c.a[b + 1]);
  uint32_t x0 = c.a[op.v[1]], x1 = c.a[op.v[1] + 1];
  c.setA(unsigned(op.v[0]), asBits(clampf(asFloat(x0), lo, hi)));
  c.setA(unsigned(op.v[0]) + 1, asBits(clampf(asFloat(x1), lo, hi)));
}

// ---- data-dependent binary32 ----
#define F32_UNARY(name, expr, division)                                                         \
  IPU_SEMANTICS(name) {                                                                         \
    multiCycle(t, c, op);                                                                       \
    arith32(t, c, op, division, [](float x, float) { return float(expr); });                    \
  }
F32_UNARY(f32sqrt, std::sqrt(x), false)
F32_UNARY(f32exp, std::exp(x), false)
F32_UNARY(f32exp2, std::exp2(x), false)
F32_UNARY(f32ln, std::log(x), false)
F32_UNARY(f32log2, std::log2(x), false)
F32_UNARY(f32sigm, sigmoid(double(x)), false)
F32_UNARY(f32tanh, std::tanh(x), false)
F32_UNARY(f32oox, 1.0f / x, false)
F32_UNARY(f32oorx, 1.0 / std::sqrt(double(x)), false)
#undef F32_UNARY
IPU_SEMANTICS(f32div) {
  multiCycle(t, c, op);
  arith32(t, c, op, true, [](float x, float y) { return x / y; });
}

// ---- conversions ----
// f32tof16 writes its half to both halves of the destination ([F] S2).
IPU_SEMANTICS(f32tof16) {
  uint32_t h = roundHalf(c, asFloat(c.a[op.v[1]]));
  c.setA(unsigned(op.v[0]), h | h << 16);
}
IPU_SEMANTICS(f16tof32) { c.setA(unsigned(op.v[0]), asBits(halfToFloat(uint16_t(c.a[op.v[1]])))); }
IPU_SEMANTICS(f32v2tof16) {
  unsigned s = unsigned(op.v[1]);
  uint32_t lo = roundHalf(c, asFloat(c.a[s])), hi = roundHalf(c, asFloat(c.a[s + 1]));
  c.setA(unsigned(op.v[0]), lo | hi << 16);
}
IPU_SEMANTICS(f32v4tof16) {
  unsigned s = unsigned(op.v[1]);
  uint32_t h[4];
  for (unsigned k = 0; k < 4; ++k) h[k] = roundHalf(c, asFloat(c.a[s + k]));
  uint32_t lo = h[0] | h[1] << 16, hi = h[2] | h[3] << 16;
  c.setA(unsigned(op.v[0]), lo);
  c.setA(unsigned(op.v[0]) + 1, hi);
}
IPU_SEMANTICS(f16v2tof32) {
  uint32_t x = c.a[op.v[1]];
  c.setA(unsigned(op.v[0]), asBits(halfToFloat(uint16_t(x))));
  c.setA(unsigned(op.v[0]) + 1, asBits(halfToFloat(uint16_t(x >> 16))));
}
IPU_SEMANTICS(f32fromi32) { c.setA(unsigned(op.v[0]), asBits(float(int32_t(c.a[op.v[1]])))); }
IPU_SEMANTICS(f32fromui32) { c.setA(unsigned(op.v[0]), asBits(float(c.a[op.v[1]]))); }
// To integers: round to nearest even, saturating; NaN gives 0 (ours).
IPU_SEMANTICS(f32toi32) {
  float x = std::nearbyint(asFloat(c.a[op.v[1]]));
  int32_t r = std::isnan(x) ? 0 : x >= 2147483648.0f ? INT32_MAX : x < -2147483648.0f ? INT32_MIN : int32_t(x);
  c.setA(unsigned(op.v[0]), uint32_t(r));
}
IPU_SEMANTICS(f32toui32) {
  float x = std::nearbyint(asFloat(c.a[op.v[1]]));
  uint32_t r = std::isnan(x) || x <= 0 ? 0 : x >= 4294967296.0f ? UINT32_MAX : uint32_t(x);
  c.setA(unsigned(op.v[0]), r);
}
// f32int: round to an integral value in the mode of the immediate ([L] TFPU_ROUND_*): 0 nearest
// even, 1 up, 2 down, 3 toward zero, 4 nearest with ties away from zero.
IPU_SEMANTICS(f32int) {
  float x = asFloat(c.a[op.v[1]]);
  switch (op.v[2]) {
  case 0: x = std::nearbyint(x); break;
  case 1: x = std::ceil(x); break;
  case 2: x = std::floor(x); break;
  case 3: x = std::trunc(x); break;
  case 4: x = std::round(x); break;
  default: t.raise(c, "f32int rounding mode " + std::to_string(op.v[2]) + " does not exist");
  }
  c.setA(unsigned(op.v[0]), asBits(x));
}

// ---- binary16: one definition serves f16v2 (one register) and f16v4 (a pair) ----
#define F16_ARITH(name, expr)                                                                   \
  IPU_SEMANTICS(f16v2##name) {                                                                  \
    arith16<true>(t, c, op, [](double x, double y) { return expr; });                           \
  }                                                                                             \
  IPU_SAME_SEMANTICS(f16v4##name, f16v2##name)
F16_ARITH(add, x + y)
F16_ARITH(sub, x - y)
F16_ARITH(mul, x * y)
F16_ARITH(max, std::fmax(x, y))
F16_ARITH(min, std::fmin(x, y))
F16_ARITH(absadd, std::fabs(x) + std::fabs(y))
F16_ARITH(absmax, std::fmax(std::fabs(x), std::fabs(y)))
#undef F16_ARITH
#if defined(__x86_64__) && defined(__clang__)
// On hosts with F16C (hostVectorUnits; the fast path's handlers, so every ISS test compares them
// with the portable ones above): f16 add, sub and mul convert their lanes with the host's
// conversions, exact for every half but a NaN, and the lanes' binary32 sum, difference or product
// rounded to binary16 is the correctly rounded half (arith16's Exact). An issue with a NaN input,
// a non-finite result (its flags, NANOO) or another rounding mode takes the portable handler.
/// The result lanes (`Kind` 0 add, 1 sub, 2 mul) where the host's conversions give them.
template <int Kind> [[gnu::target("f16c")]] std::optional<uint64_t> f16OnHost(const Context &c, const Op &op) {
  if (c.fpCtl & (kStochastic | kRoundingMask)) return std::nullopt;
  const bool pair = op.dstRegs == 2;
  const uint64_t used = pair ? ~0ull : 0xFFFFFFFFull; // f16v2: two lanes
  const unsigned a = unsigned(op.v[1]), b = unsigned(op.v[2]);
  uint64_t x;
  switch (op.kind[1]) {
  case arch::OperandKind::ABroadcastLo: x = (c.a[a] & 0xFFFF) * 0x0001000100010001ull; break;
  case arch::OperandKind::ABroadcastHi: x = (c.a[a] >> 16) * 0x0001000100010001ull; break;
  default: x = pair ? pairA(c, a) : c.a[a];
  }
  const uint64_t y = pair ? pairA(c, b) : c.a[b];
  if (halvesHaveNaN(x & used) || halvesHaveNaN(y & used)) return std::nullopt;
  const __m128 fx = _mm_cvtph_ps(_mm_cvtsi64_si128(int64_t(x))), fy = _mm_cvtph_ps(_mm_cvtsi64_si128(int64_t(y)));
  const __m128 r = Kind == 0 ? _mm_add_ps(fx, fy) : Kind == 1 ? _mm_sub_ps(fx, fy) : _mm_mul_ps(fx, fy);
  const uint64_t h = uint64_t(_mm_cvtsi128_si64(_mm_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT))) & used;
  // A lane whose exponent is all ones (an infinity, or a NaN from infinities): the portable
  // handler's, with its flags and NANOO.
  if (((h & 0x7C007C007C007C00ull) + 0x0400040004000400ull) & 0x8000800080008000ull & used) return std::nullopt;
  return h;
}
#define F16_ON_HOST(name, kind)                                                                 \
  [[gnu::target("f16c")]] void host_f16##name(Tile &t, Context &c, const Op &op) {              \
    const std::optional<uint64_t> h = f16OnHost<kind>(c, op);                                   \
    if (!h) return sem_f16v2##name(t, c, op);                                                   \
    c.setA(unsigned(op.v[0]), uint32_t(*h));                                                    \
    if (op.dstRegs == 2) c.setA(unsigned(op.v[0]) + 1, uint32_t(*h >> 32));                     \
  }                                                                                             \
  static RegisterHostVector vec_f16v2##name("f16v2" #name, host_f16##name);                     \
  static RegisterHostVector vec_f16v4##name("f16v4" #name, host_f16##name);
namespace {
F16_ON_HOST(add, 0)
F16_ON_HOST(sub, 1)
F16_ON_HOST(mul, 2)
} // namespace
#undef F16_ON_HOST
#endif

#define F16_COMPARE(name, expr)                                                                 \
  IPU_SEMANTICS(f16v2##name) {                                                                  \
    compare16(t, c, op, [](double x, double y) { return expr; });                               \
  }                                                                                             \
  IPU_SAME_SEMANTICS(f16v4##name, f16v2##name)
F16_COMPARE(cmpeq, x == y)
F16_COMPARE(cmpne, x != y)
F16_COMPARE(cmplt, x < y)
F16_COMPARE(cmple, x <= y)
F16_COMPARE(cmpgt, x > y)
F16_COMPARE(cmpge, x >= y)
#undef F16_COMPARE

#define F16_UNARY(name, expr)                                                                   \
  IPU_SEMANTICS(name) {                                                                         \
    multiCycle(t, c, op);                                                                       \
    arith16<false>(t, c, op, [](double x, double) { return double(expr); });                    \
  }
F16_UNARY(f16v2exp, std::exp(x))
F16_UNARY(f16v2exp2, std::exp2(x))
F16_UNARY(f16v2ln, std::log(x))
F16_UNARY(f16v2log2, std::log2(x))
F16_UNARY(f16v2sigm, sigmoid(x))
F16_UNARY(f16v2tanh, std::tanh(x))
#undef F16_UNARY

} // namespace ipusim::sim
