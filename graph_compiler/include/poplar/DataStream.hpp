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

/// A remote buffer: `getRepeats()` rows of `numElements()` elements in Streaming Memory (the
/// gateway's DRAM of an M2000), which programs copy rows of to and from tensors
/// (program::Copy) and the host reads and writes between runs (Engine::copyToRemoteBuffer).
class RemoteBuffer {
public:
  RemoteBuffer() : id_(~0u), elements_(0), repeats_(0), rearrangeOnHost_(false), optimisedForMemory_(false) {}
  std::string handle() const { return handle_; }
  std::size_t numElements() const { return elements_; }
  std::size_t getRepeats() const { return repeats_; }
  Type elementType() const { return elementType_; }
  bool isRearrangeOnHost() const { return rearrangeOnHost_; }
  bool isOptimisedForMemory() const { return optimisedForMemory_; }
  bool operator==(const RemoteBuffer &b) const { return id_ == b.id_ && handle_ == b.handle_; }
  bool operator!=(const RemoteBuffer &b) const { return !(*this == b); }

  // ipusim (internal).
  RemoteBuffer(unsigned id, std::string handle, Type t, std::size_t n, std::size_t repeats, bool rearrangeOnHost,
               bool optimisedForMemory)
      : id_(id), handle_(handle), elementType_(t), elements_(n), repeats_(repeats), rearrangeOnHost_(rearrangeOnHost),
        optimisedForMemory_(optimisedForMemory) {}
  unsigned id() const { return id_; }

private:
  unsigned id_;
  std::string handle_;
  Type elementType_;
  std::size_t elements_, repeats_;
  bool rearrangeOnHost_, optimisedForMemory_;
};

} // namespace poplar

#endif
