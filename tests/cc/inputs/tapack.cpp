// __builtin_ipu_tapack: an inline-assembly output in an MRF pair (unsigned long long).
#include <poplar/Vertex.hpp>
#include <ipu_builtins.h>
using namespace poplar;
class Tap : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float, VectorLayout::ONE_PTR>> b;
  Output<Vector<unsigned, VectorLayout::ONE_PTR>> out;
  bool compute() {
    uint2 t = __builtin_ipu_tapack(&a[0], &b[0], &out[0]);
    out[0] = t[0];
    out[1] = t[1];
    return true;
  }
};
