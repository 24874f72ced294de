// An IPU of tiles and its sync controller (the first part of the IPU model; the exchange fabric
// follows). Between IPU-wide syncs each tile runs free in its ISS (DESIGN decision 2), on a host
// thread pool; results are identical for any number of threads.
#pragma once

#include "ipusim/arch/Config.h"
#include "ipusim/sim/Tile.h"

#include <memory>
#include <stdexcept>
#include <vector>

namespace ipusim::sim {

/// A run that cannot finish: tiles wait in a sync that others never reach.
struct DeadlockError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An exchange the fabric cannot carry out as scheduled: a word no tile selects, two words
/// arriving at one tile in one cycle, or a word arriving after its receiver left the phase.
struct ExchangeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct IpuStats {
  uint64_t cycles = 0;         ///< when the last tile returned
  uint64_t syncs = 0;          ///< IPU-wide syncs completed
  std::vector<TileStats> tiles;
};

class Ipu {
public:
  /// `tiles` of the IPU described by `config` (at most config.ipu.tiles).
  Ipu(const arch::SystemConfig &config, unsigned tiles);

  unsigned tileCount() const { return unsigned(tiles_.size()); }
  Tile &tile(unsigned i) { return *tiles_.at(i); }
  /// Tiles not started take no part (they count as returned at cycle 0).
  void start(unsigned tile, uint32_t pc, uint32_t m0);

  /// Runs every started tile to its return. An INTERNAL sync (zone 3) completes when the last
  /// started tile arrives: each is released sync.internal_latency_cycles later, plus
  /// sync.release_skew_cycles per supertile row of its distance from the sync controller (row 0).
  /// Throws SimException (the lowest-numbered tile's, whatever the thread count) or DeadlockError.
  IpuStats run(unsigned threads, uint64_t maxCycles = 1ull << 34);

  /// Cycles from a send on tile `src` to the word reaching the mux of tile `dst`: a function of
  /// the layout (supertiles in columns and rows, ipu-facts §4.4) whose parameters are
  /// exchange.base_latency_cycles, cycles_per_column and cycles_per_supertile_row (provisional).
  uint64_t latency(unsigned src, unsigned dst) const;

private:
  /// Delivers the words sent since the last sync (DESIGN decision 3); `phaseEnd[t]` is the cycle
  /// tile t entered the sync (or returned).
  void resolveExchange(const std::vector<unsigned> &tiles, const std::vector<uint64_t> &phaseEnd);

  arch::SystemConfig config_;
  std::vector<std::unique_ptr<Tile>> tiles_;
  std::vector<bool> started_;
};

} // namespace ipusim::sim
