// The tile: decode cache, the barrel scheduler and the timing rules (docs/tile-timing.md).
#include "ipusim/sim/Tile.h"
#include "ipusim/sim/TraceSpool.h"

#include "Semantics.h"
#include "ipusim/arch/InsnText.h"
#include "ipusim/arch/PackedAddresses.h"
#include "ipusim/arch/Registers.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <optional>
#include <string_view>
#include <unordered_map>

#if defined(__x86_64__) && defined(__clang__)
#include <immintrin.h>
#endif

namespace ipusim::sim {

using namespace ipusim::arch;

std::map<std::string, Handler> &handlerRegistry() {
  static std::map<std::string, Handler> registry;
  return registry;
}

std::map<std::string, Handler> &specialisedRegistry() {
  static std::map<std::string, Handler> registry;
  return registry;
}

SimException::SimException(unsigned ipu_, unsigned tile_, unsigned context_, uint32_t pc_, std::string insn,
                           std::string reason_, std::string source_)
    : std::runtime_error([&] {
        char pcText[16];
        std::snprintf(pcText, sizeof pcText, "0x%05x", pc_);
        std::string who = context_ == kSupervisor ? "supervisor" : "worker " + std::to_string(context_);
        return "ipu " + std::to_string(ipu_) + ", tile " + std::to_string(tile_) + ", context " +
               std::to_string(context_) + " (" + who + "), pc " + pcText + " (" + insn + ")" +
               (source_.empty() ? "" : " at " + source_) + ": " + reason_;
      }()),
      ipu(ipu_), tile(tile_), context(context_), pc(pc_), instruction(std::move(insn)), reason(std::move(reason_)),
      source(std::move(source_)) {}

std::map<std::string, Handler> &hostVectorRegistry() {
  static std::map<std::string, Handler> registry;
  return registry;
}

std::map<std::string, Handler> &fastFormRegistry() {
  static std::map<std::string, Handler> registry;
  return registry;
}

bool hostVectorUnits() {
  static const bool on = [] {
#if defined(__x86_64__) && defined(__clang__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("f16c")) return false;
#endif
    const char *env = std::getenv("IPUSIM_HOST_VECTOR");
    return !(env && std::string(env) == "0");
  }();
  return on;
}

#if defined(__x86_64__) && defined(__clang__)
// Called only where hostVectorUnits() holds (the fast path's host-vector handlers).
__attribute__((target("f16c"))) void Tile::setCommonWeightOnHost(unsigned i, uint64_t value) {
  if (arch::halvesHaveNaN(value)) return setCommonWeight(i, value);
  float halves[4];
  _mm_storeu_ps(halves, _mm_cvtph_ps(_mm_cvtsi64_si128(int64_t(value)))); // exact, as halfToFloat
  storeCommonWeight(i, value, halves);
}
#else
void Tile::setCommonWeightOnHost(unsigned i, uint64_t value) { setCommonWeight(i, value); }
#endif

bool hostWideVectorUnits() {
  static const bool on = [] {
#if defined(__x86_64__) && defined(__clang__)
    __builtin_cpu_init();
    if (!hostVectorUnits() || !__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512vl")) return false;
    const char *env = std::getenv("IPUSIM_HOST_VECTOR");
    return !(env && std::string(env) == "avx2");
#else
    return false;
#endif
  }();
  return on;
}

namespace {

void invalidEncoding(Tile &t, Context &c, const Op &op) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "invalid instruction encoding 0x%08x", op.word);
  t.raise(c, buf);
}

void misalignedGroup(Tile &t, Context &c, const Op &op) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "invalid instruction encoding 0x%08x: misaligned register pair or quad", op.word);
  t.raise(c, buf);
}

void notImplemented(Tile &t, Context &c, const Op &op) {
  t.raise(c, std::string("'") + op.desc->mnemonic + "' is not implemented by the simulator yet");
}

} // namespace

Tile::Tile(const TileConfig &config, unsigned ipu, unsigned tileId)
    : config_(config), ipu_(ipu), tileId_(tileId), memory_(config) {
  for (unsigned i = 0; i < 7; ++i) ctx_[i].id = i;
  // Until a supervisor writes $WORKERn_BASE, worker n's stack ends kDefaultWorkerStackBytes x (n - 1)
  // below the top of tile memory (ours: Poplar's stack placement is not public). Compiled vertices
  // take their frame below $mworker_base (asm-dialect §3.1).
  for (unsigned i = 1; i < 7; ++i) ctx_[i].workerBase = config.memoryEnd() - (i - 1) * kDefaultWorkerStackBytes;
  uint32_t words = 0;
  for (const MemoryRegion &r : config.regions)
    if (r.executable) words = std::max(words, (r.end - config.memoryBase) / 4);
  decoded_ = std::make_shared<DecodeCache>();
  dropAheadBlocks();
  decoded_->chunks.resize((words + DecodeCache::kChunkWords - 1) / DecodeCache::kChunkWords);
  decoded_->vectorHandlers = fastPaths_ && hostVectorUnits();
  // A bundle's turns: its own, an FP form's extra ones for each half, and a turn's worth of
  // conflict for each pair of its (at most three noted) accesses.
  unsigned fp = 1;
  for (const auto &[name, cycles] : config.timing.fpWorkerCycles) fp = std::max(fp, cycles);
  aheadTurnsBound_ = 1 + 2 * (fp - 1) + 3 * stallTurns();
}

namespace {
/// The process's decoded forms, each word's once for each path (DecodeCache's entries point
/// here): made on first use, never freed or moved (an entry's pointer stays good), at most
/// kMaxForms of them (then a cache keeps its own: DecodeCache::own).
class OpTable {
public:
  static constexpr size_t kMaxForms = size_t(1) << 21; // 128 MB of forms at most
  static OpTable &instance() {
    static OpTable table;
    return table;
  }
  /// The form of `key` (the word and the path), made by `decode` if new; nullptr if the table is
  /// full.
  template <class Decode> const Op *find(uint64_t key, Decode decode) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = index_.find(key); it != index_.end()) return it->second;
    if (index_.size() == kMaxForms) return nullptr;
    const Op *op = new (forms_ + index_.size()) Op(decode());
    index_.emplace(key, op);
    return op;
  }
  bool holds(const Op *op) const { return op >= forms_ && op < forms_ + kMaxForms; }

private:
  // Pages of the block are touched only as forms are made; each form a cache line of its own.
  static_assert(sizeof(Op) == 64);
  Op *const forms_ = static_cast<Op *>(::operator new(kMaxForms * sizeof(Op), std::align_val_t(64)));
  std::mutex mutex_;
  std::unordered_map<uint64_t, const Op *> index_;
};
} // namespace

DecodeCache::DecodeCache(const DecodeCache &other) : chunks(other.chunks.size()), vectorHandlers(other.vectorHandlers) {
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (!other.chunks[i]) continue;
    chunks[i] = std::make_unique<Chunk>(*other.chunks[i]); // (bundles hold no pointers)
    for (Entry &e : chunks[i]->entries) // the other cache's own forms: copies of this one's
      if (e.op && !OpTable::instance().holds(e.op)) e.op = &own.emplace_back(*e.op);
  }
}

const Op *DecodeCache::store(uint32_t i, const Op *op) {
  std::unique_ptr<Chunk> &c = chunks[i / kChunkWords];
  if (!c) c = std::make_unique<Chunk>();
  c->entries[i % kChunkWords].op = op;
  // The bundles that hold this word: the one it starts and the one before (its aux half).
  makeBundle(i);
  if (i) makeBundle(i - 1);
  return op;
}

AheadBundle AheadBundle::make(const Op &main, const Op *aux) {
  AheadBundle b;
  const uint32_t words[2] = {main.word, aux ? aux->word : 0};
  std::memcpy(&b.words, words, sizeof b.words);
  b.size = aux ? 8 : 4;
  b.ahead = main.aheadSafe && (main.modes & kWorker) && (!aux || (aux->aheadSafe && (aux->modes & kWorker)));
  b.calls = uint8_t((main.nop ? 0 : 1) | (aux && !aux->nop ? 2 : 0));
  b.deferred = b.calls == 3 && (main.writesA & aux->readsA);
  return b;
}

void DecodeCache::makeBundle(uint32_t i) {
  Chunk *c = chunks[i / kChunkWords].get();
  if (!c) return;
  AheadBundle &b = c->entries[i % kChunkWords].bundle;
  b = AheadBundle{};
  const Op *main = find(i);
  if (!main) return;
  if (!(main->word & kCoissueBit)) {
    b = AheadBundle::make(*main, nullptr);
    return;
  }
  if (i % kChunkWords == kChunkWords - 1) return; // runAhead finds the aux as the next entry
  if (const Op *aux = find(i + 1)) b = AheadBundle::make(*main, aux);
}

void Tile::setFastPaths(bool on) {
  if (on == fastPaths_) return;
  fastPaths_ = on;
  // Words decode to different handlers on the two paths (decodeWord): start a fresh cache.
  auto fresh = std::make_shared<DecodeCache>();
  fresh->chunks.resize(decoded_->chunks.size());
  fresh->vectorHandlers = fastPaths_ && hostVectorUnits();
  decoded_ = std::move(fresh);
  dropAheadBlocks();
}

void Tile::predecode(uint32_t from, uint32_t to) {
  for (uint32_t pc = (from + 3) & ~3u; pc + 4 <= to; pc += 4) peek(pc);
}

const Op *Tile::decodeWord(uint32_t word) {
  // A word's decoding depends on the word and on which handlers the path takes, nothing else: the
  // process keeps each form once (OpTable), and each host thread the ones it has looked up.
  const bool vector = decoded_->vectorHandlers;
  const uint64_t key = uint64_t(word) << 1 | uint64_t(vector);
  thread_local std::unordered_map<uint64_t, const Op *> found;
  if (auto it = found.find(key); it != found.end()) return it->second;
  if (found.size() >= (1u << 16)) found = {}; // bounded: a fuzzer decodes random words
  if (const Op *op = OpTable::instance().find(key, [&] { return decodeWordAfresh(word, vector); }))
    return found.emplace(key, op).first->second;
  return &decoded_->own.emplace_back(decodeWordAfresh(word, vector)); // the table is full
}

Op Tile::decodeWordAfresh(uint32_t word, bool vectorHandlers) {
  Op op;
  op.word = word;
  op.desc = decode(word);
  if (!op.desc) {
    op.fn = invalidEncoding;
    return op;
  }
  for (unsigned i = 0; i < op.desc->numOperands; ++i) {
    const OperandDesc &d = op.desc->operands[i];
    op.v[i] = int32_t(decodeOperand(d, word));
    op.kind[i] = d.kind;
    if (d.isArf()) op.arf |= uint8_t(1u << i);
  }
  if (op.desc->numOperands) op.dstRegs = uint8_t(op.desc->operands[0].registerCount());
  op.modes = op.desc->modes;
  const std::string mn = op.desc->mnemonic;
  // Instructions that read their destination too: the decrementing branches and movnz.
  const bool readsDst = mn == "brnzdec" || mn == "brzdec" || mn == "movnz" || mn == "movz";
  for (unsigned i = 0; i < op.desc->numOperands; ++i) {
    const OperandDesc &d = op.desc->operands[i];
    if (d.isRegister() && d.isArf()) {
      uint16_t bitsOf = uint16_t(((1u << d.registerCount()) - 1) << unsigned(op.v[i]));
      if (d.written) op.writesA |= bitsOf;
      else op.readsA |= bitsOf;
    }
    if (!d.isRegister() || d.isArf()) continue;
    uint16_t bitsOf = uint16_t(((1u << d.registerCount()) - 1) << unsigned(op.v[i])) & 0x7FFF;
    bool postInc = d.kind == OperandKind::MPostInc || d.kind == OperandKind::MPairPostInc || d.kind == OperandKind::MAutoInc;
    if (!d.written || postInc || readsDst) op.readsM |= bitsOf;
    if (d.written) op.writesM |= bitsOf;
  }
  if (op.desc->timing == TimingClass::RunWorker) op.delay = Op::RunWorker;
  op.nop = (word & ~kCoissueBit) == nopWord() || (mn == "or" && op.desc->operands[0].isArf() &&
                                                   op.desc->operands[2].kind == OperandKind::UImm && op.v[0] == 15 &&
                                                   op.v[1] == 15 && op.v[2] == 0);
  op.loopSafe = !op.desc->has(kControl) && !op.desc->has(kSystem) && !op.desc->has(kSolo);
  // Branches decided by the worker's own registers (exit, rpt and the rest of control are not).
  const bool localBranch = mn == "br" || mn == "bri" || mn == "brz" || mn == "brnz" || mn == "brneg" || mn == "brpos" ||
                           mn == "brnzdec" || mn == "brzdec" || mn == "call";
  op.aheadSafe = op.loopSafe || localBranch;
  // The aux pipe's instructions (the table's pipe column, from the ISA documentation [F] S2) work
  // on the ARF and the AMP's, accumulators' and PRNG's state alone, bar the CSR accesses uget
  // and uput (system instructions, so not loopSafe).
  op.auxPipe = op.desc->pipe == arch::Pipe::Aux && op.loopSafe;
  if (mn == "put" && op.v[0] == 80) op.delay = Op::PutCccsload; // $CCCSLOAD
  auto it = handlerRegistry().find(op.desc->mnemonic);
  op.fn = it == handlerRegistry().end() ? notImplemented : it->second;
  // A handler for this operand form, if the semantics have one (Semantics.h).
  std::string key = mn + " ";
  for (unsigned i = 0; i < op.desc->numOperands; ++i) {
    const OperandKind k = op.kind[i];
    key += k == OperandKind::MReg    ? 'm'
           : k == OperandKind::AReg  ? 'a'
           : k == OperandKind::APair ? 'p'
           : (k == OperandKind::UImm || k == OperandKind::SImm) ? 'i'
                                                                 : '?';
  }
  if (auto s = specialisedRegistry().find(key); s != specialisedRegistry().end()) op.fn = s->second;
  if (vectorHandlers)
    if (auto f = fastFormRegistry().find(key); f != fastFormRegistry().end()) op.fn = f->second;
  // The fast path's handler on the host's vector units, where there is one (the stepped path keeps
  // the portable handler, so that the tests' stepped-against-fast runs compare the two).
  if (vectorHandlers)
    if (auto v = hostVectorRegistry().find(mn); v != hostVectorRegistry().end()) op.fn = v->second;
  // A pair must start at an even register and a quad at a multiple of 4 (the assembler checks
  // this; a word from elsewhere may not).
  for (unsigned i = 0; i < op.desc->numOperands; ++i) {
    unsigned n = op.desc->operands[i].registerCount();
    if (n > 1 && unsigned(op.v[i]) % n) op.fn = misalignedGroup;
  }
  op.paceLoadStore = mn == "ld2xst64pace" && op.fn != misalignedGroup; // (a bad encoding raises, Tile::runPaceLoop)
  op.supervisorAhead =
      op.aheadSafe && (op.modes & arch::kSupervisor) && !(word & kCoissueBit) && op.delay == Op::Normal;
  return op;
}

const Op &Tile::fetch(Context &c, uint32_t pc) {
  if (const Op *op = peek(pc)) return *op;
  raise(c, pc & 3 ? "misaligned instruction fetch" : "instruction fetch outside the executable region 0");
}

const Op *Tile::peekSlow(uint32_t pc) {
  if (pc >= bootBase_ && pc < bootBase_ + bootOps_.size() * 4) return &bootOps_[(pc - bootBase_) / 4];
  if (pc & 3 || !memory_.executable(pc)) return nullptr;
  // An entry is used only while memory still holds the word it was decoded from, so stores into
  // code (and tiles sharing the cache with different code) are always seen.
  uint32_t i = (pc - memory_.base()) / 4, word = memory_.read<uint32_t>(pc);
  if (const Op *op = decoded_->find(i); op && op->word == word) return op;
  if (decoded_.use_count() > 1) {
    decoded_ = std::make_shared<DecodeCache>(*decoded_);
    dropAheadBlocks();
  }
  return decoded_->store(i, decodeWord(word));
}

std::string Tile::describe(uint32_t pc) {
  // The disassembler's text (arch/InsnText.h), so traces and reports read like the source.
  const bool supervisor = issueContext_ == kSupervisor;
  auto text = [&](const Op &op) -> std::string {
    if (!op.desc) {
      char buf[24];
      std::snprintf(buf, sizeof buf, ".word 0x%08x", op.word);
      return buf;
    }
    return formatInstruction(*op.desc, op.word & ~kCoissueBit, supervisor);
  };
  const Op *op = peek(pc);
  if (!op) return "no instruction";
  const Op *second = (op->word & kCoissueBit) ? peek(pc + 4) : nullptr;
  return second ? "{ " + text(*op) + " ; " + text(*second) + " }" : text(*op);
}

void Tile::raise(const Context &c, const std::string &reason) {
  throw SimException(ipu_, tileId_, c.id, issuePc_, describe(issuePc_), reason, source_ ? source_(issuePc_) : "");
}

void Tile::badAccess(const Context &c, uint32_t addr, unsigned bytes) {
  char buf[96];
  if (!memory_.contains(addr, bytes))
    std::snprintf(buf, sizeof buf, "%u-byte access at 0x%x is outside tile memory 0x%x..0x%x", bytes, addr,
                  memory_.base(), memory_.end());
  else
    std::snprintf(buf, sizeof buf, "misaligned %u-byte access at 0x%x", bytes, addr);
  raise(c, buf);
}

bool Tile::anyWorkerRunning() const {
  for (unsigned w = 1; w <= 6; ++w)
    if (ctx_[w].running) return true;
  return false;
}

uint64_t Tile::lastWorkerExit() const {
  uint64_t last = 0;
  for (unsigned w = 1; w <= 6; ++w) last = std::max(last, ctx_[w].exitCycle);
  return last;
}

void Tile::startWorker(Context &sup, unsigned worker, uint32_t entry, uint32_t vertexBase) {
  Context &w = ctx_[worker];
  if (w.running) raise(sup, "worker " + std::to_string(worker) + " is still running");
  w.running = true;
  w.pc = entry;
  w.vertexBase = vertexBase;
  w.m[13] = vertexBase;                    // $mvertex_base ([F] S2)
  w.m[12] = w.workerBase;                  // $mworker_base
  w.wsr = worker - 1;                      // context id minus one (TileConstants.hpp, ours)
  w.fpCtl = sup.fpIctl;                    // [F] S2: initialised from $FP_ICTL at launch
  w.fpSts = 0;
  w.rptCount = 0;
  w.exitStatus = -1;
  w.ready = cycle_ + config_.timing.workerStartCycles;
  if (tracing_) {
    TraceEvent &e = traceEvent(cycle_, worker, "vertex.begin").addHex("pc", entry).addHex("vertex_base", vertexBase);
    if (std::string name = symbol_ ? symbol_(entry) : ""; !name.empty()) e.add("symbol", name);
  }
}

std::string Tile::contextName(unsigned context) const {
  return "ipu" + std::to_string(ipu_) + ".tile" + std::to_string(tileId_) + "." +
         (context == kSupervisor ? std::string("supervisor") : "worker" + std::to_string(context - 1));
}

TraceEvent &Tile::traceEvent(uint64_t cycle, unsigned context, const char *name) {
  // Spill before adding, so that the reference returned stays valid while fields are added.
  if (spool_ && events_.size() >= spoolLimit_) spool_->spill(takeKeyedEvents());
  TraceEvent e;
  e.cycle = cycle;
  e.event = name;
  e.where = contextName(context);
  events_.push_back({context, std::move(e), eventSeq_++});
  return events_.back().event;
}

std::vector<KeyedEvent> Tile::takeKeyedEvents() {
  std::vector<KeyedEvent> out;
  out.reserve(events_.size());
  for (TileEvent &e : events_) out.push_back({TraceKey{e.event.cycle, spoolPart_, e.context, e.seq}, std::move(e.event)});
  events_.clear();
  return out;
}

uint32_t Tile::installWorkerLauncher(uint32_t entry, uint32_t vertexBase, bool allWorkers) {
  auto row = [](const char *mn, const char *spec) -> const InsnDesc & {
    for (const InsnDesc *d : variantsOf(mn))
      if (std::string(d->spec) == spec) return *d;
    throw std::logic_error(std::string("no row ") + mn);
  };
  // (Decoded on their own, not through decodeWord: the launcher is no cache's code.)
  auto add = [&](const InsnDesc &d, std::vector<int64_t> v) {
    bootOps_.push_back(decodeWordAfresh(encode(d, v.data()), decoded_->vectorHandlers));
  };
  bootOps_.clear();
  // run takes its vertex base relative to TMEM_REGION0_BASE_ADDR ([F] S2), runall absolute.
  uint32_t base = allWorkers ? vertexBase : vertexBase - config_.memoryBase;
  add(row("setzi", "mw:A, z20@0"), {1, entry});
  add(row("setzi", "mw:A, z20@0"), {2, base & 0xFFFFF});
  add(row(allWorkers ? "runall" : "run", "m:B, m:A, z16@0"), {1, 2, 0});
  add(row("sync", "z4@0"), {2});
  add(row("br", "m:A"), {10});
  return bootBase_;
}

inline void Tile::execute(Context &c, const Op *main, const Op *aux, bool defer) {
  // Both read before either writes: the main instruction's ARF writes wait for the aux one's
  // reads when they overlap (accumulator and AMP state is read and written by aux alone).
  if (defer && main && aux) [[unlikely]] {
    c.deferArf = true;
    c.deferredCount = 0;
    main->fn(*this, c, *main);
    c.deferArf = false;
    aux->fn(*this, c, *aux);
    for (unsigned i = 0; i < c.deferredCount; ++i) c.a[c.deferredIndex[i]] = c.deferredValue[i];
    return;
  }
  if (main) main->fn(*this, c, *main);
  if (aux) aux->fn(*this, c, *aux);
}

void Tile::issue(Context &c) {
  const uint32_t pc = c.pc;
  issuePc_ = pc;
  issueContext_ = c.id;
  if (pendingFault_[c.id]) { // what it met running ahead, now in order
    std::exception_ptr fault = std::move(pendingFault_[c.id]);
    pendingFault_[c.id] = nullptr;
    std::rethrow_exception(fault);
  }
  const Op &main = fetch(c, pc);
  const bool bundle = main.word & kCoissueBit;
  const Op *aux = bundle ? &fetch(c, pc + 4) : nullptr;
  const ModeMask mode = c.id == kSupervisor ? arch::kSupervisor : kWorker;
  if (!(main.modes & mode) || (aux && !(aux->modes & mode))) {
    const Op &bad = (main.modes & mode) ? *aux : main;
    if (!bad.desc) bad.fn(*this, c, bad); // an invalid encoding reports itself
    raise(c, std::string("'") + bad.desc->mnemonic + "' is not available in " +
                 (c.id == kSupervisor ? "supervisor" : "worker") + " mode");
  }
  if (c.id == kSupervisor) {
    // No forwarding: wait until every source register has been written back.
    if (cycle_ < sourcesReady(c, main)) {
      ++c.stallCycles;
      return;
    }
  }

  // Traced before it executes: its effects (a worker's exit ...) follow it in the trace.
  if (traceIssues_) traceEvent(cycle_, c.id, "issue").addHex("pc", pc).add("insn", describe(pc));
  c.branchTaken = false;
  c.extraWorkerCycles = 0;
  c.extraSupervisorCycles = 0;
  accessCount_ = 0;
  c.pc = pc + (bundle ? 8 : 4);
  unsigned supervisorDelay = 1;
  execute(c, &main, aux, aux && (main.writesA & aux->readsA));
  ++c.bundles;
  // rpt: zero-overhead loop back at the end of the body ([F] S5).
  if (c.rptCount && !c.branchTaken && c.pc == c.rptEnd && --c.rptCount) c.pc = c.rptStart;
  // A worker's whole rpt loop runs at once: its issue times depend only on its own instructions,
  // and a body holds no control or system instruction, so nothing else can observe the
  // difference (docs/tile-timing.md, "Batched rpt loops").
  uint64_t batchTurns = 0;
  if (c.id != kSupervisor && main.desc->timing == TimingClass::Repeat && c.rptCount && !traceIssues_ && fastPaths_)
    batchTurns = runRepeatBatch(c);

  if (c.id == kSupervisor) {
    if (c.branchTaken) supervisorDelay = config_.timing.supervisorTakenBranch;
    else if (main.delay == Op::RunWorker) supervisorDelay = config_.timing.runallCycles;
    else if (main.delay == Op::PutCccsload) supervisorDelay = config_.timing.putCccsloadCycles;
    supervisorDelay += c.extraWorkerCycles * kBarrelSlots + c.extraSupervisorCycles;
    c.ready = std::max(c.ready, cycle_ + supervisorDelay);
    for (uint32_t r = main.writesM; r; r &= r - 1)
      c.regReady[__builtin_ctz(r)] = cycle_ + config_.timing.supervisorResultLatency;
  } else if (c.running) {
    c.ready = cycle_ + kBarrelSlots * (1 + c.extraWorkerCycles + batchTurns);
    if (batchTurns) c.accountedUntil = c.ready;
    if (!c.rptCount && !traceIssues_ && fastPaths_ && !pendingFault_[c.id]) runAhead(c);
  }
}

void Tile::runAhead(Context &c) {
  // A worker's issue times depend only on its own instructions (it owns its slot, [F] S3), so its
  // next bundles can run now, at the cycles they would issue at, as long as no other context can
  // tell: they touch only the worker's own registers and memory (memory shared between contexts
  // inside a compute phase is a data race, which Poplar rules out), and branch on its own
  // registers. It stops before an exit, rpt, CSR access, any other control or system instruction,
  // a fetch that would fault, and the run's cycle limit; the tile's loop issues that one at its
  // turn. Exact: the tests run every program both ways (docs/tile-timing.md "Running ahead").
  uint64_t at = c.ready, stalls = 0;
  const uint64_t before = c.bundles;
  bool faulted = false;
  // Each bundle as the decode cache made it (AheadBundle), once memory's words are checked; one
  // whose words are new here is decoded first (peek) and made on the spot.
  const uint64_t limit = maxCycles_;
  AheadLookup lookup = aheadLookup();
  // Blocks start where running ahead starts, at a taken branch's target and after a block: a
  // bundle at a time, the code runs on to the next branch.
  bool blockStart = true;
  while (at < limit) {
    const uint32_t pc = c.pc;
    if (const AheadBlock *blk = blockStart ? aheadBlock(pc, lookup, at) : nullptr) {
      // The block's bundles, each at its turn: what the loop below does a bundle, bar the lookup.
      c.extraWorkerCycles = 0;
      c.branchTaken = false;
      codeStored_ = false;
      const AheadBlock::Step *s = blk->steps, *end = s + blk->bundles;
      uint64_t extraBefore = 0; // the turns of the bundles before s
      try {
        for (; s != end; ++s) {
          extraBefore = c.extraWorkerCycles;
          issuePc_ = s->pc;
          accessCount_ = 0;
          c.pc = s->pc + s->size;
          if (s->fn0) [[likely]] {
            s->fn0(*this, c, *s->op0);
            if (s->fn1) s->fn1(*this, c, *s->op1);
          } else if (s->op0) {
            execute(c, s->op0, s->op1, true);
          }
          if (codeStored_) [[unlikely]] {
            // A store into code: the rest of the block runs only if memory still holds its words.
            codeStored_ = false;
            const uint32_t next = s->pc + s->size - blk->pc;
            if (std::memcmp(lookup.bytes + (s->pc + s->size - lookup.base), blk->code + next, blk->bytes - next)) {
              ++s;
              break;
            }
          }
        }
      } catch (const SimException &) {
        // As below: raised when the tile gets to the faulting bundle's cycle, whose turns do
        // not count.
        c.deferArf = false;
        pendingFault_[c.id] = std::current_exception();
        faulted = true;
        c.extraWorkerCycles = extraBefore;
      }
      const uint64_t ran = uint64_t(s - blk->steps);
      c.bundles += ran;
      stalls += c.extraWorkerCycles;
      at += kBarrelSlots * (ran + c.extraWorkerCycles);
      if (faulted) break;
      continue;
    }
    const Op *main, *aux;
    AheadBundle fresh;
    const AheadBundle *b;
    if (const DecodeCache::Entry *e = lookup.at(pc)) [[likely]] {
      main = e->op;
      aux = e->bundle.size == 8 ? e[1].op : nullptr; // a pair's aux: the next entry (makeBundle)
      b = &e->bundle;
    } else {
      main = peek(pc);
      if (!main) break;
      aux = nullptr;
      if (main->word & kCoissueBit)
        if (aux = peek(pc + 4); !aux) break;
      fresh = AheadBundle::make(*main, aux);
      b = &fresh;
      lookup.chunks = decoded_->chunks.data(); // peek may have decoded into a private copy
    }
    if (!b->ahead) break;
    issuePc_ = pc;
    accessCount_ = 0;
    c.extraWorkerCycles = 0;
    c.branchTaken = false;
    c.pc = pc + b->size;
    try {
      // nop and fnop do nothing (compiled code fills every bundle's other half with one). The
      // calls written out rather than through execute(): its tests cost compiled code 4%.
      if (b->deferred) [[unlikely]] {
        execute(c, main, aux, true);
      } else {
        if (b->calls & 1) main->fn(*this, c, *main);
        if (b->calls & 2) aux->fn(*this, c, *aux);
      }
    } catch (const SimException &) {
      // Raised when the tile gets to cycle `at` (issue()); the run ends there.
      c.deferArf = false;
      pendingFault_[c.id] = std::current_exception();
      faulted = true;
      break;
    }
    ++c.bundles;
    stalls += c.extraWorkerCycles;
    at += kBarrelSlots * (1 + c.extraWorkerCycles);
    blockStart = c.branchTaken;
  }
  if (c.bundles == before && !faulted) return;
  // The loop would count the worker's waiting turns from the last issue's end on as stalls; they
  // are all known now: the first issue's extra turns (those not yet accounted) and the rest.
  const uint64_t firstEnd = cycle_ + kBarrelSlots, from = std::max(firstEnd, c.accountedUntil);
  if (c.ready > from) stalls += (c.ready - from) / kBarrelSlots;
  c.stallCycles += stalls;
  c.ready = c.accountedUntil = at;
  c.extraWorkerCycles = 0;
}

const AheadBlock *Tile::makeAheadBlock(uint32_t pc, const AheadLookup &lookup, uint64_t at) {
  if (pc & 3) return nullptr; // (a branch to a misaligned address: its fetch raises)
  const unsigned slot = (pc >> 3) % kAheadBlockSlots;
  // Made on the second arrival in a row at its slot: code run once (a vertex's straight-line
  // set-up, 1,472 tiles' worth of it in a Poplar program) goes a bundle at a time, as making a
  // block would cost more than it saves.
  if (aheadBlockSeen_[slot] != pc) {
    aheadBlockSeen_[slot] = pc;
    return nullptr;
  }
  // Made afresh from the decode cache's bundles, as far as they are made and may run ahead.
  if (aheadBlocks_.empty()) aheadBlocks_.resize(kAheadBlockSlots);
  AheadBlock &blk = aheadBlocks_[slot];
  aheadBlockPc_[slot] = 1;
  unsigned n = 0;
  uint32_t next = pc;
  while (n < AheadBlock::kMaxBundles) {
    const DecodeCache::Entry *e = lookup.at(next);
    if (!e || !e->bundle.ahead) break;
    const Op *main = e->op, *aux = e->bundle.size == 8 ? e[1].op : nullptr;
    blk.steps[n++] = AheadBlock::Step::of(e->bundle, main, aux, next);
    next += e->bundle.size;
    // A branch ends the block (the only instructions it may run ahead that read or set the pc).
    if (!main->loopSafe || (aux && !aux->loopSafe)) break;
  }
  if (n == 0) return nullptr;
  blk.pc = pc;
  blk.bundles = n;
  blk.bytes = next - pc;
  std::memcpy(blk.code, lookup.bytes + (pc - lookup.base), blk.bytes);
  aheadBlockPc_[slot] = pc;
  return at + kBarrelSlots * aheadTurnsBound_ * n < maxCycles_ ? &blk : nullptr;
}

uint64_t Tile::runRepeatBatch(Context &c) {
  const uint32_t start = c.rptStart, end = c.rptEnd;
  const unsigned bundles = (end - start) / 8;
  const uint64_t extraBefore = c.extraWorkerCycles; // the rpt's own turns are counted by the caller
  const uint64_t iterations = c.rptCount;
  // Instructions only ever add to extraWorkerCycles: it sums the whole loop's extra turns (each a
  // turn the worker waits).
  c.extraWorkerCycles = 0;
  // Where a bundle raises: the bundles before it and their extra turns (BatchFault), so that the
  // exception is raised at the faulting bundle's issue cycle, as cycle by cycle.
  BatchFault fault;
  uint64_t left = iterations; // the iterations to run, the running one included
  uint64_t turnsAtStep = 0;   // the extra turns before the running bundle (none in the loops for bodies that add none)
  try {
    if (!runPaceLoop(c, fault)) {
      // Only bodies of bundles whose instructions have no effect on control flow run batched.
      // The body becomes a list of bundles, each one or two handler calls (nop and fnop left out;
      // a bundle of two nops has none and is left out too); a bundle whose main instruction's ARF
      // writes must wait for the aux one's reads is run whole by execute(). Each bundle notes its
      // pc (for exceptions); in bodies with a pace form each also starts its memory-conflict
      // check (the loop for bodies whose bundles add turns).
      using Step = AheadBlock::Step;
      Step steps[256];
      unsigned n = 0;
      bool deferred = false, turns = false;
      for (unsigned b = 0; b < bundles; ++b) {
        const uint32_t pc = start + 8 * b;
        const Op *m = peek(pc), *a = peek(pc + 4);
        if (!m || !a || !(m->word & kCoissueBit) || !m->loopSafe || !a->loopSafe || !(m->modes & kWorker) ||
            !(a->modes & kWorker) || b >= std::size(steps)) {
          c.extraWorkerCycles = extraBefore;
          return 0;
        }
        const AheadBundle bundle = AheadBundle::make(*m, a);
        if (!bundle.calls) continue;
        steps[n++] = Step::of(bundle, m, a, pc);
        deferred |= bundle.deferred;
        // The two kinds of instruction that add turns: the pace forms (a memory-element conflict,
        // Tile::noteAccess, which only their handlers call) and the multi-cycle FP ones.
        for (const Op *op : {m, a}) {
          const std::string_view mn = op->desc->mnemonic;
          turns |= (mn.size() > 4 && mn.substr(mn.size() - 4) == "pace") || op->desc->timing == TimingClass::FpMultiCycle;
        }
      }
      const bool pairs = std::all_of(steps, steps + n, [](const Step &s) { return s.fn1 != nullptr; });
      if (turns || deferred) {
        // A body whose bundles may add turns: each step notes the turns before it (a faulting
        // bundle's own do not count, as cycle by cycle). Bodies with a deferred bundle too.
        for (; left; --left)
          for (const Step *s = steps; s != steps + n; ++s) {
            turnsAtStep = c.extraWorkerCycles;
            issuePc_ = s->pc;
            accessCount_ = 0;
            if (s->fn0) [[likely]] {
              s->fn0(*this, c, *s->op0);
              if (s->fn1) s->fn1(*this, c, *s->op1);
            } else {
              execute(c, s->op0, s->op1, true);
            }
          }
      } else if (pairs && n == 1) {
        // A body of one such pair: its pc noted once. (Its calls are read from the step each
        // time: with fewer values to keep, the count, which a fault needs, stays in a register.)
        const Step *s = steps;
        issuePc_ = s->pc;
        for (; left; --left) {
          asm("" : "+r"(s));
          s->fn0(*this, c, *s->op0);
          s->fn1(*this, c, *s->op1);
        }
      } else if (pairs && n == bundles) {
        // Compiled code's body, every bundle a `{ main ; aux }` pair: no per-step test.
        for (; left; --left)
          for (const Step *s = steps; s != steps + n; ++s) {
            issuePc_ = s->pc;
            s->fn0(*this, c, *s->op0);
            s->fn1(*this, c, *s->op1);
          }
      } else if (std::none_of(steps, steps + n, [](const Step &s) { return s.fn1 != nullptr; })) {
        // Hand-written loops' bodies with a nop half in every bundle (the element-wise loops of
        // load, load, operation, store): one call a step, no test.
        for (; left; --left)
          for (const Step *s = steps; s != steps + n; ++s) {
            issuePc_ = s->pc;
            s->fn0(*this, c, *s->op0);
          }
      } else {
        // Hand-written loops' bodies, bundles with a nop half among them: one test a step.
        for (; left; --left)
          for (const Step *s = steps; s != steps + n; ++s) {
            issuePc_ = s->pc;
            s->fn0(*this, c, *s->op0);
            if (s->fn1) s->fn1(*this, c, *s->op1);
          }
      }
    }
  } catch (const SimException &) {
    // Raised when the tile gets to the faulting bundle's cycle (issue()), as runAhead's faults
    // are: the bundles before it and their turns are counted, its own are not.
    c.deferArf = false;
    pendingFault_[c.id] = std::current_exception();
    if (!fault.pace) { // (the loop's bounds read again from the context: fewer values kept through the loop)
      fault.bundles = (c.rptCount - left) * ((c.rptEnd - c.rptStart) / 8) + (issuePc_ - c.rptStart) / 8;
      fault.turns = turnsAtStep;
    }
    c.stallCycles += fault.turns;
    c.bundles += fault.bundles;
    c.extraWorkerCycles = extraBefore;
    c.rptCount = 0;
    c.pc = issuePc_;
    return fault.bundles + fault.turns;
  }
  const uint64_t extra = c.extraWorkerCycles;
  c.stallCycles += extra;
  c.bundles += iterations * bundles;
  c.extraWorkerCycles = extraBefore;
  c.rptCount = 0;
  c.pc = end;
  return iterations * bundles + extra;
}

namespace {
/// Packs a pace form's three addresses back into its MRF pair, as every step of the pace forms does.
void storePacked(Context &c, unsigned r, arch::PackedAddresses before, const uint32_t addr[3]) {
  const arch::PackedAddresses p = before.with(addr[0], addr[1], addr[2]);
  c.setM(r, p.lo);
  c.setM(r + 1, p.hi);
}
} // namespace

bool Tile::runPaceLoop(Context &c, BatchFault &fault) {
  // The matmul and convolution kernels' loop (graph_compiler/poplin/Amp.cpp), and the two-stream
  // element-wise loop (graph_compiler/sdk/Asm.hpp): every bundle `{ ld2xst64pace $aL:L+3,
  // $aS:S+1, $mP:P+1+=, $mStrides, selects ; aux }`, the aux an AMP form or any other aux-pipe
  // instruction (neither touches memory or the MRF), the same packed pair and strides register
  // throughout. Within the loop the strides do not change and the three addresses move by fixed
  // steps, so each address's whole path is known before the loop runs: if every access is in
  // tile memory, aligned and outside the body's code, none can fault and none needs checking
  // again; the addresses stay in host registers, packed back once at the end. Each bundle then
  // does what the general batch would: note the three accesses' memory elements (a conflict
  // costs the same turns as noteAccess's), read the store's pair, load, store, run the aux
  // instruction on the registers as they were, then write the loads (the main instruction's ARF
  // writes wait for the aux one's reads: execute()). Where the host has the vector units, an
  // executor that keeps the AMP's state in host registers runs the bundles it can first
  // (vectorPaceAmpLoop); the rest run here. Exact, as the general batch is; the ISS tests compare
  // it with the stepped path (tests/sim/timing_test.cpp).
  PaceLoop loop;
  const uint32_t start = c.rptStart;
  loop.bundles = (c.rptEnd - start) / 8;
  if (loop.bundles == 0 || loop.bundles > PaceLoop::kMaxBundles) return false;
  unsigned packed = 0, strideReg = 0;
  for (unsigned b = 0; b < loop.bundles; ++b) {
    const uint32_t pc = start + 8 * b;
    const Op *m = peek(pc), *a = peek(pc + 4);
    if (!m || !a || !m->paceLoadStore || !(m->word & kCoissueBit) || !a->auxPipe || !(a->modes & kWorker) ||
        (m->writesA & a->writesA))
      return false;
    if (b == 0) {
      packed = unsigned(m->v[2]);
      strideReg = unsigned(m->v[3]);
      if (packed + 1 >= 15 || strideReg == packed || strideReg == packed + 1) return false;
    } else if (unsigned(m->v[2]) != packed || unsigned(m->v[3]) != strideReg) {
      return false;
    }
    PaceLoop::Step &s = loop.steps[b];
    s = {a, pc, unsigned(m->v[0]), unsigned(m->v[1]), {}};
    for (unsigned k = 0; k < 3; ++k) s.inc[k] = arch::paceIncrement(c.m[strideReg], uint32_t(m->v[4]) >> (2 * k) & 3);
  }
  // Each address's lowest and highest access over the loop: iteration i's bundle b accesses
  // start + i * (the iteration's sum of steps) + (the steps of the bundles before b).
  loop.iterations = c.rptCount;
  const arch::PackedAddresses at0{c.m[packed], c.m[packed + 1]};
  for (unsigned k = 0; k < 3; ++k) {
    loop.addr[k] = at0.addr(k);
    int64_t before = 0, lowest = 0, highest = 0;
    for (unsigned b = 0; b < loop.bundles; ++b) {
      lowest = std::min(lowest, before);
      highest = std::max(highest, before);
      before += loop.steps[b].inc[k];
    }
    const int64_t whole = before * int64_t(loop.iterations - 1); // the last iteration's start
    const int64_t lo = int64_t(loop.addr[k]) + lowest + std::min<int64_t>(0, whole);
    const int64_t hi = int64_t(loop.addr[k]) + highest + std::max<int64_t>(0, whole) + 8;
    if (loop.addr[k] % 8 || lo < int64_t(memory_.base()) || hi > int64_t(memory_.end())) return false;
    // The store must not write the loop's own code (the stepped path would fetch what it wrote).
    if (k == 2 && lo < int64_t(c.rptEnd) && hi > int64_t(start)) return false;
  }
  loop.elements = memory_.elements();
  loop.bytes = memory_.at(memory_.base());
  loop.base = memory_.base();
  const uint64_t done = decoded_->vectorHandlers ? vectorPaceAmpLoop(*this, c, loop) : 0;
  vectorLoopBundles_ += done;
  paceLoopBundles_ += loop.iterations * loop.bundles;
  // Bundle b of iteration i. Counted, it notes its conflicts; else it is in iteration m of a run
  // (PaceLoop::Runs) whose conflicts the loop counts, from these tables.
  unsigned perBundle[2][PaceLoop::kMaxBundles], perIteration[2];
  auto bundle = [&](uint64_t i, unsigned b, auto counted, uint64_t m) {
    const PaceLoop::Step &s = loop.steps[b];
    issuePc_ = s.pc;
    uint64_t in, partials;
    const uint64_t before = loop.conflicts; // the count before the run, or before this bundle
    loop.access<decltype(counted)::value>(s, c, in, partials);
    try {
      s.aux->fn(*this, c, *s.aux);
    } catch (const SimException &) {
      // As it raises, the main instruction has run, its address steps included, and its loads
      // are written unless they wait for the aux instruction's reads (execute()). The bundles
      // before it count with their conflicts' turns; its own conflicts do not.
      if (!((0xFu << s.load) & s.aux->readsA)) {
        setPairA(c, s.load, in);
        setPairA(c, s.load + 2, partials);
      }
      storePacked(c, packed, at0, loop.addr);
      const uint64_t conflicts = decltype(counted)::value ? before : before + PaceLoop::Runs::upTo(perBundle, perIteration, m, b);
      fault = {i * loop.bundles + b, conflicts * stallTurns(), true};
      throw;
    }
    setPairA(c, s.load, in);
    setPairA(c, s.load + 2, partials);
  };
  // The rest of an iteration the vector executor stopped in, bundle by bundle; then runs of
  // iterations where there are runs, an iteration bundle by bundle where there is none.
  uint64_t i = done / loop.bundles;
  if (done % loop.bundles) {
    for (unsigned b = unsigned(done % loop.bundles); b < loop.bundles; ++b) bundle(i, b, std::true_type(), 0);
    ++i;
  }
  std::optional<PaceLoop::Runs> runs; // (made where there are iterations left)
  while (i < loop.iterations) {
    if (!runs) runs.emplace(loop);
    const uint64_t n = std::min(runs->length(loop.addr), loop.iterations - i);
    if (n < 2) {
      for (unsigned b = 0; b < loop.bundles; ++b) bundle(i, b, std::true_type(), 0);
      ++i;
      continue;
    }
    runs->count(loop.addr, perBundle, perIteration);
    for (uint64_t m = 0; m < n; ++m)
      for (unsigned b = 0; b < loop.bundles; ++b) bundle(i + m, b, std::false_type(), m);
    loop.conflicts += PaceLoop::Runs::upTo(perBundle, perIteration, n, 0);
    i += n;
  }
  storePacked(c, packed, at0, loop.addr);
  c.extraWorkerCycles += loop.conflicts * stallTurns();
  return true;
}

void Tile::supervisorAhead(Context &sup) {
  // With no worker running the supervisor has every slot, and nothing else on the tile runs: it
  // issues each instruction at the first cycle its last issue's cost and its source registers
  // allow (no forwarding), the cycles before are its stalls, exactly as cycle by cycle. It stops
  // before anything that starts workers, syncs, touches the exchange or a CSR, and at the run's
  // cycle limit; the tile's loop issues that one. Leaves cycle_ at its last issue.
  // Kept in host registers across the handlers' calls (which touch none of them), as in runAhead.
  // An issue's cost is at least a cycle, so each issue's cycle is the later of the context's ready
  // cycle and its sources' (the first also no earlier than now); the cycles between issues are
  // stalls, counted once it stops: the span from now to the last issue, less a cycle an issue.
  const uint64_t limit = maxCycles_, takenBranch = config_.timing.supervisorTakenBranch,
                 resultLatency = config_.timing.supervisorResultLatency, from = cycle_;
  AheadLookup lookup = aheadLookup();
  const uint64_t bundlesBefore = sup.bundles;
  uint64_t ready = std::max(sup.ready, from);
  auto settle = [&](bool faulted) { // (a faulting instruction waited for its issue cycle too)
    const uint64_t issued = sup.bundles - bundlesBefore;
    if (issued || faulted) sup.stallCycles += cycle_ + (faulted ? 0 : 1) - from - issued;
    if (issued) sup.ready = ready;
  };
  // What the handlers add to (or set) and an issue reads after them, cleared once here and again
  // only when set.
  issueContext_ = kSupervisor;
  sup.branchTaken = false;
  sup.extraWorkerCycles = sup.extraSupervisorCycles = 0;
  try {
    for (;;) {
      const uint32_t pc = sup.pc;
      const Op *op;
      if (const DecodeCache::Entry *e = lookup.at(pc)) [[likely]] {
        op = e->op;
      } else {
        op = peek(pc);
        lookup.chunks = decoded_->chunks.data(); // peek may have decoded into a private copy
        if (!op) break;
      }
      if (!op->supervisorAhead) break;
      const uint64_t need = std::max(ready, sourcesReady(sup, *op));
      if (need >= limit) break;
      cycle_ = need;
      issuePc_ = pc;
      accessCount_ = 0;
      sup.pc = pc + 4;
      op->fn(*this, sup, *op); // an exception is the tile's first: nothing else runs
      ++sup.bundles;
      uint64_t delay = 1;
      if (sup.branchTaken) {
        delay = takenBranch;
        sup.branchTaken = false;
      }
      if (sup.extraWorkerCycles | sup.extraSupervisorCycles) [[unlikely]] {
        delay += sup.extraWorkerCycles * kBarrelSlots + sup.extraSupervisorCycles;
        sup.extraWorkerCycles = sup.extraSupervisorCycles = 0;
      }
      ready = need + delay;
      for (uint32_t r = op->writesM; r; r &= r - 1) sup.regReady[__builtin_ctz(r)] = need + resultLatency;
    }
  } catch (...) {
    settle(true);
    throw;
  }
  settle(false);
}

void Tile::skipIdleCycles() {
  // No context can issue in the next cycle: jump to the first cycle at which one can, counting the
  // skipped cycles as the cycle-by-cycle loop would (a worker's turn before it is ready is a
  // stall unless a batched rpt accounted for it; so is a free slot before the supervisor is
  // ready). Exact: nothing changes in between, since state changes only when something issues.
  auto nextTurn = [](uint64_t from, uint64_t slot) { return from + (slot + kBarrelSlots - from % kBarrelSlots) % kBarrelSlots; };
  auto turns = [](uint64_t from, uint64_t to, uint64_t slot) -> uint64_t { // c in [from, to), c % 6 == slot
    if (to <= from) return 0;
    auto upTo = [slot](uint64_t x) { return x / kBarrelSlots + (x % kBarrelSlots > slot ? 1 : 0); };
    return upTo(to) - upTo(from);
  };
  if (!fastPaths_) return;
  const uint64_t from = cycle_ + 1;
  uint64_t next = UINT64_MAX;
  bool owned[kBarrelSlots];
  for (unsigned w = 1; w <= 6; ++w) {
    const Context &c = ctx_[w];
    owned[w - 1] = c.running;
    if (c.running) next = std::min(next, nextTurn(std::max(c.ready, from), w - 1));
  }
  const Context &sup = ctx_[kSupervisor];
  const bool supActive = sup.running && !sup.waitingSync;
  if (sup.running && (sup.waitingSync ? !anyWorkerRunning() : true)) {
    uint64_t start = sup.waitingSync ? from : std::max(sup.ready, from);
    for (unsigned s = 0; s < kBarrelSlots; ++s)
      if (!owned[s]) next = std::min(next, nextTurn(start, s));
  }
  if (next == UINT64_MAX || next <= from) return;
  for (unsigned w = 1; w <= 6; ++w) {
    Context &c = ctx_[w];
    if (c.running) c.stallCycles += turns(std::max(from, c.accountedUntil), next, w - 1);
  }
  if (supActive)
    for (unsigned s = 0; s < kBarrelSlots; ++s)
      if (!owned[s]) ctx_[kSupervisor].stallCycles += turns(from, std::min(next, sup.ready), s);
  cycle_ = next - 1; // the loop's ++cycle_ lands on `next`
}

void Tile::start(uint32_t pc, uint32_t m0) {
  exchange_.clear();
  incomingMux = exchange_.muxAtStart = 0x7FF; // selects no tile
  incomingFormat = incomingBase = incomingDelta = incomingSinit = outgoingBase = outgoingNext = 0;
  outgoingSctl = 0;
  exchange_.formatAtStart = exchange_.baseAtStart = exchange_.deltaAtStart = 0;
  for (unsigned i = 0; i < 7; ++i) {
    Context fresh;
    fresh.id = i;
    fresh.workerBase = ctx_[i].workerBase;
    ctx_[i] = fresh;
  }
  Context &sup = ctx_[kSupervisor];
  sup.running = true;
  sup.pc = pc;
  sup.m[0] = m0;
  sup.m[10] = kHaltAddress;
  // The supervisor's stack ends below the six default worker stacks (ours: Poplar's placement is
  // not public); supervisor vertices may take a frame below $sp (asm-dialect §3.1).
  sup.m[11] = config_.memoryEnd() - 6 * kDefaultWorkerStackBytes;
  cycle_ = 0;
  for (std::exception_ptr &f : pendingFault_) f = nullptr;
  syncWaitCycles_ = wordsSent_ = wordsReceived_ = 0;
  events_.clear();
  if (tracing_) {
    TraceEvent &e = traceEvent(0, kSupervisor, "tile.begin").addHex("pc", pc).addHex("m0", m0);
    if (std::string name = symbol_ ? symbol_(pc) : ""; !name.empty()) e.add("symbol", name);
  }
}

TileStats Tile::runSupervisor(uint32_t pc, uint32_t m0, uint64_t maxCycles) {
  start(pc, m0);
  if (run(maxCycles) == Stop::Sync) {
    issuePc_ = ctx_[kSupervisor].pc - 4;
    raise(ctx_[kSupervisor], "sync zone " + std::to_string(syncZone()) +
                                 " waits for other tiles: it needs the IPU model (ipusim run, not run-tile)");
  }
  return stats();
}

void Tile::releaseSync(uint64_t release) {
  Context &sup = ctx_[kSupervisor];
  // The supervisor issued the sync at syncCycle and may issue again from `release`.
  const uint64_t wait = std::max(release, sup.syncCycle) - sup.syncCycle;
  syncWaitCycles_ += wait;
  if (tracing_) traceEvent(release, kSupervisor, "sync.release").add("zone", sup.ipuSyncZone).add("wait_cycles", wait);
  sup.ipuSyncZone = 0;
  sup.ready = std::max(sup.ready, release);
  cycle_ = std::max(cycle_ + 1, release); // the waiting cycles are neither issues nor stalls
}

TileStats Tile::stats() const {
  TileStats s;
  s.cycles = cycle_;
  for (unsigned i = 0; i < 7; ++i) {
    s.bundles[i] = ctx_[i].bundles;
    s.stallCycles[i] = ctx_[i].stallCycles;
  }
  s.syncWaitCycles = syncWaitCycles_;
  s.wordsSent = wordsSent_;
  s.wordsReceived = wordsReceived_;
  return s;
}

Tile::Stop Tile::run(uint64_t maxCycles) {
  Context &sup = ctx_[kSupervisor];
  maxCycles_ = maxCycles;
  for (;; ++cycle_) {
    if (cycle_ >= progressAt_) {
      progress_(cycle_);
      progressAt_ = cycle_ + progressEvery_;
    }
    if (cycle_ >= maxCycles) {
      // The run stops at its limit (skipping idle cycles may have passed it: the stats read the
      // same on both paths). A worker still running then is the likelier culprit (a loop that
      // never exits): name it and where it is; else the supervisor.
      cycle_ = maxCycles;
      for (unsigned w = 1; w < 7; ++w)
        if (ctx_[w].running) {
          issuePc_ = ctx_[w].pc;
          raise(ctx_[w], "still running after " + std::to_string(maxCycles) +
                             " cycles (the run's limit): a worker that never exits?");
        }
      issuePc_ = sup.pc;
      raise(sup, "no return to the caller within " + std::to_string(maxCycles) + " cycles");
    }
    Context &w = ctx_[1 + cycle_ % kBarrelSlots];
    if (w.running) {
      // A running worker owns its slot ([F] S3): it issues when ready, else the slot idles.
      if (cycle_ >= w.ready) issue(w);
      else {
        if (cycle_ >= w.accountedUntil) ++w.stallCycles;
        skipIdleCycles();
      }
      continue;
    }
    if (sup.waitingSync) {
      if (anyWorkerRunning()) {
        skipIdleCycles();
        continue;
      }
      sup.waitingSync = false;
      sup.ready = std::max(sup.ready, std::max(sup.syncCycle, lastWorkerExit()) + config_.timing.syncLocalCycles);
    }
    if (sup.pc == kHaltAddress && cycle_ >= sup.ready) {
      if (anyWorkerRunning()) {
        issuePc_ = kHaltAddress;
        raise(sup, "the supervisor returned while workers are still running");
      }
      if (tracing_) traceEvent(cycle_, kSupervisor, "tile.end");
      return Stop::Returned;
    }
    if (fastPaths_ && !anyWorkerRunning()) {
      if (!traceIssues_) {
        const uint64_t before = sup.bundles;
        supervisorAhead(sup);
        if (sup.bundles != before) continue; // it issued up to this cycle
      }
      // The supervisor alone has every slot: it issues at the first cycle its last issue's cost
      // and its source registers allow, each cycle before a stall (as cycle by cycle).
      uint64_t need = sup.ready;
      // (issue() checks the mode before the sources: only a supervisor instruction waits for them)
      if (const Op *op = peek(sup.pc); op && (op->modes & arch::kSupervisor) && !(op->word & kCoissueBit))
        need = std::max(need, sourcesReady(sup, *op));
      need = std::min(need, maxCycles);
      if (need > cycle_) {
        sup.stallCycles += need - cycle_;
        cycle_ = need - 1; // the loop's ++cycle_ lands on `need`, where its checks run again
        continue;
      }
    }
    if (cycle_ >= sup.ready) {
      issue(sup);
      if (sup.ipuSyncZone) return Stop::Sync; // the IPU releases it (releaseSync)
    } else {
      ++sup.stallCycles;
    }
  }
}

} // namespace ipusim::sim
