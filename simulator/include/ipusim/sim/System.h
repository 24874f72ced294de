// A system of IPUs (an M2000, a POD16, a POD64: arch/configs) joined by IPU-Links (arch::Topology).
// Each IPU runs its supersteps on its own, its INTERNAL syncs included, until it waits in an
// EXTERNAL sync (GS1, GS2, with or without the host: ipu-facts §4.5); when every IPU of the program
// waits in the same external zone, the sync completes for all of them together, after the words
// sent to other IPUs in the phase that ended have crossed the links (docs/systems.md). Results
// are identical for any number of host threads.
#pragma once

#include "ipusim/arch/Topology.h"
#include "ipusim/sim/Ipu.h"
#include "ipusim/sim/Links.h"
#include "ipusim/sim/Partition.h"

#include <exception>
#include <string>

#include <memory>
#include <vector>

namespace ipusim::sim {

/// The EXTERNAL zones the host takes part in: GS1 and GS2 with the host, slave and master
/// ([RE] S8 zones 5, 7, 13, 15; ipu-facts §4.5).
inline bool isHostSyncZone(unsigned zone) { return zone == 5 || zone == 7 || zone == 13 || zone == 15; }

struct SystemStats {
  uint64_t cycles = 0;         ///< when the last tile of any IPU returned
  uint64_t externalSyncs = 0;  ///< external syncs completed (each counts once, not once per IPU)
  LinkStats links;             ///< traffic over the IPU-Links
  std::vector<IpuStats> ipus;  ///< per IPU (an IPU that ran nothing is zero)
};

class System {
public:
  /// The IPUs of `config` (config.ipus of them, `tilesPerIpu` tiles each) and its topology.
  System(const arch::SystemConfig &config, unsigned tilesPerIpu);

  unsigned ipuCount() const { return unsigned(ipus_.size()); }
  Ipu &ipu(unsigned i) { return *ipus_.at(i); }
  const arch::Topology &topology() const { return topology_; }
  const arch::SystemConfig &config() const { return config_; }
  void setTracing(bool events, bool instructions);
  /// Splits the IPUs over the ranks of `partition` (docs/systems.md "Several processes"): this
  /// process runs only the IPUs it owns (load and start only those); compute(), stats() and
  /// takeTraceLines() then meet the other ranks, and every rank sees the same steps, errors and
  /// statistics. nullptr: this process runs every IPU.
  void setPartition(Partition *partition) { partition_ = partition; }
  /// True when this process runs IPU `ipu`.
  bool owns(unsigned ipu) const { return !partition_ || partition_->owner(ipu, ipuCount()) == partition_->rank(); }
  /// Forgets the last run's statistics on every IPU (memory stays).
  void newRun();

  /// The end of one system step: every IPU waits in one external sync, or every IPU finished.
  struct Step {
    bool finished = false;
    unsigned zone = 0;
    uint64_t lastArrival = 0; ///< the last tile of any IPU to enter the sync
    uint64_t release = 0;     ///< when the sync lets the tiles go (its latency and the links' delivery)
  };
  /// Runs every IPU (and its INTERNAL syncs) until all wait in one external sync or return, and
  /// delivers the phase's inter-IPU words over the links. Throws SimException, DeadlockError
  /// (naming the IPUs and tiles that wait and those they wait for) or ExchangeError.
  Step compute(unsigned threads, uint64_t maxCycles = 1ull << 34);
  /// Releases every IPU from the external sync compute() stopped at, at `release` (at least the
  /// step's release).
  void release(uint64_t release);

  /// Runs to the end.
  SystemStats run(unsigned threads, uint64_t maxCycles = 1ull << 34);
  SystemStats stats() const;

  /// Every IPU's trace events since the last call, merged in the canonical order: by cycle, then
  /// by IPU (docs/trace-format.md). This process's IPUs only, when partitioned.
  std::vector<TraceEvent> takeTrace();
  /// The same as formatted lines; when partitioned, rank 0 gets every rank's, merged in the same
  /// order, and the other ranks none.
  std::vector<std::string> takeTraceLines();
  /// Adds an event of the system's own (the host's transfers ...) to the trace (rank 0 only).
  void traceEvent(TraceEvent &&event) {
    if (tracing_ && (!partition_ || partition_->rank() == 0)) systemEvents_.push_back(std::move(event));
  }

private:
  /// IPU i's external words since the last external sync, parsed into its packets (or its error).
  void parseOutbox(unsigned i);
  /// Every IPU's packets of the phase, in IPU order (throws the first IPU's bad packet), taken.
  std::vector<Packet> packets();
  /// Runs IPU i to its next external sync or its end.
  void runIpu(unsigned i, unsigned threads, uint64_t maxCycles);
  /// Partitioned: tells every rank what this rank's IPUs did (state, sync, packets, error) and
  /// learns theirs; then throws the lowest IPU's error, if any, on every rank.
  void share(std::vector<std::exception_ptr> &errors);
  /// Partitioned: every rank learns the other ranks' errors of delivering packets to their IPUs
  /// (`at`: the delivery's place in landing order) and all throw the earliest, as one process would.
  void agreeOnError(uint64_t at, std::exception_ptr error);

  enum class State { Running, Waiting, Finished, Idle }; ///< Idle: no tile started
  arch::SystemConfig config_;
  arch::Topology topology_;
  std::vector<std::unique_ptr<Ipu>> ipus_;
  Links links_;
  std::vector<Ipu::Superstep> waiting_; ///< each IPU's pending external sync
  std::vector<State> state_;
  std::vector<std::string> waitingTiles_; ///< per IPU in an external sync, its waiting tiles
  Partition *partition_ = nullptr;
  std::vector<std::vector<Ipu::ExternalWord>> outbox_; ///< per IPU, words not yet parsed
  struct Outgoing {
    std::vector<Packet> packets;
    std::exception_ptr error; ///< the first bad packet
    bool any = false;         ///< a word was sent since the last external sync
    unsigned firstTile = 0;   ///< who sent the first, and when
    uint64_t firstCycle = 0;
  };
  std::vector<Outgoing> outgoing_; ///< per IPU, since the last external sync
  Step pending_;
  uint64_t externalSyncs_ = 0;
  std::vector<TraceEvent> systemEvents_;
  bool tracing_ = false;
};

} // namespace ipusim::sim
