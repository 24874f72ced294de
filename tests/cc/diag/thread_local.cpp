// Must not compile: there is no thread-local storage on a tile.
#include <poplar/Vertex.hpp>

using namespace poplar;

thread_local unsigned calls; // DIAG

class Count : public Vertex {
public:
  Output<unsigned> out;

  bool compute() {
    *out = ++calls;
    return true;
  }
};
