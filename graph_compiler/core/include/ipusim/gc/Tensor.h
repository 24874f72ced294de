// Tensors as views: a shape over a list of regions of variables (in row-major order). Slicing,
// transposing, broadcasting and the rest make new views of the same variables; no data moves
// until a program copies it. This is what poplar::Tensor holds.
#pragma once

#include "ipusim/gc/Types.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ipusim::gc {

/// Elements [begin, end) of variable `var`.
struct Region {
  uint32_t var;
  uint64_t begin, end;
  uint64_t size() const { return end - begin; }
  bool operator==(const Region &o) const { return var == o.var && begin == o.begin && end == o.end; }
};

/// A view's elements as regions, shared by the views that differ only in shape or type (a
/// reshape of a table made of thousands of variables copies nothing).
struct RegionList {
  std::vector<Region> regions;          ///< the elements in row-major order, adjacent regions merged
  mutable std::vector<uint64_t> starts; ///< first flat index of each region (built on demand: graphs are built on one thread)
};

struct TensorImpl {
  uint64_t graph = 0; ///< the GraphData whose variables the regions name (GraphData::id)
  TypeId type = TypeId::Float;
  std::vector<size_t> shape;
  std::shared_ptr<const RegionList> list = std::make_shared<RegionList>();

  const std::vector<Region> &regions() const { return list->regions; }
  uint64_t numElements() const;
  /// The region index and offset in it of flat element i (a binary search).
  std::pair<size_t, uint64_t> locate(uint64_t i) const;
  /// Where the last locate of a walk found its element and how many regions it had moved.
  struct Walk {
    size_t region = 0;
    ptrdiff_t step = 0;
  };
  /// The same for a walk's next element, trying first the region of the last, the one after it
  /// and the one as far on again as the last move (a transpose walking down a column of a
  /// blocked layout moves by a block row a step), then searching.
  std::pair<size_t, uint64_t> locate(uint64_t i, Walk &walk) const;
  /// Flat elements [begin, end) as regions.
  std::vector<Region> range(uint64_t begin, uint64_t end) const;
  /// The same appended to out (merged with its last region when adjacent). With `walk`, ranges
  /// come in increasing order: the search tries the region the last range ended in, the one after
  /// it and the one as far on again as the last range's start had moved (the rows of a block of
  /// a table: a row of blocks a step), then gallops from there; walk is left at the last region
  /// used.
  void appendRange(std::vector<Region> &out, uint64_t begin, uint64_t end, Walk *walk = nullptr) const;

private:
  const std::vector<uint64_t> &starts() const;
};
using TensorPtr = std::shared_ptr<const TensorImpl>;

uint64_t product(const std::vector<size_t> &shape);
/// "[2,3]"
std::string shapeString(const std::vector<size_t> &shape);

/// Appends `r` to `out`, merging it with the last region when they are adjacent.
void appendRegion(std::vector<Region> &out, const Region &r);

/// The view operations of poplar::Tensor. Each checks its arguments and throws poplar::poplar_error
/// (or index_error) with a message naming the operation and the shapes.
namespace view {
TensorPtr make(TypeId type, std::vector<size_t> shape, std::vector<Region> regions, uint64_t graph);
/// t's elements with another shape (same count) or type (same size), sharing its regions.
TensorPtr withShape(const TensorImpl &t, TypeId type, std::vector<size_t> shape);
TensorPtr index(const TensorImpl &t, size_t i);                          // t[i]
TensorPtr slice(const TensorImpl &t, size_t begin, size_t end, unsigned dim);
TensorPtr slice(const TensorImpl &t, const std::vector<size_t> &begin, const std::vector<size_t> &end);
TensorPtr reshape(const TensorImpl &t, const std::vector<size_t> &shape);
TensorPtr flatten(const TensorImpl &t, unsigned dimBegin, unsigned dimEnd);
TensorPtr dimShuffle(const TensorImpl &t, const std::vector<unsigned> &permutation);
TensorPtr transpose(const TensorImpl &t);
TensorPtr dimRoll(const TensorImpl &t, unsigned dimIdx, unsigned newIdx);
TensorPtr broadcast(const TensorImpl &t, unsigned n, unsigned dim);
TensorPtr expand(const TensorImpl &t, const std::vector<size_t> &indices);
TensorPtr squeeze(const TensorImpl &t, const std::vector<size_t> &dims);
TensorPtr reverse(const TensorImpl &t, unsigned dim);
TensorPtr subSample(const TensorImpl &t, unsigned stride, unsigned dim);
TensorPtr upsample(const TensorImpl &t, unsigned scale, unsigned dim);
TensorPtr concat(const std::vector<const TensorImpl *> &ts, unsigned dim);
/// The same elements seen as another type of the same size.
TensorPtr reinterpret(const TensorImpl &t, TypeId type);
} // namespace view

} // namespace ipusim::gc
