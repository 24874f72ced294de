// ipusim's runtime codelets, built into lib/ipusim/runtime.gp by popc when ipusim is built.
//
// CopyList: the on-tile copies of one compute step on one tile (rearrangements before and after
// vertices, the tail of exchanged data that was not whole aligned words). Each descriptor is
// three words, {destination, source, bytes}; worker w copies descriptors w, w + 6, ... (in
// assembly, CopyList.S). The graph compiler splits long copies so that the six workers share them.
#include <poplar/Vertex.hpp>

namespace ipusim_rt {

class CopyList : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<unsigned>> descriptors;
  static const bool isExternalCodelet = true; // CopyList.S

  void compute(unsigned) {}
};

} // namespace ipusim_rt
