// The IPU-Links carrying inter-IPU packets. See ipusim/sim/Links.h and docs/systems.md.
#include "ipusim/sim/Links.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace ipusim::sim {

Links::Links(const arch::SystemConfig &config, const arch::Topology &topology) : config_(config), topology_(topology) {
  resetStats();
}

void Links::resetStats() {
  stats_ = LinkStats{};
  for (auto &b : stats_.busyCycles) b.assign(topology_.connections().size(), 0);
}

uint64_t Links::serialisationCycles(unsigned payloadWords) const {
  // [F] S11 / [D]: 16 GB/s each way per link; a 2-word header rides with the payload ([RE] S8).
  const double bytes = 4.0 * (payloadWords + packet::kHeaderWords);
  return uint64_t(std::ceil(bytes * config_.ipu.clockHz / config_.links.bytesPerSecondPerDirection - 1e-9));
}

std::vector<PacketDelivery> Links::deliver(const std::vector<Packet> &packets) {
  const uint64_t block = config_.links.exchangeBlockCycles, hopLatency = config_.links.latencyCycles;
  std::vector<PacketDelivery> out(packets.size());
  std::vector<std::vector<arch::Topology::Hop>> routes(packets.size());
  // Each connection direction has `links` lanes; a lane is free from the cycle in it.
  std::vector<std::vector<uint64_t>> laneFree[2];
  for (auto &l : laneFree) {
    l.clear();
    for (const arch::Topology::Connection &c : topology_.connections()) l.emplace_back(c.links, 0);
  }
  // Events: packet i is at the start of hop h at cycle `at`. Popped in (cycle, source IPU, source
  // tile, packet order) order, so lanes go to packets first come, first served, deterministically.
  using Event = std::tuple<uint64_t, unsigned, unsigned, size_t, unsigned>;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  for (size_t i = 0; i < packets.size(); ++i) {
    const Packet &p = packets[i];
    try {
      routes[i] = topology_.route(p.srcIpu, p.dstIpu);
    } catch (const std::exception &e) {
      throw std::runtime_error("the packet tile " + std::to_string(p.srcTile) + " of ipu" + std::to_string(p.srcIpu) +
                               " sent at cycle " + std::to_string(p.firstSend) + " for tile " + std::to_string(p.dstTile) +
                               " of ipu" + std::to_string(p.dstIpu) + " has no route: " + e.what());
    }
    out[i].packet = &p;
    out[i].hops = unsigned(routes[i].size());
    // Store and forward: the packet enters the links once its last word reached the interface.
    events.emplace(p.lastSend + 1 + block, p.srcIpu, p.srcTile, i, 0);
  }
  while (!events.empty()) {
    const Event ev = events.top();
    events.pop();
    const uint64_t at = std::get<0>(ev); // (the source IPU and tile only order the queue)
    const size_t i = std::get<3>(ev);
    const unsigned h = std::get<4>(ev);
    const Packet &p = packets[i];
    if (h == routes[i].size()) {
      out[i].arrival = at;
      continue;
    }
    const arch::Topology::Hop &hop = routes[i][h];
    const arch::Topology::Connection &c = topology_.connections()[hop.connection];
    const unsigned dir = hop.from == c.a ? 0 : 1;
    std::vector<uint64_t> &lanes = laneFree[dir][hop.connection];
    auto lane = std::min_element(lanes.begin(), lanes.end()); // the first of the earliest free
    const uint64_t start = std::max(at, *lane), busy = serialisationCycles(unsigned(p.payload.size()));
    *lane = start + busy;
    stats_.busyCycles[dir][hop.connection] += busy;
    stats_.linkBytes += 4 * (p.payload.size() + packet::kHeaderWords);
    events.emplace(start + busy + hopLatency, p.srcIpu, p.srcTile, i, h + 1);
  }
  // The receiving tile takes one word a cycle ([D] S11 4 B/cycle/tile), packets in arrival order.
  std::vector<size_t> order(packets.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return out[a].arrival < out[b].arrival; });
  std::map<std::pair<unsigned, unsigned>, uint64_t> portFree;
  for (size_t i : order) {
    const Packet &p = packets[i];
    uint64_t &free = portFree[{p.dstIpu, p.dstTile}];
    out[i].firstWrite = std::max(out[i].arrival + block, free);
    free = out[i].firstWrite + p.payload.size();
    ++stats_.packets;
    stats_.payloadBytes += 4 * p.payload.size();
  }
  return out;
}

} // namespace ipusim::sim
