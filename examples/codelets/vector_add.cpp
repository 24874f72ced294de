// A Poplar-style C++ codelet: ipu-cc compiles it for the Mk2 tile (docs/ipu-cc.md), and
// `ipusim run-tile` runs it on one worker. scripts/run.sh shows both.
#include <poplar/Vertex.hpp>

using namespace poplar;

class VectorAdd : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 8>> a;     // +0 pointer, +4 size
  Input<Vector<float, VectorLayout::ONE_PTR, 8>> b;  // +8
  Output<Vector<float, VectorLayout::ONE_PTR, 8>> out; // +12

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
    return true;
  }
};
