// MultiVertex work division: all six workers run compute(workerId) on the same state. Interleaved
// 64-bit atoms (worker w takes atoms w, w + 6, ...), contiguous ranges, and per-worker outputs.
#include <ipudef.h>
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;
static constexpr auto SCALED_PTR32 = poplar::VectorLayout::SCALED_PTR32;

using namespace poplar;

namespace corpus {

constexpr unsigned kWorkers = 6;

// Like popops::ScaledAddSupervisor (asm-dialect §3.2): A += *scaleB * B. State: A at 0, B at 4
// (32-bit pointers), scaleB a 16-bit scaled pointer at 8, size a 16-bit count at 10.
class ScaledAddMV : public MultiVertex {
public:
  InOut<Vector<float, ONE_PTR, 8>> A;
  Input<Vector<float, ONE_PTR, 8>> B;
  Input<Vector<float, SCALED_PTR32, 4>> scaleB;
  const unsigned short size;

  bool compute(unsigned wid) {
    const float s = scaleB[0];
    const float2 s2 = {s, s};
    float2 *a2 = reinterpret_cast<float2 *>(&A[0]);
    const float2 *b2 = reinterpret_cast<const float2 *>(&B[0]);
    const unsigned atoms = size / 2;
    for (unsigned i = wid; i < atoms; i += kWorkers) a2[i] = a2[i] + s2 * b2[i];
    if ((size & 1) && wid == kWorkers - 1) A[size - 1] = A[size - 1] + s * B[size - 1];
    return true;
  }
};

// Worker w sums the contiguous range [w * n / 6, (w + 1) * n / 6) into partials[w].
class SumPartialsMV : public MultiVertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float, ONE_PTR>> partials;

  bool compute(unsigned wid) {
    const unsigned n = in.size();
    const unsigned begin = wid * n / numWorkers(), end = (wid + 1) * n / numWorkers();
    float acc = 0.0f;
    for (unsigned i = begin; i < end; ++i) acc += in[i];
    partials[wid] = acc;
    return true;
  }
};

// In-place scale of halves by interleaved half4 atoms; the tail (n % 4 elements) goes to the
// worker whose turn the next atom would be.
class ScaleHalf4MV : public MultiVertex {
public:
  InOut<Vector<half, SPAN, 8>> data;
  half scale;

  bool compute(unsigned wid) {
    const unsigned n = data.size(), atoms = n / 4;
    const half4 s = {scale, scale, scale, scale};
    half4 *d4 = reinterpret_cast<half4 *>(&data[0]);
    for (unsigned i = wid; i < atoms; i += kWorkers) d4[i] = d4[i] * s;
    if (wid == atoms % kWorkers)
      for (unsigned i = atoms * 4; i < n; ++i) data[i] = data[i] * scale;
    return true;
  }
};

// Each worker counts the elements of its interleaved words that are odd: counts[w].
class CountOddMV : public MultiVertex {
public:
  Input<Vector<unsigned>> in;
  Output<Vector<unsigned, ONE_PTR>> counts;

  void compute(unsigned wid) {
    unsigned c = 0;
    for (unsigned i = wid; i < in.size(); i += kWorkers) c += in[i] & 1;
    counts[wid] = c;
  }
};

// data[i] *= scale for i = w, w + 6, ...: element-interleaved floats (one 32-bit word each, so
// no two workers share a word); the loop's trip count is (size - w + 5) / 6.
class ScaleStridedMV : public MultiVertex {
public:
  InOut<Vector<float, ONE_PTR, 8>> data;
  float scale;
  const unsigned short size;

  bool compute(unsigned wid) {
    for (unsigned i = wid; i < size; i += numWorkers()) data[i] = data[i] * scale;
    return true;
  }
};

} // namespace corpus
