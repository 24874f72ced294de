// Control flow on the device: Repeat, RepeatWhileTrue / RepeatWhileFalse with a condition
// computed by a vertex, If on values of several types, Switch with a default, functions called
// twice, and Sync. Predicates live on one tile; the exchange broadcasts them to every tile.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <iostream>
#include <vector>

using namespace poplar;
using namespace poplar::program;

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 5;
  Device device = ipuModel.createDevice();
  Graph graph(device.getTarget());
  graph.addCodelets("control_codelets.cpp");

  // counter += 1 on tile 1; done = counter >= limit on tile 3 (a vertex: the condition program).
  Tensor counter = graph.addVariable(INT, {}, "counter");
  Tensor limit = graph.addVariable(INT, {}, "limit");
  Tensor done = graph.addVariable(BOOL, {}, "done");
  graph.setTileMapping(counter, 1);
  graph.setTileMapping(limit, 2);
  graph.setTileMapping(done, 3);
  ComputeSet inc = graph.addComputeSet("increment");
  VertexRef vi = graph.addVertex(inc, "Increment", {{"x", counter}});
  graph.setTileMapping(vi, 1);
  ComputeSet test = graph.addComputeSet("test");
  VertexRef vt = graph.addVertex(test, "AtLeast", {{"x", counter}, {"limit", limit}, {"out", done}});
  graph.setTileMapping(vt, 3);

  Tensor zero = graph.addConstant<int>(INT, {}, 0);
  Tensor seven = graph.addConstant<int>(INT, {}, 7);
  graph.setTileMapping(zero, 4);
  graph.setTileMapping(seven, 4);
  graph.createHostWrite("limit", limit);

  Sequence prog;
  prog.add(Copy(zero, counter));
  prog.add(Repeat(3, Execute(inc)));
  prog.add(PrintTensor("after Repeat(3)", counter));
  prog.add(RepeatWhileFalse(Execute(test), done, Execute(inc)));
  prog.add(PrintTensor("after RepeatWhileFalse(counter >= limit)", counter));
  prog.add(Copy(zero, counter));
  prog.add(Execute(test));
  prog.add(RepeatWhileTrue(Sequence(), done, Sequence()));
  prog.add(PrintTensor("RepeatWhileTrue on false never runs its body", counter));

  // If on a bool, a float (-0.0 is false), a half and an unsigned short.
  Tensor f = graph.addConstant<float>(FLOAT, {2}, {-0.0f, 0.25f});
  Tensor hf = graph.addConstant<float>(HALF, {2}, {0.0f, -2.0f});
  Tensor us = graph.addConstant<unsigned short>(UNSIGNED_SHORT, {2}, {0, 65535});
  graph.setTileMapping(f, 0);
  graph.setTileMapping(hf, 2);
  graph.setTileMapping(us, 4);
  Tensor which = graph.addVariable(INT, {}, "which");
  graph.setTileMapping(which, 0);
  Tensor one = graph.addConstant<int>(INT, {}, 1);
  Tensor two = graph.addConstant<int>(INT, {}, 2);
  graph.setTileMapping(one, 3);
  graph.setTileMapping(two, 3);
  auto ifThen = [&](Tensor pred, const char *title) {
    Sequence s;
    s.add(If(pred, Copy(one, which), Copy(two, which)));
    s.add(PrintTensor(title, which));
    return s;
  };
  prog.add(ifThen(done, "If(done)"));
  prog.add(ifThen(f[0], "If(-0.0f)"));
  prog.add(ifThen(f[1], "If(0.25f)"));
  prog.add(ifThen(hf[0], "If(half 0)"));
  prog.add(ifThen(hf[1], "If(half -2)"));
  prog.add(ifThen(us[0], "If(ushort 0)"));
  prog.add(ifThen(us[1], "If(ushort 65535)"));

  // Switch on counter: cases 0, 5 and -70000 (too big for an immediate), else the default.
  Tensor code = graph.addVariable(INT, {}, "code");
  graph.setTileMapping(code, 2);
  Tensor c10 = graph.addConstant<int>(INT, {}, 10), c50 = graph.addConstant<int>(INT, {}, 50),
         c99 = graph.addConstant<int>(INT, {}, 99), cbig = graph.addConstant<int>(INT, {}, -70000);
  graph.setTileMapping(c10, 1);
  graph.setTileMapping(c50, 1);
  graph.setTileMapping(c99, 1);
  graph.setTileMapping(cbig, 1);
  Switch sw(counter, Copy(c99, code));
  sw.add(0, Copy(c10, code)).add(5, Copy(c50, code)).add(-70000, Copy(c10, code));
  Function twice = graph.addFunction(Sequence({Execute(inc), Execute(inc)}));
  for (int round = 0; round < 3; ++round) {
    prog.add(sw);
    prog.add(PrintTensor("Switch(counter)", code));
    prog.add(Call(twice));
    prog.add(Call(twice));
    prog.add(Execute(inc));
    prog.add(Sync(SyncType::INTERNAL));
    prog.add(PrintTensor("counter", counter));
  }
  prog.add(Copy(cbig, counter));
  prog.add(sw);
  prog.add(PrintTensor("Switch(-70000)", code));

  Engine engine(graph, prog);
  engine.load(device);
  int lim = 5;
  engine.writeTensor("limit", &lim, &lim + 1);
  engine.run(0);
  return 0;
}
