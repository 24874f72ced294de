// ipusim's Poplar SDK: popops' slices at offsets known only when the program runs (docs/popops.md).
#ifndef IPUSIM_POPOPS_DYNAMICSLICE_HPP
#define IPUSIM_POPOPS_DYNAMICSLICE_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include <vector>

#include <iosfwd>
#include <memory>

namespace popops {

class SlicePlanInternal;
/// How a multi-slice or multi-update splits the sliced table over the tiles (made by
/// embedding::plan; a default-constructed plan is made from the shapes at each call).
class SlicePlan {
public:
  SlicePlan();
  ~SlicePlan();
  SlicePlan(const SlicePlan &other);
  SlicePlan(SlicePlan &&other);
  SlicePlan &operator=(const SlicePlan &other);
  SlicePlan &operator=(SlicePlan &&other);
  explicit SlicePlan(std::unique_ptr<SlicePlanInternal> internal);
  SlicePlanInternal &getImpl() const { return *internal; }
  bool isNull() const { return !internal; }
  friend std::ostream &operator<<(std::ostream &o, const SlicePlan &p);
  friend bool operator<(const SlicePlan &a, const SlicePlan &b) noexcept;
  friend bool operator==(const SlicePlan &a, const SlicePlan &b) noexcept;

private:
  std::unique_ptr<SlicePlanInternal> internal;
};
bool operator<(const SlicePlan &a, const SlicePlan &b) noexcept;
bool operator==(const SlicePlan &a, const SlicePlan &b) noexcept;
bool operator!=(const SlicePlan &a, const SlicePlan &b) noexcept;

namespace embedding {
/// A plan for slicing and updating a [numEntries][outputSize] table with numLookups indices:
/// the table's columns and rows split over the tiles. Options: usedForSlice, usedForUpdate
/// (booleans), operationForUpdate (none, add, max), availableMemoryProportion (the share of a
/// tile the table's block may take, default 0.1), indicesDistribution (uniform, onePoint),
/// planMinimisationTarget (memory, cycles), indicesAreSorted (boolean).
SlicePlan plan(const poplar::Graph &graph, const poplar::Type &dataType, std::size_t numEntries,
               std::size_t outputSize, const std::vector<std::size_t> &numLookups,
               const poplar::OptionFlags &options);
} // namespace embedding

/// A [rows][columns] table laid out for multiSlice and the multi-updates: each tile a block of
/// rows and columns. ipusim slices rank-2 tables in dimension 0, one row an index.
poplar::Tensor createSliceableTensor(poplar::Graph &graph, const poplar::Type &type,
                                     const std::vector<std::size_t> &shape, const std::vector<std::size_t> &dims,
                                     const std::vector<std::size_t> &sizes, std::size_t minGrainSize = 0,
                                     const poplar::DebugContext &debugContext = {});
poplar::Tensor createSliceableTensor(poplar::Graph &graph, const poplar::Type &type,
                                     const std::vector<std::size_t> &shape, const std::vector<std::size_t> &dims,
                                     const std::vector<std::size_t> &sizes, const SlicePlan &plan,
                                     const poplar::OptionFlags &options,
                                     const poplar::DebugContext &debugContext = {});
/// The slices' tensor [numIndices][1][columns], each column block on the tile of the table's
/// first row block of those columns.
poplar::Tensor createSliceTensor(poplar::Graph &graph, const poplar::Type &type, const std::vector<std::size_t> &shape,
                                 const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                                 std::size_t numIndices, const SlicePlan &plan, const poplar::OptionFlags &options,
                                 const poplar::DebugContext &debugContext = {});
poplar::Tensor createSliceTensor(poplar::Graph &graph, const poplar::Tensor &t, const std::vector<std::size_t> &dims,
                                 const std::vector<std::size_t> &sizes, std::size_t numIndices,
                                 const poplar::DebugContext &debugContext = {});
/// The indices [numIndices][dims.size()] (unsigned int), mapped over the tiles.
poplar::Tensor createIndicesTensor(poplar::Graph &graph, const std::vector<std::size_t> &dims, std::size_t numIndices,
                                   const SlicePlan &plan, const poplar::OptionFlags &options,
                                   const poplar::DebugContext &debugContext = {});
/// out[i][0] = t[offsets[i][0]] ([numIndices][1][columns]); an index past the table gives zeros.
poplar::Tensor multiSlice(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &offsets,
                          const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                          poplar::program::Sequence &prog, const SlicePlan &plan, const poplar::OptionFlags &options,
                          const poplar::DebugContext &debugContext = {});
/// t[offsets[i][0]] = s[i][0] for i in turn (the last of repeated indices wins); indices past
/// the table are ignored.
void multiUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s, const poplar::Tensor &offsets,
                 const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                 poplar::program::Sequence &prog, const SlicePlan &plan, const poplar::OptionFlags &options,
                 const poplar::DebugContext &debugContext = {});
/// t[offsets[i][0]] += scale * s[i][0] for every i (repeated indices accumulate); scale is one
/// element of t's type (or float for half t).
void multiUpdateAdd(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s, const poplar::Tensor &offsets,
                    const poplar::Tensor &scale, const std::vector<std::size_t> &dims,
                    const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog, const SlicePlan &plan,
                    const poplar::OptionFlags &options, const poplar::DebugContext &debugContext = {});
/// t[offsets[i][0]] = max(t[offsets[i][0]], s[i][0]) for every i.
void multiUpdateMax(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s, const poplar::Tensor &offsets,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    poplar::program::Sequence &prog, const SlicePlan &plan, const poplar::OptionFlags &options,
                    const poplar::DebugContext &debugContext = {});

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
