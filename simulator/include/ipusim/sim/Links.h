// The IPU-Links of a system carrying inter-IPU exchange packets (docs/systems.md "External
// exchange"). Off-chip traffic is packets whose header names the destination ([F] S21: Graphcore
// patent US10558595B2 "Sending data off-chip"; header and payload sizes as the Mk1 TLINK constants,
// [RE] S8), so unlike the internal exchange its timing is not fixed in advance: each packet crosses
// its route (arch::Topology::route) hop by hop, waiting for a free link of each connection, and is
// written into the receiving tile one word a cycle. The outcome depends only on the packets, so it
// is the same for any number of host threads.
#pragma once

#include "ipusim/arch/Topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ipusim::sim {

/// The packet format tile code sends (docs/systems.md): a 2-word header, then the payload.
///   word 0: bits 31-29 format (2: tile write), 28-18 destination tile, 17-8 destination IPU,
///           7-0 payload words - 1 (at most 256 words: [RE] S8 TEXCH_TLINK_MAX_PAYLOAD_BYTES = 1024)
///   word 1: the byte address in the destination tile's memory (word aligned)
namespace packet {
constexpr unsigned kTileWrite = 2;
constexpr unsigned kHeaderWords = 2;
constexpr unsigned kMaxPayloadWords = 256;
inline uint32_t header(unsigned ipu, unsigned tile, unsigned words) {
  return kTileWrite << 29 | (tile & 0x7FF) << 18 | (ipu & 0x3FF) << 8 | ((words - 1) & 0xFF);
}
} // namespace packet

/// A packet as a tile sent it, complete.
struct Packet {
  unsigned srcIpu = 0, srcTile = 0, dstIpu = 0, dstTile = 0;
  uint32_t addr = 0;
  std::vector<uint32_t> payload;
  uint64_t firstSend = 0, lastSend = 0; ///< cycles its first header word and last word left the tile
};

/// Where and when one packet's words were written.
struct PacketDelivery {
  const Packet *packet = nullptr;
  uint64_t arrival = 0;    ///< its last byte reached the destination IPU's link interface
  uint64_t firstWrite = 0; ///< its first payload word written into the destination tile (one a cycle)
  unsigned hops = 0;
};

struct LinkStats {
  uint64_t packets = 0, payloadBytes = 0, linkBytes = 0; ///< linkBytes counts headers and every hop
  /// Per connection (arch::Topology::connections()) and direction (0: a to b, 1: b to a): cycles
  /// some link of the connection was busy, summed over its links.
  std::vector<uint64_t> busyCycles[2];
};

class Links {
public:
  Links(const arch::SystemConfig &config, const arch::Topology &topology);

  /// Times `packets` (all sent in one external exchange phase) over the links: in order of
  /// readiness (their last word at the sending IPU's link interface, then source IPU, tile and
  /// order sent), each takes at every hop the connection's link that frees first. Throws
  /// std::runtime_error naming the packet when no route joins its IPUs.
  std::vector<PacketDelivery> deliver(const std::vector<Packet> &packets);

  /// Cycles a packet of `payloadWords` words occupies one link: its header and payload at the
  /// link's rate (links.bytes_per_second_per_direction at the IPU clock), rounded up.
  uint64_t serialisationCycles(unsigned payloadWords) const;
  const LinkStats &stats() const { return stats_; }
  void resetStats();

private:
  const arch::SystemConfig &config_;
  const arch::Topology &topology_;
  LinkStats stats_;
};

} // namespace ipusim::sim
