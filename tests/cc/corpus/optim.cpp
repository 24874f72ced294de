// Optimiser updates: SGD (float and half weights), SGD with momentum, Adam.
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

#include <cmath>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;

using namespace poplar;

namespace corpus {

template <typename T> class SgdUpdate : public Vertex {
public:
  InOut<Vector<T>> w;
  Input<Vector<T, ONE_PTR>> g;
  float lr;

  bool compute() {
    for (unsigned i = 0; i < w.size(); ++i) w[i] = T(float(w[i]) - lr * float(g[i]));
    return true;
  }
};
template class SgdUpdate<float>;
template class SgdUpdate<half>;

class SgdMomentum : public Vertex {
public:
  InOut<Vector<float>> w;
  InOut<Vector<float, ONE_PTR>> v;
  Input<Vector<float, ONE_PTR>> g;
  float lr;
  float momentum;

  bool compute() {
    for (unsigned i = 0; i < w.size(); ++i) {
      float vi = momentum * v[i] + g[i];
      v[i] = vi;
      w[i] = w[i] - lr * vi;
    }
    return true;
  }
};

// Adam with the bias corrections 1 - beta^t given by the host.
class AdamUpdate : public Vertex {
public:
  InOut<Vector<float>> w;
  InOut<Vector<float, ONE_PTR>> m;
  InOut<Vector<float, ONE_PTR>> v;
  Input<Vector<float, ONE_PTR>> g;
  float lr;
  float beta1;
  float beta2;
  float eps;
  float biasCorrection1;
  float biasCorrection2;

  bool compute() {
    for (unsigned i = 0; i < w.size(); ++i) {
      const float gi = g[i];
      const float mi = beta1 * m[i] + (1.0f - beta1) * gi;
      const float vi = beta2 * v[i] + (1.0f - beta2) * gi * gi;
      m[i] = mi;
      v[i] = vi;
      const float mHat = mi / biasCorrection1;
      const float vHat = vi / biasCorrection2;
      w[i] = w[i] - lr * mHat / (std::sqrt(vHat) + eps);
    }
    return true;
  }
};

} // namespace corpus
