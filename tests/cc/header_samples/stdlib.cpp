// Sample: the freestanding C++ library (compile-time checks plus a vertex that uses it).
#include <algorithm>
#include <array>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>
#include <math.h>
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

using namespace poplar;

static_assert(std::is_same<std::make_unsigned_t<int>, unsigned>::value, "make_unsigned");
static_assert(std::is_same<std::make_signed_t<unsigned char>, signed char>::value, "make_signed");
static_assert(std::is_floating_point<half>::value && std::is_arithmetic<half>::value, "half is floating point");
static_assert(std::is_signed<half>::value && std::is_signed<int>::value && std::is_unsigned<unsigned>::value, "signedness");
static_assert(std::is_same<std::decay_t<const int (&)[3]>, const int *>::value, "decay");
static_assert(std::is_same<std::remove_cv_t<const volatile int>, int>::value, "remove_cv");
static_assert(std::is_pointer<int *const>::value && !std::is_pointer<int>::value, "is_pointer");
static_assert(std::conjunction<std::true_type, std::is_integral<char>>::value, "conjunction");
static_assert(std::disjunction<std::false_type, std::is_integral<char>>::value, "disjunction");
static_assert(std::is_same<std::conditional_t<true, int, float>, int>::value, "conditional");
static_assert(std::is_same<std::void_t<int>, void>::value, "void_t");
static_assert(std::numeric_limits<int>::max() == INT_MAX && std::numeric_limits<int>::min() == INT_MIN, "int limits");
static_assert(std::numeric_limits<unsigned short>::max() == 65535, "ushort limits");
static_assert(std::numeric_limits<long long>::max() == LLONG_MAX, "long long limits");
static_assert(std::numeric_limits<float>::max() == FLT_MAX && std::numeric_limits<float>::epsilon() == FLT_EPSILON, "float limits");
static_assert(float(std::numeric_limits<half>::max()) == 65504.0f, "half max");
static_assert(float(std::numeric_limits<half>::epsilon()) == 0.0009765625f, "half epsilon");
static_assert(std::numeric_limits<half>::digits == 11, "half digits");
static_assert(std::max({3, 9, 4}) == 9 && std::min({3, 9, 4}) == 3 && std::clamp(7, 0, 5) == 5, "min/max/clamp");
static_assert(std::min(2u, 3u) == 2u && std::max(2.0f, 3.0f) == 3.0f, "min/max");
static_assert(sizeof(std::size_t) == sizeof(void *) && sizeof(std::uint64_t) == 8, "sizes");

template <typename T> class Stats : public Vertex {
public:
  Input<Vector<T>> in;
  Output<Vector<T, VectorLayout::ONE_PTR>> out;

  bool compute() {
    assert(in.size() >= 1);
    std::array<T, 4> a{};
    a.fill(T(0));
    const T *b = in.begin(), *e = in.end();
    a[0] = *std::max_element(b, e);
    a[1] = *std::min_element(b, e);
    a[2] = std::accumulate(b, e, T(0));
    a[3] = std::abs(a[1]) + std::fabs(a[0]) + std::sqrt(std::fabs(a[2]));
    std::pair<T, T> p = std::make_pair(a[0], a[1]);
    std::swap(p.first, p.second);
    T tmp[4];
    std::copy(a.begin(), a.end(), tmp);
    std::fill_n(&out[0], 4, T(0));
    std::memcpy(&out[0], tmp, sizeof(tmp));
    out[4] = std::clamp(p.first, std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max());
    out[5] = static_cast<T>(std::distance(b, e));
    out[6] = std::isfinite(a[2]) ? a[2] : T(0);
    out[7] = std::max(std::pow(a[0], T(2)), std::fmod(a[2], T(3)));
    std::sort(&out[0], &out[0] + 4);
    return true;
  }
};
template class Stats<float>;
template class Stats<half>;

class IntStats : public Vertex {
public:
  Input<Vector<int, VectorLayout::SPAN, 4>> in;
  Output<int> sum;
  bool compute() {
    int s = std::accumulate(in.begin(), in.end(), 0);
    *sum = std::abs(s) + std::gcd(12, 18) + (std::find(in.begin(), in.end(), 3) != in.end());
    return true;
  }
};

// Emit compute() in the sample IR (ipu-cc generates the real __runCodelet_ wrapper).
[[gnu::used]] static bool sampleEntry(void *v) { return static_cast<IntStats *>(v)->compute(); }
