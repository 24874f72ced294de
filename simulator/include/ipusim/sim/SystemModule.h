// The SystemC face of a system of IPUs (DESIGN decision 2, as IpuModule for one IPU): the IPUs'
// supersteps run free in the ISS, and the module meets the SystemC kernel at each external sync's
// release and at the end of the run, so SystemC time follows the system's IPU clock exactly.
#pragma once

#include "ipusim/sim/System.h"

#include <exception>
#include <functional>
#include <systemc>

namespace ipusim::sim {

class SystemModule : public sc_core::sc_module {
public:
  SC_HAS_PROCESS(SystemModule);
  SystemModule(sc_core::sc_module_name name, System &system, unsigned threads, uint64_t maxCycles = 1ull << 34);

  /// Called after each system step with its trace lines in the canonical order (when set; with a
  /// partition, set it on every rank: rank 0 gets all ranks' lines, the others none).
  std::function<void(std::vector<std::string> &&)> onTraceLines;
  /// Called after each step with the release cycle and the steps so far (a progress display).
  std::function<void(uint64_t cycle, uint64_t steps)> onProgress;
  /// Called at each sync the host takes part in (isHostSyncZone), at the cycle the sync reaches
  /// the host (the last arrival plus sync.external_latency_cycles, SystemC time there); returns
  /// the cycle the host is done (its transfers over the host link), before which the tiles are
  /// not released.
  std::function<uint64_t(const System::Step &)> onHostSync;
  sc_core::sc_event done;
  /// The error that stopped the run (SimException, DeadlockError, ExchangeError), if any.
  std::exception_ptr error() const { return error_; }
  const SystemStats &stats() const { return stats_; }

private:
  void run();
  void waitUntil(uint64_t cycle);
  System &system_;
  unsigned threads_;
  uint64_t maxCycles_;
  SystemStats stats_;
  std::exception_ptr error_;
  uint64_t steps_ = 0;
};

} // namespace ipusim::sim
