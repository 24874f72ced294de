// The C++ side of the compiled-vs-hand-written comparison (bench/cc/compiled_vs_asm.cpp,
// tests/cc_bench/compiled_vs_asm_test.cpp): four single-worker vertices written as a Poplar user
// would write them, plain loops, no intrinsics. bench/cc/vertices.S holds the same four vertices
// in hand-written assembly, with the same vertex-state layout and the same arithmetic.
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

using namespace poplar;

// out[i] = a[i] + b[i], f32.
class VectorAddF32 : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 8>> a;
  Input<Vector<float, VectorLayout::ONE_PTR, 8>> b;
  Output<Vector<float, VectorLayout::ONE_PTR, 8>> out;

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i)
      out[i] = a[i] + b[i];
    return true;
  }
};

// out[i] = a[i] + b[i], f16.
class VectorAddF16 : public Vertex {
public:
  Input<Vector<half, VectorLayout::SPAN, 8>> a;
  Input<Vector<half, VectorLayout::ONE_PTR, 8>> b;
  Output<Vector<half, VectorLayout::ONE_PTR, 8>> out;

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i)
      out[i] = a[i] + b[i];
    return true;
  }
};

// *result = a[0] + a[1] + ... in f32, left to right (no fast-math: the order is the program's).
class SumF32 : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 8>> a;
  Output<float> result;

  bool compute() {
    float s = 0;
    for (unsigned i = 0; i < a.size(); ++i)
      s += a[i];
    *result = s;
    return true;
  }
};

// out[i] = a[i] + k * b[i], f16 data and an f16 scale held in the vertex state.
class ScaledAddF16 : public Vertex {
public:
  Input<Vector<half, VectorLayout::SPAN, 8>> a;
  Input<Vector<half, VectorLayout::ONE_PTR, 8>> b;
  Output<Vector<half, VectorLayout::ONE_PTR, 8>> out;
  half k;

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i)
      out[i] = a[i] + k * b[i];
    return true;
  }
};
