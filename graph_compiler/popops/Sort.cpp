// popops' sorts and top k (docs/popops.md "Sorts and top k"). Both work on 1-D slices ("rows")
// of n elements: the rows are copied through the exchange into a working tensor that holds whole
// rows a tile (createTopKInput gives that layout, so the copy stays on the tile), and one vertex
// a tile sorts its rows, each of the six workers its own rows, by heapsort on (key, original
// place): a total order, so the result is what a stable sort gives, with no scratch beyond the
// places, which topKWithPermutation returns. Values and places move with their keys. Top k keeps
// a heap of the k best so far (n log k a row), then sorts those k in the order asked.
#include "../sdk/Generated.hpp"
#include "Internal.hpp"

#include <popops/Sort.hpp>
#include <popops/TopK.hpp>

#include <ostream>
#include <sstream>

namespace popops {

using namespace poplar;
using ipusim::sdk::fail;

std::ostream &operator<<(std::ostream &os, const SortOrder &o) {
  switch (o) {
  case SortOrder::NONE: return os << "none";
  case SortOrder::ASCENDING: return os << "ascending";
  case SortOrder::DESCENDING: return os << "descending";
  }
  return os << "SortOrder(" << int(o) << ")";
}

TopKParams::TopKParams(unsigned k, bool largest, SortOrder sortOrder, bool stableSort) noexcept
    : k(k), largest(largest), sortOrder(sortOrder), stableSort(stableSort) {}

std::ostream &operator<<(std::ostream &os, const TopKParams &p) {
  return os << "{k=" << p.k << ", largest=" << (p.largest ? "true" : "false") << ", sortOrder=" << p.sortOrder
            << ", stableSort=" << (p.stableSort ? "true" : "false") << "}";
}

namespace {

/// The sort vertex for keys of K (and values of V when V is not empty). Each row: places set to
/// 0..n-1; with k = n, a heapsort of the row by `select` (1: larger keys first), reversed when
/// `reorder`; with k < n, the k first in selection order gathered at the row's start by a heap
/// of k (n log k), then sorted by `select`, or the other way when `reorder`.
std::string sortVertex(Graph &graph, const std::string &K, const std::string &V) {
  std::ostringstream b;
  b << "  poplar::InOut<poplar::Vector<" << K << ", poplar::VectorLayout::ONE_PTR>> keys;\n"
    << "  poplar::InOut<poplar::Vector<unsigned, poplar::VectorLayout::ONE_PTR>> places;\n"
    << (V.empty() ? "" : "  poplar::InOut<poplar::Vector<" + V + ", poplar::VectorLayout::ONE_PTR>> values;\n")
    << "  unsigned rows;\n  unsigned n;\n  unsigned k;\n  unsigned select;\n  unsigned reorder;\n  unsigned workers;\n"
    // a goes before b: its key is smaller (larger when descending) or equal from an earlier place.
    << "  bool before(unsigned a, unsigned b, unsigned descending) {\n"
    << "    const " << K << " x = keys[a], y = keys[b];\n"
    << "    if (x < y) return !descending;\n"
    << "    if (y < x) return descending;\n"
    << "    return places[a] < places[b];\n"
    << "  }\n"
    << "  void swap(unsigned a, unsigned b) {\n"
    << "    const " << K << " x = keys[a]; keys[a] = keys[b]; keys[b] = x;\n"
    << "    const unsigned p = places[a]; places[a] = places[b]; places[b] = p;\n"
    << (V.empty() ? "" : "    const " + V + " v = values[a]; values[a] = values[b]; values[b] = v;\n")
    << "  }\n"
    // The heap of count elements from base, its root the last in order.
    << "  void siftDown(unsigned base, unsigned at, unsigned count, unsigned descending) {\n"
    << "    for (;;) {\n"
    << "      unsigned child = 2 * at + 1;\n"
    << "      if (child >= count) return;\n"
    << "      if (child + 1 < count && before(base + child, base + child + 1, descending)) ++child;\n"
    << "      if (!before(base + at, base + child, descending)) return;\n"
    << "      swap(base + at, base + child);\n"
    << "      at = child;\n"
    << "    }\n"
    << "  }\n"
    << "  void heapSort(unsigned base, unsigned count, unsigned descending) {\n"
    << "    for (unsigned i = count / 2; i-- > 0;) siftDown(base, i, count, descending);\n"
    << "    for (unsigned end = count; end > 1; --end) {\n"
    << "      swap(base, base + end - 1);\n"
    << "      siftDown(base, 0, end - 1, descending);\n"
    << "    }\n"
    << "  }\n"
    << "  void compute(unsigned wid) {\n"
    << "    if (wid >= workers) return;\n"
    << "    for (unsigned r = wid; r < rows; r += workers) {\n"
    << "      const unsigned base = r * n;\n"
    << "      for (unsigned i = 0; i < n; ++i) places[base + i] = i;\n"
    << "      if (k == n) {\n"
    << "        heapSort(base, n, select);\n"
    << "        if (reorder) heapSort(base, n, !select);\n"
    << "        continue;\n"
    << "      }\n"
    // Top k: a heap of the first k whose root is the last of them in selection order; each
    // later element that goes before it replaces it. Then the k in the order asked.
    << "      for (unsigned i = k / 2; i-- > 0;) siftDown(base, i, k, select);\n"
    << "      for (unsigned i = k; i < n; ++i)\n"
    << "        if (k && before(base + i, base, select)) {\n"
    << "          swap(base + i, base);\n"
    << "          siftDown(base, 0, k, select);\n"
    << "        }\n"
    << "      heapSort(base, k, reorder ? !select : select);\n"
    << "    }\n"
    << "  }\n};\n";
  return ipusim::sdk::addGeneratedVertex(graph, "ipusim_popops_Sort", "poplar::MultiVertex",
                                         "#include <poplar/Vertex.hpp>\n#include <ipudef.h>\n", b.str());
}

/// The first tile and row count of each tile's share when `rows` rows spread over the tiles.
struct RowSpread {
  std::size_t perTile;
  std::size_t tiles;
};
RowSpread spread(const Graph &graph, std::size_t rows) {
  const std::size_t tiles = graph.getTarget().getNumTiles();
  const std::size_t perTile = std::max<std::size_t>(1, (rows + tiles - 1) / tiles);
  return {perTile, (rows + perTile - 1) / perTile};
}

/// A [rows][n] variable with whole rows a tile, spread over the tiles.
Tensor rowsVariable(Graph &graph, const Type &type, std::size_t rows, std::size_t n, const std::string &name) {
  Tensor t = graph.addVariable(type, {rows, n}, name);
  const RowSpread s = spread(graph, rows);
  for (std::size_t i = 0; i < s.tiles; ++i)
    graph.setTileMapping(t.slice(i * s.perTile, std::min(rows, (i + 1) * s.perTile)), unsigned(i));
  return t;
}

struct Sorted {
  Tensor keys, places, values; // [rows][n] each (values invalid without values)
};

/// Sorts the rows of keys (and values) [rows][n] as the vertex does; `k` and `reorder` as it.
Sorted sortRows(Graph &graph, const std::string &op, const Tensor &keys, const Tensor *values, bool descending,
                std::size_t k, bool reorder, program::Sequence &prog, const std::string &name) {
  const std::size_t rows = keys.dim(0), n = keys.dim(1);
  Sorted s;
  s.keys = rowsVariable(graph, keys.elementType(), rows, n, name + "/keys");
  s.places = rowsVariable(graph, UNSIGNED_INT, rows, n, name + "/places");
  prog.add(program::Copy(keys, s.keys));
  if (values) {
    s.values = rowsVariable(graph, values->elementType(), rows, n, name + "/values");
    prog.add(program::Copy(*values, s.values));
  }
  if (rows == 0 || n == 0) return s;
  const std::string K = detail::deviceType(op, keys.elementType());
  const std::string V = values ? detail::deviceType(op, values->elementType()) : "";
  const std::string vertex = sortVertex(graph, K, V);
  // Workers own whole rows; a row that does not end on a word boundary shares a word with the
  // next, so then one worker (sub-word stores are read-modify-write).
  const Target &target = graph.getTarget();
  bool wordRows = n * target.getTypeSize(keys.elementType()) % 4 == 0;
  if (values) wordRows &= n * target.getTypeSize(values->elementType()) % 4 == 0;
  ComputeSet cs = graph.addComputeSet(name);
  const RowSpread sp = spread(graph, rows);
  for (std::size_t i = 0; i < sp.tiles; ++i) {
    const std::size_t r0 = i * sp.perTile, r1 = std::min(rows, r0 + sp.perTile);
    VertexRef v = graph.addVertex(cs, vertex);
    graph.connect(v["keys"], s.keys.slice(r0, r1).flatten());
    graph.connect(v["places"], s.places.slice(r0, r1).flatten());
    if (values) graph.connect(v["values"], s.values.slice(r0, r1).flatten());
    graph.setInitialValue(v["rows"], unsigned(r1 - r0));
    graph.setInitialValue(v["n"], unsigned(n));
    graph.setInitialValue(v["k"], unsigned(k));
    graph.setInitialValue(v["select"], descending ? 1u : 0u);
    graph.setInitialValue(v["reorder"], reorder ? 1u : 0u);
    graph.setInitialValue(v["workers"], wordRows ? 6u : 1u);
    graph.setTileMapping(v, unsigned(i));
  }
  prog.add(program::Execute(cs));
  return s;
}

std::string nameOf(const DebugContext &dc, const std::string &op) { return dc.getPathName().empty() ? op : dc.getPathName(); }

void checkDim(const std::string &op, const Tensor &t, unsigned dim) {
  if (dim >= t.rank()) fail(op, "dimension " + std::to_string(dim) + " is not a dimension of " + t.shapeToString());
}

void checkPair(const std::string &op, const Tensor &k, const Tensor &v) {
  if (k.shape() != v.shape())
    fail(op, "the keys have shape " + k.shapeToString() + " and the values " + v.shapeToString() + ": they must be the same");
}

/// t with dimension dim innermost, as [rows][n].
Tensor asRows(const Tensor &t, unsigned dim) {
  const Tensor r = t.dimRoll(dim, unsigned(t.rank() - 1));
  const std::size_t n = t.dim(dim);
  return r.reshape({n ? t.numElements() / n : 0, n});
}

/// The [rows][n] result back in t's shape and order.
Tensor fromRows(const Tensor &rows, const Tensor &t, unsigned dim) {
  return rows.reshape(t.dimRoll(dim, unsigned(t.rank() - 1)).shape()).dimRoll(unsigned(t.rank() - 1), dim);
}

} // namespace

Tensor sort(Graph &graph, const Tensor &t, unsigned dim, program::Sequence &prog, const DebugContext &dc) {
  const std::string op = "popops::sort";
  checkDim(op, t, dim);
  const Tensor rows = asRows(t, dim);
  return fromRows(sortRows(graph, op, rows, nullptr, false, rows.dim(1), false, prog, nameOf(dc, op)).keys, t, dim);
}

void sortInPlace(Graph &graph, const Tensor &t, unsigned dim, program::Sequence &prog, const DebugContext &dc) {
  const std::string op = "popops::sortInPlace";
  checkDim(op, t, dim);
  const Tensor rows = asRows(t, dim);
  prog.add(program::Copy(sortRows(graph, op, rows, nullptr, false, rows.dim(1), false, prog, nameOf(dc, op)).keys, rows));
}

Tensor sortKeyValue(Graph &graph, const Tensor &k, const Tensor &v, unsigned dim, program::Sequence &prog,
                    const DebugContext &dc) {
  const std::string op = "popops::sortKeyValue";
  checkDim(op, k, dim);
  checkPair(op, k, v);
  const Tensor keys = asRows(k, dim), values = asRows(v, dim);
  return fromRows(sortRows(graph, op, keys, &values, false, keys.dim(1), false, prog, nameOf(dc, op)).values, v, dim);
}

void sortKeyValueInPlace(Graph &graph, const Tensor &k, const Tensor &v, unsigned dim, program::Sequence &prog,
                         const DebugContext &dc) {
  const std::string op = "popops::sortKeyValueInPlace";
  checkDim(op, k, dim);
  checkPair(op, k, v);
  const Tensor keys = asRows(k, dim), values = asRows(v, dim);
  const Sorted s = sortRows(graph, op, keys, &values, false, keys.dim(1), false, prog, nameOf(dc, op));
  prog.add(program::Copy(s.keys, keys));
  prog.add(program::Copy(s.values, values));
}

namespace {

void checkTopK(const std::string &op, const Tensor &t, const TopKParams &p) {
  if (t.rank() == 0) fail(op, "the tensor must have rank 1 or more");
  if (p.k > t.dim(t.rank() - 1))
    fail(op, "k is " + std::to_string(p.k) + " but the innermost dimension of " + t.shapeToString() + " has " +
                 std::to_string(t.dim(t.rank() - 1)));
}

/// The top k of t (values with it): the sorted rows, and the shape of a result.
std::pair<Sorted, std::vector<std::size_t>> topKRows(Graph &graph, const std::string &op, program::Sequence &prog,
                                                     const Tensor &t, const Tensor *values, const TopKParams &p,
                                                     const DebugContext &dc) {
  checkTopK(op, t, p);
  const unsigned last = unsigned(t.rank() - 1);
  const Tensor keys = asRows(t, last);
  Tensor valueRows;
  if (values) valueRows = asRows(*values, last);
  // Sorted largest- or smallest-first; the k again when the order asked is the other way.
  const bool reorder = (p.largest && p.sortOrder == SortOrder::ASCENDING) || (!p.largest && p.sortOrder == SortOrder::DESCENDING);
  Sorted s = sortRows(graph, op, keys, values ? &valueRows : nullptr, p.largest, p.k, reorder, prog, nameOf(dc, op));
  std::vector<std::size_t> shape = t.shape();
  shape.back() = p.k;
  return {s, shape};
}

} // namespace

Tensor createTopKInput(Graph &graph, const Type &type, const std::vector<std::size_t> &shape, const TopKParams &params,
                       const DebugContext &dc) {
  const std::string op = "popops::createTopKInput";
  if (shape.empty()) fail(op, "the shape must have rank 1 or more");
  if (params.k > shape.back())
    fail(op, "k is " + std::to_string(params.k) + " but the innermost dimension of the shape has " + std::to_string(shape.back()));
  const std::size_t n = shape.back();
  std::size_t total = 1;
  for (std::size_t d : shape) total *= d;
  return rowsVariable(graph, type, n ? total / n : 0, n, nameOf(dc, op)).reshape(shape);
}

Tensor topK(Graph &graph, program::Sequence &prog, const Tensor &t, const TopKParams &params, const DebugContext &dc) {
  const auto [s, shape] = topKRows(graph, "popops::topK", prog, t, nullptr, params, dc);
  return s.keys.slice(0, params.k, 1).reshape(shape);
}

std::pair<Tensor, Tensor> topKKeyValue(Graph &graph, program::Sequence &prog, const Tensor &keys, const Tensor &values,
                                       const TopKParams &params, const DebugContext &dc) {
  const std::string op = "popops::topKKeyValue";
  checkPair(op, keys, values);
  const auto [s, shape] = topKRows(graph, op, prog, keys, &values, params, dc);
  return {s.keys.slice(0, params.k, 1).reshape(shape), s.values.slice(0, params.k, 1).reshape(shape)};
}

std::pair<Tensor, Tensor> topKWithPermutation(Graph &graph, program::Sequence &prog, const Tensor &t,
                                              const TopKParams &params, const DebugContext &dc) {
  const auto [s, shape] = topKRows(graph, "popops::topKWithPermutation", prog, t, nullptr, params, dc);
  return {s.keys.slice(0, params.k, 1).reshape(shape), s.places.slice(0, params.k, 1).reshape(shape)};
}

} // namespace popops
