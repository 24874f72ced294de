// A vertex implemented in assembly (external.S): ipu-cc lays out its state but generates no entry
// for it, and the object links to the assembly's __runCodelet_ symbol (asm-dialect §3.3).
#include <poplar/Vertex.hpp>
#include <poplibs_support/ExternalCodelet.hpp>

using namespace poplar;

namespace ext {

class Triple : public Vertex {
public:
  IS_EXTERNAL_CODELET(true);
  Input<unsigned> in;
  Output<unsigned> out;
  bool compute() { // what the IPU Model would run; the IPU runs external.S
    *out = 3 * *in;
    return true;
  }
};

// A compiled vertex in the same file calls nothing external: both kinds link together.
class Double : public Vertex {
public:
  Input<unsigned> in;
  Output<unsigned> out;
  bool compute() {
    *out = 2 * *in;
    return true;
  }
};

} // namespace ext
