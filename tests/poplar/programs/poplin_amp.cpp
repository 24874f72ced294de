// poplin's matrix products on the AMP (docs/poplin.md "The AMP path"): float x float with float
// partials (f32sisov2amp), half x half with half partials (f16v4hihov4amp) and with float
// partials (f16v4sisoamp, 8 outputs a pass), right operands
// in rows (reordered on the tiles) and as transposed views (gathered as they lie), a depth split
// whose partials popops::reduce sums, rows shared unevenly by the six workers, and a shape the
// AMP does not take (the vector unit's vertex runs it), and an output the caller mapped unevenly
// (7 floats on one tile: whole 64-bit vectors fewer than two a worker, and a tail element). Every element is a small multiple of 1/4
// and every sum stays below 128, so every result is exact in half and float whatever the order.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/codelets.hpp>
#include <popops/codelets.hpp>

#include <iostream>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;

namespace {

float val(std::size_t i, std::size_t j, unsigned seed) { return float(int((i * 7 + j * 3 + seed * 5) % 9) - 4) * 0.25f; }

std::vector<float> matrix(std::size_t rows, std::size_t cols, unsigned seed) {
  std::vector<float> v(rows * cols);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) v[i * cols + j] = val(i, j, seed);
  return v;
}

std::vector<float> transposed(const std::vector<float> &v, std::size_t rows, std::size_t cols) {
  std::vector<float> t(v.size());
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) t[j * rows + i] = v[i * cols + j];
  return t;
}

std::vector<float> product(const std::vector<float> &a, const std::vector<float> &b, std::size_t rows,
                           std::size_t depth, std::size_t cols) {
  std::vector<float> c(rows * cols);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      double s = 0;
      for (std::size_t d = 0; d < depth; ++d) s += double(a[i * depth + d]) * b[d * cols + j];
      c[i * cols + j] = float(s);
    }
  return c;
}

struct Case {
  std::string name;
  Type type;
  std::size_t m, k, n;
  bool bTransposed;
  OptionFlags options;
  bool unevenOutput;
  Tensor out;
  std::vector<float> want;
};

} // namespace

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  Device device = ipuModel.createDevice();
  const Target &target = device.getTarget();
  Graph graph(target);
  popops::addCodelets(graph);
  poplin::addCodelets(graph);
  Sequence prog;

  const OptionFlags halfPartials{{"partialsType", "half"}};
  const OptionFlags tight{{"availableMemoryProportion", "0.07"}};
  std::vector<Case> cases = {
      {"float", FLOAT, 40, 64, 48, false, {}, false, {}, {}},
      {"float, B transposed", FLOAT, 23, 24, 32, true, {}, false, {}, {}},
      {"half", HALF, 36, 32, 32, false, halfPartials, false, {}, {}},
      {"half, B transposed", HALF, 19, 48, 16, true, halfPartials, false, {}, {}},
      {"half, float partials", HALF, 36, 32, 24, false, {}, false, {}, {}},
      {"half, float partials, B transposed, depth split", HALF, 20, 256, 8, true, tight, false, {}, {}},
      {"float, depth split", FLOAT, 24, 512, 16, false, tight, false, {}, {}},
      {"float, depth split, output mapped unevenly", FLOAT, 24, 512, 16, false, tight, true, {}, {}},
      {"float, 17 rows (vector unit)", FLOAT, 17, 16, 16, false, {}, false, {}, {}},
  };
  unsigned seed = 1;
  for (Case &c : cases) {
    poplin::matMulReportPlan(std::cout, graph, c.type, c.type, {c.m, c.k}, {c.k, c.n}, c.options);
    const std::vector<float> a = matrix(c.m, c.k, seed), b = matrix(c.k, c.n, seed + 1);
    seed += 2;
    std::vector<uint16_t> ah(a.size()), bh(b.size());
    copyFloatToDeviceHalf(target, a.data(), ah.data(), a.size());
    const std::vector<float> bStored = c.bTransposed ? transposed(b, c.k, c.n) : b;
    copyFloatToDeviceHalf(target, bStored.data(), bh.data(), b.size());
    const std::vector<std::size_t> bShape = c.bTransposed ? std::vector<std::size_t>{c.n, c.k} : std::vector<std::size_t>{c.k, c.n};
    Tensor A = c.type == HALF ? graph.addConstantHalf(HALF, {c.m, c.k}, ah.data(), c.name + "/A")
                              : graph.addConstant<float>(FLOAT, {c.m, c.k}, a.data(), c.name + "/A");
    Tensor B = c.type == HALF ? graph.addConstantHalf(HALF, bShape, bh.data(), c.name + "/B")
                              : graph.addConstant<float>(FLOAT, bShape, bStored.data(), c.name + "/B");
    graph.setTileMapping(A, 1);
    graph.setTileMapping(B, 2);
    if (c.unevenOutput) {
      c.out = graph.addVariable(FLOAT, {c.m, c.n}, c.name);
      graph.setTileMapping(c.out.flatten().slice(0, 7), 0);
      graph.setTileMapping(c.out.flatten().slice(7, c.m * c.n), 3);
      poplin::matMulWithOutput(graph, A, B, c.out, prog, c.name, c.options);
    } else {
      c.out = poplin::matMul(graph, A, c.bTransposed ? B.transpose() : B, prog, FLOAT, c.name, c.options);
    }
    c.want = product(a, b, c.m, c.k, c.n);
    graph.createHostRead(c.name, c.out);
  }

  Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  unsigned bad = 0;
  for (const Case &c : cases) {
    std::vector<float> got(c.out.numElements());
    engine.readTensor(c.name, got.data(), got.data() + got.size());
    unsigned wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != c.want[i];
    std::cout << c.name << " " << c.out.shapeToString() << ": " << (wrong ? std::to_string(wrong) + " wrong" : "ok")
              << "\n";
    bad += wrong;
  }
  return bad ? 1 : 0;
}
