// Must not compile (a limitation of ipu-cc, docs/ipu-cc.md): this SupervisorVertex keeps more values
// live than the supervisor's MRF holds, and ipu-cc does not spill supervisor code to a stack.
// SupervisorVertex: compute() runs on the supervisor context (no floating point there), called
// with the vertex state in $m0.
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;

using namespace poplar;

namespace corpus {

// Integer max with its position, and a count of negative elements; shorts widen on load.
class SupervisorShortStats : public SupervisorVertex {
public:
  Input<Vector<short>> in;
  Output<Vector<int, ONE_PTR>> stats; // {max, index of the first max, negatives}

  bool compute() { // DIAG
    int m = in[0];
    unsigned at = 0, neg = 0;
    for (unsigned i = 0; i < in.size(); ++i) {
      if (in[i] > m) {
        m = in[i];
        at = i;
      }
      neg += in[i] < 0;
    }
    stats[0] = m;
    stats[1] = int(at);
    stats[2] = int(neg);
    return true;
  }
};

} // namespace corpus
