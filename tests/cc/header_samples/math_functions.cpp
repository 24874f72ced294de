// Sample: a codelet using <cmath> and <ipu_vector_math>; compiled for a host with
// -DIPUSIM_HOST_MATH_CHECK it is also the accuracy check of the software math functions
// (ipusim/math_impl.h) against the host's double-precision libm.
#include <cmath>
#include <ipu_vector_math>
#include <poplar/HalfFloat.hpp>
#include <poplar/Vertex.hpp>

using namespace poplar;

class SoftMath : public Vertex {
public:
  Input<Vector<float, VectorLayout::ONE_PTR, 8>> in;
  Output<Vector<float>> out;

  bool compute() {
    for (unsigned i = 0; i < out.size(); ++i) {
      float x = in[i];
      out[i] = std::sin(x) + std::cos(x) + std::tan(x) + std::atan2(x, 1.5f) + std::erf(x) +
               std::tanh(x) + std::pow(std::fabs(x), 0.75f) + std::fmod(x, 0.3f) + std::sqrt(std::fabs(x)) +
               std::exp(x) + std::log2(1.0f + x * x) + std::floor(x) + std::round(x) +
               std::copysign(1.0f, x) + std::fmin(x, 1.0f) + std::fma(x, x, 1.0f);
    }
    return true;
  }
};

template <typename T> class VectorMath : public Vertex {
public:
  InOut<Vector<T, VectorLayout::SPAN, 8>> data;

  bool compute() {
    for (auto &x : data)
      x = ipu::sigmoid(x) + ipu::tanh(x) + ipu::exp(x) + ipu::log(ipu::fabs(x) + T(1)) + ipu::rsqrt(T(2)) +
          ipu::erf(x) + ipu::sin(x) + ipu::cos(x) + ipu::pow(ipu::fabs(x), T(2)) + ipu::fmod(x, T(3)) +
          ipu::floor(x) + ipu::ceil(x) + ipu::round(x) + ipu::copysign(T(1), x) + ipu::fmin(x, T(0)) +
          ipu::fmax(x, T(0)) + ipu::exp2(x) + ipu::log2(ipu::fabs(x) + T(1)) + ipu::sqrt(ipu::fabs(x));
    return true;
  }
};
template class VectorMath<float>;
template class VectorMath<half>;

class VectorMathV : public Vertex {
public:
  InOut<Vector<float2, VectorLayout::ONE_PTR, 8>> f2;
  InOut<Vector<half2, VectorLayout::ONE_PTR, 4>> h2;
  InOut<Vector<half4, VectorLayout::ONE_PTR, 8>> h4;
  unsigned n;

  bool compute() {
    for (unsigned i = 0; i < n; ++i) {
      f2[i] = ipu::fabs(f2[i]) + ipu::sqrt(ipu::fabs(f2[i])) + ipu::exp(f2[i]) + ipu::tanh(f2[i]) +
              ipu::sigmoid(f2[i]) + ipu::fmax(f2[i], float2{0, 0}) + ipu::sin(f2[i]) + ipu::floor(f2[i]);
      h2[i] = ipu::exp(h2[i]) + ipu::log(ipu::fabs(h2[i])) + ipu::tanh(h2[i]) + ipu::sigmoid(h2[i]) +
              ipu::fmin(h2[i], half2{0, 0}) + ipu::rsqrt(ipu::fabs(h2[i])) + ipu::cos(h2[i]);
      h4[i] = ipu::exp(h4[i]) + ipu::fabs(h4[i]) + ipu::sqrt(ipu::fabs(h4[i])) + ipu::tanh(h4[i]) +
              ipu::log2(ipu::fabs(h4[i])) + ipu::erf(h4[i]);
    }
    return true;
  }
};

// Emit compute() in the sample IR (ipu-cc generates the real __runCodelet_ wrapper).
[[gnu::used]] static bool sampleEntry(void *v) { return static_cast<SoftMath *>(v)->compute(); }
[[gnu::used]] static bool sampleEntryV(void *v) { return static_cast<VectorMathV *>(v)->compute(); }

#if !defined(__IPU__) && defined(IPUSIM_HOST_MATH_CHECK)
#include <cstdio>
#include <cstdlib>
#include <ipusim/math_impl.h>

namespace {
// |got - want| in units of the float ulp at want.
double ulpError(float got, double want) {
  if (std::isnan(want))
    return std::isnan(got) ? 0.0 : 1e9;
  if (std::isinf(want))
    return (std::isinf(got) && (got > 0) == (want > 0)) ? 0.0 : 1e9;
  double aw = std::fabs(want);
  int e;
  std::frexp(aw < 1.17549435e-38 ? 1.17549435e-38 : aw, &e);
  double ulp = std::ldexp(1.0, e - 24);
  return std::fabs(double(got) - want) / ulp;
}

int failures = 0;

template <typename F, typename R>
void sweep1(const char *name, F f, R ref, double lo, double hi, int n, double bound) {
  double worst = 0, at = 0;
  for (int i = 0; i <= n; ++i) {
    float x = float(lo + (hi - lo) * i / n);
    double e = ulpError(f(x), ref(double(x)));
    if (e > worst) {
      worst = e;
      at = x;
    }
  }
  bool ok = worst <= bound;
  failures += !ok;
  std::printf("%-8s [%10g, %10g]  max %6.2f ulp at %-14.8g bound %4.1f  %s\n", name, lo, hi, worst, at,
              bound, ok ? "ok" : "FAIL");
}
} // namespace

int main() {
  namespace m = ipusim::math;
  const int N = 2000000;
  sweep1("sin", m::sin, [](double x) { return std::sin(x); }, -10, 10, N, 2);
  sweep1("sin", m::sin, [](double x) { return std::sin(x); }, -1e5, 1e5, N, 2.5);
  sweep1("cos", m::cos, [](double x) { return std::cos(x); }, -10, 10, N, 2);
  sweep1("cos", m::cos, [](double x) { return std::cos(x); }, -1e5, 1e5, N, 2.5);
  sweep1("tan", m::tan, [](double x) { return std::tan(x); }, -10, 10, N, 3.5);
  sweep1("tan", m::tan, [](double x) { return std::tan(x); }, -1e5, 1e5, N, 4);
  sweep1("atan", m::atan, [](double x) { return std::atan(x); }, -20, 20, N, 2.5);
  sweep1("atan", m::atan, [](double x) { return std::atan(x); }, -1e6, 1e6, N, 2.5);
  sweep1("atan2", [](float y) { return m::atan2(y, 0.7f); }, [](double y) { return std::atan2(y, double(0.7f)); }, -10, 10, N, 2.5);
  sweep1("atan2", [](float x) { return m::atan2(-0.3f, x); }, [](double x) { return std::atan2(double(-0.3f), x); }, -10, 10, N, 2.5);
  sweep1("erf", m::erf, [](double x) { return std::erf(x); }, -5, 5, N, 3);
  sweep1("tanh", m::tanh, [](double x) { return std::tanh(x); }, -10, 10, N, 2);
  sweep1("exp2", m::exp2, [](double x) { return std::exp2(x); }, -149, 127.9, N, 2);
  sweep1("log2", m::log2, [](double x) { return std::log2(x); }, 1e-6, 1e6, N, 3);
  sweep1("log2", m::log2, [](double x) { return std::log2(x); }, 0.5, 2, N, 3);
  sweep1("pow^0.5", [](float x) { return m::pow(x, 0.5f); }, [](double x) { return std::pow(x, 0.5); }, 1e-3, 1e3, N, 2);
  sweep1("pow^2.7", [](float x) { return m::pow(x, 2.7f); }, [](double x) { return std::pow(x, double(2.7f)); }, 1e-3, 1e3, N, 4);
  sweep1("pow^-3", [](float x) { return m::pow(x, -3.0f); }, [](double x) { return std::pow(x, -3.0); }, -1e3, 1e3, N, 3);
  sweep1("2^y", [](float y) { return m::pow(2.0f, y); }, [](double y) { return std::pow(2.0, y); }, -20, 20, N, 2);
  sweep1("1.1^y", [](float y) { return m::pow(1.1f, y); }, [](double y) { return std::pow(double(1.1f), y); }, -100, 100, N, 8);
  sweep1("fmod", [](float x) { return m::fmod(x, 0.3f); }, [](double x) { return std::fmod(x, double(0.3f)); }, -1e4, 1e4, N, 0);
  sweep1("fmod", [](float x) { return m::fmod(1234.5678f, x); }, [](double x) { return std::fmod(double(1234.5678f), x); }, -100, 100, N, 0);
  sweep1("asin", m::asin, [](double x) { return std::asin(x); }, -1, 1, N, 3.5);
  sweep1("cbrt", m::cbrt, [](double x) { return std::cbrt(x); }, -1e6, 1e6, N, 1);
  sweep1("cbrt", m::cbrt, [](double x) { return std::cbrt(x); }, 1e-40, 1e-30, N, 1);
  sweep1("log1p", m::log1p, [](double x) { return std::log1p(x); }, -0.999, 10, N, 4.5);
  sweep1("log1p", m::log1p, [](double x) { return std::log1p(x); }, -1e-3, 1e-3, N, 4.5);
  sweep1("expm1", m::expm1, [](double x) { return std::expm1(x); }, -10, 10, N, 4.5);
  sweep1("expm1", m::expm1, [](double x) { return std::expm1(x); }, -1e-3, 1e-3, N, 4.5);
  sweep1("expm1", m::expm1, [](double x) { return std::expm1(x); }, 80, 88.7, N, 1.5);
  // the public interfaces run the same code on the host
  sweep1("ipu::sin", [](float x) { return ipu::sin(x); }, [](double x) { return std::sin(x); }, -10, 10, 100000, 2);
  sweep1("ipu::erf", [](float x) { return ipu::erf(x); }, [](double x) { return std::erf(x); }, -5, 5, 100000, 3);
  std::printf("%s\n", failures ? "FAILED" : "all math bounds hold");
  return failures ? 1 : 0;
}
#endif
