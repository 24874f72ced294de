// The IPU-Link topology of a system (ipu-facts §1; docs/systems.md): which IPUs are joined by how
// many IPU-Links, the routes inter-IPU traffic takes over them, the collective rings named as
// Graphcore's GCL names them, and the host links. Built from a SystemConfig and validated once;
// the simulator's link model and `ipusim info` both read it.
#pragma once

#include "ipusim/arch/Config.h"

#include <string>
#include <vector>

namespace ipusim::arch {

class Topology {
public:
  /// Builds and validates the topology `config.topology` names ("single", "m2000", "2d-torus",
  /// "ladder"); throws ConfigError naming the problem (an IPU with more IPU-Links than it has ...).
  explicit Topology(const SystemConfig &config);

  /// IPU-Links joining two IPUs, each full duplex. `kind` is "rung" (the two IPUs of a pair side by
  /// side), "rail" (an IPU and the one above it in the next rung), or "wrap" (a rail from the top
  /// rung back to the bottom one, closing the torus).
  struct Connection {
    unsigned a = 0, b = 0; ///< a < b
    unsigned links = 0;    ///< IPU-Links in the bundle
    std::string kind;
  };
  /// One step of a route: a connection crossed from `from` to the other end.
  struct Hop {
    unsigned connection = 0;
    unsigned from = 0, to = 0;
  };

  unsigned ipus() const { return ipus_; }
  unsigned chassis() const { return ipus_ / ipusPerChassis_; }
  const std::string &kind() const { return kind_; }
  const std::vector<Connection> &connections() const { return connections_; }
  /// IPU-Links the topology uses at IPU `ipu` (the rest are unconnected).
  unsigned linksUsed(unsigned ipu) const;
  /// The connections between `a` and `b` (index into connections()), or -1 when not neighbours.
  int connectionBetween(unsigned a, unsigned b) const;
  /// The route traffic from `src` to `dst` takes: the fewest hops, rungs crossed last (dimension
  /// order: along the rail first, then across), so that every route is fixed and deadlock free.
  /// Empty when src == dst. Throws std::out_of_range for an IPU the system does not have.
  std::vector<Hop> route(unsigned src, unsigned dst) const;

  /// The collective rings GCL names (ipu-facts §1, [F] S23, S25), as IPU orders: ring-on-line
  /// (every IPU, each step to a neighbour) and, on a torus, rung-ring-2/4/8 (one ring per IPU of
  /// a replica of N IPUs, each step N / 2 rungs up its rail). Only the rings this topology can
  /// form are listed.
  std::vector<std::string> ringNames() const;
  /// The rings of one name (N disjoint rings for rung-ring-N). Throws ConfigError for a name
  /// ringNames() does not list.
  std::vector<std::vector<unsigned>> rings(const std::string &name) const;

  /// A readable summary: IPUs, chassis, every connection with its links and bandwidth, the host
  /// links and the rings (`ipusim info`).
  std::string describe(const SystemConfig &config) const;

private:
  void connect(unsigned a, unsigned b, unsigned links, const std::string &kind);
  unsigned ipus_ = 0, ipusPerChassis_ = 1, rungs_ = 0;
  std::string kind_;
  std::vector<Connection> connections_;
  std::vector<std::vector<int>> neighbour_; ///< [a][b] -> connection index or -1
};

} // namespace ipusim::arch
