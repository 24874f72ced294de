// ipusim's Poplar SDK: popops' reduction operations (names as poplibs').
#ifndef IPUSIM_POPOPS_OPERATIONDEF_HPP
#define IPUSIM_POPOPS_OPERATIONDEF_HPP

namespace popops {
enum class Operation {
  ADD,
  MUL,
  MIN,
  MAX,
  LOGICAL_AND, ///< bool operands only
  LOGICAL_OR,  ///< bool operands only
  SQUARE_ADD,  ///< each element squared, then ADD
  LOG_ADD,     ///< acc = max + log(1 + exp(min - max)) of acc and the next element
};
} // namespace popops

#endif
