#include "ipusim/sim/Ipu.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>

namespace ipusim::sim {

Ipu::Ipu(const arch::SystemConfig &config, unsigned tiles) : config_(config), started_(tiles, false) {
  if (tiles == 0 || tiles > config.ipu.tiles)
    throw std::invalid_argument("an IPU of " + std::to_string(config.ipu.tiles) + " tiles cannot have " +
                                std::to_string(tiles));
  for (unsigned t = 0; t < tiles; ++t) {
    tiles_.push_back(std::make_unique<Tile>(config.tile, 0, t));
    tiles_.back()->setInIpu(true);
  }
}

void Ipu::start(unsigned tile, uint32_t pc, uint32_t m0) {
  tiles_.at(tile)->start(pc, m0);
  started_[tile] = true;
}

uint64_t Ipu::latency(unsigned src, unsigned dst) const {
  const unsigned perSupertile = std::max(1u, config_.ipu.tilesPerSupertile), columns = std::max(1u, config_.ipu.columns);
  auto place = [&](unsigned t) { unsigned st = t / perSupertile; return std::make_pair(st % columns, st / columns); };
  auto [cs, rs] = place(src);
  auto [cd, rd] = place(dst);
  auto dist = [](unsigned a, unsigned b) { return uint64_t(a > b ? a - b : b - a); };
  return config_.exchange.baseLatencyCycles + config_.exchange.cyclesPerColumn * dist(cs, cd) +
         config_.exchange.cyclesPerSupertileRow * dist(rs, rd);
}

void Ipu::resolveExchange(const std::vector<unsigned> &tiles, const std::vector<uint64_t> &phaseEnd) {
  struct Delivery {
    uint64_t arrival;
    unsigned src;
    uint64_t sent;
    uint32_t word;
  };
  auto valueAt = [](const std::vector<ExchangeLog::Setting> &settings, uint32_t initial, uint64_t cycle) {
    uint32_t v = initial;
    for (const ExchangeLog::Setting &s : settings)
      if (s.cycle <= cycle) v = s.value;
    return v;
  };
  const unsigned n = tileCount();
  std::vector<std::vector<Delivery>> inbox(n);
  for (unsigned src : tiles)
    for (const ExchangeLog::Send &send : tiles_[src]->exchange().sends) {
      unsigned receivers = 0;
      for (unsigned dst : tiles) {
        uint64_t arrival = send.cycle + latency(src, dst);
        const ExchangeLog &log = tiles_[dst]->exchange();
        if (valueAt(log.mux, log.muxAtStart, arrival) != src) continue;
        inbox[dst].push_back({arrival, src, send.cycle, send.word});
        ++receivers;
      }
      if (!receivers)
        throw ExchangeError("exchange: the word tile " + std::to_string(src) + " sent at cycle " +
                            std::to_string(send.cycle) + " is selected by no tile");
    }
  for (unsigned dst : tiles) {
    std::vector<Delivery> &in = inbox[dst];
    std::stable_sort(in.begin(), in.end(), [](const Delivery &a, const Delivery &b) { return a.arrival < b.arrival; });
    Tile &tile = *tiles_[dst];
    ExchangeLog &log = tile.exchange();
    uint32_t delta = log.deltaAtStart;
    size_t nextDelta = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const Delivery &d = in[i];
      if (i && in[i - 1].arrival == d.arrival)
        throw ExchangeError("exchange: tiles " + std::to_string(in[i - 1].src) + " and " + std::to_string(d.src) +
                            " deliver words to tile " + std::to_string(dst) + " in the same cycle " +
                            std::to_string(d.arrival));
      if (d.arrival >= phaseEnd[dst])
        throw ExchangeError("exchange: the word tile " + std::to_string(d.src) + " sent at cycle " +
                            std::to_string(d.sent) + " reaches tile " + std::to_string(dst) + " at cycle " +
                            std::to_string(d.arrival) + ", after it entered the sync at cycle " +
                            std::to_string(phaseEnd[dst]));
      // $INCOMING_BASE + $INCOMING_DELTA is the word's address; the delta counts up by 4 a word
      // and an explicit put sets it ([F] S2).
      for (; nextDelta < log.delta.size() && log.delta[nextDelta].cycle <= d.arrival; ++nextDelta)
        delta = log.delta[nextDelta].value;
      uint32_t addr = valueAt(log.base, log.baseAtStart, d.arrival) + delta;
      if (!tile.memory().contains(addr, 4) || addr % 4)
        throw ExchangeError("exchange: tile " + std::to_string(dst) + " receives a word at 0x" + [addr] {
          char b[16];
          std::snprintf(b, sizeof b, "%x", addr);
          return std::string(b);
        }() + ", which is not an aligned address of tile memory");
      tile.memory().write<uint32_t>(addr, d.word);
      delta += 4;
    }
    if (!in.empty() || !log.delta.empty()) tile.incomingDelta = delta;
  }
  for (unsigned t : tiles) {
    Tile &tile = *tiles_[t];
    ExchangeLog &log = tile.exchange();
    log.clear();
    log.muxAtStart = tile.incomingMux;
    log.baseAtStart = tile.incomingBase;
    log.deltaAtStart = tile.incomingDelta;
  }
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
    // The words sent in the phase that just ended reach their receivers.
    std::vector<unsigned> inPhase(waiting);
    inPhase.insert(inPhase.end(), returned.begin(), returned.end());
    std::sort(inPhase.begin(), inPhase.end());
    std::vector<uint64_t> phaseEnd(n, 0);
    for (unsigned t : waiting) phaseEnd[t] = tiles_[t]->syncCycle();
    for (unsigned t : returned) phaseEnd[t] = tiles_[t]->stats().cycles;
    resolveExchange(inPhase, phaseEnd);
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
