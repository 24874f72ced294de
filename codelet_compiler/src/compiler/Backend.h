// ipu-cc's backend: LLVM IR (after optimisation) -> Colossus assembly text.
#pragma once

#include "MachineIR.h"

#include <llvm/IR/Module.h>

#include <map>
#include <set>
#include <string>

namespace ipusim::cc {

/// Runs LLVM's pipeline at `optLevel` with ipu-cc's cost model (vector width 64 bits, post-increment
/// addressing), then legalises what the backend does not select (illegal vector types).
/// `entries`: every vertex entry, with the state offsets of its fields whose data is in interleaved
/// memory (128-bit loads work only there).
void optimizeModule(llvm::Module &module, int optLevel, const std::vector<std::string> &supervisorEntries,
                    const std::map<std::string, std::set<int64_t>> &entries);

/// Selects, allocates, bundles and prints every function of `module`. Throws CompileError with
/// `file:line:col: error:` diagnostics for what the IPU cannot run.
std::string generateAssembly(llvm::Module &module, const std::map<std::string, EntryKind> &entries);

namespace mir {
/// Instruction selection of one function (ISel.cpp).
MFunction selectFunction(llvm::Function &f, EntryKind entry, bool supervisor, std::vector<std::string> &errors,
                         std::vector<std::string> &runtimeNeeded);
/// Register allocation with spills to the stack (RegAlloc.cpp); afterwards no virtual registers remain.
void allocateRegisters(MFunction &mf);
/// Prologue/epilogue, bundling and printing (AsmPrinter.cpp).
std::string printFunction(MFunction &mf);
/// Assembly of the runtime routines named in `needed` (division ...).
std::string runtimeRoutines(const std::vector<std::string> &needed);
/// The registers runtime routine `name` overwrites besides $lr, when it overwrites few (the
/// 32-bit divisions), so values stay in registers across its calls; empty: every register.
std::vector<int> runtimeClobbers(const std::string &name);
} // namespace mir

} // namespace ipusim::cc
