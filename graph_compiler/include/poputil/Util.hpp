// ipusim's Poplar SDK: poputil's utilities.
#ifndef IPUSIM_POPUTIL_UTIL_HPP
#define IPUSIM_POPUTIL_UTIL_HPP

#include <poplar/Graph.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include <vector>

namespace poputil {

/// A new variable like `in` (shape, type, tile mapping) and a Copy of `in` into it appended to p.
poplar::Tensor duplicate(poplar::Graph &graph, const poplar::Tensor &in, poplar::program::Sequence &p,
                         const poplar::DebugContext &debugContext = {},
                         poplar::TensorCloneMethod method = poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);
/// N clones of t stacked in a new outer dimension.
poplar::Tensor cloneN(poplar::Graph &graph, const poplar::Tensor &t, unsigned N,
                      const poplar::DebugContext &debugContext = {},
                      poplar::TensorCloneMethod method = poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);
/// A constant that can be mapped over several tiles like a variable.
poplar::Tensor createPartitionableConstant(poplar::Graph &graph, const poplar::Type &type,
                                           const std::vector<std::size_t> &shape, double value,
                                           const poplar::DebugContext &debugContext = {});
std::vector<poplar::Interval> mergeAdjacentRegions(const std::vector<poplar::Interval> &regions);
std::vector<poplar::Interval> flattenIntervals(const std::vector<std::vector<poplar::Interval>> &intervals);
std::size_t intervalSequenceNumElements(const std::vector<std::vector<poplar::Interval>> &seq);
std::vector<std::vector<poplar::Interval>> splitRegions(const std::vector<poplar::Interval> &regions, unsigned grainSize,
                                                         unsigned maxPartitions, unsigned minElementsPerPartition = 0,
                                                         unsigned maxElementsPerPartition = ~0u);
std::vector<std::vector<poplar::Interval>> splitRegionsBetweenWorkers(const poplar::Target &target,
                                                                       const std::vector<poplar::Interval> &regions,
                                                                       unsigned grainSize,
                                                                       unsigned minElementsPerPartition = 0);
std::vector<std::size_t> unflattenIndex(const std::vector<std::size_t> &shape, std::size_t index);
std::size_t flattenIndex(const std::vector<std::size_t> &shape, const std::vector<std::size_t> &indices);
std::vector<int> balancedPartition(int rangeUpperBound, int splitCount);

} // namespace poputil

#endif
