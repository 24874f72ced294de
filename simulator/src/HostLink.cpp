// The host link as TLM-2.0 transactions. See ipusim/sim/HostLink.h and docs/systems.md.
#include "ipusim/sim/HostLink.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace ipusim::sim {

namespace {
/// A System's IPUs as the link's targets.
class SystemTargets : public HostTargets {
public:
  explicit SystemTargets(System &system) : system_(system) {}
  const arch::SystemConfig &config() const override { return system_.config(); }
  Ipu *ipuAt(unsigned ipu) override { return ipu < system_.ipuCount() ? &system_.ipu(ipu) : nullptr; }
  bool owns(unsigned ipu) const override { return system_.owns(ipu); }

private:
  System &system_;
};
} // namespace

unsigned StreamingMemory::add(const std::string &name, uint64_t bytes) {
  if (config_.host.streamingMemoryBytes == 0)
    throw std::runtime_error("remote buffer '" + name + "': config '" + config_.name +
                             "' has no Streaming Memory (host.streaming_memory_bytes = 0: the host is a PCIe card)");
  // host.streaming_memory_bytes is each gateway's (each M2000's) DRAM.
  const double capacity = config_.host.streamingMemoryBytes * (config_.ipus / config_.ipusPerChassis);
  if (double(used_ + bytes) > capacity)
    throw std::runtime_error("remote buffer '" + name + "' of " + std::to_string(bytes) + " bytes does not fit: " +
                             std::to_string(used_) + " of the " + std::to_string(uint64_t(capacity)) +
                             " bytes of Streaming Memory are taken");
  used_ += bytes;
  buffers_.push_back({name, std::vector<uint8_t>(size_t(bytes), 0)});
  return unsigned(buffers_.size() - 1);
}

HostLink::HostLink(sc_core::sc_module_name name) : sc_core::sc_module(name), socket("socket") {
  socket.register_b_transport(this, &HostLink::b_transport);
}

HostLink::HostLink(sc_core::sc_module_name name, System &system) : HostLink(name) {
  ownTargets_ = std::make_unique<SystemTargets>(system);
  ownMemory_ = std::make_unique<StreamingMemory>(system.config());
  connect(*ownTargets_, ownMemory_.get());
}

HostLink::~HostLink() = default;

void HostLink::connect(HostTargets &targets, StreamingMemory *memory) {
  targets_ = &targets;
  memory_ = memory;
  resetTiming();
}

unsigned HostLink::addRemoteBuffer(const std::string &name, uint64_t bytes) {
  if (!memory_) throw std::runtime_error("remote buffer '" + name + "': the host link has no Streaming Memory");
  return memory_->add(name, bytes);
}

unsigned HostLink::linkOf(unsigned ipu) const {
  // [F] S13: an M2000's IPUs reach the host through its one IPU-Gateway; a PCIe card per IPU.
  const arch::SystemConfig &c = targets_->config();
  return c.host.kind == "gateway" ? ipu / c.ipusPerChassis : ipu;
}

void HostLink::b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) {
  const uint64_t a = p.get_address();
  const unsigned bytes = p.get_data_length();
  const bool write = p.get_command() == tlm::TLM_WRITE_COMMAND;
  uint8_t *data = p.get_data_ptr();
  auto fail = [&](const std::string &why) {
    error_ = why;
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  };
  if (!targets_) return fail("the host link is connected to no IPU");
  const arch::SystemConfig &config = targets_->config();
  unsigned link = 0;
  if (a & HostAddress::kRemote) {
    const unsigned buffer = unsigned((a >> 40) & 0x3FFFFF);
    const uint64_t offset = a & ((uint64_t(1) << 40) - 1);
    if (!memory_ || buffer >= memory_->count()) return fail("no remote buffer " + std::to_string(buffer));
    std::vector<uint8_t> &r = memory_->bytes(buffer);
    if (offset + bytes > r.size())
      return fail("bytes " + std::to_string(offset) + ".." + std::to_string(offset + bytes) + " are beyond remote buffer '" +
                  memory_->name(buffer) + "' of " + std::to_string(r.size()) + " bytes");
    // The gateway's DRAM side of a copy between a tile and a remote buffer: the copy's time is its
    // tile side's, on the IPU's link ([I]: the DRAM is taken not to be the bottleneck).
    if (write) std::memcpy(r.data() + offset, data, bytes);
    else std::memcpy(data, r.data() + offset, bytes);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  {
    const unsigned ipu = unsigned(a >> 40), tile = unsigned((a >> 24) & 0xFFFF);
    const uint32_t addr = uint32_t(a & 0xFFFFFF);
    Ipu *target = targets_->ipuAt(ipu);
    if (!target || tile >= target->tileCount())
      return fail("tile " + std::to_string(tile) + " of ipu" + std::to_string(ipu) + " is not in the system");
    TileMemory &m = target->tile(tile).memory();
    if (!m.contains(addr, bytes)) {
      char range[96];
      std::snprintf(range, sizeof range, "0x%x..0x%llx is outside tile memory 0x%x..0x%x", addr,
                    static_cast<unsigned long long>(uint64_t(addr) + bytes), m.base(), m.end());
      return fail(std::string("tile ") + std::to_string(tile) + " of ipu" + std::to_string(ipu) + ": " + range);
    }
    // With MPI, the rank that runs the IPU holds its memory; the timing is every rank's.
    if (targets_->owns(ipu)) {
      if (write) std::memcpy(m.at(addr), data, bytes);
      else std::memcpy(data, m.at(addr), bytes);
    }
    link = linkOf(ipu);
  }
  // [D] S11 / [F] S12-S13: the bytes cross the link at its rate each way and the tile's exchange
  // port at its 4 B a cycle ([D] S11) together, one transaction at a time on each; then the
  // link's latency (host.latency_cycles, provisional).
  const double clock = config.ipu.clockHz;
  // The link is a byte stream: transactions follow each other on it without rounding to whole
  // cycles between them (times in fractions of a cycle; the end rounds up once).
  const double onLink = double(bytes) * clock / config.host.bytesPerSecondPerDirection;
  const uint64_t atPort = (bytes + config.exchange.bytesPerCyclePerTile - 1) / config.exchange.bytesPerCyclePerTile;
  const uint64_t now = uint64_t(std::llround((sc_core::sc_time_stamp() + delay).to_seconds() * clock));
  double &linkFree = busyUntil_[{link, write}], &portFree = portBusyUntil_[{unsigned(a >> 40), unsigned((a >> 24) & 0xFFFF)}];
  const double start = std::max({double(now), linkFree, portFree});
  linkFree = start + onLink;
  portFree = start + double(atPort);
  const uint64_t done = uint64_t(std::ceil(std::max(linkFree, portFree) - 1e-9)) + config.host.latencyCycles;
  delay += sc_core::sc_time(double(done - now) / clock, sc_core::SC_SEC);
  bytes_ += bytes;
  p.set_response_status(tlm::TLM_OK_RESPONSE);
}

sc_core::sc_time HostPort::transfer(bool write, uint64_t address, uint8_t *data, unsigned bytes, const HostLink &link,
                                    sc_core::sc_time after) {
  tlm::tlm_generic_payload p;
  p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_address(address);
  p.set_data_ptr(data);
  p.set_data_length(bytes);
  p.set_streaming_width(bytes);
  p.set_byte_enable_ptr(nullptr);
  p.set_dmi_allowed(false);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = after;
  socket->b_transport(p, delay);
  if (p.is_response_error()) throw std::runtime_error(link.error());
  return delay;
}

} // namespace ipusim::sim
