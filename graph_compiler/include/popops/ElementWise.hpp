// ipusim's Poplar SDK: popops' element-wise operations. Each call compiles its whole expression
// into one vertex type (a MultiVertex generated as C++ and compiled by ipu-cc, once per
// expression and types) and adds one compute set to the program: on every tile that holds part
// of the output, vertices over that tile's regions (docs/popops.md). Operands broadcast as
// numpy's do; operands held elsewhere reach the output's tiles through the exchange.
#ifndef IPUSIM_POPOPS_ELEMENTWISE_HPP
#define IPUSIM_POPOPS_ELEMENTWISE_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popops/Expr.hpp>

#include <vector>

namespace popops {

/// The result of `expr` over the tensors `ts` (placeholder _n is ts[n-1]), a new tensor mapped
/// like the first operand of the result's shape (else linearly).
poplar::Tensor map(poplar::Graph &graph, const expr::Expr &expr, const std::vector<poplar::Tensor> &ts,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                   const poplar::OptionFlags &options = {});
/// `expr` written into ts[0] (which must have the result's shape and type).
void mapInPlace(poplar::Graph &graph, const expr::Expr &expr, const std::vector<poplar::Tensor> &ts,
                poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                const poplar::OptionFlags &options = {});
/// `expr` written into `out`.
void mapWithOutput(poplar::Graph &graph, const expr::Expr &expr, const std::vector<poplar::Tensor> &ts,
                   const poplar::Tensor &out, poplar::program::Sequence &prog,
                   const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

inline poplar::Tensor map(poplar::Graph &graph, expr::UnaryOpType op, const poplar::Tensor &t,
                          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {}) {
  return map(graph, expr::UnaryOp(op, expr::_1), {t}, prog, debugContext, options);
}
inline poplar::Tensor map(poplar::Graph &graph, expr::BinaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  return map(graph, expr::BinaryOp(op, expr::_1, expr::_2), {a, b}, prog, debugContext, options);
}
inline poplar::Tensor map(poplar::Graph &graph, expr::TernaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, const poplar::Tensor &c, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  return map(graph, expr::TernaryOp(op, expr::_1, expr::_2, expr::_3), {a, b, c}, prog, debugContext, options);
}
inline void mapInPlace(poplar::Graph &graph, expr::UnaryOpType op, const poplar::Tensor &t,
                       poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                       const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::UnaryOp(op, expr::_1), {t}, prog, debugContext, options);
}
inline void mapInPlace(poplar::Graph &graph, expr::BinaryOpType op, const poplar::Tensor &a, const poplar::Tensor &b,
                       poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                       const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::BinaryOp(op, expr::_1, expr::_2), {a, b}, prog, debugContext, options);
}
inline void mapInPlace(poplar::Graph &graph, expr::TernaryOpType op, const poplar::Tensor &a, const poplar::Tensor &b,
                       const poplar::Tensor &c, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::TernaryOp(op, expr::_1, expr::_2, expr::_3), {a, b, c}, prog, debugContext, options);
}
inline void mapWithOutput(poplar::Graph &graph, expr::UnaryOpType op, const poplar::Tensor &t,
                          const poplar::Tensor &out, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::UnaryOp(op, expr::_1), {t}, out, prog, debugContext, options);
}
inline void mapWithOutput(poplar::Graph &graph, expr::BinaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, const poplar::Tensor &out, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::BinaryOp(op, expr::_1, expr::_2), {a, b}, out, prog, debugContext, options);
}
inline void mapWithOutput(poplar::Graph &graph, expr::TernaryOpType op, const poplar::Tensor &a,
                          const poplar::Tensor &b, const poplar::Tensor &c, const poplar::Tensor &out,
                          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {}) {
  mapWithOutput(graph, expr::TernaryOp(op, expr::_1, expr::_2, expr::_3), {a, b, c}, out, prog, debugContext,
                options);
}

// The named operations: for each, NAME(graph, A, prog), NAMEInPlace and NAMEWithOutput (unary);
// NAME(graph, A, B, prog) with B or A a host constant too (binary).
#define IPUSIM_POPOPS_UNARY_FN(fn, Op)                                                                       \
  inline poplar::Tensor fn(poplar::Graph &graph, const poplar::Tensor &A, poplar::program::Sequence &prog,   \
                           const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) { \
    return map(graph, expr::UnaryOpType::Op, A, prog, debugContext, options);                                \
  }                                                                                                          \
  inline void fn##InPlace(poplar::Graph &graph, const poplar::Tensor &A, poplar::program::Sequence &prog,    \
                          const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) { \
    mapInPlace(graph, expr::UnaryOpType::Op, A, prog, debugContext, options);                                \
  }                                                                                                          \
  inline void fn##WithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &out,       \
                             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {}, \
                             const poplar::OptionFlags &options = {}) {                                      \
    mapWithOutput(graph, expr::UnaryOpType::Op, A, out, prog, debugContext, options);                        \
  }

IPUSIM_POPOPS_UNARY_FN(abs, ABSOLUTE)
IPUSIM_POPOPS_UNARY_FN(asin, ASIN)
IPUSIM_POPOPS_UNARY_FN(bitwiseNot, BITWISE_NOT)
IPUSIM_POPOPS_UNARY_FN(cbrt, CBRT)
IPUSIM_POPOPS_UNARY_FN(ceil, CEIL)
IPUSIM_POPOPS_UNARY_FN(cos, COS)
IPUSIM_POPOPS_UNARY_FN(countLeadingZeros, COUNT_LEADING_ZEROS)
IPUSIM_POPOPS_UNARY_FN(erf, ERF)
IPUSIM_POPOPS_UNARY_FN(exp, EXPONENT)
IPUSIM_POPOPS_UNARY_FN(expm1, EXPONENT_MINUS_ONE)
IPUSIM_POPOPS_UNARY_FN(exp2, EXPONENT2)
IPUSIM_POPOPS_UNARY_FN(floor, FLOOR)
IPUSIM_POPOPS_UNARY_FN(geluErf, GELU_ERF)
IPUSIM_POPOPS_UNARY_FN(inv, INVERSE)
IPUSIM_POPOPS_UNARY_FN(isFinite, IS_FINITE)
IPUSIM_POPOPS_UNARY_FN(isInf, IS_INF)
IPUSIM_POPOPS_UNARY_FN(isNaN, IS_NAN)
IPUSIM_POPOPS_UNARY_FN(log, LOGARITHM)
IPUSIM_POPOPS_UNARY_FN(log1p, LOGARITHM_ONE_PLUS)
IPUSIM_POPOPS_UNARY_FN(logicalNot, LOGICAL_NOT)
IPUSIM_POPOPS_UNARY_FN(neg, NEGATE)
IPUSIM_POPOPS_UNARY_FN(nearbyInt, NEARBY_INT)
IPUSIM_POPOPS_UNARY_FN(popcount, POPCOUNT)
IPUSIM_POPOPS_UNARY_FN(relu, RELU)
IPUSIM_POPOPS_UNARY_FN(signum, SIGNUM)
IPUSIM_POPOPS_UNARY_FN(sin, SIN)
IPUSIM_POPOPS_UNARY_FN(tan, TAN)
IPUSIM_POPOPS_UNARY_FN(tanh, TANH)
IPUSIM_POPOPS_UNARY_FN(round, ROUND)
IPUSIM_POPOPS_UNARY_FN(trunc, TRUNC)
IPUSIM_POPOPS_UNARY_FN(sqrt, SQRT)
IPUSIM_POPOPS_UNARY_FN(square, SQUARE)
IPUSIM_POPOPS_UNARY_FN(sigmoid, SIGMOID)
IPUSIM_POPOPS_UNARY_FN(rsqrt, RSQRT)

#define IPUSIM_POPOPS_BINARY_FN(fn, Op)                                                                      \
  inline poplar::Tensor fn(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,           \
                           poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},   \
                           const poplar::OptionFlags &options = {}) {                                        \
    return map(graph, expr::BinaryOpType::Op, A, B, prog, debugContext, options);                            \
  }                                                                                                          \
  template <typename C, typename = typename std::enable_if<poplar::TypeTraits::isSimpleType<C>()>::type>     \
  inline poplar::Tensor fn(poplar::Graph &graph, const poplar::Tensor &A, const C B,                         \
                           poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},   \
                           const poplar::OptionFlags &options = {}) {                                        \
    return map(graph, expr::BinaryOp(expr::BinaryOpType::Op, expr::_1, expr::Const(B)), {A}, prog,           \
               debugContext, options);                                                                       \
  }                                                                                                          \
  template <typename C, typename = typename std::enable_if<poplar::TypeTraits::isSimpleType<C>()>::type>     \
  inline poplar::Tensor fn(poplar::Graph &graph, const C A, const poplar::Tensor &B,                         \
                           poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},   \
                           const poplar::OptionFlags &options = {}) {                                        \
    return map(graph, expr::BinaryOp(expr::BinaryOpType::Op, expr::Const(A), expr::_1), {B}, prog,           \
               debugContext, options);                                                                       \
  }                                                                                                          \
  inline void fn##InPlace(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,            \
                          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},    \
                          const poplar::OptionFlags &options = {}) {                                         \
    mapInPlace(graph, expr::BinaryOpType::Op, A, B, prog, debugContext, options);                            \
  }                                                                                                          \
  template <typename C, typename = typename std::enable_if<poplar::TypeTraits::isSimpleType<C>()>::type>     \
  inline void fn##InPlace(poplar::Graph &graph, const poplar::Tensor &A, const C B,                          \
                          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},    \
                          const poplar::OptionFlags &options = {}) {                                         \
    mapInPlace(graph, expr::BinaryOp(expr::BinaryOpType::Op, expr::_1, expr::Const(B)), {A}, prog,           \
               debugContext, options);                                                                       \
  }                                                                                                          \
  inline void fn##WithOutput(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,         \
                             const poplar::Tensor &out, poplar::program::Sequence &prog,                     \
                             const poplar::DebugContext &debugContext = {},                                  \
                             const poplar::OptionFlags &options = {}) {                                      \
    mapWithOutput(graph, expr::BinaryOpType::Op, A, B, out, prog, debugContext, options);                    \
  }

IPUSIM_POPOPS_BINARY_FN(add, ADD)
IPUSIM_POPOPS_BINARY_FN(atan2, ATAN2)
IPUSIM_POPOPS_BINARY_FN(bitwiseAnd, BITWISE_AND)
IPUSIM_POPOPS_BINARY_FN(bitwiseOr, BITWISE_OR)
IPUSIM_POPOPS_BINARY_FN(bitwiseXor, BITWISE_XOR)
IPUSIM_POPOPS_BINARY_FN(bitwiseXnor, BITWISE_XNOR)
IPUSIM_POPOPS_BINARY_FN(div, DIVIDE)
IPUSIM_POPOPS_BINARY_FN(eq, EQUAL)
IPUSIM_POPOPS_BINARY_FN(gteq, GREATER_THAN_EQUAL)
IPUSIM_POPOPS_BINARY_FN(gt, GREATER_THAN)
IPUSIM_POPOPS_BINARY_FN(invStdDevToVariance, INV_STD_DEV_TO_VARIANCE)
IPUSIM_POPOPS_BINARY_FN(lteq, LESS_THAN_EQUAL)
IPUSIM_POPOPS_BINARY_FN(logicalAnd, LOGICAL_AND)
IPUSIM_POPOPS_BINARY_FN(logicalOr, LOGICAL_OR)
IPUSIM_POPOPS_BINARY_FN(lt, LESS_THAN)
IPUSIM_POPOPS_BINARY_FN(max, MAXIMUM)
IPUSIM_POPOPS_BINARY_FN(min, MINIMUM)
IPUSIM_POPOPS_BINARY_FN(mul, MULTIPLY)
IPUSIM_POPOPS_BINARY_FN(neq, NOT_EQUAL)
IPUSIM_POPOPS_BINARY_FN(pow, POWER)
IPUSIM_POPOPS_BINARY_FN(rem, REMAINDER)
IPUSIM_POPOPS_BINARY_FN(shiftLeft, SHIFT_LEFT)
IPUSIM_POPOPS_BINARY_FN(shiftRight, SHIFT_RIGHT)
IPUSIM_POPOPS_BINARY_FN(shiftRightSignExtend, SHIFT_RIGHT_SIGN_EXTEND)
IPUSIM_POPOPS_BINARY_FN(sub, SUBTRACT)
IPUSIM_POPOPS_BINARY_FN(varianceToInvStdDev, VARIANCE_TO_INV_STD_DEV)

#undef IPUSIM_POPOPS_UNARY_FN
#undef IPUSIM_POPOPS_BINARY_FN

/// C ? A : B element-wise (C of type bool).
inline poplar::Tensor select(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             const poplar::Tensor &C, poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  return map(graph, expr::TernaryOpType::SELECT, A, B, C, prog, debugContext, options);
}
inline void selectInPlace(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                          const poplar::Tensor &C, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::TernaryOpType::SELECT, A, B, C, prog, debugContext, options);
}
/// A limited to [B, C] element-wise.
inline poplar::Tensor clamp(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                            const poplar::Tensor &C, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  return map(graph, expr::TernaryOpType::CLAMP, A, B, C, prog, debugContext, options);
}
inline void clampInPlace(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                         const poplar::Tensor &C, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {}) {
  mapInPlace(graph, expr::TernaryOpType::CLAMP, A, B, C, prog, debugContext, options);
}

} // namespace popops

#endif
