#include "ipusim/sim/Kernel.h"

#include "ipusim/sim/HostLink.h"

#include <systemc>

#include <cstdlib>
#include <exception>
#include <mutex>

namespace ipusim::sim {

namespace {

class HostModule : public sc_core::sc_module, public KernelJob {
public:
  SC_HAS_PROCESS(HostModule);
  explicit HostModule(sc_core::sc_module_name name) : sc_core::sc_module(name), link_("link"), port_("port") {
    port_.socket.bind(link_.socket);
    SC_THREAD(main);
    // Jobs run the whole engine, and the host callbacks of user programs, on this thread's stack.
    set_stack_size(64u << 20);
  }

  sc_core::sc_event go;
  const std::function<void(KernelJob &)> *job = nullptr;
  std::exception_ptr error;
  bool done = false;

  void waitCycles(uint64_t cycles, double clockHz) override {
    if (cycles) wait(sc_core::sc_time(double(cycles) / clockHz, sc_core::SC_SEC));
  }
  double now() const override { return sc_core::sc_time_stamp().to_seconds(); }
  HostLink &hostLink() override { return link_; }
  HostPort &hostPort() override { return port_; }

private:
  HostLink link_;
  HostPort port_;

  void main() {
    for (;;) {
      wait(go);
      try {
        (*job)(*this);
      } catch (...) {
        error = std::current_exception();
      }
      done = true;
    }
  }
};

std::mutex kernelMutex;
HostModule *host = nullptr;

} // namespace

void Kernel::run(const std::function<void(KernelJob &)> &job) {
  std::lock_guard<std::mutex> lock(kernelMutex);
  if (!host) {
    // A library must not print SystemC's banner into its users' output.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    host = new HostModule("ipusim_host"); // lives as long as the process, as SystemC's modules do
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  host->job = &job;
  host->error = nullptr;
  host->done = false;
  host->go.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start(); // until the job is done and the module waits again
  host->job = nullptr;
  if (!host->done) throw std::logic_error("SystemC kernel: the job did not finish");
  if (host->error) std::rethrow_exception(host->error);
}

} // namespace ipusim::sim

// libsystemc's own main calls sc_main, so linking it needs one. Programs that use the kernel
// through this file (Poplar programs, which have their own main) never call it; a program that
// defines its own sc_main overrides this one.
extern "C" __attribute__((weak)) int sc_main(int, char *[]) { return 0; }
