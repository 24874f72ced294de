// Regression (fixed): ipu-cc rejects valid C++: 64-bit division and remainder, even by a constant ("unsupported 64-bit integer operation ... sdiv i64"), at every -O level
// Found by gen.py. Expected out[2i] = a[i] / 3, out[2i + 1] = a[i] % 1000.
// When the division is hoisted out of a loop (gen_4.cpp at -O2 before the generator avoided it)
// the error names gen_4.cpp.ipucc-entry.cpp and no line.
#include <cmath>
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;

using namespace poplar;

namespace dtbug {

class I64DivConst : public Vertex {
public:
  Input<Vector<long long, SPAN>> a;
  Output<Vector<long long, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      out[2 * i] = a[i] / 3;
      out[2 * i + 1] = a[i] % 1000;
    }
    return true;
  }
};

} // namespace dtbug
