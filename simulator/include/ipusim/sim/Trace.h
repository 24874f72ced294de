// The canonical trace format (docs/trace-format.md): events with their cycle, name, place and
// fields, written and read as text. The simulator collects events per tile and writes them in the
// canonical order, so traces are byte-identical for any host thread count.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ipusim::sim {

/// A trace that cannot be read, formatted as `FILE:LINE:COL: error: ...`.
struct TraceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TraceEvent {
  uint64_t cycle = 0;
  std::string event; ///< e.g. "vertex.begin"
  std::string where; ///< e.g. "ipu0.tile3.worker2"
  std::vector<std::pair<std::string, std::string>> fields; ///< key, unquoted value

  /// The value of `key`, or nullptr.
  const std::string *field(const std::string &key) const;
  TraceEvent &add(std::string key, std::string value) {
    fields.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  TraceEvent &add(std::string key, uint64_t value) { return add(std::move(key), std::to_string(value)); }
  TraceEvent &addHex(std::string key, uint32_t value);
};

/// The `config` line.
struct TraceHeader {
  std::string config;
  double clockHz = 0;
  unsigned ipus = 0, tiles = 0;
};

/// True for the fields `ipu-trace diff --cycle-tolerance` applies to (key ends in cycle/cycles).
bool isCycleField(const std::string &key);

/// A value as the format writes it: bare if it is a non-empty token of letters, digits and
/// `._:+-/`, otherwise double-quoted with `"` and `\` escaped.
std::string formatTraceValue(const std::string &value);
/// One event as a line of the format (no newline); values are quoted where they need it.
std::string formatTraceEvent(const TraceEvent &e);
/// The two header lines (with newlines).
std::string formatTraceHeader(const TraceHeader &h);

/// A trace read from a file; `lines[i]` is the file line of `events[i]`.
struct TraceFile {
  TraceHeader header;
  std::vector<TraceEvent> events;
  std::vector<unsigned> lines;
};
/// Reads a trace; throws TraceError naming the file, line and column of a malformed line.
TraceFile readTrace(const std::string &path);
/// The same from a stream; `name` is used in error messages.
TraceFile readTrace(std::istream &in, const std::string &name);

} // namespace ipusim::sim
