// iss_bench's compiled vertex (BM_CompiledBranches): straight-line worker code between
// data-dependent branches, as ipu-cc compiles a Poplar user's loop. For each input it counts the
// Collatz steps to 1 (at most 32).
#include <poplar/Vertex.hpp>

using namespace poplar;

class Collatz : public Vertex {
public:
  Input<Vector<unsigned, VectorLayout::SPAN, 4>> in;
  Output<Vector<unsigned, VectorLayout::ONE_PTR, 4>> out;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) {
      unsigned v = in[i], steps = 0;
      while (v > 1 && steps < 32) {
        if (v & 1)
          v = 3 * v + 1;
        else
          v >>= 1;
        ++steps;
      }
      out[i] = steps;
    }
    return true;
  }
};
