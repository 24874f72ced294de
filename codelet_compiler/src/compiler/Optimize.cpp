// LLVM's -O pipeline with ipu-cc's cost model, then IR legalisation for the backend.
//
// The cost model (a TargetTransformInfo of ours) tells the vectorisers what the tile's AUX
// pipeline does: 64-bit float SIMD (f32v2, f16v4, [F] the blog quoted in asm-dialect §5) and
// 32-bit f16v2, no integer SIMD; loads and stores of 64 bits when 8-byte aligned; post-increment
// addressing. Vectors the backend does not select are split into scalars afterwards.
#include "Backend.h"

#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/Analysis/TargetTransformInfoImpl.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/CFG.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>
#include <llvm/Transforms/Scalar/DCE.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/LoopStrengthReduce.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <set>
#include <llvm/Transforms/InstCombine/InstCombine.h>

namespace ipusim::cc {

using namespace llvm;

namespace {

bool isFloatVector(Type *t, unsigned bits) {
  auto *v = dyn_cast<FixedVectorType>(t);
  if (!v) return false;
  Type *e = v->getElementType();
  return (e->isFloatTy() || e->isHalfTy()) && v->getPrimitiveSizeInBits().getFixedValue() == bits;
}
// <2 x float>, <4 x half> (an ARF pair) and <2 x half> (one ARF register).
bool isLegalVector(Type *t) { return isFloatVector(t, 64) || isFloatVector(t, 32); }

class IpuTTI : public TargetTransformInfoImplCRTPBase<IpuTTI> {
  using Base = TargetTransformInfoImplCRTPBase<IpuTTI>;

public:
  explicit IpuTTI(const DataLayout &dl) : Base(dl) {}

  unsigned getNumberOfRegisters(unsigned classId) const { return classId == 1 ? 4 : 10; } // ARF pairs / MRF
  TypeSize getRegisterBitWidth(TargetTransformInfo::RegisterKind k) const {
    return k == TargetTransformInfo::RGK_FixedWidthVector ? TypeSize::getFixed(64) : TypeSize::getFixed(32);
  }
  unsigned getRegisterClassForType(bool vector, Type *t = nullptr) const {
    return vector || (t && (t->isFloatTy() || t->isHalfTy())) ? 1 : 0;
  }
  unsigned getMaxInterleaveFactor(ElementCount) const { return 1; }
  unsigned getLoadStoreVecRegBitWidth(unsigned) const { return 64; }
  TTI::AddressingModeKind getPreferredAddressingMode(const Loop *, ScalarEvolution *) const {
    return TTI::AMK_PostIndexed;
  }
  bool enableInterleavedAccessVectorization() const { return false; }
  bool isIndexedLoadLegal(TTI::MemIndexedMode m, Type *, const DataLayout &) const { return m == TTI::MIM_PostInc; }
  bool isIndexedStoreLegal(TTI::MemIndexedMode m, Type *, const DataLayout &) const { return m == TTI::MIM_PostInc; }

  InstructionCost vectorCost(Type *t) const {
    if (!t->isVectorTy()) return 1;
    return isLegalVector(t) ? 1 : 100;
  }
  InstructionCost getArithmeticInstrCost(unsigned opcode, Type *t, TTI::TargetCostKind, TTI::OperandValueInfo,
                                         TTI::OperandValueInfo, ArrayRef<const Value *> = {},
                                         const Instruction * = nullptr) const {
    if (!t->isVectorTy()) return opcode == Instruction::FDiv || opcode == Instruction::SDiv ||
                                         opcode == Instruction::UDiv ? 4 : 1;
    if (opcode == Instruction::FDiv) return 100; // no vector divide
    return vectorCost(t);
  }
  InstructionCost getMemoryOpCost(unsigned, Type *t, Align a, unsigned, TTI::TargetCostKind,
                                  TTI::OperandValueInfo = {}, const Instruction * = nullptr) const {
    if (!t->isVectorTy()) return 1;
    if (!isLegalVector(t)) return 100;
    return a.value() >= t->getPrimitiveSizeInBits().getFixedValue() / 8 ? 1 : 2;
  }
  InstructionCost getCastInstrCost(unsigned opcode, Type *dst, Type *src, TTI::CastContextHint, TTI::TargetCostKind,
                                   const Instruction * = nullptr) const {
    if (!dst->isVectorTy()) return 1;
    if ((opcode == Instruction::FPExt || opcode == Instruction::FPTrunc) && isLegalVector(dst) && isLegalVector(src))
      return 1;
    return 100;
  }
  InstructionCost getCmpSelInstrCost(unsigned, Type *t, Type *, CmpInst::Predicate, TTI::TargetCostKind,
                                     const Instruction * = nullptr) const {
    return t->isVectorTy() ? 100 : 1;
  }
  InstructionCost getIntrinsicInstrCost(const IntrinsicCostAttributes &a, TTI::TargetCostKind) const {
    Type *t = a.getReturnType();
    if (!t->isVectorTy()) return 1;
    switch (a.getID()) {
    case Intrinsic::minnum:
    case Intrinsic::maxnum:
    case Intrinsic::fabs: return vectorCost(t);
    default: return 100;
    }
  }
  InstructionCost getShuffleCost(TTI::ShuffleKind, VectorType *, ArrayRef<int>, TTI::TargetCostKind, int, VectorType *,
                                 ArrayRef<const Value *> = {}, const Instruction * = nullptr) const {
    return 100;
  }
  using Base::getVectorInstrCost;
  InstructionCost getVectorInstrCost(unsigned, Type *, TTI::TargetCostKind, unsigned, Value *, Value *) const { return 2; }
  InstructionCost getArithmeticReductionCost(unsigned, VectorType *, std::optional<FastMathFlags>, TTI::TargetCostKind) const {
    return 100;
  }
  bool isLegalAddressingMode(Type *, GlobalValue *gv, int64_t offset, bool hasBase, int64_t scale, unsigned,
                             Instruction * = nullptr, int64_t scalableOffset = 0) const {
    // base + unsigned 12-bit scaled immediate, or base + delta register (+ index register).
    if (gv || scalableOffset) return false;
    if (scale == 0) return offset >= 0 && offset < 4096;
    return offset == 0 && (scale == 1 || !hasBase);
  }
};

// Splits instructions on vector types the backend does not select into per-element scalar code.
bool needsScalarizing(Instruction &i) {
  // 128-bit float vectors (float4, half8: an ARF quad) are kept for moves, loads, stores,
  // add/sub/mul (two 64-bit operations) and f16<->f32 conversions.
  bool wide = isFloatVector(i.getType(), 128);
  for (Value *op : i.operands()) wide |= isFloatVector(op->getType(), 128);
  if (wide) {
    if (isa<LoadInst>(&i) || isa<StoreInst>(&i) || isa<ExtractElementInst>(&i) || isa<InsertElementInst>(&i) ||
        isa<ShuffleVectorInst>(&i) || isa<PHINode>(&i) || isa<FreezeInst>(&i))
      return false;
    if (auto *b = dyn_cast<BinaryOperator>(&i))
      return !(b->getOpcode() == Instruction::FAdd || b->getOpcode() == Instruction::FSub || b->getOpcode() == Instruction::FMul);
    if (i.getOpcode() == Instruction::FNeg) return false;
    if (auto *c = dyn_cast<CastInst>(&i))
      return !((c->getOpcode() == Instruction::FPExt || c->getOpcode() == Instruction::FPTrunc) &&
               isFloatVector(c->getSrcTy(), c->getOpcode() == Instruction::FPExt ? 64 : 128));
    return true;
  }
  auto illegal = [](Type *t) { return t->isVectorTy() && !isLegalVector(t); };
  if (illegal(i.getType())) return true;
  for (Value *op : i.operands())
    if (illegal(op->getType())) return true;
  if (!i.getType()->isVectorTy()) {
    if (auto *c = dyn_cast<CmpInst>(&i)) return c->getOperand(0)->getType()->isVectorTy();
    return false;
  }
  // Legal types, but operations the AUX pipeline has no vector form of.
  if (isa<CmpInst>(&i) || isa<SelectInst>(&i)) return true;
  if (auto *b = dyn_cast<BinaryOperator>(&i)) return b->getOpcode() == Instruction::FDiv || b->getOpcode() == Instruction::FRem;
  if (auto *c = dyn_cast<CastInst>(&i))
    return !(c->getOpcode() == Instruction::FPExt || c->getOpcode() == Instruction::FPTrunc || c->getOpcode() == Instruction::BitCast);
  if (auto *ii = dyn_cast<IntrinsicInst>(&i)) {
    switch (ii->getIntrinsicID()) {
    case Intrinsic::minnum:
    case Intrinsic::maxnum:
    case Intrinsic::fabs:
    case Intrinsic::fmuladd: return false;
    default: return true;
    }
  }
  return false;
}

Value *scalarize(Instruction &i) {
  IRBuilder<> b(&i);
  auto *vt = dyn_cast<FixedVectorType>(i.getType());
  if (auto *ld = dyn_cast<LoadInst>(&i)) {
    Value *r = PoisonValue::get(vt);
    Type *et = vt->getElementType();
    Align ea = commonAlignment(ld->getAlign(), i.getModule()->getDataLayout().getTypeAllocSize(et));
    for (unsigned k = 0; k < vt->getNumElements(); ++k) {
      Value *p = b.CreateConstInBoundsGEP1_32(et, ld->getPointerOperand(), k);
      Align a = k == 0 ? ld->getAlign() : ea;
      r = b.CreateInsertElement(r, b.CreateAlignedLoad(et, p, a, ld->isVolatile()), k);
    }
    return r;
  }
  if (auto *st = dyn_cast<StoreInst>(&i)) {
    Value *v = st->getValueOperand();
    auto *svt = cast<FixedVectorType>(v->getType());
    Type *et = svt->getElementType();
    Align ea = commonAlignment(st->getAlign(), i.getModule()->getDataLayout().getTypeAllocSize(et));
    for (unsigned k = 0; k < svt->getNumElements(); ++k) {
      Value *p = b.CreateConstInBoundsGEP1_32(et, st->getPointerOperand(), k);
      b.CreateAlignedStore(b.CreateExtractElement(v, k), p, k == 0 ? st->getAlign() : ea, st->isVolatile());
    }
    return nullptr;
  }
  if (isa<ExtractElementInst>(&i) || isa<InsertElementInst>(&i) || isa<ShuffleVectorInst>(&i) || isa<PHINode>(&i))
    return &i; // element moves stay; instcombine folds them into the scalars around them
  if (!vt) {
    // A vector compare feeding a scalar (reduction) is not produced by our cost model.
    return &i;
  }
  unsigned n = vt->getNumElements();
  Value *r = PoisonValue::get(vt);
  for (unsigned k = 0; k < n; ++k) {
    auto lane = [&](Value *v) { return v->getType()->isVectorTy() ? b.CreateExtractElement(v, k) : v; };
    Value *e = nullptr;
    if (auto *bo = dyn_cast<BinaryOperator>(&i)) e = b.CreateBinOp(bo->getOpcode(), lane(bo->getOperand(0)), lane(bo->getOperand(1)));
    else if (auto *un = dyn_cast<UnaryOperator>(&i)) e = b.CreateUnOp(un->getOpcode(), lane(un->getOperand(0)));
    else if (auto *c = dyn_cast<CastInst>(&i)) {
      if (c->getOpcode() == Instruction::BitCast) return &i;
      e = b.CreateCast(c->getOpcode(), lane(c->getOperand(0)), vt->getElementType());
    } else if (auto *c = dyn_cast<CmpInst>(&i))
      e = b.CreateCmp(c->getPredicate(), lane(c->getOperand(0)), lane(c->getOperand(1)));
    else if (auto *s = dyn_cast<SelectInst>(&i))
      e = b.CreateSelect(lane(s->getCondition()), lane(s->getTrueValue()), lane(s->getFalseValue()));
    else if (auto *ii = dyn_cast<IntrinsicInst>(&i)) {
      std::vector<Value *> args;
      for (Value *a : ii->args()) args.push_back(lane(a));
      e = b.CreateIntrinsic(vt->getElementType(), ii->getIntrinsicID(), args);
    } else
      return &i;
    if (auto *fi = dyn_cast<Instruction>(e); fi && isa<FPMathOperator>(&i)) fi->copyFastMathFlags(&i);
    r = b.CreateInsertElement(r, e, k);
  }
  return r;
}

// An element picked or replaced at a variable index: a chain of selects over the constant lanes
// (vectors have 2 to 8 lanes), which the register-only vector representation can select.
Value *expandVariableIndex(Instruction &i) {
  IRBuilder<> b(&i);
  if (auto *e = dyn_cast<ExtractElementInst>(&i)) {
    Value *v = e->getVectorOperand(), *idx = e->getIndexOperand();
    unsigned n = cast<FixedVectorType>(v->getType())->getNumElements();
    Value *r = b.CreateExtractElement(v, uint64_t(0));
    for (unsigned k = 1; k < n; ++k)
      r = b.CreateSelect(b.CreateICmpEQ(idx, ConstantInt::get(idx->getType(), k)), b.CreateExtractElement(v, k), r);
    return r;
  }
  auto &ins = cast<InsertElementInst>(i);
  Value *v = ins.getOperand(0), *x = ins.getOperand(1), *idx = ins.getOperand(2);
  unsigned n = cast<FixedVectorType>(v->getType())->getNumElements();
  Value *r = PoisonValue::get(v->getType());
  for (unsigned k = 0; k < n; ++k)
    r = b.CreateInsertElement(
        r, b.CreateSelect(b.CreateICmpEQ(idx, ConstantInt::get(idx->getType(), k)), x, b.CreateExtractElement(v, k)), k);
  return r;
}

void legalize(Module &m) {
  for (Function &f : m) {
    std::vector<Instruction *> variableIndex;
    for (Instruction &i : instructions(f))
      if ((isa<ExtractElementInst>(&i) && !isa<Constant>(i.getOperand(1))) ||
          (isa<InsertElementInst>(&i) && !isa<Constant>(i.getOperand(2))))
        variableIndex.push_back(&i);
    for (Instruction *i : variableIndex) {
      i->replaceAllUsesWith(expandVariableIndex(*i));
      i->eraseFromParent();
    }
    std::vector<Instruction *> work;
    for (Instruction &i : instructions(f))
      if (needsScalarizing(i)) work.push_back(&i);
    for (Instruction *i : work) {
      Value *r = scalarize(*i);
      if (r == i) continue;
      if (r) i->replaceAllUsesWith(r);
      i->eraseFromParent();
    }
  }
}

// Poplar connects each field of a vertex to its own tensor region; a region a vertex writes is
// reached through one field only (in-place work uses one InOut field). So data reached through
// different fields of an entry's vertex state does not overlap where one side is written: each
// field gets an alias scope, every access its field's scope and `noalias` for the others, which
// spares the vectoriser its runtime overlap checks (docs/ipu-cc.md).
struct VertexFieldScopesPass : PassInfoMixin<VertexFieldScopesPass> {
  static constexpr int64_t kState = 1 << 30; // "field" of accesses to the vertex state itself
  const std::map<std::string, std::set<int64_t>> &entries;
  explicit VertexFieldScopesPass(const std::map<std::string, std::set<int64_t>> &e) : entries(e) {}
  PreservedAnalyses run(Function &f, FunctionAnalysisManager &) {
    auto entry = entries.find(f.getName().str());
    if (entry == entries.end() || f.arg_size() < 1) return PreservedAnalyses::all();
    const DataLayout &dl = f.getParent()->getDataLayout();
    auto fieldOf = [&](Value *ptr) -> int64_t {
      SmallVector<const Value *, 4> objects;
      getUnderlyingObjects(ptr, objects);
      int64_t field = -1;
      for (const Value *o : objects) {
        if (o == f.getArg(0)) { // the vertex state itself: Poplar keeps it apart from tensor data
          if (field >= 0 && field != kState) return -1;
          field = kState;
          continue;
        }
        auto *ld = dyn_cast<LoadInst>(o);
        if (!ld) return -1;
        int64_t offset = 0;
        if (GetPointerBaseWithConstantOffset(ld->getPointerOperand(), offset, dl) != f.getArg(0) ||
            (field >= 0 && field != offset))
          return -1;
        field = offset;
      }
      return field;
    };
    std::vector<std::pair<Instruction *, int64_t>> accesses;
    std::set<int64_t> fields;
    for (Instruction &i : instructions(f)) {
      Value *p = isa<LoadInst>(&i) ? cast<LoadInst>(&i)->getPointerOperand()
                 : isa<StoreInst>(&i) ? cast<StoreInst>(&i)->getPointerOperand() : nullptr;
      if (!p) continue;
      int64_t field = fieldOf(p);
      if (field < 0) continue;
      accesses.push_back({&i, field});
      fields.insert(field);
      // Data of an interleaved field: ISel may use ld128 (Backend.h).
      if (entry->second.count(field)) i.setMetadata("ipucc.interleaved", MDNode::get(f.getContext(), {}));
    }
    if (fields.size() < 2) return accesses.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
    MDBuilder mdb(f.getContext());
    MDNode *domain = mdb.createAnonymousAliasScopeDomain("ipucc.vertex");
    std::map<int64_t, MDNode *> scope;
    for (int64_t field : fields) scope[field] = mdb.createAnonymousAliasScope(domain, "field" + std::to_string(field));
    for (auto [i, field] : accesses) {
      std::vector<Metadata *> others;
      for (auto &[g, s] : scope)
        if (g != field) others.push_back(s);
      i->setMetadata(LLVMContext::MD_alias_scope,
                     MDNode::concatenate(i->getMetadata(LLVMContext::MD_alias_scope), MDNode::get(f.getContext(), {scope[field]})));
      i->setMetadata(LLVMContext::MD_noalias,
                     MDNode::concatenate(i->getMetadata(LLVMContext::MD_noalias), MDNode::get(f.getContext(), others)));
    }
    return PreservedAnalyses::none();
  }
};

// Marks counted single-block loops for `rpt`: the trip count is computed in the preheader and
// handed to the backend as `call @__ipucc_repeat(i32 count)` just before the preheader's branch.
struct RepeatMarkerPass : PassInfoMixin<RepeatMarkerPass> {
  PreservedAnalyses run(Function &f, FunctionAnalysisManager &fam) {
    auto &li = fam.getResult<LoopAnalysis>(f);
    auto &se = fam.getResult<ScalarEvolutionAnalysis>(f);
    auto &tti = fam.getResult<TargetIRAnalysis>(f);
    Module &m = *f.getParent();
    Type *i32 = Type::getInt32Ty(m.getContext());
    FunctionCallee marker =
        m.getOrInsertFunction("__ipucc_repeat", FunctionType::get(Type::getVoidTy(m.getContext()), {i32, i32}, false));
    if (auto *fn = dyn_cast<Function>(marker.getCallee())) {
      fn->setDoesNotThrow();
      fn->setOnlyAccessesInaccessibleMemory();
    }
    bool changed = false;
    for (Loop *l : li.getLoopsInPreorder()) {
      if (!l->isInnermost() || l->getNumBlocks() != 1) continue;
      BasicBlock *pre = l->getLoopPreheader(), *body = l->getHeader();
      if (!pre || !l->getExitingBlock() || l->getExitingBlock() != body || !l->getExitBlock()) continue;
      const SCEV *btc = se.getBackedgeTakenCount(l);
      if (isa<SCEVCouldNotCompute>(btc) || !btc->getType()->isIntegerTy() || btc->getType()->getIntegerBitWidth() > 32) continue;
      const SCEV *tc = se.getAddExpr(se.getTruncateOrZeroExtend(btc, i32), se.getOne(i32));
      SCEVExpander expander(se, m.getDataLayout(), "rpt");
      if (expander.isHighCostExpansion(tc, l, 8, &tti, pre->getTerminator())) continue;
      Value *count = expander.expandCodeFor(tc, i32, pre->getTerminator());
      // The largest trip count SCEV can prove (0: unknown): small ones need no 16-bit chunks.
      unsigned most = se.getSmallConstantMaxTripCount(l);
      CallInst::Create(marker, {count, ConstantInt::get(i32, most)}, "", pre->getTerminator());
      changed = true;
    }
    return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

} // namespace

void optimizeModule(Module &module, int optLevel, const std::vector<std::string> &supervisorEntries,
                    const std::map<std::string, std::set<int64_t>> &entries) {
  // Supervisor code cannot call worker code: everything a SupervisorVertex calls is inlined, at
  // every optimisation level.
  std::vector<Function *> work;
  for (const std::string &n : supervisorEntries)
    if (Function *f = module.getFunction(n)) work.push_back(f);
  std::set<Function *> seen;
  while (!work.empty()) {
    Function *f = work.back();
    work.pop_back();
    for (Instruction &i : instructions(*f))
      if (auto *c = dyn_cast<CallInst>(&i))
        if (Function *callee = c->getCalledFunction(); callee && !callee->isDeclaration() && seen.insert(callee).second) {
          if (callee->hasFnAttribute(Attribute::NoInline)) continue; // reported by the backend
          callee->removeFnAttr(Attribute::OptimizeNone);
          callee->addFnAttr(Attribute::AlwaysInline);
          callee->addFnAttr("ipucc-supervisor-code"); // its own copy, if kept, is supervisor code
          work.push_back(callee);
        }
  }
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PipelineTuningOptions pto;
  pto.LoopVectorization = optLevel >= 2;
  pto.SLPVectorization = optLevel >= 2;
  pto.LoopInterleaving = false;
  PassBuilder pb(nullptr, pto);
  pb.registerVectorizerStartEPCallback([&](FunctionPassManager &fpm, OptimizationLevel) {
    fpm.addPass(VertexFieldScopesPass(entries));
  });
  fam.registerPass([&] {
    return TargetIRAnalysis([](const Function &f) { return TargetTransformInfo(IpuTTI(f.getParent()->getDataLayout())); });
  });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  OptimizationLevel level = optLevel <= 0 ? OptimizationLevel::O0 : optLevel == 1 ? OptimizationLevel::O1
                            : optLevel == 2 ? OptimizationLevel::O2 : OptimizationLevel::O3;
  ModulePassManager mpm = optLevel <= 0 ? pb.buildO0DefaultPipeline(level) : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);

  // Pointer induction variables for post-increment loads (LSR runs in LLVM's code generator
  // normally; ipu-cc has none, so it runs here with the cost model above).
  if (optLevel >= 1) {
    ModulePassManager lsr;
    lsr.addPass(createModuleToFunctionPassAdaptor(createFunctionToLoopPassAdaptor(LoopStrengthReducePass())));
    lsr.addPass(createModuleToFunctionPassAdaptor(RepeatMarkerPass()));
    lsr.run(module, mam);
  }
  legalize(module);
  // Fold the element moves the scalariser left behind.
  FunctionPassManager fpm;
  fpm.addPass(InstCombinePass());
  fpm.addPass(DCEPass());
  ModulePassManager cleanup;
  cleanup.addPass(createModuleToFunctionPassAdaptor(std::move(fpm)));
  cleanup.run(module, mam);
  legalize(module); // instcombine may have formed new vector operations
  // The backend puts phi copies before a block's branch. On an edge from a block with two
  // successors to a block whose phis are read outside it (a loop's value used at its exit), the
  // copies would clobber what the other successor reads: give such edges a block of their own.
  for (Function &f : module) {
    std::vector<std::pair<Instruction *, unsigned>> edges;
    for (BasicBlock &bb : f) {
      Instruction *t = bb.getTerminator();
      if (!t || t->getNumSuccessors() < 2) continue;
      for (unsigned k = 0; k < t->getNumSuccessors(); ++k) {
        BasicBlock *succ = t->getSuccessor(k);
        bool escapes = false;
        for (PHINode &phi : succ->phis())
          for (User *u : phi.users())
            if (cast<Instruction>(u)->getParent() != succ || isa<PHINode>(u)) escapes = true;
        if (escapes && isCriticalEdge(t, k)) edges.push_back({t, k});
      }
    }
    for (auto [t, k] : edges) SplitCriticalEdge(t, k);
  }
  if (std::getenv("IPU_CC_DUMP_IR")) module.print(errs(), nullptr); // for debugging ipu-cc itself
}

} // namespace ipusim::cc
