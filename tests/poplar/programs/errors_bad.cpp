#include <poplar/Vertex.hpp>
class Broken : public poplar::Vertex {
public:
  poplar::Output<int> out;
  bool compute() { *out = undeclared; return true; }
};
