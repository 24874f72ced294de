// ipucc_bench: compiled (ipu-cc) vertices beside hand-written assembly, in simulated cycles on the
// tile ISS (docs/performance.md, "ipu-cc: compiled vertices beside hand-written assembly"), and the
// compile time of a codelet file. The vertices are bench/cc/vertices.cpp and bench/cc/vertices.S;
// tests/cc_bench/compiled_vs_asm_test.cpp checks that both give the same outputs.
#include "VertexPairs.h"

#include "ipusim/arch/Config.h"
#include "ipusim/cc/Assembler.h"
#include "ipusim/cc/Compiler.h"
#include "ipusim/cc/Linker.h"
#include "ipusim/sim/Image.h"
#include "ipusim/sim/Tile.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

using namespace ipusim;
using namespace ipusim::ccbench;

namespace {

const std::string kCodelet = std::string(IPUSIM_SOURCE_DIR) + "/bench/cc/vertices.cpp";
const std::string kAsm = std::string(IPUSIM_SOURCE_DIR) + "/bench/cc/vertices.S";

const arch::SystemConfig &config() {
  static const arch::SystemConfig cfg = arch::loadNamedConfig("mk2");
  return cfg;
}
const cc::ObjectFile &linked(bool compiled) {
  static const cc::ObjectFile c = cc::link({{"c.o", cc::compileCodelet(kCodelet).object}}, config().tile);
  static const cc::ObjectFile a = cc::link({{"a.o", cc::assembleFile(kAsm, {})}}, config().tile);
  return compiled ? c : a;
}

/// Runs one vertex as a worker started alone (as tests/sim/SimUtil.h does); returns the cycles.
uint64_t runVertex(bool compiled, const Pair &p, uint32_t n) {
  const cc::ObjectFile &image = linked(compiled);
  sim::Tile tile(config().tile);
  sim::loadImage(tile, image, "bench.elf");
  setup(tile, p.kind, n);
  int sym = image.findSymbol(compiled ? p.compiled : p.hand);
  if (sym < 0) throw std::runtime_error(std::string("no symbol for ") + p.name);
  uint32_t pc = image.symbols[size_t(sym)].value;
  sim::TileStats stats = tile.runSupervisor(tile.installWorkerLauncher(pc, kState, false), 0);
  if (output(tile, p.kind, n) != reference(p.kind, n)) throw std::runtime_error(std::string("wrong output: ") + p.name);
  return stats.cycles;
}

void BM_Vertex(benchmark::State &state, Pair p) {
  const uint32_t n = uint32_t(state.range(0));
  uint64_t compiled = 0, hand = 0;
  for (auto _ : state) {
    compiled = runVertex(true, p, n);
    hand = runVertex(false, p, n);
  }
  state.counters["cycles_compiled"] = double(compiled);
  state.counters["cycles_asm"] = double(hand);
  state.counters["ratio"] = double(compiled) / double(hand);
}

// Wall time of compileCodelet on bench/cc/vertices.cpp (clang front end, -O2, our backend, the
// assembler). Target: under 1 s per codelet file.
void BM_CompileCodelet(benchmark::State &state) {
  for (auto _ : state) benchmark::DoNotOptimize(cc::compileCodelet(kCodelet));
}
BENCHMARK(BM_CompileCodelet)->Unit(benchmark::kMillisecond)->UseRealTime();

// Wall time of compileCodelet on straight-line code holding N values live at once: N loads, then
// N outputs each reading three of them, so the interference graph is complete and about N - 17
// values must be spilled. Register allocation spills every value that must go in one round, so
// this grows with the graph's size (N^2 edges), not N^3 (issue 14). Target: <= 1 s at N = 300.
void BM_CompileLiveValues(benchmark::State &state) {
  const int n = int(state.range(0));
  std::ostringstream src;
  src << "#include <poplar/Vertex.hpp>\nclass Live : public poplar::Vertex {\npublic:\n"
         "  poplar::Input<poplar::Vector<float>> in;\n  poplar::Output<poplar::Vector<float>> out;\n"
         "  bool compute() {\n";
  for (int i = 0; i < n; ++i) src << "    float v" << i << " = in[" << i << "];\n";
  for (int i = 0; i < n; ++i)
    src << "    out[" << i << "] = v" << i << " * v" << (i * 7 + 3) % n << " + v" << n - 1 - i << ";\n";
  src << "    return true;\n  }\n};\n";
  const std::string path = "/tmp/ipucc_bench_live_" + std::to_string(n) + ".cpp";
  std::ofstream(path) << src.str();
  size_t bytes = 0;
  for (auto _ : state) bytes = cc::compileCodelet(path).assembly.size();
  state.counters["asm_bytes"] = double(bytes);
  std::remove(path.c_str());
}
BENCHMARK(BM_CompileLiveValues)->Arg(50)->Arg(100)->Arg(200)->Arg(300)->Unit(benchmark::kMillisecond)->UseRealTime();

const int registered = [] {
  for (const Pair &p : pairs())
    benchmark::RegisterBenchmark((std::string("BM_Vertex/") + p.name).c_str(), BM_Vertex, p)
        ->Arg(8)
        ->Arg(100)
        ->Arg(1000)
        ->Arg(1003)
        ->Unit(benchmark::kMicrosecond);
  return 0;
}();

} // namespace

BENCHMARK_MAIN();
