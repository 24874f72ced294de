// Codelets of matvec.cpp: a dot product of one block of a matrix row with the matching block of
// the vector, and the sum of a row's partial dot products.
#include <poplar/Vertex.hpp>

using namespace poplar;

class PartialDot : public Vertex {
public:
  Input<Vector<float>> row;
  Input<Vector<float>> x;
  Output<float> partial;

  bool compute() {
    float s = 0;
    for (unsigned i = 0; i < row.size(); ++i) s += row[i] * x[i];
    *partial = s;
    return true;
  }
};

class RowSum : public Vertex {
public:
  Input<Vector<float>> partials;
  Output<float> y;

  bool compute() {
    float s = 0;
    for (unsigned i = 0; i < partials.size(); ++i) s += partials[i];
    *y = s;
    return true;
  }
};
