// The clang half of ipu-cc: parses a codelet file in process, finds its vertex classes, lays out
// their state as Poplar does and generates the __runCodelet_ entry wrappers; gives LLVM IR.
#pragma once

#include "ipusim/cc/Compiler.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <map>
#include <memory>

namespace ipusim::cc {

/// How the backend compiles a function.
enum class EntryKind { None, Worker, Supervisor };

struct FrontendResult {
  std::unique_ptr<llvm::Module> module;
  std::vector<VertexLayout> vertices;
  std::map<std::string, EntryKind> entries; ///< entry symbol -> how it is started
  std::string warnings;                     ///< clang's warnings, `file:line:col: warning: ...` lines
};

/// Runs clang 19 on `path` (with the device headers) and returns unoptimised IR for the 32-bit
/// carrier target (see docs/ipu-cc.md). Throws CompileError with clang's diagnostics.
FrontendResult runFrontend(const std::string &path, const CompileOptions &options, llvm::LLVMContext &context);

/// The compile flags ipu-cc gives clang's driver (also what `ipu-cc -###` prints).
std::vector<std::string> clangDriverFlags(const CompileOptions &options);

} // namespace ipusim::cc
