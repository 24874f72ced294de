// poplin's sum of depth partials (docs/poplin.md "Partials"): out = in[0] + in[1] + ... on each
// tile of the output, 64 bits a bundle in assembly.
#ifndef IPUSIM_POPLIN_PARTIALSUM_HPP
#define IPUSIM_POPLIN_PARTIALSUM_HPP

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

#include <string>

namespace poplin::detail {

/// out[i] = the sum over p of partials[p][i] (partials [parts][out's elements], float or half),
/// summed on each tile of `out` for the elements it holds.
void sumPartials(poplar::Graph &graph, const poplar::Tensor &partials, const poplar::Tensor &out,
                 poplar::program::Sequence &prog, const std::string &name);

} // namespace poplin::detail

#endif
