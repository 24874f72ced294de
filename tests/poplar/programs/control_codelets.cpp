// Codelets of control.cpp.
#include <poplar/Vertex.hpp>

using namespace poplar;

class Increment : public Vertex {
public:
  InOut<int> x;
  bool compute() {
    *x += 1;
    return true;
  }
};

class AtLeast : public Vertex {
public:
  Input<int> x, limit;
  Output<bool> out;
  bool compute() {
    *out = *x >= *limit;
    return true;
  }
};
