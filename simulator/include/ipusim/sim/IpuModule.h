// The SystemC face of an IPU (DESIGN decision 2): each compute phase of all tiles runs free in the
// ISS on the host thread pool, and the module meets the SystemC kernel only at syncs. SystemC time
// advances to each sync's release and to the end of the run at the IPU clock, so the kernel sees
// exactly the ISS's timing; other modules (the host, IPU-Links, other IPUs) meet it there.
#pragma once

#include "ipusim/sim/Ipu.h"

#include <exception>
#include <functional>
#include <systemc>

namespace ipusim::sim {

class IpuModule : public sc_core::sc_module {
public:
  SC_HAS_PROCESS(IpuModule);
  /// Runs `ipu` (its tiles started) from the start of the simulation on `threads` host threads.
  IpuModule(sc_core::sc_module_name name, Ipu &ipu, double clockHz, unsigned threads,
            uint64_t maxCycles = 1ull << 34);

  /// Called after each superstep with its trace events in the canonical order (when tracing).
  std::function<void(std::vector<TraceEvent> &&)> onTrace;
  /// The same one event at a time (used instead of onTrace when set): with Ipu::spillTrace a
  /// long superstep's events come from disk rather than memory.
  std::function<void(TraceEvent &&)> onTraceEvent;
  /// Called after each superstep with the IPU's cycle and the supersteps so far (a progress
  /// display; nothing else depends on it).
  std::function<void(uint64_t cycle, uint64_t supersteps)> onProgress;
  /// Notified when every tile has returned, at the SystemC time of the last tile's last cycle.
  sc_core::sc_event done;
  /// The error that stopped the run (SimException, DeadlockError, ExchangeError), if any; the
  /// module's process ends at it (`done` is not notified).
  std::exception_ptr error() const { return error_; }
  uint64_t supersteps() const { return supersteps_; }
  const IpuStats &stats() const { return stats_; }
  /// The SystemC time of an IPU cycle (rounded once, so times never drift).
  sc_core::sc_time timeOf(uint64_t cycle) const { return sc_core::sc_time(double(cycle) / clockHz_, sc_core::SC_SEC); }

private:
  void run();
  void waitUntil(uint64_t cycle);
  Ipu &ipu_;
  double clockHz_;
  unsigned threads_;
  uint64_t maxCycles_;
  IpuStats stats_;
  std::exception_ptr error_;
  uint64_t supersteps_ = 0;
};

} // namespace ipusim::sim
