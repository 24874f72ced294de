// ipusim's Poplar SDK: poplar::Interval, a half-open range [begin, end) of flattened elements.
#ifndef IPUSIM_POPLAR_INTERVAL_HPP
#define IPUSIM_POPLAR_INTERVAL_HPP

#include <cstddef>
#include <ostream>

namespace poplar {

template <class T> class GenericInterval {
public:
  GenericInterval() : begin_(), end_() {}
  GenericInterval(T begin, T end) : begin_(begin), end_(end) {}
  const T &begin() const { return begin_; }
  const T &end() const { return end_; }
  T size() const { return end_ - begin_; }
  bool operator==(const GenericInterval &o) const { return begin_ == o.begin_ && end_ == o.end_; }
  bool operator!=(const GenericInterval &o) const { return !(*this == o); }
  bool operator<(const GenericInterval &o) const { return begin_ != o.begin_ ? begin_ < o.begin_ : end_ < o.end_; }
  bool operator>(const GenericInterval &o) const { return o < *this; }
  bool operator<=(const GenericInterval &o) const { return !(o < *this); }
  bool operator>=(const GenericInterval &o) const { return !(*this < o); }

private:
  T begin_, end_;
};

typedef GenericInterval<std::size_t> Interval;

template <class T> std::ostream &operator<<(std::ostream &os, const GenericInterval<T> &i) {
  return os << '[' << i.begin() << ", " << i.end() << ')';
}

} // namespace poplar

#endif
