// Poplar's 8-bit float `quarter` as poplibs' codelets use it (issue 13): fields of quarter carry a
// metadata pointer (getMetadata()), unpackMetadata, toFloat / toHalf / toQuarter; and the other
// SDK rules poplibs' popfloat, popnn and poplin codelets needed: <StackSizeDefs.hpp> without the
// poplar/ prefix, std::memcpy with only <array> included, std::swap from <poplar/Vertex.hpp>, a
// value assigned to a Vector<Output<T>> element, COMPACT_PTR below 4-byte alignment, vector
// elements at a variable index and narrow constants as and/or immediates.
#include <array>
#include <poplar/HalfFloat.hpp>
#include <poplar/QuarterFloat.hpp>
#include <poplar/Vertex.hpp>
#include "StackSizeDefs.hpp"

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto COMPACT_PTR = poplar::VectorLayout::COMPACT_PTR;

using namespace poplar;

namespace corpus {

// Every code of `in` decoded under its metadata (as float and as half), and `src` encoded under
// the metadata of `out`, NaN on overflow when `nanoo` is set.
class QuarterConvert : public Vertex {
public:
  Input<Vector<quarter>> in;
  Output<Vector<float, ONE_PTR>> asFloat;
  Output<Vector<half, ONE_PTR>> asHalf;
  Input<Vector<float>> src;
  Output<Vector<quarter, ONE_PTR>> out;
  unsigned nanoo;

  bool compute() {
    const quarter_metadata mdIn = unpackMetadata(in.getMetadata());
    for (unsigned i = 0; i < in.size(); ++i) {
      asFloat[i] = toFloat(in[i], mdIn);
      asHalf[i] = poplar::toHalf(in[i], mdIn);
    }
    const quarter_metadata mdOut = unpackMetadata(out.getMetadata());
    for (unsigned i = 0; i < src.size(); ++i) out[i] = toQuarter(src[i], mdOut, nanoo != 0);
    return true;
  }
};

// out[i] = the bytes of words[i] reversed through a char array and std::memcpy, then halves
// swapped with std::swap; lane[i] = element (sel[i] & 3) of the int4-like pair of half4s built
// from `h`, picked and then replaced at a variable index; masked[i] = bytes[i] & 0x80 | 0x7f
// (narrow constants); first[0] = the number of words, written through a Vector<Output<int>>.
class SdkRules : public Vertex {
public:
  Input<Vector<unsigned>> words;
  Output<Vector<unsigned, ONE_PTR>> out;
  Input<Vector<half, COMPACT_PTR, 2>> h; // 2-byte aligned: a full pointer
  Input<Vector<unsigned, ONE_PTR>> sel;
  Output<Vector<half, ONE_PTR>> lane;
  Output<Vector<half, ONE_PTR>> replaced;
  Input<Vector<signed char, ONE_PTR>> bytes;
  Output<Vector<signed char, ONE_PTR>> masked;
  Vector<Output<int>, ONE_PTR> first;

  bool compute() {
    for (unsigned i = 0; i < words.size(); ++i) {
      char c[4];
      std::memcpy(c, &words[i], 4);
      std::swap(c[0], c[3]);
      std::swap(c[1], c[2]);
      unsigned w;
      std::memcpy(&w, c, 4);
      out[i] = w;

      half4 v = {h[4 * i], h[4 * i + 1], h[4 * i + 2], h[4 * i + 3]};
      const unsigned k = sel[i] & 3;
      lane[i] = v[k];
      v[k] = v[k] + half(1);
      for (unsigned j = 0; j < 4; ++j) replaced[4 * i + j] = v[j];

      masked[i] = static_cast<signed char>((bytes[i] & static_cast<signed char>(-128)) | 0x7f);
    }
    first[0] = static_cast<int>(words.size());
    return true;
  }
};

} // namespace corpus
