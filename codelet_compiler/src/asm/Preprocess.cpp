// The C preprocessor step for `.S` files: clang-19 in assembler-with-cpp mode, with the built-in
// stand-ins for the Poplar SDK headers on the system include path (asm-dialect §2.4).
#include "ipusim/cc/Assembler.h"

#include "ipusim/arch/Config.h"
#include "ipusim/arch/Files.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Program.h>

#include <filesystem>

namespace ipusim::cc {

namespace fs = std::filesystem;

std::string builtinIncludeDirectory() {
  // Installed and build layouts: <prefix>/bin/ipu-as and <prefix>/lib/ipusim/include.
  fs::path dir = arch::toolPrefix() / "lib" / "ipusim" / "include";
  return fs::exists(dir / "poplar" / "TileConstants.hpp") ? dir.string() : IPUSIM_DEVICE_INCLUDE_DIR;
}

namespace {

std::string findClang() {
  for (const char *candidate : {"/usr/lib/llvm-19/bin/clang", "/usr/bin/clang-19"})
    if (fs::exists(candidate)) return candidate;
  if (auto p = llvm::sys::findProgramByName("clang-19")) return *p;
  throw AssemblyError("ipu-as: error: clang-19 (the C preprocessor for .S files) was not found; "
                      "run scripts/install-deps.sh\n");
}

struct TempFile {
  llvm::SmallString<128> path;
  explicit TempFile(const char *suffix) {
    if (llvm::sys::fs::createTemporaryFile("ipu-as", suffix, path))
      throw AssemblyError("ipu-as: error: cannot create a temporary file\n");
  }
  ~TempFile() { llvm::sys::fs::remove(path); }
  std::string read() const {
    auto buf = llvm::MemoryBuffer::getFile(path);
    return buf ? (*buf)->getBuffer().str() : std::string();
  }
};

} // namespace

std::string preprocessFile(const std::string &path, const AssemblerOptions &options) {
  if (!fs::exists(path)) throw AssemblyError(path + ": error: no such file\n");
  std::string clang = findClang();
  std::vector<std::string> args = {clang, "-E", "-x", "assembler-with-cpp", "-nostdinc",
                                   // Predefined macros of the Colossus clang target for Mk2 (asm-dialect §2.4).
                                   "-D__IPU__", "-D__IPU_ARCH_VERSION__=2", "-D__IPU_REPEAT_COUNT_SIZE__=16",
                                   "-isystem", builtinIncludeDirectory()};
  for (const std::string &d : options.includeDirs) args.push_back("-I" + d);
  for (const std::string &d : options.defines) args.push_back("-D" + d);
  args.push_back(path);
  TempFile out(".s"), err(".txt");
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(out.path),
                                                llvm::StringRef(err.path)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(clang, argRefs, std::nullopt, redirects, 60, 0, &message);
  if (rc != 0) {
    std::string text = err.read();
    if (text.empty()) text = path + ": error: the preprocessor failed: " + message + "\n";
    throw AssemblyError(text);
  }
  return out.read();
}

ObjectFile assembleFile(const std::string &path, const AssemblerOptions &options) {
  if (const std::string bad = arch::unreadableFile(path, "an assembly file"); !bad.empty()) throw AssemblyError(bad + "\n");
  std::string ext = fs::path(path).extension().string();
  if (ext == ".S" || ext == ".sx") return assembleText(preprocessFile(path, options), path);
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) throw AssemblyError(path + ": error: cannot read file\n");
  return assembleText((*buf)->getBuffer().str(), path);
}

} // namespace ipusim::cc
