// Regressions for miscompilations found by review (each vertex's comment says what went wrong).
#include <cmath>
#include <ipu_builtins.h>
#include <ipudef.h>
#include <string.h>
#include <poplar/Vertex.hpp>

using namespace poplar;

namespace rev {

// fcmp uno/ord with two different operands tested only the first.
class Unordered : public Vertex {
public:
  Input<Vector<float, VectorLayout::ONE_PTR, 4>> a; // {x, y}
  Output<Vector<int, VectorLayout::ONE_PTR, 4>> out;
  bool compute() {
    out[0] = __builtin_isunordered(a[0], a[1]);
    out[1] = !__builtin_isunordered(a[0], a[1]);
    return true;
  }
};

// A switch LLVM narrows to i8 compared the untruncated register with sign-extended cases.
class NarrowSwitch : public Vertex {
public:
  Input<Vector<int, VectorLayout::ONE_PTR, 4>> a;
  Output<Vector<int, VectorLayout::ONE_PTR, 4>> out;
  bool compute() {
    for (unsigned i = 0; i < 3; ++i) {
      unsigned char c = a[i];
      switch (c) {
      case 1: out[i] = 10; break;
      case 200: out[i] = 20; break;
      case 7: out[i] = 30; break;
      case 9: out[i] = 40; break;
      default: out[i] = 99; break;
      }
    }
    return true;
  }
};

// The loop's exit branch tested its phi after the back-edge copies had overwritten it.
class BranchOnPhi : public Vertex {
public:
  Input<Vector<unsigned, VectorLayout::SPAN, 4>> a;
  Output<Vector<int, VectorLayout::ONE_PTR, 4>> out;
  bool compute() {
    unsigned x = a[0];
    int cnt = 0;
    while (true) {
      cnt += x & 1;
      bool stop = (int)x < 0;
      x = x * 1103515245u + 12345u;
      if (stop) break;
    }
    out[0] = cnt;
    return true;
  }
};

// The pipeliner dropped the data dependence from a pace load to the pace store of its value.
class PaceCopy : public Vertex {
public:
  Input<Vector<float2, VectorLayout::SPAN, 8>> a;
  Input<Vector<float2, VectorLayout::ONE_PTR, 8>> b;
  Output<Vector<float2, VectorLayout::ONE_PTR, 8>> out;
  Output<Vector<float2, VectorLayout::ONE_PTR, 8>> acc;
  bool compute() {
    float2 s = {0, 0};
    for (unsigned i = 0; i < a.size(); ++i) {
      out[i] = a[i];
      s += b[i];
    }
    acc[0] = s;
    return true;
  }
};

// `freeze i64` (before a division/remainder pair) copied only the low word.
class DivRem64 : public Vertex {
public:
  Input<Vector<unsigned, VectorLayout::SPAN, 8>> a; // x.lo x.hi y.lo y.hi
  Output<Vector<unsigned, VectorLayout::ONE_PTR, 8>> out;
  bool compute() {
    unsigned long long x = a[0] | ((unsigned long long)a[1] << 32), y = a[2] | ((unsigned long long)a[3] << 32);
    unsigned long long q = x / y, r = x % y;
    out[0] = (unsigned)q;
    out[1] = (unsigned)(q >> 32);
    out[2] = (unsigned)r;
    out[3] = (unsigned)(r >> 32);
    return true;
  }
};

// 64-bit rotates (llvm.fshl.i64) were rejected.
class Rotate64 : public Vertex {
public:
  Input<Vector<unsigned long long>> in;
  Output<Vector<unsigned long long, VectorLayout::ONE_PTR>> out;
  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) {
      unsigned long long x = in[i];
      out[3 * i] = (x << 13) | (x >> 51);
      out[3 * i + 1] = (x >> 40) | (x << 24);
      out[3 * i + 2] = (x << 32) | (x >> 32);
    }
    return true;
  }
};

// Found by a second review: under-aligned 16/32-bit accesses, integer vectors built from
// scalars, an empty asm barrier, round/log10 (and sin, whose argument reduction rounds).
class Misc : public Vertex {
public:
  Input<Vector<unsigned, VectorLayout::ONE_PTR, 4>> in;
  Output<Vector<unsigned, VectorLayout::ONE_PTR, 4>> out;
  bool compute() {
    unsigned x;
    memcpy(&x, (const char *)&in[0] + 1, 4); // load i32 align 1
    out[0] = x;
    memcpy((char *)&out[0] + 6, &in[2], 4); // store i32 align 2 (out[1] high half, out[2] low half)
    half2 h = *(const half2 *)&in[3];
    short2 n = __builtin_ipu_isnan(h); // an integer vector from the ARF
    out[3] = unsigned(n[0]);
    __asm__ volatile("" ::: "memory");
    out[4] = unsigned(n[1]);
    float f = __builtin_bit_cast(float, in[4]);
    out[5] = __builtin_bit_cast(unsigned, std::round(f));
    out[6] = __builtin_bit_cast(unsigned, std::round(-f));
    out[7] = unsigned(std::log10(1000.0f * float(in[5])) + 0.25f); // 3.25 + log10(in[5])
    out[8] = unsigned(100.0f * std::sin(f) + 1000.0f);
    return true;
  }
};

// Nine float2 values live around a loop (and a remainder call): spills whose reload registers
// were coalesced with longer-lived values made the allocator give up.
inline void manyPairs(const float2 *in, float2 *out) {
  float2 v[9];
  for (int i = 0; i < 9; ++i) v[i] = in[i];
  float2 s = {0, 0};
  for (int r = 0; r < 5; ++r)
    for (int i = 0; i < 9; ++i) {
      s = s * 0.5f + v[i] * v[(i + r) % 9];
      v[i] = v[i] + s;
    }
  for (int i = 0; i < 9; ++i) out[i] = v[i];
  out[9] = s;
}
class ManyPairs : public Vertex {
public:
  Input<Vector<float2, VectorLayout::ONE_PTR, 8>> in;
  Output<Vector<float2, VectorLayout::ONE_PTR, 8>> out;
  bool compute() {
    manyPairs(&in[0], &out[0]);
    return true;
  }
};

// Inline assembly with a tied "+r" operand and two instructions (an odd number of words, so the
// code after it must be realigned to 8 bytes).
class TiedAsm : public Vertex {
public:
  Input<Vector<unsigned>> in;
  Output<Vector<unsigned, VectorLayout::ONE_PTR>> out;
  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) {
      unsigned x = in[i];
      asm volatile("add %0, %0, 1\n\tadd %0, %0, 2" : "+r"(x));
      out[i] = x;
    }
    return true;
  }
};

// LLVM's closed forms of these sums compute in i33 (n (n - 1) / 2 ...): integers of 33 to 63 bits
// were cut to 32.
class ClosedFormSums : public Vertex {
public:
  Input<Vector<unsigned, VectorLayout::ONE_PTR, 4>> in;
  Output<Vector<unsigned, VectorLayout::ONE_PTR, 4>> out;
  bool compute() {
    unsigned n = in[0], u = 0, q2 = 0;
    for (unsigned q = 0; q < n; ++q) u += q;
    for (unsigned q = 0; q < n; ++q) q2 += q * q;
    out[0] = u;
    out[1] = q2;
    return true;
  }
};

// Integer division by constants in a SupervisorVertex goes through the (MRF-only) runtime routine.
class SupervisorDivide : public SupervisorVertex {
public:
  Input<Vector<unsigned, VectorLayout::ONE_PTR, 4>> in;
  Output<Vector<unsigned, VectorLayout::ONE_PTR, 4>> out;
  bool compute() {
    out[0] = in[0] % 12;
    out[1] = in[1] / 10;
    return true;
  }
};

// Unsigned division and remainder by constants: a multiply by a magic number (ISel's
// divideByConstant), for divisors small and large, powers of two and not, and narrow types.
class DivByConstant : public Vertex {
public:
  Input<Vector<unsigned, VectorLayout::SPAN, 8>> a;
  Output<Vector<unsigned, VectorLayout::ONE_PTR, 8>> out;
  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      const unsigned x = a[i];
      unsigned *o = &out[i * 10];
      o[0] = x / 3;
      o[1] = x % 7;
      o[2] = x / 48;
      o[3] = x / 1000000007u;
      o[4] = x % 0xFFFFFFFFu;
      o[5] = x / 0x80000001u;
      o[6] = x / 640;
      o[7] = x % 65537;
      o[8] = (unsigned short)x / (unsigned short)10;
      o[9] = (unsigned char)x % (unsigned char)6;
    }
    return true;
  }
};

// Signed division and remainder by constants: |x| divided as unsigned, the C signs after
// (truncation towards zero; the remainder takes the dividend's sign), INT_MIN included.
class SDivByConstant : public Vertex {
public:
  Input<Vector<int, VectorLayout::SPAN, 8>> a;
  Output<Vector<int, VectorLayout::ONE_PTR, 8>> out;
  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      const int x = a[i];
      int *o = &out[i * 8];
      o[0] = x / 3;
      o[1] = x % 7;
      o[2] = x / 48;
      o[3] = x / 1000000007;
      o[4] = x % 65537;
      o[5] = x / 8;
      o[6] = x % 16;
      o[7] = (short)x / (short)10;
    }
    return true;
  }
};

} // namespace rev

