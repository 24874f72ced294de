// Loads and stores ([F] S2; asm-dialect §2.6): base + delta + offset scaled by the access size,
// post-incrementing step forms, the triple-packed pace forms, and the AMP weight loads.
#include "../Semantics.h"

#include "ipusim/arch/PackedAddresses.h"

namespace ipusim::sim {

namespace {

/// Address of the `base, delta, offset` forms: operands 1, 2, 3.
uint32_t effective(const Context &c, const Op &op, unsigned size) {
  return c.m[op.v[1]] + c.m[op.v[2]] + src(c, op, 3) * size;
}

/// Address of the step forms (`base, delta+=, stride`), post-incrementing the delta register.
uint32_t stepAddress(Context &c, const Op &op, unsigned size) {
  uint32_t addr = c.m[op.v[1]] + c.m[op.v[2]];
  int32_t stride = isReg(op, 3) ? int32_t(c.m[op.v[3]]) : op.v[3];
  c.setM(unsigned(op.v[2]), c.m[op.v[2]] + uint32_t(stride) * size);
  return addr;
}

template <class T> T load(Tile &t, const Context &c, uint32_t addr) {
  t.loadAddress(c, addr, sizeof(T));
  return t.memory().read<T>(addr);
}
/// A 16-bit load into both halves of an ARF register (the broadcast b16 forms).
uint32_t loadBroadcast16(Tile &t, const Context &c, uint32_t addr) {
  const uint32_t h = load<uint16_t>(t, c, addr);
  return h | h << 16;
}
template <class T> void store(Tile &t, const Context &c, uint32_t addr, T v) {
  t.loadAddress(c, addr, sizeof(T));
  t.noteStore(addr);
  t.memory().write<T>(addr, v);
}

void loadTo(Tile &t, Context &c, const Op &op, uint32_t addr, unsigned size, bool sign) {
  uint32_t v = size == 4   ? load<uint32_t>(t, c, addr)
               : size == 2 ? (sign ? uint32_t(int32_t(load<int16_t>(t, c, addr))) : load<uint16_t>(t, c, addr))
                           : (sign ? uint32_t(int32_t(load<int8_t>(t, c, addr))) : load<uint8_t>(t, c, addr));
  setDst(c, op, v);
}

void load64(Tile &t, Context &c, unsigned dst, uint32_t addr) { setPairA(c, dst, load<uint64_t>(t, c, addr)); }

void load128(Tile &t, Context &c, unsigned dst, uint32_t addr) {
  // [F] S2: 128-bit loads work only in interleaved memory.
  if (!t.memory().interleaved(addr) && t.memory().contains(addr, 16))
    t.raise(c, "ld128 from 0x" + [&] { char b[16]; std::snprintf(b, sizeof b, "%x", addr); return std::string(b); }() +
                   ", which is not in interleaved memory");
  load64(t, c, dst, addr);
  load64(t, c, dst + 2, addr + 8);
}

// ---- triple-packed addresses (tapack): three 21-bit addresses in an MRF pair ----
using Packed = arch::PackedAddresses; // the format: ipusim/arch/PackedAddresses.h
Packed readPacked(const Context &c, unsigned r) { return {c.m[r], c.m[r + 1]}; }
void writePacked(Context &c, unsigned r, Packed p) {
  c.setM(r, p.lo);
  c.setM(r + 1, p.hi);
}
using arch::paceIncrement;

} // namespace

IPU_SEMANTICS(ld32) { loadTo(t, c, op, effective(c, op, 4), 4, false); }
IPU_SEMANTICS(ldz16) { loadTo(t, c, op, effective(c, op, 2), 2, false); }
IPU_SEMANTICS(lds16) { loadTo(t, c, op, effective(c, op, 2), 2, true); }
IPU_SEMANTICS(ldz8) { loadTo(t, c, op, effective(c, op, 1), 1, false); }
IPU_SEMANTICS(lds8) { loadTo(t, c, op, effective(c, op, 1), 1, true); }
IPU_SEMANTICS(ld32step) { loadTo(t, c, op, stepAddress(c, op, 4), 4, false); }
IPU_SEMANTICS(ldz16step) { loadTo(t, c, op, stepAddress(c, op, 2), 2, false); }
IPU_SEMANTICS(lds16step) { loadTo(t, c, op, stepAddress(c, op, 2), 2, true); }
IPU_SEMANTICS(ldz8step) { loadTo(t, c, op, stepAddress(c, op, 1), 1, false); }
IPU_SEMANTICS(lds8step) { loadTo(t, c, op, stepAddress(c, op, 1), 1, true); }
// ldb16: a half loaded into both halves of an ARF register.
IPU_SEMANTICS(ldb16) { c.setA(unsigned(op.v[0]), loadBroadcast16(t, c, effective(c, op, 2))); }
IPU_SEMANTICS(ldb16step) { c.setA(unsigned(op.v[0]), loadBroadcast16(t, c, stepAddress(c, op, 2))); }
IPU_SEMANTICS(ld64) { load64(t, c, unsigned(op.v[0]), effective(c, op, 8)); }
IPU_SEMANTICS(ld64step) { load64(t, c, unsigned(op.v[0]), stepAddress(c, op, 8)); }
IPU_SEMANTICS(ld128) { load128(t, c, unsigned(op.v[0]), effective(c, op, 16)); }
IPU_SEMANTICS(ld128step) { load128(t, c, unsigned(op.v[0]), stepAddress(c, op, 16)); }

IPU_SEMANTICS(st32) { store<uint32_t>(t, c, effective(c, op, 4), src(c, op, 0)); }
IPU_SEMANTICS(st32step) { store<uint32_t>(t, c, stepAddress(c, op, 4), src(c, op, 0)); }
IPU_SEMANTICS(st64) { store<uint64_t>(t, c, effective(c, op, 8), pairA(c, unsigned(op.v[0]))); }
IPU_SEMANTICS(st64step) { store<uint64_t>(t, c, stepAddress(c, op, 8), pairA(c, unsigned(op.v[0]))); }
IPU_SEMANTICS(stm32) { store<uint32_t>(t, c, c.m[op.v[1]] + c.m[op.v[2]] * 4, c.m[op.v[0]]); }
IPU_SEMANTICS(stm32step) {
  uint32_t addr = c.m[op.v[1]];
  c.setM(unsigned(op.v[1]), addr + c.m[op.v[2]] * 4);
  store<uint32_t>(t, c, addr, c.m[op.v[0]]);
}

// Pace forms: address 0 and 1 are loaded, address 2 is stored (asm-dialect §2.6: "xx=outPtr,
// yy=partialsInPtr, zz=inPtr"); each 2-bit select, lowest first, post-increments one address.
IPU_SEMANTICS(ld2x64pace) {
  Packed p = readPacked(c, unsigned(op.v[2]));
  uint32_t strides = c.m[op.v[3]], sel = uint32_t(op.v[4]);
  t.noteAccess(p.addr(0));
  t.noteAccess(p.addr(1));
  load64(t, c, unsigned(op.v[0]), p.addr(0));
  load64(t, c, unsigned(op.v[1]), p.addr(1));
  p.add(0, paceIncrement(strides, sel & 3));
  p.add(1, paceIncrement(strides, sel >> 2 & 3));
  writePacked(c, unsigned(op.v[2]), p);
}
IPU_SEMANTICS(ldst64pace) {
  Packed p = readPacked(c, unsigned(op.v[2]));
  uint32_t strides = c.m[op.v[3]], sel = uint32_t(op.v[4]);
  t.noteAccess(p.addr(0));
  t.noteAccess(p.addr(2));
  uint64_t data = pairA(c, unsigned(op.v[1]));
  load64(t, c, unsigned(op.v[0]), p.addr(0));
  store<uint64_t>(t, c, p.addr(2), data);
  p.add(0, paceIncrement(strides, sel & 3));
  p.add(2, paceIncrement(strides, sel >> 2 & 3));
  writePacked(c, unsigned(op.v[2]), p);
}
IPU_SEMANTICS(ld2xst64pace) {
  Packed p = readPacked(c, unsigned(op.v[2]));
  uint32_t strides = c.m[op.v[3]], sel = uint32_t(op.v[4]);
  for (unsigned k = 0; k < 3; ++k) t.noteAccess(p.addr(k));
  uint64_t data = pairA(c, unsigned(op.v[1]));
  load64(t, c, unsigned(op.v[0]), p.addr(0));
  load64(t, c, unsigned(op.v[0]) + 2, p.addr(1));
  store<uint64_t>(t, c, p.addr(2), data);
  for (unsigned k = 0; k < 3; ++k) p.add(k, paceIncrement(strides, sel >> (2 * k) & 3));
  writePacked(c, unsigned(op.v[2]), p);
}
IPU_SEMANTICS(st64pace) {
  Packed p = readPacked(c, unsigned(op.v[1]));
  store<uint64_t>(t, c, p.addr(2), pairA(c, unsigned(op.v[0])));
  p.add(2, paceIncrement(c.m[op.v[2]], uint32_t(op.v[3]) & 3));
  writePacked(c, unsigned(op.v[1]), p);
}

// ld64a32 $aQ, $mAddr++, $mBase, $mDelta: a 64-bit load from $mAddr into the quad's upper pair
// ($mAddr += 8) and a 32-bit load from $mBase + the delta's low 16 bits into its second register;
// the first is untouched ([F] S2; the delta in bytes is [I]).
IPU_SEMANTICS(ld64a32) {
  unsigned q = unsigned(op.v[0]);
  uint32_t addr = c.m[op.v[1]];
  uint64_t wide = load<uint64_t>(t, c, addr);
  uint32_t narrow = load<uint32_t>(t, c, c.m[op.v[2]] + (c.m[op.v[3]] & 0xFFFF));
  c.setM(unsigned(op.v[1]), addr + 8);
  setPairA(c, q + 2, wide);
  c.setA(q + 1, narrow);
}
// ld64a32pace / ld64b16pace $aD:D+1, $aE, $mA:A+1+=, $mStride, selects: two full addresses in the
// MRF pair (not triple-packed): a 64-bit load from the first into $aD:D+1 and a 32-bit load (a32)
// or a broadcast 16-bit load (b16) from the second into $aE; each address then steps by its 2-bit
// select, lowest first; destinations that overlap are an invalid operation ([F] S2). Each
// address's step unit is its own access size ([I]: the 64-bit unit of the other pace forms, scaled).
namespace {
void load64Narrow(Tile &t, Context &c, const Op &op, unsigned narrowBytes) {
  const unsigned d = unsigned(op.v[0]), e = unsigned(op.v[1]), r = unsigned(op.v[2]);
  if (e == d || e == d + 1) t.raise(c, "invalid operation: the destinations overlap");
  const uint32_t a0 = c.m[r], a1 = c.m[r + 1], strides = c.m[op.v[3]], sel = uint32_t(op.v[4]);
  t.noteAccess(a0);
  t.noteAccess(a1);
  const uint64_t wide = load<uint64_t>(t, c, a0);
  const uint32_t narrow = narrowBytes == 4 ? load<uint32_t>(t, c, a1) : loadBroadcast16(t, c, a1);
  setPairA(c, d, wide);
  c.setA(e, narrow);
  c.setM(r, a0 + uint32_t(paceIncrement(strides, sel & 3)));
  c.setM(r + 1, a1 + uint32_t(paceIncrement(strides, sel >> 2 & 3) / 8 * int32_t(narrowBytes)));
}
} // namespace
IPU_SEMANTICS(ld64a32pace) { load64Narrow(t, c, op, 4); }
IPU_SEMANTICS(ld64b16pace) { load64Narrow(t, c, op, 2); }

// The delta loads: the data comes from $mBase + the 16-bit delta in $mDelta, and a new delta is
// loaded from $mAddr (then $mAddr += 2) into $mDelta ([F] S2; the old delta addresses the data, [I]).
namespace {
uint32_t deltaLoad(Tile &t, Context &c, const Op &op) {
  uint32_t data = c.m[op.v[2]] + (c.m[op.v[3]] & 0xFFFF);
  uint32_t ptr = c.m[op.v[1]];
  uint16_t next = load<uint16_t>(t, c, ptr);
  c.setM(unsigned(op.v[1]), ptr + 2);
  c.setM(unsigned(op.v[3]), next);
  return data;
}
} // namespace
IPU_SEMANTICS(ldd16a32) { uint32_t a = deltaLoad(t, c, op); c.setA(unsigned(op.v[0]), load<uint32_t>(t, c, a)); }
IPU_SEMANTICS(ldd16a64) { uint32_t a = deltaLoad(t, c, op); setPairA(c, unsigned(op.v[0]), load<uint64_t>(t, c, a)); }
IPU_SEMANTICS(ldd16b16) { c.setA(unsigned(op.v[0]), loadBroadcast16(t, c, deltaLoad(t, c, op))); }
// ldd16v2a32 $aD, $mAddr++, $mBase, $mDelta@: a 32-bit load from $mBase + the 16-bit delta in the
// msbs of $mDelta into $aD, and a new pair of 16-bit deltas loaded from $mAddr into $mDelta, then
// $mAddr += 4 ([F] S2). Deltas are byte offsets ([F] poplibs, of its delta loads; of this one,
// [I]). Ours ([I]): as in the other delta loads the old delta addresses the data; the new pair is
// written as the 32-bit word it is in memory, so the delta at $mAddr lands in the lsbs (used by a
// following ld64a32, which takes the low 16 bits) and the one at $mAddr + 2 in the msbs (used by
// the next ldd16v2a32).
IPU_SEMANTICS(ldd16v2a32) {
  const uint32_t data = c.m[op.v[2]] + (c.m[op.v[3]] >> 16), ptr = c.m[op.v[1]];
  const uint32_t pair = load<uint32_t>(t, c, ptr);
  const uint32_t value = load<uint32_t>(t, c, data);
  c.setM(unsigned(op.v[1]), ptr + 4);
  c.setM(unsigned(op.v[3]), pair);
  c.setA(unsigned(op.v[0]), value);
}
// ldb16b16 $aD:D+1, $mBase, $mDelta++, $mMiniD>>: two broadcast 16-bit loads from $mBase plus each
// of the two 16-bit deltas packed in $mDelta, the results a pair of f16v2; the deltas then step
// independently, one by 2 bytes, the other by the 4-bit mini-delta in the lsbs of $mMiniD, which
// is shifted right by 4 ([F] S2). Ours ([I]): deltas in bytes (as the step "by 2 (bytes)"
// suggests); the low delta loads $aD and steps by 2 bytes, the high delta loads $aD+1 and steps
// by the mini-delta, which counts 16-bit elements (2 bytes each, so every step keeps the load
// aligned); each delta wraps within its 16 bits.
IPU_SEMANTICS(ldb16b16) {
  const uint32_t base = c.m[op.v[1]], deltas = c.m[op.v[2]], mini = c.m[op.v[3]];
  const uint32_t lo = deltas & 0xFFFF, hi = deltas >> 16;
  const uint32_t h0 = loadBroadcast16(t, c, base + lo), h1 = loadBroadcast16(t, c, base + hi);
  c.setM(unsigned(op.v[2]), ((lo + 2) & 0xFFFF) | ((hi + 2 * (mini & 0xF)) & 0xFFFF) << 16);
  c.setM(unsigned(op.v[3]), mini >> 4);
  c.setA(unsigned(op.v[0]), h0);
  c.setA(unsigned(op.v[0]) + 1, h1);
}

// AMP weights: 64-bit $CWEI entries loaded from $CCCSLOAD, which post-increments ([F] S2):
// ld64putcs i writes entry i, ld128putcs i entries i and i+1 (from interleaved memory). The fast
// path's handlers convert the halves on the host's F16C (Tile::setCommonWeightOnHost).
namespace {
template <bool OnHost> void putCommonWeight(Tile &t, unsigned i, uint64_t value) {
  if (OnHost) t.setCommonWeightOnHost(i, value);
  else t.setCommonWeight(i, value);
}
template <bool OnHost> void ld64putcs(Tile &t, Context &c, const Op &op) {
  putCommonWeight<OnHost>(t, unsigned(op.v[0]) % 64, load<uint64_t>(t, c, c.cccsload));
  c.cccsload += 8;
}
template <bool OnHost> void ld128putcs(Tile &t, Context &c, const Op &op) {
  if (!t.memory().interleaved(c.cccsload)) t.raise(c, "ld128putcs needs $CCCSLOAD in interleaved memory");
  for (unsigned i = 0; i < 2; ++i)
    putCommonWeight<OnHost>(t, (unsigned(op.v[0]) + i) % 64, load<uint64_t>(t, c, c.cccsload + 8 * i));
  c.cccsload += 16;
}
} // namespace
static RegisterHandler reg_ld64putcs("ld64putcs", ld64putcs<false>);
static RegisterHandler reg_ld128putcs("ld128putcs", ld128putcs<false>);
static RegisterHostVector vec_ld64putcs("ld64putcs", ld64putcs<true>);
static RegisterHostVector vec_ld128putcs("ld128putcs", ld128putcs<true>);

} // namespace ipusim::sim
