// ipusim's Poplar SDK: poplar::ArrayRef, a non-owning view of contiguous elements (docs/poplar.md).
#ifndef IPUSIM_POPLAR_ARRAYREF_HPP
#define IPUSIM_POPLAR_ARRAYREF_HPP

#include <array>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <initializer_list>
#include <vector>

namespace poplar {

template <class T> class ArrayRef {
public:
  typedef T value_type;
  typedef const T *iterator;
  typedef const T *const_iterator;
  ArrayRef() : data_(nullptr), size_(0) {}
  ArrayRef(std::nullptr_t) = delete;
  ArrayRef(const T *p, std::size_t n) : data_(p), size_(n) {}
  ArrayRef(const std::vector<T> &v) : data_(v.data()), size_(v.size()) {}
  template <std::size_t N> ArrayRef(const std::array<T, N> &a) : data_(a.data()), size_(N) {}
  template <std::size_t N> ArrayRef(const T (&a)[N]) : data_(a), size_(N) {}
  // The list lives until the end of the full expression that made it, as long as the view is used.
  ArrayRef(const std::initializer_list<T> &l) : data_(first(l)), size_(l.size()) {}
  const T *data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t max_size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T &front() const { return data_[0]; }
  const T &back() const { return data_[size_ - 1]; }
  const T &operator[](std::size_t i) const { return data_[i]; }
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }
  const T *cbegin() const { return data_; }
  const T *cend() const { return data_ + size_; }
  std::vector<T> cloneAsVector() const { return std::vector<T>(begin(), end()); }

private:
  static const T *first(const std::initializer_list<T> &l) { return l.begin(); }
  const T *data_;
  std::size_t size_;
};

template <class T> bool operator==(ArrayRef<T> a, ArrayRef<T> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i])) return false;
  return true;
}
template <class T> bool operator!=(ArrayRef<T> a, ArrayRef<T> b) { return !(a == b); }

} // namespace poplar

#endif
