// Integer instructions of the MAIN (MRF) and AUX (ARF) pipelines ([F] S2; ipu-facts §3.1).
// Where the ISA documentation is not public in detail, the behaviour chosen is stated.
#include "../Semantics.h"

#include "ipusim/arch/PackedAddresses.h"

namespace ipusim::sim {

namespace {
uint32_t a1(const Context &c, const Op &op) { return src(c, op, 1); }
uint32_t a2(const Context &c, const Op &op) { return src(c, op, 2); }
// Shifts by 32 or more give 0 (or the sign, for shrs): ours.
uint32_t shl(uint32_t x, uint32_t n) { return n >= 32 ? 0 : x << n; }
uint32_t shr(uint32_t x, uint32_t n) { return n >= 32 ? 0 : x >> n; }
uint32_t shrs(uint32_t x, uint32_t n) { return uint32_t(int32_t(x) >> (n >= 32 ? 31 : n)); }
} // namespace

// The common forms of the binary operations on MRF registers, specialised (Semantics.h): the same
// results as the general handlers below.
#define IPU_MRF_BINARY(name, expr)                                                                 \
  static void spec_##name##_mmm(Tile &, Context &c, const Op &op) {                                \
    const uint32_t x = c.m[op.v[1]], y = c.m[op.v[2]];                                             \
    c.setM(unsigned(op.v[0]), (expr));                                                             \
  }                                                                                                \
  static void spec_##name##_mmi(Tile &, Context &c, const Op &op) {                                \
    const uint32_t x = c.m[op.v[1]], y = uint32_t(op.v[2]);                                        \
    c.setM(unsigned(op.v[0]), (expr));                                                             \
  }                                                                                                \
  static RegisterSpecialised regMmm_##name(#name " mmm", spec_##name##_mmm);                       \
  static RegisterSpecialised regMmi_##name(#name " mmi", spec_##name##_mmi);
IPU_MRF_BINARY(add, x + y)
IPU_MRF_BINARY(sub, x - y)
IPU_MRF_BINARY(mul, x * y)
IPU_MRF_BINARY(and, x & y)
IPU_MRF_BINARY(andc, x & ~y)
IPU_MRF_BINARY(or, x | y)
IPU_MRF_BINARY(xor, x ^ y)
IPU_MRF_BINARY(shl, shl(x, y))
IPU_MRF_BINARY(shr, shr(x, y))
IPU_MRF_BINARY(shrs, shrs(x, y))
IPU_MRF_BINARY(min, uint32_t(std::min(int32_t(x), int32_t(y))))
IPU_MRF_BINARY(max, uint32_t(std::max(int32_t(x), int32_t(y))))
IPU_MRF_BINARY(cmpeq, x == y)
IPU_MRF_BINARY(cmpne, x != y)
IPU_MRF_BINARY(cmpslt, int32_t(x) < int32_t(y))
IPU_MRF_BINARY(cmpult, x < y)
#undef IPU_MRF_BINARY

IPU_SEMANTICS(add) { setDst(c, op, a1(c, op) + a2(c, op)); }
IPU_SEMANTICS(sub) { setDst(c, op, a1(c, op) - a2(c, op)); } // sub $d, x, y = x - y
IPU_SEMANTICS(mul) { setDst(c, op, a1(c, op) * a2(c, op)); } // low 32 bits: the same signed or unsigned
IPU_SEMANTICS(and) { setDst(c, op, a1(c, op) & a2(c, op)); }
IPU_SEMANTICS(andc) { setDst(c, op, a1(c, op) & ~a2(c, op)); }
IPU_SEMANTICS(or) { setDst(c, op, a1(c, op) | a2(c, op)); }
IPU_SEMANTICS(xor) { setDst(c, op, a1(c, op) ^ a2(c, op)); }
IPU_SEMANTICS(xnor) { setDst(c, op, ~(a1(c, op) ^ a2(c, op))); }
IPU_SEMANTICS(not) { setDst(c, op, ~a1(c, op)); }
IPU_SEMANTICS(shl) { setDst(c, op, shl(a1(c, op), a2(c, op))); }
IPU_SEMANTICS(shr) { setDst(c, op, shr(a1(c, op), a2(c, op))); }
IPU_SEMANTICS(shrs) { setDst(c, op, shrs(a1(c, op), a2(c, op))); }
IPU_SEMANTICS(min) { setDst(c, op, uint32_t(std::min(int32_t(a1(c, op)), int32_t(a2(c, op))))); }
IPU_SEMANTICS(max) { setDst(c, op, uint32_t(std::max(int32_t(a1(c, op)), int32_t(a2(c, op))))); }
IPU_SEMANTICS(cmpeq) { setDst(c, op, a1(c, op) == a2(c, op)); }
IPU_SEMANTICS(cmpne) { setDst(c, op, a1(c, op) != a2(c, op)); }
IPU_SEMANTICS(cmpslt) { setDst(c, op, int32_t(a1(c, op)) < int32_t(a2(c, op))); }
IPU_SEMANTICS(cmpult) { setDst(c, op, a1(c, op) < a2(c, op)); }
IPU_SEMANTICS(abs) { setDst(c, op, uint32_t(std::abs(int64_t(int32_t(a1(c, op)))))); }
IPU_SEMANTICS(clz) { uint32_t x = a1(c, op); setDst(c, op, x ? uint32_t(__builtin_clz(x)) : 32); }
IPU_SEMANTICS(popc) { setDst(c, op, uint32_t(__builtin_popcount(a1(c, op)))); }
IPU_SEMANTICS(setzi) { setDst(c, op, uint32_t(op.v[1])); }
static void spec_setzi_mi(Tile &, Context &c, const Op &op) { c.setM(unsigned(op.v[0]), uint32_t(op.v[1])); }
static RegisterSpecialised regMi_setzi("setzi mi", spec_setzi_mi);
IPU_SEMANTICS(atom) { c.setM(unsigned(op.v[0]), c.a[op.v[1]]); } // ARF to MRF, no conversion
IPU_SEMANTICS(movnz) {                                             // $d = $b if $a != 0
  if (c.m[op.v[1]] != 0) c.setM(unsigned(op.v[0]), c.m[op.v[2]]);
}
IPU_SAME_SEMANTICS(movz, movnz)
IPU_SEMANTICS(bitrev8) {
  uint32_t x = a1(c, op), r = 0;
  for (int b = 0; b < 32; ++b)
    if (x >> b & 1) r |= 1u << ((b & ~7) | (7 - (b & 7)));
  setDst(c, op, r);
}
// swap8: the two bytes of each half swap places ([L] LLVM builds bswap as swap8 then swap16).
IPU_SEMANTICS(swap8) { uint32_t x = a1(c, op); setDst(c, op, (x & 0x00FF00FFu) << 8 | (x >> 8 & 0x00FF00FFu)); }
IPU_SEMANTICS(swap16) { uint32_t x = a1(c, op); setDst(c, op, x << 16 | x >> 16); }
// sort4x16lo/hi: the low (high) halves of the two sources, first source in the low half.
IPU_SEMANTICS(sort4x16lo) { setDst(c, op, (a1(c, op) & 0xFFFF) | a2(c, op) << 16); }
IPU_SEMANTICS(sort4x16hi) { setDst(c, op, a1(c, op) >> 16 | (a2(c, op) & 0xFFFF0000u)); }
// roll16: the high half of the first source and the low half of the second ([I]).
IPU_SEMANTICS(roll16) { setDst(c, op, a1(c, op) >> 16 | a2(c, op) << 16); }

// 64-bit ARF logic.
IPU_SEMANTICS(and64) { setPairA(c, unsigned(op.v[0]), pairA(c, unsigned(op.v[1])) & pairA(c, unsigned(op.v[2]))); }
IPU_SEMANTICS(andc64) { setPairA(c, unsigned(op.v[0]), pairA(c, unsigned(op.v[1])) & ~pairA(c, unsigned(op.v[2]))); }
IPU_SEMANTICS(or64) { setPairA(c, unsigned(op.v[0]), pairA(c, unsigned(op.v[1])) | pairA(c, unsigned(op.v[2]))); }
IPU_SEMANTICS(not64) { setPairA(c, unsigned(op.v[0]), ~pairA(c, unsigned(op.v[1]))); }
IPU_SEMANTICS(sort4x32lo) { setPairA(c, unsigned(op.v[0]), uint64_t(c.a[op.v[1]]) | uint64_t(c.a[op.v[2]]) << 32); }
IPU_SEMANTICS(sort4x32hi) { setPairA(c, unsigned(op.v[0]), uint64_t(c.a[op.v[1] + 1]) | uint64_t(c.a[op.v[2] + 1]) << 32); }

// tapack: three 21-bit addresses in an MRF pair (the format: ipusim/arch/PackedAddresses.h).
IPU_SEMANTICS(tapack) {
  arch::PackedAddresses p = arch::PackedAddresses::pack(c.m[op.v[1]], c.m[op.v[2]], c.m[op.v[3]]);
  c.setM(unsigned(op.v[0]), p.lo);
  c.setM(unsigned(op.v[0]) + 1, p.hi);
}

} // namespace ipusim::sim
