// Codelets of vertices.cpp: one of each kind of field and vertex.
#include <poplar/Vertex.hpp>

using namespace poplar;

// out[i] = scale * a[i] + b (scale a member value, b a scalar edge).
class Axpb : public Vertex {
public:
  Input<Vector<float>> a;
  Input<float> b;
  Output<Vector<float>> out;
  float scale;
  bool compute() {
    for (unsigned i = 0; i < out.size(); ++i) out[i] = scale * a[i] + *b;
    return true;
  }
};

// In place: x[i] += offsets[i % offsets.size()], offsets a plain vector member.
class AddInPlace : public Vertex {
public:
  InOut<Vector<int>> x;
  Vector<int> offsets;
  bool compute() {
    // Vector edges also read as pointers to the vector, as Graphcore's examples use them.
    for (unsigned i = 0; i < x->size(); ++i) (*x)[i] += offsets[i % offsets.size()];
    return true;
  }
};

// The sum of each row of a vector of vectors, into a vector.
class RowSums : public Vertex {
public:
  Vector<Input<Vector<float>>> rows;
  Output<Vector<float>> sums;
  bool compute() {
    for (unsigned r = 0; r < rows.size(); ++r) {
      float s = 0;
      for (unsigned i = 0; i < rows[r].size(); ++i) s += rows[r][i];
      sums[r] = s;
    }
    return true;
  }
};

// All six workers: each doubles the pairs of halves of its share (pairs w, w + 6, ...). A worker
// owns whole 32-bit words: the tile has no 16-bit store, so a half is written by reading and
// rewriting its word, and two workers sharing a word would race.
class DoubleHalves : public MultiVertex {
public:
  InOut<Vector<half, VectorLayout::SPAN, 4>> h;
  void compute(unsigned worker) {
    for (unsigned i = 2 * worker; i < h.size(); i += 2 * numWorkers()) {
      h[i] = h[i] * half(2);
      if (i + 1 < h.size()) h[i + 1] = h[i + 1] * half(2);
    }
  }
};

// A supervisor vertex: counts the elements above a threshold (a short, sign-extended).
class CountAbove : public SupervisorVertex {
public:
  Input<Vector<int>> in;
  Output<unsigned> count;
  short threshold;
  bool compute() {
    unsigned n = 0;
    for (unsigned i = 0; i < in.size(); ++i) n += in[i] > threshold;
    *count = n;
    return true;
  }
};

// Input and Output connected to one tensor: out = in + 1, element by element.
class Increment : public Vertex {
public:
  Input<Vector<unsigned char>> in;
  Output<Vector<unsigned char>> out;
  bool compute() {
    for (unsigned i = 0; i < out.size(); ++i) out[i] = in[i] + 1;
    return true;
  }
};

// VectorList fields: the sums of each vector of a DELTAN list, and an in-place DELTANELEMENTS list.
class ListSums : public Vertex {
public:
  Input<VectorList<float, VectorListLayout::DELTAN>> in;
  Output<Vector<float>> out;
  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) {
      float s = 0;
      for (unsigned j = 0; j < in[i].size(); ++j) s += in[i][j];
      out[i] = s;
    }
    return true;
  }
};

// COMPACT_PTR fields: 16-bit pointers, SCALED_PTR64 for 8-byte aligned data, SCALED_PTR32 for 4.
class CompactCopy : public Vertex {
public:
  Input<Vector<float, VectorLayout::COMPACT_PTR, 8>> in;
  Output<Vector<float, VectorLayout::COMPACT_PTR, 4>> out;
  unsigned n;
  bool compute() {
    for (unsigned i = 0; i < n; ++i) out[i] = in[i] + 0.5f;
    return true;
  }
};

// COMPACT_DELTAN: the same list, its table's offsets in bytes.
class ListSumsCompact : public Vertex {
public:
  Input<VectorList<float, VectorListLayout::COMPACT_DELTAN>> in;
  Output<Vector<float>> out;
  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) {
      float s = 0;
      for (unsigned j = 0; j < in[i].size(); ++j) s += in[i][j];
      out[i] = s * 2;
    }
    return true;
  }
};

class ListNegate : public Vertex {
public:
  InOut<VectorList<int, VectorListLayout::DELTANELEMENTS>> x;
  bool compute() {
    for (unsigned i = 0; i < x.size(); ++i)
      for (unsigned j = 0; j < x[i].size(); ++j) x[i][j] = -x[i][j];
    return true;
  }
};
