// Running a compiled executable on the simulated IPU (what poplar::Engine does underneath): the
// tile images are loaded once, each run starts every tile's supervisor at the program's entry,
// and the run proceeds superstep by superstep in the process's SystemC kernel. At a host sync the
// host link (sim::HostLink: PCIe or the M2000's gateway, [host] in arch/configs) moves the stream
// and remote-buffer data as TLM-2.0 transactions while the tiles wait; their time delays the
// release. Every value is computed by the tile ISS and moved by the simulated exchange or host link.
#pragma once

#include "ipusim/arch/Config.h"
#include "ipusim/gc/Compiler.h"
#include "ipusim/sim/Ipu.h"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <vector>

namespace ipusim::sim {
class HostTargets;
class KernelJob;
class StreamingMemory;
} // namespace ipusim::sim

namespace ipusim::gc {

/// The engine's host side: the streams the program was connected to.
class HostSide {
public:
  virtual ~HostSide() = default;
  /// The next `bytes` of host-to-device stream `stream` into `dst`.
  virtual void toDevice(unsigned stream, uint8_t *dst, uint64_t bytes) = 0;
  /// `bytes` the device sent on stream `stream`.
  virtual void fromDevice(unsigned stream, const uint8_t *src, uint64_t bytes) = 0;
  /// A PrintTensor's data.
  virtual void print(unsigned index, const uint8_t *data) = 0;
};

struct StepStats {
  uint64_t executions = 0;
  uint64_t cycles = 0;     ///< the phases of the step (last tile's arrival at the sync ending it)
};

struct RunStats {
  uint64_t cycles = 0;        ///< the run, from its start to the last tile's return
  uint64_t computeCycles = 0, exchangeCycles = 0, hostCycles = 0, syncCycles = 0, controlCycles = 0;
  std::vector<StepStats> steps; ///< like Executable::steps
  sim::IpuStats ipu;
  double hostSeconds = 0;     ///< wall time of the simulation
};

class Runtime {
public:
  /// Loads every tile image onto an IPU of `config` (one IPU, ipu0; exe.tilesPerIpu tiles) and
  /// makes the executable's remote buffers in Streaming Memory (throws poplar::poplar_error when
  /// the config has none, or too little).
  Runtime(const Executable &exe, const arch::SystemConfig &config, unsigned threads);
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  /// Trace events (docs/trace-format.md) of every run go to `out` (nullptr: off).
  void setTrace(std::ostream *out, bool instructions = false);
  /// Runs program `program` (an engine program or a hidden host read/write one). Throws
  /// poplar::application_runtime_error for a simulated exception, a deadlock or an exchange
  /// error, naming the step, the tile and the code.
  RunStats run(unsigned program, HostSide &host);
  sim::Ipu &ipu() { return *ipu_; }
  /// Remote buffer `i`'s bytes in Streaming Memory (all its rows).
  std::vector<uint8_t> &remoteBuffer(unsigned i);
  uint64_t maxCycles = 1ull << 34;

private:
  const Executable &exe_;
  arch::SystemConfig config_;
  unsigned threads_;
  std::unique_ptr<sim::Ipu> ipu_;
  std::unique_ptr<sim::HostTargets> targets_;        ///< the IPU, as the host link sees it
  std::unique_ptr<sim::StreamingMemory> streaming_;  ///< the remote buffers
  std::ostream *trace_ = nullptr;
  bool traceHeader_ = false;
  uint64_t traceBase_ = 0; ///< trace cycles of the runs before this one
  std::string where(unsigned tile, uint32_t pc) const;
  /// Moves a host step's data over the kernel's host link from cycle `now`; returns the cycle
  /// the last transaction ends (docs/poplar.md "Host transfers").
  uint64_t hostStep(const HostStep &h, HostSide &host, sim::KernelJob &kernel, uint64_t now, const std::string &stepName);
};

} // namespace ipusim::gc
