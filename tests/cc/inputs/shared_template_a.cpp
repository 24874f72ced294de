// Two codelet files instantiating the same out-of-line template (shared_template_a.cpp and _b.cpp):
// each object defines it and its stack record weakly, so the two link together.
#include <poplar/Vertex.hpp>

template <class T> __attribute__((noinline)) T twice(T x) { return x + x; }

class SharedA : public poplar::Vertex {
public:
  poplar::InOut<int> x;
  bool compute() {
    *x = twice(*x);
    return true;
  }
};
