// Stand-in for the ipu-cc library while it is not built (see CMakeLists.txt): every compile fails.
#include "ipusim/cc/Compiler.h"

namespace ipusim::cc {

CompileResult compileCodelet(const std::string &path, const CompileOptions &) {
  throw CompileError(path + ": error: ipu-cc is not built (no ipusim_ipucc target)");
}

} // namespace ipusim::cc
