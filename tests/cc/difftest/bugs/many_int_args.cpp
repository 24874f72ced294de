// Regression (fixed): ipu-cc rejects valid C++: a call with more than six integer arguments ("more than six integer or pointer arguments are not supported"; one of the two errors is located at many_int_args.cpp.ipucc-entry.cpp with no line)
// Found by gen.py. Expected out[i] = sum of the seven arguments = 7 * a[i] + 21.
#include <cmath>
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;

using namespace poplar;

namespace dtbug {

__attribute__((noinline)) int sum7(int a, int b, int c, int d, int e, int f, int g) {
  return a + b + c + d + e + f + g;
}

class ManyIntArgs : public Vertex {
public:
  Input<Vector<int, SPAN>> a;
  Output<Vector<int, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      const int x = a[i];
      out[i] = sum7(x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6);
    }
    return true;
  }
};

} // namespace dtbug
