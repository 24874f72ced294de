// Machine configurations (arch/configs/*.toml): one GC200 description plus the systems built of it.
//
// Every value in the TOML files cites its source in docs/hardware.md or says it is a
// provisional parameter of ours. The loader validates each file against one schema: an unknown key,
// a wrong type or an out-of-range value is an error naming the file, line, column and key.
#pragma once

#include <cstdint>
#include <map>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace ipusim::arch {

/// A problem in a configuration file, already formatted as `file:line:col: error: ...`.
class ConfigError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct MemoryRegion {
  uint32_t base = 0;       ///< first byte address
  uint32_t end = 0;        ///< one past the last byte address
  unsigned interleave = 1; ///< element arrays that adjacent 64-bit words alternate between
  bool executable = false; ///< instructions may be fetched from it
};

/// The tile's timing parameters ([tile.timing] in the configs), in tile cycles unless named
/// otherwise. Each value's source is documented next to it in mk2.toml.
struct TileTiming {
  unsigned supervisorResultLatency = 0;  ///< supervisor: producer issue to dependent issue (no forwarding)
  unsigned supervisorTakenBranch = 0;    ///< supervisor: taken branch to next issue (pipeline refill)
  unsigned runallCycles = 0;             ///< supervisor: run/runall to next issue
  unsigned putCccsloadCycles = 0;        ///< supervisor: put $CCCSLOAD to next issue
  unsigned syncLocalCycles = 0;          ///< supervisor: last worker exit to the issue after sync LOCAL
  unsigned workerStartCycles = 0;        ///< run/runall to the new worker's first possible issue
  unsigned memoryConflictStallCycles = 0;///< extra cycles when one bundle's two accesses hit one element
  std::map<std::string, unsigned> fpWorkerCycles; ///< multi-cycle FP op -> worker cycles it occupies
};

struct TileConfig {
  unsigned workerContexts = 0;     ///< worker contexts per tile (the supervisor is extra)
  uint32_t memoryBase = 0;         ///< TMEM_REGION0_BASE_ADDR
  uint32_t memorySize = 0;         ///< bytes of SRAM
  uint32_t elementSize = 0;        ///< bytes per memory element
  unsigned addressBits = 0;        ///< width of a tile byte address
  unsigned repeatCountBits = 0;    ///< width of $REPEAT_COUNT
  unsigned maxRepeatBodyBundles = 0;
  unsigned mrfRegisters = 0, arfRegisters = 0; ///< general-purpose registers usable by code
  std::vector<MemoryRegion> regions;
  TileTiming timing;

  /// The region holding `addr`, or nullptr.
  const MemoryRegion *regionOf(uint32_t addr) const;
  uint32_t memoryEnd() const { return memoryBase + memorySize; }
};

struct IpuConfig {
  unsigned tiles = 0;
  unsigned columns = 0;           ///< exchange columns of the physical layout
  unsigned tilesPerSupertile = 0;
  double clockHz = 0;
};

struct ExchangeConfig {
  unsigned bytesPerCyclePerTile = 0;  ///< send/receive width of one tile
  unsigned tilesPerSharedBus = 0;     ///< tiles pairing for 64-bit exchange
  // The exchange's flight times (ExchangeLayout.h, [RE] S9 time_to_mux):
  unsigned columnPitchCycles = 0;     ///< per folded column of route displacement
  unsigned edgeCyclesPerColumn = 0;   ///< per folded column of the sender's and receiver's edge terms
  unsigned rowCycles = 0;             ///< per supertile row between sender and receiver
  unsigned muxLeadCycles = 0;         ///< the constant subtracted from the flight time to the mux
  unsigned writeDelayCycles = 0;      ///< mux select to the memory write of the word
  unsigned writeCyclesPerRow = 0;     ///< extra write delay per supertile row of the receiver
  unsigned maxSendWords = 0;          ///< words one `send` can carry
};

struct SyncConfig {
  unsigned internalLatencyCycles = 0; ///< `sync` INTERNAL: release after the last tile arrives
  unsigned externalLatencyCycles = 0; ///< `sync` EXTERNAL (GS1/GS2) across IPUs
  unsigned releaseSkewCycles = 0;     ///< extra release delay per supertile row from the controller
};

struct LinkConfig {
  unsigned linksPerIpu = 0;
  double bytesPerSecondPerDirection = 0; ///< one IPU-Link
  unsigned latencyCycles = 0;            ///< one hop (provisional)
  unsigned rungLinks = 0;                ///< IPU-Links between the two IPUs of a rung (Topology.h)
  unsigned railLinks = 0;                ///< IPU-Links from an IPU to its neighbour up the rail
  unsigned exchangeBlockCycles = 0;      ///< tile to the link interface, and link interface to tile
};

struct HostConfig {
  std::string kind;                  ///< "pcie" (a PCIe card) or "gateway" (M2000 / POD)
  double bytesPerSecondPerDirection = 0;
  unsigned latencyCycles = 0;        ///< provisional
  double streamingMemoryBytes = 0;   ///< remote buffers in the gateway's DRAM (0: none, a PCIe card)
};

struct SystemConfig {
  std::string name;
  std::string description;
  unsigned ipus = 0;
  unsigned ipusPerChassis = 0;       ///< IPUs per M2000 (1 for a bare IPU)
  std::string topology;              ///< "single", "m2000", "ladder", "2d-torus" (Topology.h)
  IpuConfig ipu;
  TileConfig tile;
  ExchangeConfig exchange;
  SyncConfig sync;
  LinkConfig links;
  HostConfig host;

  unsigned totalTiles() const { return ipus * ipu.tiles; }
};

/// Loads and validates one configuration file. A file may start with `inherits = "NAME"`, which
/// loads NAME.toml from the same folder first and then applies this file's keys over it.
SystemConfig loadConfig(const std::string &path);

/// Loads a configuration by name ("mk2", "m2000", "pod16", "pod64") from the installed configs.
SystemConfig loadNamedConfig(const std::string &name);

/// A tool's --config argument: a path (it holds a '/' or ends in .toml) or a shipped config's name.
SystemConfig loadConfigArgument(const std::string &nameOrPath);

/// The folder holding the shipped configs (next to the tools, or in the source tree).
std::string configDirectory();

/// The folder above the running tool's bin/ (build/ in the build tree), where share/ and lib/
/// hold the files the tools ship with; empty if it cannot be found.
std::filesystem::path toolPrefix();

} // namespace ipusim::arch
