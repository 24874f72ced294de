// ipusim's Poplar SDK: popops' transposes of many small matrices in one compute set
// (docs/popops.md "Transposes").
#ifndef IPUSIM_POPOPS_REARRANGE_HPP
#define IPUSIM_POPOPS_REARRANGE_HPP

#include <poplar/Graph.hpp>
#include <poplar/Target.hpp>
#include <poplar/Type.hpp>

#include <functional>
#include <string>
#include <utility>

namespace popops {
namespace rearrange {

/// Whether the transposes of numTranspositions matrices of numRows x numColumns elements of
/// type run at the vertex's full rate (whole 64-bit words a row: float rows and columns even,
/// half multiples of 4).
bool canUseFastTranspose(const poplar::Target &target, const poplar::Type &type, unsigned numRows,
                         unsigned numColumns, unsigned numTranspositions);

/// Adds to cs, on each tile of `mapping` (tile -> intervals of matrix numbers), the vertices
/// that transpose the matrices there: getInOut(i) gives matrix i's input (rows x cols, flat)
/// and output (cols x rows, flat).
void addTransposeVertices(poplar::Graph &graph, const poplar::ComputeSet &cs, const poplar::Type &dType, unsigned rows,
                          unsigned cols, const poplar::Graph::TileToTensorMapping &mapping,
                          std::function<std::pair<const poplar::Tensor, const poplar::Tensor>(std::size_t)> getInOut);

/// A new tensor of in with its two innermost dimensions transposed, written by vertices of cs on
/// the tiles that hold each matrix of in (a matrix's output on the tile of its first element).
poplar::Tensor partialTranspose(poplar::Graph &graph, const poplar::Tensor &in, const poplar::ComputeSet &cs,
                                const poplar::DebugContext &debugContext = {});

/// The smallest group of elements a fast transpose moves: 4 halves or 2 floats (one 64-bit word).
unsigned getMinimumRegroupGrainSize(const poplar::Type &type);

} // namespace rearrange
} // namespace popops

#endif
