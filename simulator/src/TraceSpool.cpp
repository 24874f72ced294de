#include "ipusim/sim/TraceSpool.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <queue>
#include <stdexcept>
#include <string>

namespace ipusim::sim {

namespace {

// A record: its length (u32, the bytes after it), the key, then the event's strings, each a u32
// length and its bytes, little-endian as the host writes it (the file never leaves the run).
void putU32(std::string &b, uint32_t v) { b.append(reinterpret_cast<const char *>(&v), 4); }
void putU64(std::string &b, uint64_t v) { b.append(reinterpret_cast<const char *>(&v), 8); }
void putString(std::string &b, const std::string &s) {
  putU32(b, uint32_t(s.size()));
  b += s;
}

void encode(std::string &out, const KeyedEvent &k) {
  std::string r;
  putU64(r, k.key.cycle);
  putU32(r, k.key.part);
  putU32(r, k.key.context);
  putU64(r, k.key.seq);
  putU64(r, k.event.cycle);
  putString(r, k.event.event);
  putString(r, k.event.where);
  putU32(r, uint32_t(k.event.fields.size()));
  for (const auto &[key, value] : k.event.fields) {
    putString(r, key);
    putString(r, value);
  }
  putU32(out, uint32_t(r.size()));
  out += r;
}

class Cursor {
public:
  Cursor(const char *p, const char *end) : p_(p), end_(end) {}
  uint32_t u32() { return get<uint32_t>(); }
  uint64_t u64() { return get<uint64_t>(); }
  std::string string() {
    const uint32_t n = u32();
    if (size_t(end_ - p_) < n) throw std::runtime_error("trace spool: a damaged record");
    std::string s(p_, n);
    p_ += n;
    return s;
  }

private:
  template <class T> T get() {
    if (size_t(end_ - p_) < sizeof(T)) throw std::runtime_error("trace spool: a damaged record");
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  const char *p_, *end_;
};

KeyedEvent decode(const char *p, size_t n) {
  Cursor c(p, p + n);
  KeyedEvent k;
  k.key.cycle = c.u64();
  k.key.part = c.u32();
  k.key.context = c.u32();
  k.key.seq = c.u64();
  k.event.cycle = c.u64();
  k.event.event = c.string();
  k.event.where = c.string();
  const uint32_t fields = c.u32();
  for (uint32_t i = 0; i < fields; ++i) {
    std::string key = c.string();
    k.event.fields.emplace_back(std::move(key), c.string());
  }
  return k;
}

/// Reads one run's records in order, through a buffer of its own.
class RunReader {
public:
  RunReader(int fd, uint64_t begin, uint64_t end) : fd_(fd), at_(begin), end_(end) {}
  /// The next record, or false at the end of the run.
  bool next(KeyedEvent &out) {
    if (!ensure(4)) return false;
    uint32_t n;
    std::memcpy(&n, buffer_.data() + pos_, 4);
    if (!ensure(4 + size_t(n))) throw std::runtime_error("trace spool: a record runs past its run");
    out = decode(buffer_.data() + pos_ + 4, n);
    pos_ += 4 + size_t(n);
    return true;
  }

private:
  /// At least `n` unread bytes in the buffer (false if the run has fewer).
  bool ensure(size_t n) {
    if (buffer_.size() - pos_ >= n) return true;
    buffer_.erase(0, pos_);
    pos_ = 0;
    while (buffer_.size() < n && at_ < end_) {
      const size_t want = size_t(std::min<uint64_t>(std::max<size_t>(n - buffer_.size(), kChunk), end_ - at_));
      const size_t old = buffer_.size();
      buffer_.resize(old + want);
      const ssize_t got = ::pread(fd_, buffer_.data() + old, want, off_t(at_));
      if (got <= 0) throw std::runtime_error("trace spool: reading the temporary file failed");
      buffer_.resize(old + size_t(got));
      at_ += uint64_t(got);
    }
    return buffer_.size() >= n;
  }
  static constexpr size_t kChunk = 64 * 1024;
  int fd_;
  uint64_t at_, end_;
  std::string buffer_;
  size_t pos_ = 0;
};

std::FILE *temporaryFile() {
  std::FILE *f = std::tmpfile();
  if (!f) throw std::runtime_error("trace spool: cannot create a temporary file for the trace");
  return f;
}

} // namespace

TraceSpool::TraceSpool(size_t fanIn) : fanIn_(std::max<size_t>(fanIn, 2)) {}

TraceSpool::~TraceSpool() {
  if (file_) std::fclose(file_);
}

void TraceSpool::append(const std::string &bytes, unsigned level) {
  if (!file_) file_ = temporaryFile();
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    throw std::runtime_error("trace spool: writing the temporary file failed (disk full?)");
  runs_.push_back({size_, size_ + bytes.size(), level});
  size_ += bytes.size();
}

void TraceSpool::spill(std::vector<KeyedEvent> events) {
  if (events.empty()) return;
  std::sort(events.begin(), events.end(), [](const KeyedEvent &a, const KeyedEvent &b) { return a.key < b.key; });
  std::string bytes;
  for (const KeyedEvent &k : events) encode(bytes, k);
  std::lock_guard<std::mutex> lock(mutex_);
  append(bytes, 0);
  spilled_ += events.size();
  // fanIn runs of one level become one run of the next, appended to the file.
  for (unsigned level = 0;; ++level) {
    std::vector<Run> same, others;
    for (const Run &r : runs_) (r.level == level ? same : others).push_back(r);
    if (same.size() < fanIn_) break;
    std::string out;
    const uint64_t begin = size_;
    merge(file_, same, {}, [&](KeyedEvent &&k) {
      encode(out, k);
      if (out.size() >= (1u << 20)) {
        if (std::fwrite(out.data(), 1, out.size(), file_) != out.size())
          throw std::runtime_error("trace spool: writing the temporary file failed (disk full?)");
        size_ += out.size();
        out.clear();
      }
    });
    if (std::fwrite(out.data(), 1, out.size(), file_) != out.size())
      throw std::runtime_error("trace spool: writing the temporary file failed (disk full?)");
    size_ += out.size();
    others.push_back({begin, size_, level + 1});
    runs_ = std::move(others);
  }
}

void TraceSpool::merge(std::FILE *from, const std::vector<Run> &runs, std::vector<KeyedEvent> rest,
                       const std::function<void(KeyedEvent &&)> &sink) {
  std::sort(rest.begin(), rest.end(), [](const KeyedEvent &a, const KeyedEvent &b) { return a.key < b.key; });
  std::vector<RunReader> readers;
  if (from) {
    std::fflush(from);
    for (const Run &r : runs) readers.emplace_back(fileno(from), r.begin, r.end);
  }
  // The head of each source: the runs, then `rest` as source readers.size().
  std::vector<KeyedEvent> head(readers.size() + 1);
  size_t restAt = 0;
  auto advance = [&](size_t s) {
    if (s < readers.size()) return readers[s].next(head[s]);
    if (restAt >= rest.size()) return false;
    head[s] = std::move(rest[restAt++]);
    return true;
  };
  auto later = [&](size_t a, size_t b) { return head[b].key < head[a].key; };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> queue(later);
  for (size_t s = 0; s < head.size(); ++s)
    if (advance(s)) queue.push(s);
  while (!queue.empty()) {
    const size_t s = queue.top();
    queue.pop();
    sink(std::move(head[s]));
    if (advance(s)) queue.push(s);
  }
}

void TraceSpool::drain(std::vector<KeyedEvent> rest, const std::function<void(TraceEvent &&)> &sink) {
  std::lock_guard<std::mutex> lock(mutex_);
  merge(file_, runs_, std::move(rest), [&](KeyedEvent &&k) { sink(std::move(k.event)); });
  if (file_) {
    std::fclose(file_);
    file_ = nullptr;
  }
  size_ = 0;
  runs_.clear();
  spilled_ = 0;
}

} // namespace ipusim::sim
