// ipusim's Poplar SDK: poplar::Device, a simulated IPU system (docs/poplar.md "Devices").
#ifndef IPUSIM_POPLAR_DEVICE_HPP
#define IPUSIM_POPLAR_DEVICE_HPP

#include <poplar/OptionFlags.hpp>
#include <poplar/Target.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace poplar {

namespace core {
struct DeviceState;
}

class Device {
public:
  Device();
  Device(Device &&) noexcept;
  virtual ~Device();
  Device &operator=(Device &&) noexcept;
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  unsigned getId() const;
  const Target &getTarget() const;
  /// Locks the device for this process; false if another Device object holds it.
  bool attach() const;
  bool isAttached() const;
  void detach() const;
  void getDriverVersion(unsigned &major, unsigned &minor, unsigned &point) const;
  bool supportsRemoteBuffers() const;
  bool hasGateway() const;
  std::map<std::string, std::string> getAttributes() const;
  void reset() const;
  Device createVirtualDevice(unsigned tilesPerIPU);
  static Device createCPUDevice(unsigned numIPUs = 1);

  // ipusim (internal).
  explicit Device(std::shared_ptr<core::DeviceState> state);
  core::DeviceState &state() const { return *state_; }

private:
  std::shared_ptr<core::DeviceState> state_;
};

} // namespace poplar

#endif
