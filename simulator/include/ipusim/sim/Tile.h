// One tile: memory, the supervisor and six worker contexts, and the instruction-set simulator with
// the barrel-threaded timing of ipu-facts §2.1 and asm-dialect §3.4 (docs/tile-timing.md).
#pragma once

#include "ipusim/arch/Config.h"
#include "ipusim/arch/Half.h"
#include "ipusim/arch/Isa.h"
#include "ipusim/sim/SimException.h"
#include "ipusim/sim/TileMemory.h"
#include "ipusim/sim/Trace.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace ipusim::sim {

struct Context;
struct Op;
class Tile;

/// Executes one decoded instruction. Handlers live in src/semantics/*.cpp.
using Handler = void (*)(Tile &, Context &, const Op &);

/// A decoded instruction: the table row, its operand values and its handler.
struct Op {
  Handler fn = nullptr;
  const arch::InsnDesc *desc = nullptr;
  uint32_t word = 0;
  int32_t v[arch::kMaxOperands] = {}; ///< decodeOperand() of each operand
  arch::OperandKind kind[arch::kMaxOperands] = {}; ///< each operand's kind (saves a table look-up)
  uint8_t arf = 0;     ///< bit i: operand i is an ARF register (group)
  uint8_t dstRegs = 0; ///< registers operand 0 spans
  // Precomputed at decode time for the timing model:
  uint16_t readsM = 0, writesM = 0; ///< MRF registers read / written (bit r = $mr; $m15 never)
  uint16_t readsA = 0, writesA = 0; ///< ARF registers read / written
  uint8_t modes = 0;                ///< arch::ModeMask the instruction may run in
  bool nop = false;                 ///< nop / fnop: nothing to execute
  bool loopSafe = false;            ///< may run in a batched rpt body (not control or system)
  bool aheadSafe = false;           ///< a worker may run it ahead of the other contexts (loopSafe,
                                    ///< or a branch on its own registers: docs/tile-timing.md)
  bool paceLoadStore = false;       ///< ld2xst64pace (the AMP kernels' main instruction: Tile::runPaceLoop)
  bool supervisorAhead = false;     ///< the supervisor may run it ahead while no worker runs: aheadSafe,
                                    ///< a supervisor instruction alone, of the normal issue cost
  bool auxPipe = false;             ///< an aux-pipe instruction other than uget/uput: reads and writes
                                    ///< only the ARF, the AMP's and accumulators' state and the PRNG
                                    ///< (no memory, no MRF, no CSR)
  enum Delay : uint8_t { Normal, RunWorker, PutCccsload } delay = Normal; ///< supervisor issue cost
};

/// True unless IPUSIM_HOST_VECTOR is 0 or the host lacks the units that the handlers written for
/// its vector units need (AVX2 and F16C on x86-64; elsewhere there are none): the fast path then
/// takes those handlers (src/Semantics.h, RegisterHostVector).
bool hostVectorUnits();
/// True where hostVectorUnits() is and the host has AVX-512 (F and VL) too, unless
/// IPUSIM_HOST_VECTOR is avx2: the AMP's pace-loop executor then does both sets' sixteen sums in
/// one register (the same bits as the AVX2 one, which the tests run under that setting too).
bool hostWideVectorUnits();

constexpr unsigned kSupervisor = 0; ///< context number of the supervisor; workers are 1..6
constexpr unsigned kBarrelSlots = 6; ///< [F] S3: six execution slots, round-robin

/// Sixteen binary32 accumulators, $AACC[0..15], kept as the AMP uses them: the even ones (an AMP
/// output's running sum, output k's in $AACC[2k]) apart from the odd ones (its pending partial),
/// so that a set's eight sums are eight adjacent floats (one host vector register).
struct alignas(64) Accumulators {
  // Aligned to a cache line, so that the AMP handlers' eight-float loads and stores of each half
  // stay within one line (Context had put $AACC at byte 184, splitting them; aligning it measured
  // no change on BM_AmpLoop, whose cost was a load waiting for narrower stores: sumsFor).
  float v[16] = {}; ///< $AACC[2k] at v[k], $AACC[2k+1] at v[8 + k]
  float &operator[](unsigned i) { return v[(i & 1) * 8 + i / 2]; }
  const float &operator[](unsigned i) const { return v[(i & 1) * 8 + i / 2]; }
  float *even() { return v; }
  float *odd() { return v + 8; }
  void zero() { std::fill(std::begin(v), std::end(v), 0.0f); }
};

/// Architectural state of one context.
struct Context {
  unsigned id = 0;
  bool running = false;
  uint32_t pc = 0;
  uint32_t m[16] = {}; ///< MRF; m[15] reads 0
  uint32_t a[16] = {}; ///< ARF; a[14], a[15] read 0
  // Worker CSRs.
  uint32_t wsr = 0, vertexBase = 0, workerBase = 0;
  uint32_t fpCtl = 0, fpSts = 0, tas = 0, prng[4] = {}, prngSeed = 0;
  Accumulators aacc;    ///< $AACC
  float ampResults[8] = {}; ///< the AMP's finished set, read out two an issue (docs/tile-timing.md)
  Accumulators ampB;    ///< the second AMP set of the 16-output forms (hidden), laid out as $AACC
  float ampResultsB[8] = {};
  uint8_t ampPair = 0; ///< the pair the next issue moves: partials in, results out
  // Supervisor CSRs.
  uint32_t cccsload = 0, fpIctl = 0;
  // Zero-overhead loop state (rpt).
  uint32_t rptCount = 0, rptStart = 0, rptEnd = 0;
  int exitStatus = -1; ///< worker: 0 after exitz (true), 1 after exitnz (false) ...
  // Timing.
  uint64_t ready = 0;           ///< earliest tile cycle of the next issue
  uint64_t regReady[16] = {};   ///< supervisor: cycle each MRF register's value is available
  uint64_t exitCycle = 0;
  bool waitingSync = false;     ///< supervisor: in `sync` LOCAL until the workers have exited
  unsigned ipuSyncZone = 0;     ///< supervisor: waiting in an IPU-wide sync (zone 3, INTERNAL)
  uint64_t syncCycle = 0;
  uint64_t ansCycle = 0;        ///< supervisor: one past the cycle of an armed `sans`, or 0
  // Results of the current instruction that timing needs.
  bool branchTaken = false;
  uint64_t extraWorkerCycles = 0; ///< multi-cycle FP ops and memory conflicts (instructions only add to it)
  unsigned extraSupervisorCycles = 0; ///< send and delay keep the supervisor busy
  // Stats.
  uint64_t bundles = 0, stallCycles = 0;
  uint64_t accountedUntil = 0; ///< worker turns before this cycle were accounted by a batched rpt
  // Writes to the ARF by the main instruction of a bundle wait until the aux one has read.
  bool deferArf = false;
  unsigned deferredCount = 0;
  uint8_t deferredIndex[4];
  uint32_t deferredValue[4];

  void setM(unsigned r, uint32_t v) {
    if (r != 15) m[r] = v;
  }
  void setA(unsigned r, uint32_t v) { storeA(r, v); }
  /// setA of a binary32 value, stored from the host's FP register (not through an integer one: a
  /// dependent chain of f32 instructions then waits for one store-to-load forwarding an issue).
  void setAFloat(unsigned r, float v) { storeA(r, v); }

private:
  /// $aR = the 32 bits of v, or later if the aux instruction has yet to read (deferArf).
  template <class T> void storeA(unsigned r, T v) {
    static_assert(sizeof(T) == 4);
    if (r >= 14) return;
    if (deferArf) {
      deferredIndex[deferredCount] = uint8_t(r);
      std::memcpy(&deferredValue[deferredCount++], &v, 4);
    } else {
      std::memcpy(&a[r], &v, 4);
    }
  }
};

/// A worker bundle as Tile::runAhead runs it, worked out once from its decoded words (its main
/// instruction's Op and, when it co-issues, the next word's): which of the two handlers run (nop
/// and fnop halves do nothing), and whether the main instruction's ARF writes must wait for the
/// aux one's reads (Tile::execute).
struct AheadBundle {
  uint64_t words = 0;   ///< the words it was made from, as memory holds them (main's first)
  uint8_t size = 0;     ///< 4 or 8 bytes; 0: not made (its aux word not yet decoded)
  bool ahead = false;   ///< a worker may run it ahead (both halves aheadSafe, worker instructions)
  bool deferred = false;
  uint8_t calls = 0;    ///< bit 0: main's handler runs, bit 1: aux's (after main's)
  uint32_t mainWord() const {
    uint32_t w;
    std::memcpy(&w, &words, sizeof w);
    return w;
  }
  static AheadBundle make(const Op &main, const Op *aux);
};

/// A straight run of a worker's bundles as Tile::runAhead runs it: the bundles from `pc` up to
/// and including the first branch (or the first bundle it may not run ahead, left out), each one
/// or two handler calls. Made once from the decode cache's bundles and kept with a copy of
/// memory's words, which are compared whole before each run (as runAhead compares each bundle's):
/// the run then needs no lookup, test or state update a bundle beyond the calls themselves.
struct AheadBlock {
  static constexpr unsigned kMaxBundles = 24;
  /// One bundle's calls (a batched rpt body's too, Tile::runRepeatBatch): fn0 nullptr and op0
  /// set, a deferred bundle (run by Tile::execute); both nullptr, a bundle of two nops; fn1
  /// nullptr, one call.
  struct Step {
    Handler fn0, fn1;
    const Op *op0, *op1;
    uint32_t pc;
    uint8_t size;
    /// The calls of the bundle at pc, made as `b` from its instructions main and aux.
    static Step of(const AheadBundle &b, const Op *main, const Op *aux, uint32_t pc) {
      Step s{nullptr, nullptr, nullptr, nullptr, pc, b.size};
      if (b.deferred) {
        s.op0 = main, s.op1 = aux;
      } else if (b.calls) {
        s.op0 = (b.calls & 1) ? main : aux;
        s.op1 = b.calls == 3 ? aux : nullptr;
        s.fn0 = s.op0->fn;
        s.fn1 = s.op1 ? s.op1->fn : nullptr;
      }
      return s;
    }
  };
  uint32_t pc = 1;    ///< its first bundle's
  uint32_t bytes = 0; ///< the code it was made from: [pc, pc + bytes)
  unsigned bundles = 0;
  Step steps[kMaxBundles];
  uint8_t code[8 * kMaxBundles];
};

/// Decoded instructions of the executable region, in chunks allocated as code is decoded (an
/// IPU holds 1472 of these). Loading an image decodes its code; tiles loaded with the same image
/// share one cache (shareDecodeCache). A shared cache is never written, since its tiles may run on
/// different host threads: a tile that must decode a word (it stored into its code, or runs a
/// word never decoded) first takes a private copy.
///
/// An entry points at its word's decoded form, which the process keeps once for every tile that
/// holds the word (Tile::decodeWord): a Poplar program's tiles each have code of their own (the
/// MNIST step's 1,460 tiles 66 MB, 16 million words, about 120,000 of them distinct), so 64-byte
/// forms copied into every entry had made the caches a gigabyte, most of which each step read
/// cold. Past the process's table's bound (a fuzzer's random words) a cache keeps the forms of
/// the words it decodes itself (`own`).
struct DecodeCache {
  static constexpr unsigned kChunkWords = 256;
  /// A word's decoded instruction and the worker bundle starting at it, made when its words are
  /// decoded (store), so the tiles sharing the cache find it ready; checked against memory's
  /// words before each use. Running ahead reads the bundle, then its Ops (a pair's aux is the
  /// next entry's: a pair whose second word starts a chunk is left unmade).
  struct Entry {
    const Op *op = nullptr; ///< nullptr: not decoded
    AheadBundle bundle;
  };
  struct Chunk {
    Entry entries[kChunkWords];
  };
  std::vector<std::unique_ptr<Chunk>> chunks;
  std::deque<Op> own;          ///< forms decoded past the process's table's bound (Tile::decodeWord)
  bool vectorHandlers = false; ///< decoded for the handlers on the host's vector units (Tile::decodeWord)

  DecodeCache() = default;
  DecodeCache(const DecodeCache &other);
  DecodeCache &operator=(const DecodeCache &) = delete;
  /// The entry of word `i` if it was decoded, else nullptr.
  const Op *find(uint32_t i) const {
    const Chunk *c = chunks[i / kChunkWords].get();
    return c ? c->entries[i % kChunkWords].op : nullptr;
  }
  /// Notes `op` (the process's, or one of `own`) as word i's decoded form; returns it.
  const Op *store(uint32_t i, const Op *op);
  /// Makes (or clears) the bundle starting at word i from the decoded words i and i + 1.
  void makeBundle(uint32_t i);
};

/// What a tile's supervisor did on the exchange during one phase (between IPU-wide syncs), for the
/// IPU to resolve at the sync (DESIGN decision 3).
struct ExchangeLog {
  /// A word sent (or a 64-bit item, its second word in hi).
  struct Send {
    uint32_t lo, hi;
  };
  /// A send instruction: its words leave the tile one a cycle from its issue on (the supervisor
  /// waits for the last), so the phase's instructions are in cycle order and never overlap.
  struct Instruction {
    uint64_t cycle;  ///< the send's issue, when its first word leaves; word k leaves at cycle + k
    uint32_t addr;   ///< its first word's address
    uint32_t words;  ///< words, or 64-bit items
    uint32_t first;  ///< its first word's index in `sends`
    uint8_t sctl;    ///< bit 0 east, bit 1 west, bit 2 64-bit ([RE] S9, S8 DATAFMT_SEND_SCTL3)
    bool wide() const { return sctl & 4; }
  };
  /// A CSR put: packed to 12 bytes (16 with the cycle's alignment), since an MNIST training step
  /// puts 6.6 million, each tile's written in turn and read once at the sync, so that writing them
  /// is a matter of the host's cache misses (2% of the step's host time with the 16 bytes).
  struct __attribute__((packed, aligned(4))) Setting {
    uint64_t cycle;
    uint32_t value;
  };
  std::vector<Send> sends;               ///< the instructions' words, in order (8 bytes each:
                                         ///< a training step sends millions)
  std::vector<Instruction> instructions; ///< the send instructions of the phase
  /// Puts to $INCOMING_MUX, _MUXPAIR (which also sets the pair partner's mux a cycle later),
  /// _FORMAT, _BASE and _DELTA (a sync also sets the delta, from $INCOMING_SINIT).
  std::vector<Setting> mux, muxPair, format, base, delta;
  uint32_t muxAtStart = 0x7FF, formatAtStart = 0, baseAtStart = 0, deltaAtStart = 0; ///< when the phase began
  void clear() {
    sends.clear();
    instructions.clear();
    mux.clear();
    muxPair.clear();
    format.clear();
    base.clear();
    delta.clear();
  }
};

/// Statistics of one run.
struct TileStats {
  uint64_t cycles = 0;
  uint64_t bundles[7] = {}, stallCycles[7] = {};
  uint64_t syncWaitCycles = 0;             ///< from each IPU-wide or external sync to its release
  uint64_t wordsSent = 0, wordsReceived = 0; ///< exchange words (a multicast word counts once sent)
};

/// A trace event of one tile, with the context it belongs to (for the canonical order).
struct TileEvent {
  unsigned context;
  TraceEvent event;
  uint64_t seq = 0; ///< the tile's count of events before it (the order they happened)
};

class TraceSpool;

class Tile {
public:
  /// Bytes of stack each worker gets below its default $mworker_base (see the constructor).
  static constexpr uint32_t kDefaultWorkerStackBytes = 2048;
  Tile(const arch::TileConfig &config, unsigned ipu = 0, unsigned tileId = 0);

  TileMemory &memory() { return memory_; }
  /// Decodes the words of [from, to) (an image's code) into the tile's decode cache.
  void predecode(uint32_t from, uint32_t to);
  /// The decode cache, to share with other tiles whose code memory holds the same image.
  const std::shared_ptr<DecodeCache> &decodeCache() const { return decoded_; }
  /// (A cache decoded for the other path's handlers is not taken: the tile keeps its own.)
  void shareDecodeCache(std::shared_ptr<DecodeCache> cache) {
    if (cache->vectorHandlers == decoded_->vectorHandlers) {
      decoded_ = std::move(cache);
      dropAheadBlocks();
    }
  }
  const arch::TileConfig &config() const { return config_; }
  Context &context(unsigned i) { return ctx_[i]; }
  uint64_t cycle() const { return cycle_; }
  unsigned tileId() const { return tileId_; }

  /// Maps addresses to source locations for exception reports (may be empty).
  void setSourceLookup(std::function<std::string(uint32_t)> lookup) { source_ = std::move(lookup); }
  /// Off: every cycle is stepped and every bundle issued one at a time (no batched rpt loops, no
  /// skipped idle cycles), and the handlers are the portable ones rather than those on the host's
  /// vector units. The results are the same either way; the tests compare them.
  void setFastPaths(bool on);
  /// Calls `report(cycle)` each time the tile passes another `every` cycles (a progress display
  /// for long runs; nothing else depends on it).
  void setProgress(std::function<void(uint64_t)> report, uint64_t every) {
    progress_ = std::move(report);
    progressEvery_ = std::max<uint64_t>(every, 1);
    progressAt_ = progress_ ? cycle_ + progressEvery_ : UINT64_MAX;
  }
  /// Names the function symbol at an address, or "" (for vertex events in traces).
  void setSymbolLookup(std::function<std::string(uint32_t)> lookup) { symbol_ = std::move(lookup); }
  /// Trace events (docs/trace-format.md): `events` records starts, exits, syncs and sends;
  /// `instructions` also records every issue (and turns off the batched rpt loops: same results).
  void setTracing(bool events, bool instructions) {
    tracing_ = events || instructions;
    traceIssues_ = instructions;
  }
  bool tracing() const { return tracing_; }
  /// The events recorded since the last clear, in the order they happened per context.
  std::vector<TileEvent> &traceEvents() { return events_; }
  /// Records an event of context `context` (kSupervisor or a worker 1..6) at cycle `cycle`.
  TraceEvent &traceEvent(uint64_t cycle, unsigned context, const char *name);
  /// Long traces: once `limit` events are held, they go to `spool` as a run (part `part` of the
  /// canonical order: the tile's number + 1). nullptr keeps every event in memory.
  void setTraceSpool(TraceSpool *spool, uint32_t part, size_t limit) {
    spool_ = spool;
    spoolPart_ = part;
    spoolLimit_ = std::max<size_t>(limit, 1);
  }
  /// The held events with their place in the canonical order (and none held after).
  std::vector<struct KeyedEvent> takeKeyedEvents();

  /// Starts the supervisor at `pc` with $m0 = `m0` and $lr = the halt address, and runs until it
  /// returns there. Throws SimException (also for a sync beyond LOCAL, which needs an Ipu).
  TileStats runSupervisor(uint32_t pc, uint32_t m0, uint64_t maxCycles = 1ull << 34);

  // ---- resumable runs, for an IPU of tiles (ipusim/sim/Ipu.h) ----
  enum class Stop { Returned, Sync };
  /// Resets the contexts and puts the supervisor at `pc` with $m0 = `m0`, at cycle 0.
  void start(uint32_t pc, uint32_t m0);
  /// Runs until the supervisor returns, or issues an IPU-wide sync (then syncCycle() is its cycle).
  Stop run(uint64_t maxCycles);
  uint64_t syncCycle() const { return ctx_[0].syncCycle; }
  unsigned syncZone() const { return ctx_[0].ipuSyncZone; }
  /// Ends the supervisor's sync: it issues again from cycle `release`.
  void releaseSync(uint64_t release);
  /// Counts exchange words for the statistics (the IPU resolves the exchange).
  void countExchange(uint64_t sent, uint64_t received) {
    wordsSent_ += sent;
    wordsReceived_ += received;
  }
  TileStats stats() const;
  /// Bundles the pace-loop executor ran since the tile was made (Tile::runPaceLoop), and of them
  /// those its form on the host's vector units ran (vectorPaceAmpLoop): for tests and profiles.
  uint64_t paceLoopBundles() const { return paceLoopBundles_; }
  uint64_t vectorLoopBundles() const { return vectorLoopBundles_; }
  /// The address the supervisor returns to when a run is done (outside tile memory).
  static constexpr uint32_t kHaltAddress = 0x1FFFFC;
  /// A small boot program outside tile memory: `setzi; setzi; run|runall; sync; br $lr`, which
  /// starts a worker entry the way Poplar's dispatcher does. Returns its address.
  uint32_t installWorkerLauncher(uint32_t entry, uint32_t vertexBase, bool allWorkers);
  /// "ipuI.tileT.supervisor" or "ipuI.tileT.workerW" (W = context - 1), as in stats and traces.
  std::string contextName(unsigned context) const;
  unsigned ipu() const { return ipu_; }

  // ---- used by the semantics ----
  [[noreturn]] void raise(const Context &c, const std::string &reason);
  /// Checks an access's range and alignment (raising the exception if either is wrong).
  uint32_t loadAddress(const Context &c, uint32_t addr, unsigned bytes) {
    if (!memory_.contains(addr, bytes) || addr % bytes) [[unlikely]]
      badAccess(c, addr, bytes);
    return addr;
  }
  /// Notes an instruction's store at addr (after loadAddress's checks): one into code stops
  /// runAhead's block where memory no longer holds the block's words.
  void noteStore(uint32_t addr) {
    if (addr < memory_.executableEnd()) [[unlikely]]
      codeStored_ = true;
  }
  /// Memory-element conflict tracking within one bundle (inline: every access of a pace bundle).
  void noteAccess(uint32_t addr) {
    const uint32_t e = memory_.element(addr);
    for (unsigned i = 0; i < accessCount_; ++i)
      if (accessElements_[i] == e) [[unlikely]] {
        // Two accesses of one instruction to one element take an extra cycle (ipu-facts §2.4 [I];
        // the stall is the named parameter tile.timing.memory_conflict_stall).
        Context &c = ctx_[issueContext_];
        c.extraWorkerCycles += stallTurns();
      }
    if (accessCount_ < 3) accessElements_[accessCount_++] = e;
  }
  void startWorker(Context &sup, unsigned worker, uint32_t entry, uint32_t vertexBase);
  uint64_t now() const { return cycle_; }
  bool anyWorkerRunning() const;
  uint64_t lastWorkerExit() const;
  /// The AMP's common weights: $CWEI_n_m is entry 4n+m, four f16 weights (or two f32).
  const uint64_t *commonWeights() const { return cwei_; }
  /// The f16 weights of phase m's lane i for the 16 outputs n (entries 4n+m) as floats, and the
  /// f32 weights of input j (word j%2 of entries 4n+j/2): kept beside the entries in the order
  /// the AMP's dot products take them, four outputs at a time.
  const float *ampHalfWeights(unsigned m, unsigned i) const { return cweiHalf_[m][i]; }
  const float *ampFloatWeights(unsigned j) const { return cweiFloat_[j]; }
  /// True if a $CWEI entry holds a NaN: read as four halves (the f16 forms' weights), or as two
  /// floats (the f32 forms').
  bool ampWeightsHaveNaN(bool floats) const { return (floats ? cweiFloatNaN_ : cweiHalfNaN_) != 0; }
  void setCommonWeight(unsigned i, uint64_t value) {
    float halves[4];
    for (unsigned k = 0; k < 4; ++k) halves[k] = arch::halfToFloat(uint16_t(value >> (16 * k)));
    storeCommonWeight(i, value, halves);
  }
  /// setCommonWeight with the halves converted by the host's F16C where hostVectorUnits() (the
  /// fast path's ld64putcs and ld128putcs): the same floats for every value but a NaN, which
  /// takes halfToFloat (F16C would quiet a signalling one).
  void setCommonWeightOnHost(unsigned i, uint64_t value);
  ExchangeLog &exchange() { return exchange_; }
  /// Set by an Ipu: the tile's sends have receivers (a lone tile's send is an exception).
  void setInIpu(bool on) { inIpu_ = on; }
  bool inIpu() const { return inIpu_; }
  /// The supervisor's exchange CSRs ([F] S2, indices in arch/src/Registers.cpp).
  uint32_t incomingMux = 0x7FF, incomingFormat = 0, incomingBase = 0, incomingDelta = 0, incomingSinit = 0,
           outgoingBase = 0;
  /// The outgoing stream sendpic continues: the address after the last send's words, its sctl.
  uint32_t outgoingNext = 0;
  uint8_t outgoingSctl = 0;

private:
  arch::TileConfig config_;
  unsigned ipu_, tileId_;
  TileMemory memory_;
  Context ctx_[7];
  uint64_t cycle_ = 0;
  std::shared_ptr<DecodeCache> decoded_; ///< one entry per word of the executable region
  std::vector<Op> bootOps_;          ///< the launcher program
  uint32_t bootBase_ = 0x1FFF00;     ///< its address (outside tile memory)
  std::function<std::string(uint32_t)> source_;
  std::function<std::string(uint32_t)> symbol_;
  std::function<void(uint64_t)> progress_;
  uint64_t progressEvery_ = 0, progressAt_ = UINT64_MAX;
  bool tracing_ = false, traceIssues_ = false;
  std::vector<TileEvent> events_;
  uint64_t eventSeq_ = 0;
  TraceSpool *spool_ = nullptr;
  uint32_t spoolPart_ = 1;
  size_t spoolLimit_ = 0;
  uint64_t syncWaitCycles_ = 0, wordsSent_ = 0, wordsReceived_ = 0;
  uint64_t paceLoopBundles_ = 0, vectorLoopBundles_ = 0;
  uint32_t accessElements_[3];       ///< elements touched by the current bundle
  unsigned accessCount_ = 0;
  bool fastPaths_ = true;
  uint32_t issuePc_ = 0;             ///< pc of the instruction being executed
  unsigned issueContext_ = 0;
  ExchangeLog exchange_;
  bool inIpu_ = false;
  uint64_t maxCycles_ = UINT64_MAX;  ///< the current run's limit (no issue at or after it)
  /// Per context, an exception met while it ran ahead: raised when the tile reaches its cycle, so
  /// that an earlier exception of another context comes first, as it would cycle by cycle.
  std::exception_ptr pendingFault_[7];
  /// runAhead's blocks, direct-mapped by pc: slot i's block starts at aheadBlockPc_[i] (1: none),
  /// and aheadBlockSeen_[i] is the pc last looked for there (Tile::aheadBlock). Allocated on the
  /// first block; forgotten where the decode cache changes (their Ops may be its own).
  static constexpr unsigned kAheadBlockSlots = 16;
  std::vector<AheadBlock> aheadBlocks_;
  uint32_t aheadBlockPc_[kAheadBlockSlots], aheadBlockSeen_[kAheadBlockSlots];
  void dropAheadBlocks() {
    for (unsigned i = 0; i < kAheadBlockSlots; ++i) aheadBlockPc_[i] = aheadBlockSeen_[i] = 1;
  }
  bool codeStored_ = false; ///< an instruction stored into the executable region (runAhead's blocks)
  uint64_t aheadTurnsBound_ = 1; ///< the most turns one worker bundle can take (Tile::aheadBlock)
  /// Entry i of the common weights, its halves as floats `halves`.
  void storeCommonWeight(unsigned i, uint64_t value, const float (&halves)[4]) {
    cwei_[i] = value;
    cweiHalfNaN_ = (cweiHalfNaN_ & ~(1ull << i)) | uint64_t(arch::halvesHaveNaN(value)) << i;
    cweiFloatNaN_ = (cweiFloatNaN_ & ~(1ull << i)) | uint64_t(arch::floatsHaveNaN(value)) << i;
    const unsigned n = i / 4, m = i % 4;
    for (unsigned k = 0; k < 4; ++k) cweiHalf_[m][k][n] = halves[k];
    for (unsigned k = 0; k < 2; ++k) {
      const uint32_t word = uint32_t(value >> (32 * k));
      std::memcpy(&cweiFloat_[2 * m + k][n], &word, 4);
    }
  }
  uint64_t cwei_[64] = {};           ///< AMP common weights: $CWEI_n_m (entry 4n+m) holds four halves
  uint64_t cweiHalfNaN_ = 0, cweiFloatNaN_ = 0; ///< bit i: entry i holds a NaN (ampWeightsHaveNaN)
  alignas(64) float cweiHalf_[4][4][16] = {}; ///< the same as floats (ampHalfWeights)
  alignas(64) float cweiFloat_[8][16] = {};   ///< (ampFloatWeights)

  const Op &fetch(Context &c, uint32_t pc);
  /// Word `word`'s decoded form on this tile's path (the process keeps each once; see DecodeCache).
  const Op *decodeWord(uint32_t word);
  /// The decoding itself; `vectorHandlers`: the handlers on the host's vector units where there are.
  static Op decodeWordAfresh(uint32_t word, bool vectorHandlers);
  void issue(Context &c);
  /// Executes one issue's instructions (nullptr: none there, or a nop left out).
  void execute(Context &c, const Op *main, const Op *aux, bool defer);
  /// The supervisor's first cycle at which every source register of `op` is written back.
  uint64_t sourcesReady(const Context &sup, const Op &op) const {
    uint64_t need = 0;
    for (uint32_t r = op.readsM; r; r &= r - 1) need = std::max(need, sup.regReady[__builtin_ctz(r)]);
    return need;
  }
  /// A worker's whole rpt loop; returns its worker turns. Where a bundle raises, the exception
  /// waits for that bundle's issue cycle (pendingFault_), the turns returned those before it.
  uint64_t runRepeatBatch(Context &c);
  /// Where a batched rpt loop's bundle raised: the bundles before it and their extra turns, as
  /// runPaceLoop says (pace) or runRepeatBatch works out.
  struct BatchFault {
    uint64_t bundles = 0, turns = 0;
    bool pace = false;
  };
  /// runRepeatBatch for a body of { ld2xst64pace ; aux } bundles (the matmul and convolution
  /// kernels' loop, the two-stream element-wise loop); false if the body is not one or an access
  /// could fault (then the general batch runs it). Adds the loop's memory-conflict turns to
  /// c.extraWorkerCycles; where an aux instruction raises, fills `fault` before the exception
  /// goes on.
  bool runPaceLoop(Context &c, BatchFault &fault);
  /// The worker turns a memory-element conflict costs (tile.timing.memory_conflict_stall).
  uint64_t stallTurns() const { return (config_.timing.memoryConflictStallCycles + kBarrelSlots - 1) / kBarrelSlots; }
  void runAhead(Context &c);           ///< a worker's next issues, as far as they are its own business
  void supervisorAhead(Context &sup);  ///< the supervisor's, while no worker runs
  void skipIdleCycles();
  [[noreturn]] void badAccess(const Context &c, uint32_t addr, unsigned bytes);
  /// The decoded instruction at pc, or nullptr if pc is not fetchable. The common case, a word of
  /// code decoded before and unchanged since, is inline; peekSlow does the rest.
  const Op *peek(uint32_t pc) {
    if (!(pc & 3) && memory_.executable(pc)) [[likely]] {
      const uint32_t i = (pc - memory_.base()) / 4;
      if (const Op *op = decoded_->find(i); op && op->word == memory_.read<uint32_t>(pc)) [[likely]]
        return op;
    }
    return peekSlow(pc);
  }
  const Op *peekSlow(uint32_t pc);
  /// What the run-ahead loops need to find a decoded entry, copied out so that the loops keep it
  /// in host registers across the handlers' calls (which change none of it: memory's layout is
  /// fixed, and the decode cache changes only where peek decodes, after which a loop takes its
  /// chunks again).
  struct AheadLookup {
    uint32_t base, codeBytes;  ///< memory's base; the executable region's size
    const uint8_t *bytes;      ///< memory's host bytes
    const std::unique_ptr<DecodeCache::Chunk> *chunks;
    /// The decode cache's entry at pc if it has made the bundle there and memory still holds its
    /// words (its aux instruction is the next entry's), else nullptr (then peek decodes them).
    const DecodeCache::Entry *at(uint32_t pc) const {
      const uint32_t offset = pc - base; // (below base: a large offset)
      if ((pc & 3) || offset >= codeBytes) return nullptr;
      const DecodeCache::Chunk *chunk = chunks[offset / (4 * DecodeCache::kChunkWords)].get();
      if (!chunk) return nullptr;
      const DecodeCache::Entry &e = chunk->entries[offset / 4 % DecodeCache::kChunkWords];
      if (e.bundle.size == 8) [[likely]] { // (compiled code is pairs)
        uint64_t words;
        std::memcpy(&words, bytes + offset, sizeof words);
        return offset + 4 < codeBytes && e.bundle.words == words ? &e : nullptr;
      }
      uint32_t word;
      std::memcpy(&word, bytes + offset, sizeof word);
      return e.bundle.size && e.bundle.mainWord() == word ? &e : nullptr;
    }
  };
  AheadLookup aheadLookup() const {
    return {memory_.base(), memory_.executableEnd() - memory_.base(), memory_.at(memory_.base()), decoded_->chunks.data()};
  }
  /// The block starting at pc, made from the decode cache if not held (nullptr: none can start
  /// there, or the run's cycle limit is near). Inline, the common case: a block held and memory
  /// still holding its words (compared here: blocks are short, and a libc call cost more).
  const AheadBlock *aheadBlock(uint32_t pc, const AheadLookup &lookup, uint64_t at) {
    const unsigned slot = (pc >> 3) % kAheadBlockSlots;
    if (aheadBlockPc_[slot] != pc || (pc & 3)) return makeAheadBlock(pc, lookup, at); // (1: no block)
    const AheadBlock &blk = aheadBlocks_[slot];
    const uint8_t *now = lookup.bytes + (pc - lookup.base);
    uint64_t differ = 0;
    uint32_t i = 0;
    for (; i + 8 <= blk.bytes; i += 8) {
      uint64_t x, y;
      std::memcpy(&x, now + i, 8);
      std::memcpy(&y, blk.code + i, 8);
      differ |= x ^ y;
    }
    if (i < blk.bytes) { // a last single instruction
      uint32_t x, y;
      std::memcpy(&x, now + i, 4);
      std::memcpy(&y, blk.code + i, 4);
      differ |= x ^ y;
    }
    if (differ) [[unlikely]]
      return makeAheadBlock(pc, lookup, at);
    // Each bundle takes at most aheadTurnsBound_ turns (an FP form's and memory conflicts' extra
    // ones): the block runs only where the whole of it would issue before the run's cycle limit.
    return at + kBarrelSlots * aheadTurnsBound_ * blk.bundles < maxCycles_ ? &blk : nullptr;
  }
  /// aheadBlock's other cases: no block held at pc, or memory's words changed.
  const AheadBlock *makeAheadBlock(uint32_t pc, const AheadLookup &lookup, uint64_t at);

  std::string describe(uint32_t pc);
};

} // namespace ipusim::sim
