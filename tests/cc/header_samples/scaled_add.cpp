// Sample: popops-style ScaledAdd2D (vector of SHORT_SPAN vectors, vector of ONE_PTR rows, scalar
// edge) and a ScaledAddSupervisor-like MultiVertex (ONE_PTR, SCALED_PTR128, 16-bit size), with
// the vertex-state layouts of asm-dialect §3.2.
#include <poplar/AvailableVTypes.h>
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>
#include <cstddef>
#include <type_traits>

#include "poplibs_support/ExternalCodelet.hpp"

using namespace poplar;

#ifdef VECTOR_AVAIL_SHORT_SPAN
static constexpr auto SPAN_TYPE = poplar::VectorLayout::SHORT_SPAN;
#else
static constexpr auto SPAN_TYPE = poplar::VectorLayout::SPAN;
#endif
static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto PTR_ALIGN128 = poplar::VectorLayout::SCALED_PTR128;

namespace popops {

template <typename AType, typename BType, typename ScaleType>
using ComputeType = std::conditional_t<std::is_same<float, AType>::value || std::is_same<float, ScaleType>::value,
                                       float, AType>;

template <typename AType, typename BType, typename ScaleType>
class [[poplar::constraint("elem(**A) != elem(**B)")]] ScaledAdd2D : public Vertex {
public:
  ScaledAdd2D();
  using CT = ComputeType<AType, BType, ScaleType>;
  IS_EXTERNAL_CODELET(true);

  Vector<InOut<Vector<AType, SPAN_TYPE, 8>>> A;
  Vector<Input<Vector<BType, ONE_PTR, 8>>, ONE_PTR> B;
  Input<ScaleType> scaleB;

  bool compute() {
    unsigned limI = A.size();
    for (unsigned i = 0; i < limI; ++i) {
      unsigned limJ = A[i].size();
      auto const &refIn = B[i];
      auto &refOut = A[i];
      for (unsigned j = 0; j < limJ; ++j)
        refOut[j] += static_cast<AType>(static_cast<CT>(*scaleB) * static_cast<CT>(refIn[j]));
    }
    return true;
  }
};
template class ScaledAdd2D<float, float, float>;
template class ScaledAdd2D<half, half, half>;
template class ScaledAdd2D<half, half, float>;

template <typename AType, typename BType, typename ScaleType>
class [[poplar::constraint("elem(*A) != elem(*B)")]] ScaledAddSupervisor : public MultiVertex {
public:
  ScaledAddSupervisor();
  using CT = ComputeType<AType, BType, ScaleType>;

  InOut<Vector<AType, ONE_PTR, 8>> A;
  Input<Vector<BType, ONE_PTR, 8>> B;
  Input<Vector<ScaleType, PTR_ALIGN128, 16>> scaleB;
  unsigned short size;

  // Worker w handles elements w, w + 6, w + 12, ...
  bool compute(unsigned wid) {
    const CT s = static_cast<CT>(scaleB[0]);
    for (unsigned i = wid; i < size; i += numWorkers())
      A[i] += static_cast<AType>(s * static_cast<CT>(B[i]));
    return true;
  }
};
template class ScaledAddSupervisor<float, float, float>;
template class ScaledAddSupervisor<half, half, half>;
template class ScaledAddSupervisor<half, half, float>;

} // namespace popops

#ifdef __IPU__
using SA2 = popops::ScaledAdd2D<float, float, float>;
static_assert(offsetof(SA2, A) == 0 && offsetof(SA2, B) == 8 && offsetof(SA2, scaleB) == 12, "ScaledAdd2D");
static_assert(sizeof(SA2) == 16, "ScaledAdd2D size");
static_assert(sizeof(InOut<Vector<float, SPAN_TYPE, 8>>) == 4, "SHORT_SPAN element of A");
static_assert(sizeof(Input<Vector<float, ONE_PTR, 8>>) == 4, "ONE_PTR element of B");
using SAS = popops::ScaledAddSupervisor<float, float, float>;
static_assert(offsetof(SAS, A) == 0 && offsetof(SAS, B) == 4, "ScaledAddSupervisor A, B");
static_assert(offsetof(SAS, scaleB) == 8 && sizeof(SAS::scaleB) == 2, "ScaledAddSupervisor scaleB (SCALED_PTR128)");
static_assert(offsetof(SAS, size) == 10, "ScaledAddSupervisor size");
static_assert(sizeof(SAS) == 12 && alignof(SAS) == 4, "ScaledAddSupervisor size");
static_assert(SAS::numWorkers() == 6, "six workers");
static_assert(SA2::isExternalCodelet && !SAS::isExternalCodelet, "IS_EXTERNAL_CODELET");
#endif
