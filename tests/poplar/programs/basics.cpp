// Variables, constants and copies between tiles, a host write and read, PrintTensor of vectors,
// matrices and scalars, as the Poplar tutorials begin. Every value crosses the simulated exchange
// or the host link.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <iostream>
#include <vector>

using namespace poplar;
using namespace poplar::program;

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 8;
  Device device = ipuModel.createDevice();
  Graph graph(device.getTarget());

  Tensor v1 = graph.addVariable(FLOAT, {4}, "v1");
  Tensor v2 = graph.addVariable(FLOAT, {4}, "v2");
  Tensor v3 = graph.addVariable(FLOAT, {4, 4}, "v3");
  Tensor v4 = graph.addVariable(INT, {10}, "v4");
  for (unsigned i = 0; i < 4; ++i) {
    graph.setTileMapping(v1[i], i);
    graph.setTileMapping(v3[i], 7 - i);
  }
  graph.setTileMapping(v2, 5);
  graph.setTileMapping(v4, 6);

  Tensor c1 = graph.addConstant<float>(FLOAT, {4}, {1.0, 1.5, 2.0, 2.5});
  Tensor c2 = graph.addConstant<int>(INT, {10}, 7);
  Tensor h = graph.addConstant<unsigned short>(HALF, {3}, {1, 2, 3});
  graph.setTileMapping(c1, 0);
  graph.setTileMapping(c2, 3);
  graph.setTileMapping(h, 2);

  Sequence prog;
  prog.add(Copy(c1, v1));
  prog.add(PrintTensor("v1-debug", v1));
  prog.add(Copy(v1, v2));
  prog.add(PrintTensor("v2", v2));
  // A 2x2 corner of v3 from v1 and v2 (rows on four tiles), then a transposed copy of it.
  prog.add(Copy(v1.slice(0, 2), v3[0].slice(0, 2)));
  prog.add(Copy(v2.slice(2, 4), v3[1].slice(0, 2)));
  prog.add(Copy(v3.slice({0, 0}, {2, 2}).transpose(), v3.slice({2, 2}, {4, 4})));
  prog.add(PrintTensor("v3", v3));
  prog.add(Copy(c2, v4));
  prog.add(PrintTensor("v4", v4));
  prog.add(PrintTensor("h", h));
  prog.add(PrintTensor("scalar", v4[3]));

  graph.createHostWrite("v4-write", v4);
  graph.createHostRead("v4-read", v4);
  graph.createHostRead("v3-read", v3);

  Engine engine(graph, prog);
  engine.load(device);
  std::vector<int> in(10);
  for (int i = 0; i < 10; ++i) in[i] = 100 + i;
  engine.writeTensor("v4-write", in.data(), in.data() + in.size());
  std::vector<int> back(10);
  engine.readTensor("v4-read", back.data(), back.data() + back.size());
  std::cout << "v4 written and read back:";
  for (int x : back) std::cout << " " << x;
  std::cout << "\n";

  engine.run(0);
  std::vector<float> m(16);
  engine.readTensor("v3-read", m.data(), m.data() + m.size());
  std::cout << "v3[3][3] read by the host: " << m[15] << "\n";
  engine.readTensor("v4-read", back.data(), back.data() + back.size());
  std::cout << "v4[9] after the run: " << back[9] << "\n";
  return 0;
}
