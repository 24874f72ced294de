// ipusim's Poplar SDK: poplar::DeviceManager, the simulated IPU systems of arch/configs
// (docs/poplar.md "Devices").
#ifndef IPUSIM_POPLAR_DEVICEMANAGER_HPP
#define IPUSIM_POPLAR_DEVICEMANAGER_HPP

#include <poplar/Device.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/TargetType.hpp>

#include <vector>

namespace poplar {

class DeviceManager {
public:
  DeviceManager();
  DeviceManager(const DeviceManager &);
  DeviceManager(DeviceManager &&);
  virtual ~DeviceManager();
  static DeviceManager createDeviceManager();
  std::size_t getNumDevices() const;
  std::vector<Device> getDevices(const OptionFlags &opts = {}) const;
  std::vector<Device> getDevices(TargetType type, unsigned requiredNumIPUs, const OptionFlags &opts = {}) const;
  Device getDevice(unsigned deviceManagerId, const OptionFlags &opts = {}) const;
  std::vector<unsigned> getChildDeviceIds(unsigned parentId, unsigned numChildDeviceIpus = 1) const;
};

} // namespace poplar

#endif
