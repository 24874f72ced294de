// 128-bit vectors (float4, half8 are ARF pairs two at a time): a from interleaved memory, so
// its loads are ld128; b with 8-byte alignment (two ld64); float4 arithmetic and a float4 ->
// half4 conversion (tests/cc/tool_test.cpp).
#include <poplar/Vertex.hpp>
#include <poplar/HalfFloat.hpp>
#include <ipudef.h>
using namespace poplar;
class Wide : public Vertex {
public:
  Input<Vector<float4, VectorLayout::SPAN, 16, true>> a;
  Input<Vector<float4, VectorLayout::ONE_PTR, 8>> b;
  Output<Vector<float4, VectorLayout::ONE_PTR, 8>> out;
  Output<Vector<half4, VectorLayout::ONE_PTR, 8>> outh;
  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      float4 x = a[i] * b[i] - b[i];
      x = -x + (float4){1.0f, 2.0f, 3.0f, 4.0f};
      out[i] = x;
      outh[i] = __builtin_convertvector(x, half4);
    }
    return true;
  }
};
