// Less common instructions, with the behaviour the public evidence gives (the ISA hover texts
// [F] S2, the Colossus LLVM backend and poplibs' use of them); where a detail is inferred the
// comment says so (docs/tile-timing.md lists what is not modelled).
#include "ipusim/arch/Half.h"
#include "../Semantics.h"

#include <cmath>

namespace ipusim::sim {
using namespace arch; // the f16 conversions (ipusim/arch/Half.h)

namespace {
uint32_t byteOf(uint32_t x, unsigned i) { return x >> (8 * i) & 0xFF; }
uint32_t bytes(uint32_t b0, uint32_t b1, uint32_t b2, uint32_t b3) { return b0 | b1 << 8 | b2 << 16 | b3 << 24; }

/// IEEE 754-2008 class codes in the standard's order ([F] S2; the numbering is [I], consistent
/// with poplibs comparing -0.0's class with 5).
uint32_t classCode(double x, bool signalling) {
  if (std::isnan(x)) return signalling ? 0 : 1;
  bool neg = std::signbit(x);
  if (std::isinf(x)) return neg ? 2 : 9;
  if (x == 0) return neg ? 5 : 6;
  bool sub = std::fpclassify(x) == FP_SUBNORMAL;
  return neg ? (sub ? 4 : 3) : (sub ? 7 : 8);
}
uint32_t class32(uint32_t bits) { return classCode(asFloat(bits), (bits & 0x7F800000) == 0x7F800000 && (bits & 0x7FFFFF) && !(bits & 0x400000)); }
uint32_t class16(uint16_t h) {
  bool nan = (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
  if (nan) return (h & 0x200) ? 1 : 0;
  // binary16 subnormals are normal in binary32: classify in binary16 terms.
  bool neg = h & 0x8000;
  if ((h & 0x7C00) == 0x7C00) return neg ? 2 : 9;
  if ((h & 0x7FFF) == 0) return neg ? 5 : 6;
  bool sub = (h & 0x7C00) == 0;
  return neg ? (sub ? 4 : 3) : (sub ? 7 : 8);
}
} // namespace

// cms: how many bits below the sign bit equal it, 0..31 ([F] S2).
IPU_SEMANTICS(cms) {
  uint32_t x = src(c, op, 1), y = x ^ uint32_t(int32_t(x) >> 31);
  setDst(c, op, uint32_t(__builtin_clz((y << 1) | 1)));
}
// Byte interleave and de-interleave of two registers ([F] S2; maps from the LLVM backend and
// poplibs' transposes; sort8x8hi by symmetry).
IPU_SEMANTICS(shuf8x8lo) {
  uint32_t a = src(c, op, 1), b = src(c, op, 2);
  setDst(c, op, bytes(byteOf(a, 0), byteOf(b, 0), byteOf(a, 1), byteOf(b, 1)));
}
IPU_SEMANTICS(shuf8x8hi) {
  uint32_t a = src(c, op, 1), b = src(c, op, 2);
  setDst(c, op, bytes(byteOf(a, 2), byteOf(b, 2), byteOf(a, 3), byteOf(b, 3)));
}
IPU_SEMANTICS(sort8x8lo) {
  uint32_t a = src(c, op, 1), b = src(c, op, 2);
  setDst(c, op, bytes(byteOf(a, 0), byteOf(a, 2), byteOf(b, 0), byteOf(b, 2)));
}
IPU_SEMANTICS(sort8x8hi) {
  uint32_t a = src(c, op, 1), b = src(c, op, 2);
  setDst(c, op, bytes(byteOf(a, 1), byteOf(a, 3), byteOf(b, 1), byteOf(b, 3)));
}
// roll8r: the low word of {b:a} >> 8 (from poplibs' byte packing loops).
IPU_SEMANTICS(roll8r) { setDst(c, op, src(c, op, 1) >> 8 | src(c, op, 2) << 24); }
// roll8l, roll32, sort8: the hover texts give only the kind of permutation ([F] S2: "roll-left" of
// the 8 bytes of two sources; a roll of the four 32-bit values of two pairs; a "sort8" of 4 bytes)
// and the Colossus LLVM backend only the operand types; the byte maps are not public. Ours ([I]),
// chosen to be the mirror images of roll8r and sort8x8lo above:
// roll8l: the high word of {b:a} << 8, i.e. bytes (a3, b0, b1, b2) [I] (roll8r gives the four bytes
// at offset 1 of the pair, roll8l those at offset 3).
IPU_SEMANTICS(roll8l) { setDst(c, op, src(c, op, 1) >> 24 | src(c, op, 2) << 8); }
// roll32 $aD:D+1, $aA:A+1, $aB:B+1: the middle two words of the 128-bit {b:a}, i.e. (a.hi, b.lo)
// [I] ({b:a} >> 32 and {b:a} << 32 agree here, so the roll's direction does not matter). Both
// sources are read before the pair is written ($a0:1 is both source and destination in the LLVM
// backend's example).
IPU_SEMANTICS(roll32) {
  const uint32_t lo = c.a[op.v[1] + 1], hi = c.a[op.v[2]];
  c.setA(unsigned(op.v[0]), lo);
  c.setA(unsigned(op.v[0]) + 1, hi);
}
// sort8: the even bytes then the odd ones, (x0, x2, x1, x3) [I] (sort8x8lo's order, one source).
IPU_SEMANTICS(sort8) {
  uint32_t x = src(c, op, 1);
  setDst(c, op, bytes(byteOf(x, 0), byteOf(x, 2), byteOf(x, 1), byteOf(x, 3)));
}
IPU_SEMANTICS(not128) {
  for (unsigned k = 0; k < 4; ++k) c.setA(unsigned(op.v[0]) + k, ~c.a[op.v[1] + k]);
}

// Classification: f32class writes the code; the vector forms one code a byte, lane i in byte i.
IPU_SEMANTICS(f32class) { c.setA(unsigned(op.v[0]), class32(c.a[op.v[1]])); }
IPU_SEMANTICS(f32v2class) {
  unsigned s = unsigned(op.v[1]);
  c.setA(unsigned(op.v[0]), class32(c.a[s]) | class32(c.a[s + 1]) << 8);
}
IPU_SEMANTICS(f16v2class) {
  uint32_t x = c.a[op.v[1]];
  c.setA(unsigned(op.v[0]), class16(uint16_t(x)) | class16(uint16_t(x >> 16)) << 8);
}
IPU_SEMANTICS(f16v4class) {
  unsigned s = unsigned(op.v[1]);
  uint32_t r = 0;
  for (unsigned k = 0; k < 4; ++k) r |= class16(uint16_t(c.a[s + k / 2] >> (16 * (k % 2)))) << (8 * k);
  c.setA(unsigned(op.v[0]), r);
}

// Half clamps: every lane to [limits.h0, limits.h1].
namespace {
uint32_t clampHalves(uint32_t x, uint32_t limits) {
  float lo = halfToFloat(uint16_t(limits)), hi = halfToFloat(uint16_t(limits >> 16));
  uint32_t r = 0;
  for (unsigned k = 0; k < 2; ++k) {
    float v = halfToFloat(uint16_t(x >> (16 * k)));
    r |= uint32_t(floatToHalf(std::fmin(std::fmax(v, lo), hi))) << (16 * k);
  }
  return r;
}
} // namespace
IPU_SEMANTICS(f16v2clamp) { c.setA(unsigned(op.v[0]), clampHalves(c.a[op.v[1]], c.a[op.v[2]])); }
IPU_SEMANTICS(f16v4clamp) {
  for (unsigned k = 0; k < 2; ++k) c.setA(unsigned(op.v[0]) + k, clampHalves(c.a[op.v[1] + k], c.a[op.v[2]]));
}

// Lateral sums in binary32 and lateral maxima ([F] S2; pairing [I]).
IPU_SEMANTICS(f16v2sum) {
  uint32_t x = c.a[op.v[1]];
  c.setA(unsigned(op.v[0]), asBits(halfToFloat(uint16_t(x)) + halfToFloat(uint16_t(x >> 16))));
}
IPU_SEMANTICS(f16v4sum) {
  for (unsigned k = 0; k < 2; ++k) {
    uint32_t x = c.a[op.v[1] + k];
    c.setA(unsigned(op.v[0]) + k, asBits(halfToFloat(uint16_t(x)) + halfToFloat(uint16_t(x >> 16))));
  }
}
IPU_SEMANTICS(f16v2maxc) {
  uint32_t x = c.a[op.v[1]];
  c.setA(unsigned(op.v[0]), floatToHalf(std::fmax(halfToFloat(uint16_t(x)), halfToFloat(uint16_t(x >> 16)))));
}
IPU_SEMANTICS(f16v4maxc) {
  uint32_t r = 0;
  for (unsigned k = 0; k < 2; ++k) {
    uint32_t x = c.a[op.v[1] + k];
    r |= uint32_t(floatToHalf(std::fmax(halfToFloat(uint16_t(x)), halfToFloat(uint16_t(x >> 16))))) << (16 * k);
  }
  c.setA(unsigned(op.v[0]), r);
}

// Unsigned integers to symmetric uniform floats in (-1/2, 1/2), never 0 ([F] S2 gives the bounds
// 2^-17 and 2^-33; the formula (u - 2^(n-1) + 1/2) 2^-n meets both, [I]).
IPU_SEMANTICS(f32sufromui) {
  c.setA(unsigned(op.v[0]), asBits(float((double(c.a[op.v[1]]) - 2147483648.0 + 0.5) * 0x1p-32)));
}
IPU_SEMANTICS(f32v2sufromui) {
  for (unsigned k = 0; k < 2; ++k)
    c.setA(unsigned(op.v[0]) + k, asBits(float((double(c.a[op.v[1] + k]) - 2147483648.0 + 0.5) * 0x1p-32)));
}
namespace {
uint32_t halfUniforms(uint32_t x) {
  uint32_t r = 0;
  for (unsigned k = 0; k < 2; ++k) r |= uint32_t(doubleToHalf((double(x >> (16 * k) & 0xFFFF) - 32768.0 + 0.5) * 0x1p-16)) << (16 * k);
  return r;
}
} // namespace
IPU_SEMANTICS(f16v2sufromui) { c.setA(unsigned(op.v[0]), halfUniforms(c.a[op.v[1]])); }
IPU_SEMANTICS(f16v4sufromui) {
  for (unsigned k = 0; k < 2; ++k) c.setA(unsigned(op.v[0]) + k, halfUniforms(c.a[op.v[1] + k]));
}

// Random masks ([F] S2): probability in bits 15:0 of the last operand; bit 16 set keeps all;
// bits 16:0 all zero clear all; otherwise lane i is kept when its 16 random bits are below it.
namespace {
void rmask(Context &c, const Op &op, unsigned lanes) {
  uint32_t p = c.a[op.v[2]] & 0x1FFFF;
  uint64_t random = (p & 0x10000) || p == 0 ? 0 : nextRandom(c);
  unsigned width = 64 / lanes; // f32v2: two 32-bit lanes; f16v4: four 16-bit lanes
  uint64_t in = uint64_t(c.a[op.v[1]]) | uint64_t(c.a[op.v[1] + 1]) << 32, out = 0;
  for (unsigned i = 0; i < lanes; ++i) {
    bool keep = (p & 0x10000) || (p != 0 && (random >> (16 * i) & 0xFFFF) < p);
    uint64_t mask = ((1ull << width) - 1) << (width * i);
    if (keep) out |= in & mask;
  }
  c.setA(unsigned(op.v[0]), uint32_t(out));
  c.setA(unsigned(op.v[0]) + 1, uint32_t(out >> 32));
}
} // namespace
IPU_SEMANTICS(f32v2rmask) { rmask(c, op, 2); }
IPU_SEMANTICS(f16v4rmask) { rmask(c, op, 4); }

} // namespace ipusim::sim
