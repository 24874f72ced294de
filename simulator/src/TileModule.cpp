#include "ipusim/sim/TileModule.h"

namespace ipusim::sim {

TileModule::TileModule(sc_core::sc_module_name name, Tile &tile, double clockHz)
    : sc_core::sc_module(name), tile_(tile), period_(1.0 / clockHz, sc_core::SC_SEC) {
  SC_THREAD(run);
}

void TileModule::run() {
  if (!armed_) return;
  // The whole compute phase runs in the ISS without yielding: tiles touch only their own memory
  // between syncs (ipu-facts §4.1), so this is exact. Sync and exchange events arrive with the
  // IPU model; until then the phase ends when the supervisor returns.
  try {
    stats_ = tile_.runSupervisor(pc_, m0_);
  } catch (const SimException &e) {
    error_ = e.what();
    stats_.cycles = tile_.cycle();
  }
  wait(period_ * double(stats_.cycles));
  done.notify();
}

} // namespace ipusim::sim
