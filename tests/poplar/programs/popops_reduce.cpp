// popops::reduce as a user calls it: every operation, over one, several and all dimensions of a
// 3-D input spread unevenly over four tiles (so outputs draw partials from several tiles and
// tiles hold pieces of many outputs), half input with float and half outputs, int and bool,
// a scale tensor and an update into an existing output, and the errors. Inputs are multiples of
// 1/4, so sums, products and squares are exact in float whatever the order of additions; the
// host reference is computed here.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/Reduce.hpp>
#include <popops/codelets.hpp>

#include <cmath>
#include <algorithm>
#include <functional>
#include <memory>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;
using popops::Operation;

namespace {

const std::size_t D0 = 4, D1 = 6, D2 = 5, N = D0 * D1 * D2;

float xAt(std::size_t i) { return float(int((i * 7) % 33) - 16) * 0.25f; }
float mAt(std::size_t i) { const float v[] = {0.5f, 1, 2, -1, 1.5f}; return v[(i * 3) % 5]; }
int iAt(std::size_t i) { return int((i * 13) % 41) - 20; }
bool bAt(std::size_t i) { return (i * 5) % 7 != 0; }

// The reference: `combine` over the elements whose index keeps the dimensions not in `dims`.
std::vector<double> hostReduce(const std::function<double(std::size_t)> &x, const std::vector<std::size_t> &dims,
                               double init, const std::function<double(double, double)> &combine) {
  const std::size_t shape[3] = {D0, D1, D2};
  std::vector<std::size_t> kept;
  for (std::size_t d = 0; d < 3; ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back(d);
  std::size_t numOut = 1;
  for (std::size_t d : kept) numOut *= shape[d];
  std::vector<double> out(numOut, init);
  for (std::size_t i = 0; i < N; ++i) {
    const std::size_t idx[3] = {i / (D1 * D2), (i / D2) % D1, i % D2};
    std::size_t o = 0;
    for (std::size_t d : kept) o = o * shape[d] + idx[d];
    out[o] = combine(out[o], x(i));
  }
  return out;
}

struct Check {
  std::string name;
  Tensor t;
  std::vector<double> want;
  double tolerance;
};
std::vector<Check> checks;

void check(Graph &graph, const std::string &name, const Tensor &t, std::vector<double> want, double tol = 0) {
  graph.createHostRead(name, t);
  checks.push_back({name, t, want, tol});
}

void printError(const std::function<void()> &f) {
  try {
    f();
    std::cout << "no error\n";
  } catch (const poplar_error &e) {
    std::cout << "error: " << e.what() << "\n";
  }
}

} // namespace

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  Device device = ipuModel.createDevice();
  const Target &target = device.getTarget();
  Graph graph(target);
  popops::addCodelets(graph);

  std::vector<float> xv(N), mv(N);
  std::vector<int> iv(N);
  std::vector<uint16_t> hv(N);
  std::unique_ptr<bool[]> bv(new bool[N]);
  for (std::size_t i = 0; i < N; ++i) xv[i] = xAt(i), mv[i] = mAt(i), iv[i] = iAt(i), bv[i] = bAt(i);
  copyFloatToDeviceHalf(target, xv.data(), hv.data(), N);
  Tensor x = graph.addConstant<float>(FLOAT, {D0, D1, D2}, xv.data(), "x");
  Tensor m = graph.addConstant<float>(FLOAT, {D0, D1, D2}, mv.data(), "m");
  Tensor ints = graph.addConstant<int>(INT, {D0, D1, D2}, iv.data(), "ints");
  Tensor h = graph.addConstantHalf(HALF, {D0, D1, D2}, hv.data(), "h");
  Tensor flags = graph.addConstant<bool>(BOOL, {D0, D1, D2}, bv.get(), "flags");
  // Uneven pieces: tile t holds flattened elements [cut[t], cut[t+1]), cutting rows anywhere.
  const std::size_t cut[] = {0, 17, 29, 83, N};
  for (Tensor t : {x, m, ints, h, flags})
    for (unsigned tile = 0; tile < 4; ++tile) graph.setTileMapping(t.flatten().slice(cut[tile], cut[tile + 1]), tile);

  auto X = [](std::size_t i) { return double(xAt(i)); };
  auto add = [](double a, double b) { return a + b; };
  Sequence prog;
  check(graph, "add dim 1", popops::reduce(graph, x, {1}, Operation::ADD, prog), hostReduce(X, {1}, 0, add));
  check(graph, "add dims 0 2", popops::reduce(graph, x, {0, 2}, Operation::ADD, prog), hostReduce(X, {0, 2}, 0, add));
  check(graph, "add all", popops::reduce(graph, x, {2, 0, 1}, Operation::ADD, prog), hostReduce(X, {0, 1, 2}, 0, add));
  check(graph, "add none", popops::reduce(graph, x, {}, Operation::ADD, prog), hostReduce(X, {}, 0, add));
  check(graph, "mul dim 2", popops::reduce(graph, m, {2}, Operation::MUL, prog),
        hostReduce([](std::size_t i) { return double(mAt(i)); }, {2}, 1, [](double a, double b) { return a * b; }));
  check(graph, "max dim 0", popops::reduce(graph, x, {0}, Operation::MAX, prog),
        hostReduce(X, {0}, -INFINITY, [](double a, double b) { return std::max(a, b); }));
  check(graph, "min dims 1 2", popops::reduce(graph, x, {1, 2}, Operation::MIN, prog),
        hostReduce(X, {1, 2}, INFINITY, [](double a, double b) { return std::min(a, b); }));
  check(graph, "square add", popops::reduce(graph, x, {1, 2}, Operation::SQUARE_ADD, prog),
        hostReduce(X, {1, 2}, 0, [](double a, double b) { return a + b * b; }));
  check(graph, "log add", popops::reduce(graph, x, {2}, Operation::LOG_ADD, prog),
        hostReduce(X, {2}, -INFINITY, [](double a, double b) {
          const double hi = std::max(a, b), lo = std::min(a, b);
          return hi == -INFINITY ? hi : hi + std::log1p(std::exp(lo - hi));
        }), 1e-6);
  check(graph, "half to float", popops::reduce(graph, h, FLOAT, {0}, Operation::ADD, prog), hostReduce(X, {0}, 0, add));
  check(graph, "half to half", popops::reduce(graph, h, {0}, Operation::ADD, prog), hostReduce(X, {0}, 0, add));
  check(graph, "int add", popops::reduce(graph, ints, {1}, Operation::ADD, prog),
        hostReduce([](std::size_t i) { return double(iAt(i)); }, {1}, 0, add));
  check(graph, "int max", popops::reduce(graph, ints, {0, 1}, Operation::MAX, prog),
        hostReduce([](std::size_t i) { return double(iAt(i)); }, {0, 1}, -1e9,
                   [](double a, double b) { return std::max(a, b); }));
  auto B = [](std::size_t i) { return double(bAt(i)); };
  check(graph, "logical and", popops::reduce(graph, flags, {2}, Operation::LOGICAL_AND, prog),
        hostReduce(B, {2}, 1, [](double a, double b) { return double(a && b); }));
  check(graph, "logical or", popops::reduce(graph, flags, {0, 1}, Operation::LOGICAL_OR, prog),
        hostReduce(B, {0, 1}, 0, [](double a, double b) { return double(a || b); }));
  // A scale, and an update into an existing output: out = 10 + 0.5 * sum.
  Tensor scale = graph.addConstant<float>(FLOAT, {}, 0.5f, "scale");
  graph.setTileMapping(scale, 3);
  Tensor acc = graph.addVariable(FLOAT, {D1}, "acc");
  for (unsigned j = 0; j < D1; ++j) graph.setTileMapping(acc[j], j % 4);
  Tensor ten = graph.addConstant<float>(FLOAT, {D1}, 10.0f, "ten");
  graph.setTileMapping(ten, 0);
  prog.add(Copy(ten, acc));
  popops::reduceWithOutput(graph, x, acc, {0, 2}, popops::ReduceParams(Operation::ADD, true, scale), prog);
  std::vector<double> scaled = hostReduce(X, {0, 2}, 0, add);
  for (double &v : scaled) v = 10 + 0.5 * v;
  check(graph, "scaled update", acc, scaled);

  Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  unsigned bad = 0;
  for (const Check &c : checks) {
    const std::size_t n = c.t.numElements();
    std::vector<double> got(n);
    if (c.t.elementType() == FLOAT) {
      std::vector<float> v(n);
      engine.readTensor(c.name, v.data(), v.data() + n);
      for (std::size_t i = 0; i < n; ++i) got[i] = v[i];
    } else if (c.t.elementType() == HALF) {
      std::vector<uint16_t> raw(n);
      std::vector<float> v(n);
      engine.readTensor(c.name, raw.data(), raw.data() + n);
      copyDeviceHalfToFloat(target, raw.data(), v.data(), n);
      for (std::size_t i = 0; i < n; ++i) got[i] = v[i];
    } else if (c.t.elementType() == INT) {
      std::vector<int> v(n);
      engine.readTensor(c.name, v.data(), v.data() + n);
      for (std::size_t i = 0; i < n; ++i) got[i] = v[i];
    } else {
      std::vector<unsigned char> v(n);
      engine.readTensor(c.name, v.data(), v.data() + n);
      for (std::size_t i = 0; i < n; ++i) got[i] = v[i];
    }
    unsigned wrong = 0;
    std::string first;
    for (std::size_t i = 0; i < n; ++i) {
      const bool ok = c.tolerance == 0 ? got[i] == c.want[i]
                                       : std::fabs(got[i] - c.want[i]) <= c.tolerance * std::fabs(c.want[i]);
      if (!ok && wrong++ == 0)
        first = " (first at " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", want " +
                std::to_string(c.want[i]) + ")";
    }
    std::cout << c.name << " " << c.t.shapeToString() << ": "
              << (wrong ? std::to_string(wrong) + " wrong" + first : "ok") << "\n";
    bad += wrong;
  }

  // A sum over 16 tiles: 6 partials a tile, 96 for the one output, reduced in a tree (groups of
  // 32 on their first partial's tile, then the 3 results on the output's tile).
  {
    IPUModel model16;
    model16.tilesPerIPU = 16;
    Device device16 = model16.createDevice();
    Graph graph16(device16.getTarget());
    const std::size_t n = 16 * 96;
    std::vector<float> v(n);
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) v[i] = xAt(i), sum += v[i];
    Tensor big = graph16.addConstant<float>(FLOAT, {n}, v.data(), "big");
    for (unsigned tile = 0; tile < 16; ++tile) graph16.setTileMapping(big.slice(tile * 96, tile * 96 + 96), tile);
    std::vector<ComputeSet> css;
    Tensor total = popops::reduce(graph16, big, {0}, Operation::ADD, css);
    Sequence prog16;
    for (const ComputeSet &cs : css) prog16.add(Execute(cs));
    graph16.createHostRead("total", total);
    Engine engine16(graph16, prog16);
    engine16.load(device16);
    engine16.run(0);
    float got = 0;
    engine16.readTensor("total", &got, &got + 1);
    std::cout << "tree sum over 16 tiles in " << css.size() << " compute sets: " << got << " (want " << sum << ")\n";
    bad += got != sum;

    // Row sums of a [40][10] whose column c lies on tile c. reduce() puts each output on the
    // tile of its row's middle element (column 5: tile 5). reduceWithOutput into 40 outputs on
    // tile 15 would gather 400 one-element partials there: the sums are made where the partials
    // are (column 5's tile) and one more compute set moves them to the output.
    Tensor rows = graph16.addVariable(FLOAT, {40, 10}, "rows");
    for (unsigned c = 0; c < 10; ++c) graph16.setTileMapping(rows.slice(c, c + 1, 1), c);
    std::vector<ComputeSet> rowCss, spreadCss;
    Tensor sums = popops::reduce(graph16, rows, {1}, Operation::ADD, rowCss);
    const auto sumTiles = graph16.getTileMapping(sums);
    std::cout << "row sums: " << rowCss.size() << " compute sets; outputs on tile 5: "
              << (sumTiles[5].size() == 1 ? sumTiles[5][0].size() : 0) << " of 40\n";
    Tensor onOne = graph16.addVariable(FLOAT, {40}, "onOne");
    graph16.setTileMapping(onOne, 15);
    popops::reduceWithOutput(graph16, rows, onOne, {1}, Operation::ADD, spreadCss);
    std::cout << "row sums onto one tile: " << spreadCss.size() << " compute sets\n";
    Sequence rowProg;
    for (const std::vector<ComputeSet> *list : {&rowCss, &spreadCss})
      for (const ComputeSet &cs : *list) rowProg.add(Execute(cs));
    std::vector<float> rv(400);
    for (std::size_t i = 0; i < rv.size(); ++i) rv[i] = xAt(i + 7);
    graph16.createHostWrite("rows", rows);
    graph16.createHostRead("sums", sums);
    graph16.createHostRead("onOne", onOne);
    Engine rowEngine(graph16, rowProg);
    rowEngine.load(device16);
    rowEngine.writeTensor("rows", rv.data(), rv.data() + rv.size());
    rowEngine.run(0);
    std::vector<float> gotSums(40), gotOne(40);
    rowEngine.readTensor("sums", gotSums.data(), gotSums.data() + 40);
    rowEngine.readTensor("onOne", gotOne.data(), gotOne.data() + 40);
    unsigned wrongRows = 0;
    for (std::size_t r = 0; r < 40; ++r) {
      float want = 0;
      for (std::size_t c = 0; c < 10; ++c) want += rv[r * 10 + c];
      // Summed in some order of the ten: within a few units in the last place.
      wrongRows += std::fabs(gotSums[r] - want) > 1e-5f * (1 + std::fabs(want));
      wrongRows += std::fabs(gotOne[r] - want) > 1e-5f * (1 + std::fabs(want));
    }
    std::cout << "row sums: " << (wrongRows ? std::to_string(wrongRows) + " wrong" : "ok") << "\n";
    bad += wrongRows;

    // Channels-last: a [4][6][5][C] variable seen as [4][C][6][5] (a convolution's output as
    // poplin writes it), an image row a tile, reduced over all but the channels (a bias
    // gradient): each tile's elements are rows of C consecutive outputs, which the first stage
    // reads down the columns. With 3 channels the rows are also cut in blocks (fewer columns
    // than workers). Small integers, so every order of the sums is exact.
    for (std::size_t C : {std::size_t(10), std::size_t(3)}) {
      Tensor nhwc = graph16.addVariable(FLOAT, {4, 6, 5, C}, "nhwc" + std::to_string(C));
      for (unsigned n = 0; n < 4; ++n)
        for (unsigned h = 0; h < 6; ++h) graph16.setTileMapping(nhwc[n][h], (n * 6 + h) % 16);
      const Tensor nchw = nhwc.dimShuffle({0, 3, 1, 2});
      std::vector<ComputeSet> css;
      const Tensor sum = popops::reduce(graph16, nchw, {0, 2, 3}, Operation::ADD, css);
      const Tensor squares = popops::reduce(graph16, nchw, {0, 2, 3}, Operation::SQUARE_ADD, css);
      const Tensor most = popops::reduce(graph16, nchw, {0, 2, 3}, Operation::MAX, css);
      Sequence p;
      for (const ComputeSet &cs : css) p.add(Execute(cs));
      const std::string tag = std::to_string(C);
      graph16.createHostWrite("nhwc" + tag, nhwc);
      graph16.createHostRead("sum" + tag, sum);
      graph16.createHostRead("squares" + tag, squares);
      graph16.createHostRead("most" + tag, most);
      std::vector<float> in(4 * 6 * 5 * C);
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = float(int((i * 7 + 3) % 11) - 5);
      Engine e(graph16, p);
      e.load(device16);
      e.writeTensor("nhwc" + tag, in.data(), in.data() + in.size());
      e.run(0);
      std::vector<float> gotSum(C), gotSquares(C), gotMost(C);
      e.readTensor("sum" + tag, gotSum.data(), gotSum.data() + C);
      e.readTensor("squares" + tag, gotSquares.data(), gotSquares.data() + C);
      e.readTensor("most" + tag, gotMost.data(), gotMost.data() + C);
      unsigned wrong = 0;
      for (std::size_t c = 0; c < C; ++c) {
        float s = 0, q = 0, mx = -INFINITY;
        for (std::size_t i = c; i < in.size(); i += C) s += in[i], q += in[i] * in[i], mx = std::max(mx, in[i]);
        wrong += (gotSum[c] != s) + (gotSquares[c] != q) + (gotMost[c] != mx);
      }
      std::cout << "channels-last, " << C << " channels, " << css.size() << " compute sets: "
                << (wrong ? std::to_string(wrong) + " wrong" : "ok") << "\n";
      bad += wrong;
    }
  }

  Sequence bad1;
  printError([&] { popops::reduce(graph, x, {3}, Operation::ADD, bad1); });
  printError([&] { popops::reduce(graph, x, {1, 1}, Operation::ADD, bad1); });
  printError([&] { popops::reduce(graph, x, {1}, Operation::LOGICAL_AND, bad1); });
  printError([&] { popops::reduceWithOutput(graph, x, acc, {1}, Operation::ADD, bad1); });
  printError([&] { popops::reduce(graph, ints, {1}, Operation::LOG_ADD, bad1); });
  return bad ? 1 : 0;
}
