// ipusim's Poplar SDK: a compiled graph and its programs, which an Engine runs; it can be saved
// and loaded (serialize / deserialize) to skip compiling again.
#ifndef IPUSIM_POPLAR_EXECUTABLE_HPP
#define IPUSIM_POPLAR_EXECUTABLE_HPP

#include <poplar/ArrayRef.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>

#include <functional>
#include <istream>
#include <memory>
#include <ostream>

namespace poplar {

namespace core {
struct CompiledGraph;
}

typedef std::function<void(int, int)> ProgressFunc;

class Executable {
public:
  Executable(Executable &&);
  Executable &operator=(Executable &&);
  ~Executable();
  void serialize(std::ostream &out) const;
  /// Throws poplar_error if the stream does not hold an executable written by serialize.
  static Executable deserialize(std::istream &in);

  // ipusim (internal).
  explicit Executable(std::unique_ptr<core::CompiledGraph> impl);
  core::CompiledGraph &impl() const { return *impl_; }
  std::unique_ptr<core::CompiledGraph> release();

private:
  std::unique_ptr<core::CompiledGraph> impl_;
};

Executable compileGraph(const Graph &graph, ArrayRef<program::Program> progs, const OptionFlags &opt = {},
                        ProgressFunc progressCallBack = ProgressFunc(), const DebugContext &debugContext = {});
Executable compileGraph(Graph &&graph, ArrayRef<program::Program> progs, const OptionFlags &opt = {},
                        ProgressFunc progressCallBack = ProgressFunc(), const DebugContext &debugContext = {});

} // namespace poplar

#endif
