#include "ipusim/sim/Ipu.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>

namespace ipusim::sim {

namespace {

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

} // namespace

bool isIpuSyncZone(unsigned zone) { return zone == 3 || (zone >= 4 && zone <= 7) || (zone >= 12 && zone <= 15); }

std::string syncZoneName(unsigned zone) {
  // [RE] S8 TileSyncZone (ipu-facts §4.5): 4-7 the slave and 12-15 the master side of the
  // external groups.
  static const char *const external[] = {"EXTERNAL GS1", "EXTERNAL GS1 with the host", "EXTERNAL GS2",
                                         "EXTERNAL GS2 with the host"};
  switch (zone) {
  case 0: return "RECV";
  case 1: return "ANS";
  case 2: return "LOCAL";
  case 3: return "INTERNAL";
  default:
    if (zone >= 4 && zone <= 7) return external[zone - 4];
    if (zone >= 12 && zone <= 15) return std::string(external[zone - 12]) + " (master)";
    return "zone " + std::to_string(zone);
  }
}

Ipu::Ipu(const arch::SystemConfig &config, unsigned tiles, unsigned id)
    : config_(config), id_(id), started_(tiles, false), active_(tiles, false) {
  if (tiles == 0 || tiles > config.ipu.tiles)
    throw std::invalid_argument("an IPU of " + std::to_string(config.ipu.tiles) + " tiles cannot have " +
                                std::to_string(tiles));
  for (unsigned t = 0; t < tiles; ++t) {
    tiles_.push_back(std::make_unique<Tile>(config.tile, id, t));
    tiles_.back()->setInIpu(true);
  }
}

void Ipu::start(unsigned tile, uint32_t pc, uint32_t m0) {
  tiles_.at(tile)->start(pc, m0);
  started_[tile] = active_[tile] = true;
}

void Ipu::setTracing(bool events, bool instructions) {
  tracing_ = events || instructions;
  for (auto &t : tiles_) t->setTracing(events, instructions);
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

uint64_t Ipu::syncLatency(unsigned zone) const {
  return zone == 3 ? config_.sync.internalLatencyCycles : config_.sync.externalLatencyCycles;
}

std::string Ipu::tileList(const std::vector<unsigned> &v) const {
  std::string s;
  for (size_t i = 0; i < v.size() && i < 16; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return v.size() > 16 ? s + " ... (" + std::to_string(v.size()) + " tiles)" : s;
}

void Ipu::resolveExchange(const std::vector<unsigned> &tiles, const std::vector<uint64_t> &phaseEnd) {
  const unsigned n = tileCount();
  // Where each receiver's mux selects a source: windows [from, to) of constant $INCOMING_MUX, in
  // cycle order per receiver, filed under the source they select. A put to the mux at cycle c
  // selects for the words arriving from c on. The last window stays open past the phase's end so
  // that late words are found and reported.
  struct Window {
    unsigned dst;
    uint64_t from, to;
  };
  std::vector<std::vector<Window>> bySource(n);
  for (unsigned dst : tiles) {
    const ExchangeLog &log = tiles_[dst]->exchange();
    uint32_t value = log.muxAtStart;
    uint64_t from = 0;
    for (const ExchangeLog::Setting &s : log.mux) {
      if (value < n && s.cycle > from) bySource[value].push_back({dst, from, s.cycle});
      value = s.value;
      from = std::max(from, s.cycle);
    }
    if (value < n) bySource[value].push_back({dst, from, UINT64_MAX});
  }

  struct Delivery {
    uint64_t arrival;
    unsigned src;
    uint32_t instruction, word;
    uint64_t sent;
  };
  std::vector<std::vector<Delivery>> inbox(n);
  for (unsigned src : tiles) {
    Tile &sender = *tiles_[src];
    const std::vector<ExchangeLog::Send> &sends = sender.exchange().sends;
    if (sends.empty()) continue;
    phaseSent_ = true;
    const size_t instructions = sender.exchange().instructions.size();
    std::vector<unsigned> receivers(instructions, 0), lastReceiver(instructions, UINT32_MAX);
    std::vector<uint8_t> taken(sends.size(), 0);
    for (const Window &w : bySource[src]) {
      const uint64_t lat = latency(src, w.dst);
      // Sends are in cycle order: the first whose word arrives in the window, then every one
      // until the window closes.
      auto it = std::lower_bound(sends.begin(), sends.end(), w.from,
                                 [lat](const ExchangeLog::Send &s, uint64_t from) { return s.cycle + lat < from; });
      for (; it != sends.end() && it->cycle + lat < w.to; ++it) {
        inbox[w.dst].push_back({it->cycle + lat, src, it->instruction, it->word, it->cycle});
        taken[size_t(it - sends.begin())] = 1;
        if (lastReceiver[it->instruction] != w.dst) {
          lastReceiver[it->instruction] = w.dst;
          ++receivers[it->instruction];
        }
      }
    }
    for (size_t i = 0; i < sends.size(); ++i)
      if (!taken[i])
        throw ExchangeError("exchange: the word tile " + std::to_string(src) + " sent at cycle " +
                            std::to_string(sends[i].cycle) + " is selected by no tile's $INCOMING_MUX when it arrives");
    sender.countExchange(sends.size(), 0);
    if (sender.tracing())
      for (size_t i = 0; i < instructions; ++i) {
        const ExchangeLog::Instruction &ins = sender.exchange().instructions[i];
        sender.traceEvent(ins.cycle, kSupervisor, "exchange.send")
            .add("words", ins.words)
            .addHex("addr", ins.addr)
            .add("width", 32)
            .add("receivers", receivers[i]);
      }
  }

  for (unsigned dst : tiles) {
    std::vector<Delivery> &in = inbox[dst];
    std::sort(in.begin(), in.end(), [](const Delivery &a, const Delivery &b) {
      return a.arrival != b.arrival ? a.arrival < b.arrival : a.src < b.src;
    });
    Tile &tile = *tiles_[dst];
    ExchangeLog &log = tile.exchange();
    uint32_t delta = log.deltaAtStart, base = log.baseAtStart;
    size_t nextDelta = 0, nextBase = 0;
    // Consecutive words of one send into consecutive addresses make one receive event.
    struct Group {
      const Delivery *first = nullptr;
      uint32_t addr = 0, words = 0;
      uint64_t last = 0;
    } group;
    auto flush = [&] {
      if (group.first && tile.tracing())
        tile.traceEvent(group.first->arrival, kSupervisor, "exchange.receive")
            .add("from", group.first->src)
            .add("words", group.words)
            .addHex("addr", group.addr)
            .add("last_cycle", group.last);
      group = Group{};
    };
    const Delivery *previous = nullptr;
    for (const Delivery &d : in) {
      if (previous && previous->arrival == d.arrival)
        throw ExchangeError("exchange: words from tiles " + std::to_string(previous->src) + " and " +
                            std::to_string(d.src) + " reach tile " + std::to_string(dst) + " in the same cycle " +
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
      for (; nextBase < log.base.size() && log.base[nextBase].cycle <= d.arrival; ++nextBase)
        base = log.base[nextBase].value;
      const uint32_t addr = base + delta;
      if (!tile.memory().contains(addr, 4) || addr % 4)
        throw ExchangeError("exchange: the word tile " + std::to_string(d.src) + " sent at cycle " +
                            std::to_string(d.sent) + " reaches tile " + std::to_string(dst) + " at cycle " +
                            std::to_string(d.arrival) + " for address " + hex(addr) +
                            ", which is not an aligned address of tile memory");
      tile.memory().write<uint32_t>(addr, d.word);
      delta += 4;
      if (!group.first || group.first->src != d.src || group.first->instruction != d.instruction ||
          addr != group.addr + 4 * group.words) {
        flush();
        group.first = &d;
        group.addr = addr;
      }
      ++group.words;
      group.last = d.arrival;
      previous = &d;
    }
    flush();
    if (!in.empty() || !log.delta.empty()) tile.incomingDelta = delta;
    tile.countExchange(0, in.size());
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

Ipu::Superstep Ipu::compute(unsigned threads, uint64_t maxCycles) {
  const unsigned n = tileCount();
  std::vector<Tile::Stop> stop(n, Tile::Stop::Returned);
  std::vector<std::exception_ptr> error(n);
  // Every active tile runs to its next sync or its return. Tiles touch only their own state, so
  // which host thread runs which tile cannot change any result; threads take tiles in chunks.
  std::atomic<unsigned> next{0};
  constexpr unsigned kChunk = 8;
  auto work = [&] {
    for (unsigned first; (first = next.fetch_add(kChunk)) < n;)
      for (unsigned t = first; t < std::min(n, first + kChunk); ++t) {
        if (!active_[t]) continue;
        try {
          stop[t] = tiles_[t]->run(maxCycles);
        } catch (...) {
          error[t] = std::current_exception();
        }
      }
  };
  const unsigned helpers = std::min(std::max(1u, threads), (n + kChunk - 1) / kChunk) - 1;
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < helpers; ++i) pool.emplace_back(work);
  work();
  for (std::thread &th : pool) th.join();
  for (unsigned t = 0; t < n; ++t)
    if (error[t]) std::rethrow_exception(error[t]); // the lowest tile first: deterministic

  std::vector<unsigned> returned, inPhase;
  std::vector<uint64_t> phaseEnd(n, 0);
  waiting_.clear();
  Superstep s;
  uint64_t end = phaseStart_;
  for (unsigned t = 0; t < n; ++t) {
    if (!active_[t]) continue;
    inPhase.push_back(t);
    Tile &tile = *tiles_[t];
    if (stop[t] == Tile::Stop::Sync) {
      waiting_.push_back(t);
      phaseEnd[t] = tile.syncCycle();
      s.lastArrival = std::max(s.lastArrival, phaseEnd[t]);
    } else {
      returned.push_back(t);
      active_[t] = false;
      phaseEnd[t] = tile.stats().cycles;
    }
    end = std::max(end, phaseEnd[t]);
  }
  // The words sent in the phase that just ended reach their receivers.
  phaseSent_ = false;
  resolveExchange(inPhase, phaseEnd);

  const uint64_t index = totals_.computePhases + totals_.exchangePhases;
  (phaseSent_ ? totals_.exchangeCycles : totals_.computeCycles) += end - phaseStart_;
  ++(phaseSent_ ? totals_.exchangePhases : totals_.computePhases);
  if (tracing_) {
    TraceEvent e;
    e.cycle = phaseStart_;
    e.event = "phase";
    e.where = "ipu" + std::to_string(id_);
    e.add("kind", phaseSent_ ? "exchange" : "compute").add("index", index).add("end_cycle", end).add("cycles", end - phaseStart_);
    ipuEvents_.push_back(std::move(e));
  }

  if (waiting_.empty()) {
    s.finished = true;
    return pending_ = s;
  }
  if (!returned.empty())
    throw DeadlockError("deadlock: tiles " + tileList(waiting_) + " wait in sync " +
                        std::to_string(tiles_[waiting_[0]]->syncZone()) + " (" +
                        syncZoneName(tiles_[waiting_[0]]->syncZone()) + ") from cycle " +
                        std::to_string(s.lastArrival) + ", which tiles " + tileList(returned) +
                        " never reach (they returned)");
  s.zone = tiles_[waiting_[0]]->syncZone();
  std::vector<unsigned> other;
  for (unsigned t : waiting_)
    if (tiles_[t]->syncZone() != s.zone) other.push_back(t);
  if (!other.empty()) {
    std::vector<unsigned> same;
    for (unsigned t : waiting_)
      if (tiles_[t]->syncZone() == s.zone) same.push_back(t);
    throw DeadlockError("deadlock: tiles " + tileList(same) + " wait in sync " + std::to_string(s.zone) + " (" +
                        syncZoneName(s.zone) + ") but tiles " + tileList(other) + " wait in sync " +
                        std::to_string(tiles_[other[0]]->syncZone()) + " (" +
                        syncZoneName(tiles_[other[0]]->syncZone()) + ")");
  }
  return pending_ = s;
}

void Ipu::release(uint64_t release) {
  // Tiles in a row of supertiles: the unit of the release skew (ipu-facts §4.4).
  const unsigned rowTiles = std::max(1u, config_.ipu.columns * config_.ipu.tilesPerSupertile);
  ++totals_.syncs;
  totals_.syncCycles += release - pending_.lastArrival;
  if (tracing_) {
    TraceEvent e;
    e.cycle = release;
    e.event = "sync";
    e.where = "ipu" + std::to_string(id_) + ".sync";
    e.add("zone", pending_.zone)
        .add("index", totals_.syncs - 1)
        .add("last_arrival_cycle", pending_.lastArrival)
        .add("tiles", waiting_.size());
    ipuEvents_.push_back(std::move(e));
  }
  for (unsigned t : waiting_) tiles_[t]->releaseSync(release + uint64_t(config_.sync.releaseSkewCycles) * (t / rowTiles));
  waiting_.clear();
  phaseStart_ = release;
}

IpuStats Ipu::run(unsigned threads, uint64_t maxCycles) {
  for (;;) {
    Superstep s = compute(threads, maxCycles);
    if (s.finished) break;
    release(s.lastArrival + syncLatency(s.zone));
  }
  return stats();
}

IpuStats Ipu::stats() const {
  IpuStats s = totals_;
  s.tiles.clear();
  s.cycles = 0;
  s.wordsSent = s.wordsReceived = 0;
  for (unsigned t = 0; t < tileCount(); ++t) {
    s.tiles.push_back(started_[t] ? tiles_[t]->stats() : TileStats{});
    s.cycles = std::max(s.cycles, s.tiles.back().cycles);
    s.wordsSent += s.tiles.back().wordsSent;
    s.wordsReceived += s.tiles.back().wordsReceived;
  }
  return s;
}

std::vector<TraceEvent> Ipu::takeTrace() {
  // The canonical order: by cycle; within a cycle the IPU's own events, then the tiles by number,
  // each tile's supervisor before its workers; each part's events in the order they happened.
  struct Keyed {
    uint64_t cycle;
    unsigned part, context;
    TraceEvent *event;
  };
  std::vector<Keyed> keyed;
  for (TraceEvent &e : ipuEvents_) keyed.push_back({e.cycle, 0, 0, &e});
  for (unsigned t = 0; t < tileCount(); ++t)
    for (TileEvent &e : tiles_[t]->traceEvents()) keyed.push_back({e.event.cycle, t + 1, e.context, &e.event});
  std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed &a, const Keyed &b) {
    if (a.cycle != b.cycle) return a.cycle < b.cycle;
    return a.part != b.part ? a.part < b.part : a.context < b.context;
  });
  std::vector<TraceEvent> out;
  out.reserve(keyed.size());
  for (Keyed &k : keyed) out.push_back(std::move(*k.event));
  ipuEvents_.clear();
  for (auto &t : tiles_) t->traceEvents().clear();
  return out;
}

} // namespace ipusim::sim
