// ipusim's <poplar/IeeeHalf.hpp>: Poplar's IeeeHalf, an IEEE binary16 value held as its bits,
// converted from and to float with the IPU's rounding (nearest, ties to even). On the IPU it is
// the native half underneath; popfloat's codelets use it to get a half's bit pattern.
#ifndef IPUSIM_POPLAR_IEEE_HALF_HPP
#define IPUSIM_POPLAR_IEEE_HALF_HPP

#include <poplar/HalfFloat.hpp>

namespace poplar {

class IeeeHalf {
  unsigned short bits_ = 0;

public:
  IeeeHalf() = default;
  explicit IeeeHalf(float f) : bits_(__builtin_bit_cast(unsigned short, static_cast<half>(f))) {}
  static IeeeHalf fromBits(unsigned short bits) {
    IeeeHalf h;
    h.bits_ = bits;
    return h;
  }
  unsigned short bit16() const { return bits_; }
  operator float() const { return static_cast<float>(__builtin_bit_cast(half, bits_)); }
  bool operator==(IeeeHalf o) const { return bits_ == o.bits_; }
  bool operator!=(IeeeHalf o) const { return bits_ != o.bits_; }
};

} // namespace poplar

#endif // IPUSIM_POPLAR_IEEE_HALF_HPP
