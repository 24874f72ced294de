// Vertices shaped like the pure-C++ ones of poplibs (asm-dialect §6) and the graphcore tutorials:
// popops::Fill (the layout of asm-dialect §3.2), CircBufIncrIndex, Iota and HadamardProd (vectors
// of vectors), ScaledAdd2D (SHORT_SPAN rows), the tutorial's DotProductVertex, and a vertex
// templated on a type, a bool and an integer (entry symbol `___half_true_4`).
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;
static constexpr auto SHORT_SPAN = poplar::VectorLayout::SHORT_SPAN;

using namespace poplar;

namespace popops {

template <typename OutType> class Fill : public Vertex {
public:
  OutType in;
  Output<Vector<OutType>> out;

  bool compute() {
    for (auto &x : out) x = in;
    return true;
  }
};
template class Fill<float>;
template class Fill<half>;
template class Fill<int>;

class CircBufIncrIndex : public Vertex {
public:
  InOut<unsigned> index;
  const unsigned hSize;

  bool compute() {
    *index = (*index + 1) % hSize;
    return true;
  }
};

template <typename T> class Iota : public Vertex {
public:
  Vector<Output<Vector<T>>> out;
  Input<Vector<T, ONE_PTR>> offsets;

  bool compute() {
    for (unsigned i = 0; i != out.size(); ++i)
      for (unsigned j = 0; j != out[i].size(); ++j) out[i][j] = offsets[i] + T(j);
    return true;
  }
};
template class Iota<unsigned>;
template class Iota<int>;

template <typename T> class HadamardProd : public Vertex {
public:
  Vector<InOut<Vector<T>>> A;
  Vector<Input<Vector<T, ONE_PTR>>, ONE_PTR> B;

  bool compute() {
    for (unsigned i = 0; i != A.size(); ++i)
      for (unsigned j = 0; j != A[i].size(); ++j) A[i][j] = A[i][j] * B[i][j];
    return true;
  }
};
template class HadamardProd<float>;
template class HadamardProd<half>;

// asm-dialect §3.2: A.ptr at 0 (array of SHORT_SPAN words), A.size at 4, B.ptr at 8 (array of
// row pointers), scaleB (a pointer to a float) at 12.
template <typename T> class ScaledAdd2D : public Vertex {
public:
  Vector<InOut<Vector<T, SHORT_SPAN, 8>>> A;
  Vector<Input<Vector<T, ONE_PTR, 8>>, ONE_PTR> B;
  Input<T> scaleB;

  bool compute() {
    const T s = *scaleB;
    for (unsigned i = 0; i != A.size(); ++i)
      for (unsigned j = 0; j != A[i].size(); ++j) A[i][j] = A[i][j] + s * B[i][j];
    return true;
  }
};
template class ScaledAdd2D<float>;

} // namespace popops

// graphcore/examples tut5: the matrix-vector tutorial's vertex (global namespace).
class DotProductVertex : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  Output<float> out;

  bool compute() {
    float sum = 0;
    for (unsigned i = 0; i < a.size(); ++i) sum += a[i] * b[i];
    *out = sum;
    return true;
  }
};

namespace corpus {

// data *= scale in place, `unroll` elements an iteration plus a remainder loop; with
// clampNegative, negative results become 0.
template <typename T, bool clampNegative, unsigned unroll> class ScaleUnrolled : public Vertex {
public:
  InOut<Vector<T, SPAN, 8>> data;
  T scale;

  static T op(T x, T s) {
    T r = x * s;
    if (clampNegative && r < T(0.0f)) r = T(0.0f);
    return r;
  }

  bool compute() {
    const unsigned n = data.size();
    unsigned i = 0;
    for (; i + unroll <= n; i += unroll)
      for (unsigned k = 0; k < unroll; ++k) data[i + k] = op(data[i + k], scale);
    for (; i < n; ++i) data[i] = op(data[i], scale);
    return true;
  }
};
template class ScaleUnrolled<half, true, 4>;
template class ScaleUnrolled<float, false, 2>;

} // namespace corpus
