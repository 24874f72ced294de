// ipusim's Poplar SDK: popops' top k of the innermost dimension (docs/popops.md "Sorts and top k").
#ifndef IPUSIM_POPOPS_TOPK_HPP
#define IPUSIM_POPOPS_TOPK_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popops/SortOrder.hpp>

#include <iosfwd>
#include <utility>
#include <vector>

namespace popops {

struct TopKParams {
  /// How many of each innermost slice to keep (at most its size).
  unsigned k;
  /// The largest k (else the smallest).
  bool largest;
  /// The order of the k results (NONE: ipusim gives them largest- or smallest-first).
  SortOrder sortOrder;
  /// Equal values keep their order (ipusim's top k always does).
  bool stableSort;
  TopKParams(unsigned k, bool largest, SortOrder sortOrder, bool stableSort = false) noexcept;
};

std::ostream &operator<<(std::ostream &os, const TopKParams &p);

/// A tensor of `shape` laid out as topK works on it (whole innermost slices a tile).
poplar::Tensor createTopKInput(poplar::Graph &graph, const poplar::Type &type, const std::vector<std::size_t> &shape,
                               const TopKParams &params, const poplar::DebugContext &debugContext = {});

/// The top k of each innermost slice of t: t's shape with k innermost.
poplar::Tensor topK(poplar::Graph &graph, poplar::program::Sequence &prog, const poplar::Tensor &t,
                    const TopKParams &params, const poplar::DebugContext &debugContext = {});

/// The top k of keys and the elements of values (same shape) at their places.
std::pair<poplar::Tensor, poplar::Tensor> topKKeyValue(poplar::Graph &graph, poplar::program::Sequence &prog,
                                                       const poplar::Tensor &keys, const poplar::Tensor &values,
                                                       const TopKParams &params,
                                                       const poplar::DebugContext &debugContext = {});

/// The top k of t and their indices (unsigned int) in t's innermost dimension.
std::pair<poplar::Tensor, poplar::Tensor> topKWithPermutation(poplar::Graph &graph, poplar::program::Sequence &prog,
                                                              const poplar::Tensor &t, const TopKParams &params,
                                                              const poplar::DebugContext &debugContext = {});

} // namespace popops

#endif
