#include "ipusim/gc/Runtime.h"

#include "ipusim/sim/HostLink.h"
#include "ipusim/sim/Image.h"
#include "ipusim/sim/Kernel.h"
#include "ipusim/sim/SimException.h"
#include "ipusim/sim/Trace.h"

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace ipusim::gc {

namespace {
/// The engine's one IPU (ipu0) as the host link reaches it.
class EngineIpu : public sim::HostTargets {
public:
  EngineIpu(const arch::SystemConfig &config, sim::Ipu &ipu) : config_(config), ipu_(ipu) {}
  const arch::SystemConfig &config() const override { return config_; }
  sim::Ipu *ipuAt(unsigned ipu) override { return ipu == 0 ? &ipu_ : nullptr; }

private:
  const arch::SystemConfig &config_;
  sim::Ipu &ipu_;
};
} // namespace

Runtime::Runtime(const Executable &exe, const arch::SystemConfig &config, unsigned threads)
    : exe_(exe), config_(config), threads_(std::max(1u, threads)) {
  ipu_ = std::make_unique<sim::Ipu>(config_, exe.tilesPerIpu, 0);
  targets_ = std::make_unique<EngineIpu>(config_, *ipu_);
  streaming_ = std::make_unique<sim::StreamingMemory>(config_);
  for (const RemoteBufferInfo &r : exe_.remoteBuffers) try {
      streaming_->add(r.handle, r.rowBytes() * r.repeats);
    } catch (const std::runtime_error &e) {
      throw poplar::poplar_error(std::string("Engine::load: ") + e.what());
    }
  // Tiles loaded with the same image could share decoded code; each tile's supervisor program
  // differs, so each decodes its own.
  for (const TileProgram &tp : exe_.tiles)
    sim::loadImage(ipu_->tile(tp.tile), tp.image, "tile " + std::to_string(tp.tile));
}

Runtime::~Runtime() = default;

std::vector<uint8_t> &Runtime::remoteBuffer(unsigned i) { return streaming_->bytes(i); }

void Runtime::setTrace(std::ostream *out, bool instructions) {
  trace_ = out;
  ipu_->setTracing(out != nullptr, instructions && out);
  if (out) ipu_->spillTrace(); // an instruction trace of a long run stays out of memory
}

std::string Runtime::where(unsigned tile, uint32_t pc) const {
  // The function symbol whose code holds pc.
  for (const TileProgram &tp : exe_.tiles) {
    if (tp.tile != tile) continue;
    const cc::Symbol *best = nullptr;
    for (const cc::Symbol &s : tp.image.symbols)
      if (s.section >= 0 && s.type == cc::SymbolType::Func && s.value <= pc && (!best || s.value > best->value)) best = &s;
    if (best) return best->name;
  }
  return "";
}

uint64_t Runtime::hostStep(const HostStep &h, HostSide &host, sim::KernelJob &kernel, uint64_t now, const std::string &stepName) {
  // Each piece of the tensor is one transaction between the host (or, for a remote buffer, the
  // gateway) and its tile: sim::HostLink times it on the link and the tile's exchange port.
  sim::HostPort &port = kernel.hostPort();
  sim::HostLink &link = kernel.hostLink();
  const double clock = config_.ipu.clockHz;
  auto endCycle = [&](sc_core::sc_time took) { return now + uint64_t(std::llround(took.to_seconds() * clock)); };
  uint64_t done = now;
  auto fail = [&](const std::string &why) { throw poplar::application_runtime_error("in " + stepName + ": " + why); };
  auto transfer = [&](bool write, uint64_t address, uint8_t *data, uint64_t bytes, sc_core::sc_time after) {
    try {
      return port.transfer(write, address, data, unsigned(bytes), link, after);
    } catch (const std::runtime_error &e) {
      fail(std::string("host link: ") + e.what());
    }
    return sc_core::SC_ZERO_TIME;
  };
  std::vector<uint8_t> buffer(h.bytes);
  // A remote copy's rows: read first from the tiles holding the offsets (a transaction each), and
  // the data moves after them.
  std::vector<uint64_t> rows{0};
  sc_core::sc_time after = sc_core::SC_ZERO_TIME;
  const RemoteBufferInfo *remote = h.isRemote() ? &exe_.remoteBuffers.at(h.stream) : nullptr;
  if (remote && !h.offsets.empty()) {
    std::vector<uint8_t> raw(h.bytes / remote->rowBytes() * 4);
    for (const HostTransfer &p : h.offsets)
      after = std::max(after, transfer(false, sim::HostAddress::tile(0, p.tile, p.addr), raw.data() + p.offset, p.bytes, {}));
    rows.assign(raw.size() / 4, 0);
    for (size_t i = 0; i < rows.size(); ++i) {
      uint32_t v;
      std::memcpy(&v, raw.data() + 4 * i, 4);
      const int64_t row = h.signedOffsets ? int64_t(int32_t(v)) : int64_t(v);
      if (row < 0 || uint64_t(row) >= remote->repeats)
        fail("remote buffer '" + remote->handle + "': offset[" + std::to_string(i) + "] is row " + std::to_string(row) +
             ", outside its " + std::to_string(remote->repeats) + " rows");
      rows[i] = uint64_t(row);
    }
  }
  // The remote buffer's side of a copy: row i of the transfer is row rows[i] of the buffer.
  auto remoteSide = [&](bool write) {
    const uint64_t rowBytes = remote->rowBytes();
    for (size_t i = 0; i < rows.size(); ++i)
      transfer(write, sim::HostAddress::remote(h.stream, rows[i] * rowBytes), buffer.data() + i * rowBytes, rowBytes, {});
  };
  const bool in = h.toDevice();
  if (h.kind == HostStep::StreamIn) host.toDevice(h.stream, buffer.data(), h.bytes);
  if (h.kind == HostStep::RemoteIn) remoteSide(false);
  for (const HostTransfer &p : h.pieces)
    done = std::max(done, endCycle(transfer(in, sim::HostAddress::tile(0, p.tile, p.addr), buffer.data() + p.offset, p.bytes, after)));
  if (h.kind == HostStep::StreamOut) host.fromDevice(h.stream, buffer.data(), h.bytes);
  if (h.kind == HostStep::Print) host.print(h.stream, buffer.data());
  if (h.kind == HostStep::RemoteOut) remoteSide(true);
  done = std::max(done, endCycle(after));
  if (trace_) {
    static const char *const kinds[] = {"stream_in", "stream_out", "print", "remote_in", "remote_out"};
    sim::TraceEvent e;
    e.cycle = traceBase_ + now;
    e.event = "host.transfer";
    e.where = "system.host";
    e.add("kind", kinds[h.kind]).add("step", stepName).add("bytes", h.bytes).add("end_cycle", traceBase_ + done);
    *trace_ << sim::formatTraceEvent(e) << '\n';
  }
  return done;
}

RunStats Runtime::run(unsigned program, HostSide &host) {
  RunStats stats;
  stats.steps.resize(exe_.steps.size());
  const auto wallStart = std::chrono::steady_clock::now();
  const TileProgram &control = exe_.tiles.front();
  int current = -1; // the step whose phase is running (-1: control code between steps)

  auto job = [&](sim::KernelJob &kernel) {
    sim::Ipu &ipu = *ipu_;
    kernel.hostLink().connect(*targets_, streaming_.get());
    ipu.newRun();
    for (const TileProgram &tp : exe_.tiles) ipu.start(tp.tile, tp.entries.at(program), 0);
    uint64_t phaseStart = 0, simulated = 0;
    auto stepName = [&](int s) {
      return s < 0 ? std::string("control code") : "step '" + exe_.steps[size_t(s)].type + " " + exe_.steps[size_t(s)].name + "'";
    };
    auto flushTrace = [&] {
      if (!trace_) return;
      if (!traceHeader_) {
        sim::TraceHeader h;
        h.config = config_.name;
        h.clockHz = config_.ipu.clockHz;
        h.ipus = 1;
        h.tiles = exe_.tilesPerIpu;
        *trace_ << sim::formatTraceHeader(h);
        traceHeader_ = true;
      }
      // One timeline for all the engine's runs: each run's cycles count from the end of the last.
      ipu.drainTrace([&](sim::TraceEvent &&e) {
        e.cycle += traceBase_;
        for (auto &[key, value] : e.fields)
          if (key.size() > 6 && key.compare(key.size() - 6, 6, "_cycle") == 0)
            value = std::to_string(std::stoull(value) + traceBase_);
        *trace_ << sim::formatTraceEvent(e) << '\n';
      });
    };
    if (trace_) {
      flushTrace();
      sim::TraceEvent e;
      e.cycle = traceBase_;
      e.event = "engine.run";
      e.where = "ipu0";
      e.add("program", program);
      *trace_ << sim::formatTraceEvent(e) << '\n';
    }
    for (;;) {
      sim::Ipu::Superstep s;
      try {
        s = ipu.compute(threads_, maxCycles);
      } catch (const sim::SimException &e) {
        std::string fn = where(e.tile, e.pc);
        throw poplar::application_runtime_error("simulated exception in " + stepName(current) + ": " + e.what() +
                                                (fn.empty() ? "" : " (in " + fn + ")"));
      } catch (const sim::DeadlockError &e) {
        throw poplar::application_runtime_error(std::string("in ") + stepName(current) + ": " + e.what());
      } catch (const sim::ExchangeError &e) {
        throw poplar::application_runtime_error(std::string("in ") + stepName(current) + ": " + e.what());
      }
      const uint64_t end = s.finished ? ipu.stats().cycles : s.lastArrival;
      if (current >= 0) {
        stats.steps[size_t(current)].cycles += end - phaseStart;
        ++stats.steps[size_t(current)].executions;
        const Executable &x = exe_;
        const std::string &type = x.steps[size_t(current)].type;
        (type == "DoExchange" ? stats.exchangeCycles : type == "StreamCopy" ? stats.hostCycles : stats.computeCycles) +=
            end - phaseStart;
      } else {
        stats.controlCycles += end - phaseStart;
      }
      kernel.waitCycles(end - simulated, config_.ipu.clockHz);
      simulated = end;
      flushTrace();
      if (s.finished) break;
      // Which sync the tiles wait in: the control tile's supervisor is just past it.
      const uint32_t pc = ipu.tile(control.tile).context(0).pc;
      const auto st = control.syncSteps.find(pc);
      const int next = st == control.syncSteps.end() ? -1 : st->second; // the step the sync begins
      uint64_t extra = 0;
      if (auto h = control.hostSyncs.find(pc); h != control.hostSyncs.end()) {
        extra = hostStep(exe_.hostSteps[h->second], host, kernel, s.lastArrival, stepName(next)) - s.lastArrival;
        stats.hostCycles += extra;
        // The transfer is the host step's time (its phase after the sync is empty).
        if (next >= 0) stats.steps[size_t(next)].cycles += extra;
      }
      const uint64_t latency = ipu.syncLatency(s.zone);
      stats.syncCycles += latency;
      // A sync takes at least a cycle (sim::Ipu::release).
      const uint64_t release = std::max(s.lastArrival + 1, s.lastArrival + latency + extra);
      ipu.release(release);
      kernel.waitCycles(release - simulated, config_.ipu.clockHz);
      simulated = release;
      phaseStart = release;
      current = next;
    }
    flushTrace();
    stats.ipu = ipu.stats();
    stats.cycles = stats.ipu.cycles;
    traceBase_ += stats.cycles;
  };
  sim::Kernel::run(job);
  stats.hostSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
  return stats;
}

} // namespace ipusim::gc
