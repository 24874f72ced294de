// Misuse gets a poplar_error (or a subclass) with one clear message; a simulated exception in a
// vertex surfaces from Engine::run naming the step, the tile and the code.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <cstdlib>
#include <iostream>
#include <vector>

using namespace poplar;
using namespace poplar::program;

template <class F> void expectError(const char *what, F f) {
  try {
    f();
    std::cout << what << ": no error\n";
  } catch (const poplar_error &e) {
    std::cout << what << ": " << e.type << ": " << e.what() << "\n";
  }
}

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  Device device = ipuModel.createDevice();

  expectError("tile out of range", [&] {
    Graph g(device.getTarget());
    g.setTileMapping(g.addVariable(FLOAT, {2}), 4);
  });
  expectError("unmapped tensor", [&] {
    Graph g(device.getTarget());
    Tensor t = g.addVariable(FLOAT, {8}, "weights");
    g.setTileMapping(t.slice(0, 5), 0);
    Engine e(g, Sequence());
  });
  expectError("unknown vertex type", [&] {
    Graph g(device.getTarget());
    g.addVertex(g.addComputeSet(), "NoSuchVertex");
  });
  expectError("codelet that does not compile", [&] {
    Graph g(device.getTarget());
    g.addCodelets("errors_bad.cpp");
  });
  expectError("missing codelet file", [&] {
    Graph g(device.getTarget());
    g.addCodelets("missing.cpp");
  });
  expectError("unknown field", [&] {
    Graph g(device.getTarget());
    g.addCodelets("errors_codelets.cpp");
    VertexRef v = g.addVertex(g.addComputeSet(), "Copy1");
    g.connect(v["inn"], g.addVariable(FLOAT, {2}));
  });
  expectError("unconnected field", [&] {
    Graph g(device.getTarget());
    g.addCodelets("errors_codelets.cpp");
    Tensor t = g.addVariable(FLOAT, {2}, "t");
    g.setTileMapping(t, 0);
    ComputeSet cs = g.addComputeSet("copy");
    VertexRef v = g.addVertex(cs, "Copy1", {{"in", t}});
    g.setTileMapping(v, 0);
    Engine e(g, Execute(cs));
  });
  expectError("unmapped vertex", [&] {
    Graph g(device.getTarget());
    g.addCodelets("errors_codelets.cpp");
    Tensor t = g.addVariable(FLOAT, {2}, "t");
    g.setTileMapping(t, 0);
    ComputeSet cs = g.addComputeSet("copy");
    g.addVertex(cs, "Copy1", {{"in", t}, {"out", t}});
    Engine e(g, Execute(cs));
  });
  expectError("field type", [&] {
    Graph g(device.getTarget());
    g.addCodelets("errors_codelets.cpp");
    Tensor t = g.addVariable(FLOAT, {2}, "t");
    Tensor h = g.addVariable(HALF, {2}, "h");
    g.setTileMapping(t, 0);
    g.setTileMapping(h, 0);
    ComputeSet cs = g.addComputeSet("copy");
    VertexRef v = g.addVertex(cs, "Copy1", {{"in", h}, {"out", t}});
    g.setTileMapping(v, 0);
    Engine e(g, Execute(cs));
  });
  expectError("out of memory", [&] {
    Graph g(device.getTarget());
    Tensor big = g.addVariable(FLOAT, {100000}, "big");
    Tensor small = g.addVariable(FLOAT, {60000}, "small");
    g.setTileMapping(big, 2);
    g.setTileMapping(small, 2);
    Engine e(g, Sequence());
  });
  expectError("unknown engine option", [&] {
    Graph g(device.getTarget());
    Engine e(g, Sequence(), {{"debug.instrumnet", "true"}});
  });
  expectError("bad option value", [&] {
    Graph g(device.getTarget());
    Engine e(g, Sequence(), {{"debug.instrument", "yes"}});
  });
  expectError("bad POPLAR_ENGINE_OPTIONS", [&] {
    setenv("POPLAR_ENGINE_OPTIONS", "{\"autoReport.all\": ", 1);
    Graph g(device.getTarget());
    try {
      Engine e(g, Sequence());
    } catch (...) {
      unsetenv("POPLAR_ENGINE_OPTIONS");
      throw;
    }
  });
  expectError("shape: reshape", [&] {
    Graph g(device.getTarget());
    g.addVariable(FLOAT, {2, 3}).reshape({4, 2});
  });
  expectError("shape: slice", [&] {
    Graph g(device.getTarget());
    g.addVariable(FLOAT, {2, 3}).slice(1, 4, 1);
  });
  expectError("shape: index", [&] {
    Graph g(device.getTarget());
    g.addVariable(FLOAT, {2, 3})[2];
  });
  expectError("shape: concat", [&] {
    Graph g(device.getTarget());
    concat(g.addVariable(FLOAT, {2, 3}), g.addVariable(FLOAT, {2, 4}), 0);
  });
  expectError("shape: dimShuffle", [&] {
    Graph g(device.getTarget());
    g.addVariable(FLOAT, {2, 3}).dimShuffle({0, 0});
  });
  expectError("copy: types", [&] {
    Graph g(device.getTarget());
    Tensor a = g.addVariable(FLOAT, {2}), b = g.addVariable(INT, {2});
    g.setTileMapping(a, 0);
    g.setTileMapping(b, 0);
    Engine e(g, Copy(a, b));
  });
  expectError("copy: sizes", [&] {
    Graph g(device.getTarget());
    Tensor a = g.addVariable(FLOAT, {2}), b = g.addVariable(FLOAT, {3});
    g.setTileMapping(a, 0);
    g.setTileMapping(b, 0);
    Engine e(g, Copy(a, b));
  });
  expectError("If on a vector", [&] {
    Graph g(device.getTarget());
    Tensor p = g.addVariable(INT, {2});
    g.setTileMapping(p, 0);
    Engine e(g, If(p, Sequence(), Sequence()));
  });
  // A tensor names its graph's variables: another graph's would mean a different variable
  // (helper review of issue 10).
  expectError("tensor of another graph in a Copy", [&] {
    Graph g(device.getTarget()), other(device.getTarget());
    Tensor a = g.addConstant<int>(INT, {4}, {10, 20, 30, 40});
    Tensor x = g.addVariable(INT, {4}, "x");
    Tensor z = other.addConstant<int>(INT, {4}, {7, 7, 7, 7});
    g.setTileMapping(a, 0);
    g.setTileMapping(x, 1);
    other.setTileMapping(z, 3);
    Engine e(g, Copy(z, x));
  });
  expectError("tensor of another graph mapped", [&] {
    Graph g(device.getTarget()), other(device.getTarget());
    g.addVariable(INT, {4});
    g.setTileMapping(other.addVariable(INT, {4}), 0);
  });
  expectError("tensors of two graphs joined", [&] {
    Graph g(device.getTarget()), other(device.getTarget());
    concat(g.addVariable(INT, {4}), other.addVariable(INT, {4}));
  });
  expectError("tensor of another graph connected", [&] {
    Graph g(device.getTarget()), other(device.getTarget());
    g.addCodelets("errors_codelets.cpp");
    VertexRef v = g.addVertex(g.addComputeSet(), "Copy1");
    g.connect(v["in"], other.addVariable(FLOAT, {2}));
  });
  // Constants keep their value for every run.
  expectError("Copy into a constant", [&] {
    Graph g(device.getTarget());
    Tensor c = g.addConstant<int>(INT, {2}, {1, 2}, "ones");
    Tensor x = g.addVariable(INT, {2});
    g.setTileMapping(c, 0);
    g.setTileMapping(x, 0);
    Engine e(g, Copy(x, c));
  });
  expectError("constant on an output edge", [&] {
    Graph g(device.getTarget());
    g.addCodelets("errors_codelets.cpp");
    Tensor c = g.addConstant<float>(FLOAT, {2}, {1, 2}, "weights");
    VertexRef v = g.addVertex(g.addComputeSet(), "Copy1");
    g.connect(v["out"], c);
  });
  expectError("Copy to a broadcast", [&] {
    Graph g(device.getTarget());
    Tensor x = g.addVariable(INT, {2});
    g.setTileMapping(x, 0);
    Engine e(g, Copy(x, x.slice(0, 1).broadcast(2, 0)));
  });
  expectError("Execute with a result tensor", [&] {
    Graph g(device.getTarget());
    Tensor ok = g.addVariable(BOOL, {});
    g.setTileMapping(ok, 0);
    Engine e(g, Execute(g.addComputeSet("check"), ok));
  });

  // Run-time errors, on one engine.
  Graph g(device.getTarget());
  g.addCodelets("errors_codelets.cpp");
  Tensor t = g.addVariable(INT, {4}, "t");
  g.setTileMapping(t, 1);
  g.addHostToDeviceFIFO("in", INT, 4);
  g.createHostRead("t", t);
  ComputeSet wild = g.addComputeSet("wild");
  VertexRef w = g.addVertex(wild, "Wild", {{"out", t[0]}});
  g.setTileMapping(w, 1);
  Engine e(g, {Copy(g.addHostToDeviceFIFO("in2", INT, 4), t), Execute(wild)});
  expectError("run before load", [&] { e.run(0); });
  e.load(device);
  expectError("program out of range", [&] { e.run(2); });
  expectError("unconnected stream", [&] { e.run(0); });
  expectError("stream that does not exist", [&] { e.connectStream("nope", nullptr); });
  std::vector<int> data(4, 1);
  e.connectStream("in2", data.data(), data.data() + 4);
  expectError("simulated exception", [&] { e.run(1); });
  expectError("readTensor size", [&] { e.readTensor("t", data.data(), data.data() + 3); });
  expectError("readTensor handle", [&] { e.readTensor("u", data.data(), data.data() + 4); });
  return 0;
}
