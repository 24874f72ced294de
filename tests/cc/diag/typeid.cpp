// Must not compile: RTTI (typeid) is not supported in device code.
#include <poplar/Vertex.hpp>

#include <typeinfo>

using namespace poplar;

struct Base {
  virtual ~Base() = default;
  virtual float value() const { return 1.0f; }
};
struct Derived : Base {
  float value() const override { return 2.0f; }
};

class UsesTypeid : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;

  bool compute() {
    Derived d;
    const Base &b = d;
    *out = typeid(b) == typeid(Derived) ? in[0] : 0.0f; // DIAG
    return true;
  }
};
