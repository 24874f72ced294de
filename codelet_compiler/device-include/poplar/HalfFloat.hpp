// ipusim's <poplar/HalfFloat.hpp>: the 16-bit IEEE float type of codelets.
//
// On the IPU target (and on x86-64 hosts, where clang supports it natively) `half` is the
// built-in _Float16. ipu-cc passes -ffloat16-excess-precision=none, so half arithmetic is done in
// half precision, as the f16 instructions do it. The type is declared at global scope (codelets
// write plain `half`) and re-exported as poplar::half.
#ifndef IPUSIM_POPLAR_HALF_FLOAT_HPP
#define IPUSIM_POPLAR_HALF_FLOAT_HPP

#ifndef IPUSIM_HALF_DEFINED
#define IPUSIM_HALF_DEFINED
typedef _Float16 half;
#endif

#ifdef __cplusplus
namespace poplar {
using half = ::half;
} // namespace poplar
#endif

#endif // IPUSIM_POPLAR_HALF_FLOAT_HPP
