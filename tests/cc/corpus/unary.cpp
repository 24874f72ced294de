// Elementwise unary operations on float and half, plain scalar loops (the way the C++ fall-backs
// of popops' UnaryOp1D are written): neg, abs, relu, square (templated on the type) and sqrt,
// exp, sigmoid, tanh on float, sqrt on half through float.
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

#include <cmath>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;

using namespace poplar;

namespace corpus {

inline float absOf(float x) { return std::fabs(x); }
inline half absOf(half x) { return half(std::fabs(float(x))); }

template <typename T> class Neg : public Vertex {
public:
  Input<Vector<T, SPAN, 4>> in;
  Output<Vector<T, ONE_PTR, 4>> out;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = -in[i];
    return true;
  }
};
template class Neg<float>;
template class Neg<half>;

template <typename T> class Abs : public Vertex {
public:
  Input<Vector<T>> in;
  Output<Vector<T, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = absOf(in[i]);
    return true;
  }
};
template class Abs<float>;
template class Abs<half>;

template <typename T> class Relu : public Vertex {
public:
  Input<Vector<T>> in;
  Output<Vector<T, ONE_PTR>> out;

  void compute() {
    const T zero = T(0.0f);
    for (unsigned i = 0; i < in.size(); ++i) out[i] = in[i] > zero ? in[i] : zero;
  }
};
template class Relu<float>;
template class Relu<half>;

template <typename T> class Square : public Vertex {
public:
  Input<Vector<T>> in;
  Output<Vector<T, ONE_PTR>> out;

  bool compute() {
    const unsigned n = in.size();
    for (unsigned i = 0; i < n; ++i) {
      T x = in[i];
      out[i] = x * x;
    }
    return true;
  }
};
template class Square<float>;
template class Square<half>;

class SqrtF32 : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = std::sqrt(in[i]);
    return true;
  }
};

class ExpF32 : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = std::exp(in[i]);
    return true;
  }
};

class SigmoidF32 : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = 1.0f / (1.0f + std::exp(-in[i]));
    return true;
  }
};

class TanhF32 : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = std::tanh(in[i]);
    return true;
  }
};

// sqrt of a half computed in float and rounded to half: correctly rounded, since binary32 has
// more than 2 x 11 + 2 bits (double rounding is innocuous).
class SqrtHalf : public Vertex {
public:
  Input<Vector<half>> in;
  Output<Vector<half, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = half(std::sqrt(float(in[i])));
    return true;
  }
};

} // namespace corpus
