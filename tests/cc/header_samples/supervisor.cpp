// Sample: a SupervisorVertex (CSR access, AMP weight loads) and SupervisorVertexIf, as poplin's
// convolution supervisors use them.
#include <poplar/AvailableVTypes.h>
#include <poplar/HalfFloat.hpp>
#include <poplar/TileConstants.hpp>
#include <poplar/Vertex.hpp>
#ifdef __IPU__
#include <ipu_builtins.h>
#endif

#include "poplibs_support/ExternalCodelet.hpp"

using namespace poplar;

namespace poplin {

class LoadWeights : public SupervisorVertex {
public:
  Input<Vector<half, VectorLayout::ONE_PTR, 16>> weights;
  Output<unsigned> tileId;

  bool compute() {
#ifdef __IPU__
    __builtin_ipu_put(reinterpret_cast<unsigned>(&weights[0]), CSR_S_CCCSLOAD__INDEX);
    __builtin_ipu_ld128putcs(0);
    __builtin_ipu_ld128putcs(4);
    __builtin_ipu_ld64putcs(8);
    *tileId = __builtin_ipu_get_tile_id();
#else
    *tileId = 0;
#endif
    return true;
  }
};

template <typename FPType, bool useAsm>
class [[poplar::constraint("elem(**in) != elem(**out)")]] ForLoopLike : public SupervisorVertexIf<useAsm && ASM_CODELETS_ENABLED> {
public:
  ForLoopLike();
  IS_EXTERNAL_CODELET(useAsm);

  InOut<int> count;
  const int limit;
  const int step;

  bool compute() {
    *count += step;
    return *count < limit;
  }
};
template class ForLoopLike<float, true>;
template class ForLoopLike<half, false>;

} // namespace poplin

static_assert(__is_base_of(SupervisorVertex, poplin::LoadWeights), "supervisor");
#ifdef __IPU__
static_assert(__is_base_of(SupervisorVertex, poplin::ForLoopLike<float, true>), "SupervisorVertexIf<true>");
static_assert(poplin::ForLoopLike<float, true>::isExternalCodelet, "external on the IPU");
#endif
static_assert(__is_base_of(Vertex, poplin::ForLoopLike<half, false>), "SupervisorVertexIf<false>");
static_assert(!poplin::ForLoopLike<half, false>::isExternalCodelet, "not external");

// Emit compute() in the sample IR (ipu-cc generates the real __runCodelet_ wrapper).
[[gnu::used]] static bool sampleEntry(void *v) { return static_cast<poplin::LoadWeights *>(v)->compute(); }
