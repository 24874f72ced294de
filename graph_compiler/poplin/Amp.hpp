// poplin's AMP kernels (docs/poplin.md "The AMP path"): the matrix-product block on a tile's
// accumulating matrix product unit, in assembly generated here, and the vertex that lays a block of
// the right-hand operand out in the order the AMP's weight registers load it.
#ifndef IPUSIM_POPLIN_AMP_HPP
#define IPUSIM_POPLIN_AMP_HPP

#include <poplar/Graph.hpp>

#include <string>
#include <vector>

namespace poplin::amp {

/// Which AMP instruction a product runs, by its input and partials types: f16v4hihov4amp (half,
/// half partials: 16 outputs a pass), f16v4sisoamp (half, float partials: 8) or f32sisov2amp
/// (float: 16).
struct Form {
  poplar::Type in, partials;
  bool valid() const {
    return (in == poplar::HALF && (partials == poplar::HALF || partials == poplar::FLOAT)) ||
           (in == poplar::FLOAT && partials == poplar::FLOAT);
  }
  /// Output channels a pass computes.
  unsigned outputs() const { return in == poplar::HALF && partials == poplar::FLOAT ? 8 : 16; }
  /// Input channels a pass takes: 16 halves (four phases of four) or 8 floats (eight of one).
  unsigned inputs() const { return in == poplar::HALF ? 16 : 8; }
  /// The longest input and output rows the vertex's 10-bit pace strides reach, in elements.
  unsigned maxRow() const { return partials == poplar::HALF ? 2040 : 1020; }
  /// The memory row of output channel `o` in a weight chunk: with 16 outputs the AMP's set A
  /// engine k feeds outputs 4(k/2) + k%2 and set B's engine k outputs 4(k/2) + 2 + k%2
  /// (docs/tile-timing.md "AMP"); with 8, engine k output k.
  unsigned rowOfOutput(unsigned o) const;
  /// The output channel weight row `r` holds (rowOfOutput's inverse).
  unsigned outputOfRow(unsigned r) const;
  /// `t` with its dimension `dim` (a pass's output channels in order) put in weight-row order.
  poplar::Tensor inRowOrder(const poplar::Tensor &t, unsigned dim) const;
  /// `t` with its dimension `dim` (weight rows) put in output-channel order.
  poplar::Tensor inOutputOrder(const poplar::Tensor &t, unsigned dim) const;
};

/// Positions (rows of the left operand) a vertex needs: each of the six workers takes at least
/// three, so that the AMP pipeline's warm-up, steady state and drain are one straight schedule.
constexpr unsigned kMinRows = 18;

/// The AMP product vertex of `form` (its output is of the partials type):
/// out[rows][cols] = the sum over taps t of a_t[rows][depth] x B_t, where a_t starts
/// tapOffsets[t] bytes into a (its rows `depth` elements apart) and the B_t are given as weights
/// in AMP order (weightsVertex; column chunks, then taps, then depth chunks). A matrix product
/// has one tap at offset 0; a convolution one a kernel position. Fields: a, w, out (ONE_PTR),
/// rows, depth, cols, passIn and passOut (the supervisor's, set to 0), tapOffsets.
std::string productVertex(poplar::Graph &graph, const Form &form);

/// Connects product vertex `v` (productVertex) on `tile`: its input rows `a`, weights `w` (in AMP
/// order), output `out`, sizes and tap offsets (bytes into a).
void connectProduct(poplar::Graph &graph, poplar::VertexRef v, unsigned tile, const poplar::Tensor &a,
                    const poplar::Tensor &w, const poplar::Tensor &out, std::size_t rows, std::size_t depth,
                    std::size_t cols, const std::vector<unsigned> &tapOffsets);

/// The vertex writing weight chunks in AMP order: for each chunk, `b` holds C rows of
/// form.outputs() columns of the right operand (C = form.inputs()), `w` the output channels' rows
/// of C in the AMP's engine order. Fields: b, w (ONE_PTR), chunks.
std::string weightsVertex(poplar::Graph &graph, const Form &form);

/// Cycles of the product vertex, for the planner: `rows` x `depth` x `cols` on one tile.
double productCycles(const Form &form, std::size_t rows, std::size_t depth, std::size_t cols);

} // namespace poplin::amp

#endif
