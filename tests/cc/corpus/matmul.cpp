// A small dense matmul (sizes as plain members), the same by rows with vectors of vectors, and a
// 2-D transpose.
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;

using namespace poplar;

namespace corpus {

// c (M x N) = a (M x K) * b (K x N), all row-major.
class MatMul : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float, ONE_PTR>> b;
  Output<Vector<float, ONE_PTR>> c;
  const unsigned M;
  const unsigned K;
  const unsigned N;

  bool compute() {
    for (unsigned i = 0; i < M; ++i)
      for (unsigned j = 0; j < N; ++j) {
        float acc = 0.0f;
        for (unsigned k = 0; k < K; ++k) acc += a[i * K + k] * b[k * N + j];
        c[i * N + j] = acc;
      }
    return true;
  }
};

// cRows[i][j] = sum_k aRows[i][k] * b[k * N + j], K = aRows[i].size(), N = cRows[i].size().
class MatMulRows : public Vertex {
public:
  Vector<Input<Vector<float>>> aRows;
  Input<Vector<float, ONE_PTR>> b;
  Vector<Output<Vector<float>>> cRows;

  bool compute() {
    for (unsigned i = 0; i < aRows.size(); ++i) {
      const unsigned K = aRows[i].size(), N = cRows[i].size();
      for (unsigned j = 0; j < N; ++j) {
        float acc = 0.0f;
        for (unsigned k = 0; k < K; ++k) acc += aRows[i][k] * b[k * N + j];
        cRows[i][j] = acc;
      }
    }
    return true;
  }
};

// out (cols x rows) = transpose of in (rows x cols).
template <typename T> class Transpose : public Vertex {
public:
  Input<Vector<T>> in;
  Output<Vector<T, ONE_PTR>> out;
  unsigned short rows;
  unsigned short cols;

  bool compute() {
    for (unsigned r = 0; r < rows; ++r)
      for (unsigned c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
    return true;
  }
};
template class Transpose<float>;
template class Transpose<half>;

} // namespace corpus
