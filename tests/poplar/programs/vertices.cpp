// Custom vertices from a .gp file made by popc and from C++ compiled at run time: vector, scalar,
// vector-of-vectors and value fields, a plain vector member, InOut, Input and Output on one tensor,
// a MultiVertex and a SupervisorVertex. Operands live on other tiles, in pieces, transposed or as
// halves at odd offsets, so the graph compiler gathers them through the exchange into place.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <iostream>
#include <vector>

using namespace poplar;
using namespace poplar::program;

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 6;
  Device device = ipuModel.createDevice();
  Graph graph(device.getTarget());
  std::cout << "first load: " << graph.addCodelets("vertices_codelets.gp") << "\n";
  std::cout << "second load: " << graph.addCodelets("vertices_codelets.gp") << "\n";
  std::cout << "has Axpb: " << graph.hasCodelet("Axpb") << ", has Nope: " << graph.hasCodelet("Nope") << "\n";

  // Axpb: a on tiles 0 and 1, b on tile 2, the vertex and out on tile 3.
  Tensor a = graph.addConstant<float>(FLOAT, {6}, {1, 2, 3, 4, 5, 6});
  graph.setTileMapping(a.slice(0, 3), 0);
  graph.setTileMapping(a.slice(3, 6), 1);
  Tensor b = graph.addConstant<float>(FLOAT, {}, 0.5f);
  graph.setTileMapping(b, 2);
  Tensor out = graph.addVariable(FLOAT, {6}, "out");
  graph.setTileMapping(out, 3);
  ComputeSet cs1 = graph.addComputeSet("axpb");
  VertexRef v1 = graph.addVertex(cs1, "Axpb", {{"a", a}, {"b", b}, {"out", out}});
  graph.setInitialValue(v1["scale"], 3);
  graph.setTileMapping(v1, 3);
  graph.setPerfEstimate(v1, 100);

  // AddInPlace on tile 4 over a matrix's column (elements on tiles 0..3).
  Tensor m = graph.addVariable(INT, {4, 3}, "m");
  for (unsigned r = 0; r < 4; ++r) graph.setTileMapping(m[r], r);
  Tensor init = graph.addConstant<int>(INT, {4, 3}, {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32});
  graph.setTileMapping(init, 5);
  ComputeSet cs2 = graph.addComputeSet("in place");
  VertexRef v2 = graph.addVertex(cs2, "AddInPlace");
  graph.connect(v2["x"], m.transpose()[1]);
  graph.setInitialValue(v2["offsets"], std::vector<int>{100, 200});
  graph.setTileMapping(v2, 4);

  // RowSums: rows from a constant matrix, one of them reversed; the sums on tile 5.
  Tensor rows = graph.addConstant<float>(FLOAT, {3, 2}, {1, 2, 3, 4, 5, 6});
  graph.setTileMapping(rows, 1);
  Tensor sums = graph.addVariable(FLOAT, {3}, "sums");
  graph.setTileMapping(sums, 5);
  VertexRef v3 = graph.addVertex(cs1, "RowSums");
  graph.setFieldSize(v3["rows"], 3);
  graph.connect(v3["rows"][0], rows[0]);
  graph.connect(v3["rows"][1], rows[1].reverse(0));
  graph.connect(v3["rows"][2], concat(rows[2], rows[0]));
  graph.connect(v3["sums"], sums);
  graph.setTileMapping(v3, 5);

  // DoubleHalves on tile 2 over halves, some of them at odd element offsets on tile 0.
  Tensor h = graph.addVariable(HALF, {9}, "h");
  graph.setTileMapping(h.slice(0, 5), 0);
  graph.setTileMapping(h.slice(5, 9), 2);
  Tensor hinit = graph.addConstant<float>(HALF, {9}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  graph.setTileMapping(hinit, 1);
  ComputeSet cs3 = graph.addComputeSet("halves");
  VertexRef v4 = graph.addVertex(cs3, "DoubleHalves", {{"h", h.slice(1, 8)}});
  graph.setTileMapping(v4, 2);

  // CountAbove, a supervisor vertex, on tile 0.
  Tensor ints = graph.addConstant<int>(INT, {8}, {-5, 3, 7, -1, 12, 0, 9, 2});
  graph.setTileMapping(ints, 0);
  Tensor count = graph.addVariable(UNSIGNED_INT, {}, "count");
  graph.setTileMapping(count, 1);
  VertexRef v5 = graph.addVertex(cs3, "CountAbove", {{"in", ints}, {"count", count}, {"threshold", 2}});
  graph.setTileMapping(v5, 0);

  // Increment from C++ compiled at run time: one tensor as both Input and Output.
  graph.addCodelets("vertices_codelets.cpp");
  Tensor bytes = graph.addConstant<unsigned char>(UNSIGNED_CHAR, {5}, {1, 2, 3, 250, 255});
  graph.setTileMapping(bytes, 3);
  Tensor bv = graph.addVariable(UNSIGNED_CHAR, {5}, "bytes");
  graph.setTileMapping(bv, 4);
  ComputeSet cs4 = graph.addComputeSet("increment");
  VertexRef v6 = graph.addVertex(cs4, "Increment", {{"in", bv}, {"out", bv}});
  graph.setTileMapping(v6, 4);

  // VectorLists on tile 1: three vectors from three tiles into a DELTAN list; a DELTANELEMENTS list
  // over two rows of m (on tiles 2 and 3) negated in place.
  Tensor l0 = graph.addConstant<float>(FLOAT, {2}, {1, 2}), l1 = graph.addConstant<float>(FLOAT, {3}, {10, 20, 30}),
         l2 = graph.addConstant<float>(FLOAT, {1}, {100});
  graph.setTileMapping(l0, 0);
  graph.setTileMapping(l1, 1);
  graph.setTileMapping(l2, 2);
  Tensor listSums = graph.addVariable(FLOAT, {3}, "listSums");
  graph.setTileMapping(listSums, 1);
  ComputeSet cs5 = graph.addComputeSet("lists");
  VertexRef v7 = graph.addVertex(cs5, "ListSums");
  graph.connect(v7["in"], {l0, l1, l2});
  graph.connect(v7["out"], listSums);
  graph.setTileMapping(v7, 1);
  Tensor compactSums = graph.addVariable(FLOAT, {3}, "compactSums");
  graph.setTileMapping(compactSums, 1);
  VertexRef v9 = graph.addVertex(cs5, "ListSumsCompact");
  graph.connect(v9["in"], {l0, l1, l2});
  graph.connect(v9["out"], compactSums);
  graph.setTileMapping(v9, 1);
  Tensor compactOut = graph.addVariable(FLOAT, {3}, "compactOut");
  graph.setTileMapping(compactOut, 1);
  VertexRef v10 = graph.addVertex(cs5, "CompactCopy", {{"in", l1}, {"out", compactOut}});
  graph.setInitialValue(v10["n"], 3);
  graph.setTileMapping(v10, 1);
  VertexRef v8 = graph.addVertex(cs5, "ListNegate");
  graph.connect(v8["x"], m.slice(2, 4, 0));
  graph.setTileMapping(v8, 1);

  Sequence prog({Execute(cs1), PrintTensor("out", out), PrintTensor("sums", sums), Copy(init, m), Execute(cs2),
                 PrintTensor("m", m), Copy(hinit, h), Execute(cs3), PrintTensor("h", h), PrintTensor("count", count),
                 Copy(bytes, bv), Execute(cs4), Execute(cs4), PrintTensor("bytes", bv),
                 Execute(cs5), PrintTensor("listSums", listSums), PrintTensor("compactSums", compactSums),
                 PrintTensor("compactOut", compactOut),
                 PrintTensor("m", m)});
  Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  return 0;
}
