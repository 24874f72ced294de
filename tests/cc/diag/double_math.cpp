// Must not compile: the IPU has no float64 arithmetic.
#include <poplar/Vertex.hpp>

using namespace poplar;

class Accumulate : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;

  bool compute() {
    double sum = 0;
    for (unsigned i = 0; i < in.size(); ++i)
      sum = sum * 0.5 + in[i]; // DIAG
    *out = float(sum);
    return true;
  }
};
