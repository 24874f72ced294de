// A vertex whose code is hand-written assembly (exit_vertex.S): its one instruction is exitz.
#include <poplar/Vertex.hpp>
#include <poplibs_support/ExternalCodelet.hpp>

class ExitVertex : public poplar::Vertex {
public:
  poplar::Input<unsigned> unused;
  IS_EXTERNAL_CODELET(true);
  bool compute() { return true; }
};
