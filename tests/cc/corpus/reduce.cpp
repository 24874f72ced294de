// Reductions to one value written through a scalar edge (Output<T>): sums with f32 accumulation
// (of floats and of halves), max, argmax, sum of squares and dot products.
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;

using namespace poplar;

namespace corpus {

class SumF32 : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;

  bool compute() {
    float acc = 0.0f;
    for (unsigned i = 0; i < in.size(); ++i) acc += in[i];
    *out = acc;
    return true;
  }
};

class SumHalfF32Acc : public Vertex {
public:
  Input<Vector<half, SPAN, 8>> in;
  Output<float> out;

  bool compute() {
    float acc = 0.0f;
    for (unsigned i = 0; i < in.size(); ++i) acc += float(in[i]);
    *out = acc;
    return true;
  }
};

template <typename T> class Max : public Vertex {
public:
  Input<Vector<T>> in;
  Output<T> out;

  bool compute() {
    T m = in[0];
    for (unsigned i = 1; i < in.size(); ++i)
      if (in[i] > m) m = in[i];
    *out = m;
    return true;
  }
};
template class Max<float>;
template class Max<half>;

// The index of the first largest element.
class ArgMaxF32 : public Vertex {
public:
  Input<Vector<float>> in;
  Output<unsigned> index;

  bool compute() {
    unsigned best = 0;
    float m = in[0];
    for (unsigned i = 1; i < in.size(); ++i) {
      if (in[i] > m) {
        m = in[i];
        best = i;
      }
    }
    *index = best;
    return true;
  }
};

class SumSquaresF32 : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;

  bool compute() {
    float acc = 0.0f;
    for (unsigned i = 0; i < in.size(); ++i) acc += in[i] * in[i];
    *out = acc;
    return true;
  }
};

// The tutorial's DotProductVertex (graphcore/examples tut5), with a float accumulator.
class DotF32 : public Vertex {
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

// Dot product of halves: products (exact in float) accumulated in float.
class DotHalfF32Acc : public Vertex {
public:
  Input<Vector<half, SPAN, 8>> a;
  Input<Vector<half, ONE_PTR, 8>> b;
  Output<float> out;

  bool compute() {
    float sum = 0;
    for (unsigned i = 0; i < a.size(); ++i) sum += float(a[i]) * float(b[i]);
    *out = sum;
    return true;
  }
};

} // namespace corpus
