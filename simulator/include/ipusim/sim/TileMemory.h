// Tile SRAM: 624 KiB at 0x4C000 ([F] S6, [RE] S9), reserved lazily (DESIGN decision 6), with the
// region, element and interleave layout of arch/configs.
#pragma once

#include "ipusim/arch/Config.h"

#include <cstdint>
#include <cstring>

namespace ipusim::sim {

class TileMemory {
public:
  explicit TileMemory(const arch::TileConfig &tile);
  ~TileMemory();
  TileMemory(const TileMemory &) = delete;
  TileMemory &operator=(const TileMemory &) = delete;

  uint32_t base() const { return base_; }
  uint32_t end() const { return end_; }
  bool contains(uint32_t addr, uint32_t bytes) const {
    return addr >= base_ && uint64_t(addr) + bytes <= end_;
  }
  /// Host pointer of a tile address; the caller has checked contains().
  uint8_t *at(uint32_t addr) { return bytes_ + (addr - base_); }
  const uint8_t *at(uint32_t addr) const { return bytes_ + (addr - base_); }

  template <class T> T read(uint32_t addr) const {
    T v;
    std::memcpy(&v, at(addr), sizeof v);
    return v;
  }
  template <class T> void write(uint32_t addr, T v) { std::memcpy(at(addr), &v, sizeof v); }

  /// True if `addr` is in a region whose 64-bit words alternate between element arrays.
  bool interleaved(uint32_t addr) const { return elements().interleaved(addr); }
  bool executable(uint32_t addr) const { return addr >= base_ && addr < executableEnd_; }
  uint32_t executableEnd() const { return executableEnd_; }
  /// Where the memory elements lie: what element() needs, copied out of the memory so that a loop
  /// over many accesses keeps it in host registers.
  struct Elements {
    uint32_t base, interleavedBase, end, size;
    unsigned shift; ///< log2 of the element size when it is a power of two (it is on Mk2), else 0
    /// Whole elements in `bytes` (a shift every memory access of a bundle would otherwise divide).
    uint32_t count(uint32_t bytes) const { return shift ? bytes >> shift : bytes / size; }
    bool interleaved(uint32_t addr) const { return addr >= interleavedBase && addr < end; }
    /// The memory element (bank) an access to `addr` uses: one port per element per cycle ([I]
    /// ipu-facts §2.4); in the interleaved region even and odd 64-bit words are different elements.
    uint32_t of(uint32_t addr) const {
      if (!interleaved(addr)) return count(addr - base);
      // Region 1: adjacent 64-bit words alternate between two element arrays ([RE] S8, S9).
      return 0x10000 + count(addr - interleavedBase) / 2 * 2 + ((addr >> 3) & 1);
    }
  };
  Elements elements() const { return {base_, interleavedBase_, end_, elementSize_, elementShift_}; }
  /// The memory element of an access to `addr` (a tile address in this memory).
  uint32_t element(uint32_t addr) const { return elements().of(addr); }

private:
  uint8_t *bytes_ = nullptr;
  uint32_t base_, end_, elementSize_, executableEnd_, interleavedBase_;
  unsigned elementShift_ = 0; ///< log2 of the element size when it is a power of two, else 0
};

} // namespace ipusim::sim
