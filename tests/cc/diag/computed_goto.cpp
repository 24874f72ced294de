// Must not compile: computed goto (GNU labels as values) becomes an indirect branch.
#include <poplar/Vertex.hpp>

using namespace poplar;

class Dispatch : public Vertex {
public:
  Input<int> in;
  Output<int> out;

  bool compute() {
    static void *const targets[] = {&&even, &&odd}; // DIAG
    goto *targets[*in & 1]; // DIAG
  even:
    *out = 0;
    return true;
  odd:
    *out = 1;
    return true;
  }
};
