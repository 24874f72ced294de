// poplin's matrix products as the convolutions use them (docs/poplin.md "Convolutions as
// products").
#ifndef IPUSIM_POPLIN_MATMULDETAIL_HPP
#define IPUSIM_POPLIN_MATMULDETAIL_HPP

#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>

#include <string>

namespace poplin::detail {

/// The output [g][m][n] of the product of a [g][m][k] operand made by
/// createMatMulGroupedInputLHS and a [g][k][n] one, laid out as matMulGrouped would lay it out.
poplar::Tensor createProductOutput(poplar::Graph &graph, const poplar::Type &inputType, const poplar::Type &outputType,
                                   std::size_t g, std::size_t m, std::size_t k, std::size_t n,
                                   const poplar::OptionFlags &options, const std::string &name);

} // namespace poplin::detail

#endif
