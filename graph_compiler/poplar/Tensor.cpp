// poplar::Tensor over the graph compiler's views (ipusim/gc/Tensor.h).
#include "Internal.h"

#include "ipusim/gc/Tensor.h"

#include <poplar/Tensor.hpp>
#include <poplar/exceptions.hpp>

#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>
#include <set>

namespace poplar {

using namespace ipusim::gc;

Tensor::Tensor() = default;
Tensor::Tensor(const Tensor &) = default;
Tensor::Tensor(Tensor &&) noexcept = default;
Tensor::~Tensor() = default;
Tensor &Tensor::operator=(const Tensor &) = default;
Tensor &Tensor::operator=(Tensor &&) noexcept = default;
Tensor::Tensor(std::shared_ptr<const TensorImpl> impl) : impl_(std::move(impl)) {}

const TensorImpl &Tensor::impl() const {
  if (!impl_) throw poplar_error("use of an empty Tensor (default-constructed, never assigned a graph tensor)");
  return *impl_;
}

namespace {
std::vector<size_t> vec(ArrayRef<std::size_t> a) { return std::vector<size_t>(a.begin(), a.end()); }
} // namespace

Type Tensor::elementType() const { return core::typeOf(impl().type); }
Tensor Tensor::operator[](std::size_t i) const { return Tensor(view::index(impl(), i)); }
Tensor Tensor::index(ArrayRef<std::size_t> indices) const {
  Tensor t = *this;
  for (std::size_t i : indices) t = t[i];
  return t;
}
Tensor Tensor::slice(std::size_t b, std::size_t e, unsigned d) const { return Tensor(view::slice(impl(), b, e, d)); }
Tensor Tensor::slice(const Interval &r, unsigned d) const { return slice(r.begin(), r.end(), d); }
Tensor Tensor::slice(ArrayRef<std::size_t> b, ArrayRef<std::size_t> e) const {
  return Tensor(view::slice(impl(), vec(b), vec(e)));
}
std::vector<Tensor> Tensor::slices(ArrayRef<Interval> intervals, unsigned d) const {
  std::vector<Tensor> out;
  for (const Interval &i : intervals) out.push_back(slice(i, d));
  return out;
}
std::vector<Tensor> Tensor::slices(const std::vector<std::vector<Interval>> &intervals, unsigned d) const {
  std::vector<Tensor> out;
  for (const auto &list : intervals) {
    std::vector<Tensor> parts;
    for (const Interval &i : list) parts.push_back(slice(i, d));
    if (parts.empty()) {
      std::vector<std::size_t> shape = this->shape();
      shape[d] = 0;
      out.push_back(Tensor(view::make(impl().type, std::vector<size_t>(shape.begin(), shape.end()), {}, impl().graph)));
    } else {
      out.push_back(concat(ArrayRef<Tensor>(parts), d));
    }
  }
  return out;
}
std::vector<Tensor> Tensor::slices(const ArrayRef<unsigned> &indices, unsigned d) const {
  std::vector<Tensor> out;
  for (unsigned i : indices) out.push_back(slice(i, i + 1, d));
  return out;
}
// A 1-D tensor of all the elements (a scalar becomes a 1-element vector, as in Poplar).
Tensor Tensor::flatten() const {
  if (impl().shape.empty()) return Tensor(view::reshape(impl(), {1}));
  return Tensor(view::flatten(impl(), 0, unsigned(impl().shape.size())));
}
Tensor Tensor::flatten(unsigned b, unsigned e) const { return Tensor(view::flatten(impl(), b, e)); }
Tensor Tensor::reshape(ArrayRef<std::size_t> shape) const { return Tensor(view::reshape(impl(), vec(shape))); }
Tensor Tensor::reshapePartial(unsigned b, unsigned e, ArrayRef<std::size_t> dims) const {
  const std::vector<size_t> &s = impl().shape;
  if (b > e || e > s.size())
    throw poplar_error("Tensor::reshapePartial: [" + std::to_string(b) + ", " + std::to_string(e) +
                       ") is not a range of dimensions of a tensor of shape " + shapeString(s));
  std::vector<size_t> shape(s.begin(), s.begin() + b);
  shape.insert(shape.end(), dims.begin(), dims.end());
  shape.insert(shape.end(), s.begin() + e, s.end());
  return Tensor(view::reshape(impl(), shape));
}
Tensor Tensor::dimShuffle(ArrayRef<unsigned> p) const {
  return Tensor(view::dimShuffle(impl(), std::vector<unsigned>(p.begin(), p.end())));
}
Tensor Tensor::dimShufflePartial(ArrayRef<unsigned> source, ArrayRef<unsigned> destination) const {
  const unsigned rank = unsigned(impl().shape.size());
  if (source.size() != destination.size())
    throw poplar_error("Tensor::dimShufflePartial: " + std::to_string(source.size()) + " source dimensions but " +
                       std::to_string(destination.size()) + " destinations");
  std::vector<int> perm(rank, -1);
  std::set<unsigned> moved;
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] >= rank || destination[i] >= rank)
      throw poplar_error("Tensor::dimShufflePartial: dimension out of range for a tensor of shape " + shapeString(impl().shape));
    perm[destination[i]] = int(source[i]);
    moved.insert(source[i]);
  }
  unsigned next = 0;
  for (unsigned d = 0; d < rank; ++d) {
    if (perm[d] >= 0) continue;
    while (moved.count(next)) ++next;
    perm[d] = int(next++);
  }
  return dimShuffle(std::vector<unsigned>(perm.begin(), perm.end()));
}
Tensor Tensor::dimRoll(unsigned d, unsigned n) const { return Tensor(view::dimRoll(impl(), d, n)); }
Tensor Tensor::transpose() const { return Tensor(view::transpose(impl())); }
Tensor Tensor::expand(ArrayRef<std::size_t> i) const { return Tensor(view::expand(impl(), vec(i))); }
Tensor Tensor::squeeze(ArrayRef<std::size_t> i) const { return Tensor(view::squeeze(impl(), vec(i))); }
Tensor Tensor::subSample(unsigned s, unsigned d) const { return Tensor(view::subSample(impl(), s, d)); }
Tensor Tensor::upsample(unsigned s, unsigned d, UpsampleMethod) const { return Tensor(view::upsample(impl(), s, d)); }
Tensor Tensor::broadcast(unsigned n, unsigned d) const { return Tensor(view::broadcast(impl(), n, d)); }
Tensor Tensor::reinterpret(const Type &t) const { return Tensor(view::reinterpret(impl(), core::typeId(t))); }
Tensor Tensor::reverse(unsigned d) const { return Tensor(view::reverse(impl(), d)); }

std::size_t Tensor::numElements() const { return std::size_t(impl().numElements()); }
std::size_t Tensor::dim(unsigned i) const {
  if (i >= impl().shape.size())
    throw index_error("Tensor::dim: dimension " + std::to_string(i) + " of a tensor of shape " + shapeString(impl().shape));
  return impl().shape[i];
}
std::vector<std::size_t> Tensor::shape() const { return std::vector<std::size_t>(impl().shape.begin(), impl().shape.end()); }
unsigned Tensor::rank() const { return unsigned(impl().shape.size()); }
bool Tensor::isContiguous() const { return impl().regions().size() <= 1; }
bool Tensor::containsAliases() const {
  std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> byVar;
  for (const Region &r : impl().regions()) byVar[r.var].push_back({r.begin, r.end});
  for (auto &[v, list] : byVar) {
    std::sort(list.begin(), list.end());
    for (size_t i = 1; i < list.size(); ++i)
      if (list[i].first < list[i - 1].second) return true;
  }
  return false;
}
bool Tensor::containsConstant() const {
  // Constants are recorded on the graph; without it, no view can tell (ipusim: false).
  return false;
}
bool Tensor::isParallelWriteable() const { return !containsAliases() && !containsConstant(); }
const std::vector<Interval> Tensor::getContiguousRegions() const {
  std::vector<Interval> out;
  uint64_t at = 0;
  for (const Region &r : impl().regions()) {
    out.push_back(Interval(at, at + r.size()));
    at += r.size();
  }
  return out;
}
const std::vector<VariableInterval> Tensor::getVarRegions() const {
  std::vector<VariableInterval> out;
  for (const Region &r : impl().regions()) out.push_back(VariableInterval(VariableRef(r.var), Interval(r.begin, r.end)));
  return out;
}
bool Tensor::intersectsWith(const Tensor &o) const {
  for (const Region &a : impl().regions())
    for (const Region &b : o.impl().regions())
      if (a.var == b.var && a.begin < b.end && b.begin < a.end) return true;
  return false;
}
std::ostream &Tensor::output(std::ostream &os) const {
  return os << "Tensor(" << elementType() << ", " << shapeToString() << ")";
}
std::ostream &Tensor::outputRegions(std::ostream &os) const {
  os << "{";
  bool first = true;
  for (const Region &r : impl().regions()) {
    os << (first ? "" : ", ") << "var" << r.var << "[" << r.begin << ":" << r.end << ")";
    first = false;
  }
  return os << "}";
}
void Tensor::dump() const { output(std::cerr) << '\n'; }
void Tensor::dumpRegions() const { outputRegions(std::cerr) << '\n'; }
std::string Tensor::shapeToString() const {
  std::string s = "{";
  for (size_t i = 0; i < impl().shape.size(); ++i) s += (i ? "," : "") + std::to_string(impl().shape[i]);
  return s + "}";
}
std::string Tensor::getVarStr() const {
  std::ostringstream os;
  outputRegions(os);
  return os.str();
}
std::string Tensor::getDebugStr() const { return getVarStr(); }

bool operator==(const Tensor &a, const Tensor &b) {
  if (!a.valid() || !b.valid()) return a.valid() == b.valid();
  return a.impl().shape == b.impl().shape && a.impl().type == b.impl().type && a.impl().regions() == b.impl().regions();
}

Tensor concat(ArrayRef<Tensor> ts, unsigned d) {
  std::vector<const TensorImpl *> v;
  for (const Tensor &t : ts) v.push_back(&t.impl());
  return Tensor(view::concat(v, d));
}
Tensor append(const Tensor &a, const Tensor &b, unsigned d) { return concat(a, b.expand({d}), d); }
std::ostream &operator<<(std::ostream &os, const Tensor &t) { return t.output(os); }

} // namespace poplar
