// An IPU of tiles, its sync controller and its exchange fabric. Between syncs each tile runs free
// in its ISS (DESIGN decision 2), on a host thread pool; at each sync the fabric delivers the words
// sent in the phase that ended (DESIGN decision 3). Results are identical for any number of threads.
#pragma once

#include "ipusim/arch/Config.h"
#include "ipusim/arch/ExchangeLayout.h"
#include "ipusim/sim/Tile.h"
#include "ipusim/sim/Trace.h"
#include "ipusim/sim/TraceSpool.h"

#include <functional>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ipusim::sim {

/// A run that cannot finish: tiles wait in a sync that others never reach, or in different zones.
struct DeadlockError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An exchange the fabric cannot carry out as scheduled: a word no tile selects, two words
/// arriving at one tile in one cycle, or a word arriving after its receiver left the phase. The
/// message names the sender, the receiver (where there is one) and the cycle.
struct ExchangeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The name of a sync zone of ipu-facts §4.5 ("INTERNAL", "EXTERNAL GS1" ...).
std::string syncZoneName(unsigned zone);
/// True for the zones other tiles take part in: INTERNAL (3) and the EXTERNAL ones (4-7, 12-15).
bool isIpuSyncZone(unsigned zone);

struct IpuStats {
  uint64_t cycles = 0;  ///< when the last tile returned
  uint64_t syncs = 0;   ///< syncs completed (INTERNAL and EXTERNAL)
  // The run as supersteps: a phase runs from one sync's release to the next sync's last arrival
  // (or the last tile's return), and is an exchange phase if any tile sent a word in it; the sync
  // itself runs from the last arrival to the release.
  uint64_t computePhases = 0, exchangePhases = 0;
  uint64_t computeCycles = 0, exchangeCycles = 0, syncCycles = 0;
  uint64_t wordsSent = 0, wordsReceived = 0; ///< exchange words (a multicast word is sent once)
  std::vector<TileStats> tiles;              ///< per tile; tiles that did not run are zero
};

class Ipu {
public:
  /// `tiles` of the IPU described by `config` (at most config.ipu.tiles); `id` names it (ipu0 ...).
  Ipu(const arch::SystemConfig &config, unsigned tiles, unsigned id = 0);

  unsigned id() const { return id_; }
  unsigned tileCount() const { return unsigned(tiles_.size()); }
  Tile &tile(unsigned i) { return *tiles_.at(i); }
  /// The tiles waiting in the pending sync, as a readable list ("0, 1, 2 ... (900 tiles)").
  std::string waitingTileList() const { return tileList(waiting_); }
  /// Tiles not started take no part.
  void start(unsigned tile, uint32_t pc, uint32_t m0);
  /// True when some tile was started in this run.
  bool takesPart() const;
  /// Forgets the last run (its statistics, which tiles took part) but keeps every tile's memory,
  /// so the next start()s begin another run from cycle 0 (a Poplar engine running its programs).
  void newRun();
  /// Trace events (docs/trace-format.md) of every tile and of the IPU; see Tile::setTracing.
  void setTracing(bool events, bool instructions);

  /// The end of one superstep.
  struct Superstep {
    bool finished = false;    ///< every started tile returned (no sync is pending)
    unsigned zone = 0;        ///< the zone the tiles wait in
    uint64_t lastArrival = 0; ///< the cycle the last tile issued its sync
  };
  /// Runs every active tile to its next sync or its return, then delivers the phase's exchange.
  /// Throws SimException (the lowest-numbered tile's, whatever the thread count), DeadlockError or
  /// ExchangeError.
  Superstep compute(unsigned threads, uint64_t maxCycles = 1ull << 34);
  /// The sync controller lets the waiting tiles go: tile t issues again from `release` plus
  /// sync.release_skew_cycles per supertile row between it and the controller (physical row 0).
  /// A release earlier than the cycle after the last arrival is taken as that cycle.
  void release(uint64_t release);
  /// Cycles from the last arrival to the release: sync.internal_latency_cycles for INTERNAL,
  /// sync.external_latency_cycles for the EXTERNAL zones.
  uint64_t syncLatency(unsigned zone) const;

  /// Runs every started tile to its return, completing each sync after its latency (an EXTERNAL
  /// sync of this IPU alone: the system of one IPU).
  IpuStats run(unsigned threads, uint64_t maxCycles = 1ull << 34);
  IpuStats stats() const;

  /// The trace events since the last call, in the canonical order (docs/trace-format.md).
  std::vector<TraceEvent> takeTrace();
  /// The same, one event at a time to `sink`: with spillTrace, without holding them all.
  void drainTrace(const std::function<void(TraceEvent &&)> &sink);
  /// Long traces go to a temporary file as they are made, keeping about `events` in memory
  /// across the tiles (TraceSpool.h); drainTrace merges them back in order.
  void spillTrace(size_t events = size_t(1) << 17);

  /// A word (or 64-bit item) a tile sent to the external exchange: a `send` whose sctl names
  /// neither direction ([I] docs/systems.md "External exchange").
  struct ExternalWord {
    unsigned tile;
    uint64_t cycle; ///< when it left the tile
    uint32_t lo, hi;
    bool wide;
  };
  /// Marks the IPU as part of a System, which takes its external words; an IPU on its own
  /// reports them as an ExchangeError.
  void setInSystem(bool inSystem) { inSystem_ = inSystem; }
  /// The external words sent since the last call, by tile, each tile's in the order sent.
  std::vector<ExternalWord> takeExternal();
  /// Writes an inter-IPU packet's payload into `tile` from address `addr`, a word a cycle from
  /// `firstWrite` (System's delivery). Throws ExchangeError for a tile that takes no part in the run
  /// or an address outside its memory; `what` names the packet.
  void receiveExternal(unsigned tile, uint32_t addr, const std::vector<uint32_t> &words, uint64_t firstWrite,
                       const std::string &what);

  /// Cycles from a word leaving tile `src` to its write into tile `dst`'s memory
  /// (arch::ExchangeLayout, the [exchange] parameters of arch/configs).
  uint64_t latency(unsigned src, unsigned dst) const;
  const arch::ExchangeLayout &layout() const { return layout_; }

private:
  /// Delivers the words sent in the phase that ended (DESIGN decision 3); `phaseEnd[t]` is the
  /// cycle tile t entered the sync (or returned).
  void resolveExchange(const std::vector<unsigned> &tiles, const std::vector<uint64_t> &phaseEnd, unsigned threads);
  std::string tileList(const std::vector<unsigned> &tiles) const;
  /// "ipuN: " in a system of IPUs (where errors must say which IPU), else nothing.
  std::string where() const { return inSystem_ ? "ipu" + std::to_string(id_) + ": " : ""; }
  /// Tile t's $INCOMING_MUX settings in the phase, its partner's MUXPAIR writes included.
  std::vector<ExchangeLog::Setting> muxSettings(unsigned t) const;
  /// Throws if tile src's 64-bit sends meet sends of its pair partner.
  void checkPairLane(unsigned src) const;
  /// [RE] S8 TEXCH_MUXPAIRWRITEDLY: a MUXPAIR write reaches the partner's mux a cycle later.
  static constexpr uint64_t kMuxPairDelay = 1;

  // resolveExchange's working lists (src/Ipu.cpp), kept from phase to phase so that their
  // memory is not allocated again: a training step has hundreds of phases.
  /// Where a receiver's mux selects a source: cycles [from, to) of one $INCOMING_MUX value.
  struct Window {
    unsigned dst;
    int64_t from, to;
  };
  /// Words of one send instruction that reach a receiver in consecutive cycles.
  struct Run {
    int64_t write; ///< the first word's (item's) write into the receiver's memory
    unsigned src;
    uint32_t first, count; ///< the sender's sends [first, first + count)
    uint32_t instruction;  ///< the send instruction they are words of
  };
  struct Delivery {
    unsigned dst;
    Run run;
  };
  std::vector<std::vector<Window>> bySource_;  ///< windows by the source they select
  std::vector<uint32_t> finalMux_;             ///< each receiver's $INCOMING_MUX at the phase's end
  std::vector<std::vector<Delivery>> sent_;    ///< each sender's runs
  std::vector<std::vector<ExternalWord>> outward_; ///< each sender's external words
  std::vector<std::vector<Run>> inbox_;        ///< each receiver's runs

  arch::SystemConfig config_;
  arch::ExchangeLayout layout_;
  unsigned id_;
  std::vector<std::unique_ptr<Tile>> tiles_;
  std::vector<bool> started_, active_;
  std::vector<unsigned> waiting_; ///< tiles in the pending sync
  Superstep pending_;
  uint64_t phaseStart_ = 0;       ///< the cycle the current phase began (the last release)
  bool phaseSent_ = false;        ///< a word was sent in the phase just computed
  IpuStats totals_;               ///< the phase and sync totals so far
  bool tracing_ = false;
  std::vector<TraceEvent> ipuEvents_; ///< events of the IPU and its sync controller
  std::unique_ptr<TraceSpool> spool_;  ///< spillTrace: where long traces wait
  std::vector<ExternalWord> external_; ///< words for the external exchange, not yet taken
  bool inSystem_ = false;
};

} // namespace ipusim::sim
