// Must not compile: a vertex class with nothing to run.
#include <poplar/Vertex.hpp>

using namespace poplar;

class Forgotten : public Vertex { // DIAG
public:
  Input<float> in;
  Output<float> out;
};
