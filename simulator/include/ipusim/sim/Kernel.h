// The process's one SystemC kernel (SystemC elaborates once per process). Poplar programs create
// engines and run them many times, so the kernel is elaborated on first use with one host
// module, and each run is a job that module's thread executes: the job advances SystemC time with
// waitCycles() as the IPU runs, and Kernel::run returns when it is done. Jobs run one at a time.
// The kernel also elaborates the host's link (sim/HostLink.h): a job connects its IPU to it and
// moves the host's data through it as TLM-2.0 transactions.
#pragma once

#include <cstdint>
#include <functional>

namespace ipusim::sim {

class HostLink;
class HostPort;

class KernelJob {
public:
  virtual ~KernelJob() = default;
  /// Advances SystemC time by `cycles` of a clock of `clockHz` (called from inside the job).
  virtual void waitCycles(uint64_t cycles, double clockHz) = 0;
  /// SystemC time now, in seconds.
  virtual double now() const = 0;
  /// The host's link and its port on it (bound together).
  virtual HostLink &hostLink() = 0;
  virtual HostPort &hostPort() = 0;
};

namespace Kernel {
/// Runs `job` in the SystemC kernel's host thread and returns when it returns. An exception the
/// job throws is rethrown here.
void run(const std::function<void(KernelJob &)> &job);
} // namespace Kernel

} // namespace ipusim::sim
