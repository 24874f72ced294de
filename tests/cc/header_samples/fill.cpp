// Sample: popops-style Fill / Fill2d (a plain inline value, a SPAN output, a vector of vectors)
// and the vertex-state layout of asm-dialect §3.2's popops::Fill<float>.
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>
#include <cstddef>

#include "poplibs_support/ExternalCodelet.hpp"

using namespace poplar;

namespace popops {

template <typename InType> class Fill : public Vertex {
public:
  Fill();

  InType in;
  Output<Vector<InType>> out;

  IS_EXTERNAL_CODELET(true);

  bool compute() {
    for (auto &x : out)
      x = in;
    return true;
  }
};

template class Fill<float>;
template class Fill<half>;
template class Fill<int>;
template class Fill<unsigned long long>;

template <typename InType> class Fill2d : public Vertex {
public:
  Fill2d();

  InType in;
  Vector<Output<Vector<InType>>> out;

  bool compute() {
    for (unsigned i = 0; i < out.size(); ++i)
      for (unsigned j = 0; j < out[i].size(); ++j)
        out[i][j] = in;
    return true;
  }
};

template class Fill2d<float>;
template class Fill2d<half>;

} // namespace popops

#ifdef __IPU__
// asm-dialect §3.2: popops::Fill<float>: +0 in, +4 out.ptr, +8 out.size.
static_assert(offsetof(popops::Fill<float>, in) == 0, "Fill<float>::in");
static_assert(offsetof(popops::Fill<float>, out) == 4, "Fill<float>::out.ptr");
static_assert(sizeof(popops::Fill<float>) == 12 && alignof(popops::Fill<float>) == 4, "Fill<float>");
static_assert(sizeof(Output<Vector<float>>) == 8 && alignof(Output<Vector<float>>) == 4, "SPAN");
// 64-bit types: +0 in (8 bytes), +8 ptr, +12 size.
static_assert(offsetof(popops::Fill<unsigned long long>, out) == 8, "Fill<u64>::out");
static_assert(sizeof(popops::Fill<unsigned long long>) == 16, "Fill<u64>");
static_assert(offsetof(popops::Fill<half>, out) == 4, "Fill<half>::out");
static_assert(sizeof(popops::Fill2d<float>) == 12, "Fill2d<float>");
#endif
