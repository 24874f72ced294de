// popops' multi-slices and multi-updates (embeddings; docs/popops.md "Multi-slices"). A plan
// splits the [rows][columns] table into blocks of rows and columns, one a tile (columns first:
// a column block holds every row while a tile's share of the memory allows it). Each block's
// tile reads the indices (brought by the exchange) and, for a slice, copies the rows it holds
// into its columns of the output, zeros for the rows it does not hold; with the rows split, the
// blocks' outputs are partials that popops::reduce sums (exactly one is not zero for each index).
// An update has each block apply the indices that fall in its rows, in order. Every value moves
// through the simulated exchange and is computed on the tiles.
#include "../sdk/Generated.hpp"
#include "Internal.hpp"

#include <popops/DynamicSlice.hpp>
#include <popops/Reduce.hpp>
#include <poputil/TileMapping.hpp>

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <ostream>
#include <sstream>
#include <tuple>

namespace popops {

using namespace poplar;

/// The plan: the table's shape and its split; a block is rows [r x rowBlock, ...) by columns
/// [c x colBlock, ...) on tile(r, c).
class SlicePlanInternal {
public:
  std::size_t rows = 0, cols = 0, rowBlock = 1, colBlock = 1, rowSplit = 1, colSplit = 1, tiles = 1;
  unsigned tile(std::size_t r, std::size_t c) const {
    return unsigned((r * colSplit + c) * tiles / (rowSplit * colSplit));
  }
  std::pair<std::size_t, std::size_t> rowRange(std::size_t r) const {
    return {std::min(rows, r * rowBlock), std::min(rows, (r + 1) * rowBlock)};
  }
  std::pair<std::size_t, std::size_t> colRange(std::size_t c) const {
    return {std::min(cols, c * colBlock), std::min(cols, (c + 1) * colBlock)};
  }
  auto key() const { return std::make_tuple(rows, cols, rowBlock, colBlock, tiles); }
};

SlicePlan::SlicePlan() = default;
SlicePlan::~SlicePlan() = default;
SlicePlan::SlicePlan(const SlicePlan &other)
    : internal(other.internal ? std::make_unique<SlicePlanInternal>(*other.internal) : nullptr) {}
SlicePlan::SlicePlan(SlicePlan &&other) = default;
SlicePlan &SlicePlan::operator=(const SlicePlan &other) {
  internal = other.internal ? std::make_unique<SlicePlanInternal>(*other.internal) : nullptr;
  return *this;
}
SlicePlan &SlicePlan::operator=(SlicePlan &&other) = default;
SlicePlan::SlicePlan(std::unique_ptr<SlicePlanInternal> i) : internal(std::move(i)) {}
std::ostream &operator<<(std::ostream &o, const SlicePlan &p) {
  if (p.isNull()) return o << "SlicePlan: none (made from the shapes at each call)";
  const SlicePlanInternal &i = p.getImpl();
  return o << "SlicePlan: rows " << i.rows << " in " << i.rowSplit << " of " << i.rowBlock << ", columns " << i.cols
           << " in " << i.colSplit << " of " << i.colBlock << "; " << i.rowSplit * i.colSplit << " tiles";
}
bool operator<(const SlicePlan &a, const SlicePlan &b) noexcept {
  if (a.isNull() || b.isNull()) return a.isNull() && !b.isNull();
  return a.getImpl().key() < b.getImpl().key();
}
bool operator==(const SlicePlan &a, const SlicePlan &b) noexcept { return !(a < b) && !(b < a); }
bool operator!=(const SlicePlan &a, const SlicePlan &b) noexcept { return !(a == b); }

namespace {

using ipusim::sdk::fail;

double planOptions(const OptionFlags &options) {
  double proportion = 0.1;
  for (const auto &[k, v] : options) {
    if (k == "availableMemoryProportion") {
      char *end = nullptr;
      proportion = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end || proportion <= 0)
        throw invalid_option("popops::embedding::plan: availableMemoryProportion must be a positive number, not '" + v + "'");
    } else if (k == "usedForSlice" || k == "usedForUpdate" || k == "indicesAreSorted" || k == "partialType") {
      if (k != "partialType" && v != "true" && v != "false")
        throw invalid_option("popops::embedding::plan: " + k + " must be true or false, not '" + v + "'");
    } else if (k == "operationForUpdate") {
      if (v != "none" && v != "add" && v != "max")
        throw invalid_option("popops::embedding::plan: operationForUpdate must be none, add or max, not '" + v + "'");
    } else if (k != "indicesDistribution" && k != "planMinimisationTarget") {
      throw invalid_option("popops::embedding::plan: unknown option '" + k + "'");
    }
  }
  return proportion;
}

std::size_t ceilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

SlicePlanInternal makePlan(const Graph &graph, const Type &type, std::size_t rows, std::size_t cols,
                           const OptionFlags &options, std::size_t maxRowBlock = 0) {
  const double budget = planOptions(options) * graph.getTarget().getBytesPerTile();
  const std::size_t tiles = graph.getTarget().getNumTiles(), bytes = graph.getTarget().getTypeSize(type);
  // Columns in whole 32-bit words a block, as many blocks as tiles allow.
  const std::size_t grain = std::max<std::size_t>(1, 4 / bytes);
  SlicePlanInternal p;
  p.rows = rows, p.cols = cols;
  p.colBlock = std::max<std::size_t>(grain, ceilDiv(ceilDiv(std::max<std::size_t>(cols, 1), tiles), grain) * grain);
  p.colSplit = std::max<std::size_t>(1, ceilDiv(cols, p.colBlock));
  // Rows split only as far as the table's block must be to fit the budget.
  const std::size_t maxRowSplit = std::max<std::size_t>(1, std::min(tiles / p.colSplit, std::max<std::size_t>(rows, 1)));
  std::size_t want = std::size_t(std::ceil(double(rows) * double(p.colBlock * bytes) / budget));
  if (maxRowBlock) want = std::max(want, ceilDiv(rows, maxRowBlock));
  p.rowSplit = std::clamp<std::size_t>(want, 1, maxRowSplit);
  p.rowBlock = std::max<std::size_t>(1, ceilDiv(rows, p.rowSplit));
  p.rowSplit = std::max<std::size_t>(1, ceilDiv(rows, p.rowBlock));
  p.tiles = tiles;
  return p;
}

/// ipusim's multi-slices take rank-2 tables sliced in dimension 0, one row an index.
void checkTable(const std::string &op, const std::vector<std::size_t> &shape, const std::vector<std::size_t> &dims,
                const std::vector<std::size_t> &sizes) {
  if (shape.size() != 2 || dims != std::vector<std::size_t>{0} || sizes != std::vector<std::size_t>{1})
    fail(op, "ipusim slices rank-2 tables in dimension 0 by one row an index (dims {0}, sizes {1}); the table has shape " +
                 ipusim::sdk::shapeString(shape));
}

/// The plan to use for table t: the given one (checked against t) or one made from the shapes.
SlicePlanInternal planFor(const std::string &op, const Graph &graph, const Tensor &t, const Tensor &offsets,
                          const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                          const SlicePlan &plan, const OptionFlags &options) {
  checkTable(op, t.shape(), dims, sizes);
  if (offsets.elementType() != UNSIGNED_INT || (!(offsets.rank() == 2 && offsets.dim(1) == 1) && offsets.rank() != 1))
    fail(op, "the offsets must be unsigned int of shape [indices][1], not " + offsets.elementType().toString() + " " +
                 offsets.shapeToString());
  if (plan.isNull()) return makePlan(graph, t.elementType(), t.dim(0), t.dim(1), options);
  const SlicePlanInternal &p = plan.getImpl();
  if (p.rows != t.dim(0) || p.cols != t.dim(1))
    fail(op, "the plan is for a [" + std::to_string(p.rows) + "][" + std::to_string(p.cols) + "] table, not " +
                 t.shapeToString());
  return p;
}

/// A [n][cols] tensor made of one variable a column block, block c on tile(row block r, c).
Tensor columnBlocks(Graph &graph, const Type &type, const SlicePlanInternal &p, std::size_t n, std::size_t r,
                    const std::string &name) {
  std::vector<Tensor> blocks;
  for (std::size_t c = 0; c < p.colSplit; ++c) {
    const auto [c0, c1] = p.colRange(c);
    Tensor b = graph.addVariable(type, {n, c1 - c0}, name);
    graph.setTileMapping(b, p.tile(r, c));
    blocks.push_back(b);
  }
  return concat(blocks, 1);
}

std::string sliceVertex(Graph &graph, const std::string &op, const Type &type) {
  const std::string T = detail::deviceType(op, type);
  std::ostringstream b;
  b << "  poplar::Input<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR>> table;\n"
    << "  poplar::Input<poplar::Vector<unsigned>> offsets;\n"
    << "  poplar::Output<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR>> out;\n"
    << "  unsigned first;\n  unsigned rows;\n  unsigned cols;\n  unsigned workers;\n"
    << "  void compute(unsigned wid) {\n"
    << "    if (wid >= workers) return;\n"
    << "    for (unsigned i = wid; i < offsets.size(); i += workers) {\n"
    << "      const unsigned r = offsets[i] - first; // below the block wraps past rows\n"
    << "      for (unsigned c = 0; c < cols; ++c) out[i * cols + c] = r < rows ? table[r * cols + c] : " << T << "(0);\n"
    << "    }\n  }\n};\n";
  return ipusim::sdk::addGeneratedVertex(graph, "ipusim_popops_MultiSlice", "poplar::MultiVertex",
                                         "#include <poplar/Vertex.hpp>\n", b.str());
}

enum class Update { Set, Add, Max };

/// The update vertex: each worker a share of the block's columns (in whole words), every index
/// in order, so repeated indices apply one after the other.
std::string updateVertex(Graph &graph, const std::string &op, const Type &type, const Type &scaleType, Update u) {
  const std::string T = detail::deviceType(op, type);
  const bool real = type == FLOAT || type == HALF;
  std::string apply;
  if (u == Update::Set) apply = "s[i * cols + c]";
  else if (u == Update::Max) apply = "table[r * cols + c] < s[i * cols + c] ? s[i * cols + c] : table[r * cols + c]";
  else if (real)
    apply = T + "(float(table[r * cols + c]) + float(*scale) * float(s[i * cols + c]))";
  else
    apply = T + "(table[r * cols + c] + " + T + "(*scale) * s[i * cols + c])";
  std::ostringstream b;
  b << "  poplar::InOut<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR>> table;\n"
    << "  poplar::Input<poplar::Vector<unsigned>> offsets;\n"
    << "  poplar::Input<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR>> s;\n"
    << (u == Update::Add ? "  poplar::Input<" + detail::deviceType(op, scaleType) + "> scale;\n" : std::string())
    << "  unsigned first;\n  unsigned rows;\n  unsigned cols;\n"
    << "  void compute(unsigned wid) {\n"
    << "    const unsigned per = ((cols + 5) / 6 + 1) & ~1u;\n"
    << "    const unsigned c0 = wid * per < cols ? wid * per : cols, c1 = c0 + per < cols ? c0 + per : cols;\n"
    << "    for (unsigned i = 0; i < offsets.size(); ++i) {\n"
    << "      const unsigned r = offsets[i] - first;\n"
    << "      if (r >= rows) continue;\n"
    << "      for (unsigned c = c0; c < c1; ++c) table[r * cols + c] = " << apply << ";\n"
    << "    }\n  }\n};\n";
  const char *names[] = {"ipusim_popops_MultiUpdate", "ipusim_popops_MultiUpdateAdd", "ipusim_popops_MultiUpdateMax"};
  return ipusim::sdk::addGeneratedVertex(graph, names[int(u)], "poplar::MultiVertex", "#include <poplar/Vertex.hpp>\n",
                                         b.str());
}

/// s ([indices][1][cols]) checked against the table and offsets.
void checkSlices(const std::string &op, const Tensor &t, const Tensor &s, const Tensor &offsets) {
  const std::vector<std::size_t> want{offsets.dim(0), 1, t.dim(1)};
  if (s.shape() != want)
    fail(op, "the slices have shape " + s.shapeToString() + "; expected " + ipusim::sdk::shapeString(want));
  if (s.elementType() != t.elementType())
    fail(op, "the slices are " + s.elementType().toString() + " and the table " + t.elementType().toString());
  if (t.containsAliases()) fail(op, "the table contains aliases");
}

/// Adds to cs a `vertex` on each block's tile with the block of t, the indices and the block's
/// place (first row, rows, columns); `more(v, row block, first column, end column)` connects the
/// rest.
void addBlockVertices(Graph &graph, ComputeSet cs, const std::string &vertex, const SlicePlanInternal &p,
                      const Tensor &t, const Tensor &offsets,
                      const std::function<void(VertexRef, std::size_t, std::size_t, std::size_t)> &more) {
  const Tensor flatOffsets = offsets.flatten();
  for (std::size_t r = 0; r < p.rowSplit; ++r)
    for (std::size_t c = 0; c < p.colSplit; ++c) {
      const auto [r0, r1] = p.rowRange(r);
      const auto [c0, c1] = p.colRange(c);
      if (r0 >= r1 || c0 >= c1) continue;
      VertexRef v = graph.addVertex(cs, vertex);
      graph.connect(v["table"], t.slice({r0, c0}, {r1, c1}).flatten());
      graph.connect(v["offsets"], flatOffsets);
      graph.setInitialValue(v["first"], unsigned(r0));
      graph.setInitialValue(v["rows"], unsigned(r1 - r0));
      graph.setInitialValue(v["cols"], unsigned(c1 - c0));
      more(v, r, c0, c1);
      graph.setTileMapping(v, p.tile(r, c));
    }
}

void update(Graph &graph, const std::string &op, const Tensor &t, const Tensor &s, const Tensor &offsets,
            const Tensor *scale, const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
            program::Sequence &prog, const SlicePlan &plan, const OptionFlags &options, const DebugContext &dc,
            Update u) {
  const std::string name = dc.getPathName().empty() ? op : dc.getPathName();
  const SlicePlanInternal p = planFor(op, graph, t, offsets, dims, sizes, plan, options);
  checkSlices(op, t, s, offsets);
  if (scale) {
    if (scale->numElements() != 1) fail(op, "the scale must be one element, not " + scale->shapeToString());
    if (scale->elementType() != t.elementType() && !(t.elementType() == HALF && scale->elementType() == FLOAT))
      fail(op, "the scale is " + scale->elementType().toString() + "; it must be " + t.elementType().toString() +
                   (t.elementType() == HALF ? " or float" : ""));
  }
  if (offsets.dim(0) == 0 || t.numElements() == 0) return;
  const std::string vertex = updateVertex(graph, op, t.elementType(), scale ? scale->elementType() : FLOAT, u);
  const Tensor s2 = s.reshape({s.dim(0), s.dim(2)});
  ComputeSet cs = graph.addComputeSet(name);
  addBlockVertices(graph, cs, vertex, p, t, offsets, [&](VertexRef v, std::size_t, std::size_t c0, std::size_t c1) {
    graph.connect(v["s"], s2.slice(c0, c1, 1).flatten());
    if (scale) graph.connect(v["scale"], scale->reshape({}));
  });
  prog.add(program::Execute(cs));
}

} // namespace

SlicePlan detail::slicePlan(const Graph &graph, const Type &type, std::size_t rows, std::size_t cols,
                            std::size_t maxRowBlock) {
  return SlicePlan(std::make_unique<SlicePlanInternal>(makePlan(graph, type, rows, cols, {}, maxRowBlock)));
}

SlicePlan embedding::plan(const Graph &graph, const Type &dataType, std::size_t numEntries, std::size_t outputSize,
                          const std::vector<std::size_t> &, const OptionFlags &options) {
  return SlicePlan(std::make_unique<SlicePlanInternal>(makePlan(graph, dataType, numEntries, outputSize, options)));
}

Tensor createSliceableTensor(Graph &graph, const Type &type, const std::vector<std::size_t> &shape,
                             const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                             const SlicePlan &plan, const OptionFlags &options, const DebugContext &dc) {
  const std::string op = "popops::createSliceableTensor";
  checkTable(op, shape, dims, sizes);
  const SlicePlanInternal p = plan.isNull() ? makePlan(graph, type, shape[0], shape[1], options) : plan.getImpl();
  if (p.rows != shape[0] || p.cols != shape[1])
    fail(op, "the plan is for a [" + std::to_string(p.rows) + "][" + std::to_string(p.cols) + "] table, not " +
                 ipusim::sdk::shapeString(shape));
  const std::string name = dc.getPathName().empty() ? op : dc.getPathName();
  // Each block a variable of its own on its tile.
  std::vector<Tensor> rowBlocks;
  for (std::size_t r = 0; r < p.rowSplit; ++r) {
    const auto [r0, r1] = p.rowRange(r);
    if (r0 < r1) rowBlocks.push_back(columnBlocks(graph, type, p, r1 - r0, r, name));
  }
  if (rowBlocks.empty()) {
    Tensor t = graph.addVariable(type, shape, name);
    graph.setTileMapping(t, 0);
    return t;
  }
  return concat(rowBlocks, 0);
}

Tensor createSliceableTensor(Graph &graph, const Type &type, const std::vector<std::size_t> &shape,
                             const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                             std::size_t, const DebugContext &dc) {
  return createSliceableTensor(graph, type, shape, dims, sizes, SlicePlan(), {}, dc);
}

Tensor createSliceTensor(Graph &graph, const Type &type, const std::vector<std::size_t> &shape,
                         const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                         std::size_t numIndices, const SlicePlan &plan, const OptionFlags &options,
                         const DebugContext &dc) {
  const std::string op = "popops::createSliceTensor";
  checkTable(op, shape, dims, sizes);
  const SlicePlanInternal p = plan.isNull() ? makePlan(graph, type, shape[0], shape[1], options) : plan.getImpl();
  const std::string name = dc.getPathName().empty() ? op : dc.getPathName();
  return columnBlocks(graph, type, p, numIndices, 0, name).expand({1});
}

Tensor createSliceTensor(Graph &graph, const Tensor &t, const std::vector<std::size_t> &dims,
                         const std::vector<std::size_t> &sizes, std::size_t numIndices, const DebugContext &dc) {
  return createSliceTensor(graph, t.elementType(), t.shape(), dims, sizes, numIndices, SlicePlan(), {}, dc);
}

Tensor createIndicesTensor(Graph &graph, const std::vector<std::size_t> &dims, std::size_t numIndices,
                           const SlicePlan &, const OptionFlags &, const DebugContext &dc) {
  Tensor t = graph.addVariable(UNSIGNED_INT, {numIndices, dims.size()},
                               dc.getPathName().empty() ? "popops::createIndicesTensor" : dc.getPathName());
  poputil::mapTensorLinearly(graph, t);
  return t;
}

Tensor multiSlice(Graph &graph, const Tensor &t, const Tensor &offsets, const std::vector<std::size_t> &dims,
                  const std::vector<std::size_t> &sizes, program::Sequence &prog, const SlicePlan &plan,
                  const OptionFlags &options, const DebugContext &dc) {
  const std::string op = "popops::multiSlice";
  const std::string name = dc.getPathName().empty() ? op : dc.getPathName();
  const SlicePlanInternal p = planFor(op, graph, t, offsets, dims, sizes, plan, options);
  const std::size_t n = offsets.dim(0);
  Tensor out = columnBlocks(graph, t.elementType(), p, n, 0, name);
  if (n == 0 || t.numElements() == 0) return out.expand({1});
  const std::string vertex = sliceVertex(graph, op, t.elementType());
  const unsigned bytes = unsigned(graph.getTarget().getTypeSize(t.elementType()));
  // With the rows split, each row block writes partials (zeros where it holds no row).
  std::vector<Tensor> partials;
  for (std::size_t r = 0; r < p.rowSplit; ++r)
    partials.push_back(p.rowSplit == 1 ? out : columnBlocks(graph, t.elementType(), p, n, r, name + "/partials"));
  ComputeSet cs = graph.addComputeSet(name);
  addBlockVertices(graph, cs, vertex, p, t, offsets, [&](VertexRef v, std::size_t r, std::size_t c0, std::size_t c1) {
    graph.connect(v["out"], partials[r].slice(c0, c1, 1).flatten());
    graph.setInitialValue(v["workers"], (c1 - c0) * bytes % 4 ? 1u : 6u);
  });
  prog.add(program::Execute(cs));
  if (p.rowSplit > 1) {
    std::vector<Tensor> stacked;
    for (const Tensor &x : partials) stacked.push_back(x.expand({0}));
    reduceWithOutput(graph, concat(stacked), out, {0}, Operation::ADD, prog, name + "/combine");
  }
  return out.expand({1});
}

void multiUpdate(Graph &graph, const Tensor &t, const Tensor &s, const Tensor &offsets,
                 const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes, program::Sequence &prog,
                 const SlicePlan &plan, const OptionFlags &options, const DebugContext &dc) {
  update(graph, "popops::multiUpdate", t, s, offsets, nullptr, dims, sizes, prog, plan, options, dc, Update::Set);
}

void multiUpdateAdd(Graph &graph, const Tensor &t, const Tensor &s, const Tensor &offsets, const Tensor &scale,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    program::Sequence &prog, const SlicePlan &plan, const OptionFlags &options, const DebugContext &dc) {
  update(graph, "popops::multiUpdateAdd", t, s, offsets, &scale, dims, sizes, prog, plan, options, dc, Update::Add);
}

void multiUpdateMax(Graph &graph, const Tensor &t, const Tensor &s, const Tensor &offsets,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    program::Sequence &prog, const SlicePlan &plan, const OptionFlags &options, const DebugContext &dc) {
  update(graph, "popops::multiUpdateMax", t, s, offsets, nullptr, dims, sizes, prog, plan, options, dc, Update::Max);
}

} // namespace popops
