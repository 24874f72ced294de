// Calls whose arguments do not all fit the argument registers ($m0-$m5, $a0-$a7): the rest go
// on the stack, naturally aligned (docs/ipu-cc.md), including 64-bit and float2 values.
#include <ipudef.h>
#include <poplar/Vertex.hpp>

using namespace poplar;

namespace args {

__attribute__((noinline)) float mix(int a, int b, int c, int d, int e, long long f, int g, float h0, float h1,
                                    float h2, float h3, float h4, float h5, float h6, float h7, float h8,
                                    float2 h9, long long i, unsigned j) {
  return float(a - b + c - d + e) + float(f) + float(g) * 0.5f + (h0 - h1 + h2 - h3 + h4 - h5 + h6 - h7) * h8 +
         h9[0] * h9[1] + float(i >> 20) + float(j);
}

class ManyArgs : public Vertex {
public:
  Input<Vector<int>> in;
  Output<Vector<float, VectorLayout::ONE_PTR>> out;
  bool compute() {
    for (unsigned k = 0; k < in.size(); ++k) {
      int x = in[k];
      out[k] = mix(x, 2 * x, 3, -x, 5, (long long)x << 33, x + 1, 1.0f, 2.0f, 3.0f, 4.5f, 5.0f, 6.0f, 7.0f,
                   float(x), 0.25f, (float2){float(x), 2.0f}, (long long)x << 40, 7u);
    }
    return true;
  }
};

} // namespace args
