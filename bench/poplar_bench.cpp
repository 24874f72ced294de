// The Poplar SDK on ipusim (docs/poplar.md, docs/performance.md): graph construction, compilation
// (lowering, exchange scheduling, memory planning, supervisor code) and a run of the example
// matrix-vector product over every tile of an IPU, at sizes up to the 10,000 x 1,000
// (90,000 vertices). Counters: vertices, simulated cycles, compile time per vertex.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

using namespace poplar;
using namespace poplar::program;

namespace {

struct MatVec {
  unsigned rows, cols, blocks;
};

/// examples/poplar/matvec.cpp's graph.
Sequence build(Graph &graph, const MatVec &m) {
  graph.addCodelets(IPUSIM_SOURCE_DIR "/examples/poplar/matvec_codelets.cpp");
  const unsigned tiles = graph.getTarget().getNumTiles(), blockCols = (m.cols + m.blocks - 1) / m.blocks;
  Tensor A = graph.addVariable(FLOAT, {m.rows, m.cols}, "A"), x = graph.addVariable(FLOAT, {m.cols}, "x");
  Tensor partials = graph.addVariable(FLOAT, {m.rows, m.blocks}, "partials"), y = graph.addVariable(FLOAT, {m.rows}, "y");
  ComputeSet dots = graph.addComputeSet("dots"), sums = graph.addComputeSet("sums");
  for (unsigned b = 0; b < m.blocks; ++b)
    graph.setTileMapping(x.slice(b * blockCols, std::min(m.cols, (b + 1) * blockCols)), b % tiles);
  for (unsigned r = 0; r < m.rows; ++r) {
    for (unsigned b = 0; b < m.blocks; ++b) {
      const unsigned tile = (r * m.blocks + b) % tiles, begin = b * blockCols, end = std::min(m.cols, begin + blockCols);
      Tensor block = A[r].slice(begin, end);
      graph.setTileMapping(block, tile);
      graph.setTileMapping(partials[r][b], tile);
      VertexRef v = graph.addVertex(dots, "PartialDot", {{"row", block}, {"x", x.slice(begin, end)}, {"partial", partials[r][b]}});
      graph.setTileMapping(v, tile);
    }
    graph.setTileMapping(y[r], (r * m.blocks) % tiles);
    VertexRef v = graph.addVertex(sums, "RowSum", {{"partials", partials[r]}, {"y", y[r]}});
    graph.setTileMapping(v, (r * m.blocks) % tiles);
  }
  DataStream inA = graph.addHostToDeviceFIFO("A", FLOAT, size_t(m.rows) * m.cols), inX = graph.addHostToDeviceFIFO("x", FLOAT, m.cols);
  DataStream outY = graph.addDeviceToHostFIFO("y", FLOAT, m.rows);
  return Sequence({Copy(inA, A), Copy(inX, x), Execute(dots), Execute(sums), Copy(y, outY)});
}

void BM_MatVec(benchmark::State &state) {
  const MatVec m{unsigned(state.range(0)), unsigned(state.range(1)), 8};
  IPUModel model;
  Device device = model.createDevice();
  std::vector<float> a(size_t(m.rows) * m.cols, 1.0f), x(m.cols, 0.5f), y(m.rows);
  double graphSeconds = 0, compileSeconds = 0, runSeconds = 0;
  uint64_t cycles = 0, vertices = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    Graph graph(device.getTarget());
    Sequence prog = build(graph, m);
    const auto t1 = std::chrono::steady_clock::now();
    Engine engine(graph, prog);
    engine.load(device);
    const auto t2 = std::chrono::steady_clock::now();
    engine.connectStream("A", a.data());
    engine.connectStream("x", x.data());
    engine.connectStream("y", y.data());
    engine.run(0);
    const auto t3 = std::chrono::steady_clock::now();
    graphSeconds += std::chrono::duration<double>(t1 - t0).count();
    compileSeconds += std::chrono::duration<double>(t2 - t1).count();
    runSeconds += std::chrono::duration<double>(t3 - t2).count();
    cycles = engine.getLastRunCycles();
    vertices = graph.getNumVertices();
  }
  const double n = double(state.iterations());
  state.counters["vertices"] = double(vertices);
  state.counters["simulated_cycles"] = double(cycles);
  state.counters["graph_s"] = graphSeconds / n;
  state.counters["compile_load_s"] = compileSeconds / n;
  state.counters["compile_us_per_vertex"] = 1e6 * compileSeconds / n / double(vertices);
  state.counters["run_s"] = runSeconds / n;
  state.counters["simulated_cycles_per_s"] = double(cycles) / (runSeconds / n);
}

// The control code the graph compiler emits: a Repeat of `sets` compute sets, each one tiny vertex
// (matvec's PartialDot over 2 elements) on every tile, so that the run is the supervisors'
// dispatch, the workers' launch and exit and the IPU's syncs. Counter: simulated IPU cycles per
// host second of the run alone (issue 15: control and supervisor code).
void BM_ControlCode(benchmark::State &state) {
  const unsigned sets = unsigned(state.range(0)), repeats = 20;
  IPUModel model;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  graph.addCodelets(IPUSIM_SOURCE_DIR "/examples/poplar/matvec_codelets.cpp");
  const unsigned tiles = graph.getTarget().getNumTiles();
  Tensor a = graph.addVariable(FLOAT, {tiles, 2}, "a"), x = graph.addVariable(FLOAT, {tiles, 2}, "x");
  Tensor p = graph.addVariable(FLOAT, {tiles}, "p");
  Sequence body;
  for (unsigned t = 0; t < tiles; ++t) {
    graph.setTileMapping(a[t], t);
    graph.setTileMapping(x[t], t);
    graph.setTileMapping(p[t], t);
  }
  for (unsigned k = 0; k < sets; ++k) {
    ComputeSet cs = graph.addComputeSet("set" + std::to_string(k));
    for (unsigned t = 0; t < tiles; ++t) {
      VertexRef v = graph.addVertex(cs, "PartialDot", {{"row", a[t]}, {"x", x[t]}, {"partial", p[t]}});
      graph.setTileMapping(v, t);
    }
    body.add(Execute(cs));
  }
  Engine engine(graph, Sequence({Repeat(repeats, body)}));
  engine.load(device);
  double runSeconds = 0;
  uint64_t cycles = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    engine.run(0);
    runSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cycles += engine.getLastRunCycles();
  }
  state.counters["simulated_cycles_per_run"] = double(cycles) / double(state.iterations());
  state.counters["simulated_cycles_per_s"] = double(cycles) / runSeconds;
}

} // namespace

BENCHMARK(BM_ControlCode)->Arg(10)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_MatVec)->Args({1000, 1000})->Args({10000, 1000})->Unit(benchmark::kSecond)->Iterations(1);

BENCHMARK_MAIN();
