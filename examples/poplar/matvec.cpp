// A matrix-vector product y = A x over every tile of an IPU, in the style of the Poplar tutorials:
// A (rows x cols) and x arrive through host-to-device FIFOs, y leaves through a device-to-host
// FIFO. Each row is split into blocks; block (r, b) of A lives on one tile with the vertex that
// multiplies it by block b of x (which the exchange broadcasts to every tile that needs it); a
// second compute set sums each row's partial products.
//
//   source build/enable.sh
//   g++ --std=c++11 matvec.cpp -lpoplar -lpoputil -o matvec
//   ./matvec [rows cols blocks [--time]]      (default 10000 1000 8; --time: host seconds too)
#include <poplar/DeviceManager.hpp>
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <chrono>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;

int main(int argc, char **argv) {
  const unsigned rows = argc > 1 ? unsigned(std::atoi(argv[1])) : 10000;
  const unsigned cols = argc > 2 ? unsigned(std::atoi(argv[2])) : 1000;
  const unsigned blocks = argc > 3 ? unsigned(std::atoi(argv[3])) : 8;
  const unsigned blockCols = (cols + blocks - 1) / blocks;
  const auto t0 = std::chrono::steady_clock::now();

  IPUModel ipuModel("ipu2");
  Device device = ipuModel.createDevice();
  const unsigned tiles = device.getTarget().getNumTiles();
  Graph graph(device.getTarget());
  graph.addCodelets("matvec_codelets.cpp");

  Tensor A = graph.addVariable(FLOAT, {rows, cols}, "A");
  Tensor x = graph.addVariable(FLOAT, {cols}, "x");
  Tensor partials = graph.addVariable(FLOAT, {rows, blocks}, "partials");
  Tensor y = graph.addVariable(FLOAT, {rows}, "y");

  ComputeSet dots = graph.addComputeSet("dots");
  ComputeSet sums = graph.addComputeSet("sums");
  for (unsigned b = 0; b < blocks; ++b) graph.setTileMapping(x.slice(b * blockCols, std::min(cols, (b + 1) * blockCols)), b % tiles);
  for (unsigned r = 0; r < rows; ++r) {
    for (unsigned b = 0; b < blocks; ++b) {
      const unsigned tile = (r * blocks + b) % tiles;
      const unsigned begin = b * blockCols, end = std::min(cols, begin + blockCols);
      Tensor block = A[r].slice(begin, end);
      graph.setTileMapping(block, tile);
      graph.setTileMapping(partials[r][b], tile);
      VertexRef v = graph.addVertex(dots, "PartialDot", {{"row", block}, {"x", x.slice(begin, end)}, {"partial", partials[r][b]}});
      graph.setTileMapping(v, tile);
    }
    const unsigned tile = (r * blocks) % tiles;
    graph.setTileMapping(y[r], tile);
    VertexRef v = graph.addVertex(sums, "RowSum", {{"partials", partials[r]}, {"y", y[r]}});
    graph.setTileMapping(v, tile);
  }

  DataStream inA = graph.addHostToDeviceFIFO("A", FLOAT, rows * cols);
  DataStream inX = graph.addHostToDeviceFIFO("x", FLOAT, cols);
  DataStream outY = graph.addDeviceToHostFIFO("y", FLOAT, rows);
  Sequence prog({Copy(inA, A), Copy(inX, x), Execute(dots), Execute(sums), Copy(y, outY)});

  const auto t1 = std::chrono::steady_clock::now();
  Engine engine(graph, prog);
  engine.load(device);
  const auto t2 = std::chrono::steady_clock::now();

  std::vector<float> hostA(size_t(rows) * cols), hostX(cols), hostY(rows);
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned c = 0; c < cols; ++c) hostA[size_t(r) * cols + c] = float((r + 2 * c) % 7) - 3.0f;
  for (unsigned c = 0; c < cols; ++c) hostX[c] = float(c % 5) * 0.5f;
  engine.connectStream("A", hostA.data());
  engine.connectStream("x", hostX.data());
  engine.connectStream("y", hostY.data());
  engine.run(0);
  const auto t3 = std::chrono::steady_clock::now();

  // Check against the host: every product and sum here is exact in float.
  unsigned wrong = 0;
  for (unsigned r = 0; r < rows; ++r) {
    double want = 0;
    for (unsigned c = 0; c < cols; ++c) want += double(hostA[size_t(r) * cols + c]) * hostX[c];
    if (std::fabs(hostY[r] - want) > 1e-3 * (1 + std::fabs(want))) ++wrong;
  }
  auto secs = [](std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  std::cout << "matvec " << rows << "x" << cols << " in " << blocks << " blocks: " << graph.getNumVertices()
            << " vertices on " << tiles << " tiles\n";
  std::cout << "y[0] = " << hostY[0] << ", y[" << rows - 1 << "] = " << hostY[rows - 1] << "; " << wrong << " wrong\n";
  std::cout << "simulated cycles: " << engine.getLastRunCycles() << "\n";
  if (argc > 4 && std::string(argv[4]) == "--time")
    std::cout << "host seconds: graph " << secs(t0, t1) << ", compile + load " << secs(t1, t2) << " ("
              << 1e6 * secs(t1, t2) / graph.getNumVertices() << " us a vertex), run " << secs(t2, t3) << "\n";
  return wrong ? 1 : 0;
}
