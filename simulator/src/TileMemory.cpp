#include "ipusim/sim/TileMemory.h"

#include <stdexcept>
#include <sys/mman.h>

namespace ipusim::sim {

TileMemory::TileMemory(const arch::TileConfig &tile)
    : base_(tile.memoryBase), end_(tile.memoryEnd()), elementSize_(tile.elementSize),
      executableEnd_(tile.memoryBase), interleavedBase_(tile.memoryEnd()) {
  for (const arch::MemoryRegion &r : tile.regions) {
    if (r.executable) executableEnd_ = std::max(executableEnd_, r.end);
    if (r.interleave > 1) interleavedBase_ = std::min(interleavedBase_, r.base);
  }
  // Reserved, not committed: pages a program never touches cost nothing (DESIGN decision 6).
  void *p = mmap(nullptr, tile.memorySize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error("ipusim: error: cannot reserve tile memory");
  bytes_ = static_cast<uint8_t *>(p);
}

TileMemory::~TileMemory() { munmap(bytes_, end_ - base_); }

uint32_t TileMemory::element(uint32_t addr) const {
  if (!interleaved(addr)) return (addr - base_) / elementSize_;
  // Region 1: adjacent 64-bit words alternate between two element arrays ([RE] S8, S9).
  uint32_t off = addr - interleavedBase_;
  uint32_t pair = off / (2 * elementSize_);
  return 0x10000 + pair * 2 + ((addr >> 3) & 1);
}

} // namespace ipusim::sim
