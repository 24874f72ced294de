// ipusim's Poplar SDK: poplar::Tensor, a view (a shape over regions of graph variables). Slicing,
// reshaping and the rest make new views; no data moves until a program copies it.
#ifndef IPUSIM_POPLAR_TENSOR_HPP
#define IPUSIM_POPLAR_TENSOR_HPP

#include <poplar/ArrayRef.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Type.hpp>

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace ipusim {
namespace gc {
struct TensorImpl;
}
} // namespace ipusim

namespace poplar {

enum class UpsampleMethod { REPEAT };

/// A variable of the graph (what Tensor::getVarRegions names).
class VariableRef {
public:
  VariableRef(unsigned id, unsigned replicationFactor = 1) : id_(id), replicationFactor_(replicationFactor) {}
  unsigned getId() const { return id_; }
  unsigned getReplicationFactor() const { return replicationFactor_; }
  std::size_t hash() const { return id_; }
  bool operator==(const VariableRef &o) const { return id_ == o.id_; }
  bool operator!=(const VariableRef &o) const { return id_ != o.id_; }
  bool operator<(const VariableRef &o) const { return id_ < o.id_; }

private:
  unsigned id_, replicationFactor_;
};

struct VariableInterval {
  VariableRef var;
  Interval interval;
  VariableInterval(VariableRef v, Interval i) : var(v), interval(i) {}
};

class Tensor {
public:
  Tensor();
  Tensor(const Tensor &);
  Tensor(Tensor &&) noexcept;
  ~Tensor();
  Tensor &operator=(const Tensor &);
  Tensor &operator=(Tensor &&) noexcept;

  Type elementType() const;
  Tensor operator[](std::size_t i) const;
  Tensor index(ArrayRef<std::size_t> indices) const;
  Tensor slice(std::size_t begin, std::size_t end, unsigned dimension) const;
  Tensor slice(std::size_t begin, std::size_t end) const { return slice(begin, end, 0); }
  Tensor slice(const Interval &region, unsigned dimension = 0) const;
  Tensor slice(ArrayRef<std::size_t> begin, ArrayRef<std::size_t> end) const;
  std::vector<Tensor> slices(ArrayRef<Interval> intervals, unsigned dimension = 0) const;
  std::vector<Tensor> slices(const std::vector<std::vector<Interval>> &intervals, unsigned dimension = 0) const;
  std::vector<Tensor> slices(const ArrayRef<unsigned> &indices, unsigned dimension = 0) const;
  Tensor flatten() const;
  Tensor flatten(unsigned dimBegin, unsigned dimEnd) const;
  Tensor reshape(ArrayRef<std::size_t> shape) const;
  Tensor reshapePartial(unsigned beginIndex, unsigned endIndex, ArrayRef<std::size_t> newDims) const;
  Tensor dimShuffle(ArrayRef<unsigned> permutation) const;
  Tensor dimShufflePartial(ArrayRef<unsigned> source, ArrayRef<unsigned> destination) const;
  Tensor dimRoll(unsigned dimIdx, unsigned newIdx = 0) const;
  Tensor transpose() const;
  Tensor expand(ArrayRef<std::size_t> indices) const;
  Tensor squeeze(ArrayRef<std::size_t> indices) const;
  Tensor subSample(unsigned stride, unsigned dimension) const;
  Tensor upsample(unsigned scale, unsigned dimension, UpsampleMethod method) const;
  Tensor broadcast(unsigned N, unsigned dimension) const;
  Tensor reinterpret(const Type &type) const;
  Tensor reverse(unsigned dimension) const;

  std::size_t numElements() const;
  std::size_t dim(unsigned i) const;
  std::vector<std::size_t> shape() const;
  unsigned rank() const;
  bool isContiguous() const;
  bool containsAliases() const;
  bool containsConstant() const;
  bool isParallelWriteable() const;
  const std::vector<Interval> getContiguousRegions() const;
  const std::vector<VariableInterval> getVarRegions() const;
  bool intersectsWith(const Tensor &other) const;
  std::ostream &output(std::ostream &os) const;
  std::ostream &outputRegions(std::ostream &os) const;
  void dump() const;
  void dumpRegions() const;
  std::string shapeToString() const;
  std::string getVarStr() const;
  std::string getDebugStr() const;
  bool valid() const { return impl_ != nullptr; }

  // ipusim (internal): the view.
  explicit Tensor(std::shared_ptr<const ipusim::gc::TensorImpl> impl);
  const ipusim::gc::TensorImpl &impl() const;
  const std::shared_ptr<const ipusim::gc::TensorImpl> &ptr() const { return impl_; }

private:
  std::shared_ptr<const ipusim::gc::TensorImpl> impl_;
};

/// The same elements in the same order.
bool operator==(const Tensor &a, const Tensor &b);
inline bool operator!=(const Tensor &a, const Tensor &b) { return !(a == b); }
Tensor concat(ArrayRef<Tensor> ts, unsigned dimension = 0);
inline Tensor concat(const Tensor &first, const Tensor &second, unsigned dimension = 0) {
  std::vector<Tensor> v;
  v.push_back(first);
  v.push_back(second);
  return concat(ArrayRef<Tensor>(v), dimension);
}
Tensor append(const Tensor &first, const Tensor &second, unsigned dimension);
inline Tensor append(const Tensor &first, const Tensor &second) { return append(first, second, 0); }
std::ostream &operator<<(std::ostream &os, const Tensor &tensor);

} // namespace poplar

#endif
