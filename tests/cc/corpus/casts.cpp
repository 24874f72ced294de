// Conversions, templated like popops::Cast1D: f32 <-> f16, int <-> float, unsigned -> float
// (needs rounding above 2^24), and 8- and 16-bit loads widened to 32 bits.
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;
static constexpr auto SPAN = poplar::VectorLayout::SPAN;

using namespace poplar;

namespace corpus {

template <typename InType, typename OutType> class Cast : public Vertex {
public:
  Input<Vector<InType, SPAN, 8>> src;
  Output<Vector<OutType, ONE_PTR, 8>> dst;

  bool compute() {
    const unsigned n = src.size();
    for (unsigned i = 0; i < n; ++i) dst[i] = static_cast<OutType>(src[i]);
    return true;
  }
};
template class Cast<float, half>;
template class Cast<half, float>;
template class Cast<int, float>;
template class Cast<float, int>;
template class Cast<unsigned int, float>;
template class Cast<unsigned char, float>;
template class Cast<short, float>;
template class Cast<float, unsigned short>;
template class Cast<signed char, int>;
template class Cast<unsigned short, unsigned int>;

} // namespace corpus
