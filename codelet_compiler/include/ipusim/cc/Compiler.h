// ipu-cc: the codelet compiler. A Poplar-style C++ codelet file -> clang 19 (in process) -> LLVM IR
// -> LLVM's -O2 pipeline -> ipusim's own backend (instruction selection, register allocation,
// MAIN+AUX bundling) -> assembly in the Colossus dialect -> ipu-as -> a relocatable object.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ipusim/cc/Object.h"
#include "ipusim/cc/VertexLayout.h"

namespace ipusim::cc {

struct CompileOptions {
  std::vector<std::string> includeDirs; ///< -I
  std::vector<std::string> defines;     ///< -D NAME or NAME=VALUE
  int optLevel = 2;                     ///< -O0 .. -O3 (the LLVM pipeline before our backend)
  std::string cxxStandard = "c++17";    ///< -std=
};

/// What compiling one codelet file gives.
struct CompileResult {
  std::string assembly;              ///< the generated Colossus assembly (what -S writes)
  ObjectFile object;                 ///< assembled, with the layouts in section ".ipu.vertices"
  std::vector<VertexLayout> vertices; ///< every vertex class the file defines
  std::string warnings;               ///< diagnostics that did not stop compilation, one per line
};

/// Compilation failed; what() holds every diagnostic, one `file:line:col: error: ...` per line.
class CompileError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

CompileResult compileCodelet(const std::string &path, const CompileOptions &options = {});


} // namespace ipusim::cc
