// ipusim bench (docs/bench.md): microbenchmarks that run real programs on the model and set what
// they measure beside the published figures of docs/hardware.md §1 and §5.
//
// The programs are assembly source held here as text, assembled and linked in-process with the
// codelet_compiler library: the ipusim tool links ipusim_cc for this, while the simulator library
// itself never includes the compiler (DESIGN.md "Layout"). Every figure is counted from the run:
// bytes from the pointers the workers advanced or the words the exchange delivered, cycles from
// the IPU's phase statistics or its trace events, never from a formula. The schedules (how long
// to wait for a word in flight) come from arch::ExchangeLayout, as a compiler's would.
#include "Bench.h"

#include "ipusim/arch/PackedAddresses.h"
#include "ipusim/arch/ToolError.h"
#include "ipusim/arch/Config.h"
#include "ipusim/arch/ExchangeLayout.h"
#include "ipusim/arch/Topology.h"
#include "ipusim/cc/Assembler.h"
#include "ipusim/cc/Linker.h"
#include "ipusim/sim/Image.h"
#include "ipusim/sim/Ipu.h"
#include "ipusim/sim/SimException.h"
#include "ipusim/sim/System.h"
#include "ipusim/sim/HostLink.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ipusim::tools {

namespace {

using Json = nlohmann::ordered_json;

/// The benchmark's own check failed: the model did not deliver what the program sent, or a
/// phase did not come out as the program was built to make it.
struct BenchFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- published figures (docs/hardware.md §1) ----
// [F] S11: 47.5 TB/s SRAM bandwidth per IPU; [D] §1: a tile loads 16 B and stores 8 B a cycle.
constexpr double kMemoryTBs = 47.5;
constexpr double kLoadBytesPerCycle = 16, kStoreBytesPerCycle = 8;
// [F] S11: 8 TB/s exchange, "any communication pattern"; [D] §1 / [RE] S9 cost.rs: 4 B a cycle a
// tile. [F] S5 (getTilesPerSharedExchangeBus() == 2): the two tiles of a pair receive the same
// data at twice the rate.
constexpr double kExchangeTBs = 8.0;
constexpr double kExchangeBytesPerCycle = 4;
constexpr unsigned kTilesPerSharedBus = 2;
// [RE] S9 getMaxIPUSyncDelay: 126 cycles from the last arrival to the release (provisional; the
// model takes it as its parameter sync.internal_latency_cycles, so this one is no check of the
// hardware, only of the model doing what it is told).
constexpr unsigned kSyncCycles = 126;

struct Env {
  arch::SystemConfig cfg;
  unsigned tiles = 0;   ///< tiles taking part in the aggregate benchmarks
  unsigned threads = 1;
  /// Benchmarks the config is too small for: "id: why" (printed after the table, and in JSON).
  mutable std::vector<std::string> skipped;
  /// TB/s for the whole IPU: bytes a cycle a tile x the IPU's tiles x its clock.
  double perIpu(double bytesPerCyclePerTile) const {
    return bytesPerCyclePerTile * cfg.ipu.tiles * cfg.ipu.clockHz / 1e12;
  }
};

/// A line of the table: what was measured, beside the published figure if there is one.
struct Row {
  std::string metric;
  double measured;
  int digits;
  std::string unit;
  std::optional<double> published;
  std::string source;
};

struct Result {
  std::string id;
  Json json;
  std::vector<Row> rows;
};

/// An assembled and linked tile image, loaded into the tiles that run it.
class Program {
public:
  Program(const Env &env, const std::string &source)
      : image_(std::make_unique<cc::ObjectFile>(
            cc::link({{"bench.o", cc::assembleText(source, "bench.s")}}, env.cfg.tile))) {}
  uint32_t entry(const std::string &symbol) const {
    int i = image_->findSymbol(symbol);
    if (i < 0) throw std::logic_error("bench program has no symbol " + symbol);
    return image_->symbols[size_t(i)].value;
  }
  /// Loads the image into tile t (the first tile loaded decodes the code; the rest share it).
  void load(sim::Ipu &ipu, unsigned t) {
    sim::loadImage(ipu.tile(t), *image_, "bench");
    if (first_) ipu.tile(t).shareDecodeCache(first_->decodeCache());
    else first_ = &ipu.tile(t);
  }

private:
  std::unique_ptr<cc::ObjectFile> image_; // outlives the tiles' source look-ups
  const sim::Tile *first_ = nullptr;
};

void putWord(sim::Tile &t, uint32_t addr, uint32_t v) { t.memory().write<uint32_t>(addr, v); }
uint32_t getWord(sim::Tile &t, uint32_t addr) { return t.memory().read<uint32_t>(addr); }

/// A bandwidth result: `bytes` moved by `tiles` tiles over `cycles`, per tile and per IPU.
Result bandwidth(const Env &env, const std::string &id, const std::string &metric, uint64_t bytes,
                 uint64_t cycles, unsigned tiles, double publishedPerTile, const std::string &tileSource,
                 double publishedTBs, const std::string &ipuSource, Json detail) {
  const double perTile = double(bytes) / tiles / double(cycles), tbs = env.perIpu(perTile);
  Result r;
  r.id = id;
  r.json["metric"] = metric;
  r.json["tiles"] = tiles;
  r.json["bytes"] = bytes;
  r.json["cycles"] = cycles;
  r.json["bytes_per_cycle_per_tile"] = perTile;
  r.json["tb_per_s"] = tbs;
  r.json["published_bytes_per_cycle_per_tile"] = publishedPerTile;
  r.json["published_tb_per_s"] = publishedTBs;
  r.json["ratio"] = tbs / publishedTBs;
  r.json["source"] = ipuSource;
  for (auto &[k, v] : detail.items()) r.json[k] = v;
  r.rows.push_back({metric + ", per tile", perTile, 3, "B/cycle/tile", publishedPerTile, tileSource});
  r.rows.push_back({metric + ", per IPU", tbs, 2, "TB/s", publishedTBs, ipuSource});
  return r;
}

// ============================== tile memory bandwidth ==============================
//
// Six workers on every tile run one rpt loop of a memory instruction: ld128step (16 bytes read a
// bundle, from interleaved memory as ld128 requires), st64step (8 bytes written) or ld2xst64pace
// (16 read from the two element arrays of interleaved memory, 8 written to region 0: three
// different elements, so no conflict stall). With six workers the barrel issues one bundle a
// cycle. The measured window is the compute phase from the start to the IPU sync after the
// workers' exit (launch and exit included); the bytes are what the workers' pointers advanced.
const char *kMemorySource = R"(
  .supervisor
readSup:
  setzi $m1, readWorker
  runall $m1, $m0, 4             // worker w's parameters at $m0 + 16 (w - 1)
  sync 2                         // LOCAL: every worker has exited
  sync 3                         // INTERNAL: the end of the measured phase
  br $lr
writeSup:
  setzi $m1, writeWorker
  runall $m1, $m0, 4
  sync 2
  sync 3
  br $lr
copySup:
  setzi $m1, copyWorker
  runall $m1, $m0, 4
  sync 2
  sync 3
  br $lr

  .worker
  .align 8
readWorker:
  ld32 $m1, $mvertex_base, 0     // the worker's buffer, in interleaved memory
  ld32 $m2, $mvertex_base, 1     // iterations
  setzi $m3, 0                   // the offset ld128step advances
  nop                            // puts the rpt body on an 8-byte boundary
  { rpt $m2, 0 ; fnop }
  { ld128step $a0:3, $m1, $m3+=, 1 ; fnop }
  st32 $m3, $mvertex_base, 2     // bytes read: what the bench counts
  exitz $mzero

  .align 8
writeWorker:
  ld32 $m1, $mvertex_base, 0
  ld32 $m2, $mvertex_base, 1
  setzi $m3, 0
  nop
  { rpt $m2, 0 ; fnop }
  { st64step $a0:1, $m1, $m3+=, 1 ; fnop }
  st32 $m3, $mvertex_base, 2     // bytes written
  exitz $mzero

  .align 8
copyWorker:
  ld32 $m1, $mvertex_base, 0     // source, in interleaved memory
  ld32 $m2, $mvertex_base, 1     // iterations
  ld32 $m3, $mvertex_base, 3     // destination, in region 0
  add $m7, $m1, 8                // the odd 64-bit word: the other element array
  tapack $m4:5, $m1, $m7, $m3    // load from $m1 and $m7, store to $m3
  setzi $m6, 2                   // stride field 0: two 64-bit atoms
  { rpt $m2, 0 ; fnop }
  { ld2xst64pace $a0:3, $a4:5, $m4:5+=, $m6, 0b000101 ; fnop }
  st32 $m4, $mvertex_base, 2     // the packed addresses after the loop
  st32 $m5, $mvertex_base, 3
  exitz $mzero
)";

enum class Access { Read, Write, ReadWrite };

// Iterations per worker: 6 x 2048 x 16 bytes fill 192 KiB of the 416 KiB interleaved region, and
// the loop's 12288 cycles dwarf the launch (about 60).
constexpr uint32_t kMemoryIterations = 2048;
constexpr uint32_t kParams = 0x70000;      // worker w's four words at kParams + 16 (w - 1)
constexpr uint32_t kInterleaved = 0x80000; // region 1
constexpr uint32_t kRegion0Buffer = 0x50000;

Result memoryBench(const Env &env, Access access) {
  Program program(env, kMemorySource);
  sim::Ipu ipu(env.cfg, env.tiles);
  const unsigned workers = env.cfg.tile.workerContexts;
  const uint32_t n = kMemoryIterations;
  const char *sup = access == Access::Read ? "readSup" : access == Access::Write ? "writeSup" : "copySup";
  const uint32_t stride = access == Access::Write ? 8 : 16; // bytes each worker's source advances a bundle
  for (unsigned t = 0; t < env.tiles; ++t) {
    program.load(ipu, t);
    sim::Tile &tile = ipu.tile(t);
    for (unsigned w = 0; w < workers; ++w) {
      const uint32_t p = kParams + 16 * w;
      putWord(tile, p, kInterleaved + w * n * stride);
      putWord(tile, p + 4, n);
      putWord(tile, p + 12, kRegion0Buffer + w * n * 8);
    }
    ipu.start(t, program.entry(sup), kParams);
  }
  // The measured phase: from the start to the last tile's arrival at the IPU sync.
  sim::Ipu::Superstep s = ipu.compute(env.threads);
  const sim::IpuStats phase = ipu.stats();
  if (s.finished || phase.computePhases != 1 || phase.exchangePhases != 0)
    throw BenchFailure("the memory phase did not end in one IPU sync");
  ipu.release(s.lastArrival + ipu.syncLatency(s.zone));
  if (!ipu.compute(env.threads).finished) throw BenchFailure("the memory program did not return");

  // Bytes: what each worker's pointers advanced, as the worker stored them.
  uint64_t read = 0, written = 0, bundles = 0;
  for (unsigned t = 0; t < env.tiles; ++t) {
    sim::Tile &tile = ipu.tile(t);
    for (unsigned w = 0; w < workers; ++w) {
      const uint32_t p = kParams + 16 * w;
      if (access == Access::Read) read += getWord(tile, p + 8);
      else if (access == Access::Write) written += getWord(tile, p + 8);
      else {
        // tapack: three 21-bit addresses (ipusim/arch/PackedAddresses.h); 0 and 1 loaded, 2 stored.
        const arch::PackedAddresses packed{getWord(tile, p + 8), getWord(tile, p + 12)};
        auto addr = [&](unsigned k) { return packed.addr(k); };
        // Each bundle loads 8 bytes at addresses 0 and 1, each stepping 16, and stores 8 at
        // address 2, stepping 8: the bundles the loop ran, counted three ways, must agree.
        const uint32_t src = kInterleaved + w * n * 16;
        const uint32_t b0 = (addr(0) - src) / 16, b1 = (addr(1) - (src + 8)) / 16,
                       b2 = (addr(2) - (kRegion0Buffer + w * n * 8)) / 8;
        if (b0 != b1 || b1 != b2) throw BenchFailure("ld2xst64pace: the three addresses advanced unequally");
        read += 16 * uint64_t(b0);
        written += 8 * uint64_t(b2);
      }
    }
    for (unsigned c = 1; c <= workers; ++c) bundles += phase.tiles[t].bundles[c];
  }
  const uint64_t cycles = phase.computeCycles;
  Json detail;
  detail["bytes_read"] = read;
  detail["bytes_written"] = written;
  detail["worker_bundles"] = bundles;
  detail["iterations_per_worker"] = n;
  switch (access) {
  case Access::Read:
    return bandwidth(env, "memory.read", "memory read (ld128step)", read, cycles, env.tiles, kLoadBytesPerCycle,
                     "[D] ipu-facts §1: 16 B/cycle load", env.perIpu(kLoadBytesPerCycle),
                     "[D] ipu-facts §1: read-only 31.2 TB/s", detail);
  case Access::Write:
    return bandwidth(env, "memory.write", "memory write (st64step)", written, cycles, env.tiles, kStoreBytesPerCycle,
                     "[D] ipu-facts §1: 8 B/cycle store", env.perIpu(kStoreBytesPerCycle),
                     "[D] ipu-facts §1: 8 B/cycle x 1472 x clock", detail);
  case Access::ReadWrite:
    break;
  }
  return bandwidth(env, "memory.read_write", "memory read+write (ld2xst64pace)", read + written, cycles, env.tiles,
                   kLoadBytesPerCycle + kStoreBytesPerCycle, "[D] ipu-facts §1: 16 + 8 B/cycle", kMemoryTBs,
                   "[F] S11: 47.5 TB/s ([D] 46.8)", detail);
}

// ============================== exchange ==============================

// Every exchange program starts the same way, in the phase before the measured one: the tile's
// parameters at $m0 are the tile it takes words from, where they go, what it sends and the
// incoming format. The sync that ends the phase sets $INCOMING_DELTA from $INCOMING_SINIT (0).
const char *kExchangeSetup = R"(
  ld32 $m1, $m0, 0               // the tile to take words from ($INCOMING_MUX; 0x7ff: none)
  ld32 $m2, $m0, 1               // where they go
  ld32 $m3, $m0, 2               // what this tile sends
  ld32 $m4, $m0, 3               // $INCOMING_FORMAT: 0 32-bit, 1 (2) 64-bit from the east (west)
  put $INCOMING_MUX, $m1
  put $INCOMING_BASE, $m2
  put $OUTGOING_BASE, $m3
  put $INCOMING_FORMAT, $m4
)";

constexpr uint32_t kNoSource = 0x7FF;
constexpr uint32_t kOutgoing = 0x80000, kIncoming = 0xA0000;

/// The word tile `t` sends at index `i` of its outgoing buffer.
uint32_t payload(unsigned t, uint32_t i) { return uint32_t(t) << 20 | (i & 0xFFFFF); }

/// `send`s streaming `count` items from byte offset `offset` of $OUTGOING_BASE, 64 at most each.
std::string sends(uint32_t offset, uint32_t count, unsigned itemBytes, unsigned sctl, unsigned maxWords) {
  std::string s;
  for (uint32_t done = 0; done < count;) {
    const uint32_t k = std::min(maxWords, count - done);
    s += "  send " + std::to_string(offset + done * itemBytes) + ", " + std::to_string(k) + ", " +
         std::to_string(sctl) + "\n";
    done += k;
  }
  return s;
}

struct TileSetup {
  uint32_t mux = kNoSource, format = 0;
  std::string entry; ///< empty: the tile does not run
};

/// Runs `program` with the exchange parameters of `setup` on the first setup.size() tiles of an
/// IPU of `ipuTiles` tiles, each tile's outgoing buffer filled with payload(t, i) for `words`
/// words, and `extra` words of parameters from $m0 + 32. Returns the statistics and trace.
struct ExchangeRun {
  std::unique_ptr<sim::Ipu> ipu;
  sim::IpuStats stats;
  std::vector<sim::TraceEvent> trace;
};
ExchangeRun runExchange(const Env &env, Program &program, unsigned ipuTiles, const std::vector<TileSetup> &setup,
                        uint32_t words, const std::function<std::vector<uint32_t>(unsigned)> &extra = {}) {
  ExchangeRun r;
  r.ipu = std::make_unique<sim::Ipu>(env.cfg, ipuTiles);
  r.ipu->setTracing(true, false);
  for (unsigned t = 0; t < setup.size(); ++t) {
    if (setup[t].entry.empty()) continue;
    program.load(*r.ipu, t);
    sim::Tile &tile = r.ipu->tile(t);
    for (uint32_t i = 0; i < words; ++i) putWord(tile, kOutgoing + 4 * i, payload(t, i));
    const uint32_t params[] = {setup[t].mux, kIncoming, kOutgoing, setup[t].format};
    for (uint32_t i = 0; i < 4; ++i) putWord(tile, kParams + 4 * i, params[i]);
    if (extra) {
      std::vector<uint32_t> more = extra(t);
      for (uint32_t i = 0; i < more.size(); ++i) putWord(tile, kParams + 32 + 4 * i, more[i]);
    }
    r.ipu->start(t, program.entry(setup[t].entry), kParams);
  }
  r.stats = r.ipu->run(env.threads);
  r.trace = r.ipu->takeTrace();
  return r;
}

/// The tile number in a trace place "ipu0.tile17.supervisor".
unsigned traceTile(const std::string &where) {
  auto p = where.find(".tile");
  return p == std::string::npos ? ~0u : unsigned(std::stoul(where.substr(p + 5)));
}
uint64_t fieldU64(const sim::TraceEvent &e, const char *key) {
  const std::string *v = e.field(key);
  if (!v) throw BenchFailure("trace event " + e.event + " has no field " + key);
  return std::stoull(*v);
}

/// The slowest receiver's rate from its first to its last write (trace exchange.receive events),
/// in bytes a cycle: the fabric's streaming rate without the phase's lead-in and flight time.
double streamingRate(const std::vector<sim::TraceEvent> &trace) {
  std::map<unsigned, std::pair<uint64_t, uint64_t>> span; // tile -> first, last write
  std::map<unsigned, uint64_t> words;
  for (const sim::TraceEvent &e : trace) {
    if (e.event != "exchange.receive") continue;
    const unsigned t = traceTile(e.where);
    auto [it, fresh] = span.try_emplace(t, e.cycle, fieldU64(e, "last_cycle"));
    if (!fresh) {
      it->second.first = std::min(it->second.first, e.cycle);
      it->second.second = std::max(it->second.second, fieldU64(e, "last_cycle"));
    }
    words[t] += fieldU64(e, "words");
  }
  double slowest = INFINITY;
  for (auto &[t, s] : span) slowest = std::min(slowest, 4.0 * double(words[t]) / double(s.second - s.first + 1));
  return span.empty() ? 0 : slowest;
}

/// The exchange phase's cycles (ipu0.phase.exchange.cycles), checking there was exactly one.
uint64_t exchangeCycles(const sim::IpuStats &s) {
  if (s.exchangePhases != 1)
    throw BenchFailure("expected one exchange phase, found " + std::to_string(s.exchangePhases));
  return s.exchangeCycles;
}

void expectWord(sim::Ipu &ipu, unsigned t, uint32_t addr, uint32_t want, const std::string &what) {
  const uint32_t got = getWord(ipu.tile(t), addr);
  if (got != want) {
    char b[200];
    std::snprintf(b, sizeof b, "%s: tile %u holds 0x%08x at 0x%x, not 0x%08x", what.c_str(), t, got, addr, want);
    throw BenchFailure(b);
  }
}

// Neighbour streams: each tile sends kStreamItems items to its partner in a tile pair (32-bit
// words), or the first member of each pair sends 64-bit items to both members of the next pair,
// which take every item (the pair's shared exchange resources, [F] S5; [RE] S9). The streams
// start at the sync's release (the muxes were set in the phase before) and the tiles sync again
// when the last word has been written; the exchange phase is the measured window.
constexpr uint32_t kStreamItems = 4096; // 16 KiB of words: the ~70 cycles of flight are under 2%

std::string streamProgram(uint32_t items, unsigned itemBytes, unsigned tail, const std::vector<unsigned> &sctls,
                          unsigned maxWords) {
  std::string s = "  .supervisor\n";
  for (unsigned sctl : sctls) {
    s += "stream" + std::to_string(sctl) + ":\n" + kExchangeSetup + "  sync 3\n";
    s += sends(0, items, itemBytes, sctl, maxWords);
    s += "  delay " + std::to_string(tail) + "\n  sync 3\n  br $lr\n";
  }
  s += std::string("receiveOnly:\n") + kExchangeSetup + "  sync 3\n  delay " + std::to_string(items + tail) +
       "\n  sync 3\n  br $lr\n";
  return s;
}

Result neighbourBench(const Env &env, bool wide) {
  const arch::ExchangeLayout layout(env.cfg);
  const unsigned itemBytes = wide ? 8 : 4, group = wide ? 4 : 2;
  const unsigned used = env.tiles / group * group;
  if (used == 0) throw std::invalid_argument("needs at least " + std::to_string(group) + " tiles");
  std::vector<TileSetup> setup(used);
  // Who sends to whom: 32-bit, t to its partner t ^ 1; 64-bit, the first member of each pair
  // (4j, 4j + 2) to both members of the other pair of its group of four.
  std::vector<std::pair<unsigned, unsigned>> flows;
  for (unsigned t = 0; t < used; ++t) {
    if (!wide) flows.push_back({t ^ 1, t});
    else flows.push_back({(t & ~3u) + ((t & 2) ^ 2), t});
  }
  unsigned tail = 1;
  std::map<unsigned, unsigned> sctlOf;
  for (auto [src, dst] : flows) {
    setup[dst].mux = src;
    const unsigned dir = layout.direction(src, dst);
    setup[dst].format = wide ? dir : 0;
    sctlOf[src] |= dir | (wide ? 4 : 0);
    // The receiver's last write lands writeOffset after the last item leaves: sync after it.
    tail = std::max(tail, unsigned(layout.writeOffset(src, dst)));
  }
  std::vector<unsigned> sctls;
  for (unsigned t = 0; t < used; ++t) {
    if (sctlOf.count(t)) {
      setup[t].entry = "stream" + std::to_string(sctlOf[t]);
      if (std::find(sctls.begin(), sctls.end(), sctlOf[t]) == sctls.end()) sctls.push_back(sctlOf[t]);
    } else {
      setup[t].entry = "receiveOnly";
    }
  }
  Program program(env, streamProgram(kStreamItems, itemBytes, tail, sctls, env.cfg.exchange.maxSendWords));
  const uint32_t words = kStreamItems * itemBytes / 4;
  ExchangeRun run = runExchange(env, program, env.tiles, setup, words);
  for (auto [src, dst] : flows)
    for (uint32_t i = 0; i < words; ++i)
      expectWord(*run.ipu, dst, kIncoming + 4 * i, payload(src, i),
                 "neighbour stream from tile " + std::to_string(src));
  const uint64_t cycles = exchangeCycles(run.stats), bytes = 4 * run.stats.wordsReceived;
  Json detail;
  detail["items_per_stream"] = kStreamItems;
  detail["item_bytes"] = itemBytes;
  detail["tail_cycles"] = tail;
  detail["streaming_bytes_per_cycle_per_tile"] = streamingRate(run.trace);
  if (!wide)
    return bandwidth(env, "exchange.neighbour32", "exchange, pair neighbours, 32-bit", bytes, cycles, used,
                     kExchangeBytesPerCycle, "[D] ipu-facts §1: 4 B/cycle/tile", kExchangeTBs,
                     "[F] S11: 8 TB/s ([D] 7.8)", detail);
  detail["distinct_bytes_per_cycle_per_tile"] = double(bytes) / kTilesPerSharedBus / used / double(cycles);
  return bandwidth(env, "exchange.pair64", "exchange, tile pair to pair, 64-bit", bytes, cycles, used,
                   kTilesPerSharedBus * kExchangeBytesPerCycle, "[D] 2 x 4 B/cycle: [F] S5 pairs share a bus",
                   kTilesPerSharedBus * kExchangeTBs, "[D] 2 x [F] S11 8 TB/s ([F] S5 shared bus)", detail);
}

// All-to-all in groups of kGroup consecutive tiles (kGroup - 1 steps; in step s the tile at
// place p of its group receives from place p - s and its block s goes to place p + s), every
// tile running the same instructions with the same timing. In step s every tile streams its
// kBlock-word block s; each receiver's mux must select the step's source from the first word's
// arrival to the last's. Flight times differ over the group's pairs (muxOffset from mn to mx),
// so the steps are mx - mn (+1) cycles longer than the stream: the put that switches the mux to
// the next source comes when the slowest word of this step has arrived and before the fastest
// of the next can. When mx < 0 that is inside the stream (a one-cycle gap in the sends); else in
// the gap after it.
constexpr unsigned kGroup = 16;
constexpr uint32_t kBlock = 256;

struct AllToAllPlan {
  unsigned group, steps;
  int64_t mn, mx;    ///< muxOffset over the group pairs
  unsigned write;    ///< the longest writeOffset
  bool inside;       ///< the mux put sits inside the stream
  unsigned put, period;
};

std::string allToAllProgram(const AllToAllPlan &p, unsigned maxWords) {
  // Parameters: word 8 + s is the source of step s (1 .. steps); beyond, kNoSource.
  std::string s = "  .supervisor\nallToAll:\n" + std::string(kExchangeSetup) + "  ld32 $m5, $m0, 10\n  sync 3\n";
  for (unsigned step = 1; step <= p.steps; ++step) {
    const uint32_t base = (step - 1) * kBlock * 4;
    const bool last = step == p.steps;
    s += "  // step " + std::to_string(step) + "\n";
    if (p.inside) {
      s += sends(base, p.put, 4, 3, maxWords);
      s += "  put $INCOMING_MUX, $m5\n"; // the next step's source
      s += sends(base + 4 * p.put, kBlock - p.put, 4, 3, maxWords);
      if (last) {
        s += "  delay " + std::to_string(p.write) + "\n"; // the last word (at kBlock) is written by kBlock + write
      } else {
        s += "  ld32 $m5, $m0, " + std::to_string(8 + step + 2) + "\n";
        if (p.period > kBlock + 2) s += "  delay " + std::to_string(p.period - kBlock - 2) + "\n";
      }
    } else {
      s += sends(base, kBlock, 4, 3, maxWords);
      if (last) {
        s += "  delay " + std::to_string(p.write) + "\n";
      } else {
        if (p.put > kBlock) s += "  delay " + std::to_string(p.put - kBlock) + "\n";
        s += "  put $INCOMING_MUX, $m5\n  ld32 $m5, $m0, " + std::to_string(8 + step + 2) + "\n";
        if (p.period > p.put + 2) s += "  delay " + std::to_string(p.period - p.put - 2) + "\n";
      }
    }
  }
  s += "  sync 3\n  br $lr\n";
  return s;
}

Result allToAllBench(const Env &env) {
  const arch::ExchangeLayout layout(env.cfg);
  AllToAllPlan p{};
  p.group = std::min(kGroup, env.tiles);
  if (p.group < 2) throw std::invalid_argument("needs at least 2 tiles");
  const unsigned used = env.tiles / p.group * p.group;
  p.steps = p.group - 1;
  p.mn = INT64_MAX;
  p.mx = INT64_MIN;
  for (unsigned g = 0; g < used; g += p.group)
    for (unsigned a = g; a < g + p.group; ++a)
      for (unsigned b = g; b < g + p.group; ++b) {
        if (a == b) continue;
        p.mn = std::min(p.mn, layout.muxOffset(a, b));
        p.mx = std::max(p.mx, layout.muxOffset(a, b));
        p.write = std::max(p.write, unsigned(layout.writeOffset(a, b)));
      }
  // Step s streams from T_s. Inside: words at T_s + [0, put) and T_s + [put + 1, kBlock + 1);
  // the put at T_s + put must follow the last arrival T_s + kBlock + mx and precede the next
  // step's first, T_s + period + mn. Gap: words at T_s + [0, kBlock), put after them and after
  // the last arrival, T_s + kBlock - 1 + mx.
  p.inside = p.mx < 0;
  if (p.inside) {
    p.put = unsigned(int64_t(kBlock) + p.mx + 1);
    p.period = unsigned(int64_t(p.put) - p.mn);
    p.period = std::max(p.period, kBlock + 2); // room for the ld32 of the next source
  } else {
    p.put = unsigned(int64_t(kBlock) + std::max<int64_t>(p.mx, 0));
    p.period = unsigned(std::max(int64_t(p.put) - p.mn, int64_t(p.put) + 2));
  }
  Program program(env, allToAllProgram(p, env.cfg.exchange.maxSendWords));
  std::vector<TileSetup> setup(used);
  auto source = [&](unsigned t, unsigned step) { // the tile t hears in step `step`
    const unsigned g = t / p.group * p.group, place = t - g;
    return g + (place + p.group - step % p.group) % p.group;
  };
  for (unsigned t = 0; t < used; ++t) {
    setup[t].mux = source(t, 1);
    setup[t].entry = "allToAll";
  }
  ExchangeRun run = runExchange(env, program, env.tiles, setup, p.steps * kBlock, [&](unsigned t) {
    std::vector<uint32_t> table(p.steps + 4, kNoSource); // word 8 + k: step k's source
    for (unsigned step = 1; step <= p.steps; ++step) table[step] = source(t, step);
    return table;
  });
  for (unsigned t = 0; t < used; ++t)
    for (unsigned step = 1; step <= p.steps; ++step)
      for (uint32_t i = 0; i < kBlock; ++i) {
        const uint32_t k = (step - 1) * kBlock + i;
        expectWord(*run.ipu, t, kIncoming + 4 * k, payload(source(t, step), k),
                   "all-to-all step " + std::to_string(step));
      }
  const uint64_t cycles = exchangeCycles(run.stats), bytes = 4 * run.stats.wordsReceived;
  Json detail;
  detail["group_tiles"] = p.group;
  detail["steps"] = p.steps;
  detail["words_per_step"] = kBlock;
  detail["step_cycles"] = p.period;
  detail["mux_offset_min"] = p.mn;
  detail["mux_offset_max"] = p.mx;
  detail["streaming_bytes_per_cycle_per_tile"] = streamingRate(run.trace);
  return bandwidth(env, "exchange.all_to_all",
                   "exchange, all-to-all in groups of " + std::to_string(p.group) + ", stepped", bytes, cycles, used,
                   kExchangeBytesPerCycle, "[D] ipu-facts §1: 4 B/cycle/tile", kExchangeTBs,
                   "[F] S11: 8 TB/s, any pattern", detail);
}

// Latency against distance: tile 0 (physical row 0, column 0) sends one word to both sides; a
// handful of tiles at growing distances select it. The latency is the receiver's memory write
// (trace exchange.receive) less the send (exchange.send), both from the run.
struct LatencyCase {
  const char *id, *name;
  unsigned row, column, member, side; ///< the receiver's physical position
};

std::vector<Result> latencyBench(const Env &env) {
  const arch::ExchangeLayout layout(env.cfg);
  const unsigned tiles = env.cfg.ipu.tiles, rows = tiles / (env.cfg.ipu.columns * env.cfg.ipu.tilesPerSupertile);
  std::vector<LatencyCase> cases;
  for (const LatencyCase &c : std::vector<LatencyCase>{
           {"same_pair", "same pair", 0, 0, 1, 0},
           {"next_row", "next row", 1, 0, 0, 0},
           {"next_column", "next column", 0, 1, 0, 0},
           {"across_spine", "other side of the spine", 0, 8, 0, 0},
           {"far_corner", "far corner", rows - 1, 15, 1, 1},
       }) {
    // A small config may have one supertile row: the cases that need a second are skipped.
    // (The far corner is another row's: with one row it would be the spine case again.)
    const unsigned need = std::string(c.id) == "far_corner" ? 2 : c.row + 1;
    if (rows < need) {
      env.skipped.push_back(std::string("exchange.latency.") + c.id + ": needs " + std::to_string(need) +
                            " supertile rows (" + std::to_string(need * env.cfg.ipu.columns * env.cfg.ipu.tilesPerSupertile) +
                            " tiles); the config has " + std::to_string(tiles));
      continue;
    }
    cases.push_back(c);
  }
  auto logicalAt = [&](unsigned physical) {
    for (unsigned t = 0; t < tiles; ++t)
      if (layout.physical(t) == physical) return t;
    throw std::logic_error("no logical tile at physical " + std::to_string(physical));
  };
  const unsigned sender = logicalAt(0);
  std::vector<TileSetup> setup(tiles);
  std::vector<unsigned> receivers;
  unsigned wait = 1;
  for (const LatencyCase &c : cases) {
    const unsigned r = logicalAt(64 * c.row + 4 * c.column + 2 * c.member + c.side);
    receivers.push_back(r);
    setup[r] = {sender, 0, "receive"};
    wait = std::max(wait, unsigned(layout.writeOffset(sender, r)));
  }
  setup[sender] = {kNoSource, 0, "send"};
  Program program(env, "  .supervisor\nsend:\n" + std::string(kExchangeSetup) + "  sync 3\n  send 0, 1, 3\n  delay " +
                           std::to_string(wait) + "\n  sync 3\n  br $lr\nreceive:\n" + kExchangeSetup +
                           "  sync 3\n  delay " + std::to_string(wait + 1) + "\n  sync 3\n  br $lr\n");
  ExchangeRun run = runExchange(env, program, tiles, setup, 1);
  uint64_t sent = UINT64_MAX;
  std::map<unsigned, uint64_t> written;
  for (const sim::TraceEvent &e : run.trace) {
    if (e.event == "exchange.send" && traceTile(e.where) == sender) sent = e.cycle;
    if (e.event == "exchange.receive") written[traceTile(e.where)] = e.cycle;
  }
  std::vector<Result> out;
  for (size_t i = 0; i < cases.size(); ++i) {
    const unsigned r = receivers[i];
    expectWord(*run.ipu, r, kIncoming, payload(sender, 0), "latency word");
    if (sent == UINT64_MAX || !written.count(r)) throw BenchFailure("latency: no send or receive event in the trace");
    const uint64_t latency = written[r] - sent;
    const unsigned ps = layout.physical(sender), pr = layout.physical(r);
    const int dRow = int(layout.row(r)) - int(layout.row(sender));
    const int dCol = int(layout.column(r)) - int(layout.column(sender));
    Result res;
    res.id = std::string("exchange.latency.") + cases[i].id;
    res.json["metric"] = std::string("exchange latency, ") + cases[i].name;
    res.json["sender"] = sender;
    res.json["receiver"] = r;
    res.json["sender_physical"] = ps;
    res.json["receiver_physical"] = pr;
    res.json["rows_apart"] = dRow;
    res.json["columns_apart"] = dCol;
    res.json["send_cycle"] = sent;
    res.json["write_cycle"] = written[r];
    res.json["cycles"] = latency;
    res.json["published"] = nullptr;
    res.json["source"] = "no Mk2 figure; Mk1: latency grows with distance ([F] S17, ipu-facts §5.1)";
    char name[160];
    std::snprintf(name, sizeof name, "exchange latency, %s (tile %u -> %u: %d row%s, %d column%s)", cases[i].name,
                  sender, r, dRow, std::abs(dRow) == 1 ? "" : "s", dCol, std::abs(dCol) == 1 ? "" : "s");
    res.rows.push_back(
        {name, double(latency), 0, "cycles", std::nullopt, "no Mk2 figure (Mk1: ipu-facts §5.1, [F] S17)"});
    out.push_back(std::move(res));
  }
  return out;
}

// Internal sync: every tile counts down a different number of turns, then syncs (zone 3). The
// latency is the last release less the last arrival, both from the trace (sync.enter,
// sync.release).
Result syncBench(const Env &env) {
  Program program(env, R"(
  .supervisor
s:
  ld32 $m1, $m0, 0               // this tile's count: the tiles arrive at different cycles
1:
  brnzdec $m1, 1b
  sync 3
  br $lr
)");
  sim::Ipu ipu(env.cfg, env.tiles);
  ipu.setTracing(true, false);
  for (unsigned t = 0; t < env.tiles; ++t) {
    program.load(ipu, t);
    putWord(ipu.tile(t), kParams, t % 11);
    ipu.start(t, program.entry("s"), kParams);
  }
  ipu.run(env.threads);
  uint64_t arrival = 0, release = 0, first = UINT64_MAX;
  for (const sim::TraceEvent &e : ipu.takeTrace()) {
    if (e.event == "sync.enter") {
      arrival = std::max(arrival, e.cycle);
      first = std::min(first, e.cycle);
    }
    if (e.event == "sync.release") release = std::max(release, e.cycle);
  }
  if (release == 0) throw BenchFailure("sync: no release in the trace");
  Result r;
  r.id = "sync.internal";
  r.json["metric"] = "internal sync latency (sync 3), last arrival to release";
  r.json["tiles"] = env.tiles;
  r.json["first_arrival_cycle"] = first;
  r.json["last_arrival_cycle"] = arrival;
  r.json["release_cycle"] = release;
  r.json["cycles"] = release - arrival;
  r.json["published"] = kSyncCycles;
  r.json["ratio"] = double(release - arrival) / kSyncCycles;
  r.json["model_parameter"] = env.cfg.sync.internalLatencyCycles;
  r.json["source"] = "[RE] S9 getMaxIPUSyncDelay, provisional: the model's parameter sync.internal_latency_cycles";
  r.rows.push_back({"internal sync latency (sync 3), last arrival to release", double(release - arrival), 0, "cycles",
                    double(kSyncCycles), "[RE] S9, provisional: the model parameter sync.internal_latency_cycles"});
  return r;
}

// ============================== systems: IPU-Links, external syncs ==============================
//
// On a config of several IPUs (docs/systems.md). Tile programs send inter-IPU packets (sends with
// no direction, sim/Links.h's format) and meet in external syncs; the figures come from the
// system's trace (link.packet, link.receive, external_sync) and statistics.

// [D] S11: 320 GB/s over 10 IPU-Links, both directions: 16 GB/s each way a link. [RE] S9
// getGlobalSyncCycles: 600 (provisional, as sync.external_latency_cycles).
constexpr unsigned kGlobalSyncCycles = 600;

struct SystemBenchRun {
  std::unique_ptr<sim::System> system;
  sim::SystemStats stats;
  std::vector<sim::TraceEvent> trace;
};

/// Runs on tiles [0, tiles) of each IPU `programs` names its program (entry "s", $m0 = kParams),
/// each tile's words from `words(ipu, tile)` at kParams.
SystemBenchRun runSystemBench(const Env &env, const std::map<unsigned, std::string> &programs, unsigned tiles,
                              const std::function<std::vector<uint32_t>(unsigned, unsigned)> &words) {
  SystemBenchRun r;
  r.system = std::make_unique<sim::System>(env.cfg, tiles);
  r.system->setTracing(true, false);
  std::map<std::string, std::unique_ptr<Program>> images; // one per text: the tiles share its decoding
  for (const auto &[i, text] : programs) {
    auto &image = images[text];
    if (!image) image = std::make_unique<Program>(env, text);
    for (unsigned t = 0; t < tiles; ++t) {
      sim::Ipu &ipu = r.system->ipu(i);
      image->load(ipu, t);
      std::vector<uint32_t> w = words(i, t);
      for (uint32_t k = 0; k < w.size(); ++k) putWord(ipu.tile(t), kParams + 4 * k, w[k]);
      ipu.start(t, image->entry("s"), kParams);
    }
  }
  r.stats = r.system->run(env.threads);
  r.trace = r.system->takeTrace();
  return r;
}

const char *kExternalWaiter = "  .supervisor\ns:\n  sync 4\n  br $lr\n";

/// A program that sends `words` words from $m0 + 64 to the external exchange, then syncs GS1.
std::string externalSender(uint32_t words) {
  return "  .supervisor\ns:\n  add $m1, $m0, 64\n  put $OUTGOING_BASE, $m1\n" + sends(0, words, 4, 0, 64) +
         "  sync 4\n  br $lr\n";
}

/// Tile t's packets for tile t of IPU `dst`: `count` of `payloadWords`, word k of packet p is
/// payload(t, p * payloadWords + k), landing one after another from kIncoming.
std::vector<uint32_t> packetsFor(unsigned dst, unsigned t, unsigned count, unsigned payloadWords) {
  std::vector<uint32_t> w(16, 0);
  for (unsigned p = 0; p < count; ++p) {
    w.push_back(sim::packet::header(dst, t, payloadWords));
    w.push_back(kIncoming + 4 * p * payloadWords);
    for (unsigned k = 0; k < payloadWords; ++k) w.push_back(payload(t, p * payloadWords + k));
  }
  return w;
}

/// A bandwidth between IPUs or to the host: `bytes` over `cycles` at the IPU clock in GB/s, beside
/// `published` GB/s; `detail` (what moved the bytes) goes into the JSON after the metric.
Result gigabytesPerSecond(const Env &env, const std::string &id, const std::string &metric, const Json &detail,
                          uint64_t bytes, uint64_t cycles, double published, const std::string &source) {
  const double gbs = double(bytes) / double(cycles) * env.cfg.ipu.clockHz / 1e9;
  Result r;
  r.id = id;
  r.json["metric"] = metric;
  for (auto &[k, v] : detail.items()) r.json[k] = v;
  r.json["bytes"] = bytes;
  r.json["cycles"] = cycles;
  r.json["gb_per_s"] = gbs;
  r.json["published_gb_per_s"] = published;
  r.json["ratio"] = gbs / published;
  r.json["source"] = source;
  return r;
}

/// Link bandwidth and latency between ipu0 and ipu1 (the rung of an M2000).
std::vector<Result> linkBench(const Env &env) {
  const arch::Topology topology(env.cfg);
  const int c = topology.connectionBetween(0, 1);
  if (c < 0) throw BenchFailure("link: ipu0 and ipu1 are not neighbours in topology " + topology.kind());
  const unsigned links = topology.connections()[size_t(c)].links;
  const double perLink = env.cfg.links.bytesPerSecondPerDirection / 1e9;
  std::vector<Result> out;
  // Bandwidth: every tile of ipu0 sends 4 packets of 256 words (1 KiB, the largest) to its
  // namesake on ipu1, whose tiles wait in the sync. Window: the first word leaving a tile to the
  // last word written; bytes: the payload delivered.
  constexpr unsigned kPackets = 4, kWords = sim::packet::kMaxPayloadWords;
  {
    const uint32_t words = kPackets * (kWords + sim::packet::kHeaderWords);
    SystemBenchRun run = runSystemBench(env, {{0, externalSender(words)}, {1, kExternalWaiter}}, env.tiles,
                                        [&](unsigned i, unsigned t) {
                                          return i == 0 ? packetsFor(1, t, kPackets, kWords) : std::vector<uint32_t>{};
                                        });
    uint64_t first = UINT64_MAX, last = 0;
    for (const sim::TraceEvent &e : run.trace) {
      if (e.event == "link.packet") first = std::min(first, e.cycle);
      if (e.event == "link.receive") last = std::max(last, fieldU64(e, "last_cycle"));
    }
    for (unsigned t = 0; t < env.tiles; t += std::max(1u, env.tiles / 7))
      for (uint32_t k : {0u, kPackets * kWords - 1})
        if (getWord(run.system->ipu(1).tile(t), kIncoming + 4 * k) != payload(t, k))
          throw BenchFailure("link bandwidth: word " + std::to_string(k) + " of tile " + std::to_string(t) + " did not arrive");
    const uint64_t bytes = run.stats.links.payloadBytes, cycles = last + 1 - first;
    const double peak = perLink * links;
    Result r = gigabytesPerSecond(env, "link.bandwidth", "IPU-Link bandwidth, ipu0 -> ipu1",
                                  {{"tiles", env.tiles}, {"links", links}, {"packets", run.stats.links.packets}}, bytes,
                                  cycles, peak, "[D] S11: 16 GB/s each way a link");
    const double gbs = r.json["gb_per_s"];
    const std::string what = "IPU-Link bandwidth ipu0 -> ipu1 (" + topology.connections()[size_t(c)].kind + ", " +
                             std::to_string(links) + " links)";
    r.rows.push_back({what, gbs, 2, "GB/s", peak, "[D] S11 x links (docs/systems.md)"});
    r.rows.push_back({"IPU-Link bandwidth, per link", gbs / links, 2, "GB/s", perLink, "[D] S11: 320 GB/s / 10 links / 2 ways"});
    out.push_back(std::move(r));
  }
  // Latency: tile 0 sends one 1-word packet; from its last word leaving (the packet event's cycle
  // + 2: header words first) to its write.
  {
    SystemBenchRun run = runSystemBench(env, {{0, externalSender(3)}, {1, kExternalWaiter}}, 1, [&](unsigned i, unsigned t) {
      return i == 0 ? packetsFor(1, t, 1, 1) : std::vector<uint32_t>{};
    });
    uint64_t sent = 0, written = 0;
    for (const sim::TraceEvent &e : run.trace) {
      if (e.event == "link.packet") sent = e.cycle + 2;
      if (e.event == "link.receive") written = e.cycle;
    }
    if (!written || getWord(run.system->ipu(1).tile(0), kIncoming) != payload(0, 0))
      throw BenchFailure("link latency: the word did not arrive");
    Result r;
    r.id = "link.latency";
    r.json["metric"] = "IPU-Link latency, one hop, last word sent to written";
    r.json["send_cycle"] = sent;
    r.json["write_cycle"] = written;
    r.json["cycles"] = written - sent;
    r.json["published"] = nullptr;
    r.json["source"] = "no Mk2 figure: links.latency_cycles and links.exchange_block_cycles are provisional";
    r.rows.push_back({"IPU-Link latency, one hop, last word sent to written", double(written - sent), 0, "cycles",
                      std::nullopt, "no Mk2 figure (provisional parameters, docs/systems.md)"});
    out.push_back(std::move(r));
  }
  return out;
}

/// External sync: every tile of every IPU counts down a different number of turns, then syncs
/// GS1; the latency is the release less the last arrival (trace external_sync).
Result externalSyncBench(const Env &env) {
  std::map<unsigned, std::string> all;
  for (unsigned i = 0; i < env.cfg.ipus; ++i) all[i] = "  .supervisor\ns:\n  ld32 $m1, $m0, 0\n1:\n  brnzdec $m1, 1b\n  sync 4\n  br $lr\n";
  SystemBenchRun run = runSystemBench(env, all, std::min(env.tiles, 64u),
                                      [](unsigned i, unsigned t) { return std::vector<uint32_t>{(i * 7 + t) % 13}; });
  uint64_t arrival = 0, release = 0;
  for (const sim::TraceEvent &e : run.trace)
    if (e.event == "external_sync") {
      arrival = fieldU64(e, "last_arrival_cycle");
      release = e.cycle;
    }
  if (!release) throw BenchFailure("external sync: no external_sync event in the trace");
  Result r;
  r.id = "sync.external";
  r.json["metric"] = "external sync latency (sync 4, GS1), last arrival to release";
  r.json["ipus"] = env.cfg.ipus;
  r.json["last_arrival_cycle"] = arrival;
  r.json["release_cycle"] = release;
  r.json["cycles"] = release - arrival;
  r.json["published"] = kGlobalSyncCycles;
  r.json["ratio"] = double(release - arrival) / kGlobalSyncCycles;
  r.json["source"] = "[RE] S9 getGlobalSyncCycles, provisional: the model parameter sync.external_latency_cycles";
  r.rows.push_back({"external sync latency (sync 4, GS1) over " + std::to_string(env.cfg.ipus) + " IPUs",
                    double(release - arrival), 0, "cycles", double(kGlobalSyncCycles),
                    "[RE] S9, provisional: the model parameter sync.external_latency_cycles"});
  return r;
}

// Ring all-reduce over every IPU round ring-on-line, on every tile: each tile reduces a vector of
// P chunks of 256 words with its namesakes on the other IPUs (reduce-scatter then all-gather, one
// 1 KiB packet a tile a step; the additions on the supervisor). Bus bandwidth as NCCL defines it:
// 2 (P - 1) / P x the vector bytes (all tiles') / the time, beside the ring's slowest connection.
// The 1 KiB chunk at $m8 in four sends of 64 words (a send carries at most 64).
const char *const kSendChunk = "  sendoff $m8, 64, 0\n  add $m9, $m8, 256\n  sendoff $m9, 64, 0\n  add $m9, $m8, 512\n"
                               "  sendoff $m9, 64, 0\n  add $m9, $m8, 768\n  sendoff $m9, 64, 0\n";
const std::string kAllReduce = R"(
  .supervisor
s:
  ld32 $m1, $m0, 0               // P
  ld32 $m2, $m0, 1               // this IPU's ring position
  ld32 $m3, $m0, 2               // the next IPU
  add $m1, $m1, -1               // P - 1: mask and step count
  get $m4, $TILE_ID
  shl $m4, $m4, 18
  shl $m3, $m3, 8
  or $m4, $m4, $m3
  or $m4, $m4, 255               // 256 payload words
  or $m4, $m4, 0x40000000        // tile write
  add $m5, $m0, 16               // the header words
  st32 $m4, $m5, 0
  put $OUTGOING_BASE, $mzero
  setzi $m0, 0x80000             // the vector: P chunks of 1 KiB
  sync 3
  add $m6, $m1, -1
  mov $m7, $m2
1:
  setzi $m3, 0xA0000             // the chunk from the previous IPU
  st32 $m3, $m5, 1
  sendoff $m5, 2, 0
  and $m7, $m7, $m1
  shl $m8, $m7, 10
  add $m8, $m8, $m0
)" + std::string(kSendChunk) + R"(  sync 4
  add $m7, $m7, -1
  and $m7, $m7, $m1
  shl $m8, $m7, 10
  add $m8, $m8, $m0
  setzi $m9, 255
2:
  ld32 $m2, $m8, $mzero, $m9
  ld32 $m4, $m3, $mzero, $m9
  add $m2, $m2, $m4
  st32 $m2, $m8, $mzero, $m9
  brnzdec $m9, 2b
  brnzdec $m6, 1b
  add $m6, $m1, -1
3:
  and $m7, $m7, $m1
  shl $m8, $m7, 10
  add $m8, $m8, $m0
  st32 $m8, $m5, 1
  sendoff $m5, 2, 0
)" + std::string(kSendChunk) + R"(  sync 4
  add $m7, $m7, -1
  brnzdec $m6, 3b
  br $lr
)";

Result allReduceBench(const Env &env) {
  const arch::Topology topology(env.cfg);
  const std::vector<unsigned> ring = topology.rings("ring-on-line")[0];
  const unsigned P = unsigned(ring.size());
  if (P & (P - 1)) throw BenchFailure("all-reduce: the ring of " + std::to_string(P) + " IPUs is not a power of two");
  std::vector<unsigned> position(P), next(P);
  double slowest = 1e30;
  for (unsigned k = 0; k < P; ++k) {
    position[ring[k]] = k;
    next[ring[k]] = ring[(k + 1) % P];
    const int c = topology.connectionBetween(ring[k], ring[(k + 1) % P]);
    slowest = std::min(slowest, topology.connections()[size_t(c)].links * env.cfg.links.bytesPerSecondPerDirection / 1e9);
  }
  constexpr uint32_t kChunkWords = 256;
  sim::System system(env.cfg, env.tiles);
  system.setTracing(true, false);
  Program image(env, kAllReduce);
  for (unsigned i = 0; i < P; ++i)
    for (unsigned t = 0; t < env.tiles; ++t) {
      sim::Tile &tile = system.ipu(i).tile(t);
      image.load(system.ipu(i), t);
      putWord(tile, kParams, P);
      putWord(tile, kParams + 4, position[i]);
      putWord(tile, kParams + 8, next[i]);
      for (uint32_t k = 0; k < P * kChunkWords; ++k) putWord(tile, kOutgoing + 4 * k, i * 1000 + t + k);
      system.ipu(i).start(t, image.entry("s"), kParams);
    }
  const sim::SystemStats stats = system.run(env.threads);
  // The window: from the release of the tiles' first sync (sync 3) to the last tile's return.
  uint64_t start = 0;
  for (const sim::TraceEvent &e : system.takeTrace())
    if (e.event == "sync" && !start) start = e.cycle;
  for (unsigned t = 0; t < env.tiles; t += std::max(1u, env.tiles / 7))
    for (uint32_t k : {0u, P * kChunkWords - 1}) {
      const uint32_t want = 1000 * P * (P - 1) / 2 + P * (t + k);
      if (getWord(system.ipu(ring[P / 2]).tile(t), kOutgoing + 4 * k) != want)
        throw BenchFailure("all-reduce: element " + std::to_string(k) + " of tile " + std::to_string(t) + " is wrong");
    }
  const uint64_t bytes = uint64_t(env.tiles) * P * kChunkWords * 4, cycles = stats.cycles - start;
  const double seconds = double(cycles) / env.cfg.ipu.clockHz;
  const double bus = 2.0 * (P - 1) / P * double(bytes) / seconds / 1e9;
  Result r;
  r.id = "link.allreduce";
  r.json["metric"] = "ring all-reduce bus bandwidth (ring-on-line)";
  r.json["ipus"] = P;
  r.json["tiles_per_ipu"] = env.tiles;
  r.json["vector_bytes"] = bytes;
  r.json["cycles"] = cycles;
  r.json["bus_gb_per_s"] = bus;
  r.json["published_gb_per_s"] = slowest;
  r.json["ratio"] = bus / slowest;
  r.json["source"] = "[D] S11: the ring's slowest connection, links x 16 GB/s";
  r.rows.push_back({"ring all-reduce bus bandwidth, " + std::to_string(P) + " IPUs (ring-on-line)", bus, 2, "GB/s", slowest,
                    "[D] S11: the ring's slowest connection (2 rail links)"});
  return r;
}

// ============================== the host link ==============================
//
// The host's transactions over its link (sim/HostLink.h, TLM-2.0) as a host sync makes them: 4 KiB
// to (or from) each tile of ipu0, one after another; on a gateway config also each tile's 4 KiB
// into a remote buffer. Bandwidth: the bytes over the time from the first transaction's start to
// the last one's end (its latency included once).
std::vector<Result> hostBench(const Env &env) {
  sim::System system(env.cfg, env.tiles);
  sim::HostLink link("bench_host_link", system);
  sim::HostPort port("bench_host");
  port.socket.bind(link.socket);
  const bool gateway = env.cfg.host.streamingMemoryBytes > 0;
  constexpr unsigned kBytes = 4096;
  const unsigned buffer = gateway ? link.addRemoteBuffer("bench", uint64_t(kBytes) * env.tiles) : 0;
  const double peak = env.cfg.host.bytesPerSecondPerDirection / 1e9, clock = env.cfg.ipu.clockHz;
  std::vector<uint8_t> data(kBytes);
  std::vector<Result> out;
  auto measure = [&](const std::string &id, const std::string &metric, bool write, bool remote) {
    link.resetTiming();
    sc_core::sc_time last = sc_core::SC_ZERO_TIME;
    for (unsigned t = 0; t < env.tiles; ++t) {
      for (unsigned k = 0; k < kBytes; ++k) data[k] = uint8_t(t + k);
      last = std::max(last, port.transfer(write, sim::HostAddress::tile(0, t, kIncoming), data.data(), kBytes, link));
      if (remote) port.transfer(true, sim::HostAddress::remote(buffer, uint64_t(kBytes) * t), data.data(), kBytes, link);
    }
    if (write && getWord(system.ipu(0).tile(env.tiles - 1), kIncoming) != (uint32_t(env.tiles - 1) & 0xFF) * 0x01010101u + 0x03020100u)
      throw BenchFailure("host: the last tile did not get its bytes");
    const uint64_t bytes = uint64_t(kBytes) * env.tiles, cycles = uint64_t(std::llround(last.to_seconds() * clock));
    const std::string source = gateway ? "[F] S12, S13: 2 x 100 Gb/s GW-Links per M2000" : "[D] S11: PCIe Gen4 x16, 32 GB/s each way";
    Result r = gigabytesPerSecond(env, id, metric, {{"tiles", env.tiles}}, bytes, cycles, peak, source);
    const double gbs = r.json["gb_per_s"];
    r.rows.push_back({metric, gbs, 2, "GB/s", peak, source});
    out.push_back(std::move(r));
  };
  measure("host.write", "host -> IPU bandwidth (4 KiB a tile)", true, false);
  measure("host.read", "IPU -> host bandwidth (4 KiB a tile)", false, false);
  if (gateway) measure("host.streaming_memory", "tile -> Streaming Memory bandwidth (4 KiB a tile)", false, true);
  else env.skipped.push_back("host.streaming_memory: config '" + env.cfg.name + "' has no Streaming Memory (try --config m2000)");
  return out;
}

// ============================== output ==============================

std::string fixed(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

void printTable(const Env &env, const std::vector<Result> &results) {
  std::vector<std::vector<std::string>> cells = {{"metric", "measured", "unit", "published", "ratio", "source"}};
  for (const Result &r : results)
    for (const Row &row : r.rows) {
      const int pubDigits = row.published && *row.published == std::floor(*row.published) ? 0 : row.digits;
      cells.push_back({row.metric, fixed(row.measured, row.digits), row.unit,
                       row.published ? fixed(*row.published, pubDigits) : "n/a",
                       row.published ? fixed(row.measured / *row.published, 3) : "n/a", row.source});
    }
  std::vector<size_t> width(6, 0);
  for (const auto &line : cells)
    for (size_t i = 0; i < 6; ++i) width[i] = std::max(width[i], line[i].size());
  std::printf("ipusim bench: %s, %u of %u tiles, clock %.4g GHz; per IPU = B/cycle/tile x %u tiles x clock\n",
              env.cfg.name.c_str(), env.tiles, env.cfg.ipu.tiles, env.cfg.ipu.clockHz / 1e9, env.cfg.ipu.tiles);
  for (size_t l = 0; l < cells.size(); ++l) {
    const auto &line = cells[l];
    std::string s;
    for (size_t i = 0; i < 6; ++i) {
      const bool right = l > 0 && (i == 1 || i == 3 || i == 4);
      std::string cell = line[i];
      const std::string pad(width[i] - cell.size(), ' ');
      s += (right ? pad + cell : cell + (i + 1 < 6 ? pad : std::string())) + (i + 1 < 6 ? "  " : "");
    }
    std::printf("%s\n", s.c_str());
    if (l == 0) {
      size_t total = 0;
      for (size_t w : width) total += w + 2;
      std::printf("%s\n", std::string(total - 2, '-').c_str());
    }
  }
  // The bandwidth windows are whole BSP phases (launch, first word's flight and last word's write
  // included); the exchange's rate from a receiver's first write to its last leaves those out.
  std::printf("\nexchange streaming rate, first to last write of the slowest receiver:");
  for (const Result &r : results)
    if (r.json.contains("streaming_bytes_per_cycle_per_tile"))
      std::printf(" %s %.3f", r.id.substr(r.id.find('.') + 1).c_str(),
                  r.json["streaming_bytes_per_cycle_per_tile"].get<double>());
  std::printf(" B/cycle/tile\nwindows, programs and sources: docs/bench.md\n");
  for (const std::string &s : env.skipped) std::printf("skipped: %s\n", s.c_str());
}

} // namespace

int runBench(const BenchOptions &o) {
  Env env;
  try {
    env.cfg = arch::loadConfigArgument(o.config);
  } catch (const std::exception &e) {
    arch::printToolError("ipusim bench", e.what());
    return 1;
  }
  env.tiles = o.tiles ? o.tiles : env.cfg.ipu.tiles;
  if (env.tiles < 4 || env.tiles > env.cfg.ipu.tiles) {
    std::fprintf(stderr, "ipusim bench: error: --tiles %u is not in [4, %u]\n", env.tiles, env.cfg.ipu.tiles);
    return 1;
  }
  env.threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());

  std::vector<Result> results;
  std::string current;
  try {
    current = "memory.read";
    results.push_back(memoryBench(env, Access::Read));
    current = "memory.write";
    results.push_back(memoryBench(env, Access::Write));
    current = "memory.read_write";
    results.push_back(memoryBench(env, Access::ReadWrite));
    current = "exchange.neighbour32";
    results.push_back(neighbourBench(env, false));
    current = "exchange.pair64";
    results.push_back(neighbourBench(env, true));
    current = "exchange.all_to_all";
    results.push_back(allToAllBench(env));
    current = "exchange.latency";
    for (Result &r : latencyBench(env)) results.push_back(std::move(r));
    current = "sync.internal";
    results.push_back(syncBench(env));
    current = "host";
    for (Result &r : hostBench(env)) results.push_back(std::move(r));
    if (env.cfg.ipus > 1) {
      current = "link";
      for (Result &r : linkBench(env)) results.push_back(std::move(r));
      current = "sync.external";
      results.push_back(externalSyncBench(env));
      current = "link.allreduce";
      results.push_back(allReduceBench(env));
    } else {
      env.skipped.push_back("link.*, sync.external: config '" + env.cfg.name + "' has one IPU (try --config m2000)");
    }
  } catch (const sim::SimException &e) {
    std::fprintf(stderr, "ipusim bench: %s: simulated exception: %s\n", current.c_str(), e.what());
    return 2;
  } catch (const std::exception &e) { // DeadlockError, ExchangeError, BenchFailure, assembly errors
    std::fprintf(stderr, "ipusim bench: %s: %s\n", current.c_str(), e.what());
    return 2;
  }

  if (o.json) {
    Json j;
    j["config"] = env.cfg.name;
    j["tiles"] = env.tiles;
    j["ipu_tiles"] = env.cfg.ipu.tiles;
    j["clock_hz"] = env.cfg.ipu.clockHz;
    Json &r = j["results"];
    for (const Result &res : results) r[res.id] = res.json;
    j["skipped"] = env.skipped;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    printTable(env, results);
  }
  return 0;
}

} // namespace ipusim::tools
