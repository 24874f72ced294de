// Regression (fixed): ipu-cc rejects valid C++: a 64-bit shift by a variable amount ("unsupported 64-bit integer operation ... shl/lshr/ashr i64") at every -O level
// Found by gen.py. Expected out[i] = a[i] << (s[i] & 63), out[i + n] = a[i] >> (s[i] & 63) (arithmetic).
#include <cmath>
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;

using namespace poplar;

namespace dtbug {

class I64VarShift : public Vertex {
public:
  Input<Vector<long long, SPAN>> a;
  Input<Vector<unsigned, ONE_PTR>> s;
  Output<Vector<long long, ONE_PTR>> out;

  bool compute() {
    const unsigned n = a.size();
    for (unsigned i = 0; i < n; ++i) {
      out[i] = (long long)((unsigned long long)a[i] << (s[i] & 63));
      out[i + n] = a[i] >> (s[i] & 63);
    }
    return true;
  }
};

} // namespace dtbug
