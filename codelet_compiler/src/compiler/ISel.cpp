// Instruction selection: LLVM IR -> machine IR over virtual registers.
//
// Values live in MRF registers (integers, pointers, i1 as 0/1, i64 as two registers), ARF
// registers (float, half in the low 16 bits, <2 x half>) or ARF pairs (<2 x float>, <4 x half>).
// The tile stores only 32 and 64 bits at a time, so narrower stores read, merge and write a word.
// Calls follow ipu-cc's own convention (docs/ipu-cc.md): arguments in $m0-$m5 and $a0-$a7,
// results in $m0(:$m1) / $a0(:1), every register caller-saved.
#include "Backend.h"

#include "ipusim/arch/Isa.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GetElementPtrTypeIterator.h>
#include <llvm/IR/Operator.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <cstring>
#include <map>
#include <set>

namespace ipusim::cc::mir {

constexpr uint32_t kMaxFrameBytes = 32 * 1024; ///< bytes of locals one function's frame may hold

using namespace llvm;

namespace {

RegClass classOfType(Type *t) {
  if (t->isFloatTy() || t->isHalfTy()) return RegClass::A;
  if (auto *v = dyn_cast<FixedVectorType>(t)) {
    unsigned bits = v->getPrimitiveSizeInBits().getFixedValue();
    return bits == 32 ? RegClass::A : bits == 64 ? RegClass::AP : RegClass::AQ;
  }
  return RegClass::M;
}

// A 128-bit float vector (float4, half8): held as two ARF pairs, like i64 in two MRF registers,
// so each 64-bit half has its own live range (a quad register would tie the halves together).
bool isWide(Type *t) {
  auto *v = dyn_cast<FixedVectorType>(t);
  return v && (v->getElementType()->isFloatTy() || v->getElementType()->isHalfTy()) &&
         v->getPrimitiveSizeInBits().getFixedValue() == 128;
}
// Integers of 33 to 64 bits (LLVM's closed forms of sums use i33 ...) are held like i64 in two
// MRF registers, the bits above their width undefined until an operation needs them.
bool isWideInt(Type *t) { return t->isIntegerTy() && t->getIntegerBitWidth() > 32; }
// The scalar and vector leaves of a first-class aggregate ({float, i32}, [2 x i32]: what a
// std::tuple or a small struct passed by value becomes), in order; a non-aggregate is its own leaf.
void leavesOf(Type *t, std::vector<Type *> &out) {
  if (auto *st = dyn_cast<StructType>(t))
    for (Type *e : st->elements()) leavesOf(e, out);
  else if (auto *a = dyn_cast<ArrayType>(t))
    for (uint64_t i = 0; i < a->getNumElements(); ++i) leavesOf(a->getElementType(), out);
  else
    out.push_back(t);
}
int partsOf(Type *t) {
  if (t->isAggregateType()) { // an aggregate is held as its leaves' registers, flattened
    std::vector<Type *> leaves;
    leavesOf(t, leaves);
    int n = 0;
    for (Type *l : leaves) n += partsOf(l);
    return n;
  }
  return isWideInt(t) || isWide(t) ? 2 : 1;
}
// The first register (part) of the element that `indices` select in aggregate type `t`.
int partOffset(Type *t, ArrayRef<unsigned> indices) {
  int off = 0;
  for (unsigned idx : indices) {
    if (auto *st = dyn_cast<StructType>(t)) {
      for (unsigned k = 0; k < idx; ++k) off += partsOf(st->getElementType(k));
      t = st->getElementType(idx);
    } else {
      t = cast<ArrayType>(t)->getElementType();
      off += int(idx) * partsOf(t);
    }
  }
  return off;
}

// A 64-bit vector of integers (uint2, int2: tapack's packed addresses) in an inline-assembly
// "r" operand is an MRF pair: poplibs passes tapack's result so and uses it as `%[ptr]+=` of
// ld2x64pace, which takes an MRF pair. [I] docs/poplibs-compat.md
bool isIntPairVector(Type *t) {
  auto *v = dyn_cast<FixedVectorType>(t);
  return v && v->getElementType()->isIntegerTy() && v->getPrimitiveSizeInBits().getFixedValue() == 64;
}

bool isHalfVector(Type *t) {
  auto *v = dyn_cast<FixedVectorType>(t);
  return v && v->getElementType()->isHalfTy();
}

uint32_t floatBits(const APFloat &f) { return uint32_t(f.bitcastToAPInt().getZExtValue()); }

class Selector {
public:
  Selector(Function &f, EntryKind entry, bool supervisor, std::vector<std::string> &errors,
           std::vector<std::string> &runtime)
      : f_(f), errors_(errors), runtime_(runtime), dl_(f.getParent()->getDataLayout()) {
    mf_.name = f.getName().str();
    mf_.displayName = llvm::demangle(mf_.name);
    mf_.entry = entry;
    mf_.supervisor = supervisor;
    mf_.global = !f.hasLocalLinkage() || entry != EntryKind::None;
    mf_.weak = entry == EntryKind::None && (f.hasLinkOnceLinkage() || f.hasWeakLinkage());
    // Diagnostics about the whole function point at the function the code comes from (compute()
    // for an entry, whose code is inlined into the wrapper).
    mf_.location = f.getName().str();
    for (Instruction &i : instructions(f))
      if (const DebugLoc &dl = i.getDebugLoc()) {
        // The frame just inside the entry wrapper is compute(); inner frames are inlined helpers.
        // (The wrapper and its helpers live in the generated ".ipucc-entry.cpp".)
        const DILocation *loc = nullptr;
        for (const DILocation *l = dl.get(); l; l = l->getInlinedAt())
          if (!l->getFilename().ends_with(".ipucc-entry.cpp")) loc = l;
        if (!loc) continue;
        if (DISubprogram *sp = loc->getScope()->getSubprogram()) {
          std::string file = sp->getFilename().str();
          if (!file.empty() && file[0] != '/' && !sp->getDirectory().empty()) file = sp->getDirectory().str() + "/" + file;
          mf_.location = file + ":" + std::to_string(sp->getLine()) + ":3";
        }
        break;
      }
  }

  MFunction run() {
    int index = 0;
    const DominatorTree dominators(f_);
    const LoopInfo loops(dominators);
    for (BasicBlock &bb : f_) {
      blockIndex_[&bb] = index++;
      MBlock b;
      b.label = ".L" + mf_.name + "_" + std::to_string(index - 1);
      b.loopDepth = loops.getLoopDepth(&bb);
      mf_.blocks.push_back(b);
    }
    // The stack arguments of calls go at the bottom of the frame, locals above them.
    for (Instruction &i : instructions(f_))
      if (auto *c = dyn_cast<CallInst>(&i))
        if (Function *callee = c->getCalledFunction(); callee && !callee->isDeclaration() && !c->isInlineAsm()) {
          std::vector<Type *> types;
          for (Value *a : c->args()) types.push_back(a->getType());
          unsigned bytes = 0;
          assignArgs(types, &bytes);
          mf_.outgoingBytes = std::max(mf_.outgoingBytes, bytes);
        }
    mf_.localBytes = mf_.outgoingBytes;
    // Static allocas get frame offsets up front; loads and stores fold them as $sp + offset.
    for (Instruction &i : f_.getEntryBlock())
      if (auto *a = dyn_cast<AllocaInst>(&i)) {
        auto *size = dyn_cast<ConstantInt>(a->getArraySize());
        if (!size) { error(&i, "variable-length arrays need dynamic stack allocation, which the IPU does not support"); continue; }
        uint64_t bytes = dl_.getTypeAllocSize(a->getAllocatedType()) * size->getZExtValue();
        unsigned align = std::max<unsigned>(4, unsigned(a->getAlign().value()));
        if (align > 16) { error(&i, "a local variable aligned to more than 16 bytes is not supported (the stack is 16-aligned)"); continue; }
        mf_.maxAlign = std::max(mf_.maxAlign, align);
        mf_.localBytes = (mf_.localBytes + align - 1) / align * align;
        allocaOffset_[a] = mf_.localBytes;
        mf_.localBytes += uint32_t((bytes + 3) / 4 * 4);
        // Frame offsets are 16-bit signed ($sp-relative adds), and a worker's whole stack is
        // what its tile spares beside its data: 32 KiB is the most a frame may hold.
        if (mf_.localBytes > kMaxFrameBytes) {
          error(&i, "the local variables here need " + std::to_string(mf_.localBytes) +
                        " bytes of stack, more than a frame may hold (" + std::to_string(kMaxFrameBytes) +
                        "): keep large arrays in the vertex state (a Vector field) instead");
          mf_.localBytes = 0;
          break;
        }
      }
    for (BasicBlock &bb : f_) {
      cur_ = blockIndex_[&bb];
      if (&bb == &f_.getEntryBlock()) lowerArguments();
      findPostIncrements(bb);
      bool repeat = !mf_.supervisor && repeatCounter_.count(&bb) && repeatable(bb); // worker bundles only
      if (repeat) beginRepeat(bb);
      for (Instruction &i : bb) {
        inst_ = &i;
        if (!i.isTerminator() && !skip_.count(&i) && !(repeat && selectPace(i))) select(i);
      }
      inst_ = bb.getTerminator();
      if (repeat) endRepeat(bb);
      else {
        pinTerminatorOperands(*bb.getTerminator());
        lowerPhiCopies(bb);
        selectTerminator(*bb.getTerminator());
      }
      pace_ = Pace();
    }
    resolveAliases();
    return std::move(mf_);
  }

private:
  Function &f_;
  std::vector<std::string> &errors_;
  std::vector<std::string> &runtime_;
  const DataLayout &dl_;
  MFunction mf_;
  std::map<const BasicBlock *, int> blockIndex_;
  std::map<const Value *, std::vector<int>> regs_; // value -> its register(s)
  std::map<const AllocaInst *, uint32_t> allocaOffset_;
  int cur_ = 0;
  Instruction *inst_ = nullptr;
  int scratchOffset_ = -1; // 8 bytes to move values between the MRF and the ARF
  std::set<const Instruction *> skip_;                  // folded into another instruction
  std::map<const Instruction *, int64_t> postInc_;      // load/store -> post-increment in elements
  std::map<const BasicBlock *, int> repeatCounter_;     // loop block -> remaining-iterations register
  std::map<const BasicBlock *, int> repeatPreheader_;   // loop block -> the block computing its count
  std::map<const BasicBlock *, unsigned> repeatMost_;   // loop block -> its largest trip count (0: unknown)
  std::map<int, std::pair<int, int>> aliases_;          // register -> (quad, pair index) it names
  struct Pace {
    const Instruction *load0 = nullptr, *load1 = nullptr, *store = nullptr;
    int packed = -1, quad = -1;
  } pace_;

  // ---- post-increment addressing -----------------------------------------------------------
  // `x = load p; ...; p' = gep i8 p, C` with p a phi of this block fed back by p': the load
  // becomes a step form (ld64step ... $p+=, C / size) and the gep disappears (p' is p).
  static unsigned accessSize(const Instruction *i, const DataLayout &dl) {
    Type *t = isa<LoadInst>(i) ? i->getType() : cast<StoreInst>(i)->getValueOperand()->getType();
    return unsigned(dl.getTypeStoreSize(t));
  }
  void findPostIncrements(BasicBlock &bb) {
    for (PHINode &phi : bb.phis()) {
      if (!phi.getType()->isPointerTy() || phi.getBasicBlockIndex(&bb) < 0) continue;
      auto *gep = dyn_cast<GetElementPtrInst>(phi.getIncomingValueForBlock(&bb));
      if (!gep || gep->getParent() != &bb || gep->getPointerOperand() != &phi || gep->getNumIndices() != 1 ||
          !gep->getSourceElementType()->isIntegerTy(8) || !gep->hasOneUse())
        continue;
      auto *c = dyn_cast<ConstantInt>(gep->getOperand(1));
      if (!c) continue;
      Instruction *access = nullptr;
      bool ok = true;
      for (User *u : phi.users()) {
        if (u == gep) continue;
        auto *i = dyn_cast<Instruction>(u);
        bool isAccess = i && i->getParent() == &bb &&
                        ((isa<LoadInst>(i) && cast<LoadInst>(i)->getPointerOperand() == &phi) ||
                         (isa<StoreInst>(i) && cast<StoreInst>(i)->getPointerOperand() == &phi &&
                          cast<StoreInst>(i)->getValueOperand() != &phi));
        if (!isAccess || access) { ok = false; break; }
        access = i;
      }
      if (!ok || !access) continue;
      unsigned size = accessSize(access, dl_);
      int64_t step = c->getSExtValue();
      if (step % size || step / size < -128 || step / size > 127 || stepForm(access).empty()) continue;
      postInc_[access] = step / int64_t(size);
      skip_.insert(gep);
      regs_[gep] = regsOf(&phi);
    }
  }
  // The step mnemonic for an access, or "" (stores narrower than 32 bits have none).
  std::string stepForm(const Instruction *i) {
    Type *t = isa<LoadInst>(i) ? i->getType() : cast<StoreInst>(i)->getValueOperand()->getType();
    RegClass rc = classOfType(t);
    unsigned align = unsigned(isa<LoadInst>(i) ? cast<LoadInst>(i)->getAlign().value() : cast<StoreInst>(i)->getAlign().value());
    bool load = isa<LoadInst>(i);
    if (isWideInt(t) || align < granule(t)) return "";
    if (rc == RegClass::AP) return align >= 8 ? (load ? "ld64step" : "st64step") : "";
    if (t->isIntegerTy(32) || t->isPointerTy() || t->isFloatTy() || (rc == RegClass::A && !t->isHalfTy()))
      return align >= 4 ? (load ? "ld32step" : "st32step") : "";
    if (!load) return "";
    bool sext = i->hasOneUse() && isa<SExtInst>(*i->user_begin());
    if (t->isHalfTy()) return "ldb16step";
    if (t->isIntegerTy(16)) return sext ? "lds16step" : "ldz16step";
    if (t->isIntegerTy(8)) return sext ? "lds8step" : "ldz8step";
    return "";
  }

  // ---- repeat loops --------------------------------------------------------------------------
  // A counted single-block loop runs under `rpt` (zero-overhead, asm-dialect §3.4) when nothing
  // in it is a control or system instruction (illegal in a repeat body).
  bool repeatable(BasicBlock &bb) {
    auto *br = dyn_cast<BranchInst>(bb.getTerminator());
    if (!br || !br->isConditional() || (br->getSuccessor(0) != &bb && br->getSuccessor(1) != &bb)) return false;
    for (Instruction &i : bb) {
      if (auto *c = dyn_cast<CallInst>(&i)) {
        if (c->isInlineAsm()) {
          std::string t = cast<InlineAsm>(c->getCalledOperand())->getAsmString();
          size_t b = t.find_first_not_of(" \t\n");
          std::string mn = b == std::string::npos ? "" : t.substr(b, t.find_first_of(" \t\n;", b) - b);
          auto v = arch::variantsOf(mn);
          if (v.empty() || v[0]->has(arch::kControl) || v[0]->has(arch::kSystem) || t.find_first_of(";\n", b) != std::string::npos) return false;
          continue;
        }
        auto *ii = dyn_cast<IntrinsicInst>(c);
        if (!ii) return false;
        switch (ii->getIntrinsicID()) {
        case Intrinsic::memcpy: case Intrinsic::memmove: case Intrinsic::memset: case Intrinsic::trap: return false;
        default: break;
        }
      }
      if (auto *b = dyn_cast<BinaryOperator>(&i)) { // operations done by a runtime routine (a call)
        auto op = b->getOpcode();
        if (op == Instruction::UDiv || op == Instruction::SDiv || op == Instruction::URem || op == Instruction::SRem) return false;
        if (isWideInt(b->getType()) && (op == Instruction::Mul || (b->isShift() && !isa<ConstantInt>(b->getOperand(1)))))
          return false;
      }
      if (auto *c = dyn_cast<CastInst>(&i))
        if (isWideInt(c->getSrcTy()) || isWideInt(c->getDestTy()))
          if (isa<SIToFPInst>(c) || isa<UIToFPInst>(c) || isa<FPToSIInst>(c) || isa<FPToUIInst>(c)) return false;
      if (isa<SelectInst>(&i) && classOfType(i.getType()) != RegClass::M) continue;
      if (isa<SwitchInst>(&i)) return false;
      // (Narrow stores are fine: their read-merge-write has no branches.)
    }
    return true;
  }
  void beginRepeat(BasicBlock &bb) {
    auto *br = cast<BranchInst>(bb.getTerminator());
    // The exit test and the counter that feeds only it disappear: rpt counts instead.
    if (auto *cmp = dyn_cast<ICmpInst>(br->getCondition()); cmp && cmp->hasOneUse() && cmp->getParent() == &bb) {
      skip_.insert(cmp);
      for (Value *op : cmp->operands())
        if (auto *add = dyn_cast<BinaryOperator>(op); add && add->getParent() == &bb && add->getOpcode() == Instruction::Add)
          if (auto *phi = dyn_cast<PHINode>(add->getOperand(0)); phi && phi->getParent() == &bb && phi->hasOneUse()) {
            bool onlyLoop = true;
            for (User *u : add->users())
              if (u != phi && u != cmp) onlyLoop = false;
            if (onlyLoop) skip_.insert(add), skip_.insert(phi);
          }
    }
    planPace(bb);
    unsigned most = repeatMost_[&bb];
    // Overlapping iterations only pays when there can be several.
    if (iterationsIndependent(bb) && (most == 0 || most >= 4)) mf_.independentBlocks.push_back(cur_);
    int c = repeatCounter_[&bb];
    int n = c;
    if (most == 0 || most > 0xFFFF) {
      // rpt counts to $REPEAT_COUNT's 16 bits (asm-dialect §2.4): chunks of at most 65535.
      n = newM();
      emit("min", {D(n), U(c), I(0xFFFF)});
      emit("sub", {D(c), U(c), U(n)});
    }
    MInst &r = emit("rpt", {U(n), I(0)});
    r.ops[0].def = true; // a pipelined loop adjusts the count in place (AsmPrinter.cpp)
    r.barrier = true;
    hoistAt_ = int(block().insts.size()) - 1;
    hoisted_.clear();
    hoistedDefs_.clear();
    hoistedConstants_.clear();
    hoistedArfRegs_ = 0;
    block().repeatBody = true;
    block().repeatCount = n;
  }
  // Whether two accesses are in disjoint alias scopes: every scope of one is in the other's
  // noalias list (Optimize.cpp gives each vertex field a scope, Poplar's edges being disjoint).
  static bool disjoint(const Instruction *a, const Instruction *b) {
    auto covered = [](const Instruction *x, const Instruction *y) {
      const MDNode *scopes = x->getMetadata(LLVMContext::MD_alias_scope), *no = y->getMetadata(LLVMContext::MD_noalias);
      if (!scopes || !no || scopes->getNumOperands() == 0) return false;
      for (const MDOperand &s : scopes->operands())
        if (std::find(no->op_begin(), no->op_end(), s) == no->op_end()) return false;
      return true;
    };
    return covered(a, b) || covered(b, a);
  }
  // A repeat body may overlap its iterations (software pipelining) when no store can touch what
  // another access of a later iteration reads or writes.
  bool iterationsIndependent(BasicBlock &bb) {
    std::vector<const Instruction *> accesses;
    for (Instruction &i : bb) {
      if (isa<LoadInst>(&i) || isa<StoreInst>(&i)) accesses.push_back(&i);
      else if (i.mayReadOrWriteMemory() && !isa<IntrinsicInst>(&i)) return false;
    }
    for (const Instruction *st : accesses)
      if (isa<StoreInst>(st))
        for (const Instruction *other : accesses)
          if (other != st && !disjoint(st, other)) return false;
    return true;
  }

  // Two 64-bit loads and at most one 64-bit store a step of one atom each: one triple-packed
  // address register (tapack in the preheader) and the pace forms (asm-dialect §2.6), which the
  // scheduler fuses into ld2xst64pace when it overlaps iterations.
  void planPace(BasicBlock &bb) {
    pace_ = Pace();
    std::vector<const Instruction *> loads, stores;
    for (Instruction &i : bb) {
      auto it = postInc_.find(&i);
      if (it == postInc_.end() || it->second != 1) continue;
      Type *t = isa<LoadInst>(&i) ? i.getType() : cast<StoreInst>(&i)->getValueOperand()->getType();
      if (classOfType(t) != RegClass::AP || stepForm(&i).empty()) continue;
      (isa<LoadInst>(&i) ? loads : stores).push_back(&i);
    }
    if (loads.size() != 2 || stores.size() > 1 || !repeatPreheader_.count(&bb)) return;
    pace_.load0 = loads[0];
    pace_.load1 = loads[1];
    pace_.store = stores.empty() ? nullptr : stores[0];
    pace_.packed = newReg(RegClass::MP);
    pace_.quad = newReg(RegClass::AQ);
    auto pointer = [&](const Instruction *i) {
      const Value *p = isa<LoadInst>(i) ? cast<LoadInst>(i)->getPointerOperand() : cast<StoreInst>(i)->getPointerOperand();
      return regsOf(p)[0];
    };
    MInst t;
    t.mnemonic = "tapack";
    t.ops = {D(pace_.packed, RegClass::MP), U(pointer(pace_.load0)), U(pointer(pace_.load1)),
             U(pace_.store ? pointer(pace_.store) : kMZero)};
    auto &pre = mf_.blocks[size_t(repeatPreheader_[&bb])].insts;
    auto at = std::find_if(pre.begin(), pre.end(), [](const MInst &m) { return m.terminator; });
    pre.insert(at, t);
    for (int k = 0; k < 2; ++k) {
      int alias = newReg(RegClass::AP);
      aliases_[alias] = {pace_.quad, k};
      regs_[k ? pace_.load1 : pace_.load0] = {alias};
    }
    skip_.insert(pace_.load1);
  }
  MOp packedInc() const {
    MOp o = MOp::inc(pace_.packed);
    o.rc = RegClass::MP;
    return o;
  }
  bool selectPace(Instruction &i) {
    if (&i == pace_.load0) {
      MInst &m = emit("ld2x64pace", {D(pace_.quad, RegClass::AQ), packedInc(), U(kMZero), I(0)});
      m.mayLoad = true;
      return true;
    }
    if (pace_.store && &i == pace_.store) {
      MInst &m = emit("st64pace", {U(get(cast<StoreInst>(i).getValueOperand()), RegClass::AP), packedInc(), U(kMZero), I(0)});
      m.mayStore = true;
      return true;
    }
    return false;
  }
  // Operands naming a pair of the pace quad become lane operands of the quad.
  void resolveAliases() {
    for (MBlock &b : mf_.blocks)
      for (MInst &in : b.insts)
        for (MOp &o : in.ops)
          if (o.kind == MOp::Reg) {
            auto it = aliases_.find(o.reg);
            if (it == aliases_.end()) continue;
            if (o.def) throw CompileError(mf_.name + ": error: internal: a pace load result is written\n");
            int lane = o.lane ? o.lane - 1 : 0;
            o.reg = it->second.first;
            o.lane = 2 * it->second.second + lane + 1;
            if (!o.lane || o.rc == RegClass::AP) o.rc = o.rc;
          }
  }

  void endRepeat(BasicBlock &bb) {
    auto *br = cast<BranchInst>(bb.getTerminator());
    BasicBlock *exit = br->getSuccessor(0) == &bb ? br->getSuccessor(1) : br->getSuccessor(0);
    // The loop-carried copies belong to every iteration; the exit's after the last.
    lowerPhiCopiesTo(bb, &bb);
    hoistAt_ = -1;
    // The count and the constants made before the rpt stay live through the body: the body
    // repeats without them being made again (a software-pipelined loop also issues body
    // instructions before the rpt that reads the count).
    std::vector<MOp> live = {U(block().repeatCount)};
    live.insert(live.end(), hoistedDefs_.begin(), hoistedDefs_.end());
    MInst &e = emit("rptend", live);
    e.barrier = true;
    lowerPhiCopiesTo(bb, exit);
    unsigned most = repeatMost_[&bb];
    if (most == 0 || most > 0xFFFF) { // the next chunk
      int c = repeatCounter_[&bb];
      MInst &m = emit("brnz", {U(c), MOp::label(labelOf(&bb))});
      m.terminator = true;
    }
    block().succs.push_back(cur_); // the body repeats: its values live around it
    branchTo(exit);
  }

  // ---- diagnostics -------------------------------------------------------------------------
  void error(const Instruction *i, std::string msg) {
    // Say it in the user's terms: no LLVM IR text, no temporary file name (issue 14).
    if (i && usesDouble(*i))
      msg = "double-precision arithmetic is not supported on the IPU (it has no float64 hardware): compute in float";
    std::string where = f_.getParent()->getSourceFileName();
    if (const size_t at = where.rfind(".ipucc-entry.cpp"); at != std::string::npos) where.erase(at);
    // An alloca has no position of its own: use the first (in program order) use that has one,
    // which for a local array is where its lifetime starts, the declaration.
    const Instruction *at = i;
    if (at && !at->getDebugLoc())
      for (const BasicBlock &bb : f_) {
        for (const Instruction &u : bb)
          if (u.getDebugLoc() && is_contained(u.operands(), i)) {
            at = &u;
            break;
          }
        if (at != i) break;
      }
    if (at && !at->getDebugLoc())
      if (const DISubprogram *sp = f_.getSubprogram())
        where = sp->getFilename().str() + ":" + std::to_string(sp->getLine());
    if (at)
      if (const DebugLoc &dl = at->getDebugLoc()) {
        auto *scope = cast<DIScope>(dl.getScope());
        where = (scope->getDirectory().empty() ? "" : scope->getDirectory().str() + "/") + scope->getFilename().str() +
                ":" + std::to_string(dl.getLine()) + ":" + std::to_string(dl.getCol());
        if (scope->getFilename().starts_with("/")) where = scope->getFilename().str() + ":" + std::to_string(dl.getLine()) + ":" + std::to_string(dl.getCol());
      }
    errors_.push_back(where + ": error: " + msg);
  }
  std::string describe(const Type *t) {
    std::string s;
    raw_string_ostream os(s);
    t->print(os);
    return s;
  }
  /// What a value is, for a message: its operation (LLVM's opcode name) and type.
  std::string describe(const Value *v) {
    if (const auto *i = dyn_cast<Instruction>(v)) return std::string("('") + i->getOpcodeName() + "' of " + describe(i->getType()) + ")";
    return "(of type " + describe(v->getType()) + ")";
  }
  static bool isDouble(const Type *t) {
    t = t->getScalarType();
    return t->isDoubleTy() || t->isX86_FP80Ty() || t->isFP128Ty() || t->isPPC_FP128Ty();
  }
  static bool usesDouble(const Instruction &i) {
    if (isDouble(i.getType())) return true;
    for (const Use &u : i.operands())
      if (isDouble(u->getType())) return true;
    return false;
  }

  // ---- emission ----------------------------------------------------------------------------
  // The C++ position an instruction comes from (inlined code keeps its own file and line), which
  // the printer passes to the assembler's line table: simulated exceptions name it.
  void setPosition(MInst &in, const DebugLoc &dl) {
    if (!dl || !dl.getLine()) return;
    auto *scope = cast<DIScope>(dl.getScope());
    std::string file = scope->getFilename().str();
    if (!file.empty() && file[0] != '/' && !scope->getDirectory().empty()) file = scope->getDirectory().str() + "/" + file;
    auto it = std::find(mf_.files.begin(), mf_.files.end(), file);
    if (it == mf_.files.end()) it = mf_.files.insert(mf_.files.end(), file);
    in.file = unsigned(it - mf_.files.begin()) + 1;
    in.line = dl.getLine();
    in.col = dl.getCol();
  }
  MBlock &block() { return mf_.blocks[size_t(cur_)]; }
  MInst &emit(const std::string &mn, std::vector<MOp> ops, bool aux = false) {
    MInst in;
    in.mnemonic = mn;
    in.ops = std::move(ops);
    in.aux = aux;
    if (inst_)
      setPosition(in, inst_->getDebugLoc());
    if (hoisting_) { // before the rpt: a constant of the repeat body, made once
      auto at = block().insts.insert(block().insts.begin() + long(hoistAt_++), std::move(in));
      return *at;
    }
    block().insts.push_back(std::move(in));
    return block().insts.back();
  }
  // Constants a repeat body uses are made before its rpt (once, not every iteration).
  int hoistAt_ = -1;       ///< where, in the current block (the rpt's index); -1: not in a body
  bool hoisting_ = false;
  std::map<std::pair<int, uint32_t>, int> hoisted_; ///< (file, bits) -> register, in this body
  std::vector<MOp> hoistedDefs_;                    ///< the registers holding them
  std::map<std::pair<const Constant *, int>, int> hoistedConstants_; ///< (constant, part) -> register
  unsigned hoistedArfRegs_ = 0;                      ///< ARF registers the hoisted constants hold
  int newM() { return mf_.newVreg(RegClass::M); }
  int newA() { return mf_.newVreg(RegClass::A); }
  int newReg(RegClass c) { return mf_.newVreg(c); }
  static MOp U(int r, RegClass c = RegClass::M) { return MOp::use_(r, c); }
  static MOp D(int r, RegClass c = RegClass::M) { return MOp::def_(r, c); }
  static MOp I(int64_t v) { return MOp::imm_(v); }
  MOp UA(int r) { return MOp::use_(r, mf_.classOf(r)); }
  MOp DA(int r) { return MOp::def_(r, mf_.classOf(r)); }
  // One register of a pair or quad (index 0..3), read.
  static MOp lane(int r, RegClass /*group*/, int index) {
    MOp o = MOp::use_(r, RegClass::A);
    o.lane = index + 1;
    return o;
  }
  // One pair of a quad (index 0 or 1), read.
  static MOp pairLane(int r, int index) {
    MOp o = MOp::use_(r, RegClass::AP);
    o.lane = 2 * index + 1;
    return o;
  }

  void copy(int dst, int src) {
    RegClass c = mf_.classOf(dst);
    if (dst == src) return;
    emit("mov", {D(dst, c), U(src, c)}, c != RegClass::M); // a quad: two pair moves (AsmPrinter.cpp)
  }

  int constM(uint32_t v) { return constIn(RegClass::M, v); }
  int constA(uint32_t v) { return constIn(RegClass::A, v); }
  // A 32-bit constant in an MRF or ARF register: setzi for the low 20 bits, `or` for the top 12
  // (zero is $mzero / $azero). Inside a repeat body each is made once, before the rpt.
  int constIn(RegClass file, uint32_t v) {
    bool arf = file == RegClass::A;
    if (v == 0) return arf ? kAZero : kMZero;
    if (hoisting_)
      if (auto it = hoisted_.find({int(arf), v}); it != hoisted_.end()) return it->second;
    int r = newReg(file);
    uint32_t lo = v & 0xFFFFF, hi = v & 0xFFF00000u;
    if (hi == 0) emit("setzi", {D(r, file), I(lo)}, arf);
    else if (lo == 0) emit("or", {D(r, file), U(arf ? kAZero : kMZero, file), I(hi)}, arf);
    else {
      int t = newReg(file);
      emit("setzi", {D(t, file), I(lo)}, arf);
      emit("or", {D(r, file), U(t, file), I(hi)}, arf);
    }
    if (hoisting_) hoisted_[{int(arf), v}] = r;
    return r;
  }
  int makePair(int lo, int hi, RegClass c = RegClass::AP) {
    int r = newReg(c);
    emit("makepair", {D(r, c), U(lo, mf_.classOf(lo)), U(hi, mf_.classOf(hi))}, true);
    return r;
  }
  // Moves between the register files go through an 8-byte stack slot.
  int scratch() {
    if (scratchOffset_ < 0) {
      mf_.localBytes = (mf_.localBytes + 7) / 8 * 8;
      scratchOffset_ = int(mf_.localBytes);
      mf_.localBytes += 8;
    }
    return scratchOffset_;
  }
  int mToA(int m) {
    int a = newA();
    Address slot;
    slot.base = kSP;
    slot.offset = scratch(); // behind a large array, beyond the immediate: memInst materialises it
    memInst("st32", U(m), slot, 4, false);
    memInst("ld32", D(a, RegClass::A), slot, 4, true);
    return a;
  }
  int aToM(int a) {
    int m = newM();
    emit("atom", {D(m), U(a, RegClass::A)});
    return m;
  }

  // ---- values ------------------------------------------------------------------------------
  std::vector<int> &regsOf(const Value *v) {
    auto it = regs_.find(v);
    if (it != regs_.end()) return it->second;
    std::vector<int> &r = regs_[v];
    Type *t = v->getType();
    if (t->isAggregateType()) {
      std::vector<Type *> leaves;
      leavesOf(t, leaves);
      for (Type *l : leaves)
        for (int k = 0; k < partsOf(l); ++k)
          r.push_back(isWideInt(l) ? newM() : isWide(l) ? newReg(RegClass::AP) : newReg(classOfType(l)));
    } else if (isWideInt(t)) r = {newM(), newM()};
    else if (isWide(t)) r = {newReg(RegClass::AP), newReg(RegClass::AP)};
    else r = {newReg(classOfType(t))};
    return r;
  }
  // The register holding `v` (materialising constants at the point of use).
  int get(Value *v, int part = 0) {
    if (auto *c = dyn_cast<Constant>(v)) return constant(c, part);
    if (isa<AllocaInst>(v) && allocaOffset_.count(cast<AllocaInst>(v))) {
      int r = newM();
      emit("add", {D(r), U(kSP), I(allocaOffset_[cast<AllocaInst>(v)])});
      return r;
    }
    return regsOf(v)[size_t(part)];
  }
  int constant(Constant *c, int part) {
    // Inside a repeat body, scalar and vector constants are made before the rpt, each once, and
    // at most half of the ARF's 8 registers held that way: the body needs the rest (a float2
    // loop with four distinct pair constants would otherwise leave it none). Past that budget a
    // constant is made where it is used.
    bool wasHoisting = hoisting_;
    hoisting_ = hoistAt_ >= 0 && !isa<ConstantExpr>(c) && !isa<GlobalValue>(c);
    if (hoisting_)
      if (auto it = hoistedConstants_.find({c, part}); it != hoistedConstants_.end()) {
        hoisting_ = wasHoisting;
        return it->second;
      }
    Type *t = c->getType();
    unsigned arfRegs = t->isVectorTy() ? unsigned(t->getPrimitiveSizeInBits().getFixedValue() / 32)
                       : t->isFloatingPointTy() ? 1 : 0;
    if (hoisting_ && arfRegs && hoistedArfRegs_ + arfRegs > 4) hoisting_ = false;
    int r = constantHere(c, part);
    if (hoisting_ && isVirtual(r)) {
      hoistedDefs_.push_back(MOp::use_(r, mf_.classOf(r)));
      hoistedConstants_[{c, part}] = r;
      if (!isMrf(mf_.classOf(r))) hoistedArfRegs_ += widthOf(mf_.classOf(r));
    }
    hoisting_ = wasHoisting;
    return r;
  }
  int constantHere(Constant *c, int part) {
    Type *t = c->getType();
    if (t->isAggregateType()) { // the leaf that holds `part`, and its part
      for (unsigned i = 0;; ++i) {
        Constant *e = c->getAggregateElement(i);
        if (!e) break;
        int n = partsOf(e->getType());
        if (part < n) return constantHere(e, part);
        part -= n;
      }
      error(nullptr, "internal error: part of an aggregate constant out of range");
      return kMZero;
    }
    if (isa<UndefValue>(c) || isa<PoisonValue>(c)) {
      RegClass rc = isWide(t) ? RegClass::AP : classOfType(t);
      return rc == RegClass::M ? kMZero : rc == RegClass::A ? kAZero : rc == RegClass::AP ? kAZeros : makeZeroQuad();
    }
    if (auto *ci = dyn_cast<ConstantInt>(c)) {
      uint64_t v = ci->getValue().getZExtValue();
      if (ci->getBitWidth() == 1) v &= 1;
      return constM(uint32_t(part ? v >> 32 : v));
    }
    if (auto *cf = dyn_cast<ConstantFP>(c)) {
      if (t->isHalfTy()) return constA(floatBits(cf->getValueAPF()));
      if (t->isFloatTy()) return constA(floatBits(cf->getValueAPF()));
      error(inst_, "double-precision arithmetic is not supported on the IPU (it has no float64 hardware)");
      return kAZero;
    }
    if (isa<ConstantPointerNull>(c)) return kMZero;
    if (auto *gv = dyn_cast<GlobalValue>(c)) {
      // Tile addresses are below 2^20: setzi holds any of them.
      int r = newM();
      emit("setzi", {D(r), MOp::sym(gv->getName().str())});
      return r;
    }
    if (auto *ce = dyn_cast<ConstantExpr>(c)) {
      // Fold global + offset and casts by materialising the instruction.
      Instruction *i = ce->getAsInstruction();
      i->insertBefore(inst_);
      Instruction *saved = inst_;
      inst_ = i;
      select(*i);
      inst_ = saved;
      int r = regsOf(i)[size_t(part)];
      return r;
    }
    if (auto *cv = dyn_cast<Constant>(c); cv && t->isVectorTy()) {
      auto *vt = cast<FixedVectorType>(t);
      unsigned n = vt->getNumElements();
      std::vector<uint32_t> bits;
      for (unsigned i = 0; i < n; ++i) {
        Constant *e = cv->getAggregateElement(i);
        uint32_t b = 0;
        if (auto *f = dyn_cast_or_null<ConstantFP>(e)) b = floatBits(f->getValueAPF());
        bits.push_back(b);
      }
      std::vector<uint32_t> words;
      if (vt->getElementType()->isHalfTy())
        for (unsigned i = 0; i < n; i += 2) words.push_back(bits[i] | (i + 1 < n ? bits[i + 1] << 16 : 0));
      else
        words = bits;
      if (words.size() == 1) return constA(words[0]);
      if (words.size() == 2) return makePair(constA(words[0]), constA(words[1]));
      if (words.size() == 4) return makePair(constA(words[2 * size_t(part)]), constA(words[2 * size_t(part) + 1]));
    }
    error(inst_, "unsupported constant " + describe(c));
    return kMZero;
  }
  int makeQuad(MOp lo, MOp hi) {
    int q = newReg(RegClass::AQ);
    emit("makequad", {D(q, RegClass::AQ), lo, hi}, true);
    return q;
  }
  int makeZeroQuad() {
    int q = newReg(RegClass::AQ);
    emit("makequad", {D(q, RegClass::AQ), U(kAZeros, RegClass::AP), U(kAZeros, RegClass::AP)}, true);
    return q;
  }
  int def(Value *v, int part = 0) { return regsOf(v)[size_t(part)]; }

  // ---- arguments and calls -----------------------------------------------------------------
  struct ArgAssign {
    std::vector<int> mregs;
    int areg = -1;
    /// An aggregate ({float, i32}): one register per part, each of its leaf's class.
    std::vector<std::pair<int, RegClass>> parts;
    int stack = -1; ///< byte offset in the stack argument area (the caller's $sp up), when passed there
  };
  // Assigns argument registers in order: MRF values to $m0-$m5, ARF values to the lowest free
  // $a register (pairs even-aligned, quads 4-aligned); what does not fit goes to the stack, in
  // order, each naturally aligned (`stackBytes` is the area's size).
  std::vector<ArgAssign> assignArgs(const std::vector<Type *> &types, unsigned *stackBytes = nullptr) {
    std::vector<ArgAssign> out;
    int nextM = 0;
    unsigned usedA = 0, stack = 0;
    for (Type *t : types) {
      ArgAssign a;
      if (t->isAggregateType()) {
        // Each leaf part in its own register file, in order; all in registers or all on the stack
        // (which selectCall reports as not supported).
        int m = nextM;
        unsigned used = usedA;
        a.parts = aggregateRegs(t, m, used);
        if (!a.parts.empty()) {
          nextM = m, usedA = used;
          out.push_back(a);
          continue;
        }
      } else if (RegClass c = classOfType(t); c == RegClass::M) {
        unsigned parts = unsigned(partsOf(t));
        if (nextM + int(parts) <= 6)
          for (unsigned p = 0; p < parts; ++p) a.mregs.push_back(nextM++);
      } else {
        a.areg = claimArf(usedA, widthOf(c));
      }
      if (a.mregs.empty() && a.areg < 0) {
        unsigned size = unsigned(dl_.getTypeAllocSize(t)), align = std::min(size, 8u);
        stack = (stack + align - 1) / align * align;
        a.stack = int(stack);
        stack += size;
      }
      out.push_back(a);
    }
    if (stackBytes) *stackBytes = (stack + 7) / 8 * 8;
    return out;
  }
  // The lowest free $a register group of `width` registers (aligned to its width) in `usedA`, a
  // mask of $a0-$a7, claimed; -1 if there is none.
  static int claimArf(unsigned &usedA, unsigned width) {
    const unsigned mask = (1u << width) - 1;
    for (unsigned r = 0; r + width <= 8; r += width)
      if (!(usedA & (mask << r))) {
        usedA |= mask << r;
        return kA0 + int(r);
      }
    return -1;
  }
  // The registers of an aggregate's parts: MRF leaves from $m`nextM` up to $m5, ARF leaves in
  // the lowest free $a registers of their width; empty if they do not all fit.
  std::vector<std::pair<int, RegClass>> aggregateRegs(Type *t, int &nextM, unsigned &usedA) {
    std::vector<Type *> leaves;
    leavesOf(t, leaves);
    std::vector<std::pair<int, RegClass>> out;
    for (Type *l : leaves)
      for (int k = 0; k < partsOf(l); ++k) {
        RegClass c = isWideInt(l) ? RegClass::M : isWide(l) ? RegClass::AP : classOfType(l);
        if (c == RegClass::M) {
          if (nextM >= 6) return {};
          out.push_back({nextM++, c});
          continue;
        }
        int r = claimArf(usedA, widthOf(c));
        if (r < 0) return {};
        out.push_back({r, c});
      }
    return out;
  }
  // Where a function returns an aggregate: as if it were the only argument.
  std::vector<std::pair<int, RegClass>> returnRegs(Type *t, const Instruction *at) {
    int m = 0;
    unsigned used = 0;
    auto r = aggregateRegs(t, m, used);
    if (r.empty()) error(at, "returning an aggregate of more than 6 MRF and 8 ARF registers by value is not supported");
    return r;
  }
  // Moves a value to or from the stack argument area: `incoming` reads the caller's area (above
  // this function's frame, resolved when the frame size is known).
  void stackArg(Value *v, int offset, bool load, bool incoming) {
    Type *t = v->getType();
    RegClass rc = classOfType(t);
    for (int k = 0; k < partsOf(t); ++k) {
      RegClass pc = isWide(t) ? RegClass::AP : rc;
      unsigned size = pc == RegClass::AP ? 8 : 4;
      int reg = load ? def(v, k) : get(v, k);
      MOp data = load ? D(reg, pc) : U(reg, pc);
      MInst &m = emit(load ? (size == 8 ? "ld64" : "ld32") : (size == 8 ? "st64" : "st32"),
                      {data, U(kSP), U(kMZero), I((offset + k * int(size)) / int(size))});
      (load ? m.mayLoad : m.mayStore) = true;
      if (incoming) m.ops[3].incomingArg = offset + k * int(size);
    }
  }

  void lowerArguments() {
    if (mf_.entry == EntryKind::Worker) {
      // The vertex state pointer arrives in $mvertex_base (asm-dialect §3.1).
      if (f_.arg_size() >= 1) regs_[f_.getArg(0)] = {kVertexBase}; // read-only: used in place
      return;
    }
    std::vector<Type *> types;
    for (Argument &a : f_.args()) types.push_back(a.getType());
    std::vector<ArgAssign> as = assignArgs(types);
    for (size_t i = 0; i < as.size(); ++i) {
      Argument *a = f_.getArg(unsigned(i));
      if (!as[i].parts.empty())
        for (size_t p = 0; p < as[i].parts.size(); ++p) copyFromPhys(def(a, int(p)), as[i].parts[p].first, as[i].parts[p].second);
      else if (as[i].stack >= 0 && a->getType()->isAggregateType())
        error(nullptr, "an aggregate argument that does not fit in registers is not supported");
      else if (as[i].stack >= 0) stackArg(a, as[i].stack, true, true);
      else if (as[i].areg >= 0 && isWide(a->getType()))
        for (int k = 0; k < 2; ++k) copyFromPhys(def(a, k), as[i].areg + 2 * k, RegClass::AP);
      else if (as[i].areg >= 0) copy(def(a), as[i].areg);
      else
        for (size_t p = 0; p < as[i].mregs.size(); ++p) copy(def(a, int(p)), as[i].mregs[p]);
    }
  }

  void selectCall(CallInst &call) {
    Function *callee = call.getCalledFunction();
    if (call.isInlineAsm()) return selectInlineAsm(call);
    if (!callee) { error(&call, "indirect calls (function pointers, virtual functions) are not supported"); return; }
    if (callee->isIntrinsic()) return selectIntrinsic(cast<IntrinsicInst>(call));
    std::string name = callee->getName().str();
    if (name == "__ipucc_repeat") {
      // The trip count of the loop this block enters (Optimize.cpp's RepeatMarkerPass).
      BasicBlock *loop = call.getParent()->getSingleSuccessor();
      if (loop) {
        int c = newM();
        copy(c, get(call.getArgOperand(0)));
        repeatCounter_[loop] = c;
        repeatPreheader_[loop] = cur_;
        // The largest count: SCEV's, or what the count's known bits allow (after instcombine a
        // vectoriser's remainder count is `n & (VF - 1)`).
        unsigned most = unsigned(cast<ConstantInt>(call.getArgOperand(1))->getZExtValue());
        uint64_t bitsMax = computeKnownBits(call.getArgOperand(0), dl_).getMaxValue().getZExtValue();
        if (bitsMax <= 0xFFFF && (most == 0 || bitsMax < most)) most = unsigned(std::max<uint64_t>(bitsMax, 1));
        repeatMost_[loop] = most;
      }
      return;
    }
    // A C++ function defined in another codelet file (poplibs' MultiSlice calls
    // MultiSliceUpdateCommon.cpp's lowerBinarySearch): called through its symbol; ipu-ld resolves
    // it and sizes the stack across the objects (.stack_size_own, Compiler.cpp).
    const bool allocation = name == "_Znwj" || name == "_Znaj" || name == "_ZdlPv" || name == "_ZdaPv" ||
                            name == "_ZdlPvj" || name == "malloc" || name == "free";
    const bool otherFile = callee->isDeclaration() && name.rfind("_Z", 0) == 0 && !allocation;
    if (callee->isDeclaration() && !otherFile) {
      if (allocation)
        error(&call, "dynamic allocation ('" + std::string(name[0] == '_' ? "operator new/delete" : name) +
                         "') is not supported on the IPU: vertex memory is allocated by the graph compiler");
      else if (name == "__cxa_throw" || name == "__cxa_allocate_exception")
        error(&call, "exceptions are not supported on the IPU");
      else if (name == "memcpy" || name == "memmove" || name == "memset")
        return selectMemCall(call, name);
      else
        error(&call, "call to '" + name + "', which is not defined in this file (the IPU has no C library to link; "
                     "C++ functions of other codelet files are linked)");
      return;
    }
    mf_.hasCalls = true;
    std::vector<Type *> types;
    for (Value *a : call.args()) types.push_back(a->getType());
    std::vector<ArgAssign> as = assignArgs(types);
    MInst c;
    c.mnemonic = "call";
    c.call = true;
    c.barrier = true;
    c.clobbers = runtimeClobbers(name);
    c.shortCall = !c.clobbers.empty();
    c.ops = {D(kLR), MOp::sym(name)};
    // Stack arguments first (at the bottom of this frame): while the argument registers fill up,
    // nothing else needs a register.
    for (size_t i = 0; i < as.size(); ++i)
      if (as[i].stack >= 0 && call.getArgOperand(unsigned(i))->getType()->isAggregateType())
        error(&call, "an aggregate argument that does not fit in registers is not supported");
      else if (as[i].stack >= 0) stackArg(call.getArgOperand(unsigned(i)), as[i].stack, false, false);
    // Every register argument in a virtual register first (constants materialised), then the
    // moves into the argument registers, which are live from there to the call.
    std::vector<std::vector<int>> values(as.size());
    for (size_t i = 0; i < as.size(); ++i)
      if (as[i].stack < 0)
        for (int k = 0; k < partsOf(call.getArgOperand(unsigned(i))->getType()); ++k)
          values[i].push_back(get(call.getArgOperand(unsigned(i)), k));
    for (size_t i = 0; i < as.size(); ++i) {
      Value *a = call.getArgOperand(unsigned(i));
      if (as[i].stack >= 0) continue;
      if (!as[i].parts.empty()) {
        for (size_t p = 0; p < as[i].parts.size(); ++p) {
          emitCopyToPhys(as[i].parts[p].first, values[i][p], as[i].parts[p].second);
          c.ops.push_back(U(as[i].parts[p].first, as[i].parts[p].second));
        }
        continue;
      }
      if (as[i].areg >= 0) {
        if (isWide(a->getType())) { // a quad argument: its two pairs
          for (int k = 0; k < 2; ++k) emitCopyToPhys(as[i].areg + 2 * k, values[i][size_t(k)], RegClass::AP);
          c.ops.push_back(U(as[i].areg, RegClass::AQ));
          continue;
        }
        RegClass rc = mf_.classOf(values[i][0]);
        emitCopyToPhys(as[i].areg, values[i][0], rc);
        c.ops.push_back(U(as[i].areg, rc));
      } else
        for (size_t p = 0; p < as[i].mregs.size(); ++p) {
          emit("mov", {D(as[i].mregs[p]), U(values[i][p])});
          c.ops.push_back(U(as[i].mregs[p]));
        }
    }
    setPosition(c, call.getDebugLoc());
    block().insts.push_back(c);
    Type *rt = call.getType();
    if (rt->isVoidTy()) return;
    if (rt->isAggregateType()) {
      auto regs = returnRegs(rt, &call);
      for (size_t p = 0; p < regs.size(); ++p) copyFromPhys(def(&call, int(p)), regs[p].first, regs[p].second);
      return;
    }
    RegClass rc = classOfType(rt);
    if (rc == RegClass::M) {
      copy(def(&call), 0);
      if (isWideInt(rt)) copy(def(&call, 1), 1);
    } else {
      MInst mv;
      if (isWide(rt))
        for (int k = 0; k < 2; ++k) copyFromPhys(def(&call, k), kA0 + 2 * k, RegClass::AP);
      else
        copyFromPhys(def(&call), kA0, rc);
    }
  }
  // 64-bit max / min: compare the high words (signed or not), then the low words unsigned, and
  // pick x where (min) x < y or (max) y < x.
  void minMax64(IntrinsicInst &ii, bool isSigned, bool isMin) {
    Value *xv = ii.getArgOperand(0), *yv = ii.getArgOperand(1);
    Value *a = isMin ? xv : yv, *b = isMin ? yv : xv;
    int ltH = newM(), eqH = newM(), ltL = newM(), both = newM(), pick = newM();
    emit(isSigned ? "cmpslt" : "cmpult", {D(ltH), U(get(a, 1)), U(get(b, 1))});
    emit("cmpeq", {D(eqH), U(get(a, 1)), U(get(b, 1))});
    emit("cmpult", {D(ltL), U(get(a, 0)), U(get(b, 0))});
    emit("and", {D(both), U(eqH), U(ltL)});
    emit("or", {D(pick), U(ltH), U(both)});
    for (int k = 0; k < 2; ++k) {
      int r = newM();
      copy(r, get(yv, k));
      MInst &m = emit("movnz", {D(r), U(pick), U(get(xv, k))});
      m.ops[0].use = true;
      copy(def(&ii, k), r);
    }
  }
  void emitCopyToPhys(int phys, int src, RegClass rc) {
    if (rc == RegClass::M) emit("mov", {D(phys), U(src)});
    else emit("mov", {D(phys, rc), U(src, rc)}, true);
  }
  void copyFromPhys(int dst, int phys, RegClass rc) {
    if (rc == RegClass::M) emit("mov", {D(dst), U(phys)});
    else emit("mov", {D(dst, rc), U(phys, rc)}, true);
  }

  void selectMemCall(CallInst &call, const std::string &name) {
    if (name == "memset") return lowerMemset(call, call.getArgOperand(0), call.getArgOperand(1), call.getArgOperand(2), Align(1));
    return lowerMemcpy(call, call.getArgOperand(0), call.getArgOperand(1), call.getArgOperand(2), Align(1), Align(1));
  }

  // ---- inline assembly ---------------------------------------------------------------------
  void selectInlineAsm(CallInst &call) {
    auto *ia = cast<InlineAsm>(call.getCalledOperand());
    MInst m;
    m.asmText = ia->getAsmString();
    m.barrier = ia->hasSideEffects();
    std::vector<int> outputs;
    unsigned argNo = 0, resultNo = 0;
    std::vector<Type *> resultTypes;
    if (auto *st = dyn_cast<StructType>(call.getType()))
      for (Type *t : st->elements()) resultTypes.push_back(t);
    else if (!call.getType()->isVoidTy())
      resultTypes.push_back(call.getType());
    std::vector<std::pair<size_t, int>> results; // operand index -> result number
    for (const InlineAsm::ConstraintInfo &ci : ia->ParseConstraints()) {
      std::string code = ci.Codes.empty() ? "" : ci.Codes[0];
      if (ci.Type == InlineAsm::isClobber) {
        if (code == "{memory}") m.barrier = true;
        // An IPU register, renamed for clang on the way in (Frontend.cpp ClobberRenamingFileSystem):
        // {xN} is $m(N-1), {fN} is $aN.
        if (code.size() >= 4 && (code[1] == 'x' || code[1] == 'f') && std::isdigit(static_cast<unsigned char>(code[2]))) {
          int n = std::stoi(code.substr(2));
          if (code[1] == 'x' && n >= 1 && n <= 16) m.clobbers.push_back(n - 1);
          else if (code[1] == 'f' && n <= 15) m.clobbers.push_back(kA0 + n);
        }
        continue;
      }
      if (ci.Type == InlineAsm::isOutput) {
        if (ci.isIndirect) { error(&call, "inline assembly memory outputs are not supported"); return; }
        Type *t = resultTypes[resultNo];
        int r = newReg(isWideInt(t) || isIntPairVector(t) ? RegClass::MP : classOfType(t)); // an even MRF pair
        m.ops.push_back(DA(r));
        m.ops.back().earlyClobber = ci.isEarlyClobber;
        results.push_back({m.ops.size() - 1, int(resultNo++)});
        continue;
      }
      Value *v = call.getArgOperand(argNo++);
      if (!code.empty() && std::isdigit(static_cast<unsigned char>(code[0]))) {
        // Tied to output N: the output register starts with this value.
        unsigned tied = unsigned(std::stoi(code));
        if (tied < m.ops.size() && m.ops[tied].kind == MOp::Reg) {
          if (mf_.classOf(m.ops[tied].reg) == RegClass::MP && isIntPairVector(v->getType())) {
            mrfPairOf(get(v), m.ops[tied].reg);
          } else {
            copy(m.ops[tied].reg, get(v));
          }
          m.ops[tied].use = true;
        }
        m.ops.push_back(m.ops[tied]); // printed the same
        m.ops.back().def = false;
        continue;
      }
      if (code == "i" || code == "n") {
        auto *c = dyn_cast<ConstantInt>(v);
        if (!c) { error(&call, "inline assembly operand needs a constant"); return; }
        m.ops.push_back(I(c->getSExtValue()));
        continue;
      }
      if (code == "r" || code == "a") {
        int r = get(v);
        if (isWide(v->getType())) r = makeQuad(U(get(v, 0), RegClass::AP), U(get(v, 1), RegClass::AP));
        if (isWideInt(v->getType())) { // an even MRF pair
          r = newReg(RegClass::MP);
          emit("makepair", {D(r, RegClass::MP), U(get(v, 0)), U(get(v, 1))});
        } else if (isIntPairVector(v->getType())) {
          r = mrfPairOf(get(v), newReg(RegClass::MP));
        }
        m.ops.push_back(UA(r));
        continue;
      }
      error(&call, "inline assembly constraint '" + code + "' is not supported (use \"r\" or \"i\")");
      return;
    }
    setPosition(m, call.getDebugLoc());
    classifyAsm(m);
    block().insts.push_back(m);
    for (const auto &result : results) {
      int r = block().insts.back().ops[result.first].reg;
      if (mf_.classOf(r) == RegClass::MP && isIntPairVector(resultTypes[size_t(result.second)])) {
        // Back to the vector's ARF pair, a word at a time through memory (mToA).
        std::vector<int> words;
        for (int k = 0; k < 2; ++k) {
          MOp l = U(r, RegClass::M);
          l.lane = k + 1;
          int m = newM();
          emit("mov", {D(m), l});
          words.push_back(mToA(m));
        }
        int pair = resultTypes.size() == 1 ? def(&call) : newReg(RegClass::AP);
        emit("makepair", {D(pair, RegClass::AP), U(words[0], RegClass::A), U(words[1], RegClass::A)}, true);
        if (resultTypes.size() != 1) asmResults_[&call].push_back(pair);
        continue;
      }
      if (mf_.classOf(r) == RegClass::MP) { // i64 from an MRF pair
        if (resultTypes.size() != 1) { error(&call, "a 64-bit integer among several inline assembly outputs is not supported"); return; }
        for (int k = 0; k < 2; ++k) {
          MOp l = U(r, RegClass::M);
          l.lane = k + 1;
          emit("mov", {D(def(&call, k)), l});
        }
      } else if (resultTypes.size() == 1 && isWide(call.getType()))
        for (int k = 0; k < 2; ++k) emit("mov", {D(def(&call, k), RegClass::AP), pairLane(r, k)}, true);
      else if (resultTypes.size() == 1) copy(def(&call), r);
      else asmResults_[&call].push_back(r);
    }
  }
  // The two words of ARF pair `ap` into MRF pair `mp` (an inline-assembly "r" operand that is a
  // 64-bit integer vector); returns mp.
  int mrfPairOf(int ap, int mp) {
    int lo = newM(), hi = newM();
    emit("atom", {D(lo), lane(ap, RegClass::AP, 0)});
    emit("atom", {D(hi), lane(ap, RegClass::AP, 1)});
    emit("makepair", {D(mp, RegClass::MP), U(lo), U(hi)});
    return mp;
  }
  std::map<const CallInst *, std::vector<int>> asmResults_;
  std::map<const Value *, std::vector<int>> aggregates_; // {value, overflow} intrinsic results

  // A single-instruction template gets its pipeline from the ISA table so it can be bundled.
  void classifyAsm(MInst &m) {
    std::string t = m.asmText;
    size_t b = t.find_first_not_of(" \t\n");
    if (b == std::string::npos) { // `asm volatile("" ::: "memory")`: orders, prints nothing
      m.asmText.clear();
      m.mnemonic.clear();
      m.barrier = true;
      return;
    }
    bool single = t.find_first_of(";\n{", b) == std::string::npos;
    std::string mn = t.substr(b, t.find_first_of(" \t", b) - b);
    if (!single) { m.barrier = true; m.mayLoad = m.mayStore = true; return; }
    m.mnemonic = "";
    bool anyA = false;
    for (const MOp &o : m.ops)
      if (o.kind == MOp::Reg && !isMrf(o.rc)) anyA = true;
    m.aux = anyA && mn.rfind("ld", 0) != 0 && mn.rfind("st", 0) != 0 && mn != "atom";
    if (mn.rfind("ld", 0) == 0) m.mayLoad = true;
    if (mn.rfind("st", 0) == 0 || mn.find("st64pace") != std::string::npos) m.mayStore = true; // ldst64pace ...
    if (mn == "uput" || mn == "put" || mn == "get" || mn == "uget" || mn == "sync" || mn == "runall" || mn == "run" ||
        mn.rfind("urand", 0) == 0 || mn.find("putcs") != std::string::npos || mn.rfind("exit", 0) == 0)
      m.barrier = true;
    if (mn.find("amp") != std::string::npos || mn.find("acc") != std::string::npos || mn.find("slic") != std::string::npos ||
        mn.find("gina") != std::string::npos || mn.find("axpy") != std::string::npos || mn.find("aop") != std::string::npos)
      m.barrier = true; // the accumulators are state the scheduler does not track
  }

  // ---- memory ------------------------------------------------------------------------------
  struct Address {
    int base = kMZero;
    int index = kMZero; // scaled by the access size (register form)
    int64_t offset = 0; // bytes
  };
  // Folds `base + constant` (GEPs with constant offsets, allocas) into the address.
  Address address(Value *p) {
    Address a;
    int64_t off = 0;
    Value *v = p;
    while (true) {
      if (auto *g = dyn_cast<GEPOperator>(v)) {
        APInt o(32, 0);
        if (g->accumulateConstantOffset(dl_, o)) {
          off += o.getSExtValue();
          v = g->getPointerOperand();
          continue;
        }
      }
      break;
    }
    if (auto *al = dyn_cast<AllocaInst>(v); al && allocaOffset_.count(al)) {
      a.base = kSP;
      a.offset = off + allocaOffset_[al];
      return a;
    }
    a.base = get(v);
    a.offset = off;
    return a;
  }
  // The base and the scaled immediate for an access of `size` bytes (materialising what does not fit).
  std::pair<int, int64_t> baseImm(Address a, unsigned size) {
    if (a.offset >= 0 && a.offset % size == 0 && a.offset / size < 4096) return {a.base, a.offset / size};
    int r = newM();
    if (a.offset >= -32768 && a.offset < 32768) emit("add", {D(r), U(a.base), I(a.offset)});
    else emit("add", {D(r), U(a.base), U(constM(uint32_t(a.offset)))});
    return {r, 0};
  }
  MInst &memInst(const std::string &mn, MOp data, Address a, unsigned size, bool load) {
    auto [base, imm] = baseImm(a, size);
    MInst &m = emit(mn, {data, U(base), U(kMZero), I(imm)});
    if (load) m.mayLoad = true;
    else m.mayStore = true;
    return m;
  }

  MInst &stepInst(const std::string &mn, MOp data, Instruction *i, Value *ptr, bool load) {
    MInst &m = emit(mn, {data, U(kMZero), MOp::inc(get(ptr)), I(postInc_[i])});
    if (load) m.mayLoad = true;
    else m.mayStore = true;
    return m;
  }
  // ---- under-aligned accesses ------------------------------------------------------------
  // The tile accesses 8, 16, 32 and 64 bits at their natural alignment only: a value less aligned
  // than its accesses (packed structs, memcpy of bytes) is moved 16 or 8 bits at a time.
  static unsigned granule(Type *t) {
    Type *e = t->isVectorTy() ? cast<VectorType>(t)->getElementType() : t;
    if (e->isHalfTy() || e->isIntegerTy(16)) return 2;
    if (e->isIntegerTy(8) || e->isIntegerTy(1)) return 1;
    return 4;
  }
  // `size` bytes (<= 4) from an address aligned to `align`, little-endian, in an MRF register.
  int loadBytes(Address a, unsigned size, unsigned align) {
    unsigned step = align >= 2 && size % 2 == 0 ? 2 : 1;
    int acc = -1;
    for (unsigned i = 0; i < size; i += step, a.offset += step) {
      int part = newM();
      memInst(step == 2 ? "ldz16" : "ldz8", D(part), a, step, true);
      if (acc < 0) { acc = part; continue; }
      int shifted = newM(), merged = newM();
      emit("shl", {D(shifted), U(part), I(8 * i)});
      emit("or", {D(merged), U(acc), U(shifted)});
      acc = merged;
    }
    return acc;
  }
  void storeBytes(Address a, int value, unsigned size, unsigned align) {
    unsigned step = align >= 2 && size % 2 == 0 ? 2 : 1;
    for (unsigned i = 0; i < size; i += step, a.offset += step) {
      int part = value;
      if (i) {
        part = newM();
        emit("shr", {D(part), U(value), I(8 * i)});
      }
      storeNarrow(a, part, step, step);
    }
  }
  // The 32-bit words of a value, in MRF registers (a half in the low 16 bits of its word).
  std::vector<int> wordsOf(Value *v) {
    Type *t = v->getType();
    std::vector<int> words;
    if (classOfType(t) == RegClass::M) {
      for (int k = 0; k < partsOf(t); ++k) words.push_back(get(v, k));
      return words;
    }
    for (int k = 0; k < partsOf(t); ++k) {
      int r = get(v, k);
      RegClass rc = mf_.classOf(r);
      if (rc == RegClass::A) words.push_back(aToM(r));
      else
        for (int i = 0; i < 2; ++i) {
          int m = newM();
          emit("atom", {D(m), lane(r, rc, i)});
          words.push_back(m);
        }
    }
    return words;
  }
  bool underAligned(Type *t, unsigned align) {
    return align < granule(t) || (granule(t) == 4 && align < 4 && dl_.getTypeStoreSize(t) >= 4);
  }
  void loadUnaligned(LoadInst &ld, Address a, unsigned align) {
    Type *t = ld.getType();
    unsigned size = unsigned(dl_.getTypeStoreSize(t));
    std::vector<int> words;
    for (unsigned o = 0; o < size; o += 4, a.offset += 4) words.push_back(loadBytes(a, std::min(4u, size - o), align));
    RegClass rc = classOfType(t);
    if (rc == RegClass::M) {
      for (int k = 0; k < partsOf(t); ++k) copy(def(&ld, k), words[size_t(k)]);
      return;
    }
    if (rc == RegClass::A) return copy(def(&ld), mToA(words[0]));
    for (int k = 0; k < partsOf(t); ++k)
      copyPairInto(def(&ld, k), mToA(words[2 * size_t(k)]), mToA(words[2 * size_t(k) + 1]));
  }

  void selectLoad(LoadInst &ld) {
    Type *t = ld.getType();
    if (postInc_.count(&ld)) return void(stepInst(stepForm(&ld), D(def(&ld), classOfType(t)), &ld, ld.getPointerOperand(), true));
    Address a = address(ld.getPointerOperand());
    unsigned align = unsigned(ld.getAlign().value());
    if (underAligned(t, align)) return loadUnaligned(ld, a, align);
    if (t->isIntegerTy(32) || t->isPointerTy()) return void(memInst("ld32", D(def(&ld)), a, 4, true));
    if (isWideInt(t)) { // the high word only as wide as the type's bytes
      unsigned hiBytes = unsigned(dl_.getTypeStoreSize(t)) - 4;
      memInst("ld32", D(def(&ld, 0)), a, 4, true);
      a.offset += 4;
      if (hiBytes == 4) memInst("ld32", D(def(&ld, 1)), a, 4, true);
      else copy(def(&ld, 1), loadBytes(a, hiBytes, 4));
      return;
    }
    if (t->isIntegerTy(16)) {
      bool sext = ld.hasOneUse() && isa<SExtInst>(*ld.user_begin());
      return void(memInst(sext ? "lds16" : "ldz16", D(def(&ld)), a, 2, true));
    }
    if (t->isIntegerTy(8) || t->isIntegerTy(1)) {
      bool sext = ld.hasOneUse() && isa<SExtInst>(*ld.user_begin());
      return void(memInst(sext ? "lds8" : "ldz8", D(def(&ld)), a, 1, true));
    }
    if (t->isFloatTy()) return void(memInst("ld32", D(def(&ld), RegClass::A), a, 4, true));
    if (t->isHalfTy()) return void(memInst("ldb16", D(def(&ld), RegClass::A), a, 2, true));
    RegClass rc = classOfType(t);
    if (rc == RegClass::A) { // <2 x half>
      if (align >= 4) return void(memInst("ld32", D(def(&ld), RegClass::A), a, 4, true));
      int lo = newA(), hi = newA();
      memInst("ldb16", D(lo, RegClass::A), a, 2, true);
      a.offset += 2;
      memInst("ldb16", D(hi, RegClass::A), a, 2, true);
      emit("sort4x16lo", {D(def(&ld), RegClass::A), U(lo, RegClass::A), U(hi, RegClass::A)}, true);
      return;
    }
    if (isWide(t)) {
      // ld128 only from interleaved memory ([F] S2): data of a Vector declared interleaved. Its
      // quad is split into the value's two pairs (two AUX moves, usually in free slots).
      if (align >= 8 && ld.getMetadata("ipucc.interleaved") && a.offset % 16 == 0) {
        int q = newReg(RegClass::AQ);
        memInst("ld128", D(q, RegClass::AQ), a, 16, true);
        for (int k = 0; k < 2; ++k) emit("mov", {D(def(&ld, k), RegClass::AP), pairLane(q, k)}, true);
        return;
      }
      for (int k = 0; k < 2; ++k, a.offset += 8) {
        if (align >= 8) { memInst("ld64", D(def(&ld, k), RegClass::AP), a, 8, true); continue; }
        int lo = newA(), hi = newA();
        Address b = a;
        if (align >= 4 || !isHalfVector(t)) {
          memInst("ld32", D(lo, RegClass::A), b, 4, true);
          b.offset += 4;
          memInst("ld32", D(hi, RegClass::A), b, 4, true);
        } else {
          int h[4];
          for (int i = 0; i < 4; ++i, b.offset += 2) {
            h[i] = newA();
            memInst("ldb16", D(h[i], RegClass::A), b, 2, true);
          }
          emit("sort4x16lo", {D(lo, RegClass::A), U(h[0], RegClass::A), U(h[1], RegClass::A)}, true);
          emit("sort4x16lo", {D(hi, RegClass::A), U(h[2], RegClass::A), U(h[3], RegClass::A)}, true);
        }
        copyPairInto(def(&ld, k), lo, hi);
      }
      return;
    }
    if (rc == RegClass::AP) {
      if (align >= 8) return void(memInst("ld64", D(def(&ld), RegClass::AP), a, 8, true));
      int lo = newA(), hi = newA();
      if (align >= 4 || !isHalfVector(t)) {
        memInst("ld32", D(lo, RegClass::A), a, 4, true);
        a.offset += 4;
        memInst("ld32", D(hi, RegClass::A), a, 4, true);
      } else {
        int h[4];
        for (int i = 0; i < 4; ++i) {
          h[i] = newA();
          memInst("ldb16", D(h[i], RegClass::A), a, 2, true);
          a.offset += 2;
        }
        emit("sort4x16lo", {D(lo, RegClass::A), U(h[0], RegClass::A), U(h[1], RegClass::A)}, true);
        emit("sort4x16lo", {D(hi, RegClass::A), U(h[2], RegClass::A), U(h[3], RegClass::A)}, true);
      }
      copyPairInto(def(&ld), lo, hi);
      return;
    }
    error(&ld, "unsupported load of " + describe(t));
  }
  void copyPairInto(int pair, int lo, int hi) {
    emit("makepair", {D(pair, RegClass::AP), U(lo, RegClass::A), U(hi, RegClass::A)}, true);
  }

  void selectStore(StoreInst &st) {
    Value *v = st.getValueOperand();
    Type *t = v->getType();
    if (postInc_.count(&st)) return void(stepInst(stepForm(&st), U(get(v), classOfType(t)), &st, st.getPointerOperand(), false));
    if (underAligned(t, unsigned(st.getAlign().value()))) {
      Address a = address(st.getPointerOperand());
      unsigned size = unsigned(dl_.getTypeStoreSize(t)), align = unsigned(st.getAlign().value());
      std::vector<int> words = wordsOf(v);
      for (unsigned o = 0, k = 0; o < size; o += 4, ++k, a.offset += 4) storeBytes(a, words[k], std::min(4u, size - o), align);
      return;
    }
    Address a = address(st.getPointerOperand());
    unsigned align = unsigned(st.getAlign().value());
    if (t->isIntegerTy(32) || t->isPointerTy()) return void(memInst("st32", U(get(v)), a, 4, false));
    if (isWideInt(t)) {
      unsigned hiBytes = unsigned(dl_.getTypeStoreSize(t)) - 4;
      memInst("st32", U(get(v, 0)), a, 4, false);
      a.offset += 4;
      if (hiBytes == 4) memInst("st32", U(get(v, 1)), a, 4, false);
      else storeBytes(a, get(v, 1), hiBytes, 4);
      return;
    }
    if (t->isFloatTy()) return void(memInst("st32", U(get(v), RegClass::A), a, 4, false));
    RegClass rc = classOfType(t);
    if (rc == RegClass::A && !t->isHalfTy()) { // <2 x half>
      if (align >= 4) return void(memInst("st32", U(get(v), RegClass::A), a, 4, false));
      int w = aToM(get(v));
      storeNarrow(a, w, 2, align);
      int hi = newM();
      emit("shr", {D(hi), U(w), I(16)});
      a.offset += 2;
      storeNarrow(a, hi, 2, align);
      return;
    }
    if (rc == RegClass::AP) return storePair(U(get(v), RegClass::AP), a, align, isHalfVector(t));
    if (isWide(t)) {
      for (int k = 0; k < 2; ++k, a.offset += 8) storePair(U(get(v, k), RegClass::AP), a, align, isHalfVector(t));
      return;
    }
    if (t->isHalfTy()) return storeNarrow(a, aToM(get(v)), 2, align);
    if (t->isIntegerTy(16)) return storeNarrow(a, get(v), 2, align);
    if (t->isIntegerTy(8) || t->isIntegerTy(1)) return storeNarrow(a, get(v), 1, align);
    error(&st, "unsupported store of " + describe(t));
  }

  // One 64-bit value (a pair, or a pair of a quad) to memory of the given alignment.
  void storePair(MOp pair, Address a, unsigned align, bool halves) {
    if (align >= 8) return void(memInst("st64", pair, a, 8, false));
    MOp lanes[2] = {pair, pair};
    for (int i = 0; i < 2; ++i) {
      lanes[i].rc = RegClass::A;
      lanes[i].lane = (pair.lane ? pair.lane : 1) + i;
    }
    if (align >= 4 || !halves) {
      memInst("st32", lanes[0], a, 4, false);
      a.offset += 4;
      memInst("st32", lanes[1], a, 4, false);
      return;
    }
    for (int i = 0; i < 2; ++i) {
      int w = newM();
      emit("atom", {D(w), lanes[i]});
      storeNarrow(a, w, 2, align);
      int hi = newM();
      emit("shr", {D(hi), U(w), I(16)});
      a.offset += 2;
      storeNarrow(a, hi, 2, align);
      a.offset += 2;
    }
  }

  // The tile writes 32 or 64 bits at a time: a 16- or 8-bit store reads the word, merges the
  // value in and writes the word back. The value's upper bits may hold anything.
  void storeNarrow(Address a, int value, unsigned size, unsigned align) {
    // The position in the word is known when the address is word-aligned, or $sp-relative ($sp
    // is 8-aligned); otherwise it comes from the address's low bits at run time.
    if (a.base == kSP || align >= 4) {
      int64_t byte = a.base == kSP ? (a.offset & 3) : 0;
      Address w = a;
      w.offset = a.offset - byte;
      int old = newM();
      memInst("ld32", D(old), w, 4, true);
      memInst("st32", U(mergeStatic(old, value, unsigned(byte), size)), w, 4, false);
      return;
    }
    int addr = a.base;
    if (a.offset) {
      addr = newM();
      emit("add", {D(addr), U(a.base), I(a.offset)});
    }
    int wordAddr = newM(), shift = newM(), mask = newM(), old = newM(), v = newM(), merged = newM(), t = newM();
    emit("andc", {D(wordAddr), U(addr), I(3)});
    emit("and", {D(shift), U(addr), I(3)});
    emit("shl", {D(shift), U(shift), I(3)});
    emit("shl", {D(mask), U(constM(size == 2 ? 0xFFFF : 0xFF)), U(shift)});
    MInst &l = emit("ld32", {D(old), U(wordAddr), U(kMZero), I(0)});
    l.mayLoad = true;
    emit("shl", {D(v), U(value), U(shift)});
    emit("and", {D(v), U(v), U(mask)});
    emit("andc", {D(t), U(old), U(mask)});
    emit("or", {D(merged), U(t), U(v)});
    MInst &st = emit("st32", {U(merged), U(wordAddr), U(kMZero), I(0)});
    st.mayStore = true;
  }
  int mergeStatic(int old, int value, unsigned byte, unsigned size) {
    uint32_t mask = (size == 2 ? 0xFFFFu : 0xFFu) << (8 * byte);
    int v = newM(), t = newM(), merged = newM();
    if (byte) emit("shl", {D(v), U(value), I(8 * byte)});
    else v = value;
    int vm = newM();
    emit("and", {D(vm), U(v), U(constM(mask))});
    emit("andc", {D(t), U(old), U(constM(mask))});
    emit("or", {D(merged), U(t), U(vm)});
    return merged;
  }

  void lowerMemcpy(Instruction &i, Value *dst, Value *src, Value *len, Align da, Align sa) {
    auto *c = dyn_cast<ConstantInt>(len);
    unsigned align = unsigned(std::min(da.value(), sa.value()));
    if (c && c->getZExtValue() <= 256 && align >= 4 && c->getZExtValue() % 4 == 0) {
      Address d = address(dst), s = address(src);
      for (uint64_t o = 0; o < c->getZExtValue(); o += 4) {
        int r = newM();
        memInst("ld32", D(r), s, 4, true);
        memInst("st32", U(r), d, 4, false);
        s.offset += 4;
        d.offset += 4;
      }
      return;
    }
    callRuntime(i, "__ipucc_memcpy", {get(dst), get(src), get(len)});
  }
  void lowerMemset(Instruction &i, Value *dst, Value *val, Value *len, Align da) {
    auto *c = dyn_cast<ConstantInt>(len);
    auto *v = dyn_cast<ConstantInt>(val);
    if (c && v && c->getZExtValue() <= 256 && da.value() >= 4 && c->getZExtValue() % 4 == 0) {
      uint32_t byte = uint32_t(v->getZExtValue() & 0xFF);
      int r = constM(byte * 0x01010101u);
      Address d = address(dst);
      for (uint64_t o = 0; o < c->getZExtValue(); o += 4, d.offset += 4) memInst("st32", U(r), d, 4, false);
      return;
    }
    callRuntime(i, "__ipucc_memset", {get(dst), get(val), get(len)});
  }
  // A call to one of ipu-cc's runtime routines (MRF arguments, result in $m0).
  int callRuntime(Instruction &i, const std::string &name, std::vector<int> args) {
    std::vector<std::pair<int, int>> in;
    for (size_t k = 0; k < args.size(); ++k) in.push_back({args[k], int(k)});
    return callRoutine(i, name, in, {0})[0];
  }
  // A call to one of ipu-cc's runtime routines: each argument register goes to the given physical
  // register ($m0.. or $a0..), and the listed physical result registers are copied out.
  std::vector<int> callRoutine(Instruction &i, const std::string &name, const std::vector<std::pair<int, int>> &args,
                               const std::vector<int> &results) {
    if (std::find(runtime_.begin(), runtime_.end(), name) == runtime_.end()) runtime_.push_back(name);
    mf_.hasCalls = true;
    MInst c;
    c.mnemonic = "call";
    c.call = true;
    c.barrier = true;
    c.clobbers = runtimeClobbers(name);
    c.shortCall = !c.clobbers.empty();
    c.ops = {D(kLR), MOp::sym(name)};
    for (auto [reg, phys] : args) {
      RegClass rc = phys >= kA0 ? RegClass::A : RegClass::M;
      emitCopyToPhys(phys, reg, rc);
      c.ops.push_back(U(phys, rc));
    }
    setPosition(c, i.getDebugLoc());
    block().insts.push_back(c);
    std::vector<int> out;
    for (int phys : results) {
      RegClass rc = phys >= kA0 ? RegClass::A : RegClass::M;
      int r = newReg(rc);
      copyFromPhys(r, phys, rc);
      out.push_back(r);
    }
    return out;
  }

  // ---- arithmetic --------------------------------------------------------------------------
  bool fitsU12(Value *v) {
    auto *c = dyn_cast<ConstantInt>(v);
    return c && c->getZExtValue() < 4096;
  }
  bool fitsS16(Value *v) {
    auto *c = dyn_cast<ConstantInt>(v);
    return c && c->getSExtValue() >= -32768 && c->getSExtValue() < 32768;
  }
  int64_t cval(Value *v) { return cast<ConstantInt>(v)->getSExtValue(); }
  // The bit pattern of a narrow constant (i8 -128 is 0x80): what and/or take as an immediate.
  int64_t uval(Value *v) { return int64_t(cast<ConstantInt>(v)->getZExtValue()); }

  void selectBinary(BinaryOperator &b) {
    Type *t = b.getType();
    Value *x = b.getOperand(0), *y = b.getOperand(1);
    if (isWideInt(t)) {
      if (t->getIntegerBitWidth() > 64) { error(&b, "integers wider than 64 bits are not supported"); return; }
      return selectBinary64(b);
    }
    if (t->isIntegerTy()) {
      int d = def(&b);
      unsigned bits = t->getIntegerBitWidth();
      switch (b.getOpcode()) {
      case Instruction::Add:
        if (fitsS16(y)) return void(emit("add", {D(d), U(get(x)), I(cval(y))}));
        if (fitsS16(x)) return void(emit("add", {D(d), U(get(y)), I(cval(x))}));
        return void(emit("add", {D(d), U(get(x)), U(get(y))}));
      case Instruction::Sub:
        if (fitsS16(y) && cval(y) != -32768) return void(emit("add", {D(d), U(get(x)), I(-cval(y))}));
        if (fitsS16(x)) return void(emit("sub", {D(d), I(cval(x)), U(get(y))}));
        return void(emit("sub", {D(d), U(get(x)), U(get(y))}));
      case Instruction::Mul:
        if (fitsS16(y)) return void(emit("mul", {D(d), U(get(x)), I(cval(y))}));
        return void(emit("mul", {D(d), U(get(x)), U(get(y))}));
      case Instruction::And:
        if (fitsU12(y)) return void(emit("and", {D(d), U(get(x)), I(uval(y))}));
        if (auto *c = dyn_cast<ConstantInt>(y); c && bits == 32 && (~uint32_t(c->getZExtValue())) < 4096)
          return void(emit("andc", {D(d), U(get(x)), I(int64_t(~uint32_t(c->getZExtValue())))}));
        return void(emit("and", {D(d), U(get(x)), U(get(y))}));
      case Instruction::Or:
        if (fitsU12(y)) return void(emit("or", {D(d), U(get(x)), I(uval(y))}));
        return void(emit("or", {D(d), U(get(x)), U(get(y))}));
      case Instruction::Xor:
        if (auto *c = dyn_cast<ConstantInt>(y); c && c->isMinusOne() && bits == 32) {
          // not: ~x = -1 - x
          return void(emit("sub", {D(d), I(-1), U(get(x))}));
        }
        if (bits == 1 && isa<ConstantInt>(y) && cval(y) != 0) return void(emit("cmpeq", {D(d), U(get(x)), I(0)}));
        return void(emit("xor", {D(d), U(get(x)), U(get(y))}));
      case Instruction::Shl:
        if (fitsU12(y)) return void(emit("shl", {D(d), U(get(x)), I(cval(y))}));
        return void(emit("shl", {D(d), U(get(x)), U(get(y))}));
      case Instruction::LShr: {
        int src = zeroExtended(x, bits);
        if (fitsU12(y)) return void(emit("shr", {D(d), U(src), I(cval(y))}));
        return void(emit("shr", {D(d), U(src), U(get(y))}));
      }
      case Instruction::AShr: {
        int src = signExtended(x, bits);
        if (fitsU12(y)) return void(emit("shrs", {D(d), U(src), I(cval(y))}));
        return void(emit("shrs", {D(d), U(src), U(get(y))}));
      }
      case Instruction::UDiv:
      case Instruction::URem:
      case Instruction::SDiv:
      case Instruction::SRem: {
        bool isSigned = b.getOpcode() == Instruction::SDiv || b.getOpcode() == Instruction::SRem;
        bool rem = b.getOpcode() == Instruction::URem || b.getOpcode() == Instruction::SRem;
        if (auto *c = dyn_cast<ConstantInt>(y); c && isSigned && bits <= 32 && c->getSExtValue() > 1 &&
                                                 c->getSExtValue() <= 0x7FFFFFFF) {
          // C truncates: |x| / divisor unsigned (|INT_MIN| is 2^31 as unsigned), negated when x
          // is negative; the remainder x - q * divisor takes x's sign.
          const uint32_t divisor = uint32_t(c->getSExtValue());
          const int xs = signExtended(x, bits), magnitude = newM(), sign = newM(), negated = newM();
          emit("abs", {D(magnitude), U(xs)});
          emit("shr", {D(sign), U(xs), I(31)});
          const int uq = divideByConstant(magnitude, divisor);
          emit("sub", {D(negated), I(0), U(uq)});
          const int q = newM();
          copy(q, uq);
          MInst &m = emit("movnz", {D(q), U(sign), U(negated)});
          m.ops[0].use = true; // keeps its value when the sign is zero
          return rem ? remainder(d, xs, q, divisor) : copy(d, q);
        }
        if (auto *c = dyn_cast<ConstantInt>(y); c && !isSigned && c->getZExtValue() > 1) {
          const uint32_t divisor = uint32_t(c->getZExtValue());
          const int xu = zeroExtended(x, bits), q = divideByConstant(xu, divisor);
          return rem ? remainder(d, xu, q, divisor) : copy(d, q);
        }
        int xs = isSigned ? signExtended(x, bits) : zeroExtended(x, bits);
        int ys = isSigned ? signExtended(y, bits) : zeroExtended(y, bits);
        std::string fn = std::string("__ipucc_") + (isSigned ? "s" : "u") + (rem ? "rem" : "div");
        int r = callRuntime(b, fn, {xs, ys});
        return copy(d, r);
      }
      default:
        break;
      }
      error(&b, "unsupported integer operation " + describe(&b));
      return;
    }
    selectFloatBinary(b);
  }

  // dst = src * k (the low 32 bits): an immediate below 2^15, else a register constant.
  void mulConstant(int dst, int src, uint32_t k) {
    if (k < 32768) emit("mul", {D(dst), U(src), I(int64_t(k))});
    else emit("mul", {D(dst), U(src), U(constM(k))});
  }

  // d = x - q * divisor: the remainder of a division by a constant, from its quotient.
  void remainder(int d, int x, int q, uint32_t divisor) {
    const int product = newM();
    mulConstant(product, q, divisor);
    emit("sub", {D(d), U(x), U(product)});
  }

  // x / divisor for a constant divisor > 1, x an unsigned 32-bit register: a shift for a power
  // of two, else Granlund and Montgomery's multiply by a magic number (Division by Invariant
  // Integers using Multiplication, 1994, figure 4.1): with l = ceil(log2 divisor) and
  // m = floor(2^32 (2^l - divisor) / divisor) + 1, t = the high word of m x, and the quotient
  // is (t + ((x - t) >> 1)) >> (l - 1), exact for every x. The tile has no high multiply: the
  // high word comes from four 16 x 16-bit products. About 25 instructions instead of the
  // runtime's shift-and-subtract loop (32 rounds of 8).
  int divideByConstant(int x, uint32_t divisor) {
    int q = newM();
    if ((divisor & (divisor - 1)) == 0) {
      emit("shr", {D(q), U(x), I(__builtin_ctz(divisor))});
      return q;
    }
    unsigned l = 0;
    while ((uint64_t(1) << l) < divisor) ++l;
    const uint32_t m = uint32_t(((uint64_t(1) << 32) * ((uint64_t(1) << l) - divisor)) / divisor + 1);
    const uint32_t mHi = m >> 16, mLo = m & 0xFFFF;
    auto low16 = [&](int dst, int src) {
      emit("shl", {D(dst), U(src), I(16)});
      emit("shr", {D(dst), U(dst), I(16)});
    };
    const int xHi = newM(), xLo = newM(), hh = newM(), hl = newM(), lh = newM(), ll = newM();
    emit("shr", {D(xHi), U(x), I(16)});
    low16(xLo, x);
    mulConstant(hh, xHi, mHi);
    mulConstant(hl, xHi, mLo);
    mulConstant(lh, xLo, mHi);
    mulConstant(ll, xLo, mLo);
    // The carry into the high word: (ll >> 16) + low16(hl) + low16(lh), below 2^18.
    const int carry = newM(), part = newM();
    emit("shr", {D(carry), U(ll), I(16)});
    low16(part, hl);
    emit("add", {D(carry), U(carry), U(part)});
    low16(part, lh);
    emit("add", {D(carry), U(carry), U(part)});
    emit("shr", {D(carry), U(carry), I(16)});
    // t = hh + (hl >> 16) + (lh >> 16) + carry
    const int t = newM();
    emit("shr", {D(part), U(hl), I(16)});
    emit("add", {D(t), U(hh), U(part)});
    emit("shr", {D(part), U(lh), I(16)});
    emit("add", {D(t), U(t), U(part)});
    emit("add", {D(t), U(t), U(carry)});
    // q = (t + ((x - t) >> 1)) >> (l - 1)
    emit("sub", {D(q), U(x), U(t)});
    emit("shr", {D(q), U(q), I(1)});
    emit("add", {D(q), U(q), U(t)});
    if (l > 1) emit("shr", {D(q), U(q), I(int64_t(l - 1))});
    return q;
  }

  // Registers hold narrow integers with unspecified upper bits; these give them extended.
  int zeroExtended(Value *v, unsigned bits) {
    if (auto *c = dyn_cast<ConstantInt>(v)) return constM(uint32_t(c->getZExtValue())); // zero-extended by type
    int r = get(v);
    if (bits >= 32) return r;
    int d = newM();
    if (bits <= 12) emit("and", {D(d), U(r), I((1 << bits) - 1)});
    else {
      emit("shl", {D(d), U(r), I(32 - bits)});
      emit("shr", {D(d), U(d), I(32 - bits)});
    }
    return d;
  }
  int signExtended(Value *v, unsigned bits) {
    if (auto *c = dyn_cast<ConstantInt>(v)) return constM(uint32_t(c->getSExtValue()));
    int r = get(v);
    if (bits >= 32) return r;
    int d = newM();
    emit("shl", {D(d), U(r), I(32 - bits)});
    emit("shrs", {D(d), U(d), I(32 - bits)});
    return d;
  }

  // The high word of a 33..64-bit value with the bits above its width zero- or sign-extended.
  int extendedHigh(Value *v, bool sign) {
    unsigned bits = v->getType()->getIntegerBitWidth();
    int hi = get(v, 1);
    if (bits >= 64 || isa<ConstantInt>(v)) {
      if (auto *c = dyn_cast<ConstantInt>(v); c && bits < 64)
        return constM(uint32_t(uint64_t(sign ? c->getSExtValue() : int64_t(c->getZExtValue())) >> 32));
      return hi;
    }
    int r = newM();
    emit("shl", {D(r), U(hi), I(64 - bits)});
    emit(sign ? "shrs" : "shr", {D(r), U(r), I(64 - bits)});
    return r;
  }

  void selectBinary64(BinaryOperator &b) {
    Value *x = b.getOperand(0), *y = b.getOperand(1);
    int dl = def(&b, 0), dh = def(&b, 1);
    int xl = get(x, 0), xh = get(x, 1);
    auto op = b.getOpcode();
    // Right shifts and divisions read the bits above a narrower type's width: extend them.
    bool signedOp = op == Instruction::AShr || op == Instruction::SDiv || op == Instruction::SRem;
    if (op == Instruction::LShr || op == Instruction::AShr || op == Instruction::UDiv || op == Instruction::URem ||
        op == Instruction::SDiv || op == Instruction::SRem)
      xh = extendedHigh(x, signedOp);
    switch (b.getOpcode()) {
    case Instruction::Add:
    case Instruction::Sub: {
      int yl = get(y, 0), yh = get(y, 1);
      int lo = newM(), carry = newM(), hi = newM();
      bool add = b.getOpcode() == Instruction::Add;
      emit(add ? "add" : "sub", {D(lo), U(xl), U(yl)});
      if (add) emit("cmpult", {D(carry), U(lo), U(xl)});
      else emit("cmpult", {D(carry), U(xl), U(yl)});
      emit(add ? "add" : "sub", {D(hi), U(xh), U(yh)});
      emit(add ? "add" : "sub", {D(dh), U(hi), U(carry)});
      copy(dl, lo);
      return;
    }
    case Instruction::And:
    case Instruction::Or:
    case Instruction::Xor: {
      const char *mn = b.getOpcode() == Instruction::And ? "and" : b.getOpcode() == Instruction::Or ? "or" : "xor";
      emit(mn, {D(dl), U(xl), U(get(y, 0))});
      emit(mn, {D(dh), U(xh), U(get(y, 1))});
      return;
    }
    case Instruction::Shl:
    case Instruction::LShr:
    case Instruction::AShr:
      if (auto *c = dyn_cast<ConstantInt>(y)) {
        shift64(b.getOpcode(), xl, xh, unsigned(c->getZExtValue()) & 63, dl, dh);
        return;
      } else {
        const char *fn = b.getOpcode() == Instruction::Shl ? "__ipucc_shl64" : b.getOpcode() == Instruction::LShr
                                                               ? "__ipucc_lshr64" : "__ipucc_ashr64";
        auto r = callRoutine(b, fn, {{xl, 0}, {xh, 1}, {get(y, 0), 2}}, {0, 1});
        copy(dl, r[0]);
        copy(dh, r[1]);
        return;
      }
    case Instruction::Mul: {
      auto r = callRoutine(b, "__ipucc_mul64", {{xl, 0}, {xh, 1}, {get(y, 0), 2}, {get(y, 1), 3}}, {0, 1});
      copy(dl, r[0]);
      copy(dh, r[1]);
      return;
    }
    case Instruction::UDiv:
    case Instruction::URem:
    case Instruction::SDiv:
    case Instruction::SRem: {
      // Quotient in $m0:1, remainder in $m2:3 (AsmPrinter.cpp's 64-step division).
      bool isSigned = b.getOpcode() == Instruction::SDiv || b.getOpcode() == Instruction::SRem;
      bool rem = b.getOpcode() == Instruction::URem || b.getOpcode() == Instruction::SRem;
      auto r = callRoutine(b, isSigned ? "__ipucc_sdivmod64" : "__ipucc_udivmod64",
                           {{xl, 0}, {xh, 1}, {get(y, 0), 2}, {extendedHigh(y, isSigned), 3}},
                           rem ? std::vector<int>{2, 3} : std::vector<int>{0, 1});
      copy(dl, r[0]);
      copy(dh, r[1]);
      return;
    }
    default:
      break;
    }
    error(&b, "unsupported 64-bit integer operation " + describe(&b));
  }

  // (dh:dl) = (xh:xl) shifted by a constant s in 0..63 (Shl, LShr or AShr).
  void shift64(unsigned opcode, int xl, int xh, unsigned s, int dl, int dh) {
    bool left = opcode == Instruction::Shl, arith = opcode == Instruction::AShr;
    if (s == 0) { copy(dl, xl); copy(dh, xh); return; }
    if (left) {
      if (s >= 32) { emit("shl", {D(dh), U(xl), I(s - 32)}); copy(dl, kMZero); return; }
      int t = newM(), u = newM();
      emit("shl", {D(u), U(xh), I(s)});
      emit("shr", {D(t), U(xl), I(32 - s)});
      emit("or", {D(dh), U(u), U(t)});
      emit("shl", {D(dl), U(xl), I(s)});
      return;
    }
    const char *sh = arith ? "shrs" : "shr";
    if (s >= 32) {
      emit(sh, {D(dl), U(xh), I(s - 32)});
      if (arith) emit("shrs", {D(dh), U(xh), I(31)});
      else copy(dh, kMZero);
      return;
    }
    int t = newM(), u = newM();
    emit("shr", {D(u), U(xl), I(s)});
    emit("shl", {D(t), U(xh), I(32 - s)});
    emit("or", {D(dl), U(u), U(t)});
    emit(sh, {D(dh), U(xh), I(s)});
  }

  void selectFloatBinary(BinaryOperator &b) {
    Type *t = b.getType();
    int d = def(&b);
    int x = get(b.getOperand(0)), y = get(b.getOperand(1));
    RegClass rc = classOfType(t);
    std::string op;
    switch (b.getOpcode()) {
    case Instruction::FAdd: op = "add"; break;
    case Instruction::FSub: op = "sub"; break;
    case Instruction::FMul: op = "mul"; break;
    case Instruction::FDiv: op = "div"; break;
    default: error(&b, "unsupported floating-point operation " + describe(&b)); return;
    }
    if (t->isFloatTy()) return void(emit("f32" + op, {D(d, rc), U(x, rc), U(y, rc)}, true));
    auto *vt = dyn_cast<FixedVectorType>(t);
    if (op == "div") {
      if (t->isHalfTy()) {
        // f16 division through f32: p = 24 >= 2q + 2 = 24, so rounding twice gives the correctly
        // rounded f16 quotient (the classic double-rounding bound).
        int xf = newA(), yf = newA(), q = newA();
        emit("f16tof32", {D(xf, RegClass::A), U(x, RegClass::A)}, true);
        emit("f16tof32", {D(yf, RegClass::A), U(y, RegClass::A)}, true);
        emit("f32div", {D(q, RegClass::A), U(xf, RegClass::A), U(yf, RegClass::A)}, true);
        emit("f32tof16", {D(d, RegClass::A), U(q, RegClass::A)}, true);
        return;
      }
      if (vt && vt->getElementType()->isFloatTy() && vt->getNumElements() == 2) {
        int lo = newA(), hi = newA();
        emit("f32div", {D(lo, RegClass::A), lane(x, rc, 0), lane(y, rc, 0)}, true);
        emit("f32div", {D(hi, RegClass::A), lane(x, rc, 1), lane(y, rc, 1)}, true);
        copyPairInto(d, lo, hi);
        return;
      }
      error(&b, "unsupported vector division " + describe(&b));
      return;
    }
    if (t->isHalfTy() || (vt && vt->getNumElements() == 2 && vt->getElementType()->isHalfTy()))
      return void(emit("f16v2" + op, {D(d, rc), U(x, rc), U(y, rc)}, true));
    if (vt && vt->getNumElements() == 4 && vt->getElementType()->isHalfTy())
      return void(emit("f16v4" + op, {D(d, rc), U(x, rc), U(y, rc)}, true));
    if (isWide(t)) { // 128 bits: the two 64-bit halves
      std::string pre = isHalfVector(t) ? "f16v4" : "f32v2";
      for (int k = 0; k < 2; ++k)
        emit(pre + op, {D(def(&b, k), RegClass::AP), U(get(b.getOperand(0), k), RegClass::AP),
                        U(get(b.getOperand(1), k), RegClass::AP)}, true);
      return;
    }
    if (vt && vt->getNumElements() == 2 && vt->getElementType()->isFloatTy())
      return void(emit("f32v2" + op, {D(d, rc), U(x, rc), U(y, rc)}, true));
    error(&b, "unsupported floating-point operation " + describe(&b));
  }

  void selectFNeg(Instruction &i) {
    Type *t = i.getType();
    RegClass rc = classOfType(t);
    int x = get(i.getOperand(0)), d = def(&i);
    // Flip the sign bit(s): x XOR sign = (x OR sign) AND NOT (x AND sign).
    uint32_t sign = t->isFloatTy() || (isa<FixedVectorType>(t) && !isHalfVector(t)) ? 0x80000000u : 0x80008000u;
    if (rc == RegClass::A) {
      int s = constA(sign), o = newA(), a = newA();
      emit("or", {D(o, rc), U(x, rc), U(s, rc)}, true);
      emit("and", {D(a, rc), U(x, rc), U(s, rc)}, true);
      emit("andc", {D(d, rc), U(o, rc), U(a, rc)}, true);
      return;
    }
    if (rc == RegClass::AP || isWide(t)) {
      int s = constA(sign);
      int sp = makePair(s, s);
      for (int k = 0; k < partsOf(t); ++k) {
        MOp xs = U(get(i.getOperand(0), k), RegClass::AP);
        int o = newReg(RegClass::AP), a = newReg(RegClass::AP);
        emit("or64", {D(o, RegClass::AP), xs, U(sp, RegClass::AP)}, true);
        emit("and64", {D(a, RegClass::AP), xs, U(sp, RegClass::AP)}, true);
        emit("andc64", {D(def(&i, k), RegClass::AP), U(o, RegClass::AP), U(a, RegClass::AP)}, true);
      }
      return;
    }
    error(&i, "unsupported negation " + describe(&i));
  }

  // ---- comparisons and selects -------------------------------------------------------------
  void selectICmp(ICmpInst &c) {
    int d = def(&c);
    Value *x = c.getOperand(0), *y = c.getOperand(1);
    if (isWideInt(x->getType())) return selectICmp64(c);
    unsigned bits = x->getType()->isPointerTy() ? 32 : x->getType()->getIntegerBitWidth();
    bool isSigned = c.isSigned();
    auto xr = [&] { return isSigned ? signExtended(x, bits) : zeroExtended(x, bits); };
    auto yr = [&] { return isSigned ? signExtended(y, bits) : zeroExtended(y, bits); };
    switch (c.getPredicate()) {
    case CmpInst::ICMP_EQ:
    case CmpInst::ICMP_NE: {
      bool eq = c.getPredicate() == CmpInst::ICMP_EQ;
      // Both sides zero-extended to 32 bits (a narrow -1 is 0xFFFF here).
      if (eq && bits == 32 && fitsS16(y)) return void(emit("cmpeq", {D(d), U(get(x)), I(cval(y))}));
      if (auto *c = dyn_cast<ConstantInt>(y); eq && c && c->getZExtValue() < 65536)
        return void(emit("cmpeq", {D(d), U(zeroOrSame(x, bits)), I(int64_t(c->getZExtValue()))}));
      int xv = zeroOrSame(x, bits), yv = zeroOrSame(y, bits);
      return void(emit(eq ? "cmpeq" : "cmpne", {D(d), U(xv), U(yv)}));
    }
    case CmpInst::ICMP_SLT: return void(emit("cmpslt", {D(d), U(xr()), U(yr())}));
    case CmpInst::ICMP_ULT:
      if (auto *c = dyn_cast<ConstantInt>(y); c && c->getZExtValue() < 65536)
        return void(emit("cmpult", {D(d), U(xr()), I(int64_t(c->getZExtValue()))}));
      return void(emit("cmpult", {D(d), U(xr()), U(yr())}));
    case CmpInst::ICMP_SGT: return void(emit("cmpslt", {D(d), U(yr()), U(xr())}));
    case CmpInst::ICMP_UGT: return void(emit("cmpult", {D(d), U(yr()), U(xr())}));
    case CmpInst::ICMP_SGE:
    case CmpInst::ICMP_UGE:
    case CmpInst::ICMP_SLE:
    case CmpInst::ICMP_ULE: {
      bool ge = c.getPredicate() == CmpInst::ICMP_SGE || c.getPredicate() == CmpInst::ICMP_UGE;
      int t = newM();
      int a = ge ? xr() : yr(), b = ge ? yr() : xr();
      emit(isSigned ? "cmpslt" : "cmpult", {D(t), U(a), U(b)});
      emit("cmpeq", {D(d), U(t), I(0)});
      return;
    }
    default: break;
    }
    error(&c, "unsupported comparison " + describe(&c));
  }
  int zeroOrSame(Value *v, unsigned bits) { return bits >= 32 ? get(v) : zeroExtended(v, bits); }
  void selectICmp64(ICmpInst &c) {
    int d = def(&c);
    Value *x = c.getOperand(0), *y = c.getOperand(1);
    int xl = get(x, 0), xh = extendedHigh(x, c.isSigned()), yl = get(y, 0), yh = extendedHigh(y, c.isSigned());
    auto pred = c.getPredicate();
    if (pred == CmpInst::ICMP_EQ || pred == CmpInst::ICMP_NE) {
      int a = newM(), b = newM(), o = newM();
      emit("xor", {D(a), U(xl), U(yl)});
      emit("xor", {D(b), U(xh), U(yh)});
      emit("or", {D(o), U(a), U(b)});
      emit(pred == CmpInst::ICMP_EQ ? "cmpeq" : "cmpne", {D(d), U(o), U(kMZero)});
      return;
    }
    // x < y: hi < hi, or hi == hi and lo <u lo. Other orders by swapping and inverting.
    bool swap = pred == CmpInst::ICMP_SGT || pred == CmpInst::ICMP_UGT || pred == CmpInst::ICMP_SLE || pred == CmpInst::ICMP_ULE;
    bool invert = pred == CmpInst::ICMP_SGE || pred == CmpInst::ICMP_UGE || pred == CmpInst::ICMP_SLE || pred == CmpInst::ICMP_ULE;
    if (swap) std::swap(xl, yl), std::swap(xh, yh);
    int hlt = newM(), heq = newM(), llt = newM(), t = newM(), r = newM();
    emit(c.isSigned() ? "cmpslt" : "cmpult", {D(hlt), U(xh), U(yh)});
    emit("cmpeq", {D(heq), U(xh), U(yh)});
    emit("cmpult", {D(llt), U(xl), U(yl)});
    emit("and", {D(t), U(heq), U(llt)});
    emit("or", {D(r), U(hlt), U(t)});
    if (invert) emit("cmpeq", {D(d), U(r), I(0)});
    else copy(d, r);
  }

  // The f32 comparison of c's operands as an ARF mask (all ones or zero): true where the
  // predicate holds, or where it fails with `invert`. -1 for the constant predicates.
  int fcmpMask(FCmpInst &c, bool &invert) {
    int x = get(c.getOperand(0)), y = get(c.getOperand(1));
    if (c.getOperand(0)->getType()->isHalfTy()) { // compare in f32: exact
      int xf = newA(), yf = newA();
      emit("f16tof32", {D(xf, RegClass::A), U(x, RegClass::A)}, true);
      emit("f16tof32", {D(yf, RegClass::A), U(y, RegClass::A)}, true);
      x = xf, y = yf;
    }
    const char *mn = nullptr;
    invert = false;
    switch (c.getPredicate()) {
    case CmpInst::FCMP_OEQ: mn = "f32cmpeq"; break;
    case CmpInst::FCMP_UNE: mn = "f32cmpne"; break;
    case CmpInst::FCMP_OLT: mn = "f32cmplt"; break;
    case CmpInst::FCMP_OLE: mn = "f32cmple"; break;
    case CmpInst::FCMP_OGT: mn = "f32cmpgt"; break;
    case CmpInst::FCMP_OGE: mn = "f32cmpge"; break;
    case CmpInst::FCMP_UGE: mn = "f32cmplt"; invert = true; break;
    case CmpInst::FCMP_UGT: mn = "f32cmple"; invert = true; break;
    case CmpInst::FCMP_ULE: mn = "f32cmpgt"; invert = true; break;
    case CmpInst::FCMP_ULT: mn = "f32cmpge"; invert = true; break;
    case CmpInst::FCMP_ONE:
    case CmpInst::FCMP_UEQ: {
      // one = ordered and not equal = (x < y) or (x > y); ueq = its inverse.
      int lt = newA(), gt = newA(), o = newA();
      emit("f32cmplt", {D(lt, RegClass::A), U(x, RegClass::A), U(y, RegClass::A)}, true);
      emit("f32cmpgt", {D(gt, RegClass::A), U(x, RegClass::A), U(y, RegClass::A)}, true);
      emit("or", {D(o, RegClass::A), U(lt, RegClass::A), U(gt, RegClass::A)}, true);
      invert = c.getPredicate() == CmpInst::FCMP_UEQ;
      return o;
    }
    case CmpInst::FCMP_ORD: // x == x and y == y
    case CmpInst::FCMP_UNO: { // x != x or y != y
      bool ord = c.getPredicate() == CmpInst::FCMP_ORD;
      int a = newA(), b = newA(), m = newA();
      emit(ord ? "f32cmpeq" : "f32cmpne", {D(a, RegClass::A), U(x, RegClass::A), U(x, RegClass::A)}, true);
      emit(ord ? "f32cmpeq" : "f32cmpne", {D(b, RegClass::A), U(y, RegClass::A), U(y, RegClass::A)}, true);
      emit(ord ? "and" : "or", {D(m, RegClass::A), U(a, RegClass::A), U(b, RegClass::A)}, true);
      return m;
    }
    default: return -1;
    }
    int m = newA();
    emit(mn, {D(m, RegClass::A), U(x, RegClass::A), U(y, RegClass::A)}, true);
    return m;
  }

  void selectFCmp(FCmpInst &c) {
    Type *t = c.getOperand(0)->getType();
    if (!t->isFloatTy() && !t->isHalfTy()) { error(&c, "unsupported vector comparison " + describe(&c)); return; }
    if (c.getPredicate() == CmpInst::FCMP_TRUE) return copy(def(&c), constM(1));
    if (c.getPredicate() == CmpInst::FCMP_FALSE) return copy(def(&c), kMZero);
    bool invert = false;
    const int r = aToM(fcmpMask(c, invert));
    const int d = def(&c);
    if (invert) emit("cmpeq", {D(d), U(r), I(0)});
    else emit("and", {D(d), U(r), I(1)});
  }

  void selectSelect(SelectInst &s) {
    Type *t = s.getType();
    RegClass rc = classOfType(t);
    int parts = partsOf(t);
    if (rc == RegClass::M) {
      int cond = get(s.getCondition());
      for (int p = 0; p < parts; ++p) {
        int d = def(&s, p);
        int f = get(s.getFalseValue(), p), tr = get(s.getTrueValue(), p);
        int tmp = newM();
        copy(tmp, f);
        MInst &m = emit("movnz", {D(tmp), U(cond), U(tr)});
        m.ops[0].use = true; // keeps its value when the condition is zero
        copy(d, tmp);
      }
      return;
    }
    // ARF values: d = (t & m) | (f & ~m) with m all ones or zero. A scalar floating-point
    // comparison gives that mask in the ARF itself; else mask = 0 - cond, moved to the ARF
    // (through memory: the tile has no MRF-to-ARF move).
    int tv = get(s.getTrueValue()), fv = get(s.getFalseValue()), d = def(&s);
    int am = -1;
    if (auto *fc = dyn_cast<FCmpInst>(s.getCondition());
        fc && (fc->getOperand(0)->getType()->isFloatTy() || fc->getOperand(0)->getType()->isHalfTy())) {
      bool invert = false;
      am = fcmpMask(*fc, invert);
      if (invert) std::swap(tv, fv);
    }
    if (am < 0) {
      int mask = newM();
      emit("sub", {D(mask), I(0), U(get(s.getCondition()))});
      am = mToA(mask);
    }
    if (rc == RegClass::A) {
      // A zero arm (+0.0, all bits clear) needs no operation of its own.
      if (fv == kAZero) return void(emit("and", {D(d, rc), U(tv, rc), U(am, rc)}, true));
      if (tv == kAZero) return void(emit("andc", {D(d, rc), U(fv, rc), U(am, rc)}, true));
      int a = newA(), b = newA();
      emit("and", {D(a, rc), U(tv, rc), U(am, rc)}, true);
      emit("andc", {D(b, rc), U(fv, rc), U(am, rc)}, true);
      emit("or", {D(d, rc), U(a, rc), U(b, rc)}, true);
      return;
    }
    if (rc == RegClass::AP) {
      int mp = makePair(am, am), a = newReg(rc), b = newReg(rc);
      emit("and64", {D(a, rc), U(tv, rc), U(mp, rc)}, true);
      emit("andc64", {D(b, rc), U(fv, rc), U(mp, rc)}, true);
      emit("or64", {D(d, rc), U(a, rc), U(b, rc)}, true);
      return;
    }
    error(&s, "unsupported select " + describe(&s));
  }

  // ---- casts -------------------------------------------------------------------------------
  void selectCast(CastInst &c) {
    Type *from = c.getSrcTy(), *to = c.getDestTy();
    Value *x = c.getOperand(0);
    switch (c.getOpcode()) {
    case Instruction::ZExt: {
      unsigned bits = from->getIntegerBitWidth();
      if (isWideInt(from)) { // 33..63 bits to a wider type: the high word zero-extended
        copy(def(&c, 0), get(x, 0));
        copy(def(&c, 1), extendedHigh(x, false));
        return;
      }
      if (isWideInt(to)) {
        copy(def(&c, 0), zeroOrSame(x, bits));
        copy(def(&c, 1), kMZero);
        return;
      }
      if (auto *ld = dyn_cast<LoadInst>(x); ld && bits < 32) return copy(def(&c), get(x)); // ldz already zero-extends
      return copy(def(&c), zeroOrSame(x, bits));
    }
    case Instruction::SExt: {
      unsigned bits = from->getIntegerBitWidth();
      if (isWideInt(from)) {
        copy(def(&c, 0), get(x, 0));
        copy(def(&c, 1), extendedHigh(x, true));
        return;
      }
      int r;
      if (isa<LoadInst>(x) && x->hasOneUse() && bits > 1) r = get(x); // lds
      else if (bits == 1) {
        r = newM();
        emit("sub", {D(r), I(0), U(get(x))});
      } else r = signExtended(x, bits);
      if (isWideInt(to)) {
        copy(def(&c, 0), r);
        emit("shrs", {D(def(&c, 1)), U(r), I(31)});
        return;
      }
      return copy(def(&c), r);
    }
    case Instruction::Trunc:
      if (to->isIntegerTy(1)) return void(emit("and", {D(def(&c)), U(get(x, 0)), I(1)})); // i1 is exactly 0 or 1
      if (isWideInt(from) && isWideInt(to)) { // the bits above the narrower width are don't-care
        copy(def(&c, 0), get(x, 0));
        copy(def(&c, 1), get(x, 1));
        return;
      }
      if (isWideInt(from)) return copy(def(&c), get(x, 0));
      return copy(def(&c), get(x)); // upper bits are don't-care in registers
    case Instruction::PtrToInt:
    case Instruction::IntToPtr:
      return copy(def(&c), get(x));
    case Instruction::BitCast: {
      RegClass a = classOfType(from), b = classOfType(to);
      if (from->isIntegerTy(64) || to->isIntegerTy(64)) {
        if (from->isIntegerTy(64) && b == RegClass::AP) return copyPairInto(def(&c), mToA(get(x, 0)), mToA(get(x, 1)));
        if (to->isIntegerTy(64) && a == RegClass::AP) {
          int r = get(x);
          int lo = newM(), hi = newM();
          emit("atom", {D(lo), lane(r, RegClass::AP, 0)});
          emit("atom", {D(hi), lane(r, RegClass::AP, 1)});
          copy(def(&c, 0), lo);
          copy(def(&c, 1), hi);
          return;
        }
        break;
      }
      if (isWide(from) && isWide(to)) {
        for (int k = 0; k < 2; ++k) copy(def(&c, k), get(x, k));
        return;
      }
      if (a == b) return copy(def(&c), get(x));
      if (a == RegClass::M && b == RegClass::A) return copy(def(&c), mToA(get(x)));
      if (a == RegClass::A && b == RegClass::M) return copy(def(&c), aToM(get(x)));
      break;
    }
    case Instruction::FPExt:
      if (from->isHalfTy() && to->isFloatTy()) return void(emit("f16tof32", {D(def(&c), RegClass::A), U(get(x), RegClass::A)}, true));
      if (isHalfVector(from) && classOfType(to) == RegClass::AP)
        return void(emit("f16v2tof32", {D(def(&c), RegClass::AP), U(get(x), RegClass::A)}, true));
      if (isHalfVector(from) && isWide(to)) { // <4 x half> -> <4 x float>
        int h = get(x);
        for (int k = 0; k < 2; ++k) emit("f16v2tof32", {D(def(&c, k), RegClass::AP), lane(h, RegClass::AP, k)}, true);
        return;
      }
      break;
    case Instruction::FPTrunc:
      if (from->isFloatTy() && to->isHalfTy()) return void(emit("f32tof16", {D(def(&c), RegClass::A), U(get(x), RegClass::A)}, true));
      if (classOfType(from) == RegClass::AP && isHalfVector(to))
        return void(emit("f32v2tof16", {D(def(&c), RegClass::A), U(get(x), RegClass::AP)}, true));
      if (isWide(from) && isHalfVector(to)) { // <4 x float> -> <4 x half>
        int lo = newA(), hi = newA();
        emit("f32v2tof16", {D(lo, RegClass::A), U(get(x, 0), RegClass::AP)}, true);
        emit("f32v2tof16", {D(hi, RegClass::A), U(get(x, 1), RegClass::AP)}, true);
        return copyPairInto(def(&c), lo, hi);
      }
      break;
    case Instruction::SIToFP:
    case Instruction::UIToFP: {
      if (isWideInt(from)) { // a runtime routine, result in $a0 (correctly rounded)
        bool s = c.getOpcode() == Instruction::SIToFP;
        int f = callRoutine(c, s ? "__ipucc_s64tof32" : "__ipucc_u64tof32", {{get(x, 0), 0}, {extendedHigh(x, s), 1}},
                            {kA0})[0];
        // To half through f32: exact for |x| < 2^24, and larger values are beyond half's range.
        if (to->isHalfTy()) emit("f32tof16", {D(def(&c), RegClass::A), U(f, RegClass::A)}, true);
        else if (to->isFloatTy()) copy(def(&c), f);
        else break;
        return;
      }
      unsigned bits = from->getIntegerBitWidth();
      bool s = c.getOpcode() == Instruction::SIToFP;
      int m = s ? signExtended(x, bits) : zeroOrSame(x, bits);
      if (bits == 1 && s) { int n = newM(); emit("sub", {D(n), I(0), U(m)}); m = n; }
      int a = mToA(m), f = newA();
      emit(s ? "f32fromi32" : "f32fromui32", {D(f, RegClass::A), U(a, RegClass::A)}, true);
      if (to->isHalfTy()) emit("f32tof16", {D(def(&c), RegClass::A), U(f, RegClass::A)}, true);
      else if (to->isFloatTy()) copy(def(&c), f);
      else break;
      return;
    }
    case Instruction::FPToSI:
    case Instruction::FPToUI: {
      if (isWideInt(to)) {
        int f = get(x);
        if (from->isHalfTy()) {
          int g = newA();
          emit("f16tof32", {D(g, RegClass::A), U(f, RegClass::A)}, true);
          f = g;
        } else if (!from->isFloatTy()) break;
        auto r = callRoutine(c, c.getOpcode() == Instruction::FPToSI ? "__ipucc_f32tos64" : "__ipucc_f32tou64",
                             {{f, kA0}}, {0, 1});
        copy(def(&c, 0), r[0]);
        copy(def(&c, 1), r[1]);
        return;
      }
      int f = get(x);
      if (from->isHalfTy()) {
        int g = newA();
        emit("f16tof32", {D(g, RegClass::A), U(f, RegClass::A)}, true);
        f = g;
      } else if (!from->isFloatTy()) break;
      // C converts toward zero; f32toi32 rounds to nearest, so truncate first (f32int mode 3).
      int t = newA(), i = newA();
      emit("f32int", {D(t, RegClass::A), U(f, RegClass::A), I(3)}, true);
      emit(c.getOpcode() == Instruction::FPToSI ? "f32toi32" : "f32toui32", {D(i, RegClass::A), U(t, RegClass::A)}, true);
      copy(def(&c), aToM(i));
      return;
    }
    default: break;
    }
    error(&c, "unsupported conversion " + describe(&c));
  }

  // ---- vectors -----------------------------------------------------------------------------
  // One element of a legal vector as a scalar register (a half in the low 16 bits).
  int element(Value *v, unsigned index) {
    Type *t = v->getType();
    if (cast<VectorType>(t)->getElementType()->isIntegerTy()) {
      // An integer vector lives in ARF registers like a float one: the word holding the lane,
      // moved to the MRF and shifted down (the lane's upper bits are don't-care).
      unsigned bits = unsigned(cast<VectorType>(t)->getElementType()->getIntegerBitWidth());
      unsigned bit = index * bits, word = bit / 32;
      int r = get(v, 0);
      RegClass rc = mf_.classOf(r);
      int m = newM();
      if (rc == RegClass::A) emit("atom", {D(m), U(r, RegClass::A)});
      else emit("atom", {D(m), lane(r, rc, int(word))});
      if (bit % 32 == 0) return m;
      int s = newM();
      emit("shr", {D(s), U(m), I(bit % 32)});
      return s;
    }
    bool half = isHalfVector(t);
    int part = 0;
    if (isWide(t)) {
      part = int(index / (half ? 4 : 2));
      index %= half ? 4 : 2;
    }
    int r = get(v, part);
    RegClass rc = mf_.classOf(r);
    if (!half) {
      if (rc == RegClass::AP || rc == RegClass::AQ) {
        int d = newA();
        emit("mov", {D(d, RegClass::A), lane(r, rc, int(index))}, true);
        return d;
      }
      return r;
    }
    MOp word = rc == RegClass::A ? U(r, rc) : lane(r, rc, int(index / 2));
    if (index % 2 == 0) {
      int d = newA();
      emit("mov", {D(d, RegClass::A), word}, true);
      return d;
    }
    int d = newA();
    emit("sort4x16hi", {D(d, RegClass::A), word, word}, true);
    return d;
  }
  // Writes a vector value (both pairs of a 128-bit one) from scalar element registers.
  void buildVectorInto(Value *dst, const std::vector<int> &elems) {
    Type *t = dst->getType();
    if (!isWide(t)) return copy(def(dst), buildVector(t, elems));
    size_t half = elems.size() / 2;
    Type *pt = FixedVectorType::get(cast<FixedVectorType>(t)->getElementType(), unsigned(half));
    for (int k = 0; k < 2; ++k)
      copy(def(dst, k), buildVector(pt, std::vector<int>(elems.begin() + long(k * half), elems.begin() + long((k + 1) * half))));
  }
  // Builds a legal vector of type `t` (at most 64 bits) from scalar element registers.
  int buildVector(Type *t, const std::vector<int> &elems) {
    RegClass rc = classOfType(t);
    if (cast<VectorType>(t)->getElementType()->isIntegerTy()) {
      // Lanes packed into 32-bit words in the MRF, then moved to the ARF.
      unsigned bits = unsigned(cast<VectorType>(t)->getElementType()->getIntegerBitWidth());
      std::vector<int> words;
      for (size_t i = 0; i < elems.size(); ++i) {
        unsigned bit = unsigned(i) * bits;
        int e = elems[i] == kAZero ? kMZero : elems[i];
        if (bits < 32) {
          int z = newM();
          emit("shl", {D(z), U(e), I(32 - bits)});
          emit("shr", {D(z), U(z), I(32 - bits - bit % 32)}); // masked and in place
          e = z;
        }
        if (bit % 32 == 0) words.push_back(e);
        else {
          int w = newM();
          emit("or", {D(w), U(words.back()), U(e)});
          words.back() = w;
        }
      }
      if (rc == RegClass::A) return mToA(words[0]);
      return makePair(mToA(words[0]), mToA(words[1]));
    }
    if (!isHalfVector(t)) {
      if (rc == RegClass::AP) return makePair(elems[0], elems[1]);
      return elems[0];
    }
    if (std::all_of(elems.begin(), elems.end(), [&](int e) { return e == elems[0]; })) {
      int w = newA(); // a broadcast half
      emit("sort4x16lo", {D(w, RegClass::A), U(elems[0], RegClass::A), U(elems[0], RegClass::A)}, true);
      return rc == RegClass::A ? w : makePair(w, w);
    }
    std::vector<int> words;
    for (size_t i = 0; i < elems.size(); i += 2) {
      int w = newA();
      emit("sort4x16lo", {D(w, RegClass::A), U(elems[i], RegClass::A), U(elems[i + 1], RegClass::A)}, true);
      words.push_back(w);
    }
    if (words.size() == 1) return words[0];
    return makePair(words[0], words[1]);
  }
  unsigned lanes(Type *t) { return unsigned(cast<FixedVectorType>(t)->getNumElements()); }

  void selectExtract(ExtractElementInst &e) {
    auto *idx = dyn_cast<ConstantInt>(e.getIndexOperand());
    if (!idx) { error(&e, "vector element with a variable index is not supported"); return; }
    copy(def(&e), element(e.getVectorOperand(), unsigned(idx->getZExtValue())));
  }
  void selectInsert(InsertElementInst &e) {
    auto *idx = dyn_cast<ConstantInt>(e.getOperand(2));
    if (!idx) { error(&e, "vector element with a variable index is not supported"); return; }
    std::vector<int> elems;
    for (unsigned i = 0; i < lanes(e.getType()); ++i)
      elems.push_back(i == idx->getZExtValue() ? get(e.getOperand(1))
                      : isa<UndefValue>(e.getOperand(0)) ? kAZero : element(e.getOperand(0), i));
    buildVectorInto(&e, elems);
  }
  void selectShuffle(ShuffleVectorInst &s) {
    unsigned n0 = lanes(s.getOperand(0)->getType());
    // A splat of a scalar put into a vector: the scalar itself, no element moves.
    if (auto *ins = dyn_cast<InsertElementInst>(s.getOperand(0)); ins && isa<ConstantInt>(ins->getOperand(2))) {
      int64_t at = cast<ConstantInt>(ins->getOperand(2))->getSExtValue();
      bool splat = true;
      for (int m : s.getShuffleMask()) splat &= m == at;
      if (splat) {
        int x = get(ins->getOperand(1));
        std::vector<int> elems(lanes(s.getType()), x);
        return buildVectorInto(&s, elems);
      }
    }
    std::vector<int> elems;
    for (int m : s.getShuffleMask()) {
      if (m < 0) elems.push_back(kAZero);
      else if (unsigned(m) < n0) elems.push_back(element(s.getOperand(0), unsigned(m)));
      else elems.push_back(element(s.getOperand(1), unsigned(m) - n0));
    }
    buildVectorInto(&s, elems);
  }

  // ---- intrinsics --------------------------------------------------------------------------
  void selectIntrinsic(IntrinsicInst &ii) {
    Intrinsic::ID id = ii.getIntrinsicID();
    switch (id) {
    case Intrinsic::lifetime_start:
    case Intrinsic::lifetime_end:
    case Intrinsic::dbg_declare:
    case Intrinsic::dbg_value:
    case Intrinsic::dbg_label:
    case Intrinsic::assume:
    case Intrinsic::experimental_noalias_scope_decl:
    case Intrinsic::donothing:
      return;
    case Intrinsic::memcpy:
    case Intrinsic::memmove: {
      auto &mc = cast<MemTransferInst>(ii);
      if (id == Intrinsic::memmove) {
        callRuntime(ii, "__ipucc_memmove", {get(mc.getDest()), get(mc.getSource()), get(mc.getLength())});
        return;
      }
      return lowerMemcpy(ii, mc.getDest(), mc.getSource(), mc.getLength(), mc.getDestAlign().valueOrOne(),
                         mc.getSourceAlign().valueOrOne());
    }
    case Intrinsic::memset: {
      auto &ms = cast<MemSetInst>(ii);
      return lowerMemset(ii, ms.getDest(), ms.getValue(), ms.getLength(), ms.getDestAlign().valueOrOne());
    }
    default: break;
    }
    Type *t = ii.getType();
    RegClass rc = classOfType(t);
    auto unaryF32 = [&](const char *mn) {
      int x = get(ii.getArgOperand(0));
      if (t->isFloatTy()) return void(emit(mn, {D(def(&ii), rc), U(x, rc)}, true));
      if (t->isHalfTy()) { // through f32 (the transcendental instructions are f32; f16v2 forms exist for some)
        int f = newA(), r = newA();
        emit("f16tof32", {D(f, RegClass::A), U(x, RegClass::A)}, true);
        emit(mn, {D(r, RegClass::A), U(f, RegClass::A)}, true);
        emit("f32tof16", {D(def(&ii), RegClass::A), U(r, RegClass::A)}, true);
        return;
      }
      error(&ii, std::string("unsupported vector ") + mn + " " + describe(&ii));
    };
    switch (id) {
    case Intrinsic::sqrt: return unaryF32("f32sqrt");
    case Intrinsic::exp: return unaryF32("f32exp");
    case Intrinsic::exp2: return unaryF32("f32exp2");
    case Intrinsic::log: return unaryF32("f32ln");
    case Intrinsic::log2: return unaryF32("f32log2");
    case Intrinsic::round:
    case Intrinsic::log10: {
      if (!t->isFloatTy() && !t->isHalfTy()) break;
      int x = get(ii.getArgOperand(0));
      if (t->isHalfTy()) {
        int f = newA();
        emit("f16tof32", {D(f, RegClass::A), U(x, RegClass::A)}, true);
        x = f;
      }
      int r = newA();
      if (id == Intrinsic::log10) {
        // log10 x = log2 x * log10 2 (one extra rounding: within 2 ulp, docs/ipu-cc.md).
        int l = newA();
        emit("f32log2", {D(l, RegClass::A), U(x, RegClass::A)}, true);
        emit("f32mul", {D(r, RegClass::A), U(l, RegClass::A), U(constA(0x3e9a209bu), RegClass::A)}, true);
      } else {
        // Halfway cases away from zero: t = trunc x, plus copysign(1, x) when |x - t| >= 0.5
        // (exact: x - t is exact, and |x| >= 2^23 is already integral).
        int tr = newA(), d = newA(), ad = newA(), ge = newA(), one = newA(), step = newA();
        emit("f32int", {D(tr, RegClass::A), U(x, RegClass::A), I(3)}, true);
        emit("f32sub", {D(d, RegClass::A), U(x, RegClass::A), U(tr, RegClass::A)}, true);
        emit("andc", {D(ad, RegClass::A), U(d, RegClass::A), I(0x80000000u)}, true);
        emit("f32cmpge", {D(ge, RegClass::A), U(ad, RegClass::A), U(constA(0x3f000000u), RegClass::A)}, true);
        emit("and", {D(one, RegClass::A), U(x, RegClass::A), I(0x80000000u)}, true);
        emit("or", {D(one, RegClass::A), U(one, RegClass::A), I(0x3f800000u)}, true);
        emit("and", {D(step, RegClass::A), U(one, RegClass::A), U(ge, RegClass::A)}, true);
        emit("f32add", {D(r, RegClass::A), U(tr, RegClass::A), U(step, RegClass::A)}, true);
      }
      if (t->isHalfTy()) emit("f32tof16", {D(def(&ii), RegClass::A), U(r, RegClass::A)}, true);
      else copy(def(&ii), r);
      return;
    }
    case Intrinsic::floor:
    case Intrinsic::ceil:
    case Intrinsic::trunc:
    case Intrinsic::rint:
    case Intrinsic::nearbyint:
    case Intrinsic::roundeven: {
      int mode = id == Intrinsic::floor ? 2 : id == Intrinsic::ceil ? 1 : id == Intrinsic::trunc ? 3 : 0;
      int x = get(ii.getArgOperand(0));
      if (t->isFloatTy()) return void(emit("f32int", {D(def(&ii), rc), U(x, rc), I(mode)}, true));
      if (t->isHalfTy()) {
        int f = newA(), r = newA();
        emit("f16tof32", {D(f, RegClass::A), U(x, RegClass::A)}, true);
        emit("f32int", {D(r, RegClass::A), U(f, RegClass::A), I(mode)}, true);
        emit("f32tof16", {D(def(&ii), RegClass::A), U(r, RegClass::A)}, true);
        return;
      }
      break;
    }
    case Intrinsic::fabs: {
      int x = get(ii.getArgOperand(0));
      if (t->isFloatTy()) return void(emit("andc", {D(def(&ii), rc), U(x, rc), I(0x80000000u)}, true));
      uint32_t sign = isHalfVector(t) || t->isHalfTy() ? 0x80008000u : 0x80000000u;
      int s = constA(sign);
      if (rc == RegClass::A) return void(emit("andc", {D(def(&ii), rc), U(x, rc), U(s, RegClass::A)}, true));
      return void(emit("andc64", {D(def(&ii), rc), U(x, rc), U(makePair(s, s), RegClass::AP)}, true));
    }
    case Intrinsic::copysign: {
      int x = get(ii.getArgOperand(0)), y = get(ii.getArgOperand(1));
      if (rc != RegClass::A) break;
      uint32_t sign = t->isHalfTy() ? 0x80008000u : 0x80000000u;
      int s = constA(sign), a = newA(), b = newA();
      emit("andc", {D(a, rc), U(x, rc), U(s, rc)}, true);
      emit("and", {D(b, rc), U(y, rc), U(s, rc)}, true);
      emit("or", {D(def(&ii), rc), U(a, rc), U(b, rc)}, true);
      return;
    }
    case Intrinsic::minimum:
    case Intrinsic::maximum:
      if (t->isFloatTy() || t->isHalfTy()) {
        // NaN-propagating: max/min where both are numbers, else x + y (a NaN), chosen by the
        // unordered mask; half through f32 (exact).
        bool mx = id == Intrinsic::maximum;
        int x = get(ii.getArgOperand(0)), y = get(ii.getArgOperand(1));
        if (t->isHalfTy()) {
          int xf = newA(), yf = newA();
          emit("f16tof32", {D(xf, RegClass::A), U(x, RegClass::A)}, true);
          emit("f16tof32", {D(yf, RegClass::A), U(y, RegClass::A)}, true);
          x = xf, y = yf;
        }
        int m = newA(), s = newA(), a = newA(), b = newA(), u = newA(), p = newA(), q = newA(), r = newA();
        emit(mx ? "f32max" : "f32min", {D(m, RegClass::A), U(x, RegClass::A), U(y, RegClass::A)}, true);
        emit("f32add", {D(s, RegClass::A), U(x, RegClass::A), U(y, RegClass::A)}, true);
        emit("f32cmpne", {D(a, RegClass::A), U(x, RegClass::A), U(x, RegClass::A)}, true);
        emit("f32cmpne", {D(b, RegClass::A), U(y, RegClass::A), U(y, RegClass::A)}, true);
        emit("or", {D(u, RegClass::A), U(a, RegClass::A), U(b, RegClass::A)}, true);
        emit("and", {D(p, RegClass::A), U(s, RegClass::A), U(u, RegClass::A)}, true);
        emit("andc", {D(q, RegClass::A), U(m, RegClass::A), U(u, RegClass::A)}, true);
        emit("or", {D(r, RegClass::A), U(p, RegClass::A), U(q, RegClass::A)}, true);
        if (t->isHalfTy()) emit("f32tof16", {D(def(&ii), RegClass::A), U(r, RegClass::A)}, true);
        else copy(def(&ii), r);
        return;
      }
      [[fallthrough]];
    case Intrinsic::minnum:
    case Intrinsic::maxnum: {
      bool mx = id == Intrinsic::maxnum || id == Intrinsic::maximum;
      int x = get(ii.getArgOperand(0)), y = get(ii.getArgOperand(1));
      std::string mn = t->isFloatTy() ? "f32" : t->isHalfTy() || (isHalfVector(t) && rc == RegClass::A) ? "f16v2"
                       : isHalfVector(t) ? "f16v4" : "f32v2";
      return void(emit(mn + (mx ? "max" : "min"), {D(def(&ii), rc), U(x, rc), U(y, rc)}, true));
    }
    case Intrinsic::smax:
    case Intrinsic::smin: {
      if (t->isIntegerTy(64)) return minMax64(ii, true, id == Intrinsic::smin);
      if (!t->isIntegerTy() || t->getIntegerBitWidth() > 32) break;
      unsigned bits = t->getIntegerBitWidth();
      int x = signExtended(ii.getArgOperand(0), bits), y = signExtended(ii.getArgOperand(1), bits);
      return void(emit(id == Intrinsic::smax ? "max" : "min", {D(def(&ii)), U(x), U(y)}));
    }
    case Intrinsic::cttz: {
      // Count trailing zeros: clz of the isolated lowest set bit, from 31 (x & -x).
      if (!t->isIntegerTy(32)) break;
      int x = get(ii.getArgOperand(0)), n = newM(), low = newM(), z = newM();
      emit("sub", {D(n), I(0), U(x)});
      emit("and", {D(low), U(x), U(n)});
      emit("clz", {D(z), U(low)});
      int r = newM();
      emit("sub", {D(r), I(31), U(z)});
      // x == 0: clz gives 32, 31 - 32 = -1; C's __builtin_ctz(0) is undefined, LLVM's cttz gives 32.
      int zero = newM(), tmp = newM();
      emit("cmpeq", {D(zero), U(x), I(0)});
      copy(tmp, r);
      MInst &m = emit("movnz", {D(tmp), U(zero), U(constM(32))});
      m.ops[0].use = true;
      return copy(def(&ii), tmp);
    }
    case Intrinsic::fshl:
    case Intrinsic::fshr: {
      // Funnel shifts by a constant (rotates are fshl(x, x, s)).
      auto *c = dyn_cast<ConstantInt>(ii.getArgOperand(2));
      if (c && t->isIntegerTy(64)) { // (a << s) | (b >> (64 - s)), from the constant shifts
        unsigned sh = unsigned(c->getZExtValue() % 64);
        if (id == Intrinsic::fshr) sh = (64 - sh) % 64;
        Value *a = ii.getArgOperand(0), *bv = ii.getArgOperand(1);
        if (sh == 0) { copy(def(&ii, 0), get(a, 0)); copy(def(&ii, 1), get(a, 1)); return; }
        int hl = newM(), hh = newM(), ll = newM(), lh = newM();
        shift64(Instruction::Shl, get(a, 0), get(a, 1), sh, hl, hh);
        shift64(Instruction::LShr, get(bv, 0), get(bv, 1), 64 - sh, ll, lh);
        emit("or", {D(def(&ii, 0)), U(hl), U(ll)});
        emit("or", {D(def(&ii, 1)), U(hh), U(lh)});
        return;
      }
      if (!c || !t->isIntegerTy() || t->getIntegerBitWidth() > 32) break;
      unsigned bits = t->getIntegerBitWidth(), sh = unsigned(c->getZExtValue() % bits);
      if (id == Intrinsic::fshr) sh = (bits - sh) % bits;
      int hi = zeroOrSame(ii.getArgOperand(0), bits), lo = zeroOrSame(ii.getArgOperand(1), bits);
      if (sh == 0) return copy(def(&ii), hi);
      int a = newM(), b = newM();
      emit("shl", {D(a), U(hi), I(sh)});
      emit("shr", {D(b), U(lo), I(bits - sh)});
      return void(emit("or", {D(def(&ii)), U(a), U(b)}));
    }
    case Intrinsic::usub_sat: { // x <u y ? 0 : x - y
      if (!t->isIntegerTy() || t->getIntegerBitWidth() > 32) break;
      unsigned bits = t->getIntegerBitWidth();
      int x = zeroOrSame(ii.getArgOperand(0), bits), y = zeroOrSame(ii.getArgOperand(1), bits);
      int lt = newM(), d = newM();
      emit("cmpult", {D(lt), U(x), U(y)});
      emit("sub", {D(d), U(x), U(y)});
      MInst &m = emit("movnz", {D(d), U(lt), U(kMZero)});
      m.ops[0].use = true;
      return copy(def(&ii), d);
    }
    case Intrinsic::uadd_sat: { // x + y, or the largest value if that is past it
      if (!t->isIntegerTy() || t->getIntegerBitWidth() > 32) break;
      unsigned bits = t->getIntegerBitWidth();
      int x = zeroOrSame(ii.getArgOperand(0), bits), y = zeroOrSame(ii.getArgOperand(1), bits);
      int sum = newM(), over = newM(), most = constM(bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1);
      emit("add", {D(sum), U(x), U(y)});
      if (bits == 32) emit("cmpult", {D(over), U(sum), U(x)}); // wrapped
      else emit("cmpult", {D(over), U(most), U(sum)});
      MInst &m = emit("movnz", {D(sum), U(over), U(most)});
      m.ops[0].use = true;
      return copy(def(&ii), sum);
    }
    case Intrinsic::umax:
    case Intrinsic::umin: {
      if (t->isIntegerTy(64)) return minMax64(ii, false, id == Intrinsic::umin);
      if (!t->isIntegerTy() || t->getIntegerBitWidth() > 32) break;
      unsigned bits = t->getIntegerBitWidth();
      int x = zeroOrSame(ii.getArgOperand(0), bits), y = zeroOrSame(ii.getArgOperand(1), bits);
      int lt = newM(), tmp = newM();
      // umin: x <u y ? x : y
      bool mn = id == Intrinsic::umin;
      emit("cmpult", {D(lt), U(mn ? x : y), U(mn ? y : x)});
      copy(tmp, y);
      MInst &m = emit("movnz", {D(tmp), U(lt), U(x)});
      m.ops[0].use = true;
      copy(def(&ii), tmp);
      return;
    }
    case Intrinsic::abs:
      if (t->isIntegerTy(64)) { // (x ^ s) - s with s = x >> 63 (all ones or zero), the borrow carried
        Value *x = ii.getArgOperand(0);
        int sgn = newM(), xl = newM(), xh = newM(), borrow = newM(), hi = newM();
        emit("shrs", {D(sgn), U(get(x, 1)), I(31)});
        emit("xor", {D(xl), U(get(x, 0)), U(sgn)});
        emit("xor", {D(xh), U(get(x, 1)), U(sgn)});
        emit("cmpult", {D(borrow), U(xl), U(sgn)});
        emit("sub", {D(def(&ii, 0)), U(xl), U(sgn)});
        emit("sub", {D(hi), U(xh), U(sgn)});
        emit("sub", {D(def(&ii, 1)), U(hi), U(borrow)});
        return;
      }
      if (!t->isIntegerTy(32)) break;
      return void(emit("abs", {D(def(&ii)), U(get(ii.getArgOperand(0)))}));
    case Intrinsic::ctpop:
      if (!t->isIntegerTy() || t->getIntegerBitWidth() > 32) break;
      return void(emit("popc", {D(def(&ii)), U(zeroOrSame(ii.getArgOperand(0), t->getIntegerBitWidth()))}));
    case Intrinsic::bswap: {
      // swap8 swaps the bytes of each half, swap16 the halves (docs/isa.md); an i16 needs only
      // the first, an i64 both on each word with the words exchanged.
      auto reverse = [&](int d, int x, bool halves) {
        if (!halves) return void(emit("swap8", {D(d), U(x)}));
        int b = newM();
        emit("swap8", {D(b), U(x)});
        emit("swap16", {D(d), U(b)});
      };
      Value *x = ii.getArgOperand(0);
      if (t->isIntegerTy(16)) return reverse(def(&ii), get(x), false);
      if (t->isIntegerTy(32)) return reverse(def(&ii), get(x), true);
      if (t->isIntegerTy(64)) {
        reverse(def(&ii, 0), get(x, 1), true);
        reverse(def(&ii, 1), get(x, 0), true);
        return;
      }
      break;
    }
    case Intrinsic::ctlz:
      if (!t->isIntegerTy(32)) break;
      return void(emit("clz", {D(def(&ii)), U(get(ii.getArgOperand(0)))}));
    case Intrinsic::fmuladd: {
      // Not fused (contraction is off by default; fmuladd permits either).
      int x = get(ii.getArgOperand(0)), y = get(ii.getArgOperand(1)), z = get(ii.getArgOperand(2));
      int p = newReg(rc);
      std::string pre = t->isFloatTy() ? "f32" : t->isHalfTy() ? "f16v2" : isHalfVector(t) ? (rc == RegClass::A ? "f16v2" : "f16v4") : "f32v2";
      emit(pre + "mul", {D(p, rc), U(x, rc), U(y, rc)}, true);
      emit(pre + "add", {D(def(&ii), rc), U(p, rc), U(z, rc)}, true);
      return;
    }
    case Intrinsic::umul_with_overflow:
    case Intrinsic::uadd_with_overflow: {
      // {result, overflow}: extractvalue reads the two registers (aggregates_).
      Type *et = cast<StructType>(t)->getElementType(0);
      if (!et->isIntegerTy(32)) break;
      Value *a = ii.getArgOperand(0), *b = ii.getArgOperand(1);
      int x = get(a), y = get(b), r = newM(), o = newM();
      if (id == Intrinsic::uadd_with_overflow) {
        emit("add", {D(r), U(x), U(y)});
        emit("cmpult", {D(o), U(r), U(x)});
      } else {
        emit("mul", {D(r), U(x), U(y)});
        if (auto *c = dyn_cast<ConstantInt>(b); c && c->getZExtValue() > 1) {
          // x * c overflows exactly when x > UINT32_MAX / c.
          emit("cmpult", {D(o), U(constM(uint32_t(0xFFFFFFFFu / c->getZExtValue()))), U(x)});
        } else {
          int hi = callRuntime(ii, "__ipucc_mul64", {x, kMZero, y, kMZero});
          (void)hi;
          int h = newM();
          emit("mov", {D(h), U(1)});
          emit("cmpne", {D(o), U(h), U(kMZero)});
        }
      }
      aggregates_[&ii] = {r, o};
      return;
    }
    case Intrinsic::trap:
    case Intrinsic::ubsantrap: {
      MInst &m = emit("trap", {I(0)});
      m.barrier = true;
      return;
    }
    default: break;
    }
    error(&ii, "unsupported intrinsic " + std::string(ii.getCalledFunction()->getName()));
  }

  // ---- control flow ------------------------------------------------------------------------
  void lowerPhiCopies(BasicBlock &bb) {
    // A loop's own copies first: then the exit's copies can read the loop phis (see below).
    std::set<BasicBlock *> done;
    if (std::find(succ_begin(&bb), succ_end(&bb), &bb) != succ_end(&bb)) {
      done.insert(&bb);
      lowerPhiCopiesTo(bb, &bb);
    }
    for (BasicBlock *succ : successors(&bb))
      if (done.insert(succ).second) lowerPhiCopiesTo(bb, succ);
  }
  void lowerPhiCopiesTo(BasicBlock &bb, BasicBlock *succ) {
    // Parallel copies: read every incoming value into a temporary first, then write the phis.
    {
      std::vector<std::pair<std::vector<int>, std::vector<int>>> moves;
      for (PHINode &phi : succ->phis()) {
        if (skip_.count(&phi)) continue;
        Value *in = phi.getIncomingValueForBlock(&bb);
        int parts = partsOf(phi.getType());
        std::vector<int> dst, tmp;
        // After a loop block's own copies, a value carried around the loop is also in its phi:
        // reading the phi there ends the value's life at the copy (so the two share a register,
        // as an accumulator should).
        // (Also in a loop's dedicated exit block, entered only from the loop.)
        const PHINode *carrier = nullptr;
        BasicBlock *loop = succ != &bb ? &bb : nullptr;
        if (BasicBlock *pred = bb.getSinglePredecessor(); pred && pred != &bb && succ != &bb) loop = pred;
        if (loop)
          for (PHINode &own : loop->phis())
            if (own.getBasicBlockIndex(loop) >= 0 && own.getIncomingValueForBlock(loop) == in && !skip_.count(&own))
              carrier = &own;
        for (int p = 0; p < parts; ++p) {
          int src = carrier ? regsOf(carrier)[size_t(p)] : get(in, p);
          int t = newReg(mf_.classOf(def(&phi, p)));
          copy(t, src);
          dst.push_back(def(&phi, p));
          tmp.push_back(t);
        }
        moves.push_back({dst, tmp});
      }
      for (auto &[dst, tmp] : moves)
        for (size_t p = 0; p < dst.size(); ++p) copy(dst[p], tmp[p]);
    }
  }

  // The phi copies before a branch overwrite phi registers: a phi the branch tests is read into
  // a temporary first.
  std::map<const Value *, int> pinned_;
  void pinTerminatorOperands(Instruction &t) {
    pinned_.clear();
    std::vector<Value *> reads;
    if (auto *br = dyn_cast<BranchInst>(&t); br && br->isConditional()) {
      reads.push_back(br->getCondition());
      if (auto *ic = dyn_cast<ICmpInst>(br->getCondition())) reads.push_back(ic->getOperand(0));
    }
    if (auto *sw = dyn_cast<SwitchInst>(&t)) reads.push_back(sw->getCondition());
    for (Value *v : reads)
      if (isa<PHINode>(v) && !pinned_.count(v) && !isWideInt(v->getType())) {
        int r = get(v), tmp = newReg(mf_.classOf(r));
        copy(tmp, r);
        pinned_[v] = tmp;
      }
  }
  int operand(Value *v) {
    auto it = pinned_.find(v);
    return it != pinned_.end() ? it->second : get(v);
  }

  std::string labelOf(const BasicBlock *bb) { return mf_.blocks[size_t(blockIndex_[bb])].label; }

  void branchTo(const BasicBlock *bb) {
    MInst &m = emit("bri", {MOp::label(labelOf(bb))});
    m.terminator = true;
    block().succs.push_back(blockIndex_[bb]);
  }

  void selectTerminator(Instruction &t) {
    if (auto *br = dyn_cast<BranchInst>(&t)) {
      if (br->isUnconditional()) return branchTo(br->getSuccessor(0));
      // Phi copies for a conditional branch are placed before it, for both successors: Optimize.cpp
      // splits the edges where that would clobber a value the other successor reads.
      Value *c = br->getCondition();
      const char *mn = "brnz";
      int r = -1;
      if (auto *ic = dyn_cast<ICmpInst>(c); ic && ic->hasOneUse() && isa<ConstantInt>(ic->getOperand(1)) &&
                                            cast<ConstantInt>(ic->getOperand(1))->isZero() &&
                                            ic->getOperand(0)->getType()->isIntegerTy(32)) {
        if (ic->getPredicate() == CmpInst::ICMP_EQ) mn = "brz", r = operand(ic->getOperand(0));
        else if (ic->getPredicate() == CmpInst::ICMP_NE) mn = "brnz", r = operand(ic->getOperand(0));
        else if (ic->getPredicate() == CmpInst::ICMP_SLT) mn = "brneg", r = operand(ic->getOperand(0));
        else if (ic->getPredicate() == CmpInst::ICMP_SGE) mn = "brpos", r = operand(ic->getOperand(0));
      }
      if (r < 0) r = operand(c);
      const BasicBlock *taken = br->getSuccessor(0), *other = br->getSuccessor(1);
      if (blockIndex_[taken] == cur_ + 1) {
        // Fall through to the true successor: branch on the inverse condition.
        std::string inv = std::string(mn) == "brz" ? "brnz" : std::string(mn) == "brnz" ? "brz"
                          : std::string(mn) == "brneg" ? "brpos" : "brneg";
        MInst &m = emit(inv, {U(r), MOp::label(labelOf(other))});
        m.terminator = true;
        block().succs.push_back(blockIndex_[other]);
        return branchTo(taken);
      }
      MInst &m = emit(mn, {U(r), MOp::label(labelOf(taken))});
      m.terminator = true;
      block().succs.push_back(blockIndex_[taken]);
      return branchTo(other);
    }
    if (auto *ret = dyn_cast<ReturnInst>(&t)) {
      MInst m;
      m.terminator = true;
      m.barrier = true;
      if (mf_.entry == EntryKind::Worker) {
        // The wrapper returns 1 for true: exitnz ends the worker with status true when it is nonzero.
        Value *rv = ret->getReturnValue();
        auto *c = dyn_cast_or_null<ConstantInt>(rv);
        if (!rv || (c && !c->isZero())) m.mnemonic = "exitz", m.ops = {U(kMZero)}; // true
        else if (c) m.mnemonic = "exitnz", m.ops = {U(kMZero)};                      // false
        else m.mnemonic = "exitnz", m.ops = {U(get(rv))};
      } else {
        m.mnemonic = "ret";
        if (Value *v = ret->getReturnValue(); v && v->getType()->isAggregateType()) {
          auto regs = returnRegs(v->getType(), ret);
          for (size_t p = 0; p < regs.size(); ++p) {
            emitCopyToPhys(regs[p].first, get(v, int(p)), regs[p].second);
            m.ops.push_back(U(regs[p].first, regs[p].second));
          }
        } else if (Value *v = ret->getReturnValue()) {
          RegClass rc = classOfType(v->getType());
          if (rc == RegClass::M) {
            emit("mov", {D(0), U(get(v))});
            m.ops.push_back(U(0));
            if (isWideInt(v->getType())) {
              emit("mov", {D(1), U(get(v, 1))});
              m.ops.push_back(U(1));
            }
          } else {
            if (isWide(v->getType()))
              for (int k = 0; k < 2; ++k) emitCopyToPhys(kA0 + 2 * k, get(v, k), RegClass::AP);
            else
              emitCopyToPhys(kA0, get(v), rc);
            m.ops.push_back(U(kA0, rc));
          }
        }
      }
      block().insts.push_back(m);
      return;
    }
    if (auto *sw = dyn_cast<SwitchInst>(&t)) {
      // The condition and the case values compared zero-extended to 32 bits.
      unsigned bits = sw->getCondition()->getType()->getIntegerBitWidth();
      if (bits > 32) { error(&t, "a switch on a 64-bit value is not supported"); return; }
      int x = operand(sw->getCondition());
      if (bits < 32) {
        int z = newM();
        emit("shl", {D(z), U(x), I(32 - bits)});
        emit("shr", {D(z), U(z), I(32 - bits)});
        x = z;
      }
      for (auto &cs : sw->cases()) {
        int c = newM();
        uint64_t v = cs.getCaseValue()->getZExtValue();
        if (v < 65536) emit("cmpeq", {D(c), U(x), I(int64_t(v))});
        else emit("cmpeq", {D(c), U(x), U(constM(uint32_t(v)))});
        MInst &m = emit("brnz", {U(c), MOp::label(labelOf(cs.getCaseSuccessor()))});
        m.terminator = true;
        block().succs.push_back(blockIndex_[cs.getCaseSuccessor()]);
      }
      return branchTo(sw->getDefaultDest());
    }
    if (isa<UnreachableInst>(&t)) {
      MInst &m = emit("trap", {I(0)});
      m.terminator = true;
      m.barrier = true;
      return;
    }
    error(&t, "unsupported control flow " + describe(&t));
  }

  // ---- dispatch ----------------------------------------------------------------------------
  void select(Instruction &i) {
    if (auto *b = dyn_cast<BinaryOperator>(&i)) return selectBinary(*b);
    if (auto *l = dyn_cast<LoadInst>(&i)) return selectLoad(*l);
    if (auto *s = dyn_cast<StoreInst>(&i)) return selectStore(*s);
    if (auto *g = dyn_cast<GetElementPtrInst>(&i)) return selectGEP(*g);
    if (isa<AllocaInst>(&i)) return; // folded (static allocas only)
    if (auto *c = dyn_cast<CallInst>(&i)) return selectCall(*c);
    if (auto *c = dyn_cast<ICmpInst>(&i)) return selectICmp(*c);
    if (auto *c = dyn_cast<FCmpInst>(&i)) return selectFCmp(*c);
    if (auto *s = dyn_cast<SelectInst>(&i)) return selectSelect(*s);
    if (auto *c = dyn_cast<CastInst>(&i)) return selectCast(*c);
    if (isa<PHINode>(&i)) return; // copies at the end of each predecessor
    if (i.getOpcode() == Instruction::FNeg) return selectFNeg(i);
    if (auto *e = dyn_cast<ExtractElementInst>(&i)) return selectExtract(*e);
    if (auto *e = dyn_cast<InsertElementInst>(&i)) return selectInsert(*e);
    if (auto *s = dyn_cast<ShuffleVectorInst>(&i)) return selectShuffle(*s);
    if (auto *e = dyn_cast<ExtractValueInst>(&i)) {
      if (auto *call = dyn_cast<CallInst>(e->getAggregateOperand()); call && asmResults_.count(call))
        return copy(def(&i), asmResults_[call][e->getIndices()[0]]);
      if (aggregates_.count(e->getAggregateOperand()))
        return copy(def(&i), aggregates_[e->getAggregateOperand()][e->getIndices()[0]]);
      // A first-class aggregate: its element's registers are a slice of the aggregate's.
      int off = partOffset(e->getAggregateOperand()->getType(), e->getIndices());
      for (int k = 0; k < partsOf(i.getType()); ++k) copy(def(&i, k), get(e->getAggregateOperand(), off + k));
      return;
    }
    if (auto *ins = dyn_cast<InsertValueInst>(&i)) {
      int off = partOffset(i.getType(), ins->getIndices()), n = partsOf(ins->getInsertedValueOperand()->getType());
      for (int k = 0; k < partsOf(i.getType()); ++k)
        copy(def(&i, k), k >= off && k < off + n ? get(ins->getInsertedValueOperand(), k - off)
                                                 : get(ins->getAggregateOperand(), k));
      return;
    }
    if (isa<FreezeInst>(&i)) {
      for (int k = 0; k < partsOf(i.getType()); ++k) copy(def(&i, k), get(i.getOperand(0), k));
      return;
    }
    error(&i, "unsupported instruction " + describe(&i));
  }

  void selectGEP(GetElementPtrInst &g) {
    int d = def(&g);
    APInt off(32, 0);
    if (g.accumulateConstantOffset(dl_, off)) {
      Address a = address(&g);
      if (a.base == kSP) return void(emit("add", {D(d), U(kSP), I(a.offset)}));
      int64_t o = off.getSExtValue();
      int base = get(g.getPointerOperand());
      if (o >= -32768 && o < 32768) return void(emit("add", {D(d), U(base), I(o)}));
      return void(emit("add", {D(d), U(base), U(constM(uint32_t(o)))}));
    }
    int acc = get(g.getPointerOperand());
    for (gep_type_iterator it = gep_type_begin(g), e = gep_type_end(g); it != e; ++it) {
      Value *idx = it.getOperand();
      int next = newM();
      if (StructType *st = it.getStructTypeOrNull()) {
        uint64_t o = dl_.getStructLayout(st)->getElementOffset(unsigned(cast<ConstantInt>(idx)->getZExtValue()));
        if (!o) continue;
        emit("add", {D(next), U(acc), I(int64_t(o))});
      } else {
        uint64_t size = it.getSequentialElementStride(dl_);
        if (auto *c = dyn_cast<ConstantInt>(idx)) {
          int64_t o = c->getSExtValue() * int64_t(size);
          if (!o) continue;
          if (o >= -32768 && o < 32768) emit("add", {D(next), U(acc), I(o)});
          else emit("add", {D(next), U(acc), U(constM(uint32_t(o)))});
        } else {
          int i = isWideInt(idx->getType()) ? get(idx, 0) : get(idx);
          int scaled = newM();
          if (size == 1) scaled = i;
          else if ((size & (size - 1)) == 0) emit("shl", {D(scaled), U(i), I(__builtin_ctzll(size))});
          else emit("mul", {D(scaled), U(i), I(int64_t(size))});
          emit("add", {D(next), U(acc), U(scaled)});
        }
      }
      acc = next;
    }
    copy(d, acc);
  }
};

} // namespace

MFunction selectFunction(Function &f, EntryKind entry, bool supervisor, std::vector<std::string> &errors,
                         std::vector<std::string> &runtimeNeeded) {
  return Selector(f, entry, supervisor, errors, runtimeNeeded).run();
}

} // namespace ipusim::cc::mir
