// floatToHalf works on the float's bits; doubleToHalf is the reference (an exact double rounded
// once). They must agree on every float: here on every exponent and sign with the mantissas that
// decide a rounding (the 13 bits a normal drops: zero, one, just under, at and over the tie, all
// ones; the subnormals' wider dropped parts at their ties), and on 4 million random floats.
#include "ipusim/arch/Half.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace ipusim::arch;

namespace {

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void expectSame(uint32_t bits) {
  const float f = fromBits(bits);
  ASSERT_EQ(floatToHalf(f), doubleToHalf(double(f))) << std::hex << "float bits 0x" << bits;
}

TEST(Half, FloatToHalfAgreesWithTheExactReferenceAtEveryRoundingBoundary) {
  const uint32_t low[] = {0, 1, 2, 0xFFF, 0x1000, 0x1001, 0x1FFE, 0x1FFF};
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (uint32_t exp = 0; exp < 256; ++exp)
      for (uint32_t top = 0; top < 1024; ++top) {
        for (uint32_t l : low) expectSame(sign << 31 | exp << 23 | top << 13 | l);
        // Subnormal results drop 14 to 24 bits: their ties and neighbours.
        for (uint32_t shift = 14; shift <= 23; ++shift)
          for (int d = -1; d <= 1; ++d) expectSame(sign << 31 | exp << 23 | (((top << 13) | (1u << (shift - 1))) + uint32_t(d)) % (1u << 23));
      }
}

TEST(Half, FloatToHalfAgreesWithTheExactReferenceOnRandomFloats) {
  std::mt19937 rng(12345);
  for (int i = 0; i < 4000000; ++i) expectSame(uint32_t(rng()));
}

TEST(Half, FloatToHalfKnownValues) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00);   // the tie above the largest half rounds to infinity
  EXPECT_EQ(floatToHalf(0x1p-24f), 0x0001);   // the smallest subnormal
  EXPECT_EQ(floatToHalf(0x1p-25f), 0x0000);   // half of it: a tie, to even
  EXPECT_EQ(floatToHalf(0x1.8p-24f), 0x0002); // 1.5 units: a tie, to even
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(fromBits(0xFFC00001)), 0xFE00); // a NaN keeps its sign
}

} // namespace
