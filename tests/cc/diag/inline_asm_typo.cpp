// Must not compile: a misspelt instruction in inline assembly is the user's error, at their line.
#include <poplar/Vertex.hpp>

using namespace poplar;

class Asm : public Vertex {
public:
  Output<unsigned> out;

  bool compute() {
    unsigned x;
    asm volatile("sedzi %0, 3" : "=r"(x)); // DIAG
    *out = x;
    return true;
  }
};
