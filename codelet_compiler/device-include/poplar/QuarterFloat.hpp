// ipusim's <poplar/QuarterFloat.hpp>: Poplar's 8-bit float `quarter` for codelets, with its
// metadata and the conversions poplibs' codelets call.
//
// The format (Poplar's public documentation of QUARTER; docs/device-headers.md, "quarter"):
//   - a quarter value is one byte, sign in bit 7; its meaning is set by a metadata byte that goes
//     with the tensor: bit 7 set selects F143 (4 exponent bits, 3 mantissa bits, bias 8, largest
//     value 240), clear selects F152 (5 exponent bits, 2 mantissa bits, bias 16, largest 57344);
//     bits [0,6) hold a signed scale s, and the value is the format's value times 2^s;
//   - there is one NaN, 0x80 (the pattern of negative zero), no infinity, and zero is unsigned;
//   - exponent 0 encodes subnormals.
// The Mk2 has no 8-bit float hardware: quarter arithmetic is software, so every conversion here is
// ordinary C++ that ipu-cc compiles to the tile ISA (and that a host compiler compiles for tests).
//
// Vertex state: a field whose elements are quarter (Input/Output/InOut<Vector<quarter, ...>>)
// stores a pointer to its metadata byte after the vector's encoding (poplibs' ConvPartial1x1Out
// mirrors that state as {data, metadata, ...}); see poplar/Vertex.hpp.
#ifndef IPUSIM_POPLAR_QUARTER_FLOAT_HPP
#define IPUSIM_POPLAR_QUARTER_FLOAT_HPP

#include <cstdint>
#include <poplar/HalfFloat.hpp>

namespace poplar {

/// The metadata byte as it is stored in tile memory.
typedef unsigned char MetadataType;

/// The metadata unpacked: the format and the scale exponent.
struct quarter_metadata {
  enum class format : unsigned char { f152, f143 };
  format fmt;
  signed char scale;
};

/// One 8-bit float. The bits are the value's only state; what they mean depends on the metadata
/// of the tensor holding them, so there is no conversion without metadata.
class quarter {
public:
  unsigned char bits;
  quarter() = default;
  constexpr explicit quarter(unsigned char b) : bits(b) {}
  constexpr unsigned char bit8() const { return bits; }
  constexpr bool operator==(quarter o) const { return bits == o.bits; }
  constexpr bool operator!=(quarter o) const { return bits != o.bits; }
};

inline quarter_metadata unpackMetadata(MetadataType m) {
  quarter_metadata md;
  md.fmt = (m & 0x80u) ? quarter_metadata::format::f143 : quarter_metadata::format::f152;
  // Bits [0,6) are a two's-complement scale in [-32, 31].
  md.scale = static_cast<signed char>(static_cast<signed char>((m & 0x3fu) << 2) >> 2);
  return md;
}
inline quarter_metadata unpackMetadata(const MetadataType *m) { return unpackMetadata(*m); }

inline MetadataType packMetadata(quarter_metadata md) {
  return static_cast<MetadataType>((md.fmt == quarter_metadata::format::f143 ? 0x80u : 0u) |
                                   (static_cast<unsigned>(md.scale) & 0x3fu));
}

namespace detail {
/// The NaN pattern (quarter has a single NaN and no negative zero).
constexpr unsigned char kQuarterNaN = 0x80;

struct QuarterFormat {
  int mantissaBits; // 3 (F143) or 2 (F152)
  int bias;         // 8 or 16
  int maxExponent;  // the largest biased exponent field: 15 or 31 (all of them encode numbers)
};
inline QuarterFormat quarterFormat(quarter_metadata md) {
  return md.fmt == quarter_metadata::format::f143 ? QuarterFormat{3, 8, 15} : QuarterFormat{2, 16, 31};
}

/// 2^k as a float, for k in the normal range [-126, 127] (every use here stays inside it: the
/// formats' exponents plus a scale in [-32, 31]).
inline float pow2(int k) { return __builtin_bit_cast(float, static_cast<unsigned>(k + 127) << 23); }
} // namespace detail

/// The exact value of q under md, as a float (every quarter value is a float).
inline float toFloat(quarter q, quarter_metadata md) {
  const unsigned b = q.bits;
  if (b == detail::kQuarterNaN) return __builtin_nanf("");
  const detail::QuarterFormat f = detail::quarterFormat(md);
  const unsigned magnitude = b & 0x7fu;
  const int exponent = static_cast<int>(magnitude >> f.mantissaBits);
  const unsigned mantissa = magnitude & ((1u << f.mantissaBits) - 1);
  // Subnormals (exponent 0) have no implicit bit and the exponent of the smallest normal.
  const unsigned significand = exponent ? (mantissa | (1u << f.mantissaBits)) : mantissa;
  const int e = (exponent ? exponent : 1) - f.bias - f.mantissaBits + md.scale;
  const float v = static_cast<float>(significand) * detail::pow2(e);
  return (b & 0x80u) ? -v : v;
}

/// The value as a half, rounded to nearest even from its exact value.
inline half toHalf(quarter q, quarter_metadata md) { return static_cast<half>(toFloat(q, md)); }

/// x scaled by 2^-scale and rounded to nearest, ties to even, into md's format. NaN gives the NaN
/// pattern. A value that rounds beyond the format's largest magnitude gives NaN when nanoo is set
/// (FP_CTL's NaN-on-overflow, as poplibs passes it) and saturates to the largest value otherwise.
inline quarter toQuarter(float x, quarter_metadata md, bool nanoo = false) {
  if (x != x) return quarter(detail::kQuarterNaN);
  const detail::QuarterFormat f = detail::quarterFormat(md);
  const bool negative = x < 0;
  const unsigned maxMagnitude = (static_cast<unsigned>(f.maxExponent) << f.mantissaBits) | ((1u << f.mantissaBits) - 1);
  const auto overflow = [&] {
    return quarter(nanoo ? detail::kQuarterNaN : static_cast<unsigned char>((negative ? 0x80u : 0u) | maxMagnitude));
  };
  const float a = (negative ? -x : x) * detail::pow2(-md.scale);
  if (a > detail::pow2(f.maxExponent - f.bias + 1)) return overflow(); // also infinity
  // The quantum of a's binade (of the subnormals below the smallest normal), then a in quanta.
  const int floatExponent = static_cast<int>((__builtin_bit_cast(unsigned, a) >> 23) & 0xffu) - 127;
  int k = (floatExponent > 1 - f.bias ? floatExponent : 1 - f.bias) - f.mantissaBits;
  const float quanta = a * detail::pow2(-k); // exact: below 2^(mantissaBits + 1)
  unsigned n = static_cast<unsigned>(quanta);
  const float rest = quanta - static_cast<float>(n);
  if (rest > 0.5f || (rest == 0.5f && (n & 1u))) ++n;
  if (n == 0) return quarter(0); // zero is unsigned
  if (n >> (f.mantissaBits + 1)) { // rounded up into the next binade
    n >>= 1;
    ++k;
  }
  unsigned magnitude = n; // a subnormal: exponent field 0
  if (n >> f.mantissaBits) {
    const int exponent = k + f.mantissaBits + f.bias;
    if (exponent > f.maxExponent) return overflow();
    magnitude = (static_cast<unsigned>(exponent) << f.mantissaBits) | (n & ((1u << f.mantissaBits) - 1));
  }
  return quarter(static_cast<unsigned char>((negative ? 0x80u : 0u) | magnitude));
}
inline quarter toQuarter(half x, quarter_metadata md, bool nanoo = false) {
  return toQuarter(static_cast<float>(x), md, nanoo);
}

} // namespace poplar

// Codelets name the types without poplar::, as they do half (poplin's convCastSupport.hpp).
using poplar::MetadataType;
using poplar::quarter;
using poplar::quarter_metadata;

#endif // IPUSIM_POPLAR_QUARTER_FLOAT_HPP
