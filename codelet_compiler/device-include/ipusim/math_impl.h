// ipusim device headers: software float implementations of the math functions the IPU has no
// instruction for. Plain C++17 with no dependencies, so the same code runs on the IPU (through
// <cmath> / <math.h> / <ipu_vector_math>) and on a host (tests/cc/check_device_headers.sh measures
// it against the host's libm).
//
// Method: argument reduction, then a polynomial whose coefficients were fitted by ipusim (weighted
// least squares in a Chebyshev basis, long double) and rounded to float. Maximum errors measured
// by tests/cc/header_samples/math_functions.cpp (host build) against the host's double libm, in
// float ulps (the check asserts these bounds):
//   sin, cos     |x| <= 10: 2 ulp; |x| <= 1e5: 2.5 ulp (beyond 1e5 the reduction degrades; results
//                stay finite)
//   tan          |x| <= 10: 3.5 ulp; |x| <= 1e5: 4 ulp
//   atan, atan2  2.5 ulp
//   erf          3 ulp
//   tanh         2 ulp
//   exp2, log2   2 ulp (exp2), 3 ulp (log2 near 1). Internal: <cmath> exp2/log2 use LLVM intrinsics.
//   pow          2 ulp (y = 0.5), 3 ulp (integer y, repeated squaring), 4 ulp (x^2.7 on
//                [1e-3, 1e3]), 8 ulp (1.1^y, |y| <= 100): the exponent y*log2(x) is carried to
//                ~30 bits, the remaining error is log2's, scaled by |y|.
//   asin         3.5 ulp (atan2 of x and sqrt((1 - x)(1 + x)))
//   cbrt         1 ulp (a Newton step on 2^(log2|x| / 3))
//   log1p, expm1 4.5 ulp (the rounding of 1 + x, or the cancellation of e^x - 1, corrected)
//   fmod         exact
#ifndef IPUSIM_MATH_IMPL_H
#define IPUSIM_MATH_IMPL_H

namespace ipusim {
namespace math {

#define IPUSIM_MATH_INLINE static inline __attribute__((always_inline))

IPUSIM_MATH_INLINE unsigned bitsOf(float x) { return __builtin_bit_cast(unsigned, x); }
IPUSIM_MATH_INLINE float fromBits(unsigned u) { return __builtin_bit_cast(float, u); }
IPUSIM_MATH_INLINE float absf(float x) { return __builtin_fabsf(x); }
IPUSIM_MATH_INLINE bool isNaN(float x) { return (bitsOf(x) & 0x7fffffffu) > 0x7f800000u; }
IPUSIM_MATH_INLINE bool isInf(float x) { return (bitsOf(x) & 0x7fffffffu) == 0x7f800000u; }
IPUSIM_MATH_INLINE float quietNaN() { return fromBits(0x7fc00000u); }
IPUSIM_MATH_INLINE float inf() { return fromBits(0x7f800000u); }

/// a * b = p + e exactly (Dekker's product with Veltkamp splitting; no fma needed).
IPUSIM_MATH_INLINE void twoProduct(float a, float b, float &p, float &e) {
  p = a * b;
  float ca = 4097.0f * a, cb = 4097.0f * b;
  float ah = ca - (ca - a), al = a - ah;
  float bh = cb - (cb - b), bl = b - bh;
  e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

// --- 2^x and log2 ----------------------------------------------------------------------------

/// 2^n for an integer n in [-149, 127] (exact).
IPUSIM_MATH_INLINE float pow2i(int n) {
  if (n >= -126)
    return fromBits(static_cast<unsigned>(n + 127) << 23);
  return fromBits(1u << (n + 149)); // subnormal
}

/// v * 2^n for |n| <= 300, rounding once (v a normal float near 1).
IPUSIM_MATH_INLINE float ldexpInt(float v, int n) {
  if (n > 127) {
    v *= pow2i(127);
    n -= 127;
    if (n > 127)
      return v * pow2i(127);
  } else if (n < -126) {
    v *= pow2i(-126 + 24); // stays normal
    n += 126 - 24;
    if (n < -126)
      return n < -149 ? v * 0.0f : v * pow2i(n);
  }
  return v * pow2i(n);
}

/// 2^x. Rounding x to an integer n leaves f in [-0.5, 0.5]; 2^f by a degree-6 polynomial.
static inline float exp2(float x) {
  if (isNaN(x))
    return x;
  if (x >= 128.0f)
    return inf();
  if (x < -150.0f)
    return 0.0f;
  float n = __builtin_floorf(x + 0.5f);
  float f = x - n; // exact
  float p = 1.533757750e-04f;
  p = p * f + 1.339985989e-03f;
  p = p * f + 9.618519805e-03f;
  p = p * f + 5.550329015e-02f;
  p = p * f + 2.402264625e-01f;
  p = p * f + 6.931471825e-01f;
  p = p * f + 1.0f;
  int k = static_cast<int>(n);
  // Scale in two steps so that results near the subnormal range round once.
  if (k < -126)
    return (p * pow2i(k + 64)) * pow2i(-64);
  if (k == 128)
    return (p * 2.0f) * pow2i(127);
  return p * pow2i(k);
}

/// log2(x) for x > 0: x = m * 2^e with m in [sqrt(1/2), sqrt(2)); with s = (m-1)/(m+1),
/// log2(m) = s * R(s^2), R of degree 3.
static inline float log2(float x) {
  unsigned u = bitsOf(x);
  if (isNaN(x))
    return x;
  if (x < 0.0f)
    return quietNaN();
  if (x == 0.0f)
    return -inf();
  if (isInf(x))
    return x;
  int e = 0;
  if (u < 0x00800000u) { // subnormal: normalise
    x *= 16777216.0f;    // 2^24
    u = bitsOf(x);
    e = -24;
  }
  e += static_cast<int>(u >> 23) - 127;
  float m = fromBits((u & 0x007fffffu) | 0x3f800000u); // [1, 2)
  if (m > 1.41421356f) {
    m *= 0.5f;
    e += 1;
  }
  float s = (m - 1.0f) / (m + 1.0f);
  float z = s * s;
  float r = 4.317330122e-01f;
  r = r * z + 5.767145157e-01f;
  r = r * z + 9.617988467e-01f;
  r = r * z + 2.885390043e+00f;
  return static_cast<float>(e) + s * r;
}

// --- sin, cos, tan ------------------------------------------------------------------------------

/// x = j * pi/2 + r, |r| <= pi/4; returns j mod 4. Cody-Waite with pi/2 split into 8 + 8 + 8 +
/// 24 bits: for |j| < 2^16 the first three products and differences are exact. For |j| > 16 the
/// last product is formed exactly (twoProduct) and a fifth term added, so that r keeps its
/// relative accuracy near multiples of pi/2 up to |x| ~ 1e5.
IPUSIM_MATH_INLINE int reducePiO2(float x, float &r) {
  float j = __builtin_roundf(x * 0.636619772f);
  float a = ((x - j * 1.5703125f) - j * 4.825592041015625e-04f) - j * 1.26659870147705078125e-06f;
  if (absf(j) <= 16.0f) {
    r = a - j * 9.920936294705e-10f;
  } else {
    float p, e;
    twoProduct(j, 9.920936294705e-10f, p, e);
    r = (a - p) - (e + j * -4.97649e-17f);
  }
  float q = j - 4.0f * __builtin_truncf(j * 0.25f); // j mod 4, exact, in (-4, 4)
  int qi = static_cast<int>(q);
  return qi & 3;
}

/// sin(r) on |r| <= pi/4: r + r^3 * P(r^2).
IPUSIM_MATH_INLINE float sinPoly(float r) {
  float z = r * r;
  float p = 2.718008091e-06f;
  p = p * z - 1.983929833e-04f;
  p = p * z + 8.333329111e-03f;
  p = p * z - 1.666666716e-01f;
  return r + r * z * p;
}
/// cos(r) on |r| <= pi/4: 1 - r^2/2 + r^4 * Q(r^2).
IPUSIM_MATH_INLINE float cosPoly(float r) {
  float z = r * r;
  float q = 2.443057383e-05f;
  q = q * z - 1.388728968e-03f;
  q = q * z + 4.166664556e-02f;
  float h = 0.5f * z;
  float w = 1.0f - h;
  return w + (((1.0f - w) - h) + z * z * q);
}

static inline float sin(float x) {
  if (isNaN(x) || isInf(x))
    return quietNaN();
  if (absf(x) < 1e-4f)
    return x; // sin(x) = x to within half an ulp
  float r;
  int q = reducePiO2(x, r);
  float v = (q & 1) ? cosPoly(r) : sinPoly(r);
  return (q & 2) ? -v : v;
}

static inline float cos(float x) {
  if (isNaN(x) || isInf(x))
    return quietNaN();
  float r;
  int q = reducePiO2(x, r);
  float v = (q & 1) ? sinPoly(r) : cosPoly(r);
  return ((q + 1) & 2) ? -v : v;
}

static inline float tan(float x) {
  if (isNaN(x) || isInf(x))
    return quietNaN();
  if (absf(x) < 1e-4f)
    return x;
  float r;
  int q = reducePiO2(x, r);
  float s = sinPoly(r), c = cosPoly(r);
  return (q & 1) ? -c / s : s / c;
}

// --- atan, atan2 ---------------------------------------------------------------------------

/// atan(z) on |z| <= tan(pi/8): z + z^3 * P(z^2).
IPUSIM_MATH_INLINE float atanPoly(float z) {
  float w = z * z;
  float p = -6.066071242e-02f;
  p = p * w + 1.058857217e-01f;
  p = p * w - 1.424274445e-01f;
  p = p * w + 1.999842376e-01f;
  p = p * w - 3.333331347e-01f;
  return z + z * w * p;
}

static inline float atan(float x) {
  if (isNaN(x))
    return x;
  float ax = absf(x);
  float r;
  if (ax > 2.414213562f) { // tan(3pi/8): atan(x) = pi/2 - atan(1/x)
    r = 1.570796371f + (-4.371138829e-08f - atanPoly(1.0f / ax));
    if (isInf(ax))
      r = 1.570796371f;
  } else if (ax > 0.414213562f) { // tan(pi/8): atan(x) = pi/4 + atan((x-1)/(x+1))
    r = 7.853981853e-01f + (-2.185569414e-08f + atanPoly((ax - 1.0f) / (ax + 1.0f)));
  } else {
    r = atanPoly(ax);
  }
  return x < 0.0f ? -r : r;
}

static inline float atan2(float y, float x) {
  if (isNaN(x) || isNaN(y))
    return x + y;
  const float pi = 3.141592741f, piLo = -8.742277657e-08f;
  bool yNeg = (bitsOf(y) >> 31) != 0, xNeg = (bitsOf(x) >> 31) != 0;
  float ay = absf(y), ax = absf(x);
  float r;
  if (ay == 0.0f) {
    r = xNeg ? pi : 0.0f;
  } else if (ax == 0.0f) {
    r = 1.570796371f;
  } else if (isInf(ax) && isInf(ay)) {
    r = xNeg ? 2.356194496f : 7.853981853e-01f;
  } else if (isInf(ax)) {
    r = xNeg ? pi : 0.0f;
  } else if (isInf(ay)) {
    r = 1.570796371f;
  } else {
    // atan(ay/ax) in [0, pi/2], then fold into the quadrant.
    float q = ay / ax;
    float a = (ay > ax) ? 1.570796371f + (-4.371138829e-08f - atan(ax / ay)) : atan(q);
    r = xNeg ? pi + (piLo - a) : a;
  }
  return yNeg ? -r : r;
}

// --- erf, tanh -------------------------------------------------------------------------------

static inline float erf(float x) {
  if (isNaN(x))
    return x;
  float ax = absf(x);
  float r;
  if (ax < 1.0f) { // x * P(x^2), degree 6
    float z = x * x;
    float p = 7.847259258e-05f;
    p = p * z - 8.008189034e-04f;
    p = p * z + 5.188099109e-03f;
    p = p * z - 2.685369179e-02f;
    p = p * z + 1.128358245e-01f;
    p = p * z - 3.761262596e-01f;
    p = p * z + 1.128379107e+00f;
    return x * p;
  }
  if (ax >= 4.0f) {
    r = 1.0f;
  } else { // erfc(x) = exp(-x^2) * G(1/x), G of degree 9 on 1/x in [0.25, 1]
    float t = 1.0f / ax;
    float g = 2.967723645e-02f;
    g = g * t - 1.740014404e-01f;
    g = g * t + 4.245884418e-01f;
    g = g * t - 5.183950067e-01f;
    g = g * t + 2.225583047e-01f;
    g = g * t + 2.390853763e-01f;
    g = g * t - 3.789607584e-01f;
    g = g * t + 2.122417279e-02f;
    g = g * t + 5.616815090e-01f;
    g = g * t + 1.257577824e-04f;
    float e = exp2(-(ax * ax) * 1.442695041f);
    r = 1.0f - e * g;
  }
  return x < 0.0f ? -r : r;
}

static inline float tanh(float x) {
  if (isNaN(x))
    return x;
  float ax = absf(x);
  float r;
  if (ax < 0.55f) { // x + x^3 * P(x^2), degree 4
    float z = x * x;
    float p = -6.264368072e-03f;
    p = p * z + 2.106413618e-02f;
    p = p * z - 5.385029688e-02f;
    p = p * z + 1.333256513e-01f;
    p = p * z - 3.333331645e-01f;
    return x + x * z * p;
  }
  if (ax > 9.1f) {
    r = 1.0f;
  } else { // 1 - 2 / (e^(2|x|) + 1)
    float e = exp2(ax * 2.885390082f);
    r = 1.0f - 2.0f / (e + 1.0f);
  }
  return x < 0.0f ? -r : r;
}

// --- pow -----------------------------------------------------------------------------------

IPUSIM_MATH_INLINE bool isInteger(float y) { return __builtin_truncf(y) == y; }
IPUSIM_MATH_INLINE bool isOddInteger(float y) {
  // Odd integers are below 2^24 in magnitude.
  return absf(y) < 16777216.0f && isInteger(y) && (static_cast<int>(y) & 1);
}


/// 2^(y * log2(x)) for x > 0 finite, keeping the exponent y*log2(x) = y*e + y*t (x = m * 2^e,
/// t = log2(m)) to about 30 bits so that large exponents do not lose the result's accuracy.
static inline float exp2Compensated(float y, float x) {
  unsigned u = bitsOf(x);
  int e = 0;
  if (u < 0x00800000u) {
    x *= 16777216.0f;
    u = bitsOf(x);
    e = -24;
  }
  e += static_cast<int>(u >> 23) - 127;
  float m = fromBits((u & 0x007fffffu) | 0x3f800000u);
  if (m > 1.41421356f) {
    m *= 0.5f;
    e += 1;
  }
  float s = (m - 1.0f) / (m + 1.0f);
  float z = s * s;
  float rr = 4.317330122e-01f;
  rr = rr * z + 5.767145157e-01f;
  rr = rr * z + 9.617988467e-01f;
  rr = rr * z + 2.885390043e+00f;
  float t = s * rr; // log2(m), |t| <= 0.5
  float p1, e1, p2, e2;
  twoProduct(y, static_cast<float>(e), p1, e1);
  twoProduct(y, t, p2, e2);
  float hi = p1 + p2; // two-sum
  float bb = hi - p1;
  float lo = ((p1 - (hi - bb)) + (p2 - bb)) + (e1 + e2);
  if (hi > 200.0f)
    return inf();
  if (hi < -200.0f)
    return 0.0f;
  float n = __builtin_floorf(hi + 0.5f);
  float f = (hi - n) + lo;
  return ldexpInt(exp2(f), static_cast<int>(n));
}

static inline float pow(float x, float y) {
  if (y == 0.0f || x == 1.0f)
    return 1.0f;
  if (isNaN(x) || isNaN(y))
    return x + y;
  float ax = absf(x);
  bool negResult = x < 0.0f && isOddInteger(y);
  if (x < 0.0f && !isInteger(y) && !isInf(y))
    return quietNaN();
  if (isInf(y)) {
    if (ax == 1.0f)
      return 1.0f;
    return ((ax > 1.0f) == (y > 0.0f)) ? inf() : 0.0f;
  }
  float r;
  if (ax == 0.0f) {
    r = y > 0.0f ? 0.0f : inf();
    if (negResult || (x == 0.0f && (bitsOf(x) >> 31) && isOddInteger(y)))
      r = -r;
    return r;
  }
  if (isInf(ax)) {
    r = y > 0.0f ? inf() : 0.0f;
    return negResult ? -r : r;
  }
  if (isInteger(y) && absf(y) <= 32.0f) { // repeated squaring
    unsigned n = static_cast<unsigned>(absf(y));
    float b = ax, acc = 1.0f;
    while (n) {
      if (n & 1)
        acc *= b;
      n >>= 1;
      if (n)
        b *= b;
    }
    r = y < 0.0f ? 1.0f / acc : acc;
  } else {
    r = exp2Compensated(y, ax);
  }
  return negResult ? -r : r;
}

// --- asin, cbrt, log1p, expm1 (poplibs' unary ops) ------------------------------------------

/// asin(x) = atan2(x, sqrt((1 - x)(1 + x))): 1 - x is exact where it matters (x near 1).
static inline float asin(float x) {
  if (isNaN(x) || absf(x) > 1.0f)
    return quietNaN();
  return atan2(x, __builtin_sqrtf((1.0f - x) * (1.0f + x)));
}

/// cbrt: 2^(log2|x| / 3), then one Newton step y -= (y^3 - a) / (3 y^2) in float. Tiny inputs
/// are scaled by 2^102 first so that y^3 stays normal.
static inline float cbrt(float x) {
  float ax = absf(x);
  if (isNaN(x) || isInf(x) || ax == 0.0f)
    return x;
  float scale = 1.0f;
  if (ax < 0x1p-100f) {
    ax *= 0x1p102f;
    scale = 0x1p-34f;
  }
  float y = exp2(log2(ax) * (1.0f / 3.0f));
  y = y - (y * y * y - ax) / (3.0f * y * y);
  y *= scale;
  return x < 0.0f ? -y : y;
}

/// log1p: with u = 1 + x rounded, log(u) * x / (u - 1) corrects for the rounding of 1 + x
/// (Goldberg, "What every computer scientist should know about floating-point", theorem 4).
static inline float log1p(float x) {
  if (isNaN(x) || x < -1.0f)
    return quietNaN();
  if (x == -1.0f)
    return -inf();
  if (isInf(x))
    return x;
  float u = 1.0f + x;
  if (u == 1.0f)
    return x;
  float lnU = log2(u) * 0.693147180560f;
  if (u == inf())
    return lnU;
  return lnU * (x / (u - 1.0f));
}

/// expm1: e^x - 1. Near 0 with u = e^x rounded: (u - 1) * x / log(u) (Kahan's correction of
/// the cancellation); elsewhere u - 1.
static inline float expm1(float x) {
  if (isNaN(x))
    return x;
  if (x > 88.8f)
    return inf();
  if (x < -17.4f) // e^x below half an ulp of 1
    return -1.0f;
  // e^x = 2^(x log2(e)), the product carried to ~30 bits (log2(e) as a float and a remainder).
  float p, err;
  twoProduct(x, 1.44269502162933349609375f, p, err);
  float lo = err + x * 1.925963033500011e-8f;
  float n = __builtin_floorf(p + 0.5f);
  float u = ldexpInt(exp2((p - n) + lo), static_cast<int>(n));
  if (absf(x) >= 0.5f)
    return u - 1.0f;
  if (u == 1.0f)
    return x;
  return (u - 1.0f) * (x / (log2(u) * 0.693147180560f));
}

// --- fmod (exact) --------------------------------------------------------------------------

static inline float fmod(float x, float y) {
  unsigned ux = bitsOf(x), uy = bitsOf(y) & 0x7fffffffu;
  unsigned sx = ux & 0x80000000u;
  ux &= 0x7fffffffu;
  if (uy == 0 || ux >= 0x7f800000u || uy > 0x7f800000u)
    return quietNaN();
  if (ux < uy)
    return x;
  if (ux == uy)
    return fromBits(sx);
  int ex = static_cast<int>(ux >> 23), ey = static_cast<int>(uy >> 23);
  unsigned mx, my;
  if (ex == 0) {
    mx = ux;
    ex = 1;
    while (!(mx & 0x00800000u)) {
      mx <<= 1;
      --ex;
    }
  } else {
    mx = (ux & 0x007fffffu) | 0x00800000u;
  }
  if (ey == 0) {
    my = uy;
    ey = 1;
    while (!(my & 0x00800000u)) {
      my <<= 1;
      --ey;
    }
  } else {
    my = (uy & 0x007fffffu) | 0x00800000u;
  }
  for (; ex > ey; --ex) {
    if (mx >= my)
      mx -= my;
    mx <<= 1;
  }
  if (mx >= my)
    mx -= my;
  if (mx == 0)
    return fromBits(sx);
  while (!(mx & 0x00800000u)) {
    mx <<= 1;
    --ex;
  }
  unsigned r = ex > 0 ? ((mx - 0x00800000u) | (static_cast<unsigned>(ex) << 23)) : (mx >> (1 - ex));
  return fromBits(r | sx);
}

#undef IPUSIM_MATH_INLINE

} // namespace math
} // namespace ipusim

#endif // IPUSIM_MATH_IMPL_H
