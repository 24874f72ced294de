// Layer normalisation: statistics (mean, 1/sqrt(variance + eps)) as one vertex, the normalisation
// with scale and bias as another, and the whole thing for halves with float arithmetic.
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

#include <cmath>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;

using namespace poplar;

namespace corpus {

class LayerNormStats : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> mean;
  Output<float> invStd;
  float eps;

  bool compute() {
    const unsigned n = in.size();
    float s = 0.0f;
    for (unsigned i = 0; i < n; ++i) s += in[i];
    const float mu = s / float(n);
    float v = 0.0f;
    for (unsigned i = 0; i < n; ++i) {
      float d = in[i] - mu;
      v += d * d;
    }
    *mean = mu;
    *invStd = 1.0f / std::sqrt(v / float(n) + eps);
    return true;
  }
};

class LayerNormApply : public Vertex {
public:
  Input<Vector<float>> in;
  Input<Vector<float, ONE_PTR>> scale;
  Input<Vector<float, ONE_PTR>> bias;
  Input<float> mean;
  Input<float> invStd;
  Output<Vector<float, ONE_PTR>> out;

  bool compute() {
    const float mu = *mean, r = *invStd;
    for (unsigned i = 0; i < in.size(); ++i) out[i] = (in[i] - mu) * r * scale[i] + bias[i];
    return true;
  }
};

class LayerNormHalf : public Vertex {
public:
  Input<Vector<half>> in;
  Input<Vector<half, ONE_PTR>> scale;
  Input<Vector<half, ONE_PTR>> bias;
  Output<Vector<half, ONE_PTR>> out;
  float eps;

  bool compute() {
    const unsigned n = in.size();
    float s = 0.0f;
    for (unsigned i = 0; i < n; ++i) s += float(in[i]);
    const float mu = s / float(n);
    float v = 0.0f;
    for (unsigned i = 0; i < n; ++i) {
      float d = float(in[i]) - mu;
      v += d * d;
    }
    const float r = 1.0f / std::sqrt(v / float(n) + eps);
    for (unsigned i = 0; i < n; ++i) out[i] = half((float(in[i]) - mu) * r * float(scale[i]) + float(bias[i]));
    return true;
  }
};

} // namespace corpus
