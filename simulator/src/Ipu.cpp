#include "ipusim/sim/Ipu.h"
#include "Hex.h"

#include <algorithm>
#include <iterator>
#include <atomic>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <thread>

namespace ipusim::sim {

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
    : config_(config), layout_(config), id_(id), started_(tiles, false), active_(tiles, false) {
  if (tiles == 0 || tiles > config.ipu.tiles)
    throw std::invalid_argument("an IPU of " + std::to_string(config.ipu.tiles) + " tiles cannot have " +
                                std::to_string(tiles));
  for (unsigned t = 0; t < tiles; ++t) {
    tiles_.push_back(std::make_unique<Tile>(config.tile, id, t));
    tiles_.back()->setInIpu(true);
    tiles_.back()->setTraceSpool(nullptr, t + 1, 0); // its part of the canonical order
  }
}

void Ipu::spillTrace(size_t events) {
  if (!spool_) spool_ = std::make_unique<TraceSpool>();
  const size_t perTile = std::max<size_t>(256, events / tiles_.size());
  for (unsigned t = 0; t < tiles_.size(); ++t) tiles_[t]->setTraceSpool(spool_.get(), t + 1, perTile);
}

void Ipu::start(unsigned tile, uint32_t pc, uint32_t m0) {
  tiles_.at(tile)->start(pc, m0);
  started_[tile] = active_[tile] = true;
}

bool Ipu::takesPart() const { return std::find(started_.begin(), started_.end(), true) != started_.end(); }

void Ipu::newRun() {
  std::fill(started_.begin(), started_.end(), false);
  std::fill(active_.begin(), active_.end(), false);
  waiting_.clear();
  pending_ = Superstep{};
  phaseStart_ = 0;
  phaseSent_ = false;
  totals_ = IpuStats{};
  ipuEvents_.clear();
  external_.clear();
}

void Ipu::setTracing(bool events, bool instructions) {
  tracing_ = events || instructions;
  for (auto &t : tiles_) t->setTracing(events, instructions);
}

uint64_t Ipu::latency(unsigned src, unsigned dst) const { return uint64_t(layout_.writeOffset(src, dst)); }

uint64_t Ipu::syncLatency(unsigned zone) const {
  return zone == 3 ? config_.sync.internalLatencyCycles : config_.sync.externalLatencyCycles;
}

std::string Ipu::tileList(const std::vector<unsigned> &v) const {
  std::string s;
  for (size_t i = 0; i < v.size() && i < 16; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return v.size() > 16 ? s + " ... (" + std::to_string(v.size()) + " tiles)" : s;
}

namespace {

/// Calls `fn(t)` for every tile t of `tiles` on up to `threads` host threads, which take the tiles
/// in chunks. If any call throws, the exception of the first such tile in `tiles` is rethrown after
/// all have run: the same whatever the threads did.
void forEachTile(unsigned threads, const std::vector<unsigned> &tiles, const std::function<void(unsigned)> &fn) {
  const size_t n = tiles.size();
  std::vector<std::exception_ptr> error(n);
  std::atomic<size_t> next{0};
  constexpr size_t kChunk = 8;
  auto work = [&] {
    for (size_t first; (first = next.fetch_add(kChunk)) < n;)
      for (size_t i = first; i < std::min(n, first + kChunk); ++i) {
        try {
          fn(tiles[i]);
        } catch (...) {
          error[i] = std::current_exception();
        }
      }
  };
  const size_t helpers = std::min<size_t>(std::max(1u, threads), (n + kChunk - 1) / kChunk);
  std::vector<std::thread> pool;
  for (size_t i = 1; i < helpers; ++i) pool.emplace_back(work);
  work();
  for (std::thread &th : pool) th.join();
  for (const std::exception_ptr &e : error)
    if (e) std::rethrow_exception(e);
}

/// The words of an exchange phase below which its resolution runs on one host thread.
constexpr size_t kParallelWords = 4096;

const char *directionName(unsigned dir) { return dir == arch::ExchangeLayout::East ? "east" : "west"; }

} // namespace

std::vector<ExchangeLog::Setting> Ipu::muxSettings(unsigned t) const {
  // The tile's own puts to $INCOMING_MUX and _MUXPAIR, and its partner's _MUXPAIR puts, which
  // land here exchange.mux_pair_delay_cycles later ([F] S2; [RE] S8 TEXCH_MUXPAIRWRITEDLY = 1). The
  // delayed write meeting a put of the tile's own in one cycle is the collision S2 describes.
  const ExchangeLog &own = tiles_[t]->exchange();
  // Each log is in cycle order, no two of the tile's settings in one cycle (each instruction
  // applies its setting in a cycle of its own): merged, they are in cycle order.
  auto byCycle = [](const auto &a, const auto &b) { return a.cycle < b.cycle; };
  std::vector<ExchangeLog::Setting> all(own.mux.size() + own.muxPair.size());
  std::merge(own.mux.begin(), own.mux.end(), own.muxPair.begin(), own.muxPair.end(), all.begin(), byCycle);
  if (!std::is_sorted(own.mux.begin(), own.mux.end(), byCycle) || !std::is_sorted(own.muxPair.begin(), own.muxPair.end(), byCycle))
    std::sort(all.begin(), all.end(), byCycle); // (not expected: a log out of order)
  const unsigned p = arch::ExchangeLayout::partner(t);
  if (p >= tileCount() || !started_[p] || tiles_[p]->exchange().muxPair.empty()) return all;
  auto from = tiles_[p]->exchange().muxPair;
  for (auto &s : from) s.cycle += kMuxPairDelay;
  std::vector<ExchangeLog::Setting> merged;
  for (size_t i = 0, j = 0; i < all.size() || j < from.size();) {
    if (i < all.size() && j < from.size() && all[i].cycle == from[j].cycle)
      throw ExchangeError("exchange: tile " + std::to_string(p) + "'s $INCOMING_MUXPAIR write reaches tile " +
                          std::to_string(t) + " in cycle " + std::to_string(from[j].cycle) + ", the cycle tile " +
                          std::to_string(t) + " writes its own $INCOMING_MUX");
    if (j == from.size() || (i < all.size() && all[i].cycle < from[j].cycle)) merged.push_back(all[i++]);
    else merged.push_back(from[j++]);
  }
  return merged;
}

void Ipu::resolveExchange(const std::vector<unsigned> &tiles, const std::vector<uint64_t> &phaseEnd, unsigned threads) {
  const unsigned n = tileCount();
  // The lists from the last phase, emptied (their memory kept).
  bySource_.resize(n);
  sent_.resize(n);
  outward_.resize(n);
  inbox_.resize(n);
  finalMux_.resize(n);
  for (unsigned t = 0; t < n; ++t) {
    bySource_[t].clear();
    sent_[t].clear();
    outward_[t].clear();
    inbox_[t].clear();
  }
  std::vector<std::vector<Window>> &bySource = bySource_;
  std::vector<uint32_t> &finalMux = finalMux_;
  std::vector<std::vector<Delivery>> &sent = sent_;
  std::vector<std::vector<ExternalWord>> &outward = outward_;
  std::vector<std::vector<Run>> &inbox = inbox_;

  // Where each receiver's mux selects a source: windows [from, to) of constant $INCOMING_MUX, in
  // cycle order per receiver, filed under the source they select. A put at cycle c selects for
  // the words that meet the mux from c on. The last window stays open past the phase's end so
  // that late words are found and reported.
  for (unsigned dst : tiles) {
    const ExchangeLog &log = tiles_[dst]->exchange();
    uint32_t value = log.muxAtStart;
    int64_t from = INT64_MIN;
    const unsigned partner = arch::ExchangeLayout::partner(dst);
    const bool settings = !log.mux.empty() || !log.muxPair.empty() ||
                          (partner < n && started_[partner] && !tiles_[partner]->exchange().muxPair.empty());
    if (settings) // (muxSettings' sources; most phases put none, and then no list is made)
      for (const ExchangeLog::Setting &s : muxSettings(dst)) {
        if (value < n && int64_t(s.cycle) > from) bySource[value].push_back({dst, from, int64_t(s.cycle)});
        value = s.value;
        from = std::max(from, int64_t(s.cycle));
      }
    if (value < n) bySource[value].push_back({dst, from, INT64_MAX});
    finalMux[dst] = value;
  }

  // What reaches a receiver, as runs (Run): the words of one send instruction that meet its mux
  // in consecutive cycles (consecutive entries of the sender's log), written in consecutive
  // cycles. Each sender finds its words' receivers on its own (its log, counters and trace; the
  // runs and external words it makes kept apart), so senders are shared among the threads; the
  // runs then go to their receivers in the order of `tiles`, which the receivers sort anyway.
  // Host threads only for a phase with words enough to pay for starting them (a training step
  // has thousands of phases of a few words each); the results are the same either way.
  size_t words = 0;
  for (unsigned src : tiles) words += tiles_[src]->exchange().sends.size();
  const unsigned passThreads = words >= kParallelWords ? threads : 1;
  auto send = [&](unsigned src) {
    Tile &sender = *tiles_[src];
    const ExchangeLog &out = sender.exchange();
    const std::vector<ExchangeLog::Send> &sends = out.sends;
    if (sends.empty()) return;
    checkPairLane(src);
    std::vector<Delivery> &runs = sent[src];
    const std::vector<ExchangeLog::Instruction> &instructions = out.instructions;
    std::vector<unsigned> receivers(instructions.size(), 0), lastReceiver(instructions.size(), UINT32_MAX);
    std::vector<uint8_t> taken(sends.size(), 0);
    // The windows come receiver by receiver: each receiver's offsets and direction found once.
    unsigned receiver = UINT32_MAX, dir = 0;
    int64_t mux = 0, write = 0;
    for (const Window &w : bySource[src]) {
      if (w.dst != receiver) {
        receiver = w.dst;
        mux = layout_.muxOffset(src, w.dst);
        write = layout_.writeOffset(src, w.dst);
        dir = layout_.direction(src, w.dst);
      }
      // A send instruction's words leave in consecutive cycles, and the instructions are in cycle
      // order: from the first whose last word meets the mux in the window, each word that meets
      // it before the window closes, an instruction's part going to the receiver as one run. A
      // word travelling the other way passes this receiver by.
      auto r = std::lower_bound(instructions.begin(), instructions.end(), w.from,
                                [mux](const ExchangeLog::Instruction &s, int64_t from) {
                                  return int64_t(s.cycle) + int64_t(s.words) - 1 + mux < from;
                                });
      for (; r != instructions.end() && int64_t(r->cycle) + mux < w.to; ++r) {
        if (!r->words || !(r->sctl & dir)) continue;
        // Its words meet the mux from cycle `at` on (the window's ends may be unbounded: compared
        // with cycles, not subtracted from them).
        const int64_t at = int64_t(r->cycle) + mux, length = int64_t(r->words);
        const int64_t lo = w.from > at ? w.from - at : 0, hi = w.to < at + length ? w.to - at : length;
        const uint32_t i = r->first + uint32_t(lo), count = uint32_t(hi - lo), k = uint32_t(r - instructions.begin());
        runs.push_back({w.dst, {int64_t(r->cycle) + lo + write, src, i, count, k}});
        std::fill_n(taken.begin() + i, count, uint8_t(1));
        if (lastReceiver[k] != w.dst) {
          lastReceiver[k] = w.dst;
          ++receivers[k];
        }
      }
    }
    // A word put on the fabric (sctl names a direction) that no receiver takes is lost: an error
    // in the schedule. A word with no direction goes to the external exchange.
    for (const ExchangeLog::Instruction &ins : instructions)
      for (uint32_t k = 0; k < ins.words; ++k) {
        const uint32_t i = ins.first + k;
        const uint64_t cycle = ins.cycle + k;
        if (!(ins.sctl & 3)) {
          if (!inSystem_)
            throw ExchangeError("exchange: tile " + std::to_string(src) + " sent a word to the external exchange (a send " +
                                "with no direction) at cycle " + std::to_string(cycle) + ", but ipu" +
                                std::to_string(id_) + " is not part of a system of IPUs");
          outward[src].push_back({src, cycle, sends[i].lo, sends[i].hi, bool(ins.sctl & 4)});
          continue;
        }
        if (!taken[i])
          throw ExchangeError("exchange: the word tile " + std::to_string(src) + " sent at cycle " +
                              std::to_string(cycle) + " is selected by no tile's $INCOMING_MUX when it arrives");
      }
    uint64_t words = 0; // a 64-bit item is two words
    for (const ExchangeLog::Instruction &ins : instructions) words += uint64_t(ins.words) * (ins.wide() ? 2 : 1);
    sender.countExchange(words, 0);
    if (sender.tracing())
      for (size_t i = 0; i < instructions.size(); ++i) {
        const ExchangeLog::Instruction &ins = instructions[i];
        sender.traceEvent(ins.cycle, kSupervisor, "exchange.send")
            .add("words", ins.words)
            .addHex("addr", ins.addr)
            .add("width", ins.wide() ? 64 : 32)
            .add("receivers", receivers[i]);
      }
  };
  if (words) forEachTile(passThreads, tiles, send);
  for (unsigned src : tiles) {
    phaseSent_ |= !tiles_[src]->exchange().sends.empty();
    for (const Delivery &d : sent[src]) inbox[d.dst].push_back(d.run);
    external_.insert(external_.end(), outward[src].begin(), outward[src].end());
  }

  // Each receiver takes its runs on its own (its memory, CSRs, counters and trace), so receivers
  // are shared among the threads like the tiles' compute.
  auto receive = [&](unsigned dst) {
    std::vector<Run> &runs = inbox[dst];
    Tile &tile = *tiles_[dst];
    if (runs.empty()) { // nothing received: only the CSRs as the phase left them (below)
      const ExchangeLog &log = tile.exchange();
      tile.incomingDelta = log.delta.empty() ? log.deltaAtStart : log.delta.back().value;
      tile.incomingMux = finalMux[dst];
      return;
    }
    std::sort(runs.begin(), runs.end(),
              [](const Run &a, const Run &b) { return a.write != b.write ? a.write < b.write : a.src < b.src; });
    ExchangeLog &log = tile.exchange();
    // The receiver's CSRs at a write, its writes coming in cycle order: the last put at or before.
    struct Csr {
      const std::vector<ExchangeLog::Setting> &settings;
      uint32_t value;
      size_t next = 0;
      uint32_t at(int64_t cycle) {
        for (; next < settings.size() && int64_t(settings[next].cycle) <= cycle; ++next) value = settings[next].value;
        return value;
      }
    } format{log.format, log.formatAtStart}, base{log.base, log.baseAtStart}, delta{log.delta, log.deltaAtStart};
    // Consecutive words of one send into consecutive addresses make one receive event.
    struct Group {
      bool open = false;
      unsigned src = 0;
      uint32_t instruction = 0, addr = 0, bytes = 0;
      int64_t first = 0, last = 0;
    } group;
    auto flush = [&] {
      if (group.open && tile.tracing())
        tile.traceEvent(uint64_t(group.first), kSupervisor, "exchange.receive")
            .add("from", group.src)
            .add("words", group.bytes / 4)
            .addHex("addr", group.addr)
            .add("last_cycle", uint64_t(group.last));
      group = Group{};
    };
    bool any = false;
    int64_t previousWrite = 0;
    unsigned previousSrc = 0;
    uint64_t wordsIn = 0;
    uint32_t incoming = log.deltaAtStart; // $INCOMING_DELTA: counts up by each item, or as put
    // Notes `bytes` of send instruction `instruction` from `src`, written at `addr` from cycle
    // `first` to `last`: the receive event they join, the counts, the last write.
    auto received = [&](unsigned src, uint32_t instruction, uint32_t addr, int64_t first, int64_t last, uint32_t bytes) {
      if (!group.open || group.src != src || group.instruction != instruction || addr != group.addr + group.bytes) {
        flush();
        group.open = true;
        group.src = src;
        group.instruction = instruction;
        group.first = first;
        group.addr = addr;
      }
      group.bytes += bytes;
      group.last = last;
      any = true;
      previousWrite = last;
      previousSrc = src;
      wordsIn += bytes / 4;
    };
    // One word (or 64-bit item) `k` of the sender's log, of its send instruction `instruction`,
    // written at `write`.
    auto deliver = [&](int64_t write, unsigned src, uint32_t k, uint32_t instruction) {
      const ExchangeLog &from = tiles_[src]->exchange();
      const ExchangeLog::Send &send = from.sends[k];
      const ExchangeLog::Instruction &ins = from.instructions[instruction];
      const bool wide = ins.wide();
      auto who = [&] {
        return "the " + std::string(wide ? "64-bit item" : "word") + " tile " + std::to_string(src) + " sent at cycle " +
               std::to_string(ins.cycle + (k - ins.first)) + " reaches tile " + std::to_string(dst) + " at cycle " +
               std::to_string(write);
      };
      if (any && previousWrite == write)
        throw ExchangeError("exchange: words from tiles " + std::to_string(previousSrc) + " and " + std::to_string(src) +
                            " reach tile " + std::to_string(dst) + " in the same cycle " + std::to_string(write));
      if (write >= int64_t(phaseEnd[dst]))
        throw ExchangeError("exchange: " + who() + ", after it entered the sync at cycle " +
                            std::to_string(phaseEnd[dst]));
      // The receiver's format must match the item: 32-bit words, or 64-bit items from the side
      // they come from ([RE] S9: the receiving pair sets 64E or 64W).
      const uint32_t have = format.at(write);
      const unsigned want = wide ? layout_.direction(src, dst) : 0;
      if (have != want)
        throw ExchangeError("exchange: " + who() + " while its $INCOMING_FORMAT is " + std::to_string(have) +
                            " (it needs " + std::to_string(want) +
                            (wide ? std::string(": 64-bit from the ") + directionName(want) : ": 32-bit") + ")");
      // $INCOMING_BASE + $INCOMING_DELTA is the address; the delta counts up by the item's size
      // and an explicit put (or a sync, from $INCOMING_SINIT) sets it ([F] S2).
      if (delta.next < delta.settings.size() && int64_t(delta.settings[delta.next].cycle) <= write)
        incoming = delta.at(write);
      const uint32_t bytes = wide ? 8 : 4, addr = base.at(write) + incoming;
      if (!tile.memory().contains(addr, bytes) || addr % bytes)
        throw ExchangeError("exchange: " + who() + " for address " + hex(addr) +
                            ", which is not an aligned address of tile memory");
      tile.memory().write<uint32_t>(addr, send.lo);
      if (wide) tile.memory().write<uint32_t>(addr + 4, send.hi);
      incoming += bytes;
      received(src, instruction, addr, write, write, bytes);
    };
    // Runs that do not overlap are the words in write order; overlapping ones (two words in one
    // cycle: an error, reported at the first such cycle) go word by word.
    bool overlap = false;
    int64_t end = INT64_MIN;
    for (const Run &r : runs) {
      overlap |= r.write < end;
      end = std::max(end, r.write + int64_t(r.count));
    }
    // A whole run at once where deliver() would find nothing to report and nothing changing
    // within it: before the sync, the format right for it, no put to the base or delta during it,
    // and every address in tile memory and aligned. Returns false (nothing done) otherwise.
    auto deliverRun = [&](const Run &r) {
      const ExchangeLog &from = tiles_[r.src]->exchange();
      const bool wide = from.instructions[r.instruction].wide();
      const int64_t last = r.write + int64_t(r.count) - 1;
      auto still = [last](const Csr &csr) { return csr.next == csr.settings.size() || int64_t(csr.settings[csr.next].cycle) > last; };
      if (last >= int64_t(phaseEnd[dst]) || format.at(r.write) != (wide ? layout_.direction(r.src, dst) : 0) || !still(format))
        return false;
      // A put to the delta at or before the first write, as deliver() takes it (its cursor has
      // then moved past it, so deliver() would not take it again).
      if (delta.next < delta.settings.size() && int64_t(delta.settings[delta.next].cycle) <= r.write)
        incoming = delta.at(r.write);
      const uint32_t bytes = wide ? 8 : 4, addr = base.at(r.write) + incoming;
      if (!still(delta) || !still(base) || addr % bytes || !tile.memory().contains(addr, bytes * r.count)) return false;
      for (uint32_t k = 0; k < r.count; ++k) {
        const ExchangeLog::Send &send = from.sends[r.first + k];
        tile.memory().write<uint32_t>(addr + bytes * k, send.lo);
        if (wide) tile.memory().write<uint32_t>(addr + bytes * k + 4, send.hi);
      }
      incoming += bytes * r.count;
      received(r.src, r.instruction, addr, r.write, last, bytes * r.count);
      return true;
    };
    if (!overlap) {
      for (const Run &r : runs)
        if (!deliverRun(r))
          for (uint32_t k = 0; k < r.count; ++k) deliver(r.write + k, r.src, r.first + k, r.instruction);
    } else {
      struct Word {
        int64_t write;
        unsigned src;
        uint32_t k, instruction;
      };
      std::vector<Word> words;
      for (const Run &r : runs)
        for (uint32_t k = 0; k < r.count; ++k) words.push_back({r.write + k, r.src, r.first + k, r.instruction});
      std::stable_sort(words.begin(), words.end(), [](const Word &a, const Word &b) {
        return a.write != b.write ? a.write < b.write : a.src < b.src;
      });
      for (const Word &w : words) deliver(w.write, w.src, w.k, w.instruction);
    }
    flush();
    tile.countExchange(0, wordsIn);
    // The CSRs as the phase left them (the partner's MUXPAIR writes included).
    if (delta.next < delta.settings.size()) incoming = delta.at(INT64_MAX);
    tile.incomingDelta = incoming;
    tile.incomingMux = finalMux[dst];
  };
  if (words) forEachTile(passThreads, tiles, receive);
  else
    for (unsigned dst : tiles) receive(dst);
  for (unsigned t : tiles) {
    Tile &tile = *tiles_[t];
    ExchangeLog &log = tile.exchange();
    log.clear();
    log.muxAtStart = tile.incomingMux;
    log.formatAtStart = tile.incomingFormat;
    log.baseAtStart = tile.incomingBase;
    log.deltaAtStart = tile.incomingDelta;
  }
}

std::vector<Ipu::ExternalWord> Ipu::takeExternal() {
  std::vector<ExternalWord> out;
  out.swap(external_);
  return out;
}

void Ipu::receiveExternal(unsigned t, uint32_t addr, const std::vector<uint32_t> &words, uint64_t firstWrite,
                          const std::string &what) {
  if (t >= tileCount() || !started_[t])
    throw ExchangeError("exchange: " + what + " is for tile " + std::to_string(t) + " of ipu" + std::to_string(id_) +
                        ", which takes no part in the run");
  Tile &tile = *tiles_[t];
  const uint32_t bytes = uint32_t(4 * words.size());
  if (addr % 4 || !tile.memory().contains(addr, bytes))
    throw ExchangeError("exchange: " + what + " writes " + std::to_string(bytes) + " bytes at " + hex(addr) +
                        ", which is not aligned tile memory of tile " + std::to_string(t) + " of ipu" + std::to_string(id_));
  for (size_t i = 0; i < words.size(); ++i) tile.memory().write<uint32_t>(addr + 4 * uint32_t(i), words[i]);
  tile.countExchange(0, words.size());
  if (tile.tracing())
    tile.traceEvent(firstWrite, kSupervisor, "link.receive")
        .add("words", uint64_t(words.size()))
        .addHex("addr", addr)
        .add("last_cycle", firstWrite + words.size() - 1);
}

void Ipu::checkPairLane(unsigned src) const {
  // A 64-bit send borrows the pair partner's transmit lane ([RE] S9, hardware-verified there):
  // the partner cannot send in those cycles.
  const unsigned p = arch::ExchangeLayout::partner(src);
  if (p >= tileCount() || !started_[p]) return;
  const ExchangeLog &mine = tiles_[src]->exchange(), &theirs = tiles_[p]->exchange();
  if (theirs.sends.empty()) return;
  // Both logs' instructions are in cycle order, each one's words in consecutive cycles: one walk
  // through the partner's beside ours finds the first cycle in which both send.
  auto it = theirs.instructions.begin();
  for (const ExchangeLog::Instruction &s : mine.instructions) {
    if (!s.wide() || !s.words) continue;
    while (it != theirs.instructions.end() && (!it->words || it->cycle + it->words <= s.cycle)) ++it;
    if (it != theirs.instructions.end() && it->cycle < s.cycle + s.words)
      throw ExchangeError("exchange: tile " + std::to_string(p) + " sends at cycle " +
                          std::to_string(std::max(s.cycle, it->cycle)) + " while its pair partner, tile " +
                          std::to_string(src) + ", sends 64-bit items on both tiles' lanes");
  }
}

Ipu::Superstep Ipu::compute(unsigned threads, uint64_t maxCycles) {
  const unsigned n = tileCount();
  std::vector<Tile::Stop> stop(n, Tile::Stop::Returned);
  // Every active tile runs to its next sync or its return. Tiles touch only their own state, so
  // which host thread runs which tile cannot change any result.
  std::vector<unsigned> inPhase;
  for (unsigned t = 0; t < n; ++t)
    if (active_[t]) inPhase.push_back(t);
  forEachTile(threads, inPhase, [&](unsigned t) { stop[t] = tiles_[t]->run(maxCycles); });

  std::vector<unsigned> returned;
  std::vector<uint64_t> phaseEnd(n, 0);
  waiting_.clear();
  Superstep s;
  uint64_t end = phaseStart_;
  for (unsigned t : inPhase) {
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
  resolveExchange(inPhase, phaseEnd, threads);

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
    throw DeadlockError("deadlock: " + where() + "tiles " + tileList(waiting_) + " wait in sync " +
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
    throw DeadlockError("deadlock: " + where() + "tiles " + tileList(same) + " wait in sync " + std::to_string(s.zone) + " (" +
                        syncZoneName(s.zone) + ") but tiles " + tileList(other) + " wait in sync " +
                        std::to_string(tiles_[other[0]]->syncZone()) + " (" +
                        syncZoneName(tiles_[other[0]]->syncZone()) + ")");
  }
  return pending_ = s;
}

void Ipu::release(uint64_t release) {
  // The last tile issued its sync at lastArrival and cannot issue again before the next cycle;
  // every tile leaves together, so a sync takes at least a cycle (a latency of 0 means 1).
  release = std::max(release, pending_.lastArrival + 1);
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
  // Each tile is released sync.release_skew_cycles later per supertile row between it and the
  // sync controller, taken to sit at row 0 ([F] S16 relativeSyncDelay; the value is not public).
  for (unsigned t : waiting_)
    tiles_[t]->releaseSync(release + uint64_t(config_.sync.releaseSkewCycles) * layout_.row(t));
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
  std::vector<TraceEvent> out;
  drainTrace([&](TraceEvent &&e) { out.push_back(std::move(e)); });
  return out;
}

void Ipu::drainTrace(const std::function<void(TraceEvent &&)> &sink) {
  // The canonical order (TraceKey): by cycle; within a cycle the IPU's own events, then the tiles
  // by number, each tile's supervisor before its workers; each part's events in the order they
  // happened.
  std::vector<KeyedEvent> held;
  for (size_t i = 0; i < ipuEvents_.size(); ++i) held.push_back({TraceKey{ipuEvents_[i].cycle, 0, 0, i}, std::move(ipuEvents_[i])});
  ipuEvents_.clear();
  for (auto &t : tiles_) {
    std::vector<KeyedEvent> k = t->takeKeyedEvents();
    std::move(k.begin(), k.end(), std::back_inserter(held));
  }
  if (spool_) {
    spool_->drain(std::move(held), sink);
    return;
  }
  std::stable_sort(held.begin(), held.end(), [](const KeyedEvent &a, const KeyedEvent &b) { return a.key < b.key; });
  for (KeyedEvent &k : held) sink(std::move(k.event));
}

} // namespace ipusim::sim
