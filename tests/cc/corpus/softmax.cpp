// Softmax in the pieces a graph runs on a tile: the maximum, exp(x - max) with its sum, the
// normalisation; and a whole softmax of halves computed in float.
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

#include <cmath>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;

using namespace poplar;

namespace corpus {

class SoftmaxMax : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> max;

  bool compute() {
    float m = in[0];
    for (unsigned i = 1; i < in.size(); ++i) m = in[i] > m ? in[i] : m;
    *max = m;
    return true;
  }
};

class SoftmaxExpSum : public Vertex {
public:
  Input<Vector<float>> in;
  Input<float> max;
  Output<Vector<float, ONE_PTR>> out;
  Output<float> sum;

  bool compute() {
    const float m = *max;
    float s = 0.0f;
    for (unsigned i = 0; i < in.size(); ++i) {
      float e = std::exp(in[i] - m);
      out[i] = e;
      s += e;
    }
    *sum = s;
    return true;
  }
};

class SoftmaxNormalise : public Vertex {
public:
  InOut<Vector<float>> x;
  Input<float> sum;

  bool compute() {
    const float s = *sum;
    for (unsigned i = 0; i < x.size(); ++i) x[i] = x[i] / s;
    return true;
  }
};

class SoftmaxHalf : public Vertex {
public:
  InOut<Vector<half>> x;

  bool compute() {
    const unsigned n = x.size();
    float m = float(x[0]);
    for (unsigned i = 1; i < n; ++i) m = std::fmax(m, float(x[i]));
    float s = 0.0f;
    for (unsigned i = 0; i < n; ++i) s += std::exp(float(x[i]) - m);
    const float r = 1.0f / s;
    for (unsigned i = 0; i < n; ++i) x[i] = half(std::exp(float(x[i]) - m) * r);
    return true;
  }
};

} // namespace corpus
