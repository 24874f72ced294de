// Must not compile: exceptions are not supported in device code.
#include <poplar/Vertex.hpp>

using namespace poplar;

class Throws : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;

  bool compute() {
    if (in.size() == 0)
      throw 42; // DIAG
    *out = in[0];
    return true;
  }
};
