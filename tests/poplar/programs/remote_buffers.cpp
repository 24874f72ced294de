// Remote buffers in Streaming Memory (the gateway's DRAM of the DeviceManager's M2000) and the
// host link that carries streams and remote-buffer rows as TLM-2.0 transactions, in counted cycles
// (docs/poplar.md "Remote buffers", "Host transfers"): rows chosen on the device by an offset
// tensor, several rows in one copy, the host's own reads and writes of the buffer, and the errors.
//
// The host transfers' cycles, by hand (arch/configs m2000: host link = the gateway, 25e9 B/s each
// way at 1.325 GHz = 18.868 B/cycle; host.latency_cycles 4000; a tile's exchange port 4 B/cycle;
// a transaction's bytes cross link and port together, then the latency):
// - stream_in of one offset (4 B to tile 3): 1 cycle at the port, 0.212 on the link:
//   ceil(1) + 4000 = 4001 cycles.
// - remote_in of a row of 8 floats with an offset: the host first reads the offset (4 B from
//   tile 3, 4001 cycles as above); then 16 B to tile 1 (4 cycles at its port; 0.848 on the link)
//   and 16 B to tile 2, which starts when the link is free at 4001.848 and leaves its port 4
//   later: ceil(4005.848) + 4000 = 8006 cycles.
// - remote_out of that row with another offset: the same, the other way: 8006 cycles.
// - stream_in of two offsets (8 B to tile 3): 2 cycles at the port: 4002.
// - remote_in of 2 rows with 2 offsets: the offsets' read takes 4002 as above; the rows are four
//   transactions of 16 B in element order (row 0 on tiles 1, 2; row 1 on tiles 1, 2), each
//   starting when the link and its tile's port are free: 4002 (port to 4006, link to 4002.848),
//   4002.848 (port to 4006.848, link to 4003.696), 4006 (tile 1's port free; port to 4010),
//   4006.848 (port to 4010.848): ceil(4010.848) + 4000 = 8011 cycles.
// - stream_out of those 16 floats: the same four transactions from cycle 0: ports to 4, 4.848,
//   8 and 8.848: ceil(8.848) + 4000 = 4009 cycles.
#include <poplar/DeviceManager.hpp>
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;

static void printRows(Engine &engine) {
  for (unsigned r = 0; r < 4; ++r) {
    std::vector<float> row(8);
    engine.copyFromRemoteBuffer("table", row.data(), r);
    std::cout << "  row " << r << ":";
    for (float x : row) std::cout << " " << x;
    std::cout << "\n";
  }
}

template <class F> static void expectError(const char *what, F f) {
  try {
    f();
    std::cout << what << ": no error\n";
  } catch (const poplar_error &e) {
    std::cout << what << ": " << e.what() << "\n";
  }
}

int main() {
  DeviceManager manager = DeviceManager::createDeviceManager();
  Device device = manager.getDevice(0).createVirtualDevice(4);
  device.attach();
  std::cout << "M2000 IPU: remote buffers " << device.supportsRemoteBuffers() << ", gateway " << device.hasGateway() << "\n";

  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  RemoteBuffer table = graph.addRemoteBuffer("table", FLOAT, 8, 4);
  std::cout << "buffer " << table.handle() << ": " << table.numElements() << " elements x " << table.getRepeats()
            << " rows of " << table.elementType().toString() << "\n";
  Tensor row = graph.addVariable(FLOAT, {8}, "row");
  graph.setTileMapping(row.slice(0, 4), 1);
  graph.setTileMapping(row.slice(4, 8), 2);
  Tensor from = graph.addVariable(UNSIGNED_INT, {1}, "from");
  Tensor to = graph.addVariable(UNSIGNED_INT, {1}, "to");
  Tensor pair = graph.addVariable(UNSIGNED_INT, {2}, "pair");
  graph.setTileMapping(from, 3);
  graph.setTileMapping(to, 3);
  graph.setTileMapping(pair, 3);
  Tensor two = graph.addVariable(FLOAT, {2, 8}, "two");
  graph.setTileMapping(two.slice(0, 4, 1), 1);
  graph.setTileMapping(two.slice(4, 8, 1), 2);
  DataStream fromIn = graph.addHostToDeviceFIFO("from-in", UNSIGNED_INT, 1);
  DataStream toIn = graph.addHostToDeviceFIFO("to-in", UNSIGNED_INT, 1);
  DataStream pairIn = graph.addHostToDeviceFIFO("pair-in", UNSIGNED_INT, 2);
  DataStream twoOut = graph.addDeviceToHostFIFO("two-out", FLOAT, 16);

  // Program 0: row `to` = row `from` + 100, computed on the tiles.
  Sequence step({Copy(fromIn, from), Copy(toIn, to), Copy(table, row, from)});
  popops::mapInPlace(graph, popops::expr::_1 + popops::expr::Const(100.0f), {row}, step);
  step.add(Copy(row, table, to));
  // Program 1: two rows at once, to the host.
  Sequence both({Copy(pairIn, pair), Copy(table, two, pair), Copy(two, twoOut)});

  Engine engine(graph, {step, both}, {{"autoReport.directory", "report"}, {"autoReport.outputExecutionProfile", "true"}});
  expectError("copyToRemoteBuffer before load", [&] { float z[8] = {}; engine.copyToRemoteBuffer(z, "table", 0); });
  engine.load(device);
  for (unsigned r = 0; r < 4; ++r) {
    std::vector<float> values(8);
    for (unsigned i = 0; i < 8; ++i) values[i] = float(10 * r + i);
    engine.copyToRemoteBuffer(values.data(), "table", r);
  }
  std::cout << "the host wrote:\n";
  printRows(engine);

  unsigned fromRow = 2, toRow = 1;
  engine.connectStream("from-in", &fromRow);
  engine.connectStream("to-in", &toRow);
  engine.run(0);
  std::cout << "row 1 = row 2 + 100 on the device:\n";
  printRows(engine);

  unsigned rows[2] = {3, 1};
  std::vector<float> got(16);
  engine.connectStream("pair-in", rows);
  engine.connectStream("two-out", got.data());
  engine.run(1);
  std::cout << "rows 3 and 1 in one copy:";
  for (float x : got) std::cout << " " << x;
  std::cout << "\n";

  // The host link's transactions, from the trace.
  {
    std::ifstream trace("report/execution.trace");
    std::string line;
    while (std::getline(trace, line))
      if (line.find("host.transfer") != std::string::npos) {
        std::istringstream words(line);
        unsigned long long cycle = 0;
        words >> cycle;
        const size_t end = line.find("end_cycle=");
        const unsigned long long endCycle = std::stoull(line.substr(end + 10));
        std::cout << line.substr(line.find("kind=")) << "  (" << endCycle - cycle << " cycles)\n";
      }
  }

  // Errors.
  fromRow = 4;
  expectError("row 4 of 4", [&] { engine.run(0); });
  expectError("copyToRemoteBuffer row 4", [&] { float z[8] = {}; engine.copyToRemoteBuffer(z, "table", 4); });
  expectError("copyFromRemoteBuffer of no buffer", [&] { float z[8]; engine.copyFromRemoteBuffer("chair", z, 0); });
  expectError("replica 1", [&] { float z[8]; engine.copyFromRemoteBuffer("table", z, 0, 1); });
  expectError("a row of the wrong size", [&] { Engine e(graph, Sequence({Copy(table, two)})); });
  expectError("half rows", [&] {
    Tensor h = graph.addVariable(HALF, {8}, "h");
    graph.setTileMapping(h, 1);
    Engine e(graph, Sequence({Copy(h, table)}));
  });
  expectError("a float offset", [&] {
    Tensor f = graph.addVariable(FLOAT, {1}, "f");
    graph.setTileMapping(f, 3);
    Engine e(graph, Sequence({Copy(table, row, f)}));
  });
  expectError("the same handle twice", [&] { graph.addRemoteBuffer("table", FLOAT, 8); });
  expectError("an empty RemoteBuffer", [&] { Copy c(RemoteBuffer(), row); });

  // A PCIe card (the IPUModel's mk2 config) has no Streaming Memory.
  IPUModel model;
  model.tilesPerIPU = 4;
  Device card = model.createDevice();
  std::cout << "IPUModel: remote buffers " << card.supportsRemoteBuffers() << ", gateway " << card.hasGateway() << "\n";
  Graph cardGraph(card.getTarget());
  RemoteBuffer b = cardGraph.addRemoteBuffer("b", FLOAT, 4);
  Tensor t = cardGraph.addVariable(FLOAT, {4}, "t");
  cardGraph.setTileMapping(t, 0);
  Engine cardEngine(cardGraph, Sequence({Copy(b, t)}));
  expectError("load onto a PCIe card", [&] { cardEngine.load(card); });
  return 0;
}
