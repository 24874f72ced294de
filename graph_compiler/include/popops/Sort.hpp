// ipusim's Poplar SDK: popops' sorts along one dimension (docs/popops.md "Sorts and top k").
#ifndef IPUSIM_POPOPS_SORT_HPP
#define IPUSIM_POPOPS_SORT_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {

/// t with each 1-D slice along dim in ascending order (a new tensor).
poplar::Tensor sort(poplar::Graph &graph, const poplar::Tensor &t, unsigned dim, poplar::program::Sequence &prog,
                    const poplar::DebugContext &debugContext = {});
/// t's 1-D slices along dim put in ascending order in place.
void sortInPlace(poplar::Graph &graph, const poplar::Tensor &t, unsigned dim, poplar::program::Sequence &prog,
                 const poplar::DebugContext &debugContext = {});
/// v permuted as sorting k (same shape) along dim into ascending order would permute it; equal
/// keys keep their order.
poplar::Tensor sortKeyValue(poplar::Graph &graph, const poplar::Tensor &k, const poplar::Tensor &v, unsigned dim,
                            poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
/// k sorted along dim in place and v permuted the same way.
void sortKeyValueInPlace(poplar::Graph &graph, const poplar::Tensor &k, const poplar::Tensor &v, unsigned dim,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace popops

#endif
