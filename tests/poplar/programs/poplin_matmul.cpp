// poplin's matrix multiplications as a user calls them: operands created for the plan and
// operands mapped anywhere (one of them a transposed view), float and half, a depth split over
// tiles whose partials popops::reduce sums, the grouped form, matMulAcc, the reported plan and
// the errors. Every element is a small multiple of 1/4, so every product and sum is exact in
// float whatever the order; the host reference is computed here.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/codelets.hpp>
#include <popops/codelets.hpp>

#include <functional>
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

// (rows x depth) times (depth x cols), row-major.
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

struct Check {
  std::string name;
  Tensor t;
  std::vector<float> want;
};
std::vector<Check> checks;

void printError(const std::function<void()> &f) {
  try {
    f();
    std::cout << "no error\n";
  } catch (const poplar_error &e) {
    std::cout << "error (" << e.type << "): " << e.what() << "\n";
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
  poplin::addCodelets(graph);
  Sequence prog;

  // 13 x 20 times 20 x 7, operands created for the plan, written from the host.
  const std::size_t M = 13, K = 20, N = 7;
  Tensor A = poplin::createMatMulInputLHS(graph, FLOAT, {M, K}, {K, N}, "A");
  Tensor B = poplin::createMatMulInputRHS(graph, FLOAT, {M, K}, {K, N}, "B");
  graph.createHostWrite("A", A);
  graph.createHostWrite("B", B);
  Tensor C = poplin::matMul(graph, A, B, prog, "C");
  const std::vector<float> av = matrix(M, K, 1), bv = matrix(K, N, 2);
  checks.push_back({"created operands", C, product(av, bv, M, K, N)});

  // Operands mapped by hand: A' all on tile 3, B' the transpose of a [7, 20] constant on tile 1.
  const std::vector<float> btv = matrix(N, K, 3);
  std::vector<float> bv2(K * N);
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < K; ++j) bv2[j * N + i] = btv[i * K + j];
  Tensor A2 = graph.addConstant<float>(FLOAT, {M, K}, matrix(M, K, 4).data(), "A2");
  Tensor Bt = graph.addConstant<float>(FLOAT, {N, K}, btv.data(), "Bt");
  graph.setTileMapping(A2, 3);
  graph.setTileMapping(Bt, 1);
  checks.push_back({"mapped by hand, B transposed", poplin::matMul(graph, A2, Bt.transpose(), prog, "C2"),
                    product(matrix(M, K, 4), bv2, M, K, N)});

  // A transposed view as the left operand: (A2')^T with A2' a [20, 13] constant on tile 2.
  const std::vector<float> atv = matrix(K, M, 9);
  std::vector<float> av3(M * K);
  for (std::size_t i = 0; i < K; ++i)
    for (std::size_t j = 0; j < M; ++j) av3[j * K + i] = atv[i * M + j];
  Tensor At = graph.addConstant<float>(FLOAT, {K, M}, atv.data(), "At");
  graph.setTileMapping(At, 2);
  checks.push_back({"A transposed", poplin::matMul(graph, At.transpose(), B, prog, "C2t"), product(av3, bv, M, K, N)});

  // half operands, float output.
  std::vector<uint16_t> ah(M * K), bh(K * N);
  copyFloatToDeviceHalf(target, matrix(M, K, 5).data(), ah.data(), M * K);
  copyFloatToDeviceHalf(target, matrix(K, N, 6).data(), bh.data(), K * N);
  Tensor Ah = graph.addConstantHalf(HALF, {M, K}, ah.data(), "Ah");
  Tensor Bh = graph.addConstantHalf(HALF, {K, N}, bh.data(), "Bh");
  graph.setTileMapping(Ah, 0);
  graph.setTileMapping(Bh, 2);
  checks.push_back({"half in, float out", poplin::matMul(graph, Ah, Bh, prog, FLOAT, "Ch"),
                    product(matrix(M, K, 5), matrix(K, N, 6), M, K, N)});

  // A long depth in little memory: the plan splits the depth, popops::reduce sums the partials.
  const std::size_t K3 = 600;
  const OptionFlags tight{{"availableMemoryProportion", "0.01"}};
  poplin::matMulReportPlan(std::cout, graph, FLOAT, FLOAT, {4, K3}, {K3, 3}, tight);
  Tensor A3 = poplin::createMatMulInputLHS(graph, FLOAT, {4, K3}, {K3, 3}, "A3", tight);
  Tensor B3 = poplin::createMatMulInputRHS(graph, FLOAT, {4, K3}, {K3, 3}, "B3", tight);
  graph.createHostWrite("A3", A3);
  graph.createHostWrite("B3", B3);
  checks.push_back({"depth split", poplin::matMul(graph, A3, B3, prog, "C3", tight),
                    product(matrix(4, K3, 7), matrix(K3, 3, 8), 4, K3, 3)});

  // Grouped: 3 products of 5 x 8 by 8 x 4.
  const std::size_t G = 3, M4 = 5, K4 = 8, N4 = 4;
  Tensor A4 = poplin::createMatMulGroupedInputLHS(graph, FLOAT, FLOAT, {G, M4, K4}, {G, K4, N4}, "A4");
  Tensor B4 = poplin::createMatMulGroupedInputRHS(graph, FLOAT, FLOAT, {G, M4, K4}, {G, K4, N4}, "B4");
  graph.createHostWrite("A4", A4);
  graph.createHostWrite("B4", B4);
  std::vector<float> a4, b4, c4;
  for (unsigned g = 0; g < G; ++g) {
    std::vector<float> ag = matrix(M4, K4, 10 + g), bg = matrix(K4, N4, 20 + g), cg = product(ag, bg, M4, K4, N4);
    a4.insert(a4.end(), ag.begin(), ag.end());
    b4.insert(b4.end(), bg.begin(), bg.end());
    c4.insert(c4.end(), cg.begin(), cg.end());
  }
  checks.push_back({"grouped", poplin::matMulGrouped(graph, A4, B4, prog, FLOAT, "C4"), c4});
  // transposeGroupedMatrix: B4 transposed twice is B4; A4 x (B4^T)^T is the same product.
  const Tensor B4t = poplin::transposeGroupedMatrix(B4);
  std::cout << "transposeGroupedMatrix: " << B4.shapeToString() << " -> " << B4t.shapeToString() << "\n";
  checks.push_back({"grouped, B transposed back", poplin::matMulGrouped(graph, A4, poplin::transposeGroupedMatrix(B4t), prog, FLOAT, "C4t"), c4});

  // matMulAcc: C5 = C + 0.5 A B (C5 starts as a copy of C's value).
  Tensor C5 = graph.clone(C, "C5");
  prog.add(Copy(C, C5));
  poplin::matMulAcc(graph, C5, 0.5f, A, B, prog, "acc");
  std::vector<float> c5 = product(av, bv, M, K, N);
  for (float &x : c5) x *= 1.5f;
  checks.push_back({"matMulAcc", C5, c5});

  for (const Check &c : checks) graph.createHostRead(c.name, c.t);
  Engine engine(graph, prog);
  engine.load(device);
  engine.writeTensor("A", av.data(), av.data() + av.size());
  engine.writeTensor("B", bv.data(), bv.data() + bv.size());
  const std::vector<float> a3 = matrix(4, K3, 7), b3 = matrix(K3, 3, 8);
  engine.writeTensor("A3", a3.data(), a3.data() + a3.size());
  engine.writeTensor("B3", b3.data(), b3.data() + b3.size());
  engine.writeTensor("A4", a4.data(), a4.data() + a4.size());
  engine.writeTensor("B4", b4.data(), b4.data() + b4.size());
  engine.run(0);
  unsigned bad = 0;
  for (const Check &c : checks) {
    std::vector<float> got(c.t.numElements());
    engine.readTensor(c.name, got.data(), got.data() + got.size());
    unsigned wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != c.want[i];
    std::cout << c.name << " " << c.t.shapeToString() << ": " << (wrong ? std::to_string(wrong) + " wrong" : "ok")
              << "\n";
    bad += wrong;
  }

  Sequence bad1;
  printError([&] { poplin::matMul(graph, A, A, bad1); });
  printError([&] { poplin::matMul(graph, A.flatten(), B, bad1); });
  printError([&] { poplin::matMul(graph, Ah, B, bad1); });
  printError([&] { poplin::matMul(graph, A, B, bad1, "bad", {{"partialsType", "double"}}); });
  printError([&] { poplin::matMul(graph, A, B, bad1, "bad", {{"availableMemoryProportion", "2"}}); });
  printError([&] { poplin::matMul(graph, A, B, bad1, "bad", {{"noSuchOption", "1"}}); });
  printError([&] {
    poplin::createMatMulInputLHS(graph, FLOAT, {4000, 4000}, {4000, 4000}, "big", {{"availableMemoryProportion", "0.1"}});
  });
  printError([&] { poplin::transposeGroupedMatrix(A); });
  return bad ? 1 : 0;
}
