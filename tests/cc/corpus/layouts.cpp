// The compressed vector encodings as plain edges (SHORT_SPAN, SCALED_PTR64, SCALED_PTR32), packed
// small members (their offsets follow natural alignment, asm-dialect §3.2), bool outputs, and a
// poplibs-style MultiVertex templated on its data and scale types.
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SHORT_SPAN = poplar::VectorLayout::SHORT_SPAN;
static constexpr auto SCALED_PTR32 = poplar::VectorLayout::SCALED_PTR32;
static constexpr auto SCALED_PTR64 = poplar::VectorLayout::SCALED_PTR64;

using namespace poplar;

namespace corpus {

// out[i] = a[i] + b[i] (+ bias when addBias). State: a SHORT_SPAN at 0, b SCALED_PTR64 at 4,
// out SCALED_PTR32 at 6, addBias (1 byte) at 8, bias (short) at 10: 12 bytes.
class CompactLayouts : public Vertex {
public:
  Input<Vector<float, SHORT_SPAN, 8>> a;
  Input<Vector<float, SCALED_PTR64, 8>> b;
  Output<Vector<float, SCALED_PTR32, 4>> out;
  unsigned char addBias;
  short bias;

  bool compute() {
    const float k = addBias ? float(bias) : 0.0f;
    for (unsigned i = 0; i < a.size(); ++i) out[i] = a[i] + b[i] + k;
    return true;
  }
};

// out[i] = a[i] > b[i], one byte per bool; count of true results through a scalar edge.
class GreaterThan : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float, ONE_PTR>> b;
  Output<Vector<bool, ONE_PTR>> out;
  Output<unsigned> count;

  bool compute() {
    unsigned c = 0;
    for (unsigned i = 0; i < a.size(); ++i) {
      const bool g = a[i] > b[i];
      out[i] = g;
      c += g;
    }
    *count = c;
    return true;
  }
};

// Like popops::ScaledAddSupervisor<AType, BType, ScaleType>: A += scale * B in float, rounded back
// to AType; worker w takes the 64-bit atoms w, w + 6, ... (never two workers in one 32-bit word: a
// 16-bit store is a read-modify-write of its word).
template <typename AType, typename ScaleType> class ScaledAddT : public MultiVertex {
public:
  InOut<Vector<AType, ONE_PTR, 8>> A;
  Input<Vector<AType, ONE_PTR, 8>> B;
  ScaleType scale;
  const unsigned short size;

  bool compute(unsigned wid) {
    constexpr unsigned perAtom = 8 / sizeof(AType);
    for (unsigned atom = wid * perAtom; atom < size; atom += numWorkers() * perAtom)
      for (unsigned i = atom; i < atom + perAtom && i < size; ++i)
        A[i] = AType(float(A[i]) + float(scale) * float(B[i]));
    return true;
  }
};
template class ScaledAddT<half, float>;
template class ScaledAddT<float, half>;

} // namespace corpus
