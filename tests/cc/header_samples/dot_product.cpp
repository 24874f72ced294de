// Sample: the Poplar tutorial style (graphcore/examples tut5): two SPAN inputs, a scalar output.
#include <poplar/Vertex.hpp>

using namespace poplar;

class DotProductVertex : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  Output<float> out;

  bool compute() {
    float sum = 0;
    for (unsigned i = 0; i < a.size(); ++i)
      sum += a[i] * b[i];
    *out = sum;
    return true;
  }
};

// A MultiVertex that splits rows between the six workers.
class RowSums : public MultiVertex {
public:
  Vector<Input<Vector<float, VectorLayout::SPAN, 8>>> rows;
  Output<Vector<float>> sums;

  void compute(unsigned workerId) {
    for (unsigned r = workerId; r < rows.size(); r += numWorkers()) {
      float s = 0;
      for (float x : rows[r])
        s += x;
      sums[r] = s;
    }
  }
};

// Emit compute() in the sample IR (ipu-cc generates the real __runCodelet_ wrapper).
[[gnu::used]] static bool sampleEntry(void *v) { return static_cast<DotProductVertex *>(v)->compute(); }
[[gnu::used]] static void sampleEntryRows(void *v, unsigned w) { static_cast<RowSums *>(v)->compute(w); }
