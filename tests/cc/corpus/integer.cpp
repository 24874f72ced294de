// Integer work: a histogram, bit counting, bit operations and shifts, division and remainder by
// constants and by variables (signed and unsigned, 32-, 16- and 8-bit), 16- and 8-bit arithmetic.
#include <poplar/Vertex.hpp>

#include <cstdint>

static constexpr auto ONE_PTR = poplar::VectorLayout::ONE_PTR;

using namespace poplar;

namespace corpus {

// 16 bins by the high nibble of each byte.
class Histogram16 : public Vertex {
public:
  Input<Vector<unsigned char>> in;
  Output<Vector<unsigned, ONE_PTR>> bins;

  bool compute() {
    for (unsigned b = 0; b < 16; ++b) bins[b] = 0;
    for (unsigned i = 0; i < in.size(); ++i) bins[in[i] >> 4] += 1;
    return true;
  }
};

// Per element: popcount, count of leading zeros, count of trailing zeros (32 for zero).
class BitCount : public Vertex {
public:
  Input<Vector<unsigned>> in;
  Output<Vector<unsigned, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) {
      const unsigned x = in[i];
      out[3 * i] = __builtin_popcount(x);
      out[3 * i + 1] = x ? __builtin_clz(x) : 32;
      out[3 * i + 2] = x ? __builtin_ctz(x) : 32;
    }
    return true;
  }
};

// Per element: and, or, xor, not, shift left, logical shift right, arithmetic shift right,
// rotate left (shift amounts from b & 31).
class BitOps : public Vertex {
public:
  Input<Vector<unsigned>> a;
  Input<Vector<unsigned, ONE_PTR>> b;
  Output<Vector<unsigned, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      const unsigned x = a[i], y = b[i], s = y & 31;
      unsigned *o = &out[8 * i];
      o[0] = x & y;
      o[1] = x | y;
      o[2] = x ^ y;
      o[3] = ~x;
      o[4] = x << s;
      o[5] = x >> s;
      o[6] = unsigned(int(x) >> s);
      o[7] = s ? (x << s) | (x >> (32 - s)) : x;
    }
    return true;
  }
};

// Per element: x/7, x%7, x/10, x%10, x/8, x%8 (signed), and unsigned(x)/3, unsigned(x)%1000.
class DivModConst : public Vertex {
public:
  Input<Vector<int>> in;
  Output<Vector<int, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) {
      const int x = in[i];
      const unsigned u = unsigned(x);
      int *o = &out[8 * i];
      o[0] = x / 7;
      o[1] = x % 7;
      o[2] = x / 10;
      o[3] = x % 10;
      o[4] = x / 8;
      o[5] = x % 8;
      o[6] = int(u / 3);
      o[7] = int(u % 1000);
    }
    return true;
  }
};

// Per element: a/b, a%b (signed) and the same unsigned.
class DivModVar : public Vertex {
public:
  Input<Vector<int>> a;
  Input<Vector<int, ONE_PTR>> b;
  Output<Vector<int, ONE_PTR>> out;

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      const int x = a[i], y = b[i];
      out[4 * i] = x / y;
      out[4 * i + 1] = x % y;
      out[4 * i + 2] = int(unsigned(x) / unsigned(y));
      out[4 * i + 3] = int(unsigned(x) % unsigned(y));
    }
    return true;
  }
};

// 16-bit arithmetic, wrapping on store: sum, product, arithmetic shift, max with the unsigned
// operand reinterpreted as signed, and the unsigned operand times 3 plus 1.
class Int16Ops : public Vertex {
public:
  Input<Vector<short>> a;
  Input<Vector<unsigned short, ONE_PTR>> b;
  Output<Vector<short, ONE_PTR>> out;
  Output<Vector<unsigned short, ONE_PTR>> uout;

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      const short x = a[i];
      const unsigned short y = b[i];
      const short ys = short(y);
      out[4 * i] = short(x + y);
      out[4 * i + 1] = short(x * ys);
      out[4 * i + 2] = short(x >> 3);
      out[4 * i + 3] = x > ys ? x : ys;
      uout[i] = (unsigned short)(y * 3u + 1u);
    }
    return true;
  }
};

// 8-bit arithmetic: wrapping and saturating sums, xor, and a rotate of the unsigned byte.
class Int8Ops : public Vertex {
public:
  Input<Vector<signed char>> a;
  Input<Vector<unsigned char, ONE_PTR>> b;
  Output<Vector<signed char, ONE_PTR>> out;
  Output<Vector<unsigned char, ONE_PTR>> uout;

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      const int x = a[i], y = b[i];
      int sat = x + y - 128;
      sat = sat < -128 ? -128 : sat > 127 ? 127 : sat;
      out[3 * i] = (signed char)(x + y);
      out[3 * i + 1] = (signed char)sat;
      out[3 * i + 2] = (signed char)(x ^ y);
      uout[i] = (unsigned char)((y >> 3) | (y << 5));
    }
    return true;
  }
};

// Division and remainder of 16- and 8-bit types, by variables and by constants: a / b, a % b
// (shorts by unsigned bytes, b never 0), a / 3, a % 3, and the byte's b / 5, b % 7.
class SmallIntDivMod : public Vertex {
public:
  Input<Vector<short>> a;
  Input<Vector<unsigned char, ONE_PTR>> b;
  Output<Vector<short, ONE_PTR>> out;
  Output<Vector<unsigned char, ONE_PTR>> bout;

  bool compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      const short x = a[i];
      const unsigned char y = b[i];
      out[4 * i] = short(x / y);
      out[4 * i + 1] = short(x % y);
      out[4 * i + 2] = short(x / 3);
      out[4 * i + 3] = short(x % 3);
      bout[2 * i] = (unsigned char)(y / 5);
      bout[2 * i + 1] = (unsigned char)(y % 7);
    }
    return true;
  }
};

} // namespace corpus
