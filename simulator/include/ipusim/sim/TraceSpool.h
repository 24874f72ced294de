// Trace events on disk while a run is long (issue 14: an instruction trace of 3e7 cycles held
// 2 GB until the run ended). Tiles hand their events over in batches; each batch is sorted and
// written to a temporary file as a run; draining merges the runs with what is still in memory,
// in the trace's canonical order (docs/trace-format.md), and streams them out. Memory stays
// bounded by the batches in flight and one read buffer per run; when `fanIn` runs of one size
// pile up they are merged into one run of the next size on disk (each event is rewritten once
// per level, as in a merge sort).
#pragma once

#include "ipusim/sim/Trace.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <vector>

namespace ipusim::sim {

/// Where an event falls in the canonical order: by cycle; within a cycle the IPU's own events
/// (part 0), then the tiles by number (part = tile + 1), each tile's supervisor before its
/// workers (context); each part's events in the order they happened (seq).
struct TraceKey {
  uint64_t cycle = 0;
  uint32_t part = 0, context = 0;
  uint64_t seq = 0;
  bool operator<(const TraceKey &o) const {
    if (cycle != o.cycle) return cycle < o.cycle;
    if (part != o.part) return part < o.part;
    if (context != o.context) return context < o.context;
    return seq < o.seq;
  }
};

struct KeyedEvent {
  TraceKey key;
  TraceEvent event;
};

class TraceSpool {
public:
  /// `fanIn`: runs merged at once (and the most kept before merging them into one).
  explicit TraceSpool(size_t fanIn = 64);
  ~TraceSpool();
  TraceSpool(const TraceSpool &) = delete;
  TraceSpool &operator=(const TraceSpool &) = delete;

  /// Sorts `events` and writes them as one run. Safe to call from several threads.
  void spill(std::vector<KeyedEvent> events);
  /// Every spilled event and those of `rest`, in key order, to `sink`; the spool is empty after.
  void drain(std::vector<KeyedEvent> rest, const std::function<void(TraceEvent &&)> &sink);
  /// Events written to disk and not yet drained.
  uint64_t spilledEvents() const { return spilled_; }

private:
  struct Run {
    uint64_t begin = 0, end = 0; ///< bytes in the file
    unsigned level = 0;          ///< merged from fanIn runs of the level below (0: spilled)
  };
  /// Appends `bytes` to the file as a run of `level`.
  void append(const std::string &bytes, unsigned level);
  /// Merges `runs` of `from` (and `rest`, sorted) in key order into `sink`.
  void merge(std::FILE *from, const std::vector<Run> &runs, std::vector<KeyedEvent> rest,
             const std::function<void(KeyedEvent &&)> &sink);

  size_t fanIn_;
  std::mutex mutex_;
  std::FILE *file_ = nullptr; ///< the runs, and the runs they were merged from (a temporary file)
  uint64_t size_ = 0;         ///< bytes written to file_
  std::vector<Run> runs_;
  uint64_t spilled_ = 0;
};

} // namespace ipusim::sim
