// ipusim's runtime codelets, built into lib/ipusim/runtime.gp by popc when ipusim is built.
//
// CopyList: the on-tile copies of one compute step on one tile (rearrangements before and after
// vertices, the tail of exchanged data that was not whole aligned words). Each descriptor is
// three words, {destination, source, bytes}; worker w copies descriptors w, w + 6, ... (in
// assembly, CopyList.S). The graph compiler splits long copies so that the six workers share them,
// and where a list has many copies of one aligned word puts them first for CopyWordList.
#include <poplar/Vertex.hpp>

namespace ipusim_rt {

class CopyList : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<unsigned>> descriptors;
  static const bool isExternalCodelet = true; // CopyList.S

  void compute(unsigned) {}
};

// CopyWordList: a CopyList whose first `words` descriptors each copy one aligned word, which take
// a loop of their own (five bundles a word where CopyList's general path takes fourteen).
class CopyWordList : public poplar::MultiVertex {
public:
  poplar::Input<poplar::Vector<unsigned>> descriptors;
  unsigned words;
  static const bool isExternalCodelet = true; // CopyList.S

  void compute(unsigned) {}
};

} // namespace ipusim_rt
