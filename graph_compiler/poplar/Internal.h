// Shared internals of libpoplar (graph_compiler/poplar): device state, host value conversion.
#pragma once

#include "ipusim/gc/Compiler.h"
#include "ipusim/gc/Graph.h"

#include <poplar/Device.hpp>
#include <poplar/Target.hpp>
#include <poplar/Type.hpp>

#include <memory>
#include <string>
#include <vector>

namespace poplar::core {

struct DeviceState {
  std::shared_ptr<const ipusim::gc::TargetInfo> target;
  Target publicTarget;
  unsigned id = 0;
  std::vector<unsigned> ipus;   ///< the system's IPUs this device is made of
  bool model = false;           ///< an IPUModel device (needs no attach)
  mutable bool attached = false;
};

/// The graph compiler's type of a poplar::Type.
ipusim::gc::TypeId typeId(const Type &t);
Type typeOf(ipusim::gc::TypeId t);

/// Host values (of `traits`) to the device bytes of `type`: numbers convert as C++ converts them,
/// half rounds to nearest even.
std::vector<uint8_t> toDevice(ipusim::gc::TypeId type, const void *data, const TypeTraits &traits, size_t n);

/// A target of `numIpus` IPUs of `tilesPerIpu` tiles from the named machine config.
std::shared_ptr<const ipusim::gc::TargetInfo> makeTarget(const std::string &arch, unsigned numIpus, unsigned tilesPerIpu);

} // namespace poplar::core
