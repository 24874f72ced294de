// popops' transposes of many small matrices (docs/popops.md "Transposes"): one vertex a tile
// transposes the matrices that tile holds, its six workers splitting the output into whole
// output rows (or whole matrices, or one worker, when rows would share a 32-bit word: sub-word
// stores are read-modify-write). The matrices' elements reach the vertex as its fields; the
// graph compiler brings those held elsewhere through the exchange.
#include "../sdk/Generated.hpp"
#include "Internal.hpp"

#include <popops/Rearrange.hpp>

#include <sstream>

namespace popops {
namespace rearrange {

using namespace poplar;
using ipusim::sdk::fail;

namespace {

std::string transposeVertex(Graph &graph, const Type &type) {
  const std::string T = detail::deviceType("popops::rearrange::addTransposeVertices", type);
  std::ostringstream b;
  b << "  poplar::Input<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR, 8>> src;\n"
    << "  poplar::Output<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR, 8>> dst;\n"
    << "  unsigned rows;\n  unsigned cols;\n  unsigned matrices;\n"
    // split: 0 one worker, 1 whole matrices a worker, 2 whole output rows a worker.
    << "  unsigned split;\n"
    << "  void compute(unsigned wid) {\n"
    << "    const unsigned size = rows * cols;\n"
    << "    if (split == 2) {\n"
    << "      for (unsigned o = wid; o < matrices * cols; o += 6) {\n"
    << "        const unsigned m = o / cols, c = o - m * cols;\n"
    << "        const " << T << " *in = &src[m * size + c];\n"
    << "        " << T << " *out = &dst[o * rows];\n"
    << "        for (unsigned r = 0; r < rows; ++r) out[r] = in[r * cols];\n"
    << "      }\n"
    << "      return;\n"
    << "    }\n"
    << "    const unsigned step = split == 1 ? 6 : 1;\n"
    << "    if (wid >= step) return;\n"
    << "    for (unsigned m = wid; m < matrices; m += step)\n"
    << "      for (unsigned c = 0; c < cols; ++c)\n"
    << "        for (unsigned r = 0; r < rows; ++r) dst[m * size + c * rows + r] = src[m * size + r * cols + c];\n"
    << "  }\n};\n";
  return ipusim::sdk::addGeneratedVertex(graph, "ipusim_popops_Transpose", "poplar::MultiVertex",
                                         "#include <poplar/Vertex.hpp>\n#include <ipudef.h>\n", b.str());
}

} // namespace

bool canUseFastTranspose(const Target &target, const Type &type, unsigned numRows, unsigned numColumns, unsigned) {
  const unsigned grain = 8 / unsigned(target.getTypeSize(type));
  return (type == HALF || type == FLOAT) && numRows % grain == 0 && numColumns % grain == 0;
}

unsigned getMinimumRegroupGrainSize(const Type &type) {
  if (type == HALF || type == UNSIGNED_SHORT || type == SHORT) return 4;
  if (type == FLOAT || type == INT || type == UNSIGNED_INT) return 2;
  return 8;
}

void addTransposeVertices(Graph &graph, const ComputeSet &cs, const Type &dType, unsigned rows, unsigned cols,
                          const Graph::TileToTensorMapping &mapping,
                          std::function<std::pair<const Tensor, const Tensor>(std::size_t)> getInOut) {
  const std::string op = "popops::rearrange::addTransposeVertices";
  if (rows == 0 || cols == 0) return;
  const std::string vertex = transposeVertex(graph, dType);
  const std::size_t bytes = graph.getTarget().getTypeSize(dType), size = std::size_t(rows) * cols;
  const unsigned split = rows * bytes % 4 == 0 ? 2 : size * bytes % 4 == 0 ? 1 : 0;
  for (std::size_t tile = 0; tile < mapping.size(); ++tile) {
    std::vector<Tensor> ins, outs;
    for (const Interval &i : mapping[tile])
      for (std::size_t m = i.begin(); m < i.end(); ++m) {
        const auto [in, out] = getInOut(m);
        if (in.numElements() != size || out.numElements() != size || in.elementType() != dType || out.elementType() != dType)
          fail(op, "matrix " + std::to_string(m) + " is " + in.elementType().toString() + " " + in.shapeToString() + " -> " +
                       out.elementType().toString() + " " + out.shapeToString() + "; expected " + std::to_string(size) +
                       " elements of " + dType.toString() + " each");
        ins.push_back(in.flatten());
        outs.push_back(out.flatten());
      }
    if (ins.empty()) continue;
    VertexRef v = graph.addVertex(cs, vertex);
    graph.connect(v["src"], concat(ins));
    graph.connect(v["dst"], concat(outs));
    graph.setInitialValue(v["rows"], rows);
    graph.setInitialValue(v["cols"], cols);
    graph.setInitialValue(v["matrices"], unsigned(ins.size()));
    graph.setInitialValue(v["split"], split);
    graph.setTileMapping(v, unsigned(tile));
  }
}

Tensor partialTranspose(Graph &graph, const Tensor &in, const ComputeSet &cs, const DebugContext &dc) {
  const std::string op = "popops::rearrange::partialTranspose";
  if (in.rank() < 2) fail(op, "the tensor must have rank 2 or more, not " + in.shapeToString());
  const std::size_t rank = in.rank(), rows = in.dim(rank - 2), cols = in.dim(rank - 1);
  const std::size_t size = rows * cols, count = size ? in.numElements() / size : 0;
  std::vector<std::size_t> outShape = in.shape();
  std::swap(outShape[rank - 2], outShape[rank - 1]);
  Tensor out = graph.addVariable(in.elementType(), outShape, dc.getPathName().empty() ? op : dc.getPathName());
  if (count == 0 || size == 0) return out;
  const Tensor inM = in.reshape({count, size}), outM = out.reshape({count, size});
  // Each matrix (and its output) on the tile of its first element.
  const Graph::TileToTensorMapping elements = graph.getTileMapping(inM);
  std::vector<unsigned> tileOf(count);
  for (std::size_t tile = 0; tile < elements.size(); ++tile)
    for (const Interval &i : elements[tile])
      for (std::size_t m = (i.begin() + size - 1) / size; m * size < i.end(); ++m) tileOf[m] = unsigned(tile);
  Graph::TileToTensorMapping matrices(elements.size()), outMapping(elements.size());
  for (std::size_t m = 0; m < count; ++m) {
    auto &mi = matrices[tileOf[m]];
    if (!mi.empty() && mi.back().end() == m) mi.back() = Interval(mi.back().begin(), m + 1);
    else mi.emplace_back(m, m + 1);
  }
  for (std::size_t tile = 0; tile < matrices.size(); ++tile)
    for (const Interval &i : matrices[tile]) outMapping[tile].emplace_back(i.begin() * size, i.end() * size);
  graph.setTileMapping(out.reshape({count * size}), outMapping);
  addTransposeVertices(graph, cs, in.elementType(), unsigned(rows), unsigned(cols), matrices,
                       [&](std::size_t m) { return std::pair<const Tensor, const Tensor>(inM[m], outM[m]); });
  return out;
}

} // namespace rearrange
} // namespace popops
