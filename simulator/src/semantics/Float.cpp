// Floating-point instructions of the AUX pipeline: IEEE binary32 and binary16, scalar and SIMD
// ([F] S2; ipu-facts §3.1). Rounding is to nearest even; $FP_CTL rounding modes, stochastic
// rounding and exception flags are not modelled yet (docs/tile-timing.md, "Not modelled yet").
// Data-dependent instructions occupy the worker for the cycles of [tile.fp_worker_cycles].
#include "../Half.h"
#include "../Semantics.h"

#include <cmath>
#include <limits>

namespace ipusim::sim {

namespace {

constexpr uint32_t kTrue32 = 0xFFFFFFFF; // TFPU_FP32_TRUE (TileConstants.hpp)
constexpr uint16_t kTrue16 = 0xFFFF;

void multiCycle(Tile &t, Context &c, const Op &op) {
  auto it = t.config().timing.fpWorkerCycles.find(op.desc->mnemonic);
  if (it != t.config().timing.fpWorkerCycles.end()) c.extraWorkerCycles += it->second - 1;
}

/// Lane k of a source operand: 32-bit lanes of a register group, or a broadcast scalar.
uint32_t lane32(const Context &c, const Op &op, unsigned i, unsigned k) {
  unsigned r = unsigned(op.v[i]);
  if (op.desc->operands[i].kind == arch::OperandKind::ABroadcast) return c.a[r];
  return c.a[r + k];
}
/// Half lane k (0..3) of a source operand, with the :BL / :BU broadcasts.
uint16_t lane16(const Context &c, const Op &op, unsigned i, unsigned k) {
  unsigned r = unsigned(op.v[i]);
  switch (op.desc->operands[i].kind) {
  case arch::OperandKind::ABroadcastLo: return uint16_t(c.a[r]);
  case arch::OperandKind::ABroadcastHi: return uint16_t(c.a[r] >> 16);
  default: return uint16_t(c.a[r + k / 2] >> (16 * (k % 2)));
  }
}
/// Lanes of the destination (operand 0): 32-bit registers it spans.
unsigned words(const Op &op) { return op.desc->operands[0].registerCount(); }

template <class F> void binary32(Context &c, const Op &op, F f) {
  uint32_t out[4];
  unsigned n = words(op);
  for (unsigned k = 0; k < n; ++k) out[k] = f(asFloat(lane32(c, op, 1, k)), asFloat(lane32(c, op, 2, k)));
  for (unsigned k = 0; k < n; ++k) c.setA(unsigned(op.v[0]) + k, out[k]);
}
template <class F> void binary16(Context &c, const Op &op, F f) {
  uint32_t out[2] = {0, 0};
  unsigned n = words(op) * 2;
  for (unsigned k = 0; k < n; ++k)
    out[k / 2] |= uint32_t(f(double(halfToFloat(lane16(c, op, 1, k))), double(halfToFloat(lane16(c, op, 2, k)))))
                  << (16 * (k % 2));
  for (unsigned k = 0; k < n / 2; ++k) c.setA(unsigned(op.v[0]) + k, out[k]);
}
template <class F> void unary32(Context &c, const Op &op, F f) {
  unsigned n = words(op);
  uint32_t out[4];
  for (unsigned k = 0; k < n; ++k) out[k] = asBits(f(asFloat(lane32(c, op, 1, k))));
  for (unsigned k = 0; k < n; ++k) c.setA(unsigned(op.v[0]) + k, out[k]);
}
template <class F> void unary16(Context &c, const Op &op, F f) {
  uint32_t out[2] = {0, 0};
  unsigned n = words(op) * 2;
  for (unsigned k = 0; k < n; ++k)
    out[k / 2] |= uint32_t(doubleToHalf(f(double(halfToFloat(lane16(c, op, 1, k)))))) << (16 * (k % 2));
  for (unsigned k = 0; k < n / 2; ++k) c.setA(unsigned(op.v[0]) + k, out[k]);
}

uint16_t h(double x) { return doubleToHalf(x); }
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
// Comparisons: all ones for true, zero for false.
uint32_t t32(bool b) { return b ? kTrue32 : 0; }
uint16_t t16(bool b) { return b ? kTrue16 : 0; }
float clampf(float x, float lo, float hi) { return std::fmin(std::fmax(x, lo), hi); }

} // namespace

// ---- binary32 scalar and f32v2 (lanes follow the destination's size) ----
#define F32_BINARY(name, expr)                                                                  \
  IPU_SEMANTICS(name) {                                                                         \
    binary32(c, op, [](float x, float y) { return asBits(expr); });                             \
  }
F32_BINARY(f32add, x + y)
F32_BINARY(f32sub, x - y)
F32_BINARY(f32mul, x * y)
F32_BINARY(f32max, std::fmax(x, y))
F32_BINARY(f32min, std::fmin(x, y))
F32_BINARY(f32absadd, std::fabs(x) + std::fabs(y))
F32_BINARY(f32absmax, std::fmax(std::fabs(x), std::fabs(y)))
F32_BINARY(f32v2add, x + y)
F32_BINARY(f32v2sub, x - y)
F32_BINARY(f32v2mul, x * y)
F32_BINARY(f32v2max, std::fmax(x, y))
F32_BINARY(f32v2min, std::fmin(x, y))
F32_BINARY(f32v2absadd, std::fabs(x) + std::fabs(y))
F32_BINARY(f32v2absmax, std::fmax(std::fabs(x), std::fabs(y)))
#undef F32_BINARY
#define F32_COMPARE(name, expr)                                                                 \
  IPU_SEMANTICS(name) {                                                                         \
    binary32(c, op, [](float x, float y) { return t32(expr); });                                \
  }
F32_COMPARE(f32cmpeq, x == y)
F32_COMPARE(f32cmpne, x != y)
F32_COMPARE(f32cmplt, x < y)
F32_COMPARE(f32cmple, x <= y)
F32_COMPARE(f32cmpgt, x > y)
F32_COMPARE(f32cmpge, x >= y)
F32_COMPARE(f32v2cmpeq, x == y)
F32_COMPARE(f32v2cmpne, x != y)
F32_COMPARE(f32v2cmplt, x < y)
F32_COMPARE(f32v2cmple, x <= y)
F32_COMPARE(f32v2cmpgt, x > y)
F32_COMPARE(f32v2cmpge, x >= y)
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
#define F32_UNARY(name, expr, slow)                                                             \
  IPU_SEMANTICS(name) {                                                                         \
    if (slow) multiCycle(t, c, op);                                                             \
    unary32(c, op, [](float x) { return float(expr); });                                        \
  }
F32_UNARY(f32sqrt, std::sqrt(x), true)
F32_UNARY(f32exp, std::exp(x), true)
F32_UNARY(f32exp2, std::exp2(x), true)
F32_UNARY(f32ln, std::log(x), true)
F32_UNARY(f32log2, std::log2(x), true)
F32_UNARY(f32sigm, sigmoid(double(x)), true)
F32_UNARY(f32tanh, std::tanh(x), true)
F32_UNARY(f32oox, 1.0f / x, true)
F32_UNARY(f32oorx, 1.0 / std::sqrt(double(x)), true)
#undef F32_UNARY
IPU_SEMANTICS(f32div) {
  multiCycle(t, c, op);
  binary32(c, op, [](float x, float y) { return asBits(x / y); });
}

// ---- conversions ----
IPU_SEMANTICS(f32tof16) { c.setA(unsigned(op.v[0]), floatToHalf(asFloat(c.a[op.v[1]]))); }
IPU_SEMANTICS(f16tof32) { c.setA(unsigned(op.v[0]), asBits(halfToFloat(uint16_t(c.a[op.v[1]])))); }
IPU_SEMANTICS(f32v2tof16) {
  unsigned s = unsigned(op.v[1]);
  c.setA(unsigned(op.v[0]), floatToHalf(asFloat(c.a[s])) | uint32_t(floatToHalf(asFloat(c.a[s + 1]))) << 16);
}
IPU_SEMANTICS(f32v4tof16) {
  unsigned s = unsigned(op.v[1]);
  uint32_t lo = floatToHalf(asFloat(c.a[s])) | uint32_t(floatToHalf(asFloat(c.a[s + 1]))) << 16;
  uint32_t hi = floatToHalf(asFloat(c.a[s + 2])) | uint32_t(floatToHalf(asFloat(c.a[s + 3]))) << 16;
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
// f32int: round to an integral value in the mode of the immediate (TFPU_ROUND_*).
IPU_SEMANTICS(f32int) {
  float x = asFloat(c.a[op.v[1]]);
  switch (op.v[2]) {
  case 0: x = std::nearbyint(x); break;
  case 1: x = std::trunc(x); break;
  case 2: x = std::ceil(x); break;
  default: x = std::floor(x); break;
  }
  c.setA(unsigned(op.v[0]), asBits(x));
}

// ---- binary16: f16v2 in one register, f16v4 in a pair ----
#define F16_BINARY(name, expr)                                                                  \
  IPU_SEMANTICS(name) {                                                                         \
    binary16(c, op, [](double x, double y) { return expr; });                                   \
  }
F16_BINARY(f16v2add, h(x + y))
F16_BINARY(f16v2sub, h(x - y))
F16_BINARY(f16v2mul, h(x * y))
F16_BINARY(f16v2max, h(std::fmax(x, y)))
F16_BINARY(f16v2min, h(std::fmin(x, y)))
F16_BINARY(f16v2absadd, h(std::fabs(x) + std::fabs(y)))
F16_BINARY(f16v2absmax, h(std::fmax(std::fabs(x), std::fabs(y))))
F16_BINARY(f16v4add, h(x + y))
F16_BINARY(f16v4sub, h(x - y))
F16_BINARY(f16v4mul, h(x * y))
F16_BINARY(f16v4max, h(std::fmax(x, y)))
F16_BINARY(f16v4min, h(std::fmin(x, y)))
F16_BINARY(f16v4absadd, h(std::fabs(x) + std::fabs(y)))
F16_BINARY(f16v4absmax, h(std::fmax(std::fabs(x), std::fabs(y))))
F16_BINARY(f16v2cmpeq, t16(x == y))
F16_BINARY(f16v2cmpne, t16(x != y))
F16_BINARY(f16v2cmplt, t16(x < y))
F16_BINARY(f16v2cmple, t16(x <= y))
F16_BINARY(f16v2cmpgt, t16(x > y))
F16_BINARY(f16v2cmpge, t16(x >= y))
F16_BINARY(f16v4cmpeq, t16(x == y))
F16_BINARY(f16v4cmpne, t16(x != y))
F16_BINARY(f16v4cmplt, t16(x < y))
F16_BINARY(f16v4cmple, t16(x <= y))
F16_BINARY(f16v4cmpgt, t16(x > y))
F16_BINARY(f16v4cmpge, t16(x >= y))
#undef F16_BINARY

#define F16_UNARY(name, expr)                                                                   \
  IPU_SEMANTICS(name) {                                                                         \
    multiCycle(t, c, op);                                                                       \
    unary16(c, op, [](double x) { return double(expr); });                                      \
  }
F16_UNARY(f16v2exp, std::exp(x))
F16_UNARY(f16v2exp2, std::exp2(x))
F16_UNARY(f16v2ln, std::log(x))
F16_UNARY(f16v2log2, std::log2(x))
F16_UNARY(f16v2sigm, sigmoid(x))
F16_UNARY(f16v2tanh, std::tanh(x))
#undef F16_UNARY

} // namespace ipusim::sim
