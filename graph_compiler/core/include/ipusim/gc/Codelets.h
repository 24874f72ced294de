// The codelets a graph may use: vertex classes (their state layout, from ipu-cc) and the tile
// objects holding their code. Graph::addCodelets fills it from C++ (compiled by the ipu-cc
// library, cached by content), assembly (ipu-as) or a `.gp` file written by popc.
#pragma once

#include "ipusim/cc/Compiler.h"
#include "ipusim/cc/Object.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ipusim::gc {

struct Codelet {
  cc::VertexLayout layout;
  std::string name; ///< the class name with spaces removed ("popops::Fill<float>")
};

/// A `.gp` file: popc's output, a container of tile objects (docs/poplar.md).
struct CodeletArchive {
  std::vector<std::pair<std::string, cc::ObjectFile>> objects; ///< source name, object
};
std::vector<uint8_t> writeCodeletArchive(const CodeletArchive &a);
/// Throws poplar::graph_object_load_error naming `path` if the bytes are not an archive.
CodeletArchive readCodeletArchive(const std::vector<uint8_t> &bytes, const std::string &path);

/// Compiles codelet sources the way popc and Graph::addCodelets do: `.cpp`/`.cc`/`.cxx`/`.c`
/// through ipu-cc (with __POPC__ defined), `.S`/`.s` through ipu-as, `.gp` read as it is. C++ is
/// compiled once per content (the file, the headers it includes by quoted name, the options) and
/// cached in $IPUSIM_CACHE_DIR, $XDG_CACHE_HOME/ipusim or ~/.cache/ipusim. Errors are
/// poplar::graph_program_compilation_error holding the compiler's `file:line:col: error:` lines.
CodeletArchive compileCodeletFiles(const std::vector<std::string> &paths, const std::vector<std::string> &compileFlags);

class CodeletRegistry {
public:
  /// Adds an object's vertex classes (from its .ipu.vertices section) and its code.
  void addObject(const std::string &name, cc::ObjectFile object);
  void addArchive(const CodeletArchive &archive);
  /// The codelet of a class name (spaces are ignored), or -1.
  int find(const std::string &className) const;
  const Codelet &codelet(unsigned i) const { return codelets_[i]; }
  size_t size() const { return codelets_.size(); }
  const std::vector<std::pair<std::string, std::shared_ptr<const cc::ObjectFile>>> &objects() const { return objects_; }
  /// True if some object defines `symbol` (a global in a code section).
  bool defines(const std::string &symbol) const { return definedSymbols_.count(symbol) != 0; }

private:
  std::vector<Codelet> codelets_;
  std::map<std::string, unsigned> byName_;
  std::vector<std::pair<std::string, std::shared_ptr<const cc::ObjectFile>>> objects_;
  std::map<std::string, unsigned> definedSymbols_;
};

/// The class name without spaces: Poplar and templateVertex spell "A<float,int>", clang "A<float, int>".
std::string normalizeClassName(const std::string &name);

/// The built-in codelets of ipusim's runtime (on-tile copies), compiled when ipusim was built.
const CodeletArchive &runtimeCodelets();

} // namespace ipusim::gc
