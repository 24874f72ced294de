// Codelets of executable.cpp.
#include <poplar/Vertex.hpp>

class Square : public poplar::Vertex {
public:
  poplar::InOut<poplar::Vector<float>> x;
  bool compute() {
    for (unsigned i = 0; i < x.size(); ++i) x[i] *= x[i];
    return true;
  }
};
