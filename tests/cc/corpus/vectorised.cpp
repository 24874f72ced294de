// Hand-vectorised loops over float2 / half4 (64-bit atoms), with a scalar tail for the elements
// that do not fill an atom, as poplibs' C++ codelets write them; ipu::fabs / ipu::sqrt from
// <ipu_vector_math> on vectors.
#include <ipudef.h>
#include <ipu_vector_math>
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;

using namespace poplar;

namespace corpus {

class AddFloat2 : public Vertex {
public:
  Input<Vector<float, SPAN, 8>> a;
  Input<Vector<float, ONE_PTR, 8>> b;
  Output<Vector<float, ONE_PTR, 8>> out;

  bool compute() {
    const unsigned n = a.size();
    const float2 *a2 = reinterpret_cast<const float2 *>(&a[0]);
    const float2 *b2 = reinterpret_cast<const float2 *>(&b[0]);
    float2 *o2 = reinterpret_cast<float2 *>(&out[0]);
    for (unsigned i = 0; i < n / 2; ++i) o2[i] = a2[i] + b2[i];
    if (n & 1) out[n - 1] = a[n - 1] + b[n - 1];
    return true;
  }
};

class MulHalf4 : public Vertex {
public:
  Input<Vector<half, SPAN, 8>> a;
  Input<Vector<half, ONE_PTR, 8>> b;
  Output<Vector<half, ONE_PTR, 8>> out;

  bool compute() {
    const unsigned n = a.size();
    const half4 *a4 = reinterpret_cast<const half4 *>(&a[0]);
    const half4 *b4 = reinterpret_cast<const half4 *>(&b[0]);
    half4 *o4 = reinterpret_cast<half4 *>(&out[0]);
    for (unsigned i = 0; i < n / 4; ++i) o4[i] = a4[i] * b4[i];
    for (unsigned i = n & ~3u; i < n; ++i) out[i] = a[i] * b[i];
    return true;
  }
};

// Broadcast of a plain (inline) half member.
class ScaleHalf4 : public Vertex {
public:
  Input<Vector<half, SPAN, 8>> in;
  Output<Vector<half, ONE_PTR, 8>> out;
  half scale;

  bool compute() {
    const unsigned n = in.size();
    const half4 s = {scale, scale, scale, scale};
    const half4 *i4 = reinterpret_cast<const half4 *>(&in[0]);
    half4 *o4 = reinterpret_cast<half4 *>(&out[0]);
    for (unsigned i = 0; i < n / 4; ++i) o4[i] = i4[i] * s;
    for (unsigned i = n & ~3u; i < n; ++i) out[i] = in[i] * scale;
    return true;
  }
};

// y = a * x + y in place (InOut).
class AxpyFloat2 : public Vertex {
public:
  Input<Vector<float, ONE_PTR, 8>> x;
  InOut<Vector<float, SPAN, 8>> y;
  float a;

  bool compute() {
    const unsigned n = y.size();
    const float2 a2 = {a, a};
    const float2 *x2 = reinterpret_cast<const float2 *>(&x[0]);
    float2 *y2 = reinterpret_cast<float2 *>(&y[0]);
    for (unsigned i = 0; i < n / 2; ++i) y2[i] = a2 * x2[i] + y2[i];
    if (n & 1) y[n - 1] = a * x[n - 1] + y[n - 1];
    return true;
  }
};

class AbsHalf4 : public Vertex {
public:
  Input<Vector<half, SPAN, 8>> in;
  Output<Vector<half, ONE_PTR, 8>> out;

  bool compute() {
    const unsigned n = in.size();
    const half4 *i4 = reinterpret_cast<const half4 *>(&in[0]);
    half4 *o4 = reinterpret_cast<half4 *>(&out[0]);
    for (unsigned i = 0; i < n / 4; ++i) o4[i] = ipu::fabs(i4[i]);
    for (unsigned i = n & ~3u; i < n; ++i) out[i] = ipu::fabs(in[i]);
    return true;
  }
};

class SqrtFloat2 : public Vertex {
public:
  Input<Vector<float, SPAN, 8>> in;
  Output<Vector<float, ONE_PTR, 8>> out;

  bool compute() {
    const unsigned n = in.size();
    const float2 *i2 = reinterpret_cast<const float2 *>(&in[0]);
    float2 *o2 = reinterpret_cast<float2 *>(&out[0]);
    for (unsigned i = 0; i < n / 2; ++i) o2[i] = ipu::sqrt(i2[i]);
    if (n & 1) out[n - 1] = ipu::sqrt(in[n - 1]);
    return true;
  }
};

} // namespace corpus
