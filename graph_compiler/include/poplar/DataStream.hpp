// ipusim's Poplar SDK: data streams between the host and the device.
#ifndef IPUSIM_POPLAR_DATASTREAM_HPP
#define IPUSIM_POPLAR_DATASTREAM_HPP

#include <poplar/Type.hpp>

#include <cstddef>
#include <string>

namespace poplar {

enum class ReplicatedStreamMode { REPLICATE, BROADCAST };
enum class DataStreamType { HostToDeviceFIFO, DeviceToHostFIFO, HostToDeviceBuffer, DeviceToHostBuffer };
inline bool isDeviceToHost(DataStreamType t) { return t == DataStreamType::DeviceToHostFIFO || t == DataStreamType::DeviceToHostBuffer; }
inline bool isHostToDevice(DataStreamType t) { return !isDeviceToHost(t); }

class DataStream {
public:
  DataStream() : id_(~0u), elements_(0), type_(DataStreamType::HostToDeviceFIFO), mode_(ReplicatedStreamMode::REPLICATE) {}
  std::string handle() const { return handle_; }
  std::size_t numElements() const { return elements_; }
  unsigned replicationFactor() const { return 1; }
  ReplicatedStreamMode replicatedMode() const { return mode_; }
  DataStreamType type() const { return type_; }
  Type elementType() const { return elementType_; }

  // ipusim (internal).
  DataStream(unsigned id, std::string handle, Type t, std::size_t n, DataStreamType type)
      : id_(id), handle_(handle), elementType_(t), elements_(n), type_(type), mode_(ReplicatedStreamMode::REPLICATE) {}
  unsigned id() const { return id_; }

private:
  unsigned id_;
  std::string handle_;
  Type elementType_;
  std::size_t elements_;
  DataStreamType type_;
  ReplicatedStreamMode mode_;
};

} // namespace poplar

#endif
