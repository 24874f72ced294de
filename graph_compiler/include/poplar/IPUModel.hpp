// ipusim's Poplar SDK: poplar::IPUModel. Its devices are ipusim's cycle-level IPU (the same
// simulator as hardware devices), shaped by these fields (docs/poplar.md "Devices").
#ifndef IPUSIM_POPLAR_IPUMODEL_HPP
#define IPUSIM_POPLAR_IPUMODEL_HPP

#include <poplar/Device.hpp>
#include <poplar/OptionFlags.hpp>

#include <limits>
#include <string>

namespace poplar {

struct IPUModel {
  enum class RelativeSyncDelayType { AUTO, NO_DELAY };
  explicit IPUModel(const char *IPUVersion = "ipu2");
  bool operator==(const IPUModel &o) const;
  bool operator!=(const IPUModel &o) const { return !(*this == o); }
  Device createDevice(OptionFlags opts = {}, bool accurateHalf = false,
                      unsigned deviceManagerId = std::numeric_limits<unsigned>::max()) const;

  std::string IPUVersion;
  unsigned numIPUs;
  unsigned tilesPerSuperTile;
  unsigned tilesPerIPU;
  unsigned numWorkerContexts;
  unsigned memoryBytesPerTile;
  double tileClockFrequency;
  unsigned exchangeBytesPerCycle;
  unsigned memcpyBytesPerCycle;
  unsigned instructionBytes;
  bool supportsSuperTileSendReceive;
  unsigned interleavedMemoryElementIndex;
  unsigned minIPUSyncDelay;
  RelativeSyncDelayType relativeSyncDelay;
  unsigned globalSyncCycles;
  unsigned globalExchangePacketBytes;
  unsigned tileLocalSyncSyncDelay;
  unsigned tileLocalSyncExitDelay;
  unsigned numStrideBits;
  unsigned dataPathWidth;
  unsigned convUnitCoeffLoadBytesPerCycle;
  unsigned supervisorInstrFetchDelay;
  unsigned workerInstrFetchDelay;
  unsigned rptCountMax;
  unsigned atomicStoreGranularity;
  bool compileIPUCode;
};

} // namespace poplar

#endif
