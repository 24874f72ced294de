#include "ipusim/sim/SystemModule.h"

namespace ipusim::sim {

SystemModule::SystemModule(sc_core::sc_module_name name, System &system, unsigned threads, uint64_t maxCycles)
    : sc_core::sc_module(name), system_(system), threads_(threads), maxCycles_(maxCycles) {
  SC_THREAD(run);
}

void SystemModule::waitUntil(uint64_t cycle) {
  const sc_core::sc_time at(double(cycle) / system_.config().ipu.clockHz, sc_core::SC_SEC);
  if (at > sc_core::sc_time_stamp()) wait(at - sc_core::sc_time_stamp());
}

void SystemModule::run() {
  try {
    for (;;) {
      System::Step s = system_.compute(threads_, maxCycles_);
      if (onTraceLines) onTraceLines(system_.takeTraceLines());
      if (onProgress) onProgress(s.release, ++steps_);
      if (s.finished) break;
      uint64_t release = s.release;
      if (onHostSync && isHostSyncZone(s.zone)) {
        waitUntil(s.lastArrival + system_.config().sync.externalLatencyCycles);
        release = std::max(release, onHostSync(s));
      }
      waitUntil(release);
      system_.release(release);
    }
    if (onTraceLines) onTraceLines(system_.takeTraceLines());
    stats_ = system_.stats();
    waitUntil(stats_.cycles);
    done.notify();
  } catch (...) {
    error_ = std::current_exception();
    stats_ = system_.stats();
  }
}

} // namespace ipusim::sim
