// A system of IPUs: external syncs across IPUs and inter-IPU packets over the IPU-Links. See
// ipusim/sim/System.h and docs/systems.md.
#include "ipusim/sim/System.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ipusim::sim {

namespace {

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

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
  state_.assign(ipus_.size(), State::Running);
}

std::vector<Packet> System::packets() {
  // Each tile's external words, in the order sent, are packets: a 2-word header, then the payload
  // (Links.h packet::). A 64-bit item is two words, low first.
  std::vector<Packet> out;
  for (unsigned i = 0; i < ipus_.size(); ++i) {
    std::map<unsigned, std::vector<Ipu::ExternalWord>> byTile;
    for (const Ipu::ExternalWord &w : outbox_[i]) {
      byTile[w.tile].push_back(w);
      if (w.wide) byTile[w.tile].push_back({w.tile, w.cycle, w.hi, 0, false});
    }
    outbox_[i].clear();
    for (auto &[tile, words] : byTile) {
      for (size_t k = 0; k < words.size();) {
        const uint32_t h = words[k].lo;
        const std::string where = "the packet " + at(i, tile) + " began at cycle " + std::to_string(words[k].cycle);
        if (h >> 29 != packet::kTileWrite)
          throw ExchangeError("exchange: " + where + " has header " + hex(h) + ", whose format " +
                              std::to_string(h >> 29) + " is not " + std::to_string(packet::kTileWrite) +
                              " (tile write)");
        Packet p;
        p.srcIpu = i;
        p.srcTile = tile;
        p.dstTile = (h >> 18) & 0x7FF;
        p.dstIpu = (h >> 8) & 0x3FF;
        const size_t n = (h & 0xFF) + 1;
        if (k + packet::kHeaderWords + n > words.size())
          throw ExchangeError("exchange: " + where + " announces " + std::to_string(n) + " payload words but the tile sent " +
                              std::to_string(words.size() - std::min(words.size(), k + packet::kHeaderWords)) +
                              " before the external sync");
        if (p.dstIpu >= ipus_.size())
          throw ExchangeError("exchange: " + where + " is for ipu" + std::to_string(p.dstIpu) + ", but the system has " +
                              std::to_string(ipus_.size()) + " IPUs");
        if (p.dstIpu == i)
          throw ExchangeError("exchange: " + where + " is for its own IPU: tiles of one IPU use the internal exchange");
        p.addr = words[k + 1].lo;
        for (size_t j = 0; j < n; ++j) p.payload.push_back(words[k + packet::kHeaderWords + j].lo);
        p.firstSend = words[k].cycle;
        p.lastSend = words[k + packet::kHeaderWords + n - 1].cycle;
        out.push_back(std::move(p));
        k += packet::kHeaderWords + n;
      }
    }
  }
  return out;
}

System::Step System::compute(unsigned threads, uint64_t maxCycles) {
  const unsigned n = ipuCount();
  std::vector<uint64_t> finishedAt(n, 0);
  // Each IPU runs its supersteps, its INTERNAL syncs included, until it waits in an external zone
  // or its tiles return. IPUs touch only their own tiles until then, so the order is immaterial.
  for (unsigned i = 0; i < n; ++i) {
    Ipu &ipu = *ipus_[i];
    if (state_[i] != State::Running) continue;
    if (!ipu.takesPart()) {
      state_[i] = State::Idle;
      continue;
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
        break;
      }
      if (!isExternalZone(s.zone)) {
        ipu.release(s.lastArrival + ipu.syncLatency(s.zone));
        continue;
      }
      state_[i] = State::Waiting;
      waiting_[i] = s;
      break;
    }
  }

  std::vector<unsigned> waiting, finished;
  for (unsigned i = 0; i < n; ++i) {
    if (state_[i] == State::Waiting) waiting.push_back(i);
    if (state_[i] == State::Finished) finished.push_back(i);
  }
  Step step;
  if (waiting.empty()) {
    for (unsigned i = 0; i < n; ++i)
      if (!outbox_[i].empty())
        throw ExchangeError("exchange: tile " + std::to_string(outbox_[i][0].tile) + " of ipu" + std::to_string(i) +
                            " sent words to the external exchange at cycle " + std::to_string(outbox_[i][0].cycle) +
                            " after the last external sync: no sync waits for them to arrive");
    step.finished = true;
    return pending_ = step;
  }
  // "ipu1 (tiles 0, 1)": the IPUs and, for those in a sync, the tiles waiting there.
  auto ipuList = [&](const std::vector<unsigned> &v) {
    std::string s;
    for (size_t k = 0; k < v.size(); ++k) {
      s += (k ? ", ipu" : "ipu") + std::to_string(v[k]);
      if (state_[v[k]] == State::Waiting) s += " (tiles " + ipus_[v[k]]->waitingTileList() + ")";
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
    const std::string what = "the packet " + at(p.srcIpu, p.srcTile) + " sent at cycle " + std::to_string(p.firstSend);
    ipus_[p.dstIpu]->receiveExternal(p.dstTile, p.addr, p.payload, d.firstWrite, what);
    step.release = std::max(step.release, d.firstWrite + p.payload.size());
    if (tracing_) {
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
  return pending_ = step;
}

void System::release(uint64_t release) {
  release = std::max(release, pending_.release);
  ++externalSyncs_;
  if (tracing_) {
    TraceEvent e;
    e.cycle = release;
    e.event = "external_sync";
    e.where = "system.sync";
    e.add("zone", pending_.zone).add("index", externalSyncs_ - 1).add("last_arrival_cycle", pending_.lastArrival);
    systemEvents_.push_back(std::move(e));
  }
  for (unsigned i = 0; i < ipuCount(); ++i)
    if (state_[i] == State::Waiting) {
      ipus_[i]->release(release);
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

SystemStats System::stats() const {
  SystemStats s;
  s.externalSyncs = externalSyncs_;
  s.links = links_.stats();
  for (const auto &ipu : ipus_) {
    s.ipus.push_back(ipu->stats());
    s.cycles = std::max(s.cycles, s.ipus.back().cycles);
  }
  return s;
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
