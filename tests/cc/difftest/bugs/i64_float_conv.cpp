// Regression (fixed): ipu-cc rejects valid C++: conversions between long long and float/half ("unsupported conversion ... sitofp i64 to float", "fptosi float to i64") at every -O level
// Found by gen.py. Expected f[i] = (float)a[i] (round to nearest even), back[i] = (long long)f[i].
#include <cmath>
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;

using namespace poplar;

namespace dtbug {

class I64FloatConv : public Vertex {
public:
  Input<Vector<long long, SPAN>> a;
  Output<Vector<float, ONE_PTR>> f;
  Output<Vector<long long, ONE_PTR>> back;

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      f[i] = (float)a[i];
      back[i] = (long long)f[i];
    }
    return true;
  }
};

} // namespace dtbug
