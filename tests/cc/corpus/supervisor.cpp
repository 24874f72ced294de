// SupervisorVertex: compute() runs on the supervisor context (no floating point there), called
// with the vertex state in $m0.
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;

using namespace poplar;

namespace corpus {

class SupervisorIntSum : public SupervisorVertex {
public:
  Input<Vector<int>> in;
  Output<int> out;

  bool compute() {
    int s = 0;
    for (unsigned i = 0; i < in.size(); ++i) s += in[i];
    *out = s;
    return true;
  }
};

class SupervisorCopy : public SupervisorVertex {
public:
  Input<Vector<unsigned>> src;
  Output<Vector<unsigned, ONE_PTR>> dst;

  bool compute() {
    for (unsigned i = 0; i < src.size(); ++i) dst[i] = src[i];
    return true;
  }
};


// The largest value, where it first occurs and how many values are negative (16-bit inputs).
class SupervisorShortStats : public SupervisorVertex {
public:
  Input<Vector<short>> in;
  Output<Vector<int, ONE_PTR>> stats; // {max, index of the first max, negatives}

  bool compute() {
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
