// The IPU-Link topology of a system. See arch/include/ipusim/arch/Topology.h and docs/systems.md.
#include "ipusim/arch/Topology.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace ipusim::arch {

namespace {

std::string gigabytes(double bytesPerSecond) {
  char b[32];
  std::snprintf(b, sizeof b, "%g GB/s", bytesPerSecond / 1e9);
  return b;
}

} // namespace

// The IPUs of a system stand in a ladder (ipu-facts §1, [F] S12; docs/systems.md): IPU 2r and
// IPU 2r+1 are the two sides of rung r; an M2000 holds two rungs (its IPUs 0-1 and 2-3), and
// machines stack so that the rails run from each IPU to the one on its side of the next rung. The
// 2D torus closes the rails from the top rung back to the bottom one.
Topology::Topology(const SystemConfig &config)
    : ipus_(config.ipus), ipusPerChassis_(config.ipusPerChassis), kind_(config.topology) {
  auto bad = [&](const std::string &why) {
    throw ConfigError(config.name + ": error: topology '" + kind_ + "': " + why);
  };
  neighbour_.assign(ipus_, std::vector<int>(ipus_, -1));
  if (kind_ == "single") {
    if (ipus_ != 1) bad("a single IPU cannot have " + std::to_string(ipus_) + " IPUs");
    return;
  }
  if (kind_ != "m2000" && kind_ != "ladder" && kind_ != "2d-torus")
    bad("unknown topology (known: single, m2000, ladder, 2d-torus)");
  if (ipus_ % 2) bad("a ladder needs an even number of IPUs, not " + std::to_string(ipus_));
  if (kind_ == "m2000" && ipus_ != 4) bad("an M2000 has 4 IPUs, not " + std::to_string(ipus_));
  rungs_ = ipus_ / 2;
  const LinkConfig &l = config.links;
  for (unsigned r = 0; r < rungs_; ++r) {
    connect(2 * r, 2 * r + 1, l.rungLinks, "rung");
    if (r + 1 < rungs_)
      for (unsigned side = 0; side < 2; ++side) connect(2 * r + side, 2 * r + 2 + side, l.railLinks, "rail");
  }
  // The wrap closes each rail into a ring; with two rungs it would only double the rails.
  if (kind_ == "2d-torus" && rungs_ > 2)
    for (unsigned side = 0; side < 2; ++side) connect(side, 2 * (rungs_ - 1) + side, l.railLinks, "wrap");
  for (unsigned i = 0; i < ipus_; ++i)
    if (linksUsed(i) > l.linksPerIpu)
      bad("IPU " + std::to_string(i) + " needs " + std::to_string(linksUsed(i)) + " IPU-Links but has " +
          std::to_string(l.linksPerIpu) + " (links.links_per_ipu)");
}

void Topology::connect(unsigned a, unsigned b, unsigned links, const std::string &kind) {
  if (links == 0) return;
  if (a > b) std::swap(a, b);
  neighbour_[a][b] = neighbour_[b][a] = int(connections_.size());
  connections_.push_back({a, b, links, kind});
}

unsigned Topology::linksUsed(unsigned ipu) const {
  unsigned n = 0;
  for (const Connection &c : connections_)
    if (c.a == ipu || c.b == ipu) n += c.links;
  return n;
}

int Topology::connectionBetween(unsigned a, unsigned b) const {
  return a < ipus_ && b < ipus_ ? neighbour_[a][b] : -1;
}

std::vector<Topology::Hop> Topology::route(unsigned src, unsigned dst) const {
  if (src >= ipus_ || dst >= ipus_)
    throw std::out_of_range("IPU " + std::to_string(src >= ipus_ ? src : dst) + " is not in a system of " +
                            std::to_string(ipus_) + " IPUs");
  std::vector<Hop> hops;
  auto step = [&](unsigned from, unsigned to) {
    const int c = neighbour_[from][to];
    if (c < 0)
      throw std::logic_error("no IPU-Link between IPU " + std::to_string(from) + " and IPU " + std::to_string(to));
    hops.push_back({unsigned(c), from, to});
  };
  // Along the rail to the destination's rung, the shorter way round a torus (upwards on a tie),
  // then across the rung.
  unsigned at = src;
  const unsigned side = src % 2, target = dst / 2;
  const bool torus = kind_ == "2d-torus" && rungs_ > 2;
  while (at / 2 != target) {
    const unsigned rung = at / 2;
    const unsigned up = (target + rungs_ - rung) % rungs_, down = rungs_ - up;
    unsigned next;
    if (torus) next = up <= down ? (rung + 1) % rungs_ : (rung + rungs_ - 1) % rungs_;
    else next = target > rung ? rung + 1 : rung - 1;
    step(at, 2 * next + side);
    at = 2 * next + side;
  }
  if (at != dst) step(at, dst);
  return hops;
}

std::vector<std::string> Topology::ringNames() const {
  if (rungs_ == 0) return {};
  std::vector<std::string> names{"ring-on-line"};
  // rung-ring-N: replicas of N IPUs (N / 2 rungs) stacked round the torus, at least two of them.
  if (kind_ == "2d-torus" && rungs_ > 2)
    for (unsigned n : {2u, 4u, 8u})
      if (rungs_ % (n / 2) == 0 && ipus_ / n >= 2) names.push_back("rung-ring-" + std::to_string(n));
  return names;
}

std::vector<std::vector<unsigned>> Topology::rings(const std::string &name) const {
  const std::vector<std::string> known = ringNames();
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    std::string list;
    for (const std::string &n : known) list += (list.empty() ? "" : ", ") + n;
    throw ConfigError("topology '" + kind_ + "' has no ring '" + name + "' (it has: " + (list.empty() ? "none" : list) + ")");
  }
  if (name == "ring-on-line") {
    // Up the even rail and down the odd one: every IPU once, over rails and the two end rungs.
    std::vector<unsigned> ring;
    for (unsigned r = 0; r < rungs_; ++r) ring.push_back(2 * r);
    for (unsigned r = rungs_; r-- > 0;) ring.push_back(2 * r + 1);
    return {ring};
  }
  // rung-ring-N ([F] S25: for replicas of N IPUs, traffic goes straight up one of the two
  // physical rings, one on each side of the mesh, round the wrap): IPU j of every replica forms a
  // ring, whose steps go N / 2 rungs up the rail on j's side.
  const unsigned n = unsigned(std::stoul(name.substr(std::string("rung-ring-").size())));
  std::vector<std::vector<unsigned>> out(n);
  for (unsigned j = 0; j < n; ++j)
    for (unsigned replica = 0; replica < ipus_ / n; ++replica) out[j].push_back(replica * n + j);
  return out;
}

std::string Topology::describe(const SystemConfig &config) const {
  std::ostringstream os;
  const double link = config.links.bytesPerSecondPerDirection;
  os << config.name << ": " << config.description << "\n";
  os << "  IPUs: " << ipus_ << " (" << config.ipu.tiles << " tiles each, " << uint64_t(ipus_) * config.ipu.tiles
     << " tiles), " << chassis() << (chassis() == 1 ? " chassis" : " chassis") << " of " << ipusPerChassis_
     << ", clock " << config.ipu.clockHz / 1e9 << " GHz\n";
  os << "  topology: " << kind_ << "\n";
  os << "  IPU-Links: " << config.links.linksPerIpu << " per IPU, " << gigabytes(link)
     << " each way per link, latency " << config.links.latencyCycles << " cycles a hop\n";
  for (const Connection &c : connections_)
    os << "    ipu" << c.a << " <-> ipu" << c.b << "  " << c.kind << ", " << c.links << " links, "
       << gigabytes(link * c.links) << " each way\n";
  for (unsigned i = 0; i < ipus_; ++i)
    if (linksUsed(i) < config.links.linksPerIpu)
      os << "    ipu" << i << ": " << config.links.linksPerIpu - linksUsed(i) << " IPU-Links unconnected\n";
  os << "  host: " << (config.host.kind == "gateway" ? "IPU-Gateway (GW-Links)" : "PCIe") << ", "
     << gigabytes(config.host.bytesPerSecondPerDirection) << " each way per "
     << (config.host.kind == "gateway" ? "M2000" : "IPU") << ", latency " << config.host.latencyCycles
     << " cycles\n";
  for (const std::string &name : ringNames())
    for (const std::vector<unsigned> &ring : rings(name)) {
      os << "  ring " << name << ":";
      for (unsigned i : ring) os << " " << i;
      os << "\n";
    }
  return os.str();
}

} // namespace ipusim::arch
