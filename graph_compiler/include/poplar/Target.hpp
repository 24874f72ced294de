// ipusim's Poplar SDK: poplar::Target, what the graph is compiled for: the IPUs, their tiles and
// the figures of ipu-facts (docs/poplar.md "Targets").
#ifndef IPUSIM_POPLAR_TARGET_HPP
#define IPUSIM_POPLAR_TARGET_HPP

#include <poplar/OptionFlags.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/TargetType.hpp>
#include <poplar/Type.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ipusim {
namespace gc {
struct TargetInfo;
}
} // namespace ipusim

namespace poplar {

class Target {
public:
  Target();
  ~Target();
  Target(const Target &);
  Target(Target &&);
  Target &operator=(const Target &);
  Target &operator=(Target &&);
  bool operator==(const Target &) const;
  bool operator!=(const Target &o) const { return !(*this == o); }

  TargetType getTargetType() const;
  std::string getTargetSystemString() const;
  StringRef getTargetArchString() const;
  unsigned getNumIPUs() const;
  unsigned getTilesPerIPU() const;
  unsigned getNumTiles() const;
  unsigned getNumWorkerContexts() const;
  unsigned getBytesPerTile() const;
  std::uint64_t getMemoryBytes() const;
  unsigned getExchangeBytesPerCycle() const;
  unsigned getMemcpyBytesPerCycle() const;
  unsigned getMinIPUSyncDelay() const;
  unsigned getMaxIPUSyncDelay() const;
  unsigned getGlobalSyncCycles() const;
  unsigned getInterleavedMemoryElementIndex() const;
  unsigned getNumStrideBits() const;
  unsigned getDataPathWidth() const;
  unsigned getRptCountMax() const;
  bool supportsExchangeBusSharing() const;
  unsigned getTilesPerSharedExchangeBus() const;
  unsigned getFloatVectorWidth() const;
  unsigned getHalfVectorWidth() const;
  unsigned getVectorWidth(const Type &type) const;
  std::size_t getTypeSize(const Type &type) const;
  std::size_t getAtomicStoreGranularity() const;
  double getTileClockFrequency() const;
  unsigned getWeightsPerConvUnit(bool floatActivations) const;
  unsigned getConvUnitInputLoadElemsPerCycle(bool floatActivations) const;
  unsigned getFp16InFp16OutConvUnitsPerTile() const;
  unsigned getFp16InFp32OutConvUnitsPerTile() const;
  unsigned getFp32InFp32OutConvUnitsPerTile() const;
  unsigned getConvUnitCoeffLoadBytesPerCycle() const;

  Target createVirtualTarget(unsigned numIPUs, unsigned tilesPerIPU) const;
  static Target createIPUTarget(StringRef systemType, const OptionFlags &opts = {});
  static Target createIPUTarget(unsigned numIPUs, StringRef systemType, const OptionFlags &opts = {});
  static Target createIPUTarget(unsigned numIPUs, unsigned tilesPerIPU, StringRef systemType,
                                const OptionFlags &opts = {});

  // ipusim (internal).
  explicit Target(std::shared_ptr<const ipusim::gc::TargetInfo> info);
  const ipusim::gc::TargetInfo &info() const { return *info_; }

private:
  std::shared_ptr<const ipusim::gc::TargetInfo> info_;
};

/// Host float/double <-> the device's IEEE half (two bytes an element, little-endian).
void copyDeviceHalfToFloat(const Target &target, const void *src, float *dst, std::size_t numElements);
void copyFloatToDeviceHalf(const Target &target, const float *src, void *dst, std::size_t numElements);
void copyDeviceHalfToDouble(const Target &target, const void *src, double *dst, std::size_t numElements);
void copyDoubleToDeviceHalf(const Target &target, const double *src, void *dst, std::size_t numElements);

} // namespace poplar

#endif
