// poplar::Engine, Executable and compileGraph: compile with the graph compiler, run on the
// simulated IPU through ipusim::gc::Runtime, serve the host side of streams, print PrintTensor
// output and the profile (docs/poplar.md).
#include "Internal.h"

#include "ipusim/gc/Runtime.h"
#include "ipusim/gc/Types.h"
#include "ipusim/sim/Profile.h"

#include <poplar/Engine.hpp>
#include <poplar/exceptions.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace poplar {

using namespace ipusim;

namespace core {

struct CompiledGraph {
  gc::Executable exe;
  std::string ipuVersion;
  uint32_t memorySize = 0;
  std::vector<std::string> programNames;
  double compileSeconds = 0;
};

namespace {

// Engine options ipusim knows (docs/poplar.md "Options"): those that change what it does, and
// those of the SDK it accepts because ipusim always does what they ask (instrumentation: every
// cycle is simulated) or because they only tune the SDK's compiler.
const std::set<std::string> kBoolOptions = {
    "debug.instrument", "debug.instrumentCompute", "debug.instrumentExternalExchange", "debug.instrumentControlFlow",
    "debug.retainDebugInformation", "debug.allowOutOfMemory", "debug.runtimeVerify", "debug.outputAllSymbols",
    "debug.floatPointOpException", "debug.nanOverflowMode", "debug.executionProfile", "autoReport.all",
    "autoReport.outputGraphProfile", "autoReport.outputExecutionProfile", "autoReport.outputLoweredVars",
    "autoReport.outputSerializedGraph", "autoReport.outputDebugInfo", "autoReport.outputArchive",
    "profiler.includeCycleEstimates", "profiler.perExecutionStreamCopyCycles", "exchange.enablePrefetch",
    "opt.enableSwSyncs", "opt.limitVertexStateToLower256K", "opt.enableMultiAccessCopies", "opt.useAutoloader",
    "profiler.includeFlopEstimates", "target.extendedMemory", "target.syncReplicasIndependently",
    "ipusim.traceInstructions"};
const std::set<std::string> kNumberOptions = {
    "autoReport.executionProfileProgramRunCount", "opt.maxCompilationThreads", "opt.maxComputeSetsPerLoweredCopy",
    "target.workerStackSizeInBytes", "target.supervisorStackSizeInBytes", "target.hostSyncTimeout", "ipusim.threads",
    "ipusim.maxCycles"};
/// Options whose value is one of a few words (as the SDK documents them).
const std::map<std::string, std::set<std::string>> kChoiceOptions = {
    {"target.deterministicWorkers", {"true", "false", "portable"}},
    {"debug.computeInstrumentationLevel", {"vertex", "tile", "ipu", "device"}},
    {"profiler.format", {"v1", "v2", "experimental"}}};
const std::set<std::string> kStringOptions = {
    "autoReport.directory", "profiler.programs.filter", "profiler.blocks.filter", "exchange.streamBufferOverlap",
    "exchange.multicastPolicy", "target.saveArchive", "opt.internalExchangeOptimisationTarget", "debug.trace",
    "debug.branchRecordTile", "debug.profilingTile"};

/// The options of the code with POPLAR_ENGINE_OPTIONS over them, checked.
OptionFlags engineOptions(const OptionFlags &given) {
  OptionFlags o = given;
  try {
    readJSONFromEnv("POPLAR_ENGINE_OPTIONS", o);
  } catch (const parse_error &e) {
    throw invalid_option(std::string("POPLAR_ENGINE_OPTIONS: ") + e.what());
  }
  for (const auto &[k, v] : o) {
    if (kBoolOptions.count(k)) {
      if (v != "true" && v != "false")
        throw invalid_option("engine option '" + k + "' must be \"true\" or \"false\", not \"" + v + "\"");
    } else if (kNumberOptions.count(k)) {
      char *end = nullptr;
      errno = 0;
      std::strtoull(v.c_str(), &end, 0);
      if (v.empty() || *end || errno || v[0] == '-')
        throw invalid_option("engine option '" + k + "' must be a non-negative number, not \"" + v + "\"");
    } else if (auto c = kChoiceOptions.find(k); c != kChoiceOptions.end()) {
      if (!c->second.count(v)) {
        std::string words;
        for (const std::string &w : c->second) words += (words.empty() ? "\"" : ", \"") + w + "\"";
        throw invalid_option("engine option '" + k + "' must be one of " + words + ", not \"" + v + "\"");
      }
    } else if (!kStringOptions.count(k)) {
      throw invalid_option("unknown engine option '" + k + "'");
    }
  }
  return o;
}

bool flag(const OptionFlags &o, const std::string &k) {
  const std::string *v = o.find(k);
  return v && *v == "true";
}
uint64_t number(const OptionFlags &o, const std::string &k, uint64_t otherwise) {
  const std::string *v = o.find(k);
  return v ? std::strtoull(v->c_str(), nullptr, 0) : otherwise;
}

// ---- PrintTensor (docs/poplar.md "PrintTensor") ----

double valueAt(gc::TypeId t, const uint8_t *p) {
  switch (t) {
  case gc::TypeId::Float: { float f; std::memcpy(&f, p, 4); return f; }
  case gc::TypeId::Half: return gc::halfToFloat(uint16_t(p[0] | p[1] << 8));
  default: return 0;
  }
}

std::string element(gc::TypeId t, const uint8_t *p, int decimals, bool scientific) {
  const gc::TypeInfo &ti = gc::typeInfo(t);
  char b[64];
  if (ti.isFloat) {
    const double v = valueAt(t, p);
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    std::snprintf(b, sizeof b, scientific ? "%.*e" : "%.*f", decimals, v);
    return b;
  }
  uint64_t raw = 0;
  std::memcpy(&raw, p, ti.size);
  if (ti.isSigned && ti.size < 8) {
    const unsigned shift = 64 - 8 * ti.size;
    return std::to_string(int64_t(raw << shift) >> shift);
  }
  if (ti.isSigned) return std::to_string(int64_t(raw));
  return std::to_string(raw);
}

void printTensor(std::ostream &os, const gc::PrintStep &ps, const uint8_t *data) {
  const gc::TypeId t = ps.type;
  const unsigned size = gc::typeSize(t);
  uint64_t n = 1;
  for (size_t d : ps.shape) n *= d;
  // Floats: 8 significant digits, fixed notation while the largest magnitude allows, the same
  // number of decimals for every element.
  int decimals = 7;
  bool scientific = false;
  if (gc::typeInfo(t).isFloat) {
    double maxAbs = 0;
    for (uint64_t i = 0; i < n; ++i) {
      const double v = std::fabs(valueAt(t, data + i * size));
      if (std::isfinite(v)) maxAbs = std::max(maxAbs, v);
    }
    const int magnitude = maxAbs > 0 ? int(std::floor(std::log10(maxAbs))) : 0;
    if (magnitude >= 8 || (maxAbs > 0 && magnitude < -4)) scientific = true;
    else decimals = std::max(0, 7 - std::max(0, magnitude));
  }
  const bool summarise = n > 1000;
  std::vector<uint64_t> strides(ps.shape.size(), 1);
  for (size_t d = ps.shape.size(); d-- > 1;) strides[d - 1] = strides[d] * ps.shape[d];
  auto indices = [&](size_t dim) {
    std::vector<int64_t> out; // -1 marks "..."
    const uint64_t len = ps.shape[dim];
    if (summarise && len > 6) {
      for (uint64_t i = 0; i < 3; ++i) out.push_back(int64_t(i));
      out.push_back(-1);
      for (uint64_t i = len - 3; i < len; ++i) out.push_back(int64_t(i));
    } else {
      for (uint64_t i = 0; i < len; ++i) out.push_back(int64_t(i));
    }
    return out;
  };
  std::function<void(size_t, uint64_t, int)> level = [&](size_t dim, uint64_t base, int indent) {
    const std::string pad(size_t(indent), ' ');
    if (dim + 1 == ps.shape.size()) {
      os << pad << '[';
      bool first = true;
      for (int64_t i : indices(dim)) {
        os << (first ? "" : " ") << (i < 0 ? std::string("...") : element(t, data + (base + uint64_t(i)) * size, decimals, scientific));
        first = false;
      }
      os << "]\n";
      return;
    }
    os << pad << "[\n";
    for (int64_t i : indices(dim)) {
      if (i < 0) os << pad << "  ...\n";
      else level(dim + 1, base + uint64_t(i) * strides[dim], indent + 2);
    }
    os << pad << "]\n";
  };
  if (!ps.title.empty()) os << ps.title << ": ";
  if (ps.shape.empty()) {
    os << element(t, data, decimals, scientific) << '\n';
  } else if (ps.shape.size() == 1) {
    level(0, 0, 0);
  } else {
    os << "[\n";
    for (int64_t i : indices(0)) {
      if (i < 0) os << "  ...\n";
      else level(1, uint64_t(i) * strides[0], 2);
    }
    os << "]\n";
  }
}

} // namespace

struct StreamConnection {
  enum Kind { None, Buffer, Circular, Callback } kind = None;
  uint8_t *begin = nullptr, *end = nullptr, *pos = nullptr;
  std::unique_ptr<StreamCallback> callback;
  std::vector<uint8_t> prefetched;
  bool hasPrefetch = false;

  void dropPrefetch() {
    if (hasPrefetch && callback) callback->invalidatePrefetched();
    hasPrefetch = false;
  }
};

class EngineImpl : public gc::HostSide {
public:
  std::unique_ptr<CompiledGraph> compiled;
  OptionFlags options;
  std::unique_ptr<gc::Runtime> runtime;
  std::shared_ptr<DeviceState> device;
  std::vector<StreamConnection> streams;
  std::ostream *printStream = &std::cout;
  uint8_t *hostRead = nullptr;
  const uint8_t *hostWrite = nullptr;
  struct ProgramProfile {
    uint64_t runs = 0, cycles = 0, lastCycles = 0, compute = 0, exchange = 0, host = 0, sync = 0, control = 0;
    double hostSeconds = 0;
    std::vector<gc::StepStats> steps;
  };
  std::vector<ProgramProfile> profile;
  std::unique_ptr<std::ofstream> trace;
  std::string reportDirectory;
  uint64_t lastRunCycles = 0;

  explicit EngineImpl(std::unique_ptr<CompiledGraph> c, OptionFlags o) : compiled(std::move(c)), options(std::move(o)) {
    streams.resize(compiled->exe.streams.size());
    profile.resize(compiled->exe.numPrograms);
    if (flag(options, "autoReport.all") || flag(options, "autoReport.outputExecutionProfile") ||
        flag(options, "autoReport.outputGraphProfile")) {
      const std::string *d = options.find("autoReport.directory");
      reportDirectory = d ? *d : ".";
    }
  }
  ~EngineImpl() override {
    for (StreamConnection &s : streams) s.dropPrefetch();
  }

  const gc::Stream &stream(unsigned i) const { return compiled->exe.streams.at(i); }

  unsigned findStream(const std::string &handle, const char *what) const {
    for (size_t i = 0; i < compiled->exe.streams.size(); ++i)
      if (compiled->exe.streams[i].handle == handle && !compiled->exe.streams[i].hostHandle) return unsigned(i);
    throw stream_connection_error(std::string(what) + ": no data stream '" + handle + "' in this engine's graph");
  }

  void toDevice(unsigned s, uint8_t *dst, uint64_t bytes) override {
    if (stream(s).hostHandle) {
      std::memcpy(dst, hostWrite, bytes);
      return;
    }
    StreamConnection &c = streams.at(s);
    switch (c.kind) {
    case StreamConnection::None:
      throw stream_connection_error("stream '" + stream(s).handle +
                                    "' is not connected: connect it with Engine::connectStream or connectStreamToCallback");
    case StreamConnection::Buffer: std::memcpy(dst, c.begin, bytes); break;
    case StreamConnection::Circular:
      for (uint64_t i = 0; i < bytes; ++i) {
        dst[i] = *c.pos++;
        if (c.pos == c.end) c.pos = c.begin;
      }
      break;
    case StreamConnection::Callback:
      if (c.hasPrefetch) {
        std::memcpy(dst, c.prefetched.data(), bytes);
        c.hasPrefetch = false;
      } else {
        c.callback->fetch(dst);
      }
      c.callback->complete();
      // Ask for the next transfer's data ahead of time (docs/poplar.md "Callbacks").
      if (!options.find("exchange.enablePrefetch") || flag(options, "exchange.enablePrefetch")) {
        c.prefetched.assign(bytes, 0);
        c.hasPrefetch = c.callback->prefetch(c.prefetched.data()) == StreamCallback::Result::Success;
      }
      break;
    }
  }

  void fromDevice(unsigned s, const uint8_t *src, uint64_t bytes) override {
    if (stream(s).hostHandle) {
      std::memcpy(hostRead, src, bytes);
      return;
    }
    StreamConnection &c = streams.at(s);
    switch (c.kind) {
    case StreamConnection::None:
      throw stream_connection_error("stream '" + stream(s).handle +
                                    "' is not connected: connect it with Engine::connectStream or connectStreamToCallback");
    case StreamConnection::Buffer: std::memcpy(c.begin, src, bytes); break;
    case StreamConnection::Circular:
      for (uint64_t i = 0; i < bytes; ++i) {
        *c.pos++ = src[i];
        if (c.pos == c.end) c.pos = c.begin;
      }
      break;
    case StreamConnection::Callback: {
      std::vector<uint8_t> copy(src, src + bytes);
      c.callback->fetch(copy.data());
      c.callback->complete();
      break;
    }
    }
  }

  void print(unsigned index, const uint8_t *data) override { printTensor(*printStream, compiled->exe.prints.at(index), data); }

  void load(const Device &d) {
    const gc::TargetInfo &dt = *d.state().target;
    const gc::Executable &exe = compiled->exe;
    if (!d.state().model && !d.state().attached)
      throw poplar_error("Engine::load: the device is not attached (call Device::attach first)");
    if (dt.numIpus != exe.numIpus || dt.tilesPerIpu != exe.tilesPerIpu || dt.ipuVersion != compiled->ipuVersion)
      throw poplar_error("Engine::load: the graph was compiled for " + std::to_string(exe.numIpus) + " " + compiled->ipuVersion +
                         " IPU(s) of " + std::to_string(exe.tilesPerIpu) + " tiles, but the device has " +
                         std::to_string(dt.numIpus) + " " + dt.ipuVersion + " IPU(s) of " + std::to_string(dt.tilesPerIpu));
    if (dt.config.tile.memorySize < compiled->memorySize)
      throw poplar_error("Engine::load: the graph was compiled for tiles of " + std::to_string(compiled->memorySize) +
                         " bytes; the device's have " + std::to_string(dt.config.tile.memorySize));
    unsigned threads = unsigned(number(options, "ipusim.threads", 0));
    if (!threads)
      if (const char *e = std::getenv("IPUSIM_THREADS")) threads = unsigned(std::strtoul(e, nullptr, 10));
    if (!threads) threads = std::max(1u, std::thread::hardware_concurrency());
    runtime.reset(); // its remote buffers' Streaming Memory is given back first
    runtime = std::make_unique<gc::Runtime>(exe, dt.config, threads);
    runtime->maxCycles = number(options, "ipusim.maxCycles", 1ull << 34);
    device = std::shared_ptr<DeviceState>(&d.state(), [](DeviceState *) {});
    if (!reportDirectory.empty()) {
      fs::create_directories(reportDirectory);
      trace = std::make_unique<std::ofstream>(fs::path(reportDirectory) / "execution.trace");
      runtime->setTrace(trace.get(), flag(options, "ipusim.traceInstructions"));
    }
  }

  gc::RunStats runProgram(unsigned prog) {
    if (!runtime) throw poplar_error("Engine::run: the engine is not loaded onto a device (call Engine::load first)");
    if (device && !device->model && !device->attached)
      throw poplar_error("Engine::run: the device was detached (attach it and load the engine again)");
    return runtime->run(prog, *this);
  }

  nlohmann::json profileJson() const {
    const gc::Executable &exe = compiled->exe;
    const arch::SystemConfig *config = runtime ? &device->target->config : nullptr;
    nlohmann::json p;
    p["target"] = {{"ipus", exe.numIpus},
                   {"tilesPerIpu", exe.tilesPerIpu},
                   {"bytesPerTile", compiled->memorySize},
                   {"clockHz", config ? config->ipu.clockHz : gc::TargetInfo().config.ipu.clockHz},
                   {"arch", compiled->ipuVersion},
                   {"config", exe.configName},
                   {"simulator", "ipusim"}};
    p["graph"] = {{"vertices", exe.numVertices}, {"edges", exe.numEdges}, {"variables", exe.numVariables},
                  {"computeSets", exe.numComputeSets}, {"vertexTypes", exe.vertexTypes}};
    nlohmann::json tiles = nlohmann::json::array();
    for (const gc::TileProgram &t : exe.tiles) {
      const gc::TileMemoryUsage &u = t.memory;
      tiles.push_back({{"tile", t.tile}, {"used", u.used}, {"extent", u.extent}, {"interleaved", u.interleaved},
                       {"variables", u.variables}, {"notAlwaysLive", u.notAlwaysLive}, {"constants", u.constants},
                       {"stack", u.stack},
                       {"vertexState", u.vertexState}, {"vertexData", u.vertexData}, {"copyDescriptors", u.copyDescriptors},
                       {"controlCode", u.controlCode}, {"vertexCode", u.vertexCode}, {"controlData", u.controlData},
                       {"temporaries", u.temporaries}, {"byVertexType", u.byVertexType}});
    }
    p["memory"] = {{"tiles", tiles}};
    nlohmann::json programs = nlohmann::json::array();
    for (size_t i = 0; i < profile.size(); ++i) {
      const ProgramProfile &pp = profile[i];
      nlohmann::json steps = nlohmann::json::array();
      for (size_t s = 0; s < pp.steps.size(); ++s) {
        if (!pp.steps[s].executions) continue;
        const gc::StepInfo &si = exe.steps[s];
        steps.push_back({{"type", si.type}, {"name", si.name}, {"cycles", pp.steps[s].cycles},
                         {"executions", pp.steps[s].executions}, {"tiles", si.tiles}, {"bytes", si.bytes * pp.steps[s].executions}});
      }
      programs.push_back({{"index", i}, {"name", i < compiled->programNames.size() ? compiled->programNames[i] : ""},
                          {"runs", pp.runs}, {"cycles", pp.cycles}, {"lastCycles", pp.lastCycles},
                          {"compute", pp.compute}, {"exchange", pp.exchange}, {"host", pp.host}, {"sync", pp.sync},
                          {"control", pp.control}, {"hostSeconds", pp.hostSeconds},
                          {"cyclesPerSecond", pp.hostSeconds > 0 ? double(pp.cycles) / pp.hostSeconds : 0.0},
                          {"steps", steps}});
    }
    p["programs"] = programs;
    p["compileSeconds"] = compiled->compileSeconds;
    return p;
  }

  void writeReport() const {
    if (reportDirectory.empty()) return;
    std::ofstream(fs::path(reportDirectory) / "profile.json") << profileJson().dump(1) << '\n';
    if (trace) trace->flush();
  }
};

} // namespace core

// ---- compilation ----

namespace {

std::unique_ptr<core::CompiledGraph> compileFor(const Graph &graph, ArrayRef<program::Program> progs, const OptionFlags &opt,
                                                ProgressFunc progress) {
  const OptionFlags o = core::engineOptions(opt);
  const auto start = std::chrono::steady_clock::now();
  if (graph.getTarget().getNumIPUs() != 1)
    throw graph_program_compilation_error("ipusim compiles graphs for one IPU; programs over " +
                                          std::to_string(graph.getTarget().getNumIPUs()) +
                                          " IPUs arrive with its system model (IPU-Links, external syncs)");
  std::vector<gc::ProgramPtr> programs;
  auto c = std::make_unique<core::CompiledGraph>();
  for (const program::Program &p : progs) {
    gc::ProgramPtr n = p.node();
    if (!n) {
      auto empty = std::make_shared<gc::ProgramNode>();
      empty->kind = gc::ProgramNode::Sequence;
      n = empty;
    }
    programs.push_back(n);
    c->programNames.push_back(n->name);
  }
  if (progress) progress(0, 1);
  gc::CompileOptions co;
  co.workerStackBytes = uint32_t(core::number(o, "target.workerStackSizeInBytes", 0));
  co.supervisorStackBytes = uint32_t(core::number(o, "target.supervisorStackSizeInBytes", 0));
  const gc::GraphData &g = graph.data();
  c->exe = gc::compile(g, programs, co);
  c->ipuVersion = g.target.ipuVersion;
  c->memorySize = g.target.config.tile.memorySize;
  c->compileSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (progress) progress(1, 1);
  return c;
}

} // namespace

Executable::Executable(std::unique_ptr<core::CompiledGraph> impl) : impl_(std::move(impl)) {}
Executable::Executable(Executable &&) = default;
Executable &Executable::operator=(Executable &&) = default;
Executable::~Executable() = default;
std::unique_ptr<core::CompiledGraph> Executable::release() { return std::move(impl_); }

void Executable::serialize(std::ostream &out) const {
  nlohmann::json j;
  j["ipusim"] = "poplar-executable";
  j["ipuVersion"] = impl_->ipuVersion;
  j["memorySize"] = impl_->memorySize;
  j["programNames"] = impl_->programNames;
  j["executable"] = nlohmann::json::binary(impl_->exe.serialize());
  const std::vector<uint8_t> bytes = nlohmann::json::to_cbor(j);
  out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) throw poplar_error("Executable::serialize: writing the stream failed");
}

Executable Executable::deserialize(std::istream &in) {
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json j = nlohmann::json::from_cbor(bytes, true, false);
  if (j.is_discarded() || !j.is_object() || j.value("ipusim", "") != "poplar-executable")
    throw poplar_error("Executable::deserialize: the stream does not hold an executable written by ipusim's Executable::serialize");
  auto c = std::make_unique<core::CompiledGraph>();
  try {
    c->ipuVersion = j.at("ipuVersion");
    c->memorySize = j.at("memorySize");
    c->programNames = j.at("programNames").get<std::vector<std::string>>();
    c->exe = gc::Executable::deserialize(j.at("executable").get_binary());
  } catch (const nlohmann::json::exception &e) {
    throw poplar_error(std::string("Executable::deserialize: malformed executable (") + e.what() + ")");
  }
  return Executable(std::move(c));
}

Executable compileGraph(const Graph &graph, ArrayRef<program::Program> progs, const OptionFlags &opt, ProgressFunc progress,
                        const DebugContext &) {
  return Executable(compileFor(graph, progs, opt, progress));
}
Executable compileGraph(Graph &&graph, ArrayRef<program::Program> progs, const OptionFlags &opt, ProgressFunc progress,
                        const DebugContext &) {
  return Executable(compileFor(graph, progs, opt, progress));
}

// ---- Engine ----

Engine::Engine(const Graph &graph, ArrayRef<program::Program> progs, const OptionFlags &opt, ProgressFunc progress,
               const DebugContext &)
    : impl_(new core::EngineImpl(compileFor(graph, progs, opt, progress), core::engineOptions(opt))) {}
Engine::Engine(const Graph &graph, program::Program prog, const OptionFlags &opt, ProgressFunc progress,
               const DebugContext &dc)
    : Engine(graph, ArrayRef<program::Program>(&prog, 1), opt, progress, dc) {}
Engine::Engine(Executable &&exe, const OptionFlags &opt)
    : impl_(new core::EngineImpl(exe.release(), core::engineOptions(opt))) {}
Engine::Engine(const Executable &exe, const OptionFlags &opt)
    : impl_(new core::EngineImpl(std::make_unique<core::CompiledGraph>(exe.impl()), core::engineOptions(opt))) {}
Engine::Engine(Engine &&) = default;
Engine::~Engine() {
  if (impl_) impl_->writeReport();
}

void Engine::prepare(const Device &device) { impl_->load(device); }
void Engine::deploy() {}
void Engine::load(const Device &device) { impl_->load(device); }
void Engine::loadAndRun(const Device &device, unsigned prog) {
  load(device);
  run(prog);
}

void Engine::run(unsigned prog, const std::string &) {
  if (prog >= impl_->compiled->exe.numPrograms)
    throw poplar_error("Engine::run: program " + std::to_string(prog) + " does not exist (the engine has " +
                       std::to_string(impl_->compiled->exe.numPrograms) + ")");
  gc::RunStats s = impl_->runProgram(prog);
  core::EngineImpl::ProgramProfile &p = impl_->profile[prog];
  ++p.runs;
  p.cycles += s.cycles;
  p.lastCycles = s.cycles;
  p.compute += s.computeCycles;
  p.exchange += s.exchangeCycles;
  p.host += s.hostCycles;
  p.sync += s.syncCycles;
  p.control += s.controlCycles;
  p.hostSeconds += s.hostSeconds;
  p.steps.resize(s.steps.size());
  for (size_t i = 0; i < s.steps.size(); ++i) {
    p.steps[i].cycles += s.steps[i].cycles;
    p.steps[i].executions += s.steps[i].executions;
  }
  impl_->lastRunCycles = s.cycles;
  impl_->writeReport();
}

namespace core {
/// Runs the program the compiler made for a host read or write handle, with `buf` as the host's
/// side of it (readTensor / writeTensor).
void hostTransfer(EngineImpl &e, const std::string &h, bool read, uint8_t *buf, const uint8_t *bufEnd) {
  const gc::Executable &exe = e.compiled->exe;
  const std::map<std::string, unsigned> &programs = read ? exe.hostReadPrograms : exe.hostWritePrograms;
  const char *what = read ? "Engine::readTensor" : "Engine::writeTensor";
  auto it = programs.find(h);
  if (it == programs.end())
    throw poplar_error(std::string(what) + ": no tensor was registered for " + (read ? "reading" : "writing") + " as '" + h +
                       "' (Graph::" + (read ? "createHostRead" : "createHostWrite") + ")");
  uint64_t want = 0;
  for (const gc::Stream &s : exe.streams)
    if (s.handle == h && s.hostHandle && s.toDevice == !read) want = s.elements * gc::typeSize(s.type);
  if (bufEnd && uint64_t(bufEnd - buf) != want)
    throw poplar_error(std::string(what) + ": the buffer for '" + h + "' holds " + std::to_string(bufEnd - buf) +
                       " bytes; the tensor has " + std::to_string(want));
  if (read) e.hostRead = buf;
  else e.hostWrite = buf;
  e.runProgram(it->second);
  e.hostRead = nullptr;
  e.hostWrite = nullptr;
}
} // namespace core

namespace core {
/// Remote buffer `handle`'s row `repeatIndex` in the loaded engine's Streaming Memory.
struct RemoteRow {
  uint8_t *bytes;
  uint64_t size;
};
RemoteRow remoteRow(EngineImpl &e, const std::string &handle, uint64_t repeatIndex, unsigned replicationIndex, const char *what) {
  const std::vector<gc::RemoteBufferInfo> &buffers = e.compiled->exe.remoteBuffers;
  auto it = std::find_if(buffers.begin(), buffers.end(), [&](const gc::RemoteBufferInfo &r) { return r.handle == handle; });
  if (it == buffers.end()) throw poplar_error(std::string(what) + ": no remote buffer '" + handle + "' in this engine's graph");
  if (!e.runtime) throw poplar_error(std::string(what) + ": the engine is not loaded onto a device (call Engine::load first)");
  if (replicationIndex != 0)
    throw poplar_error(std::string(what) + ": replica " + std::to_string(replicationIndex) + " of remote buffer '" + handle +
                       "': the graph is not replicated (replica 0 only)");
  if (repeatIndex >= it->repeats)
    throw poplar_error(std::string(what) + ": row " + std::to_string(repeatIndex) + " of remote buffer '" + handle +
                       "', which has " + std::to_string(it->repeats));
  return {e.runtime->remoteBuffer(unsigned(it - buffers.begin())).data() + repeatIndex * it->rowBytes(), it->rowBytes()};
}
} // namespace core

// The host reads and writes Streaming Memory directly (the gateway's DRAM, over its network link):
// no IPU takes part, so no IPU cycles pass.
void Engine::copyToRemoteBuffer(const void *data, StringRef handle, std::uint64_t repeatIndex, unsigned replicationIndex) {
  const core::RemoteRow row = core::remoteRow(*impl_, handle.cloneAsString(), repeatIndex, replicationIndex, "Engine::copyToRemoteBuffer");
  std::memcpy(row.bytes, data, row.size);
}
void Engine::copyFromRemoteBuffer(StringRef handle, void *data, std::uint64_t repeatIndex, unsigned replicationIndex) {
  const core::RemoteRow row = core::remoteRow(*impl_, handle.cloneAsString(), repeatIndex, replicationIndex, "Engine::copyFromRemoteBuffer");
  std::memcpy(data, row.bytes, row.size);
}

void Engine::readTensor(StringRef handle, void *buf, void *bufEnd) {
  core::hostTransfer(*impl_, handle.cloneAsString(), true, static_cast<uint8_t *>(buf), static_cast<uint8_t *>(bufEnd));
}
void Engine::readTensor(StringRef handle, void *buf) { readTensor(handle, buf, nullptr); }
void Engine::writeTensor(StringRef handle, const void *buf, const void *bufEnd) {
  core::hostTransfer(*impl_, handle.cloneAsString(), false, const_cast<uint8_t *>(static_cast<const uint8_t *>(buf)),
                     static_cast<const uint8_t *>(bufEnd));
}
void Engine::writeTensor(StringRef handle, const void *buf) { writeTensor(handle, buf, nullptr); }

void Engine::connectStream(StringRef handle, void *begin, void *end) {
  const unsigned s = impl_->findStream(handle.cloneAsString(), "Engine::connectStream");
  core::StreamConnection &c = impl_->streams[s];
  if (!begin || end <= begin)
    throw stream_connection_error("Engine::connectStream: the buffer for stream '" + handle.cloneAsString() + "' is empty");
  c.dropPrefetch();
  c.kind = core::StreamConnection::Circular;
  c.callback.reset();
  c.begin = c.pos = static_cast<uint8_t *>(begin);
  c.end = static_cast<uint8_t *>(end);
}
void Engine::connectStream(StringRef handle, void *p) {
  const unsigned s = impl_->findStream(handle.cloneAsString(), "Engine::connectStream");
  core::StreamConnection &c = impl_->streams[s];
  if (!p) throw stream_connection_error("Engine::connectStream: null buffer for stream '" + handle.cloneAsString() + "'");
  c.dropPrefetch();
  c.kind = core::StreamConnection::Buffer;
  c.callback.reset();
  c.begin = static_cast<uint8_t *>(p);
}
void Engine::connectStream(const DataStream &stream, void *begin, void *end) { connectStream(stream.handle(), begin, end); }
void Engine::connectStream(const DataStream &stream, void *p) { connectStream(stream.handle(), p); }
void Engine::connectStreamToCallback(StringRef handle, StreamCallbackHandle f) {
  const unsigned s = impl_->findStream(handle.cloneAsString(), "Engine::connectStreamToCallback");
  core::StreamConnection &c = impl_->streams[s];
  c.dropPrefetch();
  c.kind = core::StreamConnection::Callback;
  c.callback = f.release();
  if (!c.callback)
    throw stream_connection_error("Engine::connectStreamToCallback: no callback for stream '" + handle.cloneAsString() + "'");
}
void Engine::connectStreamToCallback(StringRef handle, unsigned index, StreamCallbackHandle f) {
  if (index != 0)
    throw stream_connection_error("Engine::connectStreamToCallback: replica " + std::to_string(index) +
                                  " does not exist (the graph is not replicated)");
  connectStreamToCallback(handle, std::move(f));
}
void Engine::connectStreamToCallback(const DataStream &stream, StreamCallbackHandle f) {
  connectStreamToCallback(stream.handle(), std::move(f));
}
std::vector<std::string> Engine::listStreams() const {
  std::vector<std::string> out;
  for (const gc::Stream &s : impl_->compiled->exe.streams)
    if (!s.hostHandle) out.push_back(s.handle);
  return out;
}

void Engine::printProfileSummary(std::ostream &os, const OptionFlags &opt) const {
  for (const auto &[k, v] : opt)
    if (k != "showExecutionSteps" && k != "showVarStorage" && k != "showOptimizations" && k != "showPerIpuMemoryUsage" &&
        k != "colours")
      throw invalid_option("printProfileSummary: unknown option '" + k + "'");
  sim::ProfileSummaryOptions o;
  const std::string *steps = opt.find("showExecutionSteps");
  o.showExecutionSteps = steps && *steps == "true";
  sim::printProfileSummary(os, impl_->profileJson(), o);
}
void Engine::resetExecutionProfile() {
  for (auto &p : impl_->profile) p = core::EngineImpl::ProgramProfile();
}
void Engine::setPrintStream(std::ostream &stream) { impl_->printStream = &stream; }
void Engine::setPrintTensorStream(std::ostream &stream) { impl_->printStream = &stream; }
OptionFlags Engine::getEngineOptions() const { return impl_->options; }
std::uint64_t Engine::getLastRunCycles() const { return impl_->lastRunCycles; }

} // namespace poplar
