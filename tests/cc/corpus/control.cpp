// Control flow and the stack: loop-carried dependences, calls to non-inlined helpers, recursion
// of bounded depth, a vertex that returns false, and local arrays indexed by data.
#include <poplar/Vertex.hpp>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;

using namespace poplar;

namespace corpus {

// out[i] = in[0] + ... + in[i], in order.
class PrefixSumF32 : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float, ONE_PTR>> out;

  bool compute() {
    float acc = 0.0f;
    for (unsigned i = 0; i < in.size(); ++i) {
      acc += in[i];
      out[i] = acc;
    }
    return true;
  }
};

// First-order IIR filter y[i] = a * y[i-1] + x[i], y[-1] = 0.
class IirFilter : public Vertex {
public:
  Input<Vector<float>> x;
  Output<Vector<float, ONE_PTR>> y;
  float a;

  bool compute() {
    float prev = 0.0f;
    for (unsigned i = 0; i < x.size(); ++i) {
      prev = a * prev + x[i];
      y[i] = prev;
    }
    return true;
  }
};

__attribute__((noinline)) float horner(const float *coeffs, unsigned n, float x) {
  float r = 0.0f;
  for (unsigned i = n; i-- > 0;) r = r * x + coeffs[i];
  return r;
}

__attribute__((noinline)) unsigned gcd(unsigned a, unsigned b) {
  while (b) {
    unsigned t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Calls non-inlined helpers: a polynomial (coefficients c[0] + c[1] x + ...) at every x, and the
// gcd of integer pairs.
class CallsHelpers : public Vertex {
public:
  Input<Vector<float>> x;
  Input<Vector<float>> coeffs;
  Output<Vector<float, ONE_PTR>> y;
  Input<Vector<unsigned>> pairs;
  Output<Vector<unsigned, ONE_PTR>> gcds;

  bool compute() {
    for (unsigned i = 0; i < x.size(); ++i) y[i] = horner(&coeffs[0], coeffs.size(), x[i]);
    for (unsigned i = 0; i < pairs.size() / 2; ++i) gcds[i] = gcd(pairs[2 * i], pairs[2 * i + 1]);
    return true;
  }
};

// (Recursion is rejected by ipu-cc: a worker stack has a fixed size, tests/cc/diag.)

// Returns false (the worker exits with exitnz) if any element is not positive; firstBad is the
// index of the first such element, or the size if there is none.
class AllPositive : public Vertex {
public:
  Input<Vector<float>> in;
  Output<unsigned> firstBad;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i)
      if (!(in[i] > 0.0f)) {
        *firstBad = i;
        return false;
      }
    *firstBad = in.size();
    return true;
  }
};

// For each group of 8 ints: sorts a copy in a local array (insertion sort) and writes the lower
// median, and counts the group's values modulo 10 in a local array indexed by data, writing the
// most frequent residue (the smallest one on a tie).
class LocalArrayStats : public Vertex {
public:
  Input<Vector<int>> in;
  Output<Vector<int, ONE_PTR>> medians;
  Output<Vector<int, ONE_PTR>> modes;

  bool compute() {
    for (unsigned g = 0; g < in.size() / 8; ++g) {
      int buf[8];
      unsigned counts[10] = {};
      for (unsigned i = 0; i < 8; ++i) {
        buf[i] = in[8 * g + i];
        int r = buf[i] % 10;
        counts[r < 0 ? -r : r] += 1;
      }
      for (unsigned i = 1; i < 8; ++i) {
        int v = buf[i];
        unsigned j = i;
        while (j > 0 && buf[j - 1] > v) {
          buf[j] = buf[j - 1];
          --j;
        }
        buf[j] = v;
      }
      medians[g] = buf[3];
      unsigned best = 0;
      for (unsigned r = 1; r < 10; ++r)
        if (counts[r] > counts[best]) best = r;
      modes[g] = int(best);
    }
    return true;
  }
};

} // namespace corpus
