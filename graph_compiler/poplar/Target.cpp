// poplar::Target, IPUModel, Device and DeviceManager over ipusim's machine configs
// (arch/configs; docs/poplar.md "Devices and targets").
#include "Internal.h"

#include "ipusim/arch/Config.h"
#include "ipusim/gc/Types.h"

#include <poplar/DeviceManager.hpp>
#include <poplar/IPUModel.hpp>
#include <poplar/exceptions.hpp>

#include <cstdlib>
#include <mutex>
#include <set>

namespace poplar {

using ipusim::gc::TargetInfo;

namespace core {

std::shared_ptr<const TargetInfo> makeTarget(const std::string &arch, unsigned numIpus, unsigned tilesPerIpu) {
  auto t = std::make_shared<TargetInfo>();
  if (arch != "ipu2" && arch != "ipu1")
    throw invalid_machine_model("unknown IPU version '" + arch + "' (ipusim models \"ipu2\", the Mk2 GC200, and \"ipu1\")");
  try {
    t->config = ipusim::arch::loadNamedConfig("mk2");
  } catch (const std::exception &e) {
    throw invalid_machine_model(e.what());
  }
  t->ipuVersion = arch;
  if (arch == "ipu1") {
    // Mk1 (GC2) figures, [F] ipu-facts §1: 1216 tiles of 256 KiB at 1.6 GHz. The tile itself
    // stays ipusim's Mk2 model (memory map, ISA): docs/poplar.md lists this difference.
    t->config.ipu.tiles = 1216;
    t->config.ipu.clockHz = 1.6e9;
    t->config.tile.memorySize = 256 * 1024;
    for (ipusim::arch::MemoryRegion &r : t->config.tile.regions)
      r.end = std::min(r.end, t->config.tile.memoryEnd());
  }
  if (tilesPerIpu == 0 || tilesPerIpu > t->config.ipu.tiles)
    throw invalid_machine_model("an " + arch + " IPU has 1.." + std::to_string(t->config.ipu.tiles) +
                                " tiles, not " + std::to_string(tilesPerIpu));
  if (numIpus == 0) throw invalid_machine_model("a target needs at least one IPU");
  t->numIpus = numIpus;
  t->tilesPerIpu = tilesPerIpu;
  return t;
}

} // namespace core

// ---- Target ----

Target::Target() = default;
Target::~Target() = default;
Target::Target(const Target &) = default;
Target::Target(Target &&) = default;
Target &Target::operator=(const Target &) = default;
Target &Target::operator=(Target &&) = default;
Target::Target(std::shared_ptr<const TargetInfo> info) : info_(std::move(info)) {}

bool Target::operator==(const Target &o) const {
  if (!info_ || !o.info_) return info_ == o.info_;
  return info_->numIpus == o.info_->numIpus && info_->tilesPerIpu == o.info_->tilesPerIpu &&
         info_->ipuVersion == o.info_->ipuVersion;
}

TargetType Target::getTargetType() const { return TargetType::IPU; }
std::string Target::getTargetSystemString() const { return info_->ipuVersion; }
StringRef Target::getTargetArchString() const { return StringRef(info_->ipuVersion); }
unsigned Target::getNumIPUs() const { return info_->numIpus; }
unsigned Target::getTilesPerIPU() const { return info_->tilesPerIpu; }
unsigned Target::getNumTiles() const { return info_->numTiles(); }
unsigned Target::getNumWorkerContexts() const { return info_->config.tile.workerContexts; }
unsigned Target::getBytesPerTile() const { return info_->config.tile.memorySize; }
std::uint64_t Target::getMemoryBytes() const { return uint64_t(getBytesPerTile()) * getNumTiles(); }
unsigned Target::getExchangeBytesPerCycle() const { return info_->config.exchange.bytesPerCyclePerTile; }
unsigned Target::getMemcpyBytesPerCycle() const { return 8; } // one 64-bit store a cycle ([D] ipu-facts §2.4)
unsigned Target::getMinIPUSyncDelay() const { return info_->config.sync.internalLatencyCycles; }
unsigned Target::getMaxIPUSyncDelay() const {
  return info_->config.sync.internalLatencyCycles + info_->config.sync.releaseSkewCycles * 23;
}
unsigned Target::getGlobalSyncCycles() const { return info_->config.sync.externalLatencyCycles; }
unsigned Target::getInterleavedMemoryElementIndex() const {
  const auto &tc = info_->config.tile;
  for (const auto &r : tc.regions)
    if (r.interleave > 1) return (r.base - tc.memoryBase) / tc.elementSize;
  return 0;
}
unsigned Target::getNumStrideBits() const { return 10; } // NUM_STRIDE_BITS, asm-dialect §2.4
unsigned Target::getDataPathWidth() const { return 64; }  // bits: one 64-bit load a cycle
unsigned Target::getRptCountMax() const { return (1u << info_->config.tile.repeatCountBits) - 1; }
bool Target::supportsExchangeBusSharing() const { return info_->config.exchange.tilesPerSharedBus > 1; }
unsigned Target::getTilesPerSharedExchangeBus() const { return info_->config.exchange.tilesPerSharedBus; }
unsigned Target::getFloatVectorWidth() const { return 2; }
unsigned Target::getHalfVectorWidth() const { return 4; }
unsigned Target::getVectorWidth(const Type &type) const {
  return unsigned(getDataPathWidth() / (8 * getTypeSize(type)));
}
std::size_t Target::getTypeSize(const Type &type) const { return ipusim::gc::typeSize(core::typeId(type)); }
std::size_t Target::getAtomicStoreGranularity() const { return 4; }
double Target::getTileClockFrequency() const { return info_->config.ipu.clockHz; }
// The AMP (ipu-facts §1): 16 conv units for f16 partials, 8 for f32 partials, 8 for f32 inputs.
unsigned Target::getWeightsPerConvUnit(bool floatActivations) const { return floatActivations ? 8 : 16; }
unsigned Target::getConvUnitInputLoadElemsPerCycle(bool floatActivations) const { return floatActivations ? 2 : 4; }
unsigned Target::getFp16InFp16OutConvUnitsPerTile() const { return 16; }
unsigned Target::getFp16InFp32OutConvUnitsPerTile() const { return 8; }
unsigned Target::getFp32InFp32OutConvUnitsPerTile() const { return 8; }
unsigned Target::getConvUnitCoeffLoadBytesPerCycle() const { return 16; }

Target Target::createVirtualTarget(unsigned numIPUs, unsigned tilesPerIPU) const {
  return Target(core::makeTarget(info_->ipuVersion, numIPUs, tilesPerIPU));
}
Target Target::createIPUTarget(StringRef systemType, const OptionFlags &) { return createIPUTarget(1, systemType); }
Target Target::createIPUTarget(unsigned numIPUs, StringRef systemType, const OptionFlags &) {
  auto t = core::makeTarget(systemType.cloneAsString(), numIPUs, systemType.cloneAsString() == "ipu1" ? 1216 : 1472);
  return Target(t);
}
Target Target::createIPUTarget(unsigned numIPUs, unsigned tilesPerIPU, StringRef systemType, const OptionFlags &) {
  return Target(core::makeTarget(systemType.cloneAsString(), numIPUs, tilesPerIPU));
}

void copyDeviceHalfToFloat(const Target &, const void *src, float *dst, std::size_t n) {
  const uint8_t *p = static_cast<const uint8_t *>(src);
  for (std::size_t i = 0; i < n; ++i) dst[i] = ipusim::gc::halfToFloat(uint16_t(p[2 * i] | p[2 * i + 1] << 8));
}
void copyFloatToDeviceHalf(const Target &, const float *src, void *dst, std::size_t n) {
  uint8_t *p = static_cast<uint8_t *>(dst);
  for (std::size_t i = 0; i < n; ++i) {
    uint16_t h = ipusim::gc::floatToHalf(src[i]);
    p[2 * i] = uint8_t(h);
    p[2 * i + 1] = uint8_t(h >> 8);
  }
}
void copyDeviceHalfToDouble(const Target &t, const void *src, double *dst, std::size_t n) {
  std::vector<float> f(n);
  copyDeviceHalfToFloat(t, src, f.data(), n);
  for (std::size_t i = 0; i < n; ++i) dst[i] = f[i];
}
void copyDoubleToDeviceHalf(const Target &t, const double *src, void *dst, std::size_t n) {
  std::vector<float> f(src, src + n);
  copyFloatToDeviceHalf(t, f.data(), dst, n);
}

// ---- IPUModel ----

IPUModel::IPUModel(const char *version) : IPUVersion(version ? version : "ipu2") {
  auto t = core::makeTarget(IPUVersion, 1, IPUVersion == "ipu1" ? 1216 : 1472);
  const ipusim::arch::SystemConfig &c = t->config;
  numIPUs = 1;
  tilesPerSuperTile = c.ipu.tilesPerSupertile;
  tilesPerIPU = c.ipu.tiles;
  numWorkerContexts = c.tile.workerContexts;
  memoryBytesPerTile = c.tile.memorySize;
  tileClockFrequency = c.ipu.clockHz;
  exchangeBytesPerCycle = c.exchange.bytesPerCyclePerTile;
  memcpyBytesPerCycle = 8;
  instructionBytes = 4;
  supportsSuperTileSendReceive = true;
  interleavedMemoryElementIndex = Target(t).getInterleavedMemoryElementIndex();
  minIPUSyncDelay = c.sync.internalLatencyCycles;
  relativeSyncDelay = c.sync.releaseSkewCycles ? RelativeSyncDelayType::AUTO : RelativeSyncDelayType::NO_DELAY;
  globalSyncCycles = c.sync.externalLatencyCycles;
  globalExchangePacketBytes = 1024;
  tileLocalSyncSyncDelay = c.tile.timing.syncLocalCycles;
  tileLocalSyncExitDelay = 0;
  numStrideBits = 10;
  dataPathWidth = 64;
  convUnitCoeffLoadBytesPerCycle = 16;
  supervisorInstrFetchDelay = 0;
  workerInstrFetchDelay = 0;
  rptCountMax = (1u << c.tile.repeatCountBits) - 1;
  atomicStoreGranularity = 4;
  compileIPUCode = false;
}

bool IPUModel::operator==(const IPUModel &o) const {
  return IPUVersion == o.IPUVersion && numIPUs == o.numIPUs && tilesPerIPU == o.tilesPerIPU &&
         memoryBytesPerTile == o.memoryBytesPerTile && tileClockFrequency == o.tileClockFrequency &&
         minIPUSyncDelay == o.minIPUSyncDelay && globalSyncCycles == o.globalSyncCycles &&
         relativeSyncDelay == o.relativeSyncDelay;
}

Device IPUModel::createDevice(OptionFlags, bool, unsigned deviceManagerId) const {
  auto t = std::const_pointer_cast<TargetInfo>(core::makeTarget(IPUVersion, numIPUs, tilesPerIPU));
  // The fields that shape the simulated IPU; the rest are fixed by the tile model.
  if (numWorkerContexts != t->config.tile.workerContexts)
    throw invalid_machine_model("IPUModel: ipusim's tile has " + std::to_string(t->config.tile.workerContexts) +
                                " worker contexts, not " + std::to_string(numWorkerContexts));
  if (exchangeBytesPerCycle != t->config.exchange.bytesPerCyclePerTile)
    throw invalid_machine_model("IPUModel: ipusim's exchange moves " +
                                std::to_string(t->config.exchange.bytesPerCyclePerTile) + " bytes a cycle per tile, not " +
                                std::to_string(exchangeBytesPerCycle));
  if (memoryBytesPerTile == 0 || memoryBytesPerTile > t->config.tile.memorySize || memoryBytesPerTile % 8)
    throw invalid_machine_model("IPUModel: memoryBytesPerTile must be a multiple of 8 up to " +
                                std::to_string(t->config.tile.memorySize));
  t->config.tile.memorySize = memoryBytesPerTile;
  for (ipusim::arch::MemoryRegion &r : t->config.tile.regions) r.end = std::min(r.end, t->config.tile.memoryEnd());
  if (tileClockFrequency <= 0) throw invalid_machine_model("IPUModel: tileClockFrequency must be positive");
  t->config.ipu.clockHz = tileClockFrequency;
  t->config.sync.internalLatencyCycles = minIPUSyncDelay;
  t->config.sync.externalLatencyCycles = globalSyncCycles;
  if (relativeSyncDelay == RelativeSyncDelayType::NO_DELAY) t->config.sync.releaseSkewCycles = 0;
  auto s = std::make_shared<core::DeviceState>();
  s->target = t;
  s->publicTarget = Target(t);
  s->id = deviceManagerId == std::numeric_limits<unsigned>::max() ? 0 : deviceManagerId;
  s->model = true;
  for (unsigned i = 0; i < numIPUs; ++i) s->ipus.push_back(i);
  return Device(s);
}

// ---- Device ----

namespace {
std::mutex attachMutex;
std::set<unsigned> attachedIpus; ///< IPUs of the DeviceManager's system held by a Device
} // namespace

Device::Device() = default;
Device::Device(Device &&) noexcept = default;
Device &Device::operator=(Device &&o) noexcept {
  if (this != &o) {
    if (state_ && state_->attached) detach();
    state_ = std::move(o.state_);
  }
  return *this;
}
Device::~Device() {
  if (state_ && state_->attached && !state_->model) detach();
}
Device::Device(std::shared_ptr<core::DeviceState> state) : state_(std::move(state)) {}

static core::DeviceState &need(const std::shared_ptr<core::DeviceState> &s) {
  if (!s) throw poplar_error("this Device is empty (default-constructed or moved from)");
  return *s;
}

unsigned Device::getId() const { return need(state_).id; }
const Target &Device::getTarget() const { return need(state_).publicTarget; }

bool Device::attach() const {
  core::DeviceState &s = need(state_);
  if (s.model || s.attached) return s.attached = true;
  std::lock_guard<std::mutex> lock(attachMutex);
  for (unsigned i : s.ipus)
    if (attachedIpus.count(i)) return false;
  for (unsigned i : s.ipus) attachedIpus.insert(i);
  return s.attached = true;
}
bool Device::isAttached() const { return need(state_).attached; }
void Device::detach() const {
  core::DeviceState &s = need(state_);
  if (!s.attached) return;
  s.attached = false;
  if (s.model) return;
  std::lock_guard<std::mutex> lock(attachMutex);
  for (unsigned i : s.ipus) attachedIpus.erase(i);
}
void Device::getDriverVersion(unsigned &major, unsigned &minor, unsigned &point) const {
  need(state_);
  major = 0, minor = 1, point = 0; // ipusim's simulated driver
}
// Remote buffers live in the Streaming Memory behind an M2000's IPU-Gateway ([F] S13, S14).
bool Device::supportsRemoteBuffers() const { return need(state_).target->config.host.streamingMemoryBytes > 0; }
bool Device::hasGateway() const { return need(state_).target->config.host.kind == "gateway"; }
std::map<std::string, std::string> Device::getAttributes() const {
  const core::DeviceState &s = need(state_);
  return {{"ipusim", "1"}, {"numIPUs", std::to_string(s.ipus.size())}, {"IPU version", s.target->ipuVersion},
          {"config", s.target->config.name}};
}
void Device::reset() const {}
Device Device::createVirtualDevice(unsigned tilesPerIPU) {
  core::DeviceState &s = need(state_);
  auto v = std::make_shared<core::DeviceState>(s);
  auto t = std::make_shared<TargetInfo>(*s.target);
  if (tilesPerIPU == 0 || tilesPerIPU > t->tilesPerIpu)
    throw invalid_machine_model("createVirtualDevice: 1.." + std::to_string(t->tilesPerIpu) + " tiles per IPU, not " +
                                std::to_string(tilesPerIPU));
  t->tilesPerIpu = tilesPerIPU;
  v->target = t;
  v->publicTarget = Target(t);
  v->attached = false;
  return Device(v);
}
Device Device::createCPUDevice(unsigned) {
  throw invalid_machine_model("CPU targets are not modelled by ipusim: use an IPUModel or a DeviceManager device");
}

// ---- DeviceManager: the IPUs of one simulated system (IPUSIM_SYSTEM: a config of arch/configs,
// default m2000), as single IPUs and as groups of 2, 4 ... aligned to their size. ----

namespace {
struct SystemDevices {
  std::shared_ptr<const TargetInfo> one;
  std::vector<std::vector<unsigned>> groups; ///< by device id
};
const SystemDevices &systemDevices() {
  static SystemDevices d = [] {
    SystemDevices s;
    const char *name = std::getenv("IPUSIM_SYSTEM");
    ipusim::arch::SystemConfig c;
    try {
      c = ipusim::arch::loadNamedConfig(name && *name ? name : "m2000");
    } catch (const std::exception &e) {
      throw invalid_machine_model(std::string("IPUSIM_SYSTEM: ") + e.what());
    }
    for (unsigned size = 1; size <= c.ipus; size *= 2)
      for (unsigned first = 0; first + size <= c.ipus; first += size) {
        std::vector<unsigned> g;
        for (unsigned i = 0; i < size; ++i) g.push_back(first + i);
        s.groups.push_back(g);
      }
    auto t = std::make_shared<TargetInfo>();
    t->config = c;
    t->numIpus = 1;
    t->tilesPerIpu = c.ipu.tiles;
    s.one = t;
    return s;
  }();
  return d;
}
Device makeSystemDevice(unsigned id) {
  const SystemDevices &d = systemDevices();
  auto s = std::make_shared<core::DeviceState>();
  auto t = std::make_shared<TargetInfo>(*d.one);
  t->numIpus = unsigned(d.groups.at(id).size());
  s->target = t;
  s->publicTarget = Target(t);
  s->id = id;
  s->ipus = d.groups[id];
  return Device(s);
}
} // namespace

DeviceManager::DeviceManager() = default;
DeviceManager::DeviceManager(const DeviceManager &) = default;
DeviceManager::DeviceManager(DeviceManager &&) = default;
DeviceManager::~DeviceManager() = default;
DeviceManager DeviceManager::createDeviceManager() { return DeviceManager(); }
std::size_t DeviceManager::getNumDevices() const { return systemDevices().groups.size(); }
std::vector<Device> DeviceManager::getDevices(const OptionFlags &) const {
  std::vector<Device> out;
  for (unsigned i = 0; i < systemDevices().groups.size(); ++i) out.push_back(makeSystemDevice(i));
  return out;
}
std::vector<Device> DeviceManager::getDevices(TargetType type, unsigned requiredNumIPUs, const OptionFlags &) const {
  std::vector<Device> out;
  if (type != TargetType::IPU) return out;
  for (unsigned i = 0; i < systemDevices().groups.size(); ++i)
    if (systemDevices().groups[i].size() == requiredNumIPUs) out.push_back(makeSystemDevice(i));
  return out;
}
Device DeviceManager::getDevice(unsigned id, const OptionFlags &) const {
  if (id >= systemDevices().groups.size())
    throw poplar_error("DeviceManager::getDevice: no device " + std::to_string(id) + " (the system has " +
                       std::to_string(systemDevices().groups.size()) + ")");
  return makeSystemDevice(id);
}
std::vector<unsigned> DeviceManager::getChildDeviceIds(unsigned parentId, unsigned numChildDeviceIpus) const {
  const SystemDevices &d = systemDevices();
  if (parentId >= d.groups.size()) throw poplar_error("DeviceManager::getChildDeviceIds: no device " + std::to_string(parentId));
  std::vector<unsigned> out;
  const auto &parent = d.groups[parentId];
  for (unsigned i = 0; i < d.groups.size(); ++i) {
    const auto &g = d.groups[i];
    if (g.size() != numChildDeviceIpus || i == parentId) continue;
    if (g.front() >= parent.front() && g.back() <= parent.back()) out.push_back(i);
  }
  return out;
}

} // namespace poplar
