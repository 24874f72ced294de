// The tile's hardware PRNG: xoroshiro128aox, published by Graphcore (J. Hanlon, "A Fast Hardware
// Pseudorandom Number Generator Based on xoroshiro128", arXiv:2203.04058, IEEE TC 2022). The
// state is $PRNG_0_0/$PRNG_0_1 (s0, low/high) and $PRNG_1_0/$PRNG_1_1 (s1) of each worker.
#include "ipusim/arch/Half.h"
#include "../Semantics.h"

namespace ipusim::sim {
using namespace arch; // the f16 conversions (ipusim/arch/Half.h)

namespace {

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

} // namespace

uint64_t nextRandom(Context &c) {
  uint64_t s0 = c.prng[0] | uint64_t(c.prng[1]) << 32;
  uint64_t s1 = c.prng[2] | uint64_t(c.prng[3]) << 32;
  uint64_t sx = s0 ^ s1;
  uint64_t sa = s0 & s1;
  uint64_t result = sx ^ (rotl(sa, 1) | rotl(sa, 2)); // the AOX output function
  s0 = rotl(s0, 55) ^ sx ^ (sx << 14);                // the xoroshiro128 state update
  s1 = rotl(sx, 36);
  c.prng[0] = uint32_t(s0);
  c.prng[1] = uint32_t(s0 >> 32);
  c.prng[2] = uint32_t(s1);
  c.prng[3] = uint32_t(s1 >> 32);
  return result;
}

IPU_SEMANTICS(urand64) { setPairA(c, unsigned(op.v[0]), nextRandom(c)); }
IPU_SEMANTICS(urand32) { c.setA(unsigned(op.v[0]), nextRandom32(c)); }

} // namespace ipusim::sim

namespace ipusim::sim {

namespace {
/// One approximately standard-normal value: (sum of twelve 5-bit fields of a PRNG output - 186)
/// / 32 (mean 186 and standard deviation sqrt(12 (32^2 - 1) / 12) = 31.98). This is poplibs' old
/// host model of the instruction, which poplibs itself says is not exact: the hardware's method
/// is not public.
double gaussian(Context &c) {
  uint64_t r = nextRandom(c);
  int sum = 0;
  for (unsigned i = 0; i < 12; ++i) sum += int(r >> (5 * i) & 31);
  return double(sum - 186) / 32.0;
}
} // namespace

IPU_SEMANTICS(f32v2grand) {
  float g0 = float(gaussian(c)), g1 = float(gaussian(c));
  c.setA(unsigned(op.v[0]), asBits(g0));
  c.setA(unsigned(op.v[0]) + 1, asBits(g1));
}
IPU_SEMANTICS(f16v2grand) {
  uint32_t h0 = doubleToHalf(gaussian(c)), h1 = doubleToHalf(gaussian(c));
  c.setA(unsigned(op.v[0]), h0 | h1 << 16);
}

} // namespace ipusim::sim
