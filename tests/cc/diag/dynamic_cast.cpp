// Must not compile: RTTI (dynamic_cast) is not supported in device code.
#include <poplar/Vertex.hpp>

using namespace poplar;

struct Shape {
  virtual ~Shape() = default;
  virtual float area() const = 0;
};
struct Square : Shape {
  float side = 2.0f;
  float area() const override { return side * side; }
};
struct Circle : Shape {
  float r = 1.0f;
  float area() const override { return 3.0f * r * r; }
};

__attribute__((noinline)) float squareSide(const Shape *s) {
  const Square *q = dynamic_cast<const Square *>(s); // DIAG
  return q ? q->side : 0.0f;
}

class UsesDynamicCast : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;

  bool compute() {
    Square sq;
    Circle c;
    const Shape *s = in[0] > 0.0f ? static_cast<const Shape *>(&sq) : &c;
    *out = squareSide(s);
    return true;
  }
};
