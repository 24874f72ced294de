// Must not compile: a static whose initialiser is code the IPU never runs.
#include <poplar/Vertex.hpp>

using namespace poplar;

unsigned seed(unsigned x);

class Counter : public Vertex {
public:
  Input<unsigned> in;
  Output<unsigned> out;

  bool compute() {
    static unsigned first = seed(*in); // DIAG
    *out = first;
    return true;
  }
};

unsigned seed(unsigned x) { return x * 3 + 1; }
