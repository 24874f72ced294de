// Register allocation: liveness, aggressive copy coalescing, greedy colouring over register
// units (an ARF pair takes two aligned units, a quad four) and spilling to the stack frame,
// repeated until everything fits.
#include "Backend.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>

namespace ipusim::cc::mir {

namespace {

// Items tracked by liveness: physical register units 0-31 and virtual registers.
using Item = int;

bool tracked(int phys) {
  // $m11 ($sp), $m12, $m13 (worker and vertex bases), $m15 / $a14 / $a15 (zeros) are never allocated.
  return phys != kSP && phys != kWorkerBase && phys != kVertexBase && phys != kMZero && phys != kAZero && phys != kAZeros &&
         phys != kAZeros + 1;
}

void itemsOf(const MOp &o, std::vector<Item> &out) {
  if (o.kind != MOp::Reg) return;
  if (isVirtual(o.reg)) return out.push_back(o.reg);
  unsigned w = widthOf(o.rc); // a lane operand names part of a register group
  int base = o.first();
  for (unsigned i = 0; i < w; ++i)
    if (tracked(base + int(i))) out.push_back(base + int(i));
}

struct Effects {
  std::vector<Item> uses, defs;
};

// What an instruction reads and writes. A call clobbers every allocatable register, a short
// call (a runtime routine) only its listed ones.
Effects effectsOf(const MInst &in, const MFunction &mf) {
  Effects e;
  for (const MOp &o : in.ops) {
    if (o.kind != MOp::Reg) continue;
    if (o.use || o.postInc) itemsOf(o, e.uses);
    if (o.def) {
      if (o.lane && isVirtual(o.reg)) itemsOf(o, e.uses); // a lane def keeps the rest
      itemsOf(o, e.defs);
    }
  }
  if (in.call && !in.shortCall)
    for (int r = 0; r < 32; ++r)
      if (tracked(r) && (r < 11 || (r >= kA0 && r < kA0 + 8))) e.defs.push_back(r);
  for (int r : in.clobbers)
    if (tracked(r)) e.defs.push_back(r);
  (void)mf;
  return e;
}

struct Liveness {
  std::vector<std::set<Item>> liveOut;
};

Liveness computeLiveness(const MFunction &mf) {
  size_t n = mf.blocks.size();
  std::vector<std::set<Item>> use(n), def(n);
  for (size_t b = 0; b < n; ++b)
    for (const MInst &in : mf.blocks[b].insts) {
      Effects e = effectsOf(in, mf);
      for (Item u : e.uses)
        if (!def[b].count(u)) use[b].insert(u);
      for (Item d : e.defs) def[b].insert(d);
    }
  Liveness l;
  l.liveOut.assign(n, {});
  std::vector<std::set<Item>> liveIn(n);
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t b = n; b-- > 0;) {
      std::set<Item> out;
      for (int s : mf.blocks[b].succs) out.insert(liveIn[size_t(s)].begin(), liveIn[size_t(s)].end());
      std::set<Item> in = use[b];
      for (Item i : out)
        if (!def[b].count(i)) in.insert(i);
      if (out != l.liveOut[b] || in != liveIn[b]) {
        l.liveOut[b] = std::move(out);
        liveIn[b] = std::move(in);
        changed = true;
      }
    }
  }
  return l;
}

bool isCopy(const MInst &in) {
  return in.mnemonic == "mov" && in.asmText.empty() && in.ops.size() == 2 && in.ops[0].kind == MOp::Reg &&
         in.ops[1].kind == MOp::Reg && !in.ops[0].lane && !in.ops[1].lane && in.ops[0].rc == in.ops[1].rc;
}

struct Graph {
  std::map<int, std::set<int>> adj;          // vreg -> interfering vregs
  std::map<int, uint64_t> forbidden;         // vreg -> physical units it may not use
  std::map<int, uint64_t> uses;              // vreg -> occurrences, 8^loop depth each (spill cost)
  std::map<int, bool> acrossCall;
};

void interfere(Graph &g, Item a, Item b) {
  if (a == b) return;
  bool va = isVirtual(a), vb = isVirtual(b);
  if (va && vb) g.adj[a].insert(b), g.adj[b].insert(a);
  else if (va) g.forbidden[a] |= uint64_t(1) << b;
  else if (vb) g.forbidden[b] |= uint64_t(1) << a;
}

Graph buildGraph(const MFunction &mf) {
  Liveness l = computeLiveness(mf);
  Graph g;
  for (size_t b = 0; b < mf.blocks.size(); ++b) {
    std::set<Item> live = l.liveOut[b];
    // A use inside loops costs its reloads once an iteration: spill the outer loops' values first
    // (each use weighs 8^loop depth, as Chaitin-Briggs allocators weigh by loop frequency. Measured
    // 2026-11-27: the MNIST step 233.8 k cycles unweighted, 231.2 k at 8^depth, 230.0 k at 2^depth;
    // BM_PartialTranspose 424 k at 8^depth, 439 k at 2^depth; BM_TopK 68.5 k unweighted, 74.6 k
    // weighted: the choice of what to spill is a heuristic either way, see performance.md).
    const uint64_t weight = uint64_t(1) << (3 * std::min(mf.blocks[b].loopDepth, 6u));
    const auto &insts = mf.blocks[b].insts;
    for (size_t k = insts.size(); k-- > 0;) {
      const MInst &in = insts[k];
      Effects e = effectsOf(in, mf);
      int copySrc = isCopy(in) && isVirtual(in.ops[1].reg) ? in.ops[1].reg : -1;
      for (Item d : e.defs) {
        for (Item x : live)
          if (x != copySrc) interfere(g, d, x);
        if (isVirtual(d)) g.adj[d];
      }
      if (in.call && !in.shortCall)
        for (Item x : live)
          if (isVirtual(x)) g.acrossCall[x] = true;
      for (Item d : e.defs) live.erase(d);
      for (Item u : e.uses) {
        live.insert(u);
        if (isVirtual(u)) g.adj[u], g.uses[u] += weight;
      }
      // Inline assembly's clobbered registers hold none of its operands (as GCC's rule).
      for (int r : in.clobbers)
        if (tracked(r))
          for (Item u : e.uses) interfere(g, r, u);
      // An early-clobber output ("=&r") may not share a register with any input.
      for (const MOp &o : in.ops)
        if (o.kind == MOp::Reg && o.def && o.earlyClobber) {
          std::vector<Item> d;
          itemsOf(o, d);
          for (Item x : d)
            for (Item u : e.uses) interfere(g, x, u);
        }
      // makepair writes the low register first: its high source must not be in the pair.
      if ((in.mnemonic == "makepair" || in.mnemonic == "makequad") && in.ops[2].kind == MOp::Reg) {
        std::vector<Item> hi;
        itemsOf(in.ops[2], hi);
        for (Item d : e.defs)
          for (Item h : hi) interfere(g, d, h);
      }
      // Two defs of one instruction interfere with each other.
      for (Item a : e.defs)
        for (Item c : e.defs) interfere(g, a, c);
    }
  }
  return g;
}

// Registers that colouring may hand out, per class, as unit masks.
std::vector<uint64_t> candidates(RegClass c, const MFunction &mf) {
  std::vector<uint64_t> out;
  if (c == RegClass::MP) { // $m0:1 .. $m8:9 ($m10:11 holds $sp)
    for (int r = 0; r + 1 <= (mf.supervisor ? 8 : 9); r += 2) out.push_back(uint64_t(3) << r);
    return out;
  }
  if (c == RegClass::M) {
    // Supervisor vertices keep $m9 and $m10 ($lr) for their caller (asm-dialect §3.1).
    int last = mf.entry == EntryKind::Worker ? 10 : mf.supervisor ? 8 : 9;
    for (int r = 0; r <= last; ++r) out.push_back(uint64_t(1) << r);
    return out;
  }
  unsigned w = widthOf(c);
  for (unsigned r = 0; r + w <= 8; r += w) out.push_back(((uint64_t(1) << w) - 1) << (kA0 + int(r)));
  return out;
}

int firstUnit(uint64_t mask) { return __builtin_ctzll(mask); }

void renameAll(MFunction &mf, const std::map<int, int> &to) {
  for (MBlock &b : mf.blocks)
    for (MInst &in : b.insts)
      for (MOp &o : in.ops)
        if (o.kind == MOp::Reg) {
          auto it = to.find(o.reg);
          if (it != to.end()) o.reg = it->second;
        }
}

// Merges copy-related virtual registers that do not interfere (and share a class).
bool coalesce(MFunction &mf, Graph &g, std::set<int> &temps) {
  std::map<int, int> parent;
  std::function<int(int)> find = [&](int x) {
    auto it = parent.find(x);
    if (it == parent.end() || it->second == x) return x;
    return it->second = find(it->second);
  };
  bool any = false;
  for (MBlock &b : mf.blocks)
    for (MInst &in : b.insts) {
      if (!isCopy(in)) continue;
      int d = find(in.ops[0].reg), s = find(in.ops[1].reg);
      if (d == s) continue;
      if (isVirtual(d) && isVirtual(s)) {
        if (mf.classOf(d) != mf.classOf(s) || g.adj[d].count(s)) continue;
        if (g.acrossCall[d] != g.acrossCall[s]) continue;
        // Merge s into d. The result is a short-lived spill temporary only if both were.
        parent[s] = d;
        if (!temps.count(s)) temps.erase(d);
        for (int n : g.adj[s]) {
          g.adj[n].erase(s);
          g.adj[n].insert(d);
          g.adj[d].insert(n);
        }
        g.adj.erase(s);
        g.forbidden[d] |= g.forbidden[s];
        g.uses[d] += g.uses[s];
        any = true;
      }
    }
  if (!any) return false;
  std::map<int, int> to;
  for (auto &[k, v] : parent) to[k] = find(k);
  renameAll(mf, to);
  // Drop the copies that became `mov x, x`.
  for (MBlock &b : mf.blocks)
    b.insts.erase(std::remove_if(b.insts.begin(), b.insts.end(),
                                 [](const MInst &in) { return isCopy(in) && in.ops[0].reg == in.ops[1].reg; }),
                  b.insts.end());
  return true;
}

uint32_t slotFor(MFunction &mf, RegClass c) {
  uint32_t size = c == RegClass::M || c == RegClass::A ? 4 : c == RegClass::AP ? 8 : 16;
  uint32_t align = size >= 8 ? 8 : 4;
  uint32_t off = (mf.localBytes + mf.spillBytes + align - 1) / align * align;
  mf.spillBytes = off + size - mf.localBytes;
  return off;
}

// A load or store of a spill slot, appended to `out`. Slots lie above the locals, so behind a
// large array they can be beyond the scaled 12-bit immediate (4095 words): then the offset goes
// in a fresh delta register (a short-lived temporary, set with setzi).
MInst &spillInst(std::vector<MInst> &out, MFunction &mf, std::set<int> &temps, const char *mn, int reg, RegClass c,
                 uint32_t offset, bool def) {
  MInst m;
  m.mnemonic = mn;
  MOp r = def ? MOp::def_(reg, c) : MOp::use_(reg, c);
  unsigned size = c == RegClass::AP ? 8 : 4;
  if (offset / size <= 4095) {
    m.ops = {r, MOp::use_(kSP, RegClass::M), MOp::use_(kMZero, RegClass::M), MOp::imm_(offset / size)};
  } else {
    const int delta = mf.newVreg(RegClass::M);
    temps.insert(delta);
    MInst set;
    set.mnemonic = "setzi";
    set.ops = {MOp::def_(delta, RegClass::M), MOp::imm_(offset)};
    out.push_back(set);
    m.ops = {r, MOp::use_(kSP, RegClass::M), MOp::use_(delta, RegClass::M), MOp::imm_(0)};
  }
  if (def) m.mayLoad = true;
  else m.mayStore = true;
  out.push_back(m);
  return out.back();
}

// Every def of `v` is followed by a store to its slot; every use reads the slot into a fresh register.
void spill(MFunction &mf, int v, std::set<int> &temps) {
  RegClass c = mf.classOf(v);
  if (c == RegClass::MP) throw CompileError(mf.location + ": error: too many live values for the MRF (a packed address pair cannot be spilled)\n");
  uint32_t off = slotFor(mf, c);
  const char *ld = c == RegClass::AP ? "ld64" : "ld32";
  const char *st = c == RegClass::AP ? "st64" : "st32";
  for (MBlock &b : mf.blocks) {
    std::vector<MInst> out;
    for (MInst &in : b.insts) {
      bool uses = false, defs = false;
      for (const MOp &o : in.ops)
        if (o.kind == MOp::Reg && o.reg == v) {
          if (o.use || o.postInc || o.lane) uses = true;
          if (o.def) defs = true;
        }
      if (!uses && !defs) { out.push_back(std::move(in)); continue; }
      int t = mf.newVreg(c);
      temps.insert(t);
      if (uses && c == RegClass::AQ) { // a quad: two 64-bit halves, joined
        int h[2];
        for (int k = 0; k < 2; ++k) {
          h[k] = mf.newVreg(RegClass::AP);
          temps.insert(h[k]);
          spillInst(out, mf, temps, "ld64", h[k], RegClass::AP, off + 8 * uint32_t(k), true);
        }
        MInst j;
        j.mnemonic = "makequad";
        j.aux = true;
        j.ops = {MOp::def_(t, c), MOp::use_(h[0], RegClass::AP), MOp::use_(h[1], RegClass::AP)};
        out.push_back(j);
      } else if (uses)
        spillInst(out, mf, temps, ld, t, c, off, true);
      for (MOp &o : in.ops)
        if (o.kind == MOp::Reg && o.reg == v) o.reg = t;
      bool term = in.terminator;
      out.push_back(std::move(in));
      if (term && defs) throw CompileError(mf.location + ": error: internal: a terminator defines a spilled value\n");
      if (defs && c == RegClass::AQ) {
        for (int k = 0; k < 2; ++k) spillInst(out, mf, temps, "st64", t, RegClass::AP, off + 8 * uint32_t(k), false).ops[0].lane = 2 * k + 1;
      } else if (defs) {
        spillInst(out, mf, temps, st, t, c, off, false);
      }
    }
    b.insts = std::move(out);
  }
}

// Removes instructions whose results nobody reads (address arithmetic folded into loads ...).
void eliminateDeadCode(MFunction &mf) {
  for (bool changed = true; changed;) {
    changed = false;
    Liveness l = computeLiveness(mf);
    for (size_t b = 0; b < mf.blocks.size(); ++b) {
      std::set<Item> live = l.liveOut[b];
      auto &insts = mf.blocks[b].insts;
      std::vector<bool> dead(insts.size(), false);
      for (size_t k = insts.size(); k-- > 0;) {
        const MInst &in = insts[k];
        Effects e = effectsOf(in, mf);
        bool removable = !in.mayStore && !in.barrier && !in.terminator && !in.call && !e.defs.empty();
        if (removable)
          for (Item d : e.defs)
            if (!isVirtual(d) || live.count(d)) removable = false;
        if (removable) {
          dead[k] = changed = true;
          continue;
        }
        for (Item d : e.defs) live.erase(d);
        for (Item u : e.uses) live.insert(u);
      }
      size_t w = 0;
      for (size_t k = 0; k < insts.size(); ++k)
        if (!dead[k]) {
          if (w != k) insts[w] = std::move(insts[k]);
          ++w;
        }
      insts.resize(w);
    }
  }
}

} // namespace

void allocateRegisters(MFunction &mf) {
  eliminateDeadCode(mf);
  std::set<int> spilled, temps; // spilled values; the short-lived registers their reloads use
  for (int round = 0; round < 400; ++round) {
    Graph g = buildGraph(mf);
    // Values live across a call go to the stack (every register is caller-saved).
    bool spilledAny = false;
    for (auto &[v, across] : g.acrossCall)
      if (across && !spilled.count(v)) {
        spill(mf, v, temps);
        spilled.insert(v);
        spilledAny = true;
      }
    if (spilledAny) continue;
    while (coalesce(mf, g, temps)) {}
    // Optimistic colouring (Chaitin-Briggs): repeatedly set aside a value whose neighbours in its
    // register file occupy fewer units than the file has left for it; when none is, set aside
    // the one with the fewest uses per neighbour. Colour in reverse order.
    std::vector<int> order;
    {
      std::map<int, unsigned> pressure; // units of same-file neighbours still in the graph
      auto sameFile = [&](int a, int b) { return isMrf(mf.classOf(a)) == isMrf(mf.classOf(b)); };
      std::set<int> remaining, low; // `low`: remaining values that will surely find a register
      std::map<RegClass, unsigned> unitsOfClass;
      auto unitsOf = [&](RegClass c) {
        auto [it, fresh] = unitsOfClass.emplace(c, 0u);
        if (fresh) it->second = unsigned(candidates(c, mf).size()) * widthOf(c);
        return it->second;
      };
      for (auto &[v, n] : g.adj) remaining.insert(v);
      auto isLow = [&](int v) {
        const RegClass c = mf.classOf(v);
        const unsigned units = unitsOf(c), forbidden = unsigned(__builtin_popcountll(g.forbidden[v]));
        return pressure[v] + widthOf(c) * 2 - 1 + forbidden <= units;
      };
      for (int v : remaining) {
        unsigned p = 0;
        for (int n : g.adj[v])
          if (sameFile(v, n)) p += widthOf(mf.classOf(n));
        pressure[v] = p;
        if (isLow(v)) low.insert(v);
      }
      // Each pick updates only its neighbours, so simplifying costs the graph's size, not the
      // values squared (issue 14: straight-line code with hundreds of live values).
      while (!remaining.empty()) {
        int pick = -1;
        if (!low.empty()) pick = *low.begin();
        else {
          double best = 1e30;
          for (int v : remaining) {
            double cost = double(g.uses[v] + 1) / double(pressure[v] + 1) + (spilled.count(v) ? 1e6 : 0);
            if (cost < best) best = cost, pick = v;
          }
        }
        remaining.erase(pick);
        low.erase(pick);
        for (int n : g.adj[pick])
          if (remaining.count(n) && sameFile(pick, n)) {
            pressure[n] -= widthOf(mf.classOf(pick));
            if (isLow(n)) low.insert(n);
          }
        order.push_back(pick);
      }
      std::reverse(order.begin(), order.end());
    }
    // In a repeat body that may be software pipelined (AsmPrinter.cpp schedules after allocation,
    // without renaming), values of the body prefer registers no other value of the body has:
    // a register reused inside the body ties iterations together.
    std::map<int, std::set<int>> mates;
    for (int bi : mf.independentBlocks) {
      std::set<int> inBody;
      for (const MInst &in : mf.blocks[size_t(bi)].insts)
        for (const MOp &o : in.ops)
          if (o.kind == MOp::Reg && isVirtual(o.reg)) inBody.insert(o.reg);
      for (int v : inBody) mates[v].insert(inBody.begin(), inBody.end());
    }
    // A value may reuse a register its defining instruction reads (its last use is there): that
    // creates no tie between iterations, so it is the fallback when the preference fails.
    std::map<int, std::set<int>> inputs;
    for (const MBlock &b : mf.blocks)
      for (const MInst &in : b.insts)
        for (const MOp &d : in.ops)
          if (d.kind == MOp::Reg && d.def && isVirtual(d.reg))
            for (const MOp &u : in.ops)
              if (u.kind == MOp::Reg && u.use && !u.def && isVirtual(u.reg) && !u.lane) inputs[d.reg].insert(u.reg);
    // Colour in order. When a value finds no register, spill the cheapest of it and its coloured
    // neighbours in the same register file (uses per neighbour; never a reload register, spilling
    // it again frees nothing) and go on: one round spills every value that must go, so the rounds
    // stay few however many values are live (issue 14).
    auto sameFile = [&](int a, int b) { return isMrf(mf.classOf(a)) == isMrf(mf.classOf(b)); };
    auto spillCost = [&](int v) { return double(g.uses[v] + 1) / double(g.adj[v].size() + 1); };
    std::map<int, uint64_t> colour;
    std::vector<int> toSpill;
    auto tryColour = [&](int v) {
      uint64_t busy = g.forbidden[v], soft = 0;
      for (int n : g.adj[v]) {
        auto it = colour.find(n);
        if (it != colour.end()) busy |= it->second;
      }
      for (int n : mates[v]) {
        auto it = colour.find(n);
        if (n != v && it != colour.end()) soft |= it->second;
      }
      uint64_t reusable = 0;
      for (int u : inputs[v]) {
        auto it = colour.find(u);
        if (it != colour.end()) reusable |= it->second;
      }
      for (uint64_t avoid : {busy | soft, busy | (soft & ~reusable), busy})
        for (uint64_t c : candidates(mf.classOf(v), mf))
          if (!(c & avoid)) {
            colour[v] = c;
            return true;
          }
      return false;
    };
    for (int v : order) {
      while (!tryColour(v)) {
        int best = -1;
        double bestCost = 1e30;
        auto consider = [&](int x) {
          if (temps.count(x) || mf.classOf(x) == RegClass::MP) return;
          if (double cost = spillCost(x); cost < bestCost) bestCost = cost, best = x;
        };
        consider(v);
        for (int n : g.adj[v])
          if (sameFile(n, v) && colour.count(n)) consider(n);
        if (best < 0) {
          if (std::getenv("IPU_CC_DEBUG_RA"))
            std::fprintf(stderr, "ra %s: no spill candidate for v%d class %d (temp %d, %zu neighbours)\n", mf.name.c_str(),
                         v, int(mf.classOf(v)), int(temps.count(v)), g.adj[v].size());
          throw CompileError(mf.location + ": error: too many values live at once for the register files\n");
        }
        toSpill.push_back(best);
        if (best == v) break;
        colour.erase(best); // its register goes to v
      }
    }
    if (toSpill.empty()) {
      std::map<int, int> to;
      for (auto &[v, c] : colour) to[v] = firstUnit(c);
      renameAll(mf, to);
      for (MBlock &b : mf.blocks)
        for (MInst &in : b.insts)
          for (MOp &o : in.ops)
            if (o.kind == MOp::Reg && isVirtual(o.reg))
              throw CompileError(mf.name + ": error: internal: register left unallocated\n");
      return;
    }
    for (int v : toSpill) {
      if (std::getenv("IPU_CC_DEBUG_RA"))
        std::fprintf(stderr, "ra %s round %d: spill v%d class %d (neighbours %zu, forbidden %llx)\n", mf.name.c_str(), round,
                     v, int(mf.classOf(v)), g.adj[v].size(), (unsigned long long)g.forbidden[v]);
      spill(mf, v, temps);
      spilled.insert(v);
    }
  }
  throw CompileError(mf.name + ": error: register allocation did not converge\n");
}

} // namespace ipusim::cc::mir
