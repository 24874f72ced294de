// IEEE 754 binary16 conversions (round to nearest, ties to even), the f16 format of the tile.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ipusim::arch {

inline float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF, bits;
  if (exp == 0) {
    float f = float(man) * 0x1p-24f; // zero or subnormal: exact in binary32
    return sign ? -f : f;
  }
  if (exp == 31) bits = sign | 0x7F800000u | man << 13; // infinity or NaN (payload kept)
  else bits = sign | (exp + 112) << 23 | man << 13;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// True if any of the four binary16 lanes of `h` is a NaN. A lane is a NaN when its magnitude is
/// above infinity's: adding (the lane's top bit) - 1 - infinity to each magnitude sets the top bit
/// of exactly those lanes, and no carry reaches the next lane.
inline bool halvesHaveNaN(uint64_t h) {
  return ((h & 0x7FFF7FFF7FFF7FFFull) + 0x03FF03FF03FF03FFull) & 0x8000800080008000ull;
}
/// The same for the two binary32 lanes of `f`.
inline bool floatsHaveNaN(uint64_t f) {
  return ((f & 0x7FFFFFFF7FFFFFFFull) + 0x007FFFFF007FFFFFull) & 0x8000000080000000ull;
}

/// Rounds a double to binary16 once, `round` taking a value scaled so that the binary16 result's
/// last place is 1 to an integral value. Computed exactly in double and rounded here, f16 add,
/// sub and mul are correctly rounded: their exact results need at most 40 significant bits.
template <class Round> uint16_t toHalf(double d, Round round) {
  uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  double a = std::fabs(d);
  if (std::isnan(d)) return sign | 0x7E00;
  if (a == 0) return sign;
  if (std::isinf(a)) return sign | 0x7C00;
  int e;
  std::frexp(a, &e); // a = f * 2^e, f in [0.5, 1)
  e -= 1;            // a = g * 2^e, g in [1, 2)
  if (e < -14) {     // subnormal (or zero): units of 2^-24
    double q = round(std::ldexp(a, 24));
    return sign | uint16_t(q); // q == 1024 encodes the smallest normal correctly
  }
  if (e > 15) return sign | 0x7C00;
  double q = round(std::ldexp(a, 10 - e)); // in [1024, 2048]
  if (q == 2048.0) {
    q = 1024.0;
    ++e;
  }
  if (e > 15) return sign | 0x7C00;
  return sign | uint16_t((e + 15) << 10) | uint16_t(uint32_t(q) - 1024);
}

/// Round to nearest, ties to even (the IEEE default).
inline uint16_t doubleToHalf(double d) {
  return toHalf(d, [](double q) { return std::nearbyint(q); });
}

/// Stochastic rounding: up with probability equal to the discarded fraction, using `random`
/// (32 uniform bits).
inline uint16_t doubleToHalfStochastic(double d, uint32_t random) {
  double u = double(random) * 0x1p-32;
  return toHalf(d, [u](double q) { return std::floor(q + u); });
}

/// A float to binary16, round to nearest, ties to even: the same result as doubleToHalf(double(f))
/// (tests/arch check the two agree), on the bits alone, since the AMP and the f16 vector
/// instructions convert every result.
inline uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000);
  x &= 0x7FFFFFFFu;
  if (x > 0x7F800000u) return sign | 0x7E00;   // NaN
  if (x >= 0x477FF000u) return sign | 0x7C00;  // 65520 and up round to infinity
  if (x < 0x38800000u) {                       // below 2^-14: a subnormal (in units of 2^-24) or zero
    if (x <= 0x33000000u) return sign;         // up to 2^-25 (a tie, to even): zero
    const uint32_t shift = 126 - (x >> 23), m = (x & 0x7FFFFFu) | 0x800000u;
    uint32_t q = m >> shift;
    const uint32_t rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (q & 1))) ++q;
    return sign | uint16_t(q);
  }
  uint32_t q = ((x >> 23) - 112) << 10 | (x & 0x7FFFFFu) >> 13; // a carry may reach the exponent
  const uint32_t rest = x & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (q & 1))) ++q;
  return sign | uint16_t(q);
}

/// The IEEE directed roundings, as $FP_CTL.RND selects them (docs/tile-timing.md).
enum class Rounding : unsigned { NearestEven = 0, Up = 1, Down = 2, TowardZero = 3 };

/// Rounds a double to binary16 in a directed mode. A result beyond the largest finite value
/// becomes infinity only when the mode rounds its magnitude up; otherwise the largest finite.
inline uint16_t doubleToHalf(double d, Rounding mode) {
  if (mode == Rounding::NearestEven) return doubleToHalf(d);
  const bool negative = std::signbit(d);
  const bool magnitudeUp = mode == (negative ? Rounding::Down : Rounding::Up);
  uint16_t h = magnitudeUp ? toHalf(d, [](double q) { return std::ceil(q); })
                           : toHalf(d, [](double q) { return std::floor(q); });
  if (!magnitudeUp && (h & 0x7FFF) == 0x7C00 && !std::isinf(d)) h = uint16_t((h & 0x8000) | 0x7BFF);
  return h;
}

} // namespace ipusim::arch
