// poplibs' operations on a full simulated GC200 (issue 11, deliverable 5; docs/performance.md):
// each benchmark builds one operation, compiles it and runs it twice. Counters: simulated cycles,
// the fraction of the hardware limit the operation reaches, graph construction, compile, first
// and second run host seconds, and simulated cycles per host second of the second run (the first
// also puts the program into the simulated tiles).
//   matMul M x K x N: limit = M K N / (tiles x MACs a tile cycle): 64 for half with half partials
//     (f16v4hihov4amp), 16 for float (f32sisov2amp) (ipu-facts §3.2).
//   addInPlace of n floats: limit = n / (tiles x 2): a tile loads 16 and stores 8 bytes a cycle
//     (ipu-facts §2.4), so two floats a cycle (two loaded and one stored, 4 bytes each).
//   reduce ADD of n floats to one: reported (no limit is defined for it).
//   convolution (ResNet-50's 3x3 layer, 56 x 56 x 64 -> 64, batch 4, half with half or float
//     partials, padding 1): limit =
//     its multiply-adds / (tiles x 64), the AMP's half rate.
//   MNIST's convolutions and their gradients (float): limit = multiply-adds / (tiles x 16).
//   gather of 512 rows of BERT's half [30522][768] word-embedding table; topK 5 of 5,888 float
//     rows of 256; partialTranspose of 94,208 half 16 x 16 matrices: reported (no limit).
//   poplibs' own GEMM benchmark (BM_PoplibsGemm): the program of poplibs' tool
//     general_matrix_multiply with its benchmark's arguments, beside the cycles Graphcore's IPU
//     Model gave it (counter ipu_model2_cycles; docs/performance.md, "poplibs' own benchmarks").
//   poplibs' ResNet-50 convolution benchmark (BM_PoplibsConv): its tool single_conv_layer's
//     forward, input-gradient and weight-update programs for each of ResNet-50's 20 layers,
//     likewise beside IpuModel2's cycles.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/ConvUtil.hpp>
#include <poplin/Convolution.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/codelets.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Gather.hpp>
#include <popops/Rearrange.hpp>
#include <popops/TopK.hpp>
#include <popops/Reduce.hpp>
#include <popops/ScaledAdd.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <functional>
#include <iterator>
#include <string>

using namespace poplar;
using namespace poplar::program;

namespace {

using Clock = std::chrono::steady_clock;

/// Builds with `build` (returning the operation's work in limit cycles), compiles, runs twice:
/// the counters are of the second run but run_s.
void measure(benchmark::State &state, const std::function<double(Graph &, Sequence &)> &build) {
  IPUModel model;
  Device device = model.createDevice();
  double graphS = 0, compileS = 0, runS = 0, rerunS = 0, limit = 0;
  uint64_t cycles = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    Graph graph(device.getTarget());
    popops::addCodelets(graph);
    poplin::addCodelets(graph);
    Sequence prog;
    limit = build(graph, prog);
    const auto t1 = Clock::now();
    Engine engine(graph, prog);
    engine.load(device);
    const auto t2 = Clock::now();
    engine.run(0);
    const auto t3 = Clock::now();
    engine.run(0); // again: the first run also puts the program into the simulated tiles
    rerunS = std::chrono::duration<double>(Clock::now() - t3).count();
    graphS = std::chrono::duration<double>(t1 - t0).count();
    compileS = std::chrono::duration<double>(t2 - t1).count();
    runS = std::chrono::duration<double>(t3 - t2).count();
    cycles = engine.getLastRunCycles();
  }
  state.counters["simulated_cycles"] = double(cycles);
  if (limit > 0) state.counters["fraction_of_limit"] = limit / double(cycles);
  state.counters["graph_s"] = graphS;
  state.counters["compile_load_s"] = compileS;
  state.counters["run_s"] = runS;
  state.counters["rerun_s"] = rerunS;
  state.counters["simulated_cycles_per_s"] = double(cycles) / rerunS;
}

/// A [m][k] x [k][n] matMul of `in` with `partials` partials, its operands laid out by poplin.
void addMatMul(Graph &graph, Sequence &prog, Type in, Type partials, std::size_t m, std::size_t k, std::size_t n) {
  const OptionFlags options{{"partialsType", partials == HALF ? "half" : "float"}};
  Tensor a = poplin::createMatMulInputLHS(graph, in, {m, k}, {k, n}, "A", options);
  Tensor b = poplin::createMatMulInputRHS(graph, in, {m, k}, {k, n}, "B", options);
  poplin::matMul(graph, a, b, prog, "C", options);
}

void BM_MatMul(benchmark::State &state, Type type) {
  const std::size_t m = std::size_t(state.range(0)), k = std::size_t(state.range(1)), n = std::size_t(state.range(2));
  measure(state, [&](Graph &graph, Sequence &prog) {
    addMatMul(graph, prog, type, type, m, k, n);
    const double macsPerTileCycle = type == HALF ? 64 : 16;
    return double(m) * double(k) * double(n) / (graph.getTarget().getNumTiles() * macsPerTileCycle);
  });
}

void BM_AddInPlace(benchmark::State &state) {
  const std::size_t n = std::size_t(state.range(0));
  measure(state, [&](Graph &graph, Sequence &prog) {
    Tensor a = graph.addVariable(FLOAT, {n}, "a"), b = graph.addVariable(FLOAT, {n}, "b");
    poputil::mapTensorLinearly(graph, a);
    poputil::mapTensorLinearly(graph, b);
    popops::addInPlace(graph, a, b, prog, "add");
    return double(n) / (graph.getTarget().getNumTiles() * 2.0);
  });
}

void BM_ReduceAdd(benchmark::State &state) {
  const std::size_t n = std::size_t(state.range(0));
  measure(state, [&](Graph &graph, Sequence &prog) {
    Tensor a = graph.addVariable(FLOAT, {n}, "a");
    poputil::mapTensorLinearly(graph, a);
    popops::reduce(graph, a, FLOAT, {0}, popops::Operation::ADD, prog, "reduce");
    return 0.0;
  });
}

void BM_ResNetConv3x3(benchmark::State &state, const char *partials) {
  measure(state, [&](Graph &graph, Sequence &prog) {
    const std::size_t batch = 4, size = 56, channels = 64;
    poplin::ConvParams params(HALF, HALF, batch, {size, size}, {3, 3}, channels, channels, 1,
                              {{0, 0}, {0, 0}, {1, 1}, {1, 1}, {1, 1}, {false, false}},
                              {{0, 0}, {0, 0}, {1, 1}, {0, 0}, {0, 0}, {false, false}},
                              {{0, 0}, {0, 0}, {1, 1}, {0, 0}, {0, 0}});
    const OptionFlags options{{"partialsType", partials}};
    Tensor in = poplin::createInput(graph, params, "in", options);
    Tensor weights = poplin::createWeights(graph, params, "weights", options);
    poplin::convolution(graph, in, weights, params, false, prog, "conv", options);
    const double macs = double(batch) * size * size * channels * channels * 9;
    return macs / (graph.getTarget().getNumTiles() * 64.0);
  });
}

/// MNIST's convolutions (examples/poplar/mnist.cpp, batch 40, float): 0 conv1 forward (28x28x1 ->
/// 24x24x10, 5x5), 1 conv2 forward (12x12x10 -> 8x8x20), 2 conv2's input gradient, 3 and 4 the
/// weight deltas of conv1 and conv2. Limit: the multiply-adds at the AMP's float rate (16).
void BM_MnistConv(benchmark::State &state, int op) {
  measure(state, [&](Graph &graph, Sequence &prog) {
    const std::size_t batch = 40;
    const bool first = op == 0 || op == 3;
    const poplin::ConvParams params = first ? poplin::ConvParams(FLOAT, batch, {28, 28}, {5, 5}, 1, 10, 1)
                                            : poplin::ConvParams(FLOAT, batch, {12, 12}, {5, 5}, 10, 20, 1);
    Tensor in = poplin::createInput(graph, params, "in");
    Tensor dy = poplin::createConvOutput(graph, params, "dy");
    if (op == 0 || op == 1) {
      poplin::convolution(graph, in, poplin::createWeights(graph, params, "w"), params, false, prog, "conv");
    } else if (op == 2) {
      const poplin::ConvParams grad = poplin::getGradientParams(params);
      Tensor w = poplin::createWeights(graph, params, "w");
      poplin::convolution(graph, dy, w, grad, true, prog, "conv.gx"); // w is [G][Ci of grad][Co of grad][k]
    } else {
      poplin::calculateWeightDeltas(graph, dy, in, params, prog, "conv.gw");
    }
    const double macs = double(batch) * params.getOutputSize(0) * params.getOutputSize(1) * 25 *
                        params.inputChannelsPerConvGroup * params.outputChannelsPerConvGroup;
    return macs / (graph.getTarget().getNumTiles() * 16.0);
  });
}

void BM_Gather(benchmark::State &state) {
  measure(state, [&](Graph &graph, Sequence &prog) {
    Tensor table = popops::createGatherInput(graph, HALF, {30522, 768}, 0, {}, "table");
    Tensor indices = graph.addVariable(UNSIGNED_INT, {512}, "indices");
    poputil::mapTensorLinearly(graph, indices);
    popops::gather(graph, table, indices, 0, prog, {}, "gather");
    return 0.0;
  });
}

void BM_TopK(benchmark::State &state) {
  measure(state, [&](Graph &graph, Sequence &prog) {
    const popops::TopKParams params(5, true, popops::SortOrder::DESCENDING);
    Tensor in = popops::createTopKInput(graph, FLOAT, {5888, 256}, params, "in");
    popops::topKWithPermutation(graph, prog, in, params, "topK");
    return 0.0;
  });
}

void BM_PartialTranspose(benchmark::State &state) {
  measure(state, [&](Graph &graph, Sequence &prog) {
    Tensor in = graph.addVariable(HALF, {94208, 16, 16}, "in");
    poputil::mapTensorLinearly(graph, in, 0, 256);
    ComputeSet cs = graph.addComputeSet("transpose");
    popops::rearrange::partialTranspose(graph, in, cs, "transpose");
    prog.add(Execute(cs));
    return 0.0;
  });
}

/// poplibs' GEMM benchmark (tests/CMakeLists.txt at poplibs commit 8dcde1ec, March 2021): its tool
/// general_matrix_multiply with `--m M --k K --n N --ignore-data` on a full Mk2 IPU: half A [M][K]
/// and B [K][N] made by createMatMulGroupedInputLHS/RHS (one group), their product by
/// matMulGrouped with poplin's default partials (float), remapOutputTensor and enableFastReduce
/// false, and C += product by scaledAddTo (alpha = beta = 1), C a clone of the product. The
/// cycles poplibs recorded for it on IpuModel2 (its tests/benchmark_results.csv;
/// docs/performance.md) are the counter ipu_model2_cycles; ratio is ours over theirs. Limit:
/// M K N at 64 multiply-adds a tile cycle (the AMP's fp16.16 rate; float partials run at half
/// of it, ipu-facts 3.2).
struct IpuModel2Gemm {
  std::size_t m, k, n;
  double cycles;
};
constexpr IpuModel2Gemm kIpuModel2Gemm[] = {
    {200, 64, 10000, 10128},     {200, 64, 20000, 16810},     {200, 64, 30000, 22142},
    {200, 256, 10000, 31355},    {200, 256, 20000, 50820},    {200, 256, 30000, 69554},
    {200, 512, 10000, 51094},    {200, 512, 20000, 88869},    {200, 512, 30000, 123952},
    {600, 64, 10000, 19998},     {600, 64, 20000, 36759},     {600, 64, 30000, 52059},
    {600, 256, 10000, 64309},    {600, 256, 20000, 118757},   {600, 256, 30000, 164997},
    {600, 512, 10000, 123229},   {600, 512, 20000, 228667},   {600, 512, 30000, 315397},
    {1000, 64, 10000, 29172},    {1000, 64, 20000, 53924},    {1000, 64, 30000, 76353},
    {1000, 256, 10000, 93032},   {1000, 256, 20000, 170108},  {1000, 256, 30000, 238742},
    {1000, 512, 10000, 178134},  {1000, 512, 20000, 324972},  {1000, 512, 30000, 506247},
};

void BM_PoplibsGemm(benchmark::State &state) {
  const IpuModel2Gemm &g = kIpuModel2Gemm[state.range(0)];
  measure(state, [&](Graph &graph, Sequence &prog) {
    const OptionFlags options{{"remapOutputTensor", "false"}, {"enableFastReduce", "false"}};
    Tensor a = poplin::createMatMulGroupedInputLHS(graph, HALF, HALF, {1, g.m, g.k}, {1, g.k, g.n}, "matA", options);
    Tensor b = poplin::createMatMulGroupedInputRHS(graph, HALF, HALF, {1, g.m, g.k}, {1, g.k, g.n}, "matB", options);
    Tensor product = poplin::matMulGrouped(graph, a, b, prog, HALF, "op(A) x op(B)", options);
    Tensor c = graph.clone(HALF, product, "matC");
    popops::scaledAddTo(graph, c, 1.0f, product, 1.0f, prog);
    return double(g.m) * double(g.k) * double(g.n) / (graph.getTarget().getNumTiles() * 64.0);
  });
  state.SetLabel(std::to_string(g.m) + "x" + std::to_string(g.k) + "x" + std::to_string(g.n));
  state.counters["ipu_model2_cycles"] = g.cycles;
  state.counters["ratio"] = state.counters["simulated_cycles"] / g.cycles;
}

/// poplibs' ResNet-50 convolution benchmarks (tests/CMakeLists.txt at poplibs commit 8dcde1ec):
/// its tool single_conv_layer with `--bias 0 --ignore-data` and each layer's field, kernel,
/// stride, padding and channels, batch 4, half with poplin's default partials (float), on a full
/// Mk2 IPU. Its programs: forward (convolution of prevAct by weights, both made by createInput
/// and createWeights), backward (the input gradient: where the gradient's canonical parameters
/// equal the layer's, weightsTransposeChansFlipXY into weights made for them and the forward
/// convolution; else convolution with the weights transposed and flipped) and weight update
/// (convolutionWeightUpdate with a half scale constant of -1); zDeltas made by createInput for
/// the gradient's parameters. The cycles poplibs recorded for forward plus backward and weight
/// update runs on IpuModel2 are the counter ipu_model2_cycles; ratio is ours over theirs. Limit:
/// the three passes' multiply-adds at 64 a tile cycle (the AMP's fp16.16 rate; float partials
/// run at half of it, ipu-facts 3.2).
struct IpuModel2Conv {
  const char *name;
  unsigned field, kernel, stride, padding;
  std::size_t in, out;
  double cycles;
};
constexpr IpuModel2Conv kIpuModel2Conv[] = {
    {"cnv", 224, 7, 2, 3, 4, 64, 148450},
    {"bm64L0_projection", 56, 1, 1, 0, 64, 256, 46489},
    {"bm64L0", 56, 1, 1, 0, 64, 64, 22016},
    {"bm64L0A1", 56, 3, 1, 1, 64, 64, 84246},
    {"bm64L1A0", 56, 1, 1, 0, 256, 64, 46064},
    {"bm128L0_projection", 56, 1, 2, 0, 256, 512, 79855},
    {"bm128L0A0", 56, 1, 2, 0, 256, 128, 36048},
    {"bm128L0A1", 28, 3, 1, 1, 128, 128, 82252},
    {"bm128L0A2", 28, 1, 1, 0, 128, 512, 46395},
    {"bm128L1A0", 28, 1, 1, 0, 512, 128, 47073},
    {"bm256L0_projection", 28, 1, 2, 0, 512, 1024, 80286},
    {"bm256L0A0", 28, 1, 2, 0, 512, 256, 33717},
    {"bm256L0A1", 14, 3, 1, 1, 256, 256, 84346},
    {"bm256L0A2", 14, 1, 1, 0, 256, 1024, 45271},
    {"bm256L1A0", 14, 1, 1, 0, 1024, 256, 46333},
    {"bm512L0_projection", 14, 1, 2, 0, 1024, 2048, 80440},
    {"bm512L0A0", 14, 1, 2, 0, 1024, 512, 33665},
    {"bm512L0A1", 7, 3, 1, 1, 512, 512, 81121},
    {"bm512L0A2", 7, 1, 1, 0, 512, 2048, 49368},
    {"bm512L1A0", 7, 1, 1, 0, 2048, 512, 50236},
};

void BM_PoplibsConv(benchmark::State &state) {
  const IpuModel2Conv &c = kIpuModel2Conv[state.range(0)];
  measure(state, [&](Graph &graph, Sequence &prog) {
    const unsigned pad = c.padding, stride = c.stride;
    const poplin::ConvParams params(HALF, HALF, 4, {c.field, c.field}, {c.kernel, c.kernel}, c.in, c.out, 1,
                                    {{0, 0}, {0, 0}, {1, 1}, {pad, pad}, {pad, pad}, {false, false}},
                                    {{0, 0}, {0, 0}, {1, 1}, {0, 0}, {0, 0}, {false, false}},
                                    {{0, 0}, {0, 0}, {stride, stride}, {0, 0}, {0, 0}});
    const poplin::ConvParams bwdParams = poplin::getGradientParams(params);
    Tensor prevAct = poplin::createInput(graph, params, "prevAct");
    Tensor weights = poplin::createWeights(graph, params, "weights");
    Tensor zDeltas = poplin::createInput(graph, bwdParams, "zDeltas");
    poplin::convolution(graph, prevAct, weights, params, false, prog, "fwd");
    if (params.canonicalize() == bwdParams.canonicalize()) {
      Tensor bwdWeights = poplin::createWeights(graph, bwdParams, "bwdWeights");
      poplin::weightsTransposeChansFlipXY(graph, weights, bwdWeights, prog, "bwd");
      poplin::convolution(graph, zDeltas, bwdWeights, bwdParams, false, prog, "bwd");
    } else {
      poplin::convolution(graph, zDeltas, weights, bwdParams, true, prog, "bwd");
    }
    Tensor scale = graph.addConstant(HALF, {}, -1.0f, "scale");
    graph.setTileMapping(scale, 0);
    poplin::convolutionWeightUpdate(graph, zDeltas, weights, prevAct, params, scale, prog, "wu");
    const double outputs = 4.0 * params.getOutputSize(0) * params.getOutputSize(1);
    const double macs = outputs * double(c.in) * double(c.out) * c.kernel * c.kernel;
    return 3 * macs / (graph.getTarget().getNumTiles() * 64.0);
  });
  state.SetLabel(c.name);
  state.counters["ipu_model2_cycles"] = c.cycles;
  state.counters["ratio"] = state.counters["simulated_cycles"] / c.cycles;
}

/// Simulation speed on poplin's AMP kernel alone: a matMul on a one-tile IPU, so that the run is
/// the product vertex (six workers streaming rows through the AMP, one bundle a cycle in the
/// steady state) with its weight loads, and no exchange. Each iteration is one Engine::run of the
/// compiled program. Counters: simulated cycles a run and per host second.
void BM_TileAmp(benchmark::State &state, Type in, Type partials) {
  IPUModel model;
  model.tilesPerIPU = 1;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  poplin::addCodelets(graph);
  Sequence prog;
  // 576 rows (96 a worker) of 128 by 64 outputs: 4.7 M multiply-adds (half; float 288 rows, so
  // that operands and results fit the planner's memory budget).
  addMatMul(graph, prog, in, partials, in == HALF ? 576 : 288, 128, 64);
  Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  uint64_t cycles = 0;
  for (auto _ : state) {
    engine.run(0);
    cycles += engine.getLastRunCycles();
  }
  state.counters["simulated_cycles"] = double(engine.getLastRunCycles());
  state.counters["simulated_cycles_per_s"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsRate);
}

} // namespace

BENCHMARK_CAPTURE(BM_TileAmp, half_half, HALF, HALF)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_TileAmp, half_float, HALF, FLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_TileAmp, float, FLOAT, FLOAT)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Gather)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_TopK)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_PartialTranspose)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_MnistConv, conv1_forward, 0)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_MnistConv, conv2_forward, 1)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_MnistConv, conv2_input_gradient, 2)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_MnistConv, conv1_weight_deltas, 3)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_MnistConv, conv2_weight_deltas, 4)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_ResNetConv3x3, half_partials, "half")->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_ResNetConv3x3, float_partials, "float")->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_MatMul, half, HALF)->Args({1024, 1024, 1024})->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_MatMul, float, FLOAT)->Args({1024, 1024, 1024})->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_AddInPlace)->Arg(1 << 24)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_ReduceAdd)->Arg(1 << 24)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_PoplibsGemm)->DenseRange(0, std::size(kIpuModel2Gemm) - 1)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_PoplibsConv)->DenseRange(0, std::size(kIpuModel2Conv) - 1)->Unit(benchmark::kSecond)->Iterations(1);

BENCHMARK_MAIN();
