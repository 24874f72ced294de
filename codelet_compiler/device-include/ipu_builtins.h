// ipusim's <ipu_builtins.h>: the __builtin_ipu_* API of Graphcore's compiler (names and types as
// in the public clang/include/clang/Basic/BuiltinsColossus.def and clang/lib/Headers/ipu_builtins.h
// of graphcore/llvm-project-fork), for ipu-cc, which is a stock clang 19 without those builtins.
//
// Each builtin is an always-inline function whose body is one inline-asm instruction of the
// Colossus dialect (arch/isa/instructions.def gives the operand forms). The backend's inline-asm
// conventions this header relies on:
//   "r"  a register; the register file follows the operand's C type:
//          int / unsigned / pointer (32-bit)          -> one MRF register  $mN
//          unsigned long long (64-bit integer)        -> an even MRF pair  $mN:N+1  (tapack only)
//          float, half, and 32-bit vectors (half2, short2, char4 ...)  -> one ARF register  $aN
//          64-bit vectors (float2, half4, short4, int2)                -> an even ARF pair  $aN:N+1
//          128-bit vectors (float4, half8)                             -> an ARF quad       $aN:N+3
//   "i"  an integer constant, printed in decimal (the callers pass constant expressions; ipu-cc
//        compiles at -O2, where the always-inline call has been folded before instruction
//        selection).
//   `asm volatile` marks instructions with side effects: CSR reads/writes, the PRNG, the
//   accumulator (AACC) state and the supervisor's CWEI loads.
// ARF results that the API types as integers (uget, urand32, class) go through a float/vector
// temporary and a bit cast, so that the asm operand lives in the ARF.
//
// C++ adds the overloaded forms poplibs uses (__builtin_ipu_max(a, b), __builtin_ipu_cmplt ...).
// On a host (no __IPU__) every function has a portable C++ fallback with the same semantics as far
// as they are public (PRNG, accumulator and CSR functions are stubs there).
#ifndef IPUSIM_IPU_BUILTINS_H
#define IPUSIM_IPU_BUILTINS_H

#include <arch/gc_tile_defines.h> // the CSR names the builtins take (CSR_W_FP_CLR__INDEX ...)
#include <ipudef.h>

#define IPUSIM_BI static inline __attribute__((always_inline))

#ifdef __IPU__
#define IPUSIM_ASM1(ins, R, A)                                                                     \
  R r_;                                                                                            \
  __asm__(ins " %0, %1" : "=r"(r_) : "r"(A));                                                      \
  return r_;
#define IPUSIM_ASM2(ins, R, A, B)                                                                  \
  R r_;                                                                                            \
  __asm__(ins " %0, %1, %2" : "=r"(r_) : "r"(A), "r"(B));                                         \
  return r_;
#endif

// ---------------------------------------------------------------------------------------------
// Control / state
// ---------------------------------------------------------------------------------------------

/// `get $mX, csr`: read a CSR of the get/put space.
IPUSIM_BI unsigned __builtin_ipu_get(const unsigned csr) {
#ifdef __IPU__
  unsigned r;
  __asm__ volatile("get %0, %1" : "=r"(r) : "i"(csr));
  return r;
#else
  (void)csr;
  return 0;
#endif
}

/// `put csr, $mX`.
IPUSIM_BI void __builtin_ipu_put(unsigned value, const unsigned csr) {
#ifdef __IPU__
  __asm__ volatile("put %0, %1" : : "i"(csr), "r"(value));
#else
  (void)value;
  (void)csr;
#endif
}

/// `uget $aX, csr`: read a CSR of the uget/uput space (worker).
IPUSIM_BI float __builtin_ipu_ugetf(const unsigned csr) {
#ifdef __IPU__
  float r;
  __asm__ volatile("uget %0, %1" : "=r"(r) : "i"(csr));
  return r;
#else
  (void)csr;
  return 0.0f;
#endif
}
IPUSIM_BI unsigned __builtin_ipu_uget(const unsigned csr) {
  return __builtin_bit_cast(unsigned, __builtin_ipu_ugetf(csr));
}

/// `uput csr, $aX`.
IPUSIM_BI void __builtin_ipu_uputf(float value, const unsigned csr) {
#ifdef __IPU__
  __asm__ volatile("uput %0, %1" : : "i"(csr), "r"(value));
#else
  (void)value;
  (void)csr;
#endif
}
IPUSIM_BI void __builtin_ipu_uput(unsigned value, const unsigned csr) {
  __builtin_ipu_uputf(__builtin_bit_cast(float, value), csr);
}

/// The worker's vertex-state pointer ($VERTEX_BASE, CSR 2).
IPUSIM_BI void *__builtin_ipu_get_vertex_base(void) {
  return (void *)(__UINTPTR_TYPE__)__builtin_ipu_get(2);
}
/// The worker's context id minus one, 0..5 ($WSR, CSR 1, bits 2:0).
IPUSIM_BI unsigned __builtin_ipu_get_worker_id(void) { return __builtin_ipu_get(1) & 0x7u; }
/// Supervisor: the tile id ($TILE_ID, CSR 3).
IPUSIM_BI unsigned __builtin_ipu_get_tile_id(void) { return __builtin_ipu_get(3); }
/// Supervisor: the cycle counter ($SCOUNT_L / $SCOUNT_U, CSRs 96 / 97).
IPUSIM_BI unsigned __builtin_ipu_get_scount_l(void) { return __builtin_ipu_get(96); }
IPUSIM_BI unsigned __builtin_ipu_get_scount_u(void) { return __builtin_ipu_get(97); }

/// Supervisor: `ld64putcs k` / `ld128putcs k`: load 64 / 128 bits from the $CCCSLOAD address
/// (post-incremented) into the AMP weight register $CWEI_n_m, k = 4n + m.
IPUSIM_BI void __builtin_ipu_ld64putcs(const unsigned k) {
#ifdef __IPU__
  __asm__ volatile("ld64putcs %0" : : "i"(k) : "memory");
#else
  (void)k;
#endif
}
IPUSIM_BI void __builtin_ipu_ld128putcs(const unsigned k) {
#ifdef __IPU__
  __asm__ volatile("ld128putcs %0" : : "i"(k) : "memory");
#else
  (void)k;
#endif
}

// ---------------------------------------------------------------------------------------------
// Integer instructions
// ---------------------------------------------------------------------------------------------

/// `tapack $mD:D+1, $mA, $mB, $mC`: pack three addresses (21 bits each) into a pace triple:
/// A and B in the low 21 bits of the two registers, C across their top bits (docs/hardware.md).
IPUSIM_BI uint2 __builtin_ipu_tapack(const void *a, const void *b, const void *c) {
#ifdef __IPU__
  unsigned long long r;
  __asm__("tapack %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return __builtin_bit_cast(uint2, r);
#else
  unsigned ua = (unsigned)(__UINTPTR_TYPE__)a & 0x1fffffu, ub = (unsigned)(__UINTPTR_TYPE__)b & 0x1fffffu,
           uc = (unsigned)(__UINTPTR_TYPE__)c & 0x1fffffu;
  // The format of ipusim/arch/PackedAddresses.h: a and b in the low 21 bits, c across the tops.
  uint2 r = {ua | (uc & 0x7ffu) << 21, ub | (uc >> 11) << 21};
  return r;
#endif
}

/// `urand32 $aX` / `urand64 $aX:X+1`: the worker's PRNG.
IPUSIM_BI float __ipusim_urand32_arf(void) {
#ifdef __IPU__
  float r;
  __asm__ volatile("urand32 %0" : "=r"(r));
  return r;
#else
  static unsigned s = 0x9e3779b9u;
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return __builtin_bit_cast(float, s);
#endif
}
IPUSIM_BI unsigned __builtin_ipu_urand32(void) { return __builtin_bit_cast(unsigned, __ipusim_urand32_arf()); }
IPUSIM_BI unsigned long long __builtin_ipu_urand64(void) {
#ifdef __IPU__
  float2 r;
  __asm__ volatile("urand64 %0" : "=r"(r));
  return __builtin_bit_cast(unsigned long long, r);
#else
  unsigned long long lo = __builtin_ipu_urand32();
  return lo | ((unsigned long long)__builtin_ipu_urand32() << 32);
#endif
}
/// Uniform float in [-0.5, 0.5] from 32 random bits (`f32sufromui`).
IPUSIM_BI float __builtin_ipu_urand_f32(void) {
  float bits = __ipusim_urand32_arf();
#ifdef __IPU__
  float r;
  __asm__("f32sufromui %0, %1" : "=r"(r) : "r"(bits));
  return r;
#else
  return (float)__builtin_bit_cast(unsigned, bits) * 2.3283064e-10f - 0.5f;
#endif
}
/// Uniform half in [-0.5, 0.5] (`f16v2sufromui`, lane 0).
IPUSIM_BI half __builtin_ipu_urand_f16(void) {
  float bits = __ipusim_urand32_arf();
#ifdef __IPU__
  half2 r;
  __asm__("f16v2sufromui %0, %1" : "=r"(r) : "r"(bits));
  return r[0];
#else
  return (half)((float)(__builtin_bit_cast(unsigned, bits) & 0xffffu) * 1.5258789e-05f - 0.5f);
#endif
}

/// Bit operations on MRF values (plain C: the backend selects and/andc/or).
IPUSIM_BI int __builtin_ipu_and_i32(int a, int b) { return a & b; }
IPUSIM_BI int __builtin_ipu_andc_i32(int a, int b) { return a & ~b; }
IPUSIM_BI int __builtin_ipu_or_i32(int a, int b) { return a | b; }

/// Bit operations on ARF values: `and`, `andc`, `or`, `not` (32-bit) and the 64-bit forms.
#ifdef __IPU__
IPUSIM_BI float __builtin_ipu_and_f32(float a, float b) { IPUSIM_ASM2("and", float, a, b) }
IPUSIM_BI float __builtin_ipu_andc_f32(float a, float b) { IPUSIM_ASM2("andc", float, a, b) }
IPUSIM_BI float __builtin_ipu_or_f32(float a, float b) { IPUSIM_ASM2("or", float, a, b) }
IPUSIM_BI float __builtin_ipu_not_f32(float a) { IPUSIM_ASM1("not", float, a) }
IPUSIM_BI float2 __builtin_ipu_and_v2f32(float2 a, float2 b) { IPUSIM_ASM2("and64", float2, a, b) }
IPUSIM_BI float2 __builtin_ipu_andc_v2f32(float2 a, float2 b) { IPUSIM_ASM2("andc64", float2, a, b) }
IPUSIM_BI float2 __builtin_ipu_or_v2f32(float2 a, float2 b) { IPUSIM_ASM2("or64", float2, a, b) }
IPUSIM_BI float2 __builtin_ipu_not_v2f32(float2 a) { IPUSIM_ASM1("not64", float2, a) }
#else
#define IPUSIM_BITF(name, T, U, expr)                                                              \
  IPUSIM_BI T name(T a_, T b_) {                                                                   \
    U a = __builtin_bit_cast(U, a_), b = __builtin_bit_cast(U, b_);                                \
    return __builtin_bit_cast(T, (U)(expr));                                                       \
  }
IPUSIM_BITF(__builtin_ipu_and_f32, float, unsigned, a & b)
IPUSIM_BITF(__builtin_ipu_andc_f32, float, unsigned, a & ~b)
IPUSIM_BITF(__builtin_ipu_or_f32, float, unsigned, a | b)
IPUSIM_BITF(__builtin_ipu_and_v2f32, float2, uint2, a & b)
IPUSIM_BITF(__builtin_ipu_andc_v2f32, float2, uint2, a & ~b)
IPUSIM_BITF(__builtin_ipu_or_v2f32, float2, uint2, a | b)
#undef IPUSIM_BITF
IPUSIM_BI float __builtin_ipu_not_f32(float a) { return __builtin_bit_cast(float, ~__builtin_bit_cast(unsigned, a)); }
IPUSIM_BI float2 __builtin_ipu_not_v2f32(float2 a) { return __builtin_bit_cast(float2, ~__builtin_bit_cast(uint2, a)); }
#endif

/// Byte and bit shuffles on MRF values.
#ifdef __IPU__
IPUSIM_BI unsigned __builtin_ipu_bitrev8(unsigned a) { IPUSIM_ASM1("bitrev8", unsigned, a) }
IPUSIM_BI unsigned __builtin_ipu_cms(int a) { IPUSIM_ASM1("cms", unsigned, a) }
IPUSIM_BI unsigned __builtin_ipu_sort8(unsigned a) { IPUSIM_ASM1("sort8", unsigned, a) }
IPUSIM_BI unsigned __builtin_ipu_swap8(unsigned a) { IPUSIM_ASM1("swap8", unsigned, a) }
IPUSIM_BI unsigned __builtin_ipu_roll8l(unsigned a, unsigned b) { IPUSIM_ASM2("roll8l", unsigned, a, b) }
IPUSIM_BI unsigned __builtin_ipu_roll8r(unsigned a, unsigned b) { IPUSIM_ASM2("roll8r", unsigned, a, b) }
IPUSIM_BI unsigned __builtin_ipu_shuf8x8hi(unsigned a, unsigned b) { IPUSIM_ASM2("shuf8x8hi", unsigned, a, b) }
IPUSIM_BI unsigned __builtin_ipu_shuf8x8lo(unsigned a, unsigned b) { IPUSIM_ASM2("shuf8x8lo", unsigned, a, b) }
IPUSIM_BI unsigned __builtin_ipu_sort8x8hi(unsigned a, unsigned b) { IPUSIM_ASM2("sort8x8hi", unsigned, a, b) }
IPUSIM_BI unsigned __builtin_ipu_sort8x8lo(unsigned a, unsigned b) { IPUSIM_ASM2("sort8x8lo", unsigned, a, b) }
IPUSIM_BI float2 __builtin_ipu_roll32(float2 a, float2 b) { IPUSIM_ASM2("roll32", float2, a, b) }
IPUSIM_BI float2 __builtin_ipu_sort4x32hi(float2 a, float2 b) { IPUSIM_ASM2("sort4x32hi", float2, a, b) }
IPUSIM_BI float2 __builtin_ipu_sort4x32lo(float2 a, float2 b) { IPUSIM_ASM2("sort4x32lo", float2, a, b) }
#else
// Host: the semantics as the public ISA documentation describes them.
IPUSIM_BI unsigned __builtin_ipu_bitrev8(unsigned a) {
  unsigned r = 0;
  for (int byte = 0; byte < 4; ++byte)
    for (int bit = 0; bit < 8; ++bit)
      r |= ((a >> (8 * byte + bit)) & 1u) << (8 * byte + 7 - bit);
  return r;
}
IPUSIM_BI unsigned __builtin_ipu_cms(int a) { return (unsigned)(a < 0 ? -a : a); }
IPUSIM_BI unsigned __builtin_ipu_swap8(unsigned a) {
  return ((a & 0x00ff00ffu) << 8) | ((a >> 8) & 0x00ff00ffu);
}
IPUSIM_BI unsigned __builtin_ipu_sort8(unsigned a) { return (a & 0xffu) | ((a >> 8) & 0xff00u); }
IPUSIM_BI unsigned __builtin_ipu_roll8l(unsigned a, unsigned b) { return (a << 8) | (b >> 24); }
IPUSIM_BI unsigned __builtin_ipu_roll8r(unsigned a, unsigned b) { return (a >> 8) | (b << 24); }
IPUSIM_BI unsigned __builtin_ipu_shuf8x8lo(unsigned a, unsigned b) {
  return (a & 0xffu) | ((b & 0xffu) << 8) | (((a >> 8) & 0xffu) << 16) | (((b >> 8) & 0xffu) << 24);
}
IPUSIM_BI unsigned __builtin_ipu_shuf8x8hi(unsigned a, unsigned b) {
  return __builtin_ipu_shuf8x8lo(a >> 16, b >> 16);
}
IPUSIM_BI unsigned __builtin_ipu_sort8x8lo(unsigned a, unsigned b) {
  return (a & 0xffu) | (((a >> 16) & 0xffu) << 8) | ((b & 0xffu) << 16) | (((b >> 16) & 0xffu) << 24);
}
IPUSIM_BI unsigned __builtin_ipu_sort8x8hi(unsigned a, unsigned b) { return __builtin_ipu_sort8x8lo(a >> 8, b >> 8); }
IPUSIM_BI float2 __builtin_ipu_roll32(float2 a, float2 b) { float2 r = {a[1], b[0]}; return r; }
IPUSIM_BI float2 __builtin_ipu_sort4x32lo(float2 a, float2 b) { float2 r = {a[0], b[0]}; return r; }
IPUSIM_BI float2 __builtin_ipu_sort4x32hi(float2 a, float2 b) { float2 r = {a[1], b[1]}; return r; }
#endif

// ---------------------------------------------------------------------------------------------
// Floating-point instructions
// ---------------------------------------------------------------------------------------------

// Element-wise binary operations: absadd (|a|+|b|), absmax (max(|a|,|b|)), max, min.
#ifdef __IPU__
#define IPUSIM_FBIN(op)                                                                            \
  IPUSIM_BI half2 __builtin_ipu_f16v2##op(half2 a, half2 b) { IPUSIM_ASM2("f16v2" #op, half2, a, b) } \
  IPUSIM_BI half4 __builtin_ipu_f16v4##op(half4 a, half4 b) { IPUSIM_ASM2("f16v4" #op, half4, a, b) } \
  IPUSIM_BI float2 __builtin_ipu_f32v2##op(float2 a, float2 b) { IPUSIM_ASM2("f32v2" #op, float2, a, b) } \
  IPUSIM_BI float __builtin_ipu_f32##op(float a, float b) { IPUSIM_ASM2("f32" #op, float, a, b) }
#else
#define IPUSIM_FBIN_HOST(op, expr)                                                                 \
  IPUSIM_BI half2 __builtin_ipu_f16v2##op(half2 a, half2 b) { return expr; }                       \
  IPUSIM_BI half4 __builtin_ipu_f16v4##op(half4 a, half4 b) { return expr; }                       \
  IPUSIM_BI float2 __builtin_ipu_f32v2##op(float2 a, float2 b) { return expr; }                    \
  IPUSIM_BI float __builtin_ipu_f32##op(float a, float b) { return expr; }
#define IPUSIM_FBIN(op) IPUSIM_FBIN_##op
#define IPUSIM_FBIN_absadd IPUSIM_FBIN_HOST(absadd, __builtin_elementwise_abs(a) + __builtin_elementwise_abs(b))
#define IPUSIM_FBIN_absmax IPUSIM_FBIN_HOST(absmax, __builtin_elementwise_max(__builtin_elementwise_abs(a), __builtin_elementwise_abs(b)))
#define IPUSIM_FBIN_max IPUSIM_FBIN_HOST(max, __builtin_elementwise_max(a, b))
#define IPUSIM_FBIN_min IPUSIM_FBIN_HOST(min, __builtin_elementwise_min(a, b))
#endif
IPUSIM_FBIN(absadd)
IPUSIM_FBIN(absmax)
IPUSIM_FBIN(max)
IPUSIM_FBIN(min)

// Comparisons: each lane all-ones when true, zero when false (in the operand's type).
#ifdef __IPU__
#define IPUSIM_FCMP(op, cop) IPUSIM_FBIN(op)
#else
#define IPUSIM_FCMP(op, cop)                                                                       \
  IPUSIM_BI half2 __builtin_ipu_f16v2##op(half2 a, half2 b) { return __builtin_bit_cast(half2, (short2)(a cop b)); } \
  IPUSIM_BI half4 __builtin_ipu_f16v4##op(half4 a, half4 b) { return __builtin_bit_cast(half4, (short4)(a cop b)); } \
  IPUSIM_BI float2 __builtin_ipu_f32v2##op(float2 a, float2 b) { return __builtin_bit_cast(float2, (int2)(a cop b)); } \
  IPUSIM_BI float __builtin_ipu_f32##op(float a, float b) { return __builtin_bit_cast(float, (a cop b) ? ~0u : 0u); }
#endif
IPUSIM_FCMP(cmpeq, ==)
IPUSIM_FCMP(cmpge, >=)
IPUSIM_FCMP(cmpgt, >)
IPUSIM_FCMP(cmple, <=)
IPUSIM_FCMP(cmplt, <)
IPUSIM_FCMP(cmpne, !=)
#undef IPUSIM_FCMP
#undef IPUSIM_FBIN

/// clamp(a, {lo, hi}): f16v2clamp / f16v4clamp (limits in one half2) / f32v2clamp (limits per
/// lane pair as float2 {lo, hi}) / f32clamp (limits float2 {lo, hi}).
#ifdef __IPU__
IPUSIM_BI half2 __builtin_ipu_f16v2clamp(half2 a, half2 lim) { IPUSIM_ASM2("f16v2clamp", half2, a, lim) }
IPUSIM_BI half4 __builtin_ipu_f16v4clamp(half4 a, half2 lim) { IPUSIM_ASM2("f16v4clamp", half4, a, lim) }
IPUSIM_BI float2 __builtin_ipu_f32v2clamp(float2 a, float2 lim) { IPUSIM_ASM2("f32v2clamp", float2, a, lim) }
IPUSIM_BI float __builtin_ipu_f32clamp(float a, float2 lim) { IPUSIM_ASM2("f32clamp", float, a, lim) }
#else
IPUSIM_BI half2 __builtin_ipu_f16v2clamp(half2 a, half2 lim) {
  return __builtin_elementwise_min(__builtin_elementwise_max(a, half2{lim[0], lim[0]}), half2{lim[1], lim[1]});
}
IPUSIM_BI half4 __builtin_ipu_f16v4clamp(half4 a, half2 lim) {
  return __builtin_elementwise_min(__builtin_elementwise_max(a, half4{lim[0], lim[0], lim[0], lim[0]}), half4{lim[1], lim[1], lim[1], lim[1]});
}
IPUSIM_BI float2 __builtin_ipu_f32v2clamp(float2 a, float2 lim) {
  return __builtin_elementwise_min(__builtin_elementwise_max(a, float2{lim[0], lim[0]}), float2{lim[1], lim[1]});
}
IPUSIM_BI float __builtin_ipu_f32clamp(float a, float2 lim) {
  return __builtin_elementwise_min(__builtin_elementwise_max(a, lim[0]), lim[1]);
}
#endif

/// Transcendentals of the f16 unit (f16v2exp/exp2/ln/log2/sigm/tanh) and f32sigm / f32tanh.
#ifdef __IPU__
IPUSIM_BI half2 __builtin_ipu_f16v2exp(half2 a) { IPUSIM_ASM1("f16v2exp", half2, a) }
IPUSIM_BI half2 __builtin_ipu_f16v2exp2(half2 a) { IPUSIM_ASM1("f16v2exp2", half2, a) }
IPUSIM_BI half2 __builtin_ipu_f16v2ln(half2 a) { IPUSIM_ASM1("f16v2ln", half2, a) }
IPUSIM_BI half2 __builtin_ipu_f16v2log2(half2 a) { IPUSIM_ASM1("f16v2log2", half2, a) }
IPUSIM_BI half2 __builtin_ipu_f16v2sigm(half2 a) { IPUSIM_ASM1("f16v2sigm", half2, a) }
IPUSIM_BI half2 __builtin_ipu_f16v2tanh(half2 a) { IPUSIM_ASM1("f16v2tanh", half2, a) }
IPUSIM_BI float __builtin_ipu_f32sigm(float a) { IPUSIM_ASM1("f32sigm", float, a) }
IPUSIM_BI float __builtin_ipu_f32tanh(float a) { IPUSIM_ASM1("f32tanh", float, a) }
#else
#define IPUSIM_F16V2_HOST(name, expr)                                                              \
  IPUSIM_BI half2 __builtin_ipu_f16v2##name(half2 a) {                                             \
    half2 r;                                                                                       \
    for (int i = 0; i < 2; ++i) {                                                                  \
      float x = (float)a[i];                                                                       \
      r[i] = (half)(expr);                                                                         \
    }                                                                                              \
    return r;                                                                                      \
  }
IPUSIM_F16V2_HOST(exp, __builtin_expf(x))
IPUSIM_F16V2_HOST(exp2, __builtin_exp2f(x))
IPUSIM_F16V2_HOST(ln, __builtin_logf(x))
IPUSIM_F16V2_HOST(log2, __builtin_log2f(x))
IPUSIM_F16V2_HOST(sigm, 1.0f / (1.0f + __builtin_expf(-x)))
IPUSIM_F16V2_HOST(tanh, __builtin_tanhf(x))
#undef IPUSIM_F16V2_HOST
IPUSIM_BI float __builtin_ipu_f32sigm(float a) { return 1.0f / (1.0f + __builtin_expf(-a)); }
IPUSIM_BI float __builtin_ipu_f32tanh(float a) { return __builtin_tanhf(a); }
#endif

/// Sums and maxima across lanes: f16v2sum (-> float), f16v4sum (-> float2 of pair sums),
/// f16v2maxc (-> half), f16v4maxc (-> half2).
#ifdef __IPU__
IPUSIM_BI float __builtin_ipu_f16v2sum(half2 a) { IPUSIM_ASM1("f16v2sum", float, a) }
IPUSIM_BI float2 __builtin_ipu_f16v4sum(half4 a) { IPUSIM_ASM1("f16v4sum", float2, a) }
IPUSIM_BI half __builtin_ipu_f16v2maxc(half2 a) { IPUSIM_ASM1("f16v2maxc", half, a) }
IPUSIM_BI half2 __builtin_ipu_f16v4maxc(half4 a) { IPUSIM_ASM1("f16v4maxc", half2, a) }
#else
IPUSIM_BI float __builtin_ipu_f16v2sum(half2 a) { return (float)a[0] + (float)a[1]; }
IPUSIM_BI float2 __builtin_ipu_f16v4sum(half4 a) {
  float2 r = {(float)a[0] + (float)a[1], (float)a[2] + (float)a[3]};
  return r;
}
IPUSIM_BI half __builtin_ipu_f16v2maxc(half2 a) { return a[0] > a[1] ? a[0] : a[1]; }
IPUSIM_BI half2 __builtin_ipu_f16v4maxc(half4 a) {
  half2 r = {a[0] > a[1] ? a[0] : a[1], a[2] > a[3] ? a[2] : a[3]};
  return r;
}
#endif

/// Classification (f16v2class / f32v2class -> short2, f32class -> int, f16v4class -> short4 from
/// two f16v2class).
#ifdef __IPU__
IPUSIM_BI short2 __builtin_ipu_f16v2class(half2 a) {
  float r;
  __asm__("f16v2class %0, %1" : "=r"(r) : "r"(a));
  return __builtin_bit_cast(short2, r);
}
IPUSIM_BI short2 __builtin_ipu_f32v2class(float2 a) {
  float r;
  __asm__("f32v2class %0, %1" : "=r"(r) : "r"(a));
  return __builtin_bit_cast(short2, r);
}
IPUSIM_BI int __builtin_ipu_f32class(float a) {
  float r;
  __asm__("f32class %0, %1" : "=r"(r) : "r"(a));
  return __builtin_bit_cast(int, r);
}
IPUSIM_BI short4 __builtin_ipu_f16v4class(half4 a) {
  short2 lo = __builtin_ipu_f16v2class(__builtin_shufflevector(a, a, 0, 1));
  short2 hi = __builtin_ipu_f16v2class(__builtin_shufflevector(a, a, 2, 3));
  return __builtin_shufflevector(lo, hi, 0, 1, 2, 3);
}
#endif

/// Accumulator (AACC) instructions: f16v2cmac / f16v4cmac (complex multiply-accumulate into the
/// accumulators), f32v2axpy (a*x + y through the accumulator pipeline, returns the previous
/// value), f32v2aop (outer product into the accumulators, flags immediate), f16v2gina /
/// f32v2gina (read accumulators, flags immediate). Worker only; no host model.
#ifdef __IPU__
IPUSIM_BI void __builtin_ipu_f16v2cmac(half2 a, half2 b) { __asm__ volatile("f16v2cmac %0, %1" : : "r"(a), "r"(b)); }
IPUSIM_BI void __builtin_ipu_f16v4cmac(half4 a, half4 b) { __asm__ volatile("f16v4cmac %0, %1" : : "r"(a), "r"(b)); }
IPUSIM_BI float2 __builtin_ipu_f32v2axpy(float2 a, float2 b) {
  float2 r;
  __asm__ volatile("f32v2axpy %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
IPUSIM_BI void __builtin_ipu_f32v2aop(float2 a, float2 b, const unsigned flags) {
  __asm__ volatile("f32v2aop %0, %1, %2" : : "r"(a), "r"(b), "i"(flags));
}
IPUSIM_BI half2 __builtin_ipu_f16v2gina(half2 a, const unsigned flags) {
  half2 r;
  __asm__ volatile("f16v2gina %0, %1, %2" : "=r"(r) : "r"(a), "i"(flags));
  return r;
}
IPUSIM_BI float2 __builtin_ipu_f32v2gina(float2 a, const unsigned flags) {
  float2 r;
  __asm__ volatile("f32v2gina %0, %1, %2" : "=r"(r) : "r"(a), "i"(flags));
  return r;
}
/// Random: f16v4rmask / f32v2rmask (zero lanes at random with the given probability),
/// f16v2grand / f32v2grand (Gaussian).
IPUSIM_BI half4 __builtin_ipu_f16v4rmask(half4 a, float p) {
  half4 r;
  __asm__ volatile("f16v4rmask %0, %1, %2" : "=r"(r) : "r"(a), "r"(p));
  return r;
}
IPUSIM_BI float2 __builtin_ipu_f32v2rmask(float2 a, float p) {
  float2 r;
  __asm__ volatile("f32v2rmask %0, %1, %2" : "=r"(r) : "r"(a), "r"(p));
  return r;
}
IPUSIM_BI half2 __builtin_ipu_f16v2grand(void) {
  half2 r;
  __asm__ volatile("f16v2grand %0" : "=r"(r));
  return r;
}
IPUSIM_BI float2 __builtin_ipu_f32v2grand(void) {
  float2 r;
  __asm__ volatile("f32v2grand %0" : "=r"(r));
  return r;
}
#endif

/// isnan / isinf / isfinite per lane (-1 true, 0 false), as plain C the backend selects.
IPUSIM_BI int __builtin_ipu_isnan_f32(float a) { return a != a; }
IPUSIM_BI int __builtin_ipu_isinf_f32(float a) { return __builtin_fabsf(a) == __builtin_huge_valf(); }
IPUSIM_BI int __builtin_ipu_isfinite_f32(float a) { return __builtin_fabsf(a) < __builtin_huge_valf(); }
IPUSIM_BI short2 __builtin_ipu_isnan_v2f16(half2 a) { return a != a; }
IPUSIM_BI short4 __builtin_ipu_isnan_v4f16(half4 a) { return a != a; }
IPUSIM_BI int2 __builtin_ipu_isnan_v2f32(float2 a) { return a != a; }
IPUSIM_BI short2 __builtin_ipu_isinf_v2f16(half2 a) { return __builtin_elementwise_abs(a) == half2{(half)__builtin_huge_valf(), (half)__builtin_huge_valf()}; }
IPUSIM_BI short4 __builtin_ipu_isinf_v4f16(half4 a) { return __builtin_elementwise_abs(a) == (half)__builtin_huge_valf(); }
IPUSIM_BI int2 __builtin_ipu_isinf_v2f32(float2 a) { return __builtin_elementwise_abs(a) == __builtin_huge_valf(); }
IPUSIM_BI short2 __builtin_ipu_isfinite_v2f16(half2 a) { return __builtin_elementwise_abs(a) < half2{(half)__builtin_huge_valf(), (half)__builtin_huge_valf()}; }
IPUSIM_BI short4 __builtin_ipu_isfinite_v4f16(half4 a) { return __builtin_elementwise_abs(a) < (half)__builtin_huge_valf(); }
IPUSIM_BI int2 __builtin_ipu_isfinite_v2f32(float2 a) { return __builtin_elementwise_abs(a) < __builtin_huge_valf(); }

// ---------------------------------------------------------------------------------------------
// C++: the overloaded names poplibs uses
// ---------------------------------------------------------------------------------------------
#ifdef __cplusplus
#define IPUSIM_OVL2(op)                                                                            \
  IPUSIM_BI half2 __builtin_ipu_##op(half2 a, half2 b) { return __builtin_ipu_f16v2##op(a, b); }   \
  IPUSIM_BI half4 __builtin_ipu_##op(half4 a, half4 b) { return __builtin_ipu_f16v4##op(a, b); }   \
  IPUSIM_BI float2 __builtin_ipu_##op(float2 a, float2 b) { return __builtin_ipu_f32v2##op(a, b); } \
  IPUSIM_BI float __builtin_ipu_##op(float a, float b) { return __builtin_ipu_f32##op(a, b); }
IPUSIM_OVL2(absadd)
IPUSIM_OVL2(absmax)
IPUSIM_OVL2(max)
IPUSIM_OVL2(min)
IPUSIM_OVL2(cmpeq)
IPUSIM_OVL2(cmpge)
IPUSIM_OVL2(cmpgt)
IPUSIM_OVL2(cmple)
IPUSIM_OVL2(cmplt)
IPUSIM_OVL2(cmpne)
#undef IPUSIM_OVL2
IPUSIM_BI half2 __builtin_ipu_clamp(half2 a, half2 lim) { return __builtin_ipu_f16v2clamp(a, lim); }
IPUSIM_BI half4 __builtin_ipu_clamp(half4 a, half2 lim) { return __builtin_ipu_f16v4clamp(a, lim); }
IPUSIM_BI float2 __builtin_ipu_clamp(float2 a, float2 lim) { return __builtin_ipu_f32v2clamp(a, lim); }
IPUSIM_BI float __builtin_ipu_clamp(float a, float2 lim) { return __builtin_ipu_f32clamp(a, lim); }
IPUSIM_BI half2 __builtin_ipu_exp(half2 a) { return __builtin_ipu_f16v2exp(a); }
IPUSIM_BI half2 __builtin_ipu_exp2(half2 a) { return __builtin_ipu_f16v2exp2(a); }
IPUSIM_BI half2 __builtin_ipu_ln(half2 a) { return __builtin_ipu_f16v2ln(a); }
IPUSIM_BI half2 __builtin_ipu_log2(half2 a) { return __builtin_ipu_f16v2log2(a); }
IPUSIM_BI half2 __builtin_ipu_sigm(half2 a) { return __builtin_ipu_f16v2sigm(a); }
IPUSIM_BI half2 __builtin_ipu_tanh(half2 a) { return __builtin_ipu_f16v2tanh(a); }
IPUSIM_BI float __builtin_ipu_sigm(float a) { return __builtin_ipu_f32sigm(a); }
IPUSIM_BI float __builtin_ipu_tanh(float a) { return __builtin_ipu_f32tanh(a); }
IPUSIM_BI float __builtin_ipu_exp(float a) { return __builtin_expf(a); }
IPUSIM_BI float __builtin_ipu_exp2(float a) { return __builtin_exp2f(a); }
IPUSIM_BI float __builtin_ipu_ln(float a) { return __builtin_logf(a); }
IPUSIM_BI float __builtin_ipu_log2(float a) { return __builtin_log2f(a); }
IPUSIM_BI half __builtin_ipu_exp(half a) { return __builtin_ipu_f16v2exp(half2{a, a})[0]; }
IPUSIM_BI half __builtin_ipu_exp2(half a) { return __builtin_ipu_f16v2exp2(half2{a, a})[0]; }
IPUSIM_BI half __builtin_ipu_ln(half a) { return __builtin_ipu_f16v2ln(half2{a, a})[0]; }
IPUSIM_BI half __builtin_ipu_log2(half a) { return __builtin_ipu_f16v2log2(half2{a, a})[0]; }
IPUSIM_BI float __builtin_ipu_sum(half2 a) { return __builtin_ipu_f16v2sum(a); }
IPUSIM_BI float2 __builtin_ipu_sum(half4 a) { return __builtin_ipu_f16v4sum(a); }
IPUSIM_BI half __builtin_ipu_maxc(half2 a) { return __builtin_ipu_f16v2maxc(a); }
IPUSIM_BI half2 __builtin_ipu_maxc(half4 a) { return __builtin_ipu_f16v4maxc(a); }
IPUSIM_BI float __builtin_ipu_and(float a, float b) { return __builtin_ipu_and_f32(a, b); }
IPUSIM_BI float2 __builtin_ipu_and(float2 a, float2 b) { return __builtin_ipu_and_v2f32(a, b); }
IPUSIM_BI float __builtin_ipu_andc(float a, float b) { return __builtin_ipu_andc_f32(a, b); }
IPUSIM_BI float2 __builtin_ipu_andc(float2 a, float2 b) { return __builtin_ipu_andc_v2f32(a, b); }
IPUSIM_BI float __builtin_ipu_or(float a, float b) { return __builtin_ipu_or_f32(a, b); }
IPUSIM_BI float2 __builtin_ipu_or(float2 a, float2 b) { return __builtin_ipu_or_v2f32(a, b); }
IPUSIM_BI float __builtin_ipu_not(float a) { return __builtin_ipu_not_f32(a); }
IPUSIM_BI float2 __builtin_ipu_not(float2 a) { return __builtin_ipu_not_v2f32(a); }
IPUSIM_BI int __builtin_ipu_isnan(float a) { return __builtin_ipu_isnan_f32(a); }
IPUSIM_BI short2 __builtin_ipu_isnan(half2 a) { return __builtin_ipu_isnan_v2f16(a); }
IPUSIM_BI short4 __builtin_ipu_isnan(half4 a) { return __builtin_ipu_isnan_v4f16(a); }
IPUSIM_BI int2 __builtin_ipu_isnan(float2 a) { return __builtin_ipu_isnan_v2f32(a); }
IPUSIM_BI int __builtin_ipu_isinf(float a) { return __builtin_ipu_isinf_f32(a); }
IPUSIM_BI short2 __builtin_ipu_isinf(half2 a) { return __builtin_ipu_isinf_v2f16(a); }
IPUSIM_BI short4 __builtin_ipu_isinf(half4 a) { return __builtin_ipu_isinf_v4f16(a); }
IPUSIM_BI int2 __builtin_ipu_isinf(float2 a) { return __builtin_ipu_isinf_v2f32(a); }
IPUSIM_BI int __builtin_ipu_isfinite(float a) { return __builtin_ipu_isfinite_f32(a); }
IPUSIM_BI short2 __builtin_ipu_isfinite(half2 a) { return __builtin_ipu_isfinite_v2f16(a); }
IPUSIM_BI short4 __builtin_ipu_isfinite(half4 a) { return __builtin_ipu_isfinite_v4f16(a); }
IPUSIM_BI int2 __builtin_ipu_isfinite(float2 a) { return __builtin_ipu_isfinite_v2f32(a); }
#ifdef __IPU__
IPUSIM_BI short2 __builtin_ipu_class(half2 a) { return __builtin_ipu_f16v2class(a); }
IPUSIM_BI short4 __builtin_ipu_class(half4 a) { return __builtin_ipu_f16v4class(a); }
IPUSIM_BI short2 __builtin_ipu_class(float2 a) { return __builtin_ipu_f32v2class(a); }
IPUSIM_BI int __builtin_ipu_class(float a) { return __builtin_ipu_f32class(a); }
IPUSIM_BI void __builtin_ipu_cmac(half2 a, half2 b) { __builtin_ipu_f16v2cmac(a, b); }
IPUSIM_BI void __builtin_ipu_cmac(half4 a, half4 b) { __builtin_ipu_f16v4cmac(a, b); }
IPUSIM_BI half4 __builtin_ipu_rmask(half4 a, float p) { return __builtin_ipu_f16v4rmask(a, p); }
IPUSIM_BI float2 __builtin_ipu_rmask(float2 a, float p) { return __builtin_ipu_f32v2rmask(a, p); }
#endif
#endif // __cplusplus

#ifdef __IPU__
#undef IPUSIM_ASM1
#undef IPUSIM_ASM2
#endif
#undef IPUSIM_BI

#endif // IPUSIM_IPU_BUILTINS_H
