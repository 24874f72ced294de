// ipusim's <ipudef.h>: the IPU's native short-vector types, as GCC-style vectors (`vector_size`):
// element access v[i], element-wise operators with scalars broadcast, __builtin_shufflevector,
// and reinterpret_cast to and from a scalar of the same size, which poplibs' codelets use
// (`reinterpret_cast<ushort2>(unsigned)`) and clang refuses for its extended vectors. A scalar
// is not cast to a vector: write half2{x, x}.
//
// 32-bit vectors (half2, char4, short2 ...) are 4-byte aligned and live in one ARF/MRF register;
// 64-bit vectors (half4, float2, short4, int2 ...) are 8-byte aligned and live in an even ARF
// register pair. The IPU's 128-bit types (half8, float4, int4 ...) are 8-byte aligned (the widest
// load, ld128, needs only 8-byte alignment), set through the typedefs' aligned attribute; they
// occupy an ARF quad.
#ifndef IPUSIM_IPUDEF_H
#define IPUSIM_IPUDEF_H

#include <poplar/HalfFloat.hpp>

#ifndef __ASSEMBLER__
#define IPUSIM_VEC(T, N) __attribute__((vector_size(N * sizeof(T))))
#define IPUSIM_VEC128(T, N) __attribute__((vector_size(N * sizeof(T)), aligned(8)))

typedef half half2 IPUSIM_VEC(half, 2);
typedef half half4 IPUSIM_VEC(half, 4);
typedef half half8 IPUSIM_VEC128(half, 8);
typedef float float2 IPUSIM_VEC(float, 2);
typedef float float4 IPUSIM_VEC128(float, 4);
typedef char char2 IPUSIM_VEC(char, 2);
typedef char char4 IPUSIM_VEC(char, 4);
typedef unsigned char uchar2 IPUSIM_VEC(unsigned char, 2);
typedef unsigned char uchar4 IPUSIM_VEC(unsigned char, 4);
typedef short short2 IPUSIM_VEC(short, 2);
typedef short short4 IPUSIM_VEC(short, 4);
typedef unsigned short ushort2 IPUSIM_VEC(unsigned short, 2);
typedef unsigned short ushort4 IPUSIM_VEC(unsigned short, 4);
typedef int int2 IPUSIM_VEC(int, 2);
typedef int int4 IPUSIM_VEC128(int, 4);
typedef unsigned int uint2 IPUSIM_VEC(unsigned int, 2);
typedef unsigned int uint4 IPUSIM_VEC128(unsigned int, 4);
typedef long long2 IPUSIM_VEC(long, 2); // long is 32 bits on the IPU
typedef unsigned long ulong2 IPUSIM_VEC(unsigned long, 2);
typedef long long4 IPUSIM_VEC128(long, 4);
typedef unsigned long ulong4 IPUSIM_VEC128(unsigned long, 4);

#undef IPUSIM_VEC
#undef IPUSIM_VEC128

/// A repeat count: $REPEAT_COUNT's width (__IPU_REPEAT_COUNT_SIZE__, 16 bits on Mk2). poplibs
/// declares its rpt loop counters so. [I] an unsigned integer of that width (the SDK's is an
/// arbitrary-precision integer type of the same width).
typedef unsigned short rptsize_t;

#if defined(__cplusplus)
/// `1.5_h`: a half literal.
constexpr half operator""_h(long double x) { return static_cast<half>(x); }
#endif
#endif // __ASSEMBLER__

#endif // IPUSIM_IPUDEF_H
