// compileCodelet: frontend -> optimiser -> backend -> assembler, and the vertex-layout metadata.
#include "Backend.h"
#include "Frontend.h"

#include "ipusim/cc/Assembler.h"
#include "ipusim/cc/Compiler.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Operator.h>
#include <llvm/IR/Verifier.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <functional>
#include <cstdlib>
#include <set>
#include <sstream>

namespace ipusim::cc {

using namespace llvm;

namespace {

std::string demangledName(const Function &f) {
  if (const DISubprogram *sp = f.getSubprogram()) return sp->getName().str();
  return f.getName().str();
}

std::string locationOf(const Function &f) {
  if (const DISubprogram *sp = f.getSubprogram())
    return sp->getFilename().str() + ":" + std::to_string(sp->getLine()) + ":1";
  return f.getParent()->getSourceFileName();
}

// A cycle in the call graph has no bound on its stack use, and a worker's stack is fixed.
void checkRecursion(Module &m, std::vector<std::string> &errors) {
  std::map<const Function *, std::vector<const Function *>> callees;
  for (Function &f : m)
    for (const BasicBlock &bb : f)
      for (const Instruction &i : bb)
        if (auto *c = dyn_cast<CallInst>(&i))
          if (const Function *t = c->getCalledFunction(); t && !t->isDeclaration()) callees[&f].push_back(t);
  std::map<const Function *, int> state; // 1 on the stack, 2 done
  std::set<const Function *> reported;
  std::function<void(const Function *, std::vector<const Function *> &)> visit =
      [&](const Function *f, std::vector<const Function *> &path) {
        state[f] = 1;
        path.push_back(f);
        for (const Function *t : callees[f]) {
          if (state[t] == 1 && !reported.count(t)) {
            reported.insert(t);
            std::string cycle;
            bool on = false;
            for (const Function *p : path) {
              if (p == t) on = true;
              if (on) cycle += demangledName(*p) + " -> ";
            }
            cycle += demangledName(*t);
            errors.push_back(locationOf(*t) + ": error: recursion (" + cycle +
                             ") has no bound on its stack use; IPU worker stacks have a fixed size");
          } else if (state[t] == 0)
            visit(t, path);
        }
        path.pop_back();
        state[f] = 2;
      };
  for (Function &f : m)
    if (!f.isDeclaration() && state[&f] == 0) {
      std::vector<const Function *> path;
      visit(&f, path);
    }
}

} // namespace

namespace {

// Globals (constant tables, static data) as assembler data.
std::string printGlobals(Module &m, std::vector<std::string> &errors) {
  std::ostringstream os;
  const DataLayout &dl = m.getDataLayout();
  for (GlobalVariable &g : m.globals()) {
    if (g.isDeclaration()) {
      errors.push_back(m.getSourceFileName() + ": error: '" + g.getName().str() + "' is declared but not defined in this file");
      continue;
    }
    if (g.getName().starts_with("llvm.")) continue;
    uint64_t size = dl.getTypeAllocSize(g.getValueType());
    unsigned align = std::max<unsigned>(4, unsigned(g.getAlign().valueOrOne().value()));
    bool zero = g.getInitializer()->isNullValue();
    os << "\n.section " << (zero ? ".bss." : g.isConstant() ? ".rodata." : ".data.") << g.getName().str()
       << (zero ? ", \"aw\", @nobits" : "") << "\n.align " << align << "\n";
    if (!g.hasLocalLinkage()) os << ".globl " << g.getName().str() << "\n";
    os << ".type " << g.getName().str() << ", @object\n" << g.getName().str() << ":\n";
    if (zero) {
      os << "  .zero " << size << "\n";
      continue;
    }
    std::function<void(Constant *)> emit = [&](Constant *c) {
      Type *t = c->getType();
      if (auto *ci = dyn_cast<ConstantInt>(c)) {
        unsigned bytes = unsigned(dl.getTypeAllocSize(t));
        uint64_t v = ci->getValue().getZExtValue();
        if (bytes == 1) os << "  .byte " << (v & 0xFF) << "\n";
        else if (bytes == 2) os << "  .short " << (v & 0xFFFF) << "\n";
        else if (bytes == 4) os << "  .int " << (v & 0xFFFFFFFF) << "\n";
        else os << "  .int " << (v & 0xFFFFFFFF) << "\n  .int " << (v >> 32) << "\n";
        return;
      }
      if (auto *cf = dyn_cast<ConstantFP>(c)) {
        uint64_t v = cf->getValueAPF().bitcastToAPInt().getZExtValue();
        if (t->isHalfTy()) os << "  .short " << v << "\n";
        else if (t->isFloatTy()) os << "  .int " << v << "\n";
        else os << "  .int " << (v & 0xFFFFFFFF) << "\n  .int " << (v >> 32) << "\n";
        return;
      }
      if (isa<ConstantPointerNull>(c)) { os << "  .int 0\n"; return; }
      if (auto *gv = dyn_cast<GlobalValue>(c)) { os << "  .int " << gv->getName().str() << "\n"; return; }
      if (auto *cds = dyn_cast<ConstantDataSequential>(c)) {
        for (unsigned i = 0; i < cds->getNumElements(); ++i) emit(cds->getElementAsConstant(i));
        return;
      }
      if (isa<ConstantAggregateZero>(c) || isa<UndefValue>(c)) {
        os << "  .zero " << dl.getTypeAllocSize(t) << "\n";
        return;
      }
      if (auto *cs = dyn_cast<ConstantStruct>(c)) {
        const StructLayout *sl = dl.getStructLayout(cs->getType());
        uint64_t at = 0;
        for (unsigned i = 0; i < cs->getNumOperands(); ++i) {
          uint64_t off = sl->getElementOffset(i);
          if (off > at) os << "  .zero " << off - at << "\n";
          emit(cs->getOperand(i));
          at = off + dl.getTypeAllocSize(cs->getOperand(i)->getType());
        }
        if (sl->getSizeInBytes() > at) os << "  .zero " << sl->getSizeInBytes() - at << "\n";
        return;
      }
      if (isa<ConstantArray>(c) || isa<ConstantVector>(c)) {
        for (unsigned i = 0; i < c->getNumOperands(); ++i) emit(cast<Constant>(c->getOperand(i)));
        return;
      }
      if (auto *ce = dyn_cast<ConstantExpr>(c)) {
        APInt off(32, 0);
        if (auto *gep = dyn_cast<GEPOperator>(ce); gep && gep->accumulateConstantOffset(dl, off)) {
          os << "  .int " << gep->getPointerOperand()->getName().str() << "+" << off.getSExtValue() << "\n";
          return;
        }
      }
      errors.push_back(m.getSourceFileName() + ": error: unsupported initialiser of '" + g.getName().str() + "'");
    };
    emit(g.getInitializer());
  }
  return os.str();
}

} // namespace

std::string generateAssembly(Module &module, const std::map<std::string, EntryKind> &entries) {
  std::vector<std::string> errors, runtime;
  checkRecursion(module, errors);
  std::ostringstream os;
  os << "// Generated by ipu-cc from " << module.getSourceFileName() << "\n.allow_optimizations\n";
  std::set<const Function *> supervisorCode;
  std::map<std::string, uint32_t> frames;
  std::map<std::string, std::set<std::string>> callees;
  std::vector<std::string> entryNames;
  for (Function &f : module) {
    if (f.isDeclaration()) continue;
    auto it = entries.find(f.getName().str());
    EntryKind kind = it == entries.end() ? EntryKind::None : it->second;
    if (kind == EntryKind::Supervisor) supervisorCode.insert(&f);
    if (kind == EntryKind::None && f.hasLocalLinkage() && f.use_empty()) continue;
  }
  for (Function &f : module) {
    if (f.isDeclaration()) continue;
    auto it = entries.find(f.getName().str());
    EntryKind kind = it == entries.end() ? EntryKind::None : it->second;
    if (kind == EntryKind::None && f.hasLocalLinkage() && f.use_empty()) continue;
    // A SupervisorVertex's compute() and what it calls are inlined into its entry; the copy an
    // explicit instantiation keeps has no callers left and is supervisor code (poplibs' SeqSlice
    // writes `sync` in it). Called from worker code, it stays worker code.
    bool supervisor = kind == EntryKind::Supervisor ||
                      (kind == EntryKind::None && f.hasFnAttribute("ipucc-supervisor-code") && f.use_empty());
    size_t before = errors.size();
    mir::MFunction mf = mir::selectFunction(f, kind, supervisor, errors, runtime);
    // Supervisor code may call ipu-cc's integer runtime routines (MRF only, fine in either mode),
    // nothing else: callees are compiled as worker code.
    if (supervisor)
      for (const mir::MBlock &b : mf.blocks)
        for (const mir::MInst &in : b.insts)
          if (in.call && in.ops.size() > 1) {
            std::string callee = in.ops[1].text;
            bool integerRoutine = callee.rfind("__ipucc_", 0) == 0 && callee.find("f32") == std::string::npos;
            if (!integerRoutine)
              errors.push_back(locationOf(f) + ": error: a SupervisorVertex may not call '" + callee +
                               "', which was not inlined (ipu-cc compiles callees as worker code)");
          }
    if (errors.size() != before) continue;
    mir::allocateRegisters(mf);
    os << mir::printFunction(mf);
    frames[mf.name] = mf.frameBytes;
    for (const mir::MBlock &b : mf.blocks)
      for (const mir::MInst &in : b.insts)
        if (in.call && in.ops.size() > 1) callees[mf.name].insert(in.ops[1].text);
    if (kind != EntryKind::None) entryNames.push_back(mf.name);
  }
  // Each vertex entry's stack use (its frame and its deepest chain of callees; recursion is an
  // error above), recorded as StackSizeDefs.hpp's DEF_STACK_USAGE does for assembly, so the graph
  // compiler sizes worker and supervisor stacks from the code they run. ipu-cc's runtime
  // routines use no stack. An entry that reaches a function of another codelet file gets its
  // stack_usage from ipu-ld, which adds up the `NAME.stack_size_own` (StackSizeDefs.hpp's
  // DEF_STACK_SIZE_OWN) recorded here for every function along the calls (Linker.cpp).
  std::map<std::string, uint32_t> depth;
  std::map<std::string, bool> inFile; // every callee along the chains is in this file
  std::function<uint32_t(const std::string &)> stackOf = [&](const std::string &fn) -> uint32_t {
    if (auto d = depth.find(fn); d != depth.end()) return d->second;
    depth[fn] = 0;
    inFile[fn] = true;
    uint32_t deepest = 0;
    for (const std::string &c : callees[fn]) {
      deepest = std::max(deepest, stackOf(c));
      if (!inFile[c]) inFile[fn] = false;
    }
    auto it = frames.find(fn);
    if (it == frames.end() && fn.rfind("__ipucc_", 0) != 0) inFile[fn] = false;
    return depth[fn] = (it == frames.end() ? 0 : it->second) + deepest;
  };
  for (const auto &[fn, bytes] : frames) {
    const Function *f = module.getFunction(fn);
    const bool local = f && f->hasLocalLinkage() && !entries.count(fn);
    const bool weak = f && !local && (f->hasLinkOnceLinkage() || f->hasWeakLinkage());
    if (!local) os << (weak ? "\n.weak " : "\n.globl ") << fn << ".stack_size_own";
    os << "\n.set " << fn << ".stack_size_own, " << bytes << "\n";
  }
  for (const std::string &e : entryNames) {
    const uint32_t use = stackOf(e);
    if (inFile[e]) os << "\n.globl " << e << ".stack_usage\n.set " << e << ".stack_usage, " << use << "\n";
  }
  os << printGlobals(module, errors);
  os << mir::runtimeRoutines(runtime);
  if (!errors.empty()) {
    std::string all;
    std::set<std::string> seen;
    for (const std::string &e : errors)
      if (seen.insert(e).second) all += e + "\n";
    throw CompileError(all);
  }
  return os.str();
}

CompileResult compileCodelet(const std::string &path, const CompileOptions &options) {
  LLVMContext context;
  FrontendResult fe = runFrontend(path, options, context);
  if (verifyModule(*fe.module, &errs())) throw CompileError(path + ": error: internal: clang produced invalid IR\n");
  std::vector<std::string> supervisors;
  std::map<std::string, std::set<int64_t>> entries; // entry -> offsets of its interleaved fields
  for (auto &[name, kind] : fe.entries) {
    if (kind == EntryKind::Supervisor) supervisors.push_back(name);
    entries[name];
  }
  for (const VertexLayout &v : fe.vertices)
    for (const VertexField &f : v.fields)
      if (f.interleaved) entries[v.entrySymbol].insert(f.offset);
  optimizeModule(*fe.module, options.optLevel, supervisors, entries);
  CompileResult r;
  r.vertices = fe.vertices;
  r.warnings = fe.warnings;
  r.assembly = generateAssembly(*fe.module, fe.entries);
  if (std::getenv("IPU_CC_DUMP_ASM")) std::fputs(r.assembly.c_str(), stderr); // for debugging ipu-cc itself
  try {
    r.object = assembleText(r.assembly, path + ".s");
  } catch (const AssemblyError &e) {
    // Errors the user's inline assembly causes point at their C++ lines; only the rest are ours.
    const std::string what = e.what();
    if (what.find(".ipucc") == std::string::npos && what.find(path) != std::string::npos) throw CompileError(what);
    throw CompileError(std::string("internal: the generated assembly does not assemble:\n") + what);
  }
  Section meta;
  meta.name = ".ipu.vertices";
  meta.type = 1;
  meta.flags = 0;
  std::string json = vertexLayoutsToJson(r.vertices);
  meta.data.assign(json.begin(), json.end());
  meta.size = uint32_t(meta.data.size());
  r.object.sections.push_back(meta);
  return r;
}

} // namespace ipusim::cc
