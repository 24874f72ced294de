// The host's path to the IPUs as TLM-2.0 transactions (docs/systems.md "The host"): PCIe Gen4 x16
// to each IPU of a card, or, in an M2000, the IPU-Gateway's link shared by its four IPUs, with the
// Streaming Memory (remote buffers in the gateway's DRAM) behind it. A transaction moves bytes
// between host memory (or a remote buffer) and one tile's memory while the tiles wait in a host
// sync; its bytes cross the link at host.bytes_per_second_per_direction and, at the same time, the
// tile's exchange port at exchange.bytes_per_cycle_per_tile (the slower sets the pace), then
// host.latency_cycles; transactions in one direction of one link, or at one tile, go one after
// another (the Poplar runtime's host transfers follow the same two limits, docs/poplar.md).
#pragma once

#include "ipusim/sim/System.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ipusim::sim {

/// Where a transaction goes: a tile's memory, or a remote buffer (Streaming Memory).
struct HostAddress {
  static constexpr uint64_t kRemote = uint64_t(1) << 63;
  /// Tile memory: ipu << 40 | tile << 24 | byte address.
  static uint64_t tile(unsigned ipu, unsigned tile, uint32_t addr) {
    return uint64_t(ipu) << 40 | uint64_t(tile) << 24 | addr;
  }
  /// A remote buffer: kRemote | buffer << 40 | byte offset.
  static uint64_t remote(unsigned buffer, uint64_t offset) { return kRemote | uint64_t(buffer) << 40 | offset; }
};

/// What the host link reaches: the IPUs of a System, or the one IPU a Poplar engine runs on.
class HostTargets {
public:
  virtual ~HostTargets() = default;
  virtual const arch::SystemConfig &config() const = 0;
  /// IPU `ipu` (its number in the system), or nullptr when it is not there.
  virtual Ipu *ipuAt(unsigned ipu) = 0;
  /// With MPI, only the rank that runs an IPU holds its memory; the timing is every rank's.
  virtual bool owns(unsigned ipu) const { (void)ipu; return true; }
};

/// Streaming Memory: the remote buffers in the gateways' DRAM (host.streaming_memory_bytes each,
/// [F] S14). Its contents outlive runs: a Poplar engine keeps them between Engine::run calls.
class StreamingMemory {
public:
  explicit StreamingMemory(const arch::SystemConfig &config) : config_(config) {}
  /// A remote buffer of `bytes`, zero-filled; its index for HostAddress::remote. Throws
  /// std::runtime_error when the host has no Streaming Memory (a PCIe card) or it is full.
  unsigned add(const std::string &name, uint64_t bytes);
  unsigned count() const { return unsigned(buffers_.size()); }
  const std::string &name(unsigned i) const { return buffers_.at(i).name; }
  std::vector<uint8_t> &bytes(unsigned i) { return buffers_.at(i).bytes; }

private:
  struct Buffer {
    std::string name;
    std::vector<uint8_t> bytes;
  };
  arch::SystemConfig config_;
  std::vector<Buffer> buffers_;
  uint64_t used_ = 0;
};

/// The device side: the links to the IPUs and the gateway's remote buffers.
class HostLink : public sc_core::sc_module {
public:
  tlm_utils::simple_target_socket<HostLink> socket;

  /// A link to nothing yet: connect() it before a transaction (the SystemC kernel of Poplar
  /// programs elaborates one link and connects each engine's IPU to it, sim/Kernel.h).
  explicit HostLink(sc_core::sc_module_name name);
  /// A link to the IPUs of `system`, with Streaming Memory of its own.
  HostLink(sc_core::sc_module_name name, System &system);
  ~HostLink() override;
  /// From now on transactions reach `targets`, and remote buffers are `memory`'s (nullptr: none).
  /// The links start idle.
  void connect(HostTargets &targets, StreamingMemory *memory);
  /// A remote buffer in the link's Streaming Memory (see StreamingMemory::add).
  unsigned addRemoteBuffer(const std::string &name, uint64_t bytes);
  const std::vector<uint8_t> &remoteBuffer(unsigned i) const { return memory_->bytes(i); }
  /// The link a transaction for `ipu` takes: its own PCIe link, or its M2000's gateway.
  unsigned linkOf(unsigned ipu) const;
  uint64_t bytesMoved() const { return bytes_; }
  /// Forgets when the links are busy until (a benchmark's next measurement starts them idle).
  void resetTiming() {
    busyUntil_.clear();
    portBusyUntil_.clear();
  }

private:
  /// A write moves the payload into the tile (or a remote buffer); a read fills it from there.
  /// `delay` grows by the wait for the link, the latency and the bytes' time on the link. A
  /// tile out of range, an address outside its memory or past a remote buffer's end is a
  /// TLM_ADDRESS_ERROR_RESPONSE with the reason in error().
  void b_transport(tlm::tlm_generic_payload &payload, sc_core::sc_time &delay);

public:
  /// The reason of the last failed transaction.
  const std::string &error() const { return error_; }

private:
  HostTargets *targets_ = nullptr;
  StreamingMemory *memory_ = nullptr;
  std::unique_ptr<HostTargets> ownTargets_;    ///< the System adapter of the second constructor
  std::unique_ptr<StreamingMemory> ownMemory_; ///< and its Streaming Memory
  /// Per link and direction, the IPU cycle it is busy until, in fractions of a cycle (cycles, not
  /// sc_time: a sum of picosecond-rounded times would drift from the cycle count).
  std::map<std::pair<unsigned, bool>, double> busyUntil_;
  std::map<std::pair<unsigned, unsigned>, double> portBusyUntil_; ///< per (IPU, tile)
  uint64_t bytes_ = 0;
  std::string error_;
};

/// The host program's side of the link.
class HostPort : public sc_core::sc_module {
public:
  tlm_utils::simple_initiator_socket<HostPort> socket;
  explicit HostPort(sc_core::sc_module_name name) : sc_core::sc_module(name), socket("socket") {}
  /// One transaction from the current SystemC time plus `after` (it waits for something the
  /// host does first); returns when the last byte is through, counted from the current time
  /// (the local time annotation of b_transport, not waited on: the caller waits). Throws
  /// std::runtime_error with the link's reason for an address error.
  sc_core::sc_time transfer(bool write, uint64_t address, uint8_t *data, unsigned bytes, const HostLink &link,
                            sc_core::sc_time after = sc_core::SC_ZERO_TIME);
};

} // namespace ipusim::sim
