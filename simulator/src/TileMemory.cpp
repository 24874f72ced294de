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
  if (elementSize_ > 1 && (elementSize_ & (elementSize_ - 1)) == 0) elementShift_ = unsigned(__builtin_ctz(elementSize_));
  // Reserved, not committed: pages a program never touches cost nothing (DESIGN decision 6).
  void *p = mmap(nullptr, tile.memorySize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error("ipusim: error: cannot reserve tile memory");
  bytes_ = static_cast<uint8_t *>(p);
}

TileMemory::~TileMemory() { munmap(bytes_, end_ - base_); }

} // namespace ipusim::sim
