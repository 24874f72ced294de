// poplin's sum of depth partials (docs/poplin.md "Partials"): out = in[0] + in[1] + ... on each
// tile of the output, 64 bits a bundle in assembly.
#ifndef IPUSIM_POPLIN_PARTIALSUM_HPP
#define IPUSIM_POPLIN_PARTIALSUM_HPP

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

#include <string>

namespace poplin::detail {

/// A worker's bundles to sum partials of `vectors` 64-bit vectors (its share of a tile's
/// output): the vector vertex about 12 of set-up a pass and one a vector, over `passes` passes;
/// the deep vertex about 11 a vector and 2 a vector per part. sumPartials takes the cheaper on
/// each tile and the product planner counts the same.
inline double vectorVertexBundles(double passes, double vectors) { return passes * (12 + vectors); }
inline double deepVertexBundles(double parts, double vectors) { return vectors * (11 + 2 * parts); }

/// out[i] = the sum over p of partials[p][i] (partials [parts][out's elements], float or half),
/// summed on each tile of `out` for the elements it holds: one vertex a tile, its operands
/// gathered where they are not contiguous; with `apart`, the runs of the tile's elements that lie
/// contiguous in the output and in every partial (partials with gaps between their runs, that
/// would otherwise be copied together first) summed apart: a tile of several runs as up to six
/// one-worker vertices of near-equal vectors, side by side on the workers.
void sumPartials(poplar::Graph &graph, const poplar::Tensor &partials, const poplar::Tensor &out,
                 poplar::program::Sequence &prog, const std::string &name, bool apart = false);

} // namespace poplin::detail

#endif
