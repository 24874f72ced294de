// Memory-element constraints (docs/poplar.md "Memory"): a vertex class declaring
// [[poplar::constraint("elem(*a) != elem(*b)")]] gets the data of a and b in different memory
// elements (16 KiB elements in region 0, pairs of element arrays of 32 KiB in the interleaved
// region, ipu-facts §2.4); without it the planner packs small variables together. The vertices
// report their fields' addresses, so the placement is read from the tile itself.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <gtest/gtest.h>

#include <sstream>

using namespace poplar;
using namespace poplar::program;

namespace {

const char *kCodelets = R"CODE(
#include <poplar/Vertex.hpp>
class [[poplar::constraint("elem(*a) != elem(*b)")]] Apart : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<int>> a;
  poplar::Input<poplar::Vector<int>> b;
  poplar::Output<poplar::Vector<unsigned>> where;
  bool compute() {
    where[0] = reinterpret_cast<unsigned>(&a[0]);
    where[1] = reinterpret_cast<unsigned>(&b[0]);
    return true;
  }
};
class Together : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<int>> a;
  poplar::Input<poplar::Vector<int>> b;
  poplar::Output<poplar::Vector<unsigned>> where;
  bool compute() {
    where[0] = reinterpret_cast<unsigned>(&a[0]);
    where[1] = reinterpret_cast<unsigned>(&b[0]);
    return true;
  }
};
)CODE";

/// The memory element of a Mk2 tile address (arch/configs/mk2.toml: region 0 from 0x4C000 in
/// 16 KiB elements, the interleaved region from 0x80000 in 32 KiB pairs).
unsigned element(unsigned addr) { return addr >= 0x80000 ? 100 + (addr - 0x80000) / 32768 : (addr - 0x4C000) / 16384; }

/// The addresses vertex `type` sees for two 8-int variables on one tile.
std::pair<unsigned, unsigned> addresses(const char *type) {
  IPUModel model;
  model.tilesPerIPU = 1;
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  std::stringstream codelets(kCodelets);
  graph.addCodelets(codelets);
  Tensor a = graph.addVariable(INT, {8}, "a"), b = graph.addVariable(INT, {8}, "b");
  Tensor where = graph.addVariable(UNSIGNED_INT, {2}, "where");
  graph.setTileMapping(a, 0);
  graph.setTileMapping(b, 0);
  graph.setTileMapping(where, 0);
  ComputeSet cs = graph.addComputeSet("cs");
  VertexRef v = graph.addVertex(cs, type, {{"a", a}, {"b", b}, {"where", where}});
  graph.setTileMapping(v, 0);
  graph.createHostRead("where", where);
  Engine engine(graph, Execute(cs));
  engine.load(device);
  engine.run(0);
  unsigned out[2] = {0, 0};
  engine.readTensor("where", out, out + 2);
  return {out[0], out[1]};
}

} // namespace

TEST(ElemConstraint, FieldsGoToDifferentElements) {
  const auto [a, b] = addresses("Apart");
  EXPECT_NE(element(a), element(b)) << std::hex << "a at 0x" << a << ", b at 0x" << b;
}

TEST(ElemConstraint, WithoutItSmallVariablesShareAnElement) {
  const auto [a, b] = addresses("Together");
  EXPECT_EQ(element(a), element(b)) << std::hex << "a at 0x" << a << ", b at 0x" << b;
}
