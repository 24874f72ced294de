// ipusim's runtime codelets, built into lib/ipusim/runtime.gp by popc when ipusim is built.
//
// CopyList: the on-tile copies of one compute step on one tile (rearrangements before and after
// vertices, the tail of exchanged data that was not whole aligned words). Each descriptor is
// three words, {destination, source, bytes}; worker w copies descriptors w, w + 6, ... The graph
// compiler splits long copies so that the six workers share them.
#include <poplar/Vertex.hpp>

#include <cstdint>

namespace ipusim_rt {

class CopyList : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<unsigned>> descriptors;

  void compute(unsigned worker) {
    const unsigned n = descriptors.size() / 3;
    for (unsigned i = worker; i < n; i += numWorkers()) {
      const unsigned dst = descriptors[3 * i], src = descriptors[3 * i + 1], bytes = descriptors[3 * i + 2];
      // The widest access all three allow: 8, 4, 2 or 1 bytes.
      const unsigned align = dst | src | bytes;
      if ((align & 7) == 0) {
        auto *d = reinterpret_cast<uint64_t *>(dst);
        auto *s = reinterpret_cast<const uint64_t *>(src);
        for (unsigned k = 0; k < bytes / 8; ++k) d[k] = s[k];
      } else if ((align & 3) == 0) {
        auto *d = reinterpret_cast<uint32_t *>(dst);
        auto *s = reinterpret_cast<const uint32_t *>(src);
        for (unsigned k = 0; k < bytes / 4; ++k) d[k] = s[k];
      } else if ((align & 1) == 0) {
        auto *d = reinterpret_cast<uint16_t *>(dst);
        auto *s = reinterpret_cast<const uint16_t *>(src);
        for (unsigned k = 0; k < bytes / 2; ++k) d[k] = s[k];
      } else {
        auto *d = reinterpret_cast<uint8_t *>(dst);
        auto *s = reinterpret_cast<const uint8_t *>(src);
        for (unsigned k = 0; k < bytes; ++k) d[k] = s[k];
      }
    }
  }
};

} // namespace ipusim_rt
