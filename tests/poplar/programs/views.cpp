// Tensor views: every rearrangement of a 3x4 matrix whose rows live on different tiles, made
// concrete by copying the view into a variable on another tile and printing it; shape queries,
// tile mappings and region queries.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>

#include <iostream>
#include <vector>

using namespace poplar;
using namespace poplar::program;

void printShape(const char *name, const Tensor &t) {
  std::cout << name << ": rank " << t.rank() << ", shape " << t.shapeToString() << ", " << t.numElements()
            << " elements of " << t.elementType() << "\n";
}

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  Device device = ipuModel.createDevice();
  Graph graph(device.getTarget());
  std::vector<int> values(12);
  for (int i = 0; i < 12; ++i) values[i] = i;
  Tensor m = graph.addConstant<int>(INT, {3, 4}, values);
  for (unsigned r = 0; r < 3; ++r) graph.setTileMapping(m[r], r);

  Sequence prog;
  unsigned n = 0;
  auto show = [&](const std::string &title, const Tensor &view) {
    Tensor copy = graph.addVariable(view.elementType(), view.shape(), title);
    graph.setTileMapping(copy, 3);
    prog.add(Copy(view, copy));
    prog.add(PrintTensor(title, copy));
    ++n;
  };
  show("m", m);
  show("m[1]", m[1]);
  show("m[2][3]", m[2][3]);
  show("slice(1, 3, 1)", m.slice(1, 3, 1));
  show("slice({1, 1}, {3, 3})", m.slice({1, 1}, {3, 3}));
  show("flatten().slice(5, 9)", m.flatten().slice(5, 9));
  show("reshape({2, 6})", m.reshape({2, 6}));
  show("transpose()", m.transpose());
  show("reshape({3, 2, 2}).dimShuffle({2, 0, 1})", m.reshape({3, 2, 2}).dimShuffle({2, 0, 1}));
  show("reshape({3, 2, 2}).dimRoll(2)", m.reshape({3, 2, 2}).dimRoll(2));
  show("slice(0, 2, 1).broadcast(2, 1)", m.slice(0, 2, 1).broadcast(2, 1));
  show("m[0].expand({0})", m[0].expand({0}));
  show("slice(1, 2, 0).squeeze({0})", m.slice(1, 2, 0).squeeze({0}));
  show("reverse(1)", m.reverse(1));
  show("reverse(0)", m.reverse(0));
  show("subSample(2, 1)", m.subSample(2, 1));
  show("m[0].upsample(2, 0)", m[0].upsample(2, 0, UpsampleMethod::REPEAT));
  show("concat(m[2], m[0])", concat(m[2], m[0]));
  show("concat({m, m.slice(0, 1, 0)}, 0)", concat({m, m.slice(0, 1, 0)}, 0));
  show("append(m, m[1])", append(m, m[1]));
  show("reinterpret(UNSIGNED_INT)", m[0].reinterpret(UNSIGNED_INT));
  // A matrix whose columns are variables of their own (a region an element, as a table split
  // into column blocks is): blocks of its rows, each row a region or two further on.
  std::vector<Tensor> columns;
  for (int c = 0; c < 4; ++c) {
    std::vector<int> column(6);
    for (int r = 0; r < 6; ++r) column[r] = 100 + 10 * r + c;
    columns.push_back(graph.addConstant<int>(INT, {6, 1}, column));
    graph.setTileMapping(columns.back(), unsigned(c % 3));
  }
  Tensor blocks = concat(columns, 1);
  show("blocks.slice({0, 1}, {6, 2})", blocks.slice({0, 1}, {6, 2}));
  show("blocks.slice({1, 1}, {6, 3})", blocks.slice({1, 1}, {6, 3}));
  show("blocks.slice(2, 4, 1)", blocks.slice(2, 4, 1));
  std::vector<Interval> iv{{0, 1}, {2, 4}};
  std::vector<Tensor> parts = m.slices(iv, 1);
  show("slices({{0, 1}, {2, 4}}, 1)[1]", parts[1]);

  printShape("m", m);
  printShape("m.transpose()[1]", m.transpose()[1]);
  printShape("m[1][2]", m[1][2]);
  std::cout << "dim(1): " << m.dim(1) << "\n";
  std::cout << "m contiguous: " << m.isContiguous() << ", m.transpose(): " << m.transpose().isContiguous() << "\n";
  std::cout << "regions of m.transpose()[0]: " << m.transpose()[0].getContiguousRegions().size() << "\n";
  std::cout << "aliases in broadcast: " << m[0].broadcast(2, 0).containsAliases() << ", in m: " << m.containsAliases()
            << "\n";
  std::cout << "m[0] intersects m.transpose()[1]: " << m[0].intersectsWith(m.transpose()[1])
            << ", m[0] intersects m[1]: " << m[0].intersectsWith(m[1]) << "\n";
  std::cout << "m[1] == m.slice(1, 2).reshape({4}): " << (m[1] == m.slice(1, 2).reshape({4})) << "\n";
  Graph::TileToTensorMapping mapping = graph.getTileMapping(m.transpose());
  for (unsigned t = 0; t < mapping.size(); ++t) {
    std::cout << "transpose on tile " << t << ":";
    for (const Interval &i : mapping[t]) std::cout << " " << i;
    std::cout << "\n";
  }
  Tensor lin = graph.addVariable(FLOAT, {1000}, "lin");
  poputil::mapTensorLinearly(graph, lin);
  for (const auto &tile : graph.getTileMapping(lin))
    for (const Interval &i : tile) std::cout << "mapTensorLinearly: " << i << "\n";
  Tensor lin2 = graph.addVariable(HALF, {100}, VariableMappingMethod::LINEAR, "lin2");
  for (const auto &tile : graph.getTileMapping(lin2))
    for (const Interval &i : tile) std::cout << "LINEAR half: " << i << "\n";

  // A clone keeps the memory order of what it clones (Poplar's PRESERVE_ORDER methods): the
  // clone of m.transpose() is the transpose of a [3][4]-ordered variable; CREATE_NEW_ORDER
  // lays the clone out in its own row-major order.
  Tensor kept = graph.clone(m.transpose(), "kept"), fresh = graph.clone(m.transpose(), "fresh", TensorCloneMethod::CREATE_NEW_ORDER);
  std::cout << "clone of m.transpose(): contiguous " << kept.isContiguous() << ", transposed back "
            << kept.transpose().isContiguous() << "; with CREATE_NEW_ORDER: contiguous " << fresh.isContiguous()
            << "; same mapping " << (graph.getTileMapping(kept) == graph.getTileMapping(m.transpose())) << "\n";

  std::cout << n << " views copied\n";
  Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  return 0;
}
