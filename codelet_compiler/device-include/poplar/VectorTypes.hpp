// ipusim's <poplar/VectorTypes.hpp>: the short-vector types (half2, half4, float2 ...) of
// <ipudef.h>, also usable as poplar::half2 etc.
#ifndef IPUSIM_POPLAR_VECTOR_TYPES_HPP
#define IPUSIM_POPLAR_VECTOR_TYPES_HPP

#include <ipudef.h>
#include <poplar/HalfFloat.hpp>

namespace poplar {
using ::char2;
using ::char4;
using ::float2;
using ::float4;
using ::half2;
using ::half4;
using ::half8;
using ::int2;
using ::int4;
using ::short2;
using ::short4;
using ::uchar2;
using ::uchar4;
using ::uint2;
using ::uint4;
using ::ushort2;
using ::ushort4;
} // namespace poplar

#endif // IPUSIM_POPLAR_VECTOR_TYPES_HPP
