// Sample: every Vector / VectorList layout and edge kind, their IPU storage, and host use through
// bind().
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>
#include <cstddef>
#include <cstdint>

using namespace poplar;

template <typename T> class AllLayouts : public Vertex {
public:
  Input<T> scalarIn;                                                   // pointer
  Output<T> scalarOut;                                                 // pointer
  InOut<T> scalarInOut;                                                // pointer
  Input<Vector<T>> span;                                               // {ptr, size}
  Output<Vector<T, VectorLayout::ONE_PTR>> onePtr;                     // ptr
  InOut<Vector<T, VectorLayout::SHORT_SPAN, 8>> shortSpan;             // ptr:20 | count:12
  Input<Vector<T, VectorLayout::SCALED_PTR32, 4>> scaled32;            // uint16
  Input<Vector<T, VectorLayout::SCALED_PTR64, 8>> scaled64;            // uint16
  Input<Vector<T, VectorLayout::SCALED_PTR128, 16>> scaled128;         // uint16
  Vector<Input<Vector<T, VectorLayout::SPAN, 8, true>>, VectorLayout::ONE_PTR> rows; // ptr to spans
  Input<VectorList<T, VectorListLayout::DELTAN>> list;                 // storage only
  unsigned short count;
  T value;

  bool compute() {
    T acc = *scalarIn + scalarIn[0];
    for (unsigned i = 0; i < span.size(); ++i)
      acc += span[i];
    for (const auto &x : shortSpan)
      acc += x;
    acc += scaled32[0] + scaled64[1] + scaled128[2] + rows[1][0] + static_cast<T>(count);
    onePtr[0] = acc;
    shortSpan[0] = acc;
    *scalarOut = acc;
    *scalarInOut += value;
    return true;
  }
};
template class AllLayouts<float>;
template class AllLayouts<half>;
template class AllLayouts<int>;

class [[poplar::constraint("elem(*in) != elem(*out)")]] Copy : public Vertex {
public:
  Input<Vector<unsigned char, VectorLayout::SPAN, 1>> in;
  Output<Vector<unsigned char, VectorLayout::ONE_PTR, 1>> out;
  void compute() {
    for (std::size_t i = 0; i < in.size(); ++i)
      out[i] = in[i];
  }
};

#ifdef __IPU__
using L = AllLayouts<float>;
static_assert(offsetof(L, scalarIn) == 0 && offsetof(L, scalarOut) == 4 && offsetof(L, scalarInOut) == 8, "edges");
static_assert(offsetof(L, span) == 12 && sizeof(L::span) == 8, "SPAN: 8 bytes");
static_assert(offsetof(L, onePtr) == 20 && sizeof(L::onePtr) == 4, "ONE_PTR: 4 bytes");
static_assert(offsetof(L, shortSpan) == 24 && sizeof(L::shortSpan) == 4, "SHORT_SPAN: 4 bytes");
static_assert(offsetof(L, scaled32) == 28 && sizeof(L::scaled32) == 2 && alignof(decltype(L::scaled32)) == 2, "SCALED_PTR32");
static_assert(offsetof(L, scaled64) == 30 && sizeof(L::scaled64) == 2, "SCALED_PTR64");
static_assert(offsetof(L, scaled128) == 32 && sizeof(L::scaled128) == 2, "SCALED_PTR128");
static_assert(offsetof(L, rows) == 36 && sizeof(L::rows) == 4, "vector of vectors, ONE_PTR outer");
static_assert(offsetof(L, list) == 40 && sizeof(L::list) == 8, "VectorList DELTAN");
static_assert(offsetof(L, count) == 48 && offsetof(L, value) == 52 && sizeof(L) == 56, "plain members");
static_assert(alignof(Input<Vector<float>>) == 4 && alignof(Output<float>) == 4, "alignment 4");
static_assert(offsetof(AllLayouts<half>, value) == 50 && sizeof(AllLayouts<half>) == 52, "half variant");
#endif

#if !defined(__IPU__) && defined(IPUSIM_HOST_MAIN)
// Host: run the vertex through bind().
#include <cstdio>
int main() {
  float a = 1, out = 0, io = 5, spanData[3] = {1, 2, 3}, one[1] = {0};
  alignas(8) float ss[2] = {10, 20};
  alignas(16) float s[4] = {100, 200, 300, 400};
  float r0[1] = {7}, r1[1] = {9};
  AllLayouts<float> v;
  v.scalarIn.bind(&a);
  v.scalarOut.bind(&out);
  v.scalarInOut.bind(&io);
  v.span.bind(spanData, 3);
  v.onePtr.bind(one);
  v.shortSpan.bind(ss, 2);
  v.scaled32.bind(s);
  v.scaled64.bind(s);
  v.scaled128.bind(s);
  Input<Vector<float, VectorLayout::SPAN, 8, true>> rowDesc[2];
  rowDesc[0].bind(r0, 1);
  rowDesc[1].bind(r1, 1);
  v.rows.bind(rowDesc);
  v.count = 4;
  v.value = 0.5f;
  v.compute();
  // 1+1 + 6 + 30 + 100+200+300 + 9 + 4
  float want = 651;
  std::printf("AllLayouts host run: out %g (want %g), inout %g\n", out, want, io);
  return (out == want && one[0] == want && ss[0] == want && io == 5.5f) ? 0 : 1;
}
#endif

// Emit compute() in the sample IR (ipu-cc generates the real __runCodelet_ wrapper).
[[gnu::used]] static void sampleEntry(void *v) { static_cast<Copy *>(v)->compute(); }
