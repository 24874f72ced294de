// ipusim's Poplar SDK: popops::Operation and its names.
#ifndef IPUSIM_POPOPS_OPERATION_HPP
#define IPUSIM_POPOPS_OPERATION_HPP

#include <popops/OperationDef.hpp>

#include <iosfwd>
#include <string>

namespace popops {
std::istream &operator>>(std::istream &is, Operation &op);
std::ostream &operator<<(std::ostream &os, const Operation &op);
} // namespace popops

#endif
