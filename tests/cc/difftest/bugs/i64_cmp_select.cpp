// Regression (fixed): -O0 and -O2: `2147483648u > (unsigned)x` is false for small x (unsigned compare with a constant >= 2^31 done as signed); expected 1, got 0 (gen.py seed 7, gen_6.cpp V6_call5)
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;

using namespace poplar;

namespace dtbug {

class I64CmpSelect : public Vertex {
public:
  Input<Vector<long long, SPAN>> a;
  Input<Vector<int, ONE_PTR>> b;
  Input<Vector<short, ONE_PTR>> c;
  Output<Vector<int, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      out[3 * i] = a[i] >= (long long)b[i];
      out[3 * i + 1] = a[i] >= (2147483648u > (unsigned)c[i] ? (long long)b[i] : 100000LL);
      out[3 * i + 2] = 2147483648u > (unsigned)c[i];
    }
    return true;
  }
};

} // namespace dtbug
