// ipusim's <math.h> for codelets: the float C functions (sqrtf, expf, sinf ...) as inline
// functions, and the classification macros for C. Functions with an LLVM intrinsic (sqrt, fabs,
// exp, exp2, log, log2, log10, floor, ceil, trunc, round, fma, copysign, fmin, fmax) use clang's
// builtins, which the backend selects to IPU instructions; the others use ipusim's software
// implementations (ipusim/math_impl.h; accuracy in docs/device-headers.md). There are no double
// functions: the IPU has no double hardware. On a host, the host's <math.h>.
#ifndef __IPU__
#include_next <math.h>
#else
#ifndef IPUSIM_MATH_H
#define IPUSIM_MATH_H
#include <ipusim/math_impl.h>

#define IPUSIM_MATHF static inline __attribute__((always_inline))
#ifdef __cplusplus
extern "C" {
#endif
IPUSIM_MATHF float sqrtf(float x) { return __builtin_sqrtf(x); }
IPUSIM_MATHF float fabsf(float x) { return __builtin_fabsf(x); }
IPUSIM_MATHF float expf(float x) { return __builtin_expf(x); }
IPUSIM_MATHF float exp2f(float x) { return __builtin_exp2f(x); }
IPUSIM_MATHF float logf(float x) { return __builtin_logf(x); }
IPUSIM_MATHF float log2f(float x) { return __builtin_log2f(x); }
IPUSIM_MATHF float log10f(float x) { return __builtin_log10f(x); }
IPUSIM_MATHF float floorf(float x) { return __builtin_floorf(x); }
IPUSIM_MATHF float ceilf(float x) { return __builtin_ceilf(x); }
IPUSIM_MATHF float truncf(float x) { return __builtin_truncf(x); }
IPUSIM_MATHF float roundf(float x) { return __builtin_roundf(x); }
IPUSIM_MATHF float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
IPUSIM_MATHF float copysignf(float x, float y) { return __builtin_copysignf(x, y); }
IPUSIM_MATHF float fminf(float x, float y) { return __builtin_fminf(x, y); }
IPUSIM_MATHF float fmaxf(float x, float y) { return __builtin_fmaxf(x, y); }
IPUSIM_MATHF float sinf(float x) { return ipusim::math::sin(x); }
IPUSIM_MATHF float cosf(float x) { return ipusim::math::cos(x); }
IPUSIM_MATHF float tanf(float x) { return ipusim::math::tan(x); }
IPUSIM_MATHF float tanhf(float x) { return ipusim::math::tanh(x); }
IPUSIM_MATHF float atanf(float x) { return ipusim::math::atan(x); }
IPUSIM_MATHF float atan2f(float y, float x) { return ipusim::math::atan2(y, x); }
IPUSIM_MATHF float erff(float x) { return ipusim::math::erf(x); }
IPUSIM_MATHF float powf(float x, float y) { return ipusim::math::pow(x, y); }
IPUSIM_MATHF float fmodf(float x, float y) { return ipusim::math::fmod(x, y); }
#ifdef __cplusplus
}
#endif
#undef IPUSIM_MATHF

#define HUGE_VALF (__builtin_huge_valf())
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#ifndef __cplusplus
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
#define isfinite(x) __builtin_isfinite(x)
#define signbit(x) __builtin_signbit(x)
#endif
#define M_E 2.71828182845904523536
#define M_LOG2E 1.44269504088896340736
#define M_LN2 0.693147180559945309417
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.785398163397448309616
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.707106781186547524401
#ifdef __cplusplus
#include <cmath> // the float and half overloads, in std and globally (as libc++'s <math.h>)
#endif
#endif
#endif
