// The triple-packed address format of tapack and the pace loads and stores: three 21-bit tile
// addresses in an MRF pair. Address 0 is bits 0-20 of the first register, address 1 bits 0-20 of
// the second; address 2 takes the top 11 bits of both (its bits 0-10 in the first register's
// bits 21-31, its bits 11-20 in the second's bits 21-30).
//
// Evidence: poplibs' ScaledAddSupervisor_fp.S unpacks a pair advanced by pace instructions with
// `and $dataPtr, $triPtr0, TMEM_FULL_ADDRESS_MASK` / `and $dataBPtr, $triPtr1, ...` and repacks
// with `tapack $triPtr, $triPtr0, $triPtr1, $triPtr1`, so each register's low 21 bits are one
// address. Where address 2 lives is not in a public source; it is [I] (docs/hardware.md).
#pragma once

#include <cstdint>

namespace ipusim::arch {

constexpr uint32_t kPackedAddressMask = 0x1FFFFF; // 21 bits (TMEM_FULL_ADDRESS_MASK)

struct PackedAddresses {
  uint32_t lo, hi; ///< the MRF pair's two registers

  static PackedAddresses pack(uint32_t a0, uint32_t a1, uint32_t a2) {
    a0 &= kPackedAddressMask, a1 &= kPackedAddressMask, a2 &= kPackedAddressMask;
    return {a0 | (a2 & 0x7FF) << 21, a1 | (a2 >> 11) << 21};
  }
  uint32_t addr(unsigned k) const {
    if (k == 0) return lo & kPackedAddressMask;
    if (k == 1) return hi & kPackedAddressMask;
    return (lo >> 21) | ((hi >> 21) & 0x3FF) << 11;
  }
  /// These registers holding addresses a0, a1, a2 instead (each wrapping at 21 bits).
  PackedAddresses with(uint32_t a0, uint32_t a1, uint32_t a2) const {
    PackedAddresses p = pack(a0, a1, a2);
    p.hi |= hi & 0x80000000u; // the second register's top bit is not part of any address: kept
    return p;
  }
  /// Address k advanced by `delta` bytes (wrapping at 21 bits), the others kept.
  void add(unsigned k, int32_t delta) {
    uint32_t a[3] = {addr(0), addr(1), addr(2)};
    a[k] += uint32_t(delta);
    *this = with(a[0], a[1], a[2]);
  }
};

/// The post-increment a pace form's 2-bit stride select gives, in bytes: 0 = one 64-bit atom,
/// 1..3 = the signed 10-bit stride field 0..2 of the stride register, in atoms (asm-dialect §2.6).
inline int32_t paceIncrement(uint32_t strides, unsigned select) {
  if (select == 0) return 8;
  int32_t field = int32_t(strides >> (10 * (select - 1)) & 0x3FF);
  if (field & 0x200) field -= 0x400;
  return field * 8;
}

} // namespace ipusim::arch
