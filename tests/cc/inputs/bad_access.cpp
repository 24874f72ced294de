// A load far outside tile memory: the simulated exception names the C++ line it comes from
// (the compiler passes each instruction's position to the object's line table).
#include <poplar/Vertex.hpp>
using namespace poplar;
class Bad : public Vertex {
public:
  Input<Vector<int>> in;
  Output<int> out;
  bool compute() {
    const int *p = &in[0];
    *out = p[in.size() * 100000]; // far outside tile memory
    return true;
  }
};
