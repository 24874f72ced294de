// After register allocation: pseudo-instructions, prologue and epilogue, MAIN+AUX bundling and
// the assembly text.
//
// Bundling is list scheduling inside each block: every cycle issues at most one MAIN and one
// AUX instruction whose inputs were produced in an earlier bundle (a worker sees the result of
// the previous bundle, asm-dialect §3.4); both instructions of a bundle read before either
// writes, so an instruction may share a bundle with one that overwrites its input. Worker code is
// printed as whole bundles (a lone instruction padded with nop/fnop, which costs no cycle) so
// every bundle stays 8-byte aligned.
#include "Backend.h"

#include "ipusim/arch/Isa.h"

#include <algorithm>
#include <optional>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace ipusim::cc::mir {

std::string regName(int reg, RegClass rc) {
  if (rc == RegClass::MP) return "$m" + std::to_string(reg) + ":" + std::to_string(reg + 1);
  if (reg >= kA0) {
    int a = reg - kA0;
    if (rc == RegClass::AP) return a == 14 ? "$azeros" : "$a" + std::to_string(a) + ":" + std::to_string(a + 1);
    if (rc == RegClass::AQ) return "$a" + std::to_string(a) + ":" + std::to_string(a + 3);
    return a == 15 ? "$azero" : "$a" + std::to_string(a);
  }
  if (reg == kMZero) return "$mzero";
  if (reg == kSP) return "$m11";
  return "$m" + std::to_string(reg);
}

namespace {

std::string operandText(const MOp &o) {
  switch (o.kind) {
  case MOp::Reg: {
    std::string s = regName(o.first(), o.rc);
    return o.postInc ? s + "+=" : s;
  }
  case MOp::Imm: return std::to_string(o.imm);
  case MOp::Sym: return o.imm ? o.text + "+" + std::to_string(o.imm) : o.text;
  case MOp::Label:
  case MOp::Text: return o.text;
  }
  return "";
}

// Inline assembly: $N is operand N, $$ a dollar, ${N:x} operand N (modifiers ignored). clang
// writes a source's `{`, `|` and `}` as $( $| $) (assembler-dialect alternatives, which riscv,
// ipu-cc's carrier, has); the IPU has one dialect, and braces are bundles: print them as written.
std::string expandAsm(const MInst &in) {
  const std::string &t = in.asmText;
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '$') { out += t[i]; continue; }
    if (i + 1 < t.size() && t[i + 1] == '$') { out += '$'; ++i; continue; }
    if (i + 1 < t.size() && (t[i + 1] == '(' || t[i + 1] == ')' || t[i + 1] == '|')) {
      out += t[i + 1] == '(' ? '{' : t[i + 1] == ')' ? '}' : '|';
      ++i;
      continue;
    }
    size_t j = i + 1;
    bool brace = j < t.size() && t[j] == '{';
    if (brace) ++j;
    size_t start = j;
    while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j]))) ++j;
    if (j == start) { out += '$'; continue; }
    size_t n = std::stoul(t.substr(start, j - start));
    if (brace) {
      while (j < t.size() && t[j] != '}') ++j;
      ++j;
    }
    out += n < in.ops.size() ? operandText(in.ops[n]) : "?";
    i = j - 1;
  }
  return out;
}

std::string text(const MInst &in) {
  if (!in.asmText.empty()) return expandAsm(in);
  if (in.mnemonic == "ld2x64pace" && in.ops[0].rc == RegClass::AQ) {
    // The two loaded pairs are one quad (so the scheduler can fuse the load with a store).
    int q = in.ops[0].first();
    std::string s = "ld2x64pace " + regName(q, RegClass::AP) + ", " + regName(q + 2, RegClass::AP);
    for (size_t i = 1; i < in.ops.size(); ++i) s += ", " + operandText(in.ops[i]);
    return s;
  }
  std::string s = in.mnemonic;
  for (size_t i = 0; i < in.ops.size(); ++i) s += (i ? ", " : " ") + operandText(in.ops[i]);
  return s;
}

bool isSolo(const MInst &in) {
  if (!in.asmText.empty()) return in.mnemonic.empty() && in.barrier && in.mayLoad && in.mayStore; // multi-instruction asm
  auto v = arch::variantsOf(in.mnemonic);
  return !v.empty() && v[0]->has(arch::kSolo);
}

// Register units an operand covers.
void units(const MOp &o, std::vector<int> &out) {
  if (o.kind != MOp::Reg) return;
  for (unsigned i = 0; i < widthOf(o.rc); ++i) out.push_back(o.first() + int(i));
}

struct Node {
  const MInst *in;
  std::vector<std::pair<size_t, int>> preds; // (node, latency in bundles)
};

std::vector<std::vector<const MInst *>> schedule(const std::vector<MInst> &insts, bool worker) {
  std::vector<std::vector<const MInst *>> bundles;
  size_t n = insts.size();
  if (!worker) {
    for (const MInst &in : insts) bundles.push_back({&in});
    return bundles;
  }
  std::vector<Node> nodes(n);
  std::map<int, size_t> lastDef;
  std::map<int, std::vector<size_t>> readersSinceDef;
  std::vector<size_t> memOps, barriers;
  for (size_t i = 0; i < n; ++i) {
    const MInst &in = insts[i];
    nodes[i].in = &in;
    std::vector<int> uses, defs;
    for (const MOp &o : in.ops) {
      if (o.use || o.postInc) units(o, uses);
      if (o.def) units(o, defs);
    }
    if (in.call)
      for (int r = 0; r < 32; ++r) defs.push_back(r);
    auto dep = [&](size_t p, int lat) { nodes[i].preds.push_back({p, lat}); };
    for (int u : uses)
      if (lastDef.count(u)) dep(lastDef[u], 1);
    for (int d : defs) {
      if (lastDef.count(d)) dep(lastDef[d], 1);
      for (size_t r : readersSinceDef[d]) if (r != i) dep(r, 0);
    }
    bool mem = in.mayLoad || in.mayStore;
    if (in.barrier || in.terminator) {
      for (size_t p = 0; p < i; ++p) dep(p, in.terminator && !in.barrier ? 0 : 1);
      barriers.push_back(i);
    } else {
      for (size_t b : barriers) dep(b, 1);
      if (mem)
        for (size_t p : memOps)
          if (insts[p].mayStore || in.mayStore) dep(p, 1);
    }
    if (mem) memOps.push_back(i);
    for (int u : uses) readersSinceDef[u].push_back(i);
    for (int d : defs) lastDef[d] = i, readersSinceDef[d].clear();
  }
  std::vector<int> cycleOf(n, -1);
  size_t done = 0;
  for (int cycle = 0; done < n; ++cycle) {
    const MInst *slot[2] = {nullptr, nullptr};
    size_t chosen[2] = {0, 0};
    for (size_t i = 0; i < n; ++i) {
      if (cycleOf[i] >= 0) continue;
      const MInst &in = insts[i];
      int pipe = in.aux ? 1 : 0;
      if (slot[pipe]) continue;
      bool ready = true;
      for (auto [p, lat] : nodes[i].preds) {
        if (cycleOf[p] < 0) {
          // A latency-0 predecessor may be chosen for this same bundle (it reads before we write).
          if (lat == 0 && slot[insts[p].aux ? 1 : 0] == &insts[p]) continue;
          ready = false;
          break;
        }
        if (cycleOf[p] + lat > cycle) { ready = false; break; }
      }
      if (!ready) continue;
      if (isSolo(in) && (slot[0] || slot[1])) continue;
      if ((slot[1 - pipe] && isSolo(*slot[1 - pipe]))) continue;
      // Terminators go last: only in a bundle with instructions that precede them.
      if (in.terminator) {
        bool allBefore = true;
        for (size_t p = 0; p < i; ++p)
          if (cycleOf[p] < 0 && !(slot[1] == &insts[p] || slot[0] == &insts[p])) allBefore = false;
        if (!allBefore) continue;
      }
      // Keep an instruction after any unscheduled terminator before it.
      bool afterTerm = false;
      for (size_t p = 0; p < i; ++p)
        if (insts[p].terminator && cycleOf[p] < 0) afterTerm = true;
      if (afterTerm) continue;
      slot[pipe] = &in;
      chosen[pipe] = i;
    }
    std::vector<const MInst *> b;
    for (int p = 0; p < 2; ++p)
      if (slot[p]) {
        cycleOf[chosen[p]] = cycle;
        ++done;
        b.push_back(slot[p]);
      }
    if (b.empty()) continue; // waiting for a latency: the next cycle frees it
    bundles.push_back(b);
  }
  return bundles;
}


// ---- software pipelining of repeat bodies ---------------------------------------------------
// Modulo scheduling (after register allocation, so without renaming): every instruction of the
// body gets a time t; iteration i issues it at t + i * II. Dependences carry a latency in bundles
// and an iteration distance: t_b >= t_a + latency - distance * II. A 64-bit pace load and store on
// one packed address register share an issue slot and print as one ld2xst64pace (asm-dialect
// §2.6) when they meet in a bundle, which is the form poplibs' inner loops take.
struct Pipeline {
  int ii = 0, stages = 0;
  std::vector<int> time;
  int fuseLoad = -1, fuseStore = -1;
};

bool paceLoad(const MInst &in) { return in.mnemonic == "ld2x64pace" && in.ops[0].rc == RegClass::AQ; }
bool paceStore(const MInst &in) { return in.mnemonic == "st64pace"; }
int packedOf(const MInst &in) { return paceLoad(in) ? in.ops[1].first() : in.ops[1].first(); }

std::optional<Pipeline> pipelineBody(const std::vector<MInst> &body, size_t flatLength, bool fuse);

// The shortest initiation interval, with and without fusing the pace load and store (fusion frees
// an issue slot but ties the store to the load's slot).
std::optional<Pipeline> pipelineBody(const std::vector<MInst> &body, size_t flatLength) {
  std::optional<Pipeline> fused = pipelineBody(body, flatLength, true), split = pipelineBody(body, flatLength, false);
  if (fused && (!split || fused->ii <= split->ii)) return fused;
  return split;
}

std::optional<Pipeline> pipelineBody(const std::vector<MInst> &body, size_t flatLength, bool fuse) {
  size_t n = body.size();
  if (n < 2) return std::nullopt;
  for (const MInst &in : body)
    if (in.barrier || in.call || in.terminator || !in.asmText.empty() || isSolo(in)) return std::nullopt;
  // Overlapping iterations needs their memory apart: not with stack slots (spills, scratch) that
  // every iteration reuses, nor with a read-merge-write of a word (a narrow store: the next
  // iteration may write the other half of the same word).
  auto sameAddress = [](const MInst &a, const MInst &b) { // base, delta, offset (step forms move on)
    for (const MInst *x : {&a, &b})
      for (const MOp &o : x->ops)
        if (o.postInc) return false;
    for (size_t k = 1; k < 4; ++k)
      if (a.ops.size() < 4 || b.ops.size() < 4 || a.ops[k].kind != b.ops[k].kind || a.ops[k].reg != b.ops[k].reg ||
          a.ops[k].imm != b.ops[k].imm)
        return false;
    return true;
  };
  for (const MInst &in : body) {
    if ((in.mayLoad || in.mayStore) && in.ops.size() > 1 && in.ops[1].kind == MOp::Reg && in.ops[1].reg == kSP)
      return std::nullopt;
    if (in.mayLoad && !in.mayStore)
      for (const MInst &other : body)
        if (other.mayStore && !other.mayLoad && sameAddress(in, other)) return std::nullopt;
  }
  Pipeline p;
  for (size_t i = 0; i < n && fuse; ++i)
    for (size_t j = i + 1; j < n; ++j)
      if (paceLoad(body[i]) && paceStore(body[j]) && packedOf(body[i]) == packedOf(body[j]))
        p.fuseLoad = int(i), p.fuseStore = int(j);
  std::vector<std::vector<int>> uses(n), defs(n);
  for (size_t i = 0; i < n; ++i) {
    for (const MOp &o : body[i].ops) {
      if (o.use || o.postInc) units(o, uses[i]);
      if (o.def) units(o, defs[i]);
    }
  }
  auto paceBoth = [&](size_t a, size_t b) {
    return (paceLoad(body[a]) || paceStore(body[a])) && (paceLoad(body[b]) || paceStore(body[b]));
  };
  auto common = [](const std::vector<int> &x, const std::vector<int> &y) {
    for (int a : x)
      for (int b : y)
        if (a == b) return true;
    return false;
  };
  struct Edge { size_t a, b; int latency, distance; };
  std::vector<Edge> edges;
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) {
      // The pace forms step disjoint fields of the packed register: no order between them on
      // that register (their data registers keep theirs).
      std::vector<int> ua = uses[a], da = defs[a], ub = uses[b], db = defs[b];
      if (paceBoth(a, b) && packedOf(body[a]) == packedOf(body[b])) {
        int p = packedOf(body[a]);
        for (auto *v : {&ua, &da, &ub, &db}) v->erase(std::remove_if(v->begin(), v->end(), [&](int u) { return u == p || u == p + 1; }), v->end());
      }
      for (int d = 0; d < 2; ++d) {
        if (d == 0 && b <= a) continue;
        if (d == 1 && b > a) continue;
        int lat = -1;
        if (common(da, ub) || common(da, db)) lat = 1;
        else if (common(ua, db)) lat = 0;
        if (d == 0 && (body[a].mayLoad || body[a].mayStore) && (body[b].mayLoad || body[b].mayStore) &&
            (body[a].mayStore || body[b].mayStore))
          lat = std::max(lat, 1); // within an iteration, memory keeps its order
        if (lat >= 0) edges.push_back({a, b, lat, d});
      }
    }
  size_t mains = 0, auxes = 0;
  for (size_t i = 0; i < n; ++i) (body[i].aux ? auxes : mains) += (int(i) == p.fuseStore ? 0 : 1);
  for (int ii = int(std::max<size_t>(std::max(mains, auxes), 1)); ii < int(flatLength); ++ii) {
    std::vector<int> t(n, -1);
    std::map<std::pair<int, int>, bool> busy; // (slot, pipe)
    bool ok = true;
    for (size_t b = 0; b < n && ok; ++b) {
      int earliest = 0;
      for (const Edge &e : edges)
        if (e.b == b && e.distance == 0) earliest = std::max(earliest, t[e.a] + e.latency);
      int pipe = body[b].aux ? 1 : 0;
      int found = -1;
      for (int c = earliest; c < earliest + 4 * ii + 8; ++c) {
        if (int(b) == p.fuseStore) {
          if ((c - t[size_t(p.fuseLoad)]) % ii == 0) { found = c; break; }
          continue;
        }
        if (!busy[{c % ii, pipe}]) { found = c; break; }
      }
      if (found < 0) ok = false;
      else {
        t[b] = found;
        if (int(b) != p.fuseStore) busy[{found % ii, pipe}] = true;
      }
    }
    if (!ok) continue;
    for (const Edge &e : edges)
      if (t[e.b] < t[e.a] + e.latency - e.distance * ii) ok = false;
    if (!ok) continue;
    p.ii = ii;
    p.time = t;
    p.stages = *std::max_element(t.begin(), t.end()) / ii + 1;
    if (p.stages < 2) return std::nullopt;
    return p;
  }
  return std::nullopt;
}

// The bundles of a pipelined loop: prologue (stages 0..S-2 of the first iterations), kernel,
// epilogue. Returns bundles of instruction indices into `body`.
std::vector<std::vector<int>> pipelinedBundles(const Pipeline &p, size_t n, int from, int to, bool kernel) {
  // Bundles for "steady" stage windows: for the prologue step k, stages 0..k; epilogue e, e..S-1.
  std::vector<std::vector<int>> out;
  for (int slot = 0; slot < p.ii; ++slot) {
    std::vector<int> b;
    for (size_t i = 0; i < n; ++i) {
      int stage = p.time[i] / p.ii;
      if (p.time[i] % p.ii == slot && stage >= from && stage <= to) b.push_back(int(i));
    }
    if (!b.empty() || kernel) out.push_back(b);
  }
  return out;
}

} // namespace

namespace {

bool isLabelBranch(const std::string &m) {
  return m == "bri" || m == "brz" || m == "brnz" || m == "brneg" || m == "brpos" || m == "brnzdec";
}

const char *inverseBranch(const std::string &m) {
  return m == "brz" ? "brnz" : m == "brnz" ? "brz" : m == "brneg" ? "brpos" : m == "brpos" ? "brneg" : nullptr;
}

/// LLVM's split critical edges leave blocks of one `bri`: branches to them go straight to its
/// target, the blocks nothing reaches any more are emptied, and a block ending `brX c, X; bri T`
/// whose code falls through to X becomes `brY c, T` (Y the inverse): a loop's latch then costs
/// one branch an iteration, not a branch not taken and a `bri`.
void threadJumps(MFunction &mf) {
  std::map<std::string, std::string> to;
  for (const MBlock &b : mf.blocks)
    if (!b.repeatBody && b.insts.size() == 1 && b.insts[0].mnemonic == "bri" && b.insts[0].ops.size() == 1 &&
        b.insts[0].ops[0].kind == MOp::Label)
      to[b.label] = b.insts[0].ops[0].text;
  auto resolve = [&](std::string l) {
    for (int k = 0; k < 16; ++k) { // a cycle of such blocks stays as it is
      auto it = to.find(l);
      if (it == to.end() || it->second == l) break;
      l = it->second;
    }
    return l;
  };
  std::set<std::string> referenced;
  for (MBlock &b : mf.blocks)
    for (MInst &in : b.insts)
      for (MOp &o : in.ops)
        if (o.kind == MOp::Label) {
          if (isLabelBranch(in.mnemonic)) o.text = resolve(o.text);
          referenced.insert(o.text);
        }
  auto endsUnconditionally = [](const MBlock &b) {
    if (b.insts.empty()) return false;
    const std::string &m = b.insts.back().mnemonic;
    return m == "bri" || m == "br" || m.rfind("exit", 0) == 0;
  };
  for (size_t i = 1; i < mf.blocks.size(); ++i) {
    MBlock &b = mf.blocks[i];
    if (to.count(b.label) && !referenced.count(b.label) && endsUnconditionally(mf.blocks[i - 1])) b.insts.clear();
  }
  for (size_t i = 0; i + 1 < mf.blocks.size(); ++i) {
    MBlock &b = mf.blocks[i];
    const size_t n = b.insts.size();
    if (b.repeatBody || n < 2 || b.insts[n - 1].mnemonic != "bri" || b.insts[n - 1].ops[0].kind != MOp::Label) continue;
    MInst &cond = b.insts[n - 2];
    const char *inverse = inverseBranch(cond.mnemonic);
    if (!inverse || cond.ops.size() != 2 || cond.ops[1].kind != MOp::Label) continue;
    // The labels the code falls through to: the next block's, and past empty ones.
    bool fallsToTaken = false;
    for (size_t j = i + 1; j < mf.blocks.size() && !fallsToTaken; ++j) {
      fallsToTaken = mf.blocks[j].label == cond.ops[1].text;
      if (!mf.blocks[j].insts.empty() || mf.blocks[j].repeatBody) break;
    }
    if (!fallsToTaken) continue;
    cond.mnemonic = inverse;
    cond.ops[1].text = b.insts[n - 1].ops[0].text;
    b.insts.pop_back();
  }
}

} // namespace

std::string printFunction(MFunction &mf) {
  bool worker = !mf.supervisor;
  // A function that calls keeps its $lr in the frame; a supervisor vertex that calls (ipu-cc's
  // integer runtime routines) also keeps $m9, which its caller expects preserved.
  bool saveLR = mf.hasCalls && mf.entry != EntryKind::Worker;
  bool saveM9 = mf.hasCalls && mf.supervisor;
  uint32_t frame = mf.localBytes + mf.spillBytes;
  uint32_t lrOffset = (frame + 3) / 4 * 4;
  if (saveLR) frame = lrOffset + (saveM9 ? 8 : 4);
  // Frames are multiples of 16 and stacks start 16-aligned, so every $sp is: locals may ask for
  // 16-byte alignment (ISel.cpp rejects more).
  frame = (frame + 15) / 16 * 16;
  // The saved registers are addressed with a 12-bit word offset. Behind more than 16 KiB of
  // locals they are out of its reach: then the frame is made in two steps, the saved registers'
  // 16 bytes at its top first, so they are stored and reloaded at $sp + 0.
  const bool splitFrame = saveLR && lrOffset / 4 + 1 > 4095;
  if (splitFrame) {
    lrOffset = (mf.localBytes + mf.spillBytes + 15) / 16 * 16;
    frame = lrOffset + 16;
  }
  mf.frameBytes = frame;
  // The frame is made and released with `add $sp, $sp, -+frame` (signed 16-bit immediates).
  if (frame > 32752)
    throw CompileError(mf.location + ": error: '" + mf.displayName + "' needs a " + std::to_string(frame) +
                       "-byte stack frame (" + std::to_string(mf.localBytes) + " bytes of locals, " +
                       std::to_string(mf.spillBytes) +
                       " of spilled registers), more than a frame may hold (32752): keep large arrays in the "
                       "vertex state\n");
  auto inst = [](const std::string &mn, std::vector<MOp> ops, bool aux = false) {
    MInst m;
    m.mnemonic = mn;
    m.ops = std::move(ops);
    m.aux = aux;
    return m;
  };
  const MOp sp = MOp::use_(kSP, RegClass::M);
  // The registers kept in the frame ($lr, then $m9) and their save (store) or restore (load).
  std::vector<int> saved;
  if (saveLR) saved.push_back(kLR);
  if (saveM9) saved.push_back(9);
  auto frameSlot = [&](int r, bool restore) {
    uint32_t slot = (splitFrame ? 0 : lrOffset / 4) + (r == 9 ? 1 : 0);
    MInst m = inst(restore ? "ld32" : "st32", {restore ? MOp::def_(r, RegClass::M) : MOp::use_(r, RegClass::M), sp,
                                               MOp::use_(kMZero, RegClass::M), MOp::imm_(slot)});
    (restore ? m.mayLoad : m.mayStore) = true;
    return m;
  };
  // Pseudo-instructions and the frame.
  for (size_t bi = 0; bi < mf.blocks.size(); ++bi) {
    MBlock &b = mf.blocks[bi];
    std::vector<MInst> out;
    if (bi == 0) {
      if (mf.entry == EntryKind::Worker && (frame || mf.hasCalls)) // callees take their frames below
        out.push_back(inst("add", {MOp::def_(kSP, RegClass::M), MOp::use_(kWorkerBase, RegClass::M), MOp::imm_(-int64_t(frame))}));
      else if (mf.entry != EntryKind::Worker && frame && !splitFrame) // functions and supervisor vertices: below $sp
        out.push_back(inst("add", {MOp::def_(kSP, RegClass::M), sp, MOp::imm_(-int64_t(frame))}));
      if (splitFrame) out.push_back(inst("add", {MOp::def_(kSP, RegClass::M), sp, MOp::imm_(-16)}));
      for (int r : saved) out.push_back(frameSlot(r, false));
      if (splitFrame) out.push_back(inst("add", {MOp::def_(kSP, RegClass::M), sp, MOp::imm_(-int64_t(lrOffset))}));
    }
    for (MInst &in : b.insts) {
      for (MOp &o : in.ops)
        if (o.incomingArg >= 0) {
          o.imm = (int64_t(frame) + o.incomingArg) / (in.mnemonic.find("64") != std::string::npos ? 8 : 4);
          if (o.imm > 4095)
            throw CompileError(mf.location + ": error: '" + mf.displayName + "' has a " + std::to_string(frame) +
                               "-byte stack frame, too large to reach the arguments its caller passed on the stack "
                               "(at most 16 KiB): keep large arrays in the vertex state or pass fewer arguments\n");
        }
      if (in.mnemonic == "makepair" || in.mnemonic == "makequad") {
        RegClass part = in.mnemonic == "makequad" ? RegClass::AP : in.ops[0].rc == RegClass::MP ? RegClass::M : RegClass::A;
        int step = in.mnemonic == "makepair" ? 1 : 2;
        for (int k = 0; k < 2; ++k) {
          int dst = in.ops[0].reg + k * step;
          const MOp &src = in.ops[1 + k];
          int srcReg = src.first();
          if (dst == srcReg) continue;
          MOp s = MOp::use_(srcReg, part);
          out.push_back(inst("mov", {MOp::def_(dst, part), s}, part != RegClass::M));
        }
        continue;
      }
      if (in.mnemonic == "mov" && in.asmText.empty() && in.ops.size() == 2 && in.ops[0].kind == MOp::Reg &&
          in.ops[1].kind == MOp::Reg && !in.ops[1].lane && in.ops[0].reg == in.ops[1].reg)
        continue; // coalesced
      if (in.mnemonic == "mov" && in.ops.size() == 2 && in.ops[0].rc == RegClass::AQ) {
        // A quad copy: two pair moves (quads are 4-aligned: the same or disjoint).
        for (int k = 0; k < 4; k += 2)
          out.push_back(inst("mov", {MOp::def_(in.ops[0].reg + k, RegClass::AP), MOp::use_(in.ops[1].first() + k, RegClass::AP)}, true));
        continue;
      }
      if (in.mnemonic == "ret") {
        if (splitFrame) out.push_back(inst("add", {MOp::def_(kSP, RegClass::M), sp, MOp::imm_(lrOffset)}));
        for (int r : saved) out.push_back(frameSlot(r, true));
        if (frame) out.push_back(inst("add", {MOp::def_(kSP, RegClass::M), sp, MOp::imm_(splitFrame ? 16 : frame)}));
        MInst r = inst("br", {MOp::use_(kLR, RegClass::M)});
        r.terminator = r.barrier = true;
        for (size_t k = 0; k < in.ops.size(); ++k) r.ops.push_back(in.ops[k]); // results stay live
        out.push_back(r);
        continue;
      }
      out.push_back(std::move(in));
    }
    b.insts = std::move(out);
  }

  threadJumps(mf);

  // Drop a final `bri` to the block that follows.
  for (size_t bi = 0; bi + 1 < mf.blocks.size(); ++bi) {
    auto &insts = mf.blocks[bi].insts;
    if (!insts.empty() && insts.back().mnemonic == "bri" && insts.back().ops[0].text == mf.blocks[bi + 1].label)
      insts.pop_back();
  }

  std::vector<std::unique_ptr<MInst>> keep;
  std::ostringstream os;
  os << "\n.section .text." << mf.name << ", \"ax\"\n";
  os << (mf.supervisor ? ".supervisor\n" : ".worker\n");
  os << ".align 8\n";
  if (mf.global) os << (mf.weak ? ".weak " : ".globl ") << mf.name << "\n";
  os << ".type " << mf.name << ", @function\n" << mf.name << ":\n";
  for (MBlock &b : mf.blocks) {
    os << b.label << ":\n";
    // A repeat block: prefix, `rpt` over the body's bundles, then the suffix.
    std::vector<std::vector<MInst>> parts(1);
    const MInst *repeat = nullptr;
    for (MInst &in : b.insts) {
      if (in.mnemonic == "rpt" || in.mnemonic == "rptend") {
        if (in.mnemonic == "rpt") repeat = &in;
        parts.emplace_back();
        continue;
      }
      parts.back().push_back(in);
    }
    std::vector<std::vector<const MInst *>> bundles;
    std::vector<std::pair<size_t, std::string>> labels; // printed before bundle index
    auto own = [&](MInst m) {
      keep.emplace_back(new MInst(std::move(m)));
      return keep.back().get();
    };
    for (size_t part = 0; part < parts.size(); ++part) {
      std::vector<MInst> &insts = parts[part];
      std::vector<std::vector<const MInst *>> sched = schedule(insts, worker);
      std::optional<Pipeline> pipe;
      if (part == 1 && worker && sched.size() <= 256 &&
          std::find(mf.independentBlocks.begin(), mf.independentBlocks.end(), int(&b - mf.blocks.data())) !=
              mf.independentBlocks.end())
        pipe = pipelineBody(insts, sched.size());
      if (part == 1 && sched.size() > 256) {
        // Longer than rpt's 256 bundles (poplibs' unrolled transforms reach 500): an ordinary
        // counted loop, `brz` past it when the count is 0, then `brnzdec` back count - 1 times.
        const MOp count = repeat->ops[0];
        MOp written = count, readWritten = count;
        written.def = true, written.use = false;
        readWritten.def = true;
        std::string loopLabel = b.label + "_long", doneLabel = b.label + "_long_done";
        MInst skip, sub, back;
        skip.mnemonic = "brz";
        skip.ops = {count, MOp::label(doneLabel)};
        sub.mnemonic = "add";
        sub.ops = {written, count, MOp::imm_(-1)};
        back.mnemonic = "brnzdec";
        back.ops = {readWritten, MOp::label(loopLabel)};
        bundles.push_back({own(skip)});
        bundles.push_back({own(sub)});
        labels.push_back({bundles.size(), loopLabel});
        for (auto &x : sched) bundles.push_back(x);
        bundles.push_back({own(back)});
        labels.push_back({bundles.size(), doneLabel});
        continue;
      }
      if (part == 1) {
        MInst rpt = *repeat;
        rpt.ops[0].def = false;
        rpt.barrier = false;
        std::string plainLabel = b.label + "_plain", doneLabel = b.label + "_done";
        if (pipe) {
          // count - stages < 0: too few iterations to fill the pipeline, run the plain loop;
          // else count - (stages - 1) kernel iterations between the prologue and the epilogue.
          const MOp &count = repeat->ops[0];
          MOp d = count;
          d.def = true;
          d.use = false;
          auto add = [&](int64_t k) {
            MInst a;
            a.mnemonic = "add";
            a.ops = {d, count, MOp::imm_(k)};
            bundles.push_back({own(a)});
          };
          add(-pipe->stages);
          MInst br;
          br.mnemonic = "brneg";
          br.ops = {count, MOp::label(plainLabel)};
          bundles.push_back({own(br)});
          add(1);
          auto emitWindow = [&](int from, int to, bool kernel) {
            for (auto &idx : pipelinedBundles(*pipe, insts.size(), from, to, kernel)) {
              std::vector<const MInst *> bundle;
              bool load = false, store = false;
              for (int i : idx) load |= i == pipe->fuseLoad, store |= i == pipe->fuseStore;
              for (int i : idx) {
                if (load && store && i == pipe->fuseStore) continue;
                if (load && store && i == pipe->fuseLoad) {
                  const MInst &l = insts[size_t(pipe->fuseLoad)], &st = insts[size_t(pipe->fuseStore)];
                  MInst f = l;
                  f.mnemonic = "ld2xst64pace";
                  f.ops = {l.ops[0], st.ops[0], l.ops[1], l.ops[2], MOp::imm_(0)};
                  f.mayStore = true;
                  bundle.push_back(own(f));
                  continue;
                }
                bundle.push_back(&insts[size_t(i)]);
              }
              bundles.push_back(bundle);
            }
          };
          for (int k = 0; k + 1 < pipe->stages; ++k) emitWindow(0, k, false);
          MInst kr = rpt;
          kr.ops[1] = MOp::imm_(pipe->ii - 1);
          bundles.push_back({own(kr)});
          emitWindow(0, pipe->stages - 1, true);
          for (int e = 1; e < pipe->stages; ++e) emitWindow(e, pipe->stages - 1, false);
          MInst j;
          j.mnemonic = "bri";
          j.ops = {MOp::label(doneLabel)};
          bundles.push_back({own(j)});
          labels.push_back({bundles.size(), plainLabel});
          add(pipe->stages);
        }
        rpt.ops[1] = MOp::imm_(int64_t(sched.size()) - 1);
        bundles.push_back({own(rpt)});
        for (auto &x : sched) bundles.push_back(x);
        if (pipe) labels.push_back({bundles.size(), doneLabel});
        continue;
      }
      for (auto &x : sched) bundles.push_back(x);
    }
    for (size_t bi2 = 0; bi2 < bundles.size(); ++bi2) {
      for (auto &[at, name] : labels)
        if (at == bi2) os << name << ":\n";
      auto &bundle = bundles[bi2];
      if (bundle.size() == 1 && bundle[0]->mnemonic.empty() && bundle[0]->asmText.empty()) continue; // empty asm barrier
      // A line marker: the assembler records the C++ position of what follows.
      for (const MInst *in : bundle)
        if (in->file) {
          os << "# " << in->line << " \"" << mf.files[in->file - 1] << "\"\n";
          break;
        }
      if (bundle.empty()) { // an empty pipeline slot still takes its issue
        os << "  { nop ; fnop }\n";
        continue;
      }
      // The ret's extra operands only kept results live.
      auto print = [&](const MInst *in) {
        if (in->mnemonic == "br" && in->asmText.empty()) return std::string("br ") + operandText(in->ops[0]);
        if (in->call) return "call " + operandText(in->ops[0]) + ", " + operandText(in->ops[1]); // the rest: argument registers
        return text(*in);
      };
      if (!worker) {
        os << "  " << print(bundle[0]) << "\n";
        continue;
      }
      if (bundle.size() == 1 && isSolo(*bundle[0])) {
        // Keep bundles 8-byte aligned after a solo instruction or inline assembly of any length, so
        // that repeat bodies start on 8 bytes (.align pads with a nop when needed).
        os << "  " << print(bundle[0]) << "\n  .align 8\n";
        continue;
      }
      const MInst *mainI = nullptr, *auxI = nullptr;
      for (const MInst *in : bundle) (in->aux ? auxI : mainI) = in;
      os << "  { " << (mainI ? print(mainI) : "nop") << " ; " << (auxI ? print(auxI) : "fnop") << " }\n";
    }
    for (auto &[at, name] : labels) // after the last bundle: a loop ending its block
      if (at == bundles.size()) os << name << ":\n";
  }
  os << ".size " << mf.name << ", .-" << mf.name << "\n";
  return os.str();
}


// The byte in `value` (a register's low 8 bits, the rest zero) stored at the address in $m0 by a
// read-merge-write of its word (uses $m4-$m7).
std::string storeByteAtM0(const char *value) {
  return std::string("  andc $m4, $m0, 3\n  and $m5, $m0, 3\n  shl $m5, $m5, 3\n  ld32 $m6, $m4, $mzero, 0\n"
                     "  setzi $m7, 255\n  shl $m7, $m7, $m5\n  andc $m6, $m6, $m7\n  shl $m7, ") +
         value + ", $m5\n  or $m6, $m6, $m7\n  st32 $m6, $m4, $mzero, 0\n";
}

// ---- 64-bit runtime routines (text generators; `l` prefixes their local labels) ----------------

// -(hi:lo) in place, using `t`.
std::string negate64(const char *lo, const char *hi, const char *t) {
  return std::string("  cmpne ") + t + ", " + lo + ", $mzero\n  sub " + lo + ", 0, " + lo + "\n  sub " + hi + ", 0, " +
         hi + "\n  sub " + hi + ", " + hi + ", " + t + "\n";
}

// Unsigned restoring division of $m0 by $m1: quotient in $m2, remainder in $m3 (uses $m4, $m5).
// Only the quotient's possible bits are stepped: with x of bx significant bits and y of by, the
// top by - 1 bits of x are below y, so they start the remainder and bx - by + 1 steps remain
// (x < y takes none). A division by zero (undefined in C) ends after at most 33 steps.
std::string divide32(const std::string &l) {
  return "  setzi $m2, 0\n  mov $m3, $m0\n  cmpult $m5, $m0, $m1\n  brnz $m5, " + l + "ready\n"
         "  clz $m4, $m1\n  clz $m5, $m0\n  sub $m4, $m4, $m5\n"           // steps - 1 = bx - by
         "  shr $m3, $m0, 1\n  shr $m3, $m3, $m4\n"                          // r = x >> steps
         "  sub $m5, 31, $m4\n  shl $m0, $m0, $m5\n  add $m4, $m4, 1\n"     // the rest of x at the top
         + l + "loop:\n"
         "  shr $m5, $m0, 31\n  shl $m3, $m3, 1\n  or $m3, $m3, $m5\n  shl $m0, $m0, 1\n  shl $m2, $m2, 1\n"
         "  cmpult $m5, $m3, $m1\n  brnz $m5, " + l + "next\n"
         "  sub $m3, $m3, $m1\n  or $m2, $m2, 1\n" + l + "next:\n"
         "  add $m4, $m4, -1\n  brnz $m4, " + l + "loop\n" + l + "ready:\n";
}

// Unsigned 64-step restoring division of $m1:$m0 by $m3:$m2: quotient in $m1:$m0, remainder in
// $m5:$m4 (uses $m6-$m8).
std::string divide64(const std::string &l) {
  return "  setzi $m4, 0\n  setzi $m5, 0\n  setzi $m6, 64\n" + l + "loop:\n"
         "  shr $m7, $m4, 31\n  shl $m5, $m5, 1\n  or $m5, $m5, $m7\n"   // r <<= 1, top bit of x in
         "  shr $m7, $m1, 31\n  shl $m4, $m4, 1\n  or $m4, $m4, $m7\n"
         "  shr $m7, $m0, 31\n  shl $m1, $m1, 1\n  or $m1, $m1, $m7\n  shl $m0, $m0, 1\n" // x <<= 1
         "  cmpult $m7, $m5, $m3\n  brnz $m7, " + l + "next\n"              // r < y: no subtraction
         "  cmpeq $m8, $m5, $m3\n  brz $m8, " + l + "sub\n"
         "  cmpult $m7, $m4, $m2\n  brnz $m7, " + l + "next\n" + l + "sub:\n"
         "  cmpult $m8, $m4, $m2\n  sub $m4, $m4, $m2\n  sub $m5, $m5, $m3\n  sub $m5, $m5, $m8\n"
         "  or $m0, $m0, 1\n" + l + "next:\n"
         "  add $m6, $m6, -1\n  brnz $m6, " + l + "loop\n";
}

// $m1:$m0 (unsigned) to the nearest f32 in $a0, then `finish`. For a value beyond 32 bits: its top
// 32 bits with every lower bit ORed into bit 0 (a sticky bit far below f32's rounding point)
// convert with one rounding, then an exact scaling by 2^n.
std::string u64ToF32(const std::string &l, const std::string &finish) {
  return "  brnz $m1, " + l + "big\n  add $m7, $m11, -8\n  st32 $m0, $m7, $mzero, 0\n  ld32 $a0, $m7, $mzero, 0\n"
         "  f32fromui32 $a0, $a0\n  bri " + l + "done\n" + l + "big:\n"
         "  clz $m2, $m1\n  sub $m3, 32, $m2\n  brnz $m2, " + l + "shift\n"
         "  cmpne $m4, $m0, $mzero\n  or $m4, $m1, $m4\n  bri " + l + "conv\n" + l + "shift:\n"
         "  shl $m4, $m1, $m2\n  shr $m5, $m0, $m3\n  or $m4, $m4, $m5\n  shl $m5, $m0, $m2\n  cmpne $m5, $m5, $mzero\n"
         "  or $m4, $m4, $m5\n" + l + "conv:\n"
         "  add $m5, $m3, 127\n  shl $m5, $m5, 23\n  add $m7, $m11, -8\n  st32 $m4, $m7, $mzero, 0\n"
         "  st32 $m5, $m7, $mzero, 1\n  ld32 $a0, $m7, $mzero, 0\n  ld32 $a1, $m7, $mzero, 1\n"
         "  f32fromui32 $a0, $a0\n  f32mul $a0, $a0, $a1\n" + l + "done:\n" + finish;
}

// $a0 (f32) truncated to a 64-bit integer in $m1:$m0; `isSigned` negates by the sign ($m9).
std::string f32To64(const std::string &l, bool isSigned) {
  std::string s = "  atom $m0, $a0\n  shr $m9, $m0, 31\n  shr $m2, $m0, 23\n  and $m2, $m2, 255\n"
                  "  cmpult $m3, $m2, 127\n  brz $m3, " + l + "1\n  setzi $m0, 0\n  setzi $m1, 0\n  br $m10\n" + l + "1:\n"
                  "  cmpult $m3, $m2, 158\n  brz $m3, " + l + "big\n  f32int $a0, $a0, 3\n";
  s += isSigned ? "  f32toi32 $a0, $a0\n  atom $m0, $a0\n  shrs $m1, $m0, 31\n  br $m10\n"
                : "  f32toui32 $a0, $a0\n  atom $m0, $a0\n  setzi $m1, 0\n  br $m10\n";
  s += l + "big:\n  shl $m4, $m0, 9\n  shr $m4, $m4, 9\n  setzi $m5, 1\n  shl $m5, $m5, 23\n  or $m4, $m4, $m5\n"
       "  add $m2, $m2, -150\n  cmpult $m3, $m2, 32\n  brz $m3, " + l + "hi\n"
       "  sub $m6, 32, $m2\n  shr $m1, $m4, $m6\n  shl $m0, $m4, $m2\n  bri " + l + "sign\n" + l + "hi:\n"
       "  add $m2, $m2, -32\n  shl $m1, $m4, $m2\n  setzi $m0, 0\n" + l + "sign:\n";
  if (isSigned) s += "  brz $m9, " + l + "out\n" + negate64("$m0", "$m1", "$m8") + l + "out:\n";
  return s + "  br $m10\n";
}

std::vector<int> runtimeClobbers(const std::string &name) {
  // divide32 uses $m0-$m5; the signed forms keep the signs in $m6 and $m7.
  if (name == "__ipucc_udiv" || name == "__ipucc_urem") return {0, 1, 2, 3, 4, 5};
  if (name == "__ipucc_sdiv" || name == "__ipucc_srem") return {0, 1, 2, 3, 4, 5, 6, 7};
  return {};
}

std::string runtimeRoutines(const std::vector<std::string> &needed) {
  // Worker routines in ipu-cc's calling convention: arguments $m0, $m1 ..., result $m0, return
  // with br $m10. Division is restoring shift-and-subtract, 32 steps (the tile has no divider).
  std::ostringstream os;
  for (const std::string &n : needed) {
    os << "\n.section .text." << n << ", \"ax\"\n.worker\n.align 8\n.weak " << n << "\n.type " << n << ", @function\n"
       << n << ":\n";
    if (n == "__ipucc_udiv" || n == "__ipucc_urem") {
      os << divide32(".L" + n + "_") << (n == "__ipucc_udiv" ? "  mov $m0, $m2\n" : "  mov $m0, $m3\n") << "  br $m10\n";
    } else if (n == "__ipucc_sdiv" || n == "__ipucc_srem") {
      // |x| / |y| unsigned, then the C signs: the quotient negative when the signs differ, the
      // remainder with the sign of the dividend. $m6/$m7 keep the signs.
      os << "  shr $m6, $m0, 31\n  shr $m7, $m1, 31\n  abs $m0, $m0\n  abs $m1, $m1\n"
         << divide32(".L" + n + "_");
      if (n == "__ipucc_sdiv")
        os << "  xor $m6, $m6, $m7\n  mov $m0, $m2\n  brz $m6, .L" << n << "_done\n  sub $m0, 0, $m2\n";
      else
        os << "  mov $m0, $m3\n  brz $m6, .L" << n << "_done\n  sub $m0, 0, $m3\n";
      os << ".L" << n << "_done:\n  br $m10\n";
    } else if (n == "__ipucc_memcpy" || n == "__ipucc_memmove") {
      // Byte copy through words (the tile stores 32 bits at a time): forwards, or backwards
      // when the destination overlaps the source from above.
      os << "  brz $m2, .L" << n << "_done\n"
         << (n == "__ipucc_memmove" ? "  cmpult $m3, $m1, $m0\n  brnz $m3, .L" + n + "_back\n" : std::string())
         << ".L" << n << "_loop:\n  ldz8 $m3, $m1, $mzero, 0\n" << storeByteAtM0("$m3")
         << "  add $m0, $m0, 1\n  add $m1, $m1, 1\n  add $m2, $m2, -1\n  brnz $m2, .L" << n << "_loop\n  br $m10\n";
      if (n == "__ipucc_memmove")
        os << ".L" << n << "_back:\n  add $m0, $m0, $m2\n  add $m1, $m1, $m2\n"
           << ".L" << n << "_bloop:\n  add $m0, $m0, -1\n  add $m1, $m1, -1\n  ldz8 $m3, $m1, $mzero, 0\n"
           << storeByteAtM0("$m3") << "  add $m2, $m2, -1\n  brnz $m2, .L" << n << "_bloop\n  br $m10\n";
      os << ".L" << n << "_done:\n  br $m10\n";
    } else if (n == "__ipucc_memset") {
      os << "  brz $m2, .L" << n << "_done\n  and $m1, $m1, 255\n"
         << ".L" << n << "_loop:\n" << storeByteAtM0("$m1")
         << "  add $m0, $m0, 1\n  add $m2, $m2, -1\n  brnz $m2, .L" << n << "_loop\n"
         << ".L" << n << "_done:\n  br $m10\n";
    } else if (n == "__ipucc_shl64" || n == "__ipucc_lshr64" || n == "__ipucc_ashr64") {
      // $m1:$m0 shifted by $m2 & 63; register shift amounts stay below 32.
      std::string l = ".L" + n + "_";
      bool left = n == "__ipucc_shl64", arith = n == "__ipucc_ashr64";
      os << "  and $m2, $m2, 63\n  brz $m2, " << l << "done\n  cmpult $m3, $m2, 32\n  brz $m3, " << l << "big\n"
         << "  sub $m4, 32, $m2\n";
      if (left)
        os << "  shr $m5, $m0, $m4\n  shl $m1, $m1, $m2\n  or $m1, $m1, $m5\n  shl $m0, $m0, $m2\n  br $m10\n" << l
           << "big:\n  add $m2, $m2, -32\n  shl $m1, $m0, $m2\n  setzi $m0, 0\n";
      else
        os << "  shl $m5, $m1, $m4\n  shr $m0, $m0, $m2\n  or $m0, $m0, $m5\n  " << (arith ? "shrs" : "shr")
           << " $m1, $m1, $m2\n  br $m10\n" << l << "big:\n  add $m2, $m2, -32\n  " << (arith ? "shrs" : "shr")
           << " $m0, $m1, $m2\n" << (arith ? "  shrs $m1, $m1, 31\n" : "  setzi $m1, 0\n");
      os << l << "done:\n  br $m10\n";
    } else if (n == "__ipucc_udivmod64") {
      os << divide64(".L" + n + "_") << "  mov $m2, $m4\n  mov $m3, $m5\n  br $m10\n";
    } else if (n == "__ipucc_sdivmod64") {
      // Signs in $m9 (bit 0: dividend, bit 1: divisor); C truncates: the quotient's sign is their
      // exclusive or, the remainder's the dividend's.
      std::string l = ".L" + n + "_";
      os << "  shr $m9, $m1, 31\n  shr $m7, $m3, 31\n  shl $m7, $m7, 1\n  or $m9, $m9, $m7\n"
         << "  and $m7, $m9, 1\n  brz $m7, " << l << "a\n" << negate64("$m0", "$m1", "$m8") << l << "a:\n"
         << "  and $m7, $m9, 2\n  brz $m7, " << l << "b\n" << negate64("$m2", "$m3", "$m8") << l << "b:\n"
         << divide64(l)
         << "  and $m7, $m9, 1\n  shr $m8, $m9, 1\n  xor $m7, $m7, $m8\n  brz $m7, " << l << "c\n"
         << negate64("$m0", "$m1", "$m8") << l << "c:\n  mov $m2, $m4\n  mov $m3, $m5\n"
         << "  and $m7, $m9, 1\n  brz $m7, " << l << "d\n" << negate64("$m2", "$m3", "$m8") << l << "d:\n  br $m10\n";
    } else if (n == "__ipucc_u64tof32") {
      os << u64ToF32(".L" + n + "_", "  br $m10\n");
    } else if (n == "__ipucc_s64tof32") {
      std::string l = ".L" + n + "_";
      os << "  shr $m9, $m1, 31\n  brz $m9, " << l << "pos\n" << negate64("$m0", "$m1", "$m8") << l << "pos:\n"
         << u64ToF32(l, "  brz $m9, " + l + "out\n  or $a0, $a0, 2147483648\n" + l + "out:\n  br $m10\n");
    } else if (n == "__ipucc_f32tou64" || n == "__ipucc_f32tos64") {
      os << f32To64(".L" + n + "_", n == "__ipucc_f32tos64");
    } else if (n == "__ipucc_mul64") {
      // Low 64 bits of (x1:x0) * (y1:y0) from 16-bit partial products (mul keeps 32 bits).
      os << "  mul $m4, $m0, $m3\n  mul $m5, $m1, $m2\n  add $m4, $m4, $m5\n"          // cross terms -> high
            "  shr $m5, $m0, 16\n  shr $m6, $m2, 16\n"                                   // x0h, y0h
            "  shl $m7, $m0, 16\n  shr $m7, $m7, 16\n  shl $m8, $m2, 16\n  shr $m8, $m8, 16\n" // x0l, y0l
            "  mul $m9, $m5, $m6\n  add $m4, $m4, $m9\n"                                 // x0h*y0h -> high
            "  mul $m9, $m7, $m8\n"                                                      // low product
            "  mul $m5, $m5, $m8\n  mul $m6, $m6, $m7\n"                                 // middles
            "  shr $m7, $m5, 16\n  add $m4, $m4, $m7\n  shr $m7, $m6, 16\n  add $m4, $m4, $m7\n"
            "  shl $m5, $m5, 16\n  add $m0, $m9, $m5\n  cmpult $m7, $m0, $m9\n  add $m4, $m4, $m7\n"
            "  shl $m6, $m6, 16\n  add $m9, $m0, $m6\n  cmpult $m7, $m9, $m0\n  add $m4, $m4, $m7\n"
            "  mov $m0, $m9\n  mov $m1, $m4\n  br $m10\n";
    }
    os << ".size " << n << ", .-" << n << "\n";
  }
  return os.str();
}

} // namespace ipusim::cc::mir
