// What `ipu-trace` does with a trace (docs/trace-format.md, "Tools"): show it, compare two, and
// export it to Chrome trace-event JSON for Perfetto. The tool is a thin main over these.
#pragma once

#include "ipusim/sim/Trace.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ipusim::sim {

/// Where an event happened, from its WHERE: `ipuN`, `ipuN.sync`, `ipuN.tileT.supervisor` or
/// `ipuN.tileT.workerW`.
struct TracePlace {
  unsigned ipu = 0;
  std::optional<unsigned> tile;
  unsigned context = 0; ///< for a tile: 0 the supervisor, 1..6 workers 0..5
};
/// The place named by `where`, or nullopt if it is none of the forms above.
std::optional<TracePlace> parseTracePlace(const std::string &where);

/// `ipu-trace show`: which events to print (all when nothing is set).
struct TraceShowOptions {
  std::optional<unsigned> tile;          ///< only this tile's contexts (of any IPU)
  std::optional<uint64_t> from, to;      ///< only cycles from..to, both included
  std::string eventPrefix;               ///< only events whose name starts with this
};
/// The chosen events in aligned columns (cycle, event, where, fields), then a summary: how many
/// were shown, their cycle span and a count per event name.
std::string showTrace(const TraceFile &trace, const TraceShowOptions &options);

/// `ipu-trace diff --cycle-tolerance`: an absolute number of cycles, or a percentage of the first
/// trace's value.
struct CycleTolerance {
  double amount = 0;
  bool percent = false;
};
/// Parses "N" or "P%" (P may have a fraction); false if it is neither.
bool parseCycleTolerance(const std::string &text, CycleTolerance &out);

/// Compares two traces: the headers and every event, field by field (cycle fields within
/// `tolerance`, everything else exactly). Returns "" when they are equal, otherwise a report of
/// the first divergence: both places as FILE:LINE, what differs, and up to three events before it
/// in each trace. `nameA`/`nameB` are the file names used in the report.
std::string diffTraces(const TraceFile &a, const std::string &nameA, const TraceFile &b, const std::string &nameB,
                       const CycleTolerance &tolerance = {});

/// Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing): a process per IPU (pid N+1: pid 0
/// is special to Perfetto), a thread per tile context (tid 1 + tile*7 + context) and tid 0 for the
/// IPU's phases and syncs; cycles become microseconds at the header's clock.
std::string exportPerfetto(const TraceFile &trace);

} // namespace ipusim::sim
