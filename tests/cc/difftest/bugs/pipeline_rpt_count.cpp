// Regression (fixed): -O1..-O3: the software-pipelined loop's prologue reuses the repeat-count register ($m1 here) as a temporary, so `rpt` runs a garbage count (0: only the prologue's iteration is done)
// Found by gen.py (gen_1.cpp V1_elem0). Expected out0[i] = (half)in[i], out1[i] = in[i] for every
// i; at -O2 only element 0 is written (the rest keep the harness's 0xcdcd fill). -O0 is right.
// In the assembly: `add $m1, $m1, 1` (count) ... `shrs $m1, $m2, 31` (prologue's sign word of
// out1[0]) ... `rpt $m1, ...`.
#include <cmath>
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;

using namespace poplar;

namespace dtbug {

class PipelineRptCount : public Vertex {
public:
  Input<Vector<unsigned short, SPAN>> in;
  Output<Vector<half, ONE_PTR>> out0;
  Output<Vector<long long, ONE_PTR>> out1;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) {
      const unsigned short x = in[i];
      out0[i] = (half)x;
      out1[i] = (int)std::fmin((float)x, 2.0e9f);
    }
    return true;
  }
};

} // namespace dtbug
