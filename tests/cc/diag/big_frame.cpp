// Must not compile: 40000 bytes of locals in one frame (a worker's stack is a few KiB).
#include <poplar/Vertex.hpp>

using namespace poplar;

class Table : public Vertex {
public:
  Input<unsigned> in;
  Output<float> out;

  bool compute() {
    float table[10000]; // DIAG
    for (unsigned i = 0; i < 10000; ++i)
      table[i] = i * 2.0f;
    *out = table[*in % 10000];
    return true;
  }
};
