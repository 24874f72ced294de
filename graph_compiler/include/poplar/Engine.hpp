// ipusim's Poplar SDK: poplar::Engine. It compiles a graph and its programs into tile programs and
// runs them on ipusim's cycle-level IPU: every value is computed by the tile ISS and every cycle
// counted by the model (docs/poplar.md).
#ifndef IPUSIM_POPLAR_ENGINE_HPP
#define IPUSIM_POPLAR_ENGINE_HPP

#include <poplar/DataStream.hpp>
#include <poplar/Device.hpp>
#include <poplar/Executable.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/StreamCallback.hpp>
#include <poplar/Tensor.hpp>

#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace poplar {

namespace core {
class EngineImpl;
}

class Engine {
public:
  typedef std::function<void(int, int)> ProgressFunc;
  Engine(const Graph &graph, ArrayRef<program::Program> progs, const OptionFlags &opt = {},
         ProgressFunc progressCallBack = ProgressFunc(), const DebugContext &debugContext = {});
  Engine(const Graph &graph, program::Program prog, const OptionFlags &opt = {},
         ProgressFunc progressCallBack = ProgressFunc(), const DebugContext &debugContext = {});
  Engine(Executable &&exe, const OptionFlags &opt = {});
  Engine(const Executable &exe, const OptionFlags &opt = {});
  Engine(Engine &&);
  ~Engine();

  void prepare(const Device &device);
  void deploy();
  /// Loads the tile programs onto the device's simulated IPU.
  void load(const Device &device);
  /// Runs program `prog` to its end.
  void run(unsigned prog = 0, const std::string &debugName = "");
  void loadAndRun(const Device &device, unsigned prog = 0);

  /// Tensors of Graph::createHostRead / createHostWrite handles, moved over the host link.
  void readTensor(StringRef handle, void *buf, void *bufEnd);
  void writeTensor(StringRef handle, const void *buf, const void *bufEnd);
  void readTensor(StringRef handle, void *buf);
  void writeTensor(StringRef handle, const void *buf);
  template <class T> void readTensor(StringRef handle, ArrayRef<T> buf) {
    readTensor(handle, const_cast<T *>(buf.data()), const_cast<T *>(buf.data() + buf.size()));
  }
  template <class T> void writeTensor(StringRef handle, ArrayRef<T> buf) {
    writeTensor(handle, buf.data(), buf.data() + buf.size());
  }

  /// A circular buffer [begin, end): each transfer takes the next elements, wrapping at the end.
  void connectStream(StringRef handle, void *begin, void *end);
  /// A fixed buffer every transfer reads or writes.
  void connectStream(StringRef handle, void *p);
  void connectStream(const DataStream &stream, void *begin, void *end);
  void connectStream(const DataStream &stream, void *p);
  void connectStreamToCallback(StringRef handle, StreamCallbackHandle f);
  void connectStreamToCallback(StringRef handle, unsigned index, StreamCallbackHandle f);
  void connectStreamToCallback(const DataStream &stream, StreamCallbackHandle f);
  std::vector<std::string> listStreams() const;

  /// Row `repeatIndex` of remote buffer `handle` (Graph::addRemoteBuffer) from or to the host:
  /// numElements() elements of its type, straight into or out of Streaming Memory.
  void copyToRemoteBuffer(const void *data, StringRef handle, std::uint64_t repeatIndex, unsigned replicationIndex = 0);
  void copyFromRemoteBuffer(StringRef handle, void *data, std::uint64_t repeatIndex, unsigned replicationIndex = 0);

  /// Target, graph, memory per tile and the execution profile of the runs so far (docs/poplar.md).
  void printProfileSummary(std::ostream &outputStream, const OptionFlags &opt = {}) const;
  void resetExecutionProfile();
  void setPrintStream(std::ostream &stream);
  void setPrintTensorStream(std::ostream &stream);
  OptionFlags getEngineOptions() const;

  // ipusim extensions.
  /// Simulated cycles of the last run().
  std::uint64_t getLastRunCycles() const;

private:
  std::unique_ptr<core::EngineImpl> impl_;
};

} // namespace poplar

#endif
