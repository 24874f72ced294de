// ipusim's Poplar SDK: popops' slices at offsets known only when the program runs (docs/popops.md).
#ifndef IPUSIM_POPOPS_DYNAMICSLICE_HPP
#define IPUSIM_POPOPS_DYNAMICSLICE_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include <vector>

namespace popops {

/// t's elements [offset, offset + size) of dimension dims[0] (sizes[0] of them), the offset read
/// from the tensor `offset` (one unsigned int) when the program runs; indices past the end wrap
/// around. ipusim slices one dimension per call.
poplar::Tensor dynamicSlice(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &offset,
                            const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                            poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                            const poplar::OptionFlags &options = {});
/// t's elements at [offset, offset + size) of dimension dims[0] set from s (wrapping as above).
void dynamicUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s,
                   const poplar::Tensor &offset, const std::vector<std::size_t> &dims,
                   const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                   const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});

} // namespace popops

#endif
