// poplin's AMP kernels (docs/poplin.md "The AMP path"): the matrix-product block on a tile's
// accumulating matrix product unit, in assembly generated here, and the vertex that lays a block of
// the right-hand operand out in the order the AMP's weight registers load it.
#ifndef IPUSIM_POPLIN_AMP_HPP
#define IPUSIM_POPLIN_AMP_HPP

#include <poplar/Graph.hpp>

#include <string>

namespace poplin::amp {

/// Output channels a pass of the AMP computes (the 16-output forms f16v4hihov4amp, f32sisov2amp).
constexpr unsigned kOutputs = 16;

/// Input channels a pass takes: 16 halves (four phases of four) or 8 floats (eight phases of one).
inline unsigned inputsPerPass(const poplar::Type &t) { return t == poplar::HALF ? 16 : 8; }

/// Positions (rows of the left operand) a vertex needs: each of the six workers takes at least
/// three, so that the AMP pipeline's warm-up, steady state and drain are one straight schedule.
constexpr unsigned kMinRows = 18;

/// The longest rows the vertex's 10-bit pace strides reach, in elements.
inline unsigned maxRowElements(const poplar::Type &t) { return t == poplar::HALF ? 2040 : 1020; }

/// The AMP product vertex for `type` in and out (half with half partials, float with float):
/// out[rows][cols] = the sum over taps t of a_t[rows][depth] x B_t, where a_t starts
/// tapOffsets[t] bytes into a (its rows `depth` elements apart) and the B_t are given as weights
/// in AMP order (weightsVertex; column chunks, then taps, then depth chunks). A matrix product
/// has one tap at offset 0; a convolution one a kernel position. Fields: a, w, out (ONE_PTR),
/// rows, depth, cols, passIn and passOut (the supervisor's, set to 0), tapOffsets.
std::string productVertex(poplar::Graph &graph, const poplar::Type &type);

/// The vertex writing weight chunks in AMP order: for each chunk, `b` holds C rows of 16 columns of
/// the right operand (C = inputsPerPass), `w` the 16 output channels' rows of C in the AMP's engine
/// order. Fields: b, w (ONE_PTR), chunks.
std::string weightsVertex(poplar::Graph &graph, const poplar::Type &type);

/// The memory row of output channel `o` (0..15) in a weight chunk: the AMP's set A engine k feeds
/// outputs 4(k/2) + k%2 and set B's engine k outputs 4(k/2) + 2 + k%2 (docs/tile-timing.md "AMP").
unsigned weightRowOfOutput(unsigned o);

/// Cycles of the product vertex, for the planner: `rows` x `depth` x `cols` on one tile.
double productCycles(const poplar::Type &type, std::size_t rows, std::size_t depth, std::size_t cols);

} // namespace poplin::amp

#endif
