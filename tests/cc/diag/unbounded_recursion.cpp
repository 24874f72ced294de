// Must not compile: the recursion depth depends on the data, so the worker's stack size cannot be
// bounded (two recursive calls: tail-call elimination cannot remove it).
#include <poplar/Vertex.hpp>

using namespace poplar;

__attribute__((noinline)) unsigned fib(unsigned n) { // DIAG
  return n < 2 ? n : fib(n - 1) + fib(n - 2); // DIAG
}

class UnboundedRecursion : public Vertex {
public:
  Input<Vector<unsigned>> in;
  Output<unsigned> out;

  bool compute() {
    *out = fib(in[0]);
    return true;
  }
};
