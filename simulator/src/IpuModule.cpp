#include "ipusim/sim/IpuModule.h"

namespace ipusim::sim {

IpuModule::IpuModule(sc_core::sc_module_name name, Ipu &ipu, double clockHz, unsigned threads, uint64_t maxCycles)
    : sc_core::sc_module(name), ipu_(ipu), clockHz_(clockHz), threads_(threads), maxCycles_(maxCycles) {
  SC_THREAD(run);
}

void IpuModule::waitUntil(uint64_t cycle) {
  sc_core::sc_time at = timeOf(cycle);
  if (at > sc_core::sc_time_stamp()) wait(at - sc_core::sc_time_stamp());
}

void IpuModule::run() {
  try {
    for (;;) {
      // Every tile runs to its next sync without yielding: tiles touch only their own memory
      // between syncs (ipu-facts §4.1), so this is exact.
      Ipu::Superstep s = ipu_.compute(threads_, maxCycles_);
      if (onTraceEvent) ipu_.drainTrace(onTraceEvent);
      else if (onTrace) onTrace(ipu_.takeTrace());
      if (onProgress) onProgress(s.lastArrival, ++supersteps_);
      if (s.finished) break;
      // The sync controller releases the tiles after the zone's latency (ipu-facts §4.5).
      const uint64_t release = s.lastArrival + ipu_.syncLatency(s.zone);
      waitUntil(release);
      ipu_.release(release);
    }
    stats_ = ipu_.stats();
    waitUntil(stats_.cycles);
    done.notify();
  } catch (...) {
    // The module's thread ends here; with nothing else scheduled the simulation ends with it.
    error_ = std::current_exception();
    stats_ = ipu_.stats();
  }
}

} // namespace ipusim::sim
