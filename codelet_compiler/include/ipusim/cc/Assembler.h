// ipu-as: the assembler for the Colossus tile assembly dialect (asm-dialect §2).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "ipusim/cc/Object.h"

namespace ipusim::cc {

struct AssemblerOptions {
  std::vector<std::string> includeDirs; ///< -I
  std::vector<std::string> defines;     ///< -D NAME or NAME=VALUE
};

/// Assembly failed; what() holds every diagnostic, one `file:line:col: error: ...` per line.
class AssemblyError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Assembles a file. `.S` files go through the C preprocessor first (with the built-in SDK
/// stand-in headers on the system include path); `.s` files do not.
ObjectFile assembleFile(const std::string &path, const AssemblerOptions &options);

/// Assembles already-preprocessed text (`# LINE "FILE"` markers are honoured). `name` is the file
/// name used in diagnostics.
ObjectFile assembleText(const std::string &text, const std::string &name);

/// Runs the C preprocessor on `path` (clang-19 -E -x assembler-with-cpp) and returns its output.
std::string preprocessFile(const std::string &path, const AssemblerOptions &options);

/// The folder of the built-in headers (poplar/TileConstants.hpp ...), found next to the tools.
std::string builtinIncludeDirectory();

} // namespace ipusim::cc
