// popops' dynamic slices. The sliced dimension moves to the front: t as [D][R]. Its rows are cut
// into chunks, each a run of rows whose first element is on one tile; there a vertex reads the
// offset (brought by the exchange like any operand) and, for each output row j, copies row
// (offset + j) mod D if the chunk holds it, else zeros. The chunks' partial outputs are summed by
// popops::reduce (exactly one is not zero for each row). An update writes, on each chunk's tile,
// the rows of s that land in the chunk.
#include "../sdk/Generated.hpp"
#include "Internal.hpp"

#include <popops/DynamicSlice.hpp>
#include <popops/Reduce.hpp>

#include <poplar/exceptions.hpp>

#include <sstream>

namespace popops {

using namespace poplar;

namespace {

struct Chunk {
  std::size_t begin, end;
  unsigned tile;
};

// t with dimension `dim` first, as [D][R], and its chunks of rows.
Tensor rows(const std::string &op, const Tensor &t, const std::vector<std::size_t> &dims,
            const std::vector<std::size_t> &sizes, const Tensor &offset) {
  if (dims.size() != 1 || sizes.size() != 1)
    throw poplar_error(op + ": ipusim slices one dimension per call (dims and sizes of one element)");
  if (dims[0] >= t.rank())
    throw poplar_error(op + ": dimension " + std::to_string(dims[0]) + " is out of range for shape " + t.shapeToString());
  if (sizes[0] > t.dim(unsigned(dims[0])))
    throw poplar_error(op + ": a slice of " + std::to_string(sizes[0]) + " from a dimension of " +
                       std::to_string(t.dim(unsigned(dims[0]))));
  if (offset.numElements() != 1 || offset.elementType() != UNSIGNED_INT)
    throw poplar_error(op + ": the offset must be one unsigned int");
  const Tensor first = t.dimRoll(unsigned(dims[0]), 0);
  const std::size_t d = first.dim(0);
  return first.reshape({d, d ? first.numElements() / d : 0});
}

std::vector<Chunk> chunks(Graph &graph, const Tensor &rows2) {
  std::vector<Chunk> r;
  const std::size_t width = rows2.dim(1);
  const auto mapping = graph.getTileMapping(rows2.flatten(), false);
  std::vector<unsigned> tileOf(rows2.dim(0), 0);
  for (std::size_t tile = 0; tile < mapping.size(); ++tile)
    for (const Interval &i : mapping[tile])
      for (std::size_t e = i.begin(); e < i.end(); ++e)
        if (width && e % width == 0) tileOf[e / width] = unsigned(tile);
  for (std::size_t row = 0; row < rows2.dim(0); ++row)
    if (r.empty() || r.back().tile != tileOf[row]) r.push_back({row, row + 1, tileOf[row]});
    else r.back().end = row + 1;
  return r;
}

std::string sliceVertex(Graph &graph, const std::string &op, const Type &type, bool update) {
  const std::string T = detail::deviceType(op, type);
  std::ostringstream b;
  // base: the chunk's rows; other: the slice's rows; offset, the dimension's size, the chunk's
  // first row and the row width as fields.
  b << "  poplar::" << (update ? "InOut" : "Input") << "<poplar::Vector<" << T << ">> base;\n"
    << "  poplar::" << (update ? "Input" : "Output") << "<poplar::Vector<" << T << ">> other;\n"
    << "  poplar::Input<unsigned> offset;\n  unsigned size;\n  unsigned first;\n  unsigned width;\n"
    << "  void compute() {\n"
    << "    const unsigned rows = other.size() / width, chunk = base.size() / width;\n"
    << "    for (unsigned j = 0; j < rows; ++j) {\n"
    << "      const unsigned idx = (offset % size + j) % size;\n"
    << "      const bool here = idx >= first && idx < first + chunk;\n"
    << "      for (unsigned i = 0; i < width; ++i)\n"
    << (update ? "        if (here) base[(idx - first) * width + i] = other[j * width + i];\n"
               : "        other[j * width + i] = here ? base[(idx - first) * width + i] : " + T + "(0);\n")
    << "    }\n  }\n};\n";
  return ipusim::sdk::addGeneratedVertex(graph, update ? "ipusim_popops_DynamicUpdate" : "ipusim_popops_DynamicSlice",
                                         "poplar::Vertex", "#include <poplar/Vertex.hpp>\n", b.str());
}

} // namespace

Tensor dynamicSlice(Graph &graph, const Tensor &t, const Tensor &offset, const std::vector<std::size_t> &dims,
                    const std::vector<std::size_t> &sizes, program::Sequence &prog, const DebugContext &debugContext,
                    const OptionFlags &) {
  const std::string op = "popops::dynamicSlice", name = debugContext.getPathName().empty() ? op : debugContext.getPathName();
  const Tensor base = rows(op, t, dims, sizes, offset);
  std::vector<std::size_t> outShape = t.shape();
  outShape[dims[0]] = sizes[0];
  Tensor out = graph.addVariable(t.elementType(), outShape, name);
  const std::size_t width = base.dim(1);
  if (out.numElements() == 0) {
    graph.setTileMapping(out, 0);
    return out;
  }
  const std::vector<Chunk> cs = chunks(graph, base);
  // Each chunk's partial output [size][R] on its tile.
  Tensor partials = graph.addVariable(t.elementType(), {cs.size(), sizes[0], width}, name + "/partials");
  const std::string vertex = sliceVertex(graph, op, t.elementType(), false);
  ComputeSet set = graph.addComputeSet(name);
  for (std::size_t k = 0; k < cs.size(); ++k) {
    graph.setTileMapping(partials[k], cs[k].tile);
    VertexRef v = graph.addVertex(set, vertex);
    graph.connect(v["base"], base.slice(cs[k].begin, cs[k].end).flatten());
    graph.connect(v["other"], partials[k].flatten());
    graph.connect(v["offset"], offset.reshape({}));
    graph.setInitialValue(v["size"], unsigned(base.dim(0)));
    graph.setInitialValue(v["first"], unsigned(cs[k].begin));
    graph.setInitialValue(v["width"], unsigned(width));
    graph.setTileMapping(v, cs[k].tile);
  }
  prog.add(program::Execute(set));
  // out, as [size][R] with the sliced dimension first, is the sum of the partials.
  Tensor outRows = out.dimRoll(unsigned(dims[0]), 0).reshape({sizes[0], width});
  for (std::size_t j = 0; j < sizes[0]; ++j) graph.setTileMapping(outRows[j], cs[0].tile);
  if (cs.size() == 1) prog.add(program::Copy(partials[0], outRows));
  else reduceWithOutput(graph, partials, outRows, {0}, Operation::ADD, prog, name + "/combine");
  return out;
}

void dynamicUpdate(Graph &graph, const Tensor &t, const Tensor &s, const Tensor &offset,
                   const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                   program::Sequence &prog, const DebugContext &debugContext, const OptionFlags &) {
  const std::string op = "popops::dynamicUpdate", name = debugContext.getPathName().empty() ? op : debugContext.getPathName();
  const Tensor base = rows(op, t, dims, sizes, offset);
  std::vector<std::size_t> sShape = t.shape();
  sShape[dims[0]] = sizes[0];
  if (s.shape() != sShape)
    throw poplar_error(op + ": the slice has shape " + s.shapeToString() + "; it must be " + ipusim::sdk::shapeString(sShape));
  if (s.elementType() != t.elementType())
    throw poplar_error(op + ": the slice is " + s.elementType().toString() + " and the tensor " + t.elementType().toString());
  if (t.containsAliases()) throw poplar_error(op + ": the tensor updated contains aliases");
  const std::size_t width = base.dim(1);
  if (s.numElements() == 0) return;
  const std::vector<Chunk> cs = chunks(graph, base);
  const Tensor sRows = s.dimRoll(unsigned(dims[0]), 0).reshape({sizes[0], width});
  const std::string vertex = sliceVertex(graph, op, t.elementType(), true);
  ComputeSet set = graph.addComputeSet(name);
  for (const Chunk &c : cs) {
    VertexRef v = graph.addVertex(set, vertex);
    graph.connect(v["base"], base.slice(c.begin, c.end).flatten());
    graph.connect(v["other"], sRows.flatten());
    graph.connect(v["offset"], offset.reshape({}));
    graph.setInitialValue(v["size"], unsigned(base.dim(0)));
    graph.setInitialValue(v["first"], unsigned(c.begin));
    graph.setInitialValue(v["width"], unsigned(width));
    graph.setTileMapping(v, c.tile);
  }
  prog.add(program::Execute(set));
}

} // namespace popops
