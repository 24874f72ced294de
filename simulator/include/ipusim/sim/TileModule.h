// The SystemC face of a tile (DESIGN decision 2): the ISS runs a compute phase free, with its own
// cycle counter, and meets the SystemC kernel only when the phase ends. SystemC time then
// advances by the phase's cycles at the IPU clock, so the kernel sees exactly the ISS's timing.
#pragma once

#include "ipusim/sim/Tile.h"

#include <systemc>

namespace ipusim::sim {

class TileModule : public sc_core::sc_module {
public:
  SC_HAS_PROCESS(TileModule);
  /// `clockHz` is the IPU clock (ipu.clock_hz in arch/configs).
  TileModule(sc_core::sc_module_name name, Tile &tile, double clockHz);

  /// Runs the supervisor from `pc` (with $m0 = `m0`) at the start of the simulation.
  void start(uint32_t pc, uint32_t m0) {
    pc_ = pc;
    m0_ = m0;
    armed_ = true;
  }
  const TileStats &stats() const { return stats_; }
  /// Notified when the supervisor has returned (at the SystemC time of its last cycle).
  sc_core::sc_event done;
  /// A simulated exception of the run, if any (the module stops at its cycle).
  const std::string &error() const { return error_; }

private:
  void run();
  Tile &tile_;
  sc_core::sc_time period_;
  uint32_t pc_ = 0, m0_ = 0;
  bool armed_ = false;
  TileStats stats_;
  std::string error_;
};

} // namespace ipusim::sim
