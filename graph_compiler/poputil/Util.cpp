#include <poputil/Util.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>

namespace poputil {

poplar::Tensor duplicate(poplar::Graph &graph, const poplar::Tensor &in, poplar::program::Sequence &p,
                         const poplar::DebugContext &dc, poplar::TensorCloneMethod method) {
  poplar::Tensor out = graph.clone(in, dc, method);
  p.add(poplar::program::Copy(in, out, false, dc));
  return out;
}

poplar::Tensor cloneN(poplar::Graph &graph, const poplar::Tensor &t, unsigned N, const poplar::DebugContext &dc,
                      poplar::TensorCloneMethod method) {
  return graph.cloneN(t, N, dc, method);
}

poplar::Tensor createPartitionableConstant(poplar::Graph &graph, const poplar::Type &type, const std::vector<std::size_t> &shape,
                                           double value, const poplar::DebugContext &dc) {
  // A constant is one variable like any other in ipusim: its elements may be mapped to any tiles.
  return graph.addConstant(type, shape, value, dc);
}

std::vector<poplar::Interval> mergeAdjacentRegions(const std::vector<poplar::Interval> &regions) {
  std::vector<poplar::Interval> out;
  for (const poplar::Interval &r : regions) {
    if (r.size() == 0) continue;
    if (!out.empty() && out.back().end() == r.begin()) out.back() = poplar::Interval(out.back().begin(), r.end());
    else out.push_back(r);
  }
  return out;
}

std::vector<poplar::Interval> flattenIntervals(const std::vector<std::vector<poplar::Interval>> &intervals) {
  std::vector<poplar::Interval> out;
  for (const auto &v : intervals) out.insert(out.end(), v.begin(), v.end());
  return out;
}

std::size_t intervalSequenceNumElements(const std::vector<std::vector<poplar::Interval>> &seq) {
  std::size_t n = 0;
  for (const auto &v : seq)
    for (const poplar::Interval &i : v) n += i.size();
  return n;
}

std::vector<std::vector<poplar::Interval>> splitRegions(const std::vector<poplar::Interval> &regions, unsigned grainSize,
                                                         unsigned maxPartitions, unsigned minElementsPerPartition,
                                                         unsigned maxElementsPerPartition) {
  grainSize = std::max(1u, grainSize);
  std::size_t total = 0;
  for (const poplar::Interval &r : regions) total += r.size();
  std::vector<std::vector<poplar::Interval>> out;
  if (!total || !maxPartitions) return out;
  const std::size_t grains = (total + grainSize - 1) / grainSize;
  std::size_t perPart = (grains + maxPartitions - 1) / maxPartitions * grainSize;
  perPart = std::max<std::size_t>(perPart, minElementsPerPartition);
  perPart = std::min<std::size_t>(perPart, maxElementsPerPartition);
  perPart = std::max<std::size_t>(perPart, 1);
  std::vector<poplar::Interval> current;
  std::size_t inCurrent = 0;
  for (const poplar::Interval &r : regions) {
    std::size_t at = r.begin();
    while (at < r.end()) {
      const std::size_t take = std::min(r.end() - at, perPart - inCurrent);
      current.push_back(poplar::Interval(at, at + take));
      at += take;
      inCurrent += take;
      if (inCurrent == perPart) {
        out.push_back(current);
        current.clear();
        inCurrent = 0;
      }
    }
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

std::vector<std::vector<poplar::Interval>> splitRegionsBetweenWorkers(const poplar::Target &target,
                                                                       const std::vector<poplar::Interval> &regions,
                                                                       unsigned grainSize, unsigned minElementsPerPartition) {
  return splitRegions(regions, grainSize, target.getNumWorkerContexts(), minElementsPerPartition);
}

std::vector<std::size_t> unflattenIndex(const std::vector<std::size_t> &shape, std::size_t index) {
  std::vector<std::size_t> out(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    out[d] = index % shape[d];
    index /= shape[d];
  }
  return out;
}

std::size_t flattenIndex(const std::vector<std::size_t> &shape, const std::vector<std::size_t> &indices) {
  if (shape.size() != indices.size()) throw poplibs_error("flattenIndex: the indices and the shape differ in rank");
  std::size_t i = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) i = i * shape[d] + indices[d];
  return i;
}

std::vector<int> balancedPartition(int rangeUpperBound, int splitCount) {
  std::vector<int> out(std::size_t(std::max(0, splitCount)), 0);
  for (int i = 0; i < splitCount; ++i) out[std::size_t(i)] = rangeUpperBound / splitCount + (i < rangeUpperBound % splitCount);
  return out;
}

} // namespace poputil
