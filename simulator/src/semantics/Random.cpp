// The tile's hardware PRNG: xoroshiro128aox, published by Graphcore (J. Hanlon, "A Fast Hardware
// Pseudorandom Number Generator Based on xoroshiro128", arXiv:2203.04058, IEEE TC 2022). The
// state is $PRNG_0_0/$PRNG_0_1 (s0, low/high) and $PRNG_1_0/$PRNG_1_1 (s1) of each worker.
#include "../Semantics.h"

namespace ipusim::sim {

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
