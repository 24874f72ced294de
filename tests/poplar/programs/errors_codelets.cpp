// Codelets of errors.cpp.
#include <poplar/Vertex.hpp>

using namespace poplar;

class Copy1 : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  bool compute() {
    for (unsigned i = 0; i < out.size(); ++i) out[i] = in[i];
    return true;
  }
};

// Writes below tile memory: a simulated exception.
class Wild : public Vertex {
public:
  Output<int> out;
  bool compute() {
    *reinterpret_cast<volatile int *>(0x100) = 1;
    *out = 0;
    return true;
  }
};
