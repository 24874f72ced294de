// ipusim's Poplar SDK: popops' gathers (docs/popops.md "Gathers"), built on the multi-slice.
#ifndef IPUSIM_POPOPS_GATHER_HPP
#define IPUSIM_POPOPS_GATHER_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include <cstddef>
#include <vector>

namespace popops {

/// How a gather on one axis lays its input out: at most maxElementsPerTile of the gathered
/// axis a tile (the multi-slice plan's row blocks).
struct GatherParams {
  std::size_t maxElementsPerTile = 65535;
  GatherParams() = default;
  GatherParams(std::size_t maxElementsPerTile_) : maxElementsPerTile(maxElementsPerTile_) {}
};

/// A tensor of shape operandShape laid out for gather() on `axis`.
poplar::Tensor createGatherInput(poplar::Graph &graph, const poplar::Type &type,
                                 const std::vector<std::size_t> &operandShape, unsigned axis, GatherParams params = {},
                                 const poplar::DebugContext &debugContext = {});

/// The slices of `input` at `indices` (unsigned or int, any shape; clamped into the axis) on
/// `axis`: input's shape with dimension `axis` the number of indices, in the indices' flat order.
poplar::Tensor gather(poplar::Graph &graph, const poplar::Tensor &input, const poplar::Tensor &indices, unsigned axis,
                      poplar::program::Sequence &prog, GatherParams params,
                      const poplar::DebugContext &debugContext = {});

/// A tensor of shape inputShape laid out for the general gather below.
poplar::Tensor createGatherInput(poplar::Graph &graph, const poplar::Type &type,
                                 const std::vector<std::size_t> &inputShape,
                                 const std::vector<std::size_t> &sliceSizes, std::vector<unsigned> startIndexMap,
                                 const poplar::DebugContext &debugContext = {});

/// XLA's gather: for each index vector of `indices` (dimension indexVectorDim; indices.rank()
/// for scalar indices), a slice of sliceSizes starting where startIndexMap places the vector's
/// entries (each clamped so the slice lies inside input), collapsedSliceDims (of size 1)
/// removed; the slice's dimensions are the output's offsetDims, the indices' others its rest.
poplar::Tensor gather(poplar::Graph &graph, const poplar::Tensor &input, const poplar::Tensor &indices,
                      std::size_t indexVectorDim, const std::vector<std::size_t> &offsetDims,
                      const std::vector<std::size_t> &sliceSizes, const std::vector<std::size_t> &collapsedSliceDims,
                      const std::vector<unsigned> &startIndexMap, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {});

} // namespace popops

#endif
