#include "ipusim/gc/Runtime.h"

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

Runtime::Runtime(const Executable &exe, const arch::SystemConfig &config, unsigned threads)
    : exe_(exe), config_(config), threads_(std::max(1u, threads)) {
  ipu_ = std::make_unique<sim::Ipu>(config_, exe.tilesPerIpu, 0);
  // Tiles loaded with the same image could share decoded code; each tile's supervisor program
  // differs, so each decodes its own.
  for (const TileProgram &tp : exe_.tiles)
    sim::loadImage(ipu_->tile(tp.tile), tp.image, "tile " + std::to_string(tp.tile));
}

Runtime::~Runtime() = default;

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

uint64_t Runtime::hostCycles(const HostStep &h) const {
  // The host link ([host] in arch/configs: PCIe Gen4 x16, [D] ipu-facts §1) carries the bytes at
  // its per-direction rate, and each tile takes its share through its exchange port at
  // exchange.bytes_per_cycle_per_tile ([D] S11): the slower of the two, after the link latency.
  std::map<unsigned, uint64_t> perTile;
  uint64_t total = 0;
  for (const HostTransfer &p : h.pieces) {
    perTile[p.tile] += p.bytes;
    total += p.bytes;
  }
  const double linkBytesPerCycle = config_.host.bytesPerSecondPerDirection / config_.ipu.clockHz;
  uint64_t cycles = uint64_t(std::ceil(double(total) / linkBytesPerCycle));
  for (auto &[t, n] : perTile)
    cycles = std::max<uint64_t>(cycles, (n + config_.exchange.bytesPerCyclePerTile - 1) / config_.exchange.bytesPerCyclePerTile);
  return config_.host.latencyCycles + cycles;
}

RunStats Runtime::run(unsigned program, HostSide &host) {
  RunStats stats;
  stats.steps.resize(exe_.steps.size());
  const auto wallStart = std::chrono::steady_clock::now();
  const TileProgram &control = exe_.tiles.front();
  int current = -1; // the step whose phase is running (-1: control code between steps)

  auto job = [&](sim::KernelJob &kernel) {
    sim::Ipu &ipu = *ipu_;
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
      uint64_t extra = 0;
      if (auto h = control.hostSyncs.find(pc); h != control.hostSyncs.end()) {
        const HostStep &hs = exe_.hostSteps[h->second];
        std::vector<uint8_t> buffer(hs.bytes);
        if (hs.kind == HostStep::StreamIn) {
          host.toDevice(hs.stream, buffer.data(), hs.bytes);
          for (const HostTransfer &p : hs.pieces)
            std::copy(buffer.begin() + long(p.offset), buffer.begin() + long(p.offset + p.bytes), ipu.tile(p.tile).memory().at(p.addr));
        } else {
          for (const HostTransfer &p : hs.pieces) {
            const uint8_t *src = ipu.tile(p.tile).memory().at(p.addr);
            std::copy(src, src + p.bytes, buffer.begin() + long(p.offset));
          }
          if (hs.kind == HostStep::StreamOut) host.fromDevice(hs.stream, buffer.data(), hs.bytes);
          else host.print(hs.stream, buffer.data());
        }
        extra = hostCycles(hs);
        stats.hostCycles += extra;
        // The transfer is the host step's time (its phase after the sync is empty).
        if (auto st = control.syncSteps.find(pc); st != control.syncSteps.end() && st->second >= 0)
          stats.steps[size_t(st->second)].cycles += extra;
      }
      const uint64_t latency = ipu.syncLatency(s.zone);
      stats.syncCycles += latency;
      // A sync takes at least a cycle (sim::Ipu::release).
      const uint64_t release = std::max(s.lastArrival + 1, s.lastArrival + latency + extra);
      ipu.release(release);
      kernel.waitCycles(release - simulated, config_.ipu.clockHz);
      simulated = release;
      phaseStart = release;
      auto st = control.syncSteps.find(pc);
      current = st == control.syncSteps.end() ? -1 : st->second;
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
