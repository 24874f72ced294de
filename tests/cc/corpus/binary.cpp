// Elementwise binary operations, templated on an operation enum and the type like popops'
// BinaryOp1D (entry symbols with enum template arguments, asm-dialect §3.3), and the broadcast of
// a scalar operand (like popops' BroadcastScalar1D).
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;

using namespace poplar;

namespace corpus {

enum class BinOp { ADD, SUBTRACT, MULTIPLY, DIVIDE, MAXIMUM, MINIMUM, SQUARED_DIFF };

template <BinOp op, typename T> struct BinOpFn;
template <typename T> struct BinOpFn<BinOp::ADD, T> {
  static T fn(T a, T b) { return a + b; }
};
template <typename T> struct BinOpFn<BinOp::SUBTRACT, T> {
  static T fn(T a, T b) { return a - b; }
};
template <typename T> struct BinOpFn<BinOp::MULTIPLY, T> {
  static T fn(T a, T b) { return a * b; }
};
template <typename T> struct BinOpFn<BinOp::DIVIDE, T> {
  static T fn(T a, T b) { return a / b; }
};
template <typename T> struct BinOpFn<BinOp::MAXIMUM, T> {
  static T fn(T a, T b) { return a > b ? a : b; }
};
template <typename T> struct BinOpFn<BinOp::MINIMUM, T> {
  static T fn(T a, T b) { return a < b ? a : b; }
};
template <typename T> struct BinOpFn<BinOp::SQUARED_DIFF, T> {
  static T fn(T a, T b) {
    T d = a - b;
    return d * d;
  }
};

template <BinOp op, typename T> class Binary : public Vertex {
public:
  Input<Vector<T, SPAN, 4>> in1;
  Input<Vector<T, ONE_PTR, 4>> in2;
  Output<Vector<T, ONE_PTR, 4>> out;

  bool compute() {
    for (unsigned i = 0; i < in1.size(); ++i) out[i] = BinOpFn<op, T>::fn(in1[i], in2[i]);
    return true;
  }
};
template class Binary<BinOp::ADD, float>;
template class Binary<BinOp::SUBTRACT, float>;
template class Binary<BinOp::MULTIPLY, float>;
template class Binary<BinOp::DIVIDE, float>;
template class Binary<BinOp::MAXIMUM, float>;
template class Binary<BinOp::MINIMUM, float>;
template class Binary<BinOp::SQUARED_DIFF, float>;
template class Binary<BinOp::ADD, half>;
template class Binary<BinOp::SUBTRACT, half>;
template class Binary<BinOp::MULTIPLY, half>;
template class Binary<BinOp::DIVIDE, half>;
template class Binary<BinOp::MAXIMUM, half>;
template class Binary<BinOp::MINIMUM, half>;

// out[i] = in[i] op *B, B a scalar edge.
template <BinOp op, typename T> class BroadcastScalar : public Vertex {
public:
  Input<Vector<T, SPAN, 8>> data;
  Input<T> B;
  Output<Vector<T, ONE_PTR, 8>> out;

  bool compute() {
    const T b = *B;
    for (unsigned i = 0; i < data.size(); ++i) out[i] = BinOpFn<op, T>::fn(data[i], b);
    return true;
  }
};
template class BroadcastScalar<BinOp::ADD, float>;
template class BroadcastScalar<BinOp::SUBTRACT, float>;
template class BroadcastScalar<BinOp::MULTIPLY, half>;

} // namespace corpus
