// Host-to-device and device-to-host FIFOs: a circular buffer three times the stream's size (each
// copy takes the next ten elements, wrapping), a fixed buffer every copy reuses, reconnection, and
// a device computation between the two directions.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <iostream>
#include <vector>

using namespace poplar;
using namespace poplar::program;

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  Device device = ipuModel.createDevice();
  Graph graph(device.getTarget());
  Tensor v = graph.addVariable(INT, {10}, "v");
  // Elements on three tiles: the stream's data is scattered by the host link.
  graph.setTileMapping(v.slice(0, 3), 1);
  graph.setTileMapping(v.slice(3, 7), 2);
  graph.setTileMapping(v.slice(7, 10), 3);
  Tensor w = graph.addVariable(INT, {10}, "w");
  graph.setTileMapping(w, 0);

  DataStream in = graph.addHostToDeviceFIFO("in", INT, 10);
  DataStream out = graph.addDeviceToHostFIFO("out", INT, 10);
  Sequence prog({Copy(in, v), PrintTensor("v", v), Copy(v.reverse(0), w), Copy(w, out)});

  Engine engine(graph, prog);
  engine.load(device);
  std::vector<int> ring(30), sink(10, -1), fixed(10, 5);
  for (int i = 0; i < 30; ++i) ring[i] = i;
  engine.connectStream("in", ring.data(), ring.data() + ring.size());
  engine.connectStream("out", sink.data());
  for (int run = 0; run < 4; ++run) {
    engine.run(0);
    std::cout << "run " << run << " sent back:";
    for (int x : sink) std::cout << " " << x;
    std::cout << "\n";
  }
  engine.connectStream("in", fixed.data());
  engine.run(0);
  std::cout << "fixed buffer sent back:";
  for (int x : sink) std::cout << " " << x;
  std::cout << "\n";
  std::cout << "streams:";
  for (const std::string &s : engine.listStreams()) std::cout << " " << s;
  std::cout << "\n";
  return 0;
}
