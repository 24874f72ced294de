// A system's IPUs split over processes (DESIGN decision 7; docs/systems.md "Several processes"):
// each process (rank) runs the IPUs it owns, and the ranks meet only at external syncs, where
// they swap what their IPUs did (sync arrivals, packets for other IPUs, errors) so that every
// rank takes the same decisions. The transport is behind this interface (MPI in
// MpiPartition.h), so the simulator library itself does not depend on MPI.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace ipusim::sim {

class Partition {
public:
  virtual ~Partition() = default;
  virtual unsigned rank() const = 0;
  virtual unsigned size() const = 0;
  /// Every rank's bytes, in rank order (each rank calls it at the same point).
  virtual std::vector<std::vector<uint8_t>> allGather(const std::vector<uint8_t> &mine) = 0;
  /// The rank that runs IPU `ipu` of `ipus`: contiguous blocks, so neighbours in a ladder share
  /// a rank as often as they can.
  unsigned owner(unsigned ipu, unsigned ipus) const { return unsigned(uint64_t(ipu) * size() / ipus); }
};

/// Little helpers to put plain values and strings into the bytes ranks swap.
class ByteWriter {
public:
  template <class T> ByteWriter &put(const T &v) {
    const size_t at = bytes.size();
    bytes.resize(at + sizeof(T));
    std::memcpy(bytes.data() + at, &v, sizeof(T));
    return *this;
  }
  ByteWriter &put(const std::string &s) {
    put(uint64_t(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
    return *this;
  }
  std::vector<uint8_t> bytes;
};

class ByteReader {
public:
  explicit ByteReader(const std::vector<uint8_t> &bytes) : bytes_(bytes) {}
  template <class T> T get() {
    T v;
    need(sizeof(T));
    std::memcpy(&v, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  /// Reads the next value into `v` (chains: r.get(a).get(b)).
  template <class T> ByteReader &get(T &v) {
    v = get<T>();
    return *this;
  }
  std::string getString() {
    const size_t n = size_t(get<uint64_t>());
    need(n);
    std::string s(bytes_.begin() + long(at_), bytes_.begin() + long(at_ + n));
    at_ += n;
    return s;
  }
  /// Copies the next `n` bytes to `to`.
  void read(void *to, size_t n) {
    need(n);
    if (n) std::memcpy(to, bytes_.data() + at_, n);
    at_ += n;
  }
  bool done() const { return at_ == bytes_.size(); }

private:
  void need(size_t n) const {
    if (at_ + n > bytes_.size()) throw std::logic_error("partition: a rank's message ended early");
  }
  const std::vector<uint8_t> &bytes_;
  size_t at_ = 0;
};

} // namespace ipusim::sim
