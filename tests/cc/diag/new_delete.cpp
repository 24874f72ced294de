// Must not compile: there is no heap on a tile (operator new / delete).
#include <poplar/Vertex.hpp>

using namespace poplar;

class UsesNew : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;

  bool compute() {
    float *tmp = new float[in.size()]; // DIAG
    for (unsigned i = 0; i < in.size(); ++i) tmp[i] = in[i] * 2.0f;
    for (unsigned i = 0; i < in.size(); ++i) out[i] = tmp[i];
    delete[] tmp; // DIAG
    return true;
  }
};
