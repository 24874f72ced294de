// A poplibs-style MultiVertex templated on its data and scale types whose workers take elements
// i = w, w + 6, ... (the loop shape of poplibs' C++ ScaledAddSupervisor). Its own file: this loop
// shape has made ipu-cc fail on llvm.umul.with.overflow (the trip count), and a file that does
// not compile hides its other vertices.
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;

using namespace poplar;

namespace corpus {

// A += scale * B in float, rounded back to AType; only for 32-bit data, where each element is a
// word of its own (workers never share a word).
template <typename AType, typename ScaleType> class ScaledAddStrided : public MultiVertex {
  static_assert(sizeof(AType) == 4, "workers must not share a 32-bit word");

public:
  InOut<Vector<AType, ONE_PTR, 8>> A;
  Input<Vector<AType, ONE_PTR, 8>> B;
  ScaleType scale;
  const unsigned short size;

  bool compute(unsigned wid) {
    for (unsigned i = wid; i < size; i += numWorkers())
      A[i] = AType(float(A[i]) + float(scale) * float(B[i]));
    return true;
  }
};
template class ScaledAddStrided<float, half>;

} // namespace corpus
