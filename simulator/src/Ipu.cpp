#include "ipusim/sim/Ipu.h"

#include <algorithm>
#include <exception>
#include <string>
#include <thread>

namespace ipusim::sim {

Ipu::Ipu(const arch::SystemConfig &config, unsigned tiles) : config_(config), started_(tiles, false) {
  if (tiles == 0 || tiles > config.ipu.tiles)
    throw std::invalid_argument("an IPU of " + std::to_string(config.ipu.tiles) + " tiles cannot have " +
                                std::to_string(tiles));
  for (unsigned t = 0; t < tiles; ++t) tiles_.push_back(std::make_unique<Tile>(config.tile, 0, t));
}

void Ipu::start(unsigned tile, uint32_t pc, uint32_t m0) {
  tiles_.at(tile)->start(pc, m0);
  started_[tile] = true;
}

IpuStats Ipu::run(unsigned threads, uint64_t maxCycles) {
  const unsigned n = tileCount();
  std::vector<Tile::Stop> stop(n, Tile::Stop::Returned);
  std::vector<std::exception_ptr> error(n);
  std::vector<bool> active(started_);
  IpuStats stats;
  // Tiles in a row of supertiles: the unit of the release skew (ipu-facts §4.4).
  const unsigned rowTiles = std::max(1u, config_.ipu.columns * config_.ipu.tilesPerSupertile);
  for (;;) {
    // One superstep: every active tile runs to its next sync or its return. Tiles touch only
    // their own state, so the partition over threads cannot change any result.
    auto work = [&](unsigned first) {
      for (unsigned t = first; t < n; t += std::max(1u, threads)) {
        if (!active[t]) continue;
        try {
          stop[t] = tiles_[t]->run(maxCycles);
        } catch (...) {
          error[t] = std::current_exception();
        }
      }
    };
    if (threads <= 1) {
      work(0);
    } else {
      std::vector<std::thread> pool;
      for (unsigned i = 0; i < std::min(threads, n); ++i) pool.emplace_back(work, i);
      for (std::thread &th : pool) th.join();
    }
    for (unsigned t = 0; t < n; ++t)
      if (error[t]) std::rethrow_exception(error[t]); // the lowest tile first: deterministic
    std::vector<unsigned> waiting, returned;
    uint64_t lastArrival = 0;
    for (unsigned t = 0; t < n; ++t) {
      if (!active[t]) continue;
      if (stop[t] == Tile::Stop::Sync) {
        waiting.push_back(t);
        lastArrival = std::max(lastArrival, tiles_[t]->syncCycle());
      } else {
        returned.push_back(t);
        active[t] = false;
      }
    }
    if (waiting.empty()) break;
    if (!returned.empty()) {
      auto list = [](const std::vector<unsigned> &v) {
        std::string s;
        for (size_t i = 0; i < v.size() && i < 16; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
        return v.size() > 16 ? s + " ..." : s;
      };
      throw DeadlockError("deadlock: tiles " + list(waiting) + " wait in sync 3 (INTERNAL) from cycle " +
                          std::to_string(lastArrival) + ", which tiles " + list(returned) +
                          " never reach (they returned)");
    }
    ++stats.syncs;
    const uint64_t release = lastArrival + config_.sync.internalLatencyCycles;
    for (unsigned t : waiting) tiles_[t]->releaseSync(release + uint64_t(config_.sync.releaseSkewCycles) * (t / rowTiles));
  }
  for (unsigned t = 0; t < n; ++t) {
    stats.tiles.push_back(started_[t] ? tiles_[t]->stats() : TileStats{});
    stats.cycles = std::max(stats.cycles, stats.tiles.back().cycles);
  }
  return stats;
}

} // namespace ipusim::sim
