#include "ipusim/gc/Tensor.h"

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <numeric>
#include <tuple>

namespace ipusim::gc {

uint64_t product(const std::vector<size_t> &shape) {
  uint64_t n = 1;
  for (size_t d : shape) n *= d;
  return n;
}

std::string shapeString(const std::vector<size_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

void appendRegion(std::vector<Region> &out, const Region &r) {
  if (r.begin == r.end) return;
  if (!out.empty() && out.back().var == r.var && out.back().end == r.begin) out.back().end = r.end;
  else out.push_back(r);
}

uint64_t TensorImpl::numElements() const { return product(shape); }

const std::vector<uint64_t> &TensorImpl::starts() const {
  const std::vector<Region> &regions = list->regions;
  std::vector<uint64_t> &starts = list->starts;
  if (starts.size() != regions.size()) {
    starts.resize(regions.size());
    uint64_t n = 0;
    for (size_t i = 0; i < regions.size(); ++i) {
      starts[i] = n;
      n += regions[i].size();
    }
  }
  return starts;
}

std::pair<size_t, uint64_t> TensorImpl::locate(uint64_t i) const {
  const std::vector<uint64_t> &s = starts();
  size_t r = size_t(std::upper_bound(s.begin(), s.end(), i) - s.begin()) - 1;
  return {r, i - s[r]};
}

std::pair<size_t, uint64_t> TensorImpl::locate(uint64_t i, Walk &walk) const {
  const std::vector<uint64_t> &s = starts();
  auto holds = [&](size_t r) { return r < s.size() && s[r] <= i && (r + 1 == s.size() || i < s[r + 1]); };
  size_t r = walk.region;
  if (!holds(r) && !holds(++r)) {
    r = size_t(ptrdiff_t(walk.region) + walk.step);
    if (!holds(r)) r = locate(i).first;
  }
  walk.step = ptrdiff_t(r) - ptrdiff_t(walk.region);
  walk.region = r;
  return {r, i - s[r]};
}

std::vector<Region> TensorImpl::range(uint64_t begin, uint64_t end) const {
  std::vector<Region> out;
  appendRange(out, begin, end);
  return out;
}

void TensorImpl::appendRange(std::vector<Region> &out, uint64_t begin, uint64_t end, Walk *walk) const {
  if (begin >= end) return;
  size_t r;
  uint64_t off;
  const std::vector<uint64_t> &s = starts();
  if (walk && walk->region < s.size() && s[walk->region] <= begin) {
    // Ranges taken in increasing order: the last one's region, the next, or as far on again as
    // the last move; else gallop forward from the last one's region.
    const size_t last = walk->region;
    auto holds = [&](size_t x) { return x < s.size() && s[x] <= begin && (x + 1 == s.size() || begin < s[x + 1]); };
    if (holds(last)) {
      r = last;
    } else if (holds(last + 1)) {
      r = last + 1;
    } else if (walk->step > 1 && holds(last + size_t(walk->step))) {
      r = last + size_t(walk->step);
    } else {
      size_t lo = last, step = 1;
      while (lo + step < s.size() && s[lo + step] <= begin) lo += step, step *= 2;
      r = size_t(std::upper_bound(s.begin() + lo, s.begin() + std::min(s.size(), lo + step), begin) - s.begin()) - 1;
    }
    walk->step = ptrdiff_t(r - last);
    off = begin - s[r];
  } else {
    std::tie(r, off) = locate(begin);
  }
  uint64_t left = end - begin;
  for (; left; ++r, off = 0) {
    const Region &g = regions()[r];
    uint64_t take = std::min(left, g.size() - off);
    appendRegion(out, {g.var, g.begin + off, g.begin + off + take});
    left -= take;
  }
  if (walk) walk->region = r - 1;
}

namespace view {

namespace {

[[noreturn]] void fail(const std::string &what) { throw poplar::poplar_error(what); }

void checkDim(const TensorImpl &t, unsigned dim, const char *op) {
  if (dim >= t.shape.size())
    fail(std::string(op) + ": dimension " + std::to_string(dim) + " is out of range for a tensor of shape " +
         shapeString(t.shape));
}

std::vector<uint64_t> strides(const std::vector<size_t> &shape) {
  std::vector<uint64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

/// The source of a view whose every coordinate d moves the source by step[d] (a dimShuffle, a
/// subSample): gather asks for i, i + 1, ... in turn, so the coordinates are stepped like an
/// odometer instead of divided out of i for every element.
class LinearSource {
public:
  LinearSource(std::vector<size_t> shape, std::vector<uint64_t> step)
      : shape_(std::move(shape)), step_(std::move(step)), outStride_(strides(shape_)), coord_(shape_.size(), 0) {}
  uint64_t operator()(uint64_t i) {
    if (i == at_ + 1) {
      for (size_t d = shape_.size(); d-- > 0;) {
        value_ += step_[d];
        if (++coord_[d] < shape_[d]) break;
        value_ -= coord_[d] * step_[d];
        coord_[d] = 0;
      }
    } else if (i != at_) {
      value_ = 0;
      for (size_t d = 0; d < shape_.size(); ++d) {
        coord_[d] = size_t(i / outStride_[d] % shape_[d]);
        value_ += coord_[d] * step_[d];
      }
    }
    at_ = i;
    return value_;
  }

private:
  std::vector<size_t> shape_;
  std::vector<uint64_t> step_, outStride_;
  std::vector<size_t> coord_; ///< of output element at_, whose source is value_
  uint64_t at_ = 0, value_ = 0;
};

/// A view whose flat element i is `t`'s element source(i): the general form of every
/// rearrangement. Runs of consecutive source elements in one region become one region.
template <class Source> TensorPtr gather(const TensorImpl &t, std::vector<size_t> shape, Source source) {
  const uint64_t n = product(shape);
  std::vector<Region> out;
  uint64_t i = 0;
  TensorImpl::Walk walk;
  while (i < n) {
    const uint64_t s = source(i);
    auto [r, off] = t.locate(s, walk);
    const Region &g = t.regions()[r];
    // Extend while the source stays consecutive and inside the region.
    uint64_t len = 1;
    while (i + len < n && off + len < g.size() && source(i + len) == s + len) ++len;
    appendRegion(out, {g.var, g.begin + off, g.begin + off + len});
    i += len;
  }
  return make(t.type, std::move(shape), std::move(out), t.graph);
}

} // namespace

TensorPtr make(TypeId type, std::vector<size_t> shape, std::vector<Region> regions, uint64_t graph) {
  auto t = std::make_shared<TensorImpl>();
  t->graph = graph;
  t->type = type;
  t->shape = std::move(shape);
  auto list = std::make_shared<RegionList>();
  list->regions = std::move(regions);
  t->list = std::move(list);
  return t;
}

TensorPtr withShape(const TensorImpl &t, TypeId type, std::vector<size_t> shape) {
  auto v = std::make_shared<TensorImpl>(t);
  v->type = type;
  v->shape = std::move(shape);
  return v;
}

TensorPtr index(const TensorImpl &t, size_t i) {
  if (t.shape.empty()) fail("Tensor::operator[]: cannot index a scalar (rank 0) tensor");
  if (i >= t.shape[0])
    throw poplar::index_error("Tensor::operator[]: index " + std::to_string(i) + " is out of range for dimension 0 of a tensor of shape " +
                              shapeString(t.shape));
  std::vector<size_t> shape(t.shape.begin() + 1, t.shape.end());
  uint64_t n = product(shape);
  return make(t.type, shape, t.range(i * n, (i + 1) * n), t.graph);
}

TensorPtr slice(const TensorImpl &t, size_t begin, size_t end, unsigned dim) {
  checkDim(t, dim, "Tensor::slice");
  if (begin > end || end > t.shape[dim])
    throw poplar::index_error("Tensor::slice: [" + std::to_string(begin) + ", " + std::to_string(end) +
                              ") is not a range of dimension " + std::to_string(dim) + " of a tensor of shape " +
                              shapeString(t.shape));
  std::vector<size_t> shape = t.shape;
  shape[dim] = end - begin;
  // Outer rows (dimensions before `dim`) each contribute one contiguous flat range.
  uint64_t inner = 1;
  for (size_t d = dim + 1; d < t.shape.size(); ++d) inner *= t.shape[d];
  uint64_t outer = 1;
  for (size_t d = 0; d < dim; ++d) outer *= t.shape[d];
  std::vector<Region> out;
  TensorImpl::Walk walk;
  for (uint64_t o = 0; o < outer; ++o) {
    uint64_t base = o * t.shape[dim] * inner;
    t.appendRange(out, base + begin * inner, base + end * inner, &walk);
  }
  return make(t.type, shape, std::move(out), t.graph);
}

TensorPtr slice(const TensorImpl &t, const std::vector<size_t> &begin, const std::vector<size_t> &end) {
  if (begin.size() != t.shape.size() || end.size() != t.shape.size())
    fail("Tensor::slice: the begin and end coordinates need " + std::to_string(t.shape.size()) +
         " dimensions for a tensor of shape " + shapeString(t.shape));
  std::vector<size_t> shape(t.shape.size());
  for (unsigned d = 0; d < t.shape.size(); ++d) {
    if (begin[d] > end[d] || end[d] > t.shape[d])
      throw poplar::index_error("Tensor::slice: [" + std::to_string(begin[d]) + ", " + std::to_string(end[d]) +
                                ") is not a range of dimension " + std::to_string(d) + " of a tensor of shape " +
                                shapeString(t.shape));
    shape[d] = end[d] - begin[d];
  }
  if (t.shape.empty() || product(shape) == 0) return make(t.type, shape, {}, t.graph);
  // One flat range of t a row of the innermost dimension: no intermediate views (a block of a
  // table made of many variables would otherwise copy every region of the rows it spans).
  const size_t last = t.shape.size() - 1;
  const std::vector<uint64_t> stride = strides(t.shape);
  std::vector<size_t> at(begin.begin(), begin.end());
  std::vector<Region> out;
  TensorImpl::Walk walk;
  for (;;) {
    uint64_t base = 0;
    for (size_t d = 0; d < last; ++d) base += at[d] * stride[d];
    t.appendRange(out, base + begin[last], base + end[last], &walk);
    size_t d = last;
    while (d-- > 0 && ++at[d] == end[d]) at[d] = begin[d];
    if (d == size_t(-1)) break;
  }
  return make(t.type, shape, std::move(out), t.graph);
}

TensorPtr reshape(const TensorImpl &t, const std::vector<size_t> &shape) {
  if (product(shape) != t.numElements())
    fail("Tensor::reshape: a tensor of shape " + shapeString(t.shape) + " (" + std::to_string(t.numElements()) +
         " elements) cannot become shape " + shapeString(shape) + " (" + std::to_string(product(shape)) + " elements)");
  return withShape(t, t.type, shape);
}

TensorPtr flatten(const TensorImpl &t, unsigned dimBegin, unsigned dimEnd) {
  if (dimBegin > dimEnd || dimEnd > t.shape.size())
    fail("Tensor::flatten: [" + std::to_string(dimBegin) + ", " + std::to_string(dimEnd) +
         ") is not a range of dimensions of a tensor of shape " + shapeString(t.shape));
  if (dimBegin == dimEnd) return std::make_shared<TensorImpl>(t);
  std::vector<size_t> shape(t.shape.begin(), t.shape.begin() + dimBegin);
  size_t n = 1;
  for (unsigned d = dimBegin; d < dimEnd; ++d) n *= t.shape[d];
  shape.push_back(n);
  shape.insert(shape.end(), t.shape.begin() + dimEnd, t.shape.end());
  return withShape(t, t.type, shape);
}

TensorPtr dimShuffle(const TensorImpl &t, const std::vector<unsigned> &perm) {
  const size_t rank = t.shape.size();
  std::vector<bool> seen(rank, false);
  bool valid = perm.size() == rank;
  for (unsigned p : perm) {
    if (p >= rank || seen[p]) valid = false;
    else seen[p] = true;
  }
  if (!valid) {
    std::string s;
    for (size_t i = 0; i < perm.size(); ++i) s += (i ? "," : "") + std::to_string(perm[i]);
    fail("Tensor::dimShuffle: {" + s + "} is not a permutation of the " + std::to_string(rank) +
         " dimensions of a tensor of shape " + shapeString(t.shape));
  }
  bool identity = true;
  for (unsigned i = 0; i < rank; ++i) identity &= perm[i] == i;
  if (identity) return std::make_shared<TensorImpl>(t);
  std::vector<size_t> shape(rank);
  for (unsigned i = 0; i < rank; ++i) shape[i] = t.shape[perm[i]];
  const std::vector<uint64_t> in = strides(t.shape);
  std::vector<uint64_t> step(rank);
  for (unsigned d = 0; d < rank; ++d) step[d] = in[perm[d]];
  return gather(t, shape, LinearSource(shape, step));
}

TensorPtr transpose(const TensorImpl &t) {
  if (t.shape.size() != 2) fail("Tensor::transpose: needs a 2-dimensional tensor, not shape " + shapeString(t.shape));
  return dimShuffle(t, {1, 0});
}

TensorPtr dimRoll(const TensorImpl &t, unsigned dimIdx, unsigned newIdx) {
  checkDim(t, dimIdx, "Tensor::dimRoll");
  checkDim(t, newIdx, "Tensor::dimRoll");
  std::vector<unsigned> perm(t.shape.size());
  std::iota(perm.begin(), perm.end(), 0u);
  perm.erase(perm.begin() + dimIdx);
  perm.insert(perm.begin() + newIdx, dimIdx);
  return dimShuffle(t, perm);
}

TensorPtr broadcast(const TensorImpl &t, unsigned n, unsigned dim) {
  checkDim(t, dim, "Tensor::broadcast");
  std::vector<size_t> shape = t.shape;
  shape[dim] *= n;
  // Each index of the old dimension repeats as a block: [a, b] broadcast 2 on dim 0 is [a, b, a, b].
  uint64_t inner = 1;
  for (size_t d = dim + 1; d < t.shape.size(); ++d) inner *= t.shape[d];
  const uint64_t block = t.shape[dim] * inner;
  std::vector<Region> out;
  const uint64_t outer = block ? t.numElements() / block : 0;
  for (uint64_t o = 0; o < outer; ++o)
    for (unsigned k = 0; k < n; ++k)
      for (const Region &r : t.range(o * block, (o + 1) * block)) appendRegion(out, r);
  return make(t.type, shape, std::move(out), t.graph);
}

TensorPtr expand(const TensorImpl &t, const std::vector<size_t> &indices) {
  std::vector<size_t> shape = t.shape;
  for (size_t k = 0; k < indices.size(); ++k) {
    if (k && indices[k] < indices[k - 1]) fail("Tensor::expand: the indices must be in ascending order");
    if (indices[k] > shape.size())
      fail("Tensor::expand: index " + std::to_string(indices[k]) + " is past the rank of a tensor of shape " +
           shapeString(shape));
    shape.insert(shape.begin() + indices[k], 1);
  }
  return withShape(t, t.type, shape);
}

TensorPtr squeeze(const TensorImpl &t, const std::vector<size_t> &dims) {
  std::vector<bool> drop(t.shape.size(), false);
  for (size_t d : dims) {
    if (d >= t.shape.size() || t.shape[d] != 1)
      fail("Tensor::squeeze: dimension " + std::to_string(d) + " of a tensor of shape " + shapeString(t.shape) +
           " does not have size 1");
    drop[d] = true;
  }
  std::vector<size_t> shape;
  for (size_t d = 0; d < t.shape.size(); ++d)
    if (!drop[d]) shape.push_back(t.shape[d]);
  return withShape(t, t.type, shape);
}

TensorPtr reverse(const TensorImpl &t, unsigned dim) {
  checkDim(t, dim, "Tensor::reverse");
  const std::vector<uint64_t> st = strides(t.shape);
  const uint64_t n = t.shape[dim], s = st[dim];
  return gather(t, t.shape, [&](uint64_t i) {
    uint64_t k = i / s % n;
    return i + (n - 1 - 2 * k) * s;
  });
}

TensorPtr subSample(const TensorImpl &t, unsigned stride, unsigned dim) {
  checkDim(t, dim, "Tensor::subSample");
  if (stride == 0) fail("Tensor::subSample: the stride must be at least 1");
  std::vector<size_t> shape = t.shape;
  shape[dim] = (t.shape[dim] + stride - 1) / stride;
  std::vector<uint64_t> step = strides(t.shape);
  step[dim] *= stride;
  return gather(t, shape, LinearSource(shape, step));
}

TensorPtr upsample(const TensorImpl &t, unsigned scale, unsigned dim) {
  checkDim(t, dim, "Tensor::upsample");
  std::vector<size_t> shape = t.shape;
  shape[dim] *= scale;
  const std::vector<uint64_t> in = strides(t.shape), out = strides(shape);
  if (scale == 0) return make(t.type, shape, {}, t.graph);
  return gather(t, shape, [&](uint64_t i) {
    uint64_t s = 0;
    for (unsigned d = 0; d < shape.size(); ++d) {
      uint64_t k = i / out[d] % shape[d];
      s += (d == dim ? k / scale : k) * in[d];
    }
    return s;
  });
}

TensorPtr concat(const std::vector<const TensorImpl *> &ts, unsigned dim) {
  if (ts.empty()) fail("concat: needs at least one tensor");
  const TensorImpl &first = *ts[0];
  checkDim(first, dim, "concat");
  std::vector<size_t> shape = first.shape;
  shape[dim] = 0;
  for (const TensorImpl *t : ts) {
    bool ok = t->shape.size() == first.shape.size() && t->type == first.type;
    for (size_t d = 0; ok && d < first.shape.size(); ++d) ok = d == dim || t->shape[d] == first.shape[d];
    if (!ok)
      fail("concat: a tensor of shape " + shapeString(t->shape) + " (" + typeName(t->type) +
           ") cannot be joined to one of shape " + shapeString(first.shape) + " (" + typeName(first.type) +
           ") in dimension " + std::to_string(dim));
    shape[dim] += t->shape[dim];
    if (t->graph != first.graph) fail("concat: the tensors belong to different graphs");
  }
  uint64_t outer = 1;
  for (size_t d = 0; d < dim; ++d) outer *= first.shape[d];
  std::vector<Region> out;
  std::vector<TensorImpl::Walk> walks(ts.size());
  for (uint64_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < ts.size(); ++i) {
      const uint64_t block = outer ? ts[i]->numElements() / outer : 0;
      ts[i]->appendRange(out, o * block, (o + 1) * block, &walks[i]);
    }
  return make(first.type, shape, std::move(out), first.graph);
}

TensorPtr reinterpret(const TensorImpl &t, TypeId type) {
  if (typeSize(type) != typeSize(t.type))
    fail(std::string("Tensor::reinterpret: ") + typeName(t.type) + " (" + std::to_string(typeSize(t.type)) +
         " bytes) cannot be reinterpreted as " + typeName(type) + " (" + std::to_string(typeSize(type)) + " bytes)");
  return withShape(t, type, t.shape);
}

} // namespace view
} // namespace ipusim::gc
