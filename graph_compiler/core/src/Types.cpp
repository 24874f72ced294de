#include "ipusim/gc/Types.h"

#include <cmath>
#include <cstring>

namespace ipusim::gc {

namespace {
// Sizes on the IPU: a 32-bit tile (long is 4 bytes, as in the Poplar ABI); half is binary16.
const TypeInfo kTypes[] = {
    {"bool", 1, false, false},          {"char", 1, false, true},
    {"unsigned char", 1, false, false}, {"signed char", 1, false, true},
    {"short", 2, false, true},          {"unsigned short", 2, false, false},
    {"int", 4, false, true},            {"unsigned int", 4, false, false},
    {"long", 4, false, true},           {"unsigned long", 4, false, false},
    {"long long", 8, false, true},      {"unsigned long long", 8, false, false},
    {"half", 2, true, true},            {"float", 4, true, true},
    {"quarter", 1, true, true},
};
static_assert(sizeof kTypes / sizeof kTypes[0] == size_t(TypeId::Count));
} // namespace

const TypeInfo &typeInfo(TypeId t) { return kTypes[size_t(t)]; }

TypeId typeFromName(const std::string &name) {
  for (size_t i = 0; i < size_t(TypeId::Count); ++i)
    if (name == kTypes[i].name) return TypeId(i);
  if (name == "unsigned") return TypeId::UnsignedInt;
  if (name == "signed int" || name == "signed") return TypeId::Int;
  return TypeId::Count;
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000);
  if (std::isnan(f)) return uint16_t(sign | 0x7E00 | ((x >> 13) & 0x3FF));
  const double a = std::fabs(double(f));
  if (a >= 65520.0) return uint16_t(sign | 0x7C00); // rounds past the largest finite half
  if (a < std::ldexp(1.0, -25)) return sign;        // rounds to zero (the tie goes to even zero)
  int e;
  std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  // The spacing of halves near a: 2^(e-11) for normals, 2^-24 for subnormals.
  const int exp = std::max(e - 11, -24);
  const double q = std::nearbyint(std::ldexp(a, -exp)); // round to nearest even (the default mode)
  const double v = std::ldexp(q, exp);
  // Encode v exactly.
  if (v < std::ldexp(1.0, -14)) return uint16_t(sign | uint16_t(std::ldexp(v, 24)));
  int ve;
  const double vm = std::frexp(v, &ve); // v = vm * 2^ve, vm in [0.5,1)
  const uint16_t biased = uint16_t(ve - 1 + 15);
  const uint16_t mant = uint16_t(std::ldexp(vm * 2 - 1, 10));
  return uint16_t(sign | biased << 10 | mant);
}

float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16, e = (h >> 10) & 0x1F, m = h & 0x3FF;
  float f;
  if (e == 0x1F) {
    uint32_t x = sign | 0x7F800000 | m << 13;
    std::memcpy(&f, &x, 4);
    return f;
  }
  f = e ? std::ldexp(float(m | 0x400), int(e) - 25) : std::ldexp(float(m), -24);
  return sign ? -f : f;
}

} // namespace ipusim::gc
