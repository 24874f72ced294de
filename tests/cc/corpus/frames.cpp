// Stack frames larger than the load/store immediates reach (4095 words, 16 KiB): spill slots and
// saved registers behind big local arrays (helper review of issue 10: these failed to assemble).
#include <poplar/Vertex.hpp>

using namespace poplar;

namespace corpus {

// 24,000 bytes of locals, then more values live at once than the ARF holds: the spill slots lie
// beyond 16 KiB of the stack pointer.
class BigFrameSpills : public Vertex {
public:
  Input<Vector<float, VectorLayout::ONE_PTR>> in;   // 40 elements
  Output<Vector<float, VectorLayout::ONE_PTR>> out; // 40 elements

  bool compute() {
    volatile float table[6000];
    for (unsigned i = 0; i < 6000; ++i) table[i] = in[i % 40] + float(i);
    float v[40];
#pragma clang loop unroll(full)
    for (unsigned i = 0; i < 40; ++i) v[i] = in[i] * table[i * 149];
#pragma clang loop unroll(full)
    for (unsigned i = 0; i < 40; ++i) out[i] = v[i] * v[(i * 7 + 3) % 40] + v[39 - i];
    return true;
  }
};

// A function with 20,000 bytes of locals that calls another keeps its $lr beyond 16 KiB of $sp:
// its frame is made in two steps.
__attribute__((noinline)) float scaleBy(float x, unsigned k) { return x * float(k + 1); }
__attribute__((noinline)) float sumOfScaled(const float *in, unsigned n) {
  volatile float scaled[5000];
  for (unsigned i = 0; i < 5000; ++i) scaled[i] = scaleBy(in[i % n], i % 3);
  float s = 0;
  for (unsigned i = 0; i < 5000; i += 1000) s += scaled[i] + scaled[i + 1];
  return s;
}

class BigFrameCalls : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;

  bool compute() {
    *out = sumOfScaled(&in[0], in.size());
    return true;
  }
};

} // namespace corpus
