// A system of IPUs: external syncs across IPUs and inter-IPU packets over the IPU-Links. See
// ipusim/sim/System.h and docs/systems.md.
#include "ipusim/sim/System.h"
#include "Hex.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>

#include "ipusim/sim/SimException.h"

namespace ipusim::sim {

namespace {

std::string at(unsigned ipu, unsigned tile) { return "tile " + std::to_string(tile) + " of ipu" + std::to_string(ipu); }

/// The EXTERNAL zones: GS1, GS2, with or without the host, slave and master ([RE] S8, ipu-facts §4.5).
bool isExternalZone(unsigned zone) { return (zone >= 4 && zone <= 7) || (zone >= 12 && zone <= 15); }

} // namespace

System::System(const arch::SystemConfig &config, unsigned tilesPerIpu)
    : config_(config), topology_(config_), links_(config_, topology_), waiting_(config.ipus) {
  for (unsigned i = 0; i < config_.ipus; ++i) {
    ipus_.push_back(std::make_unique<Ipu>(config_, tilesPerIpu, i));
    ipus_.back()->setInSystem(true);
  }
  state_.assign(ipus_.size(), State::Running);
  outbox_.assign(ipus_.size(), {});
  outgoing_.assign(ipus_.size(), {});
  waitingTiles_.assign(ipus_.size(), {});
}

void System::setTracing(bool events, bool instructions) {
  tracing_ = events || instructions;
  for (auto &ipu : ipus_) ipu->setTracing(events, instructions);
}

void System::newRun() {
  for (auto &ipu : ipus_) ipu->newRun();
  std::fill(waiting_.begin(), waiting_.end(), Ipu::Superstep{});
  pending_ = Step{};
  externalSyncs_ = 0;
  links_.resetStats();
  systemEvents_.clear();
  outbox_.assign(ipus_.size(), {});
  outgoing_.assign(ipus_.size(), {});
  state_.assign(ipus_.size(), State::Running);
  waitingTiles_.assign(ipus_.size(), {});
}

void System::parseOutbox(unsigned i) {
  // Each tile's external words, in the order sent, are packets: a 2-word header, then the payload
  // (Links.h packet::). A 64-bit item is two words, low first. The words are grouped by tile
  // (stable: each tile's stay in the order sent).
  Outgoing &out = outgoing_[i];
  std::vector<Ipu::ExternalWord> &box = outbox_[i];
  if (box.empty()) return;
  if (!out.any) {
    out.any = true;
    out.firstTile = box[0].tile;
    out.firstCycle = box[0].cycle;
  }
  std::stable_sort(box.begin(), box.end(), [](const auto &a, const auto &b) { return a.tile < b.tile; });
  std::vector<std::pair<uint32_t, uint64_t>> words; // one tile's: value, cycle sent
  for (size_t from = 0; from < box.size() && !out.error;) {
    const unsigned tile = box[from].tile;
    words.clear();
    for (; from < box.size() && box[from].tile == tile; ++from) {
      words.emplace_back(box[from].lo, box[from].cycle);
      if (box[from].wide) words.emplace_back(box[from].hi, box[from].cycle);
    }
    for (size_t k = 0; k < words.size();) {
      const uint32_t h = words[k].first;
      auto fail = [&](const std::string &why) {
        out.error = std::make_exception_ptr(ExchangeError("exchange: the packet " + at(i, tile) + " began at cycle " +
                                                          std::to_string(words[k].second) + " " + why));
      };
      Packet p;
      p.srcIpu = i;
      p.srcTile = tile;
      p.dstTile = (h >> 18) & 0x7FF;
      p.dstIpu = (h >> 8) & 0x3FF;
      const size_t n = (h & 0xFF) + 1;
      if (h >> 29 != packet::kTileWrite)
        fail("has header " + hex(h) + ", whose format " + std::to_string(h >> 29) + " is not " +
             std::to_string(packet::kTileWrite) + " (tile write)");
      else if (k + packet::kHeaderWords + n > words.size())
        fail("announces " + std::to_string(n) + " payload words but the tile sent " +
             std::to_string(words.size() - std::min(words.size(), k + packet::kHeaderWords)) + " before the external sync");
      else if (p.dstIpu >= ipus_.size())
        fail("is for ipu" + std::to_string(p.dstIpu) + ", but the system has " + std::to_string(ipus_.size()) + " IPUs");
      else if (p.dstIpu == i)
        fail("is for its own IPU: tiles of one IPU use the internal exchange");
      if (out.error) break;
      p.addr = words[k + 1].first;
      p.payload.resize(n);
      for (size_t j = 0; j < n; ++j) p.payload[j] = words[k + packet::kHeaderWords + j].first;
      p.firstSend = words[k].second;
      p.lastSend = words[k + packet::kHeaderWords + n - 1].second;
      out.packets.push_back(std::move(p));
      k += packet::kHeaderWords + n;
    }
  }
  box.clear();
}

std::vector<Packet> System::packets() {
  // In IPU order; a bad packet is reported as the first IPU with one (as one process would).
  for (Outgoing &o : outgoing_)
    if (o.error) std::rethrow_exception(o.error);
  std::vector<Packet> all;
  for (Outgoing &o : outgoing_) {
    std::move(o.packets.begin(), o.packets.end(), std::back_inserter(all));
    o = Outgoing{};
  }
  return all;
}

void System::runIpu(unsigned i, unsigned threads, uint64_t maxCycles) {
  Ipu &ipu = *ipus_[i];
  if (!ipu.takesPart()) {
    state_[i] = State::Idle;
    return;
  }
  for (;;) {
    Ipu::Superstep s;
    try {
      s = ipu.compute(threads, maxCycles);
    } catch (const ExchangeError &e) { // name the IPU, as the system's other errors do
      throw ExchangeError(std::string(e.what()).replace(0, 10, "exchange: ipu" + std::to_string(i) + ": "));
    }
    std::vector<Ipu::ExternalWord> words = ipu.takeExternal();
    outbox_[i].insert(outbox_[i].end(), words.begin(), words.end());
    if (s.finished) {
      state_[i] = State::Finished;
      parseOutbox(i);
      return;
    }
    if (!isExternalZone(s.zone)) {
      ipu.release(s.lastArrival + ipu.syncLatency(s.zone));
      continue;
    }
    state_[i] = State::Waiting;
    waiting_[i] = s;
    waitingTiles_[i] = ipu.waitingTileList();
    parseOutbox(i);
    return;
  }
}

namespace {

// The errors a rank passes on, rebuilt as their own types on the other ranks.
enum class ErrorKind : uint8_t { None, Sim, Deadlock, Exchange, Other };

void putError(ByteWriter &w, const std::exception_ptr &error) {
  if (!error) {
    w.put(ErrorKind::None);
    return;
  }
  try {
    std::rethrow_exception(error);
  } catch (const SimException &e) {
    w.put(ErrorKind::Sim).put(e.ipu).put(e.tile).put(e.context).put(e.pc).put(e.instruction).put(e.reason).put(e.source);
  } catch (const DeadlockError &e) {
    w.put(ErrorKind::Deadlock).put(std::string(e.what()));
  } catch (const ExchangeError &e) {
    w.put(ErrorKind::Exchange).put(std::string(e.what()));
  } catch (const std::exception &e) {
    w.put(ErrorKind::Other).put(std::string(e.what()));
  }
}

std::exception_ptr getError(ByteReader &r) {
  switch (r.get<ErrorKind>()) {
  case ErrorKind::None: return nullptr;
  case ErrorKind::Sim: {
    const unsigned ipu = r.get<unsigned>(), tile = r.get<unsigned>(), context = r.get<unsigned>();
    const uint32_t pc = r.get<uint32_t>();
    std::string instruction = r.getString(), reason = r.getString(), source = r.getString();
    return std::make_exception_ptr(SimException(ipu, tile, context, pc, instruction, reason, source));
  }
  case ErrorKind::Deadlock: return std::make_exception_ptr(DeadlockError(r.getString()));
  case ErrorKind::Exchange: return std::make_exception_ptr(ExchangeError(r.getString()));
  case ErrorKind::Other: return std::make_exception_ptr(std::runtime_error(r.getString()));
  }
  throw std::logic_error("partition: an unknown error kind");
}

} // namespace

void System::share(std::vector<std::exception_ptr> &errors) {
  ByteWriter w;
  for (unsigned i = 0; i < ipuCount(); ++i) {
    if (!owns(i)) continue;
    w.put(i).put(state_[i]).put(waiting_[i].zone).put(waiting_[i].lastArrival).put(waitingTiles_[i]);
    const Outgoing &o = outgoing_[i];
    w.put(o.any).put(o.firstTile).put(o.firstCycle).put(uint64_t(o.packets.size()));
    for (const Packet &p : o.packets) {
      w.put(p.srcTile).put(p.dstIpu).put(p.dstTile).put(p.addr).put(p.firstSend).put(p.lastSend).put(uint64_t(p.payload.size()));
      const size_t at = w.bytes.size();
      w.bytes.resize(at + 4 * p.payload.size());
      std::memcpy(w.bytes.data() + at, p.payload.data(), 4 * p.payload.size());
    }
    putError(w, o.error);
    putError(w, errors[i]);
  }
  for (const std::vector<uint8_t> &message : partition_->allGather(w.bytes)) {
    ByteReader r(message);
    while (!r.done()) {
      const unsigned i = r.get<unsigned>();
      r.get(state_[i]).get(waiting_[i].zone).get(waiting_[i].lastArrival);
      waitingTiles_[i] = r.getString();
      Outgoing &o = outgoing_[i];
      r.get(o.any).get(o.firstTile).get(o.firstCycle);
      o.packets.resize(size_t(r.get<uint64_t>()));
      for (Packet &p : o.packets) {
        p.srcIpu = i;
        r.get(p.srcTile).get(p.dstIpu).get(p.dstTile).get(p.addr).get(p.firstSend).get(p.lastSend);
        p.payload.resize(size_t(r.get<uint64_t>()));
        r.read(p.payload.data(), 4 * p.payload.size());
      }
      o.error = getError(r);
      std::exception_ptr e = getError(r);
      if (!errors[i]) errors[i] = e;
    }
  }
  // The lowest IPU's error, as one process running the IPUs in order would have stopped at.
  for (const std::exception_ptr &e : errors)
    if (e) std::rethrow_exception(e);
}

void System::agreeOnError(uint64_t at, std::exception_ptr error) {
  ByteWriter w;
  w.put(at);
  putError(w, error);
  uint64_t first = UINT64_MAX;
  std::exception_ptr firstError;
  for (const std::vector<uint8_t> &message : partition_->allGather(w.bytes)) {
    ByteReader r(message);
    const uint64_t k = r.get<uint64_t>();
    std::exception_ptr e = getError(r);
    if (e && k < first) {
      first = k;
      firstError = e;
    }
  }
  if (firstError) std::rethrow_exception(firstError);
}

System::Step System::compute(unsigned threads, uint64_t maxCycles) {
  const unsigned n = ipuCount();
  // Each IPU runs its supersteps, its INTERNAL syncs included, until it waits in an external zone
  // or its tiles return. IPUs touch only their own tiles until then, so the order is immaterial.
  std::vector<std::exception_ptr> errors(n);
  for (unsigned i = 0; i < n; ++i) {
    if (!owns(i) || state_[i] != State::Running) continue;
    if (!partition_) {
      runIpu(i, threads, maxCycles);
      continue;
    }
    try {
      runIpu(i, threads, maxCycles);
    } catch (...) { // passed on at the meeting below, so that no rank waits for this one forever
      errors[i] = std::current_exception();
    }
  }
  if (partition_) share(errors);

  std::vector<unsigned> waiting, finished;
  for (unsigned i = 0; i < n; ++i) {
    if (state_[i] == State::Waiting) waiting.push_back(i);
    if (state_[i] == State::Finished) finished.push_back(i);
  }
  Step step;
  if (waiting.empty()) {
    for (unsigned i = 0; i < n; ++i)
      if (outgoing_[i].any)
        throw ExchangeError("exchange: tile " + std::to_string(outgoing_[i].firstTile) + " of ipu" + std::to_string(i) +
                            " sent words to the external exchange at cycle " + std::to_string(outgoing_[i].firstCycle) +
                            " after the last external sync: no sync waits for them to arrive");
    step.finished = true;
    return pending_ = step;
  }
  // "ipu1 (tiles 0, 1)": the IPUs and, for those in a sync, the tiles waiting there.
  auto ipuList = [&](const std::vector<unsigned> &v) {
    std::string s;
    for (size_t k = 0; k < v.size(); ++k) {
      s += (k ? ", ipu" : "ipu") + std::to_string(v[k]);
      if (state_[v[k]] == State::Waiting) s += " (tiles " + waitingTiles_[v[k]] + ")";
    }
    return s;
  };
  const unsigned zone = waiting_[waiting[0]].zone;
  if (!finished.empty())
    throw DeadlockError("deadlock: " + ipuList(waiting) + " wait in sync " + std::to_string(zone) + " (" +
                        syncZoneName(zone) + ") from cycle " + std::to_string(waiting_[waiting[0]].lastArrival) +
                        ", which " + ipuList(finished) + (finished.size() == 1 ? " never reaches (its tiles returned)" : " never reach (their tiles returned)"));
  std::vector<unsigned> same, other;
  for (unsigned i : waiting) (waiting_[i].zone == zone ? same : other).push_back(i);
  if (!other.empty())
    throw DeadlockError("deadlock: " + ipuList(same) + " wait in sync " + std::to_string(zone) + " (" +
                        syncZoneName(zone) + ") but " + ipuList(other) + " wait in sync " +
                        std::to_string(waiting_[other[0]].zone) + " (" + syncZoneName(waiting_[other[0]].zone) + ")");

  step.zone = zone;
  for (unsigned i : waiting) step.lastArrival = std::max(step.lastArrival, waiting_[i].lastArrival);
  step.release = step.lastArrival + config_.sync.externalLatencyCycles;

  // The phase's packets cross the links; the sync completes once the last is written ([I]
  // docs/systems.md: the external sync is the barrier after which every packet has landed).
  std::vector<Packet> sent = packets();
  std::vector<PacketDelivery> deliveries;
  try {
    deliveries = links_.deliver(sent);
  } catch (const std::runtime_error &e) {
    throw ExchangeError(std::string("exchange: ") + e.what());
  }
  for (const PacketDelivery &d : deliveries) {
    const Packet &p = *d.packet;
    step.release = std::max(step.release, d.firstWrite + p.payload.size());
    if (tracing_ && (!partition_ || partition_->rank() == 0)) {
      TraceEvent e;
      e.cycle = p.firstSend;
      e.event = "link.packet";
      e.where = "system.links";
      e.add("from", "ipu" + std::to_string(p.srcIpu) + ".tile" + std::to_string(p.srcTile))
          .add("to", "ipu" + std::to_string(p.dstIpu) + ".tile" + std::to_string(p.dstTile))
          .add("words", uint64_t(p.payload.size()))
          .addHex("addr", p.addr)
          .add("hops", d.hops)
          .add("arrival_cycle", d.arrival)
          .add("first_write_cycle", d.firstWrite);
      systemEvents_.push_back(std::move(e));
    }
  }
  // Written in the order they land (of packets for one address the last to land wins).
  std::stable_sort(deliveries.begin(), deliveries.end(),
                   [](const PacketDelivery &a, const PacketDelivery &b) { return a.firstWrite < b.firstWrite; });
  std::exception_ptr deliveryError;
  uint64_t errorAt = UINT64_MAX; // which delivery failed first
  for (size_t k = 0; k < deliveries.size() && !deliveryError; ++k) {
    const PacketDelivery &d = deliveries[k];
    const Packet &p = *d.packet;
    if (!owns(p.dstIpu)) continue;
    try {
      ipus_[p.dstIpu]->receiveExternal(p.dstTile, p.addr, p.payload, d.firstWrite,
                                       "the packet " + at(p.srcIpu, p.srcTile) + " sent at cycle " + std::to_string(p.firstSend));
    } catch (...) {
      deliveryError = std::current_exception();
      errorAt = k;
    }
  }
  if (partition_) agreeOnError(errorAt, deliveryError); // the first packet that failed, on every rank
  else if (deliveryError) std::rethrow_exception(deliveryError);
  return pending_ = step;
}

void System::release(uint64_t release) {
  release = std::max(release, pending_.release);
  ++externalSyncs_;
  if (tracing_ && (!partition_ || partition_->rank() == 0)) {
    TraceEvent e;
    e.cycle = release;
    e.event = "external_sync";
    e.where = "system.sync";
    e.add("zone", pending_.zone).add("index", externalSyncs_ - 1).add("last_arrival_cycle", pending_.lastArrival);
    systemEvents_.push_back(std::move(e));
  }
  for (unsigned i = 0; i < ipuCount(); ++i)
    if (state_[i] == State::Waiting) {
      if (owns(i)) ipus_[i]->release(release);
      state_[i] = State::Running;
    }
}

SystemStats System::run(unsigned threads, uint64_t maxCycles) {
  for (;;) {
    Step s = compute(threads, maxCycles);
    if (s.finished) break;
    release(s.release);
  }
  return stats();
}

namespace {

void putStats(ByteWriter &w, const IpuStats &s) {
  w.put(s.cycles).put(s.syncs).put(s.computePhases).put(s.exchangePhases).put(s.computeCycles).put(s.exchangeCycles);
  w.put(s.syncCycles).put(s.wordsSent).put(s.wordsReceived).put(uint64_t(s.tiles.size()));
  for (const TileStats &t : s.tiles) w.put(t); // plain counters
}

IpuStats getStats(ByteReader &r) {
  IpuStats s;
  r.get(s.cycles).get(s.syncs).get(s.computePhases).get(s.exchangePhases).get(s.computeCycles).get(s.exchangeCycles);
  r.get(s.syncCycles).get(s.wordsSent).get(s.wordsReceived);
  s.tiles.resize(size_t(r.get<uint64_t>()));
  for (TileStats &t : s.tiles) t = r.get<TileStats>();
  return s;
}

} // namespace

SystemStats System::stats() const {
  SystemStats s;
  s.externalSyncs = externalSyncs_;
  s.links = links_.stats();
  for (const auto &ipu : ipus_) s.ipus.push_back(ipu->stats());
  if (partition_) { // each IPU's from the rank that ran it
    ByteWriter w;
    for (unsigned i = 0; i < ipuCount(); ++i)
      if (owns(i)) putStats(w.put(i), s.ipus[i]);
    for (const std::vector<uint8_t> &message : partition_->allGather(w.bytes)) {
      ByteReader r(message);
      while (!r.done()) {
        const unsigned i = r.get<unsigned>();
        s.ipus[i] = getStats(r);
      }
    }
  }
  for (const IpuStats &ipu : s.ipus) s.cycles = std::max(s.cycles, ipu.cycles);
  return s;
}

std::vector<std::string> System::takeTraceLines() {
  std::vector<std::string> lines;
  if (!partition_) {
    for (const TraceEvent &e : takeTrace()) lines.push_back(formatTraceEvent(e));
    return lines;
  }
  // Each rank's events (its IPUs', and rank 0's system events) with their order keys; rank 0
  // merges them as takeTrace() orders one process's: by cycle, then the system, then IPU order.
  const unsigned self = partition_->rank();
  ByteWriter w;
  for (TraceEvent &e : takeTrace()) {
    unsigned source = 0;
    if (e.where.compare(0, 3, "ipu") == 0) source = 1 + unsigned(std::stoul(e.where.substr(3)));
    w.put(e.cycle).put(source).put(formatTraceEvent(e));
  }
  std::vector<std::vector<uint8_t>> all = partition_->allGather(w.bytes);
  if (self != 0) return lines;
  struct Keyed {
    uint64_t cycle;
    unsigned source, rank;
    size_t order;
    std::string line;
  };
  std::vector<Keyed> keyed;
  for (unsigned rank = 0; rank < all.size(); ++rank) {
    ByteReader r(all[rank]);
    while (!r.done()) {
      Keyed k;
      k.cycle = r.get<uint64_t>();
      k.source = r.get<unsigned>();
      k.rank = rank;
      k.order = keyed.size();
      k.line = r.getString();
      keyed.push_back(std::move(k));
    }
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed &a, const Keyed &b) {
    return a.cycle != b.cycle ? a.cycle < b.cycle : a.source < b.source;
  });
  for (Keyed &k : keyed) lines.push_back(std::move(k.line));
  return lines;
}

std::vector<TraceEvent> System::takeTrace() {
  // By cycle; in one cycle the system's events, then the IPUs' in IPU order (each IPU's events
  // already in its canonical order).
  std::vector<std::pair<unsigned, TraceEvent>> all;
  for (TraceEvent &e : systemEvents_) all.emplace_back(0, std::move(e));
  systemEvents_.clear();
  for (unsigned i = 0; i < ipuCount(); ++i)
    for (TraceEvent &e : ipus_[i]->takeTrace()) all.emplace_back(i + 1, std::move(e));
  std::stable_sort(all.begin(), all.end(), [](const auto &a, const auto &b) {
    return a.second.cycle != b.second.cycle ? a.second.cycle < b.second.cycle : a.first < b.first;
  });
  std::vector<TraceEvent> out;
  out.reserve(all.size());
  for (auto &p : all) out.push_back(std::move(p.second));
  return out;
}

} // namespace ipusim::sim
