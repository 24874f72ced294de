// Each tile's supervisor program (docs/poplar.md "The supervisor program"): one entry per engine
// program, the control tree as branches and loops, each step as `sync` plus the tile's share of
// it: workers started with run/runall on the compute set's vertices, the exchange as timed sends
// and receive controls, host transfers as a host sync.
#include "Emit.h"

#include "ipusim/cc/VertexLayout.h"

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cstring>

namespace ipusim::gc::build {

namespace {

// Supervisor CSRs ([RE] S8 indices, arch/src/Registers.cpp).
constexpr uint32_t kIncomingBase = 0xa4, kOutgoingBase = 0xa7, kWorker0Base = 33;
// Sync zones ([RE] S8, ipu-facts §4.5).
constexpr unsigned kSyncLocal = 2, kSyncInternal = 3, kSyncHost = 5;

} // namespace

TileEmitter::TileEmitter(Build &b, unsigned tile, const TileLinkInfo &link, uint32_t base, bool final)
    : b_(b), tile_(tile), link_(link), code_(base), final_(final) {}

uint32_t TileEmitter::addr(Ref r) const {
  if (!final_) return 0;
  return b_.tiles[tile_].items.at(r.item).addr + r.offset;
}

uint32_t TileEmitter::controlAddr(uint32_t word) const {
  return addr(Ref{b_.tiles[tile_].control, word * 4});
}

uint32_t TileEmitter::entryOf(unsigned codelet) const {
  auto it = link_.entries.find(b_.codelets.codelet(codelet).layout.entrySymbol);
  if (it == link_.entries.end())
    throw poplar::link_error("tile " + std::to_string(tile_) + ": no code for vertex class " +
                             b_.codelets.codelet(codelet).layout.className + " (entry " +
                             b_.codelets.codelet(codelet).layout.entrySymbol + " is not defined)");
  return it->second;
}

void TileEmitter::syncAt(unsigned zone, int step) {
  code_.sync(zone);
  syncSteps_[code_.here()] = step;
}

void TileEmitter::emitAll(const std::vector<uint32_t> &workerTops, uint32_t supervisorTop) {
  functionLabels_.clear();
  for (size_t f = 0; f < b_.functions.size(); ++f) functionLabels_.push_back(code_.label());
  for (size_t p = 0; p < b_.programs.size(); ++p) {
    entries_.push_back(code_.here());
    code_.note("program " + std::to_string(p));
    // Keep the caller's $lr; set up the exchange bases and the stacks (docs/poplar.md).
    code_.setzi(1, controlAddr(kControlLr));
    code_.st32(SupervisorCode::kLr, 1);
    code_.put(kIncomingBase, SupervisorCode::kZero);
    code_.put(kOutgoingBase, SupervisorCode::kZero);
    code_.setzi(SupervisorCode::kSp, supervisorTop);
    for (unsigned w = 0; w < 6; ++w) code_.setzi(2 + w, workerTops[w]);
    for (unsigned w = 0; w < 6; ++w) code_.put(kWorker0Base + w, 2 + w);
    node(b_.programs[p]);
    code_.note("program " + std::to_string(p) + " end");
    code_.setzi(1, controlAddr(kControlLr));
    code_.ld32(SupervisorCode::kLr, 1);
    code_.br(SupervisorCode::kLr);
  }
  for (size_t f = 0; f < b_.functions.size(); ++f) {
    code_.note("function " + std::to_string(f));
    code_.bind(functionLabels_[f]);
    const Node &fn = b_.functions[f];
    code_.setzi(1, controlAddr(fn.slot));
    code_.st32(SupervisorCode::kLr, 1);
    node(fn);
    code_.setzi(1, controlAddr(fn.slot));
    code_.ld32(SupervisorCode::kLr, 1);
    code_.br(SupervisorCode::kLr);
  }
  code_.resolve();
}

void TileEmitter::node(const Node &n) {
  switch (n.kind) {
  case Node::Seq:
    for (const Node &c : n.children) node(c);
    break;
  case Node::Run: step(n.step); break;
  case Node::Repeat: {
    // The counter lives in the control block: vertices may use any register.
    code_.setzi(1, controlAddr(0));
    code_.constant(2, uint32_t(n.count));
    code_.st32(2, 1, n.slot);
    const unsigned top = code_.label();
    code_.bind(top);
    node(n.children[0]);
    code_.setzi(1, controlAddr(0));
    code_.ld32(2, 1, n.slot);
    code_.add(2, 2, -1);
    code_.st32(2, 1, n.slot);
    code_.brnz(2, top);
    break;
  }
  case Node::While: {
    const unsigned top = code_.label(), end = code_.label();
    code_.bind(top);
    node(n.children[0]);
    predicate(n.pred, true);
    if (n.whileTrue) code_.brz(2, end);
    else code_.brnz(2, end);
    node(n.children[1]);
    code_.bri(top);
    code_.bind(end);
    break;
  }
  case Node::If: {
    const unsigned otherwise = code_.label(), end = code_.label();
    predicate(n.pred, true);
    code_.brz(2, otherwise);
    node(n.children[0]);
    code_.bri(end);
    code_.bind(otherwise);
    node(n.children[1]);
    code_.bind(end);
    break;
  }
  case Node::Switch: {
    predicate(n.pred, false);
    const unsigned end = code_.label();
    std::vector<unsigned> cases;
    for (size_t i = 0; i < n.cases.size(); ++i) {
      cases.push_back(code_.label());
      const int64_t v = n.cases[i];
      if (v >= -32768 && v <= 32767) {
        code_.add(3, 2, int32_t(-v));
      } else {
        code_.constant(3, uint32_t(v));
        code_.sub(3, 2, 3);
      }
      code_.brz(3, cases.back());
    }
    node(n.children[0]);
    code_.bri(end);
    for (size_t i = 0; i < n.cases.size(); ++i) {
      code_.bind(cases[i]);
      node(n.children[i + 1]);
      code_.bri(end);
    }
    code_.bind(end);
    break;
  }
  case Node::Call: code_.call(functionLabels_.at(n.function)); break;
  case Node::Sync: syncAt(n.zone, -1); break;
  case Node::Undef: break; // only liveness reads it
  }
}

void TileEmitter::predicate(const Predicate &p, bool truth) {
  // Every tile needs the value: the owner sends its word to the others (an exchange step), and
  // after the next sync each tile reads it, the owner from the tensor, the others from their
  // control block.
  if (p.broadcast >= 0) step(unsigned(p.broadcast));
  syncAt(kSyncInternal, -1);
  const uint32_t a = tile_ == p.tile ? addr(p.ref) : controlAddr(kControlPredicate) + (final_ ? p.ref.offset % 4 : 0);
  code_.setzi(1, a);
  const TypeInfo &ti = typeInfo(p.type);
  switch (ti.size) {
  case 1: ti.isSigned && !truth ? code_.lds8(2, 1) : code_.ldz8(2, 1); break;
  case 2: ti.isSigned && !truth && !ti.isFloat ? code_.lds16(2, 1) : code_.ldz16(2, 1); break;
  default: code_.ld32(2, 1); break;
  }
  // A float is true when it is not +-0: drop the sign bit.
  if (truth && ti.isFloat) code_.shl(2, 2, ti.size == 2 ? 17 : 1);
}

void TileEmitter::step(unsigned s) {
  const Step &st = b_.steps[s];
  code_.note(st.type + " " + st.name);
  switch (st.kind) {
  case Step::Compute: {
    syncAt(kSyncInternal, int(s));
    auto it = st.work.find(tile_);
    if (it != st.work.end()) dispatch(it->second);
    break;
  }
  case Step::Exchange: {
    syncAt(kSyncInternal, int(s));
    auto it = st.schedule.tiles.find(tile_);
    if (it != st.schedule.tiles.end()) exchange(st, it->second);
    break;
  }
  case Step::Host:
    syncAt(kSyncHost, int(s));
    hostSyncs_[code_.here()] = st.hostStep;
    break;
  }
}

void TileEmitter::dispatch(const TileWork &w) {
  const uint32_t memoryBase = b_.graph.target.config.tile.memoryBase;
  auto runAll = [&](uint32_t entry, uint32_t state) {
    code_.setzi(6, entry);
    code_.setzi(4, state);
    code_.runall(6, 4);
  };
  if (!w.pre.empty()) {
    runAll(entryOf(b_.copyCodeletFor(w.pre)), addr(Ref{w.preState, 0}));
    code_.sync(kSyncLocal);
  }
  // Single-worker vertices: `run` each on a free worker (the supervisor cannot issue while all
  // six run). The entry and state of vertex i+2 are loaded while vertex i+1 starts, so that no
  // `run` waits for its registers (no forwarding on the supervisor, docs/tile-timing.md).
  std::vector<unsigned> single, multi, supervisor;
  for (unsigned v : w.vertices) {
    const std::string &kind = b_.codelets.codelet(b_.graph.vertices[v].codelet).layout.vertexKind;
    (kind == "MultiVertex" ? multi : kind == "SupervisorVertex" ? supervisor : single).push_back(v);
  }
  uint32_t held[2] = {0, 0}; // the entry each entry register holds
  bool valid[2] = {false, false};
  auto load = [&](size_t i) {
    const unsigned v = single[i], k = unsigned(i % 2);
    const uint32_t entry = entryOf(b_.graph.vertices[v].codelet);
    if (!valid[k] || held[k] != entry) {
      code_.setzi(6 + k, entry);
      held[k] = entry;
      valid[k] = true;
    }
    code_.setzi(4 + k, final_ ? addr(Ref{b_.stateItem[v], 0}) - memoryBase : 0);
  };
  for (size_t i = 0; i < single.size() && i < 2; ++i) load(i);
  for (size_t i = 0; i < single.size(); ++i) {
    const unsigned k = unsigned(i % 2);
    code_.run(6 + k, 4 + k);
    if (i + 2 < single.size()) load(i + 2);
  }
  for (unsigned v : multi) {
    code_.sync(kSyncLocal);
    runAll(entryOf(b_.graph.vertices[v].codelet), addr(Ref{b_.stateItem[v], 0}));
  }
  for (unsigned v : supervisor) {
    code_.sync(kSyncLocal);
    code_.setzi(0, addr(Ref{b_.stateItem[v], 0}));
    code_.callAddress(entryOf(b_.graph.vertices[v].codelet));
  }
  if (!w.post.empty()) {
    code_.sync(kSyncLocal);
    runAll(entryOf(b_.copyCodeletFor(w.post)), addr(Ref{w.postState, 0}));
  }
  code_.sync(kSyncLocal);
}

void TileEmitter::exchange(const Step &st, const TileExchange &te) {
  // Cycles count from the release of the sync above; this tile issues from its release skew
  // (ExchangeSchedule.h). Each op issues exactly at its cycle: `delay` fills the gaps.
  uint64_t now = uint64_t(b_.graph.target.config.sync.releaseSkewCycles) * b_.layout.row(tile_);
  const uint32_t maxSend = b_.graph.target.config.exchange.maxSendWords;
  // A Delta op's receive pointer: the word address of its receiver's place.
  auto pointer = [&](const ExchangeOp &op) { return addr(st.transfers[op.transfer].to[op.value].second) / 4; };
  // A control's sendpic select and value ([RE] S9: 0 $INCOMING_MUX, 2 the receive pointer, 3
  // $INCOMING_FORMAT).
  auto pic = [&](const ExchangeOp &op) -> std::pair<unsigned, uint32_t> {
    if (op.kind == ExchangeOp::Mux) return {0, op.value};
    if (op.kind == ExchangeOp::Format) return {3, op.value};
    return {2, pointer(op)};
  };
  for (size_t i = 0; i < te.ops.size(); ++i) {
    const ExchangeOp &op = te.ops[i];
    if (op.cycle < now)
      throw std::logic_error("graph compiler: the exchange schedule puts two instructions in cycle " +
                             std::to_string(op.cycle) + " of tile " + std::to_string(tile_));
    if (op.cycle > now) code_.delay(op.cycle - now);
    const Transfer &x = st.transfers[op.transfer];
    switch (op.kind) {
    case ExchangeOp::Send: {
      // Instructions of at most maxSend items; the tile's controls within the send ride on
      // sendpics, which continue the stream where the last instruction left it.
      const uint64_t end = op.cycle + op.count;
      const uint32_t itemBytes = op.sctl & 4 ? 8 : 4;
      uint64_t at = op.cycle;
      while (at < end) {
        const bool control = at > op.cycle && i + 1 < te.ops.size() && te.ops[i + 1].cycle == at &&
                             te.ops[i + 1].kind != ExchangeOp::Send;
        uint64_t until = std::min<uint64_t>(end, at + maxSend);
        if (control) ++i; // ops[i] is now the control this sendpic carries
        if (i + 1 < te.ops.size() && te.ops[i + 1].cycle < until) until = te.ops[i + 1].cycle;
        if (i + 1 < te.ops.size() && te.ops[i + 1].cycle < end && te.ops[i + 1].kind == ExchangeOp::Send)
          throw std::logic_error("graph compiler: the exchange schedule overlaps two sends of tile " +
                                 std::to_string(tile_));
        if (until <= at)
          throw std::logic_error("graph compiler: the exchange schedule puts a control on a send's first cycle on tile " +
                                 std::to_string(tile_));
        const uint32_t count = uint32_t(until - at);
        if (control) {
          const auto [select, value] = pic(te.ops[i]);
          code_.sendpic(count, select, value);
        } else {
          code_.send(addr(x.from) + 4 * op.word + itemBytes * uint32_t(at - op.cycle), count, op.sctl);
        }
        at = until;
      }
      now = end;
      break;
    }
    case ExchangeOp::Mux:
      code_.delayxpic(op.value);
      now = op.cycle + 1;
      break;
    case ExchangeOp::Delta:
      code_.delaypic(pointer(op));
      now = op.cycle + 1;
      break;
    case ExchangeOp::Format:
      code_.delaypicFormat(op.value);
      now = op.cycle + 1;
      break;
    }
  }
  if (te.end > now) code_.delay(te.end - now);
}

// ---- vertex states ----

/// One vector descriptor in `layout` at `at` of `out` (asm-dialect §3.2, docs/device-headers.md).
void writeDescriptor(std::vector<uint8_t> &out, uint32_t at, const std::string &layout, uint32_t addr, uint64_t count,
                     uint32_t memoryBase, const std::string &what) {
  try {
    cc::writeVectorDescriptor(out, at, layout, addr, count, memoryBase);
  } catch (const std::invalid_argument &e) {
    throw poplar::graph_connection_error(what + ": " + e.what());
  }
}

} // namespace ipusim::gc::build
