// What the SDK's codelet headers make visible and poplibs' codelets rely on (issue 13): no
// <cstdint>, <type_traits> or <cmath> included, yet uint32_t, std::size_t, std::is_same and the
// short-vector types are there; unqualified float maths (exp, fmod, sqrt); <tuple>; a scalar
// reinterpreted as a vector; and loops longer than rpt's 256 bundles.
#include <poplar/TileConstants.hpp>
#include <poplar/Vertex.hpp>
#include <math.h>
#include <tuple>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;

using namespace poplar;

namespace corpus {

static std::tuple<float, unsigned> splitScaled(float x) { return std::make_tuple(x * 0.5f, unsigned(x >= 1.0f)); }

// exp(-x), fmod(x, 0.75) and sqrt(|x|) with the C names, unqualified; flags[i] = (x >= 1)
// through a tuple and std::tie; words[i]: the halves of a uint32_t swapped through ushort2.
class VisibleNames : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float, ONE_PTR>> out;
  Output<Vector<float, ONE_PTR>> rem;
  Output<Vector<float, ONE_PTR>> root;
  Output<Vector<uint32_t, ONE_PTR>> flags;
  Input<Vector<uint32_t, ONE_PTR>> words;
  Output<Vector<uint32_t, ONE_PTR>> swapped;

  bool compute() {
    static_assert(std::is_same<std::size_t, unsigned>::value, "size_t is 32 bits on the IPU");
    for (unsigned i = 0; i < in.size(); ++i) {
      float half;
      unsigned big;
      std::tie(half, big) = splitScaled(in[i]);
      out[i] = exp(-in[i]);
      rem[i] = fmod(in[i], 0.75f);
      root[i] = sqrt(fabs(half + half));
      flags[i] = big;
      ushort2 h = reinterpret_cast<ushort2>(words[i]);
      swapped[i] = reinterpret_cast<uint32_t>(__builtin_shufflevector(h, h, 1, 0));
    }
    return true;
  }
};

#define STEP4 x = x * 1.0009765625f + 0.5f; x = x * 0.9990234375f - 0.25f; \
              x = x * 1.0009765625f + 0.5f; x = x * 0.9990234375f - 0.25f;
#define STEP32 STEP4 STEP4 STEP4 STEP4 STEP4 STEP4 STEP4 STEP4

// Each element through 160 dependent multiply-adds (320 bundles and more): too long for one rpt
// body, so the loop is an ordinary counted loop.
class LongLoopBody : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) {
      float x = in[i];
      STEP32 STEP32 STEP32 STEP32 STEP32
      out[i] = x;
    }
    return true;
  }
};

} // namespace corpus

namespace corpus {

// Saturating arithmetic (llvm.usub.sat / llvm.uadd.sat) and 64-bit unsigned max / min
// and signed (llvm.umax.i64, llvm.smin.i64 ...) and llvm.abs.i64, which poplibs' SeqSlice and binary ops reach.
class SaturatingAndWide : public Vertex {
public:
  Input<Vector<unsigned>> a;
  Input<Vector<unsigned, ONE_PTR>> b;
  Output<Vector<unsigned, ONE_PTR>> subSat, addSat;
  Input<Vector<unsigned long long, ONE_PTR>> wa, wb;
  Output<Vector<unsigned long long, ONE_PTR>> wmax, wmin;
  Input<Vector<long long, ONE_PTR>> sa, sb;
  Output<Vector<long long, ONE_PTR>> smax, smin, sabs;

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      subSat[i] = __builtin_elementwise_sub_sat(a[i], b[i]);
      addSat[i] = __builtin_elementwise_add_sat(a[i], b[i]);
      wmax[i] = wa[i] > wb[i] ? wa[i] : wb[i];
      wmin[i] = wa[i] < wb[i] ? wa[i] : wb[i];
      smax[i] = sa[i] > sb[i] ? sa[i] : sb[i];
      smin[i] = sa[i] < sb[i] ? sa[i] : sb[i];
      sabs[i] = __builtin_llabs(sa[i]);
    }
    return true;
  }
};

// Inline assembly that clobbers registers by name ("$a0:1", "$m0", as poplibs' Dot.hpp and
// casts do) and writes its bundle with braces: values live across it must be kept elsewhere.
class ClobberingAsm : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float, ONE_PTR>> out;

  bool compute() {
    float a = in[0], b = in[1], c = in[2], d = in[3], e = in[4], f = in[5];
    unsigned n = in.size();
    asm volatile(R"(
      { setzi $m0, 0 ; setzi $a0, 0 }
      { setzi $m1, 0 ; setzi $a1, 0 }
      setzi $a2, 0
      setzi $a3, 0
    )" ::: "$a0:1", "$a2", "$a3", "$m0", "$m1");
    float r;
    asm("{ nop ; f32add %0, %1, %2 }" : "=r"(r) : "r"(a), "r"(b));
    out[0] = r + c * d - e / f + float(n);
    return true;
  }
};

} // namespace corpus

namespace corpus {

// tapack's packed addresses (a uint2) as an inline-assembly "+r" operand used as an MRF pair, as
// poplibs' Dot.hpp does: ld2x64pace walks both pointers, the updated pair comes back as a uint2.
class PackedPointerAsm : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 8>> a;
  Input<Vector<float, ONE_PTR, 8>> b;
  Output<Vector<float, ONE_PTR>> out;
  Output<Vector<unsigned, ONE_PTR>> moved;

  bool compute() {
    uint2 packed = __builtin_ipu_tapack(&a[0], &b[0], 0);
    float2 x, y;
    asm volatile("ld2x64pace %[x], %[y], %[ptr]+=, $mzero, 0"
                 : [x] "=r"(x), [y] "=r"(y), [ptr] "+r"(packed));
    out[0] = x[0] * y[0] + x[1] * y[1];
    moved[0] = packed[0];
    moved[1] = packed[1];
    return true;
  }
};

} // namespace corpus

namespace corpus {

// A SupervisorVertex template, explicitly instantiated, whose compute() has supervisor-only inline
// assembly (`sync`, as poplibs' SequenceSlice): its kept copy is compiled as supervisor code.
template <class T> class SupervisorSync : public SupervisorVertex {
public:
  Input<Vector<T>> in;
  Output<Vector<T, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = in[i] * 3 + 1;
    asm volatile("sync %0" ::"i"(TEXCH_SYNCZONE_LOCAL));
    return true;
  }
};
template class SupervisorSync<int>;
template class SupervisorSync<unsigned>;

} // namespace corpus
