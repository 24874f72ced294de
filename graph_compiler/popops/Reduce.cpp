// popops' reductions in two compute sets. Stage 1: on every tile, the elements of the (view of
// the) input it holds are cut into up to six groups of about equal size, one vertex (one
// worker) each, and every group reduces its elements of each output it touches into one
// partial, a variable on that tile. Stage 2: on the tile of each output element, a vertex
// reduces that output's partials (brought there by the exchange) and applies the scale and the
// update. The vertices are generated C++ for the operation and types, like the element-wise
// ones, so every value is computed on the tiles.
#include "Internal.hpp"
#include "../sdk/Generated.hpp"

#include <popops/Reduce.hpp>
#include <poputil/TileMapping.hpp>

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cstdio>
#include <istream>
#include <map>
#include <numeric>
#include <tuple>
#include <ostream>
#include <sstream>

namespace popops {

using namespace poplar;
using detail::deviceType;

namespace {

const char *opName(Operation op) {
  static const char *names[] = {"ADD", "MUL", "MIN", "MAX", "LOGICAL_AND", "LOGICAL_OR", "SQUARE_ADD", "LOG_ADD"};
  return names[static_cast<int>(op)];
}

using ipusim::sdk::fail;

// The partials' type: float for float and half inputs (poplibs accumulates half in float).
Type accType(const Type &in) { return in == HALF ? FLOAT : in; }

// What the reduction vertices include, and LOG_ADD's step.
const char *kReducePrelude = "#include <poplar/Vertex.hpp>\n#include <cmath>\n#include <limits>\n"
                             "static inline float logAdd(float a, float b) {\n"
                             "  const float hi = a > b ? a : b, lo = a > b ? b : a;\n"
                             "  return hi == -INFINITY ? hi : hi + std::log1p(std::exp(lo - hi));\n}\n";

// The C++ of one reduction step in accumulator type A: the initial value and `acc = ...x...`.
std::pair<std::string, std::string> reductionStep(Operation operation, const std::string &A, bool isFloat) {
  switch (operation) {
  case Operation::ADD:
  case Operation::SQUARE_ADD: return {"0", "acc = acc + x;"};
  case Operation::MUL: return {"1", "acc = acc * x;"};
  case Operation::MAX:
    return {isFloat ? "-INFINITY" : "std::numeric_limits<" + A + ">::lowest()", "acc = x > acc ? x : acc;"};
  case Operation::MIN: return {isFloat ? "INFINITY" : "std::numeric_limits<" + A + ">::max()", "acc = x < acc ? x : acc;"};
  case Operation::LOGICAL_AND: return {"true", "acc = acc && x;"};
  case Operation::LOGICAL_OR: return {"false", "acc = acc || x;"};
  case Operation::LOG_ADD: return {"-INFINITY", "acc = logAdd(acc, x);"};
  }
  return {"0", ""};
}

// The first stage's vertex: for each element of `out`, numRegions[o] consecutive regions of
// `in` reduced (with `square`, their squares) into one partial.
std::string reduceVertex(Graph &graph, const std::string &op, Operation operation, const Type &in, const Type &out,
                         bool square) {
  const std::string I = deviceType(op, in), O = deviceType(op, out), A = deviceType(op, accType(in));
  const auto [init, step] = reductionStep(operation, A, accType(in) == FLOAT);
  std::ostringstream body;
  body << "  poplar::Vector<poplar::Input<poplar::Vector<" << I << ">>> in;\n"
       << "  poplar::Vector<unsigned> numRegions;\n"
       << "  poplar::Output<poplar::Vector<" << O << ">> out;\n"
       << "  void compute() {\n"
       << "    unsigned r = 0;\n"
       << "    for (unsigned o = 0; o < out.size(); ++o) {\n"
       << "      " << A << " acc = " << init << ";\n"
       << "      for (unsigned k = 0; k < numRegions[o]; ++k, ++r) {\n"
       << "        for (unsigned i = 0; i < in[r].size(); ++i) {\n"
       << "          " << A << " x = static_cast<" << A << ">(in[r][i]);\n"
       << (square ? "          x = x * x;\n" : "") << "          " << step << "\n"
       << "        }\n      }\n";
  body << "      out[o] = static_cast<" << O << ">(acc);\n    }\n  }\n};\n";
  return ipusim::sdk::addGeneratedVertex(graph, "ipusim_popops_Reduce", "poplar::Vertex", kReducePrelude, body.str());
}

// The first stage's vertex for an input that lies channels-last: `in` is `rows` rows of
// out.size() consecutive elements, each column a different output, and out[c] is column c
// reduced (with `square`, its squares). The workers take the columns in turn, each walking its
// column down the rows, so no element is a region of its own.
std::string columnVertex(Graph &graph, const std::string &op, Operation operation, const Type &in, bool square) {
  const std::string I = deviceType(op, in), A = deviceType(op, accType(in));
  const auto [init, step] = reductionStep(operation, A, accType(in) == FLOAT);
  std::ostringstream body;
  body << "  poplar::Input<poplar::Vector<" << I << ", poplar::VectorLayout::ONE_PTR>> in;\n"
       << "  poplar::Output<poplar::Vector<" << A << ">> out;\n"
       << "  unsigned rows;\n"
       << "  void compute(unsigned wid) {\n"
       << "    const unsigned columns = out.size();\n"
       << "    for (unsigned c = wid; c < columns; c += 6) {\n"
       << "      " << A << " acc = " << init << ";\n"
       << "      const " << I << " *p = &in[c];\n"
       << "      for (unsigned r = 0; r < rows; ++r, p += columns) {\n"
       << "        " << A << " x = static_cast<" << A << ">(*p);\n"
       << (square ? "        x = x * x;\n" : "") << "        " << step << "\n"
       << "      }\n      out[c] = acc;\n    }\n  }\n};\n";
  return ipusim::sdk::addGeneratedVertex(graph, "ipusim_popops_ReduceColumns", "poplar::MultiVertex", kReducePrelude,
                                         body.str());
}

// A tile's elements of the reduction's [outputs][reduced] view as spans of memory: each span
// `rows` rows of `outs.size()` consecutive elements whose columns are outputs outs[c] (an input
// that lies channels-last, reduced over all but the channels). Empty when the tile's elements
// do not all lie so, or lie in long runs of one output already (the general vertex reads those
// as regions).
struct ColumnSpan {
  Tensor t; // in memory order
  std::size_t rows;
  std::vector<std::size_t> outs;
};
std::vector<ColumnSpan> columnSpans(const Tensor &flat, const std::vector<Interval> &intervals, std::size_t numReduced) {
  struct Run {
    unsigned var;
    std::size_t begin, end, at; // the variable's elements [begin, end), at view position `at`
  };
  std::vector<Run> runs;
  std::size_t elements = 0;
  for (const Interval &iv : intervals) {
    std::size_t at = iv.begin();
    for (const VariableInterval &r : flat.slice(iv.begin(), iv.end()).getVarRegions()) {
      runs.push_back({r.var.getId(), r.interval.begin(), r.interval.end(), at});
      at += r.interval.size();
    }
    elements += iv.size();
  }
  // Short runs only (about one element each); long ones are the general vertex's regions.
  if (runs.empty() || runs.size() * 2 < elements) return {};
  std::sort(runs.begin(), runs.end(), [](const Run &a, const Run &b) { return a.var != b.var ? a.var < b.var : a.begin < b.begin; });
  std::vector<ColumnSpan> spans;
  for (std::size_t i = 0; i < runs.size();) {
    // A span: runs adjacent in memory; its elements' view positions in memory order.
    std::vector<std::size_t> at;
    std::size_t j = i;
    for (; j < runs.size() && (j == i || (runs[j].var == runs[j - 1].var && runs[j].begin == runs[j - 1].end)); ++j)
      for (std::size_t e = 0; e < runs[j].end - runs[j].begin; ++e) at.push_back(runs[j].at + e);
    // Its columns: the outputs of the first row, repeating row after row.
    ColumnSpan span;
    for (std::size_t e = 0; e < at.size() && (span.outs.empty() || at[e] / numReduced != span.outs[0]); ++e)
      span.outs.push_back(at[e] / numReduced);
    const std::size_t columns = span.outs.size();
    if (columns < 2 || at.size() % columns) return {};
    std::vector<std::size_t> sorted = span.outs;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return {};
    for (std::size_t e = columns; e < at.size(); ++e)
      if (at[e] / numReduced != span.outs[e % columns]) return {};
    span.rows = at.size() / columns;
    std::vector<Tensor> parts;
    for (std::size_t k = i; k < j; ++k) parts.push_back(flat.slice(runs[k].at, runs[k].at + (runs[k].end - runs[k].begin)));
    span.t = concat(parts);
    spans.push_back(std::move(span));
    i = j;
  }
  return spans;
}

// The vertex that combines partials: out[o] starts at the operation's identity and takes in
// each region j, a run of one partial variable for the outputs from first[j] on.
std::string combineVertex(Graph &graph, const std::string &op, Operation operation, const Type &acc) {
  const std::string A = deviceType(op, acc);
  const auto [init, step] = reductionStep(operation, A, acc == FLOAT);
  std::ostringstream body;
  body << "  poplar::Vector<poplar::Input<poplar::Vector<" << A << ">>> in;\n"
       << "  poplar::Vector<unsigned> first;\n"
       << "  poplar::Output<poplar::Vector<" << A << ">> out;\n"
       << "  void compute() {\n"
       << "    for (unsigned o = 0; o < out.size(); ++o) out[o] = " << init << ";\n"
       << "    for (unsigned j = 0; j < in.size(); ++j)\n"
       << "      for (unsigned i = 0; i < in[j].size(); ++i) {\n"
       << "        " << A << " acc = out[first[j] + i];\n"
       << "        const " << A << " x = in[j][i];\n"
       << "        " << step << "\n"
       << "        out[first[j] + i] = acc;\n"
       << "      }\n  }\n};\n";
  return ipusim::sdk::addGeneratedVertex(graph, "ipusim_popops_Combine", "poplar::Vertex", kReducePrelude, body.str());
}

// A variable of partials on one tile: element i is a partial of output outs[i].
struct PartialVar {
  Tensor t;
  unsigned tile;
  std::vector<std::size_t> outs;
};

// The two vertices that combine partials, made when first used: `runs` (combineVertex) reads
// runs of one variable's partials for consecutive outputs; `segments` (the first stage's vertex)
// reads each output's partials gathered into one region by the compute set's exchange.
struct Combiners {
  Graph &graph;
  const std::string &op;
  Operation operation;
  Type acc;
  std::string runs, segments;
  const std::string &runsVertex() {
    if (runs.empty()) runs = combineVertex(graph, op, operation, acc);
    return runs;
  }
  const std::string &segmentsVertex() {
    if (segments.empty()) segments = reduceVertex(graph, op, operation, acc, acc, false);
    return segments;
  }
};

// Adds to `cs` vertices on `tile` that combine, for the ascending outputs `outs`, their partials
// in `vars` (partialsOf[o]: (variable, element) pairs) into `dst` (dst[i] for outs[i]): up to
// six vertices over contiguous ranges of outputs (one if dst's elements are narrower than a
// word). Each takes the cheaper form by the instructions of the compiled loops: reading runs of
// consecutive partials as regions (about 32 instructions a run and 5 an element: partials of a
// few variables for many outputs) or one gathered region an output (about 30 an output and 2
// an element: many one-element partials for a few outputs, as a loss's or a bias gradient's).
void addCombine(Graph &graph, ComputeSet cs, Combiners &combiners, unsigned tile, const std::vector<std::size_t> &outs,
                const Tensor &dst, const std::vector<PartialVar> &vars,
                const std::vector<std::vector<std::pair<std::size_t, std::size_t>>> &partialsOf) {
  const bool subWord = graph.getTarget().getTypeSize(dst.elementType()) < 4;
  const std::size_t groups = std::min<std::size_t>(subWord ? 1 : graph.getTarget().getNumWorkerContexts(), outs.size());
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t lo = outs.size() * g / groups, hi = outs.size() * (g + 1) / groups;
    // (variable, element, position in the group), in variable and element order: runs.
    std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> refs;
    bool everyOutputHasPartials = true;
    for (std::size_t k = lo; k < hi; ++k) {
      everyOutputHasPartials &= !partialsOf[outs[k]].empty();
      for (const auto &[var, idx] : partialsOf[outs[k]]) refs.emplace_back(var, idx, k - lo);
    }
    std::sort(refs.begin(), refs.end());
    // Runs of consecutive elements of one variable for consecutive outputs are one region each.
    std::vector<Tensor> regions;
    std::vector<unsigned> first;
    for (std::size_t r = 0; r < refs.size();) {
      std::size_t e = r + 1;
      while (e < refs.size() && std::get<0>(refs[e]) == std::get<0>(refs[r]) &&
             std::get<1>(refs[e]) == std::get<1>(refs[r]) + (e - r) && std::get<2>(refs[e]) == std::get<2>(refs[r]) + (e - r))
        ++e;
      regions.push_back(vars[std::get<0>(refs[r])].t.slice(std::get<1>(refs[r]), std::get<1>(refs[r]) + (e - r)));
      first.push_back(unsigned(std::get<2>(refs[r])));
      r = e;
    }
    const std::size_t runsCost = 32 * regions.size() + 5 * refs.size() + (hi - lo);
    const std::size_t segmentsCost = 30 * (hi - lo) + 2 * refs.size();
    VertexRef v;
    if (everyOutputHasPartials && segmentsCost < runsCost) {
      v = graph.addVertex(cs, combiners.segmentsVertex());
      std::vector<Tensor> gathered;
      for (std::size_t k = lo; k < hi; ++k) {
        std::vector<Tensor> parts;
        for (const auto &[var, idx] : partialsOf[outs[k]]) parts.push_back(vars[var].t.slice(idx, idx + 1));
        gathered.push_back(concat(parts));
      }
      graph.connect(v["in"], gathered);
      graph.setInitialValue(v["numRegions"], std::vector<unsigned>(hi - lo, 1));
    } else {
      if (first.empty()) first.push_back(0); // a vector field may not be empty
      v = graph.addVertex(cs, combiners.runsVertex());
      graph.connect(v["in"], regions);
      graph.setInitialValue(v["first"], first);
    }
    graph.connect(v["out"], dst.slice(lo, hi));
    graph.setTileMapping(v, tile);
  }
}

struct Piece {
  std::size_t out;         // the output it belongs to
  std::size_t begin, end;  // flattened [numOut][numReduced] indices
};

void reduceImpl(Graph &graph, const std::string &op, const Tensor &in, const Tensor &out,
                const std::vector<std::size_t> &dims, const ReduceParams &params, std::vector<ComputeSet> &css,
                const DebugContext &dc) {
  // The arguments.
  std::vector<bool> reduced(in.rank());
  for (std::size_t d : dims) {
    if (d >= in.rank())
      fail(op, "dimension " + std::to_string(d) + " to reduce is out of range for a rank-" +
                   std::to_string(in.rank()) + " input");
    if (reduced[d]) fail(op, "dimension " + std::to_string(d) + " is listed twice");
    reduced[d] = true;
  }
  std::vector<unsigned> order;
  std::vector<std::size_t> outShape;
  std::size_t numOut = 1, numReduced = 1;
  for (unsigned d = 0; d < in.rank(); ++d)
    if (!reduced[d]) order.push_back(d), outShape.push_back(in.dim(d)), numOut *= in.dim(d);
  for (unsigned d = 0; d < in.rank(); ++d)
    if (reduced[d]) order.push_back(d), numReduced *= in.dim(d);
  if (out.numElements() != numOut) {
    std::string shape = "{";
    for (std::size_t i = 0; i < outShape.size(); ++i) shape += (i ? "," : "") + std::to_string(outShape[i]);
    fail(op, "the output has " + std::to_string(out.numElements()) + " elements; the reduction's shape is " +
                 shape + "}");
  }
  const Operation operation = params.op;
  const Type inType = in.elementType();
  if ((operation == Operation::LOGICAL_AND || operation == Operation::LOGICAL_OR) != (inType == BOOL))
    fail(op, std::string(opName(operation)) + " needs " +
                 (inType == BOOL ? "an arithmetic operation for bool input"
                                 : "bool input, not " + inType.toString()));
  if (operation == Operation::LOG_ADD && inType != FLOAT && inType != HALF)
    fail(op, "LOG_ADD needs float or half input, not " + inType.toString());
  if (params.useScale && params.scale.numElements() != 1)
    fail(op, "the scale must be a single element, not " + std::to_string(params.scale.numElements()));
  if (params.useScale && operation == Operation::LOG_ADD) fail(op, "LOG_ADD takes no scale");
  if (out.containsAliases()) fail(op, "the output contains aliases");

  const Type acc = accType(inType);
  const Tensor flat = in.dimShuffle(order).reshape({numOut, numReduced}).flatten();
  const Tensor outFlat = out.flatten();
  const std::string name = dc.getPathName().empty() ? op : dc.getPathName();

  // Stage 1: partials on the tiles that hold the input.
  ComputeSet cs1 = graph.addComputeSet(name + "/partials");
  // The partial variables, and each output's partials as (variable, element) pairs.
  std::vector<PartialVar> vars;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> partialsOf(numOut);
  const std::string partialVertex =
      numReduced ? reduceVertex(graph, op, operation, inType, acc, operation == Operation::SQUARE_ADD)
                 : "";
  const auto mapping = numReduced ? graph.getTileMapping(flat) : std::vector<std::vector<Interval>>();
  const bool columnsAllowed = numReduced && graph.getTarget().getTypeSize(acc) == 4;
  std::string columnVertexName; // made when first used
  for (std::size_t tile = 0; tile < mapping.size(); ++tile) {
    if (columnsAllowed && !mapping[tile].empty()) {
      const std::vector<ColumnSpan> spans = columnSpans(flat, mapping[tile], numReduced);
      for (const ColumnSpan &span : spans) {
        if (columnVertexName.empty())
          columnVertexName = columnVertex(graph, op, operation, inType, operation == Operation::SQUARE_ADD);
        // Fewer columns than workers: the rows in up to 6 / columns blocks, a partial each.
        const std::size_t columns = span.outs.size();
        const std::size_t blocks = std::max<std::size_t>(1, std::min(span.rows, 6 / columns));
        for (std::size_t b = 0; b < blocks; ++b) {
          const std::size_t r0 = span.rows * b / blocks, r1 = span.rows * (b + 1) / blocks;
          Tensor partial = graph.addVariable(acc, {columns}, name + "/partial");
          graph.setTileMapping(partial, unsigned(tile));
          VertexRef v = graph.addVertex(cs1, columnVertexName);
          graph.connect(v["in"], span.t.slice(r0 * columns, r1 * columns));
          graph.connect(v["out"], partial);
          graph.setInitialValue(v["rows"], unsigned(r1 - r0));
          graph.setTileMapping(v, unsigned(tile));
          for (std::size_t c = 0; c < columns; ++c) partialsOf[span.outs[c]].emplace_back(vars.size(), c);
          vars.push_back({partial, unsigned(tile), span.outs});
        }
      }
      if (!spans.empty()) continue;
    }
    std::vector<Piece> pieces;
    std::size_t total = 0;
    for (const Interval &r : mapping[tile])
      for (std::size_t b = r.begin(); b < r.end();) {
        const std::size_t o = b / numReduced, e = std::min(r.end(), (o + 1) * numReduced);
        pieces.push_back({o, b, e});
        total += e - b;
        b = e;
      }
    if (!total) continue;
    std::sort(pieces.begin(), pieces.end(), [](const Piece &x, const Piece &y) { return x.begin < y.begin; });
    // Up to six groups of about total / 6 elements (a piece may be cut between groups).
    const std::size_t groups = std::min<std::size_t>(graph.getTarget().getNumWorkerContexts(), total);
    std::size_t p = 0, at = pieces.empty() ? 0 : pieces[0].begin;
    for (std::size_t g = 0; g < groups; ++g) {
      std::size_t want = total * (g + 1) / groups - total * g / groups;
      std::vector<Tensor> regions;
      std::vector<unsigned> numRegions;
      std::vector<std::size_t> outs;
      while (want && p < pieces.size()) {
        const std::size_t take = std::min(want, pieces[p].end - at);
        if (outs.empty() || outs.back() != pieces[p].out) outs.push_back(pieces[p].out), numRegions.push_back(0);
        regions.push_back(flat.slice(at, at + take));
        ++numRegions.back();
        at += take;
        want -= take;
        if (at == pieces[p].end && ++p < pieces.size()) at = pieces[p].begin;
      }
      Tensor partial = graph.addVariable(acc, {outs.size()}, name + "/partial");
      graph.setTileMapping(partial, unsigned(tile));
      VertexRef v = graph.addVertex(cs1, partialVertex);
      graph.connect(v["in"], regions);
      graph.setInitialValue(v["numRegions"], numRegions);
      graph.connect(v["out"], partial);
      graph.setTileMapping(v, unsigned(tile));
      for (std::size_t k = 0; k < outs.size(); ++k) partialsOf[outs[k]].emplace_back(vars.size(), k);
      vars.push_back({partial, unsigned(tile), outs});
    }
  }

  css.push_back(cs1);

  // Intermediate stages while an output has more than kFanIn partials and a tile of the output
  // would gather too many: the partial variables,
  // in tile order, are combined kFanIn at a time into one variable on the tile of the group's
  // first (a tree, so no tile receives hundreds of values of one output).
  const std::size_t kFanIn = 32;
  const Operation second = operation == Operation::SQUARE_ADD ? Operation::ADD : operation;
  Combiners combiners{graph, op, second, acc, {}, {}};
  // Only where the last stage would gather too much onto one tile: more than kMaxGather
  // partials for the outputs of one tile (a reduction to a few outputs from many tiles).
  const std::size_t kMaxGather = 64;
  const auto outTiles = graph.getTileMapping(outFlat);
  auto gatherTooBig = [&] {
    for (const auto &intervals : outTiles) {
      std::size_t n = 0;
      for (const Interval &r : intervals)
        for (std::size_t o = r.begin(); o < r.end(); ++o) n += partialsOf[o].size();
      if (n > kMaxGather) return true;
    }
    return false;
  };
  for (unsigned level = 1;; ++level) {
    bool deep = false;
    for (const auto &ps : partialsOf) deep |= ps.size() > kFanIn;
    if (!deep || !gatherTooBig()) break;
    ComputeSet cs = graph.addComputeSet(name + "/partials" + std::to_string(level));
    std::vector<std::size_t> byTile(vars.size());
    std::iota(byTile.begin(), byTile.end(), std::size_t(0));
    std::stable_sort(byTile.begin(), byTile.end(), [&](std::size_t x, std::size_t y) { return vars[x].tile < vars[y].tile; });
    std::vector<PartialVar> next;
    std::vector<std::vector<std::pair<std::size_t, std::size_t>>> nextOf(numOut);
    for (std::size_t b = 0; b < byTile.size(); b += kFanIn) {
      // The group's outputs and, for each, its partials within the group.
      std::vector<std::vector<std::pair<std::size_t, std::size_t>>> groupOf(numOut);
      std::vector<std::size_t> outs;
      for (std::size_t x = b; x < std::min(byTile.size(), b + kFanIn); ++x)
        for (std::size_t k = 0; k < vars[byTile[x]].outs.size(); ++k) {
          const std::size_t o = vars[byTile[x]].outs[k];
          if (groupOf[o].empty()) outs.push_back(o);
          groupOf[o].emplace_back(byTile[x], k);
        }
      std::sort(outs.begin(), outs.end());
      const unsigned tile = vars[byTile[b]].tile;
      Tensor partial = graph.addVariable(acc, {outs.size()}, name + "/partial");
      graph.setTileMapping(partial, tile);
      addCombine(graph, cs, combiners, tile, outs, partial, vars, groupOf);
      for (std::size_t k = 0; k < outs.size(); ++k) nextOf[outs[k]].emplace_back(next.size(), k);
      next.push_back({partial, tile, outs});
    }
    vars = std::move(next);
    partialsOf = std::move(nextOf);
    css.push_back(cs);
  }

  // The last stage: each output's partials combined on the output's tile, straight into the
  // output when nothing else is to be done, else into a float (accumulator) copy from which a
  // fused element-wise step scales, updates and converts. When the output's tiles would still
  // gather too many partials (a small output on a few tiles, partials on many: a loss), each
  // output is combined on one of its partials' tiles, balancing what the tiles gather, and the
  // fused step moves the results to the output.
  ComputeSet cs2 = graph.addComputeSet(name + "/final");
  const bool spread = gatherTooBig();
  const bool direct = !spread && out.elementType() == acc && !params.update && !params.useScale;
  Tensor result = outFlat;
  Graph::TileToTensorMapping resultTiles = outTiles;
  if (spread) {
    // Each output on the tile, among those of its partials, that gathers the fewest so far.
    resultTiles.assign(outTiles.size(), {});
    std::vector<std::size_t> load(outTiles.size(), 0);
    for (std::size_t o = 0; o < numOut; ++o) {
      unsigned best = 0;
      for (std::size_t i = 0; i < partialsOf[o].size(); ++i) {
        const unsigned t = vars[partialsOf[o][i].first].tile;
        if (i == 0 || load[t] < load[best]) best = t;
      }
      load[best] += partialsOf[o].size();
      auto &m = resultTiles[best];
      if (!m.empty() && m.back().end() == o) m.back() = Interval(m.back().begin(), o + 1);
      else m.emplace_back(o, o + 1);
    }
  }
  if (!direct) {
    result = graph.addVariable(acc, {numOut}, name + "/result");
    for (std::size_t tile = 0; tile < resultTiles.size(); ++tile)
      for (const Interval &r : resultTiles[tile]) graph.setTileMapping(result.slice(r.begin(), r.end()), unsigned(tile));
  }
  for (std::size_t tile = 0; tile < resultTiles.size(); ++tile) {
    std::vector<std::size_t> outs;
    std::vector<Tensor> dst;
    for (const Interval &r : resultTiles[tile]) {
      for (std::size_t o = r.begin(); o < r.end(); ++o) outs.push_back(o);
      dst.push_back(result.slice(r.begin(), r.end()));
    }
    if (!outs.empty()) addCombine(graph, cs2, combiners, unsigned(tile), outs, concat(dst), vars, partialsOf);
  }
  css.push_back(cs2);
  if (!direct) {
    using namespace expr;
    ComputeSet cs3 = graph.addComputeSet(name + "/scale");
    std::vector<Tensor> ts{result, outFlat};
    Any value = _1;
    if (params.useScale) {
      ts.push_back(params.scale.reshape({}));
      value = Mul(value, Cast(_3, acc));
    }
    if (params.update)
      value = operation == Operation::LOG_ADD
                  ? Any(Add(Max(value, Cast(_2, acc)), Log1p(Exp(Sub(Min(value, Cast(_2, acc)), Max(value, Cast(_2, acc)))))))
                  : Any(Add(value, Cast(_2, acc)));
    detail::addMapVertices(graph, op, Cast(value, out.elementType()), ts, outFlat, false, cs3);
    css.push_back(cs3);
  }
}

// The output of a new reduction: each output on the tile that holds the middle element of what
// it reduces (whole 32-bit words of outputs together), so the last stage combines partials
// mostly on the tile that made them rather than gathering them all to the first tiles (a
// linear mapping puts a small output on one tile). Linear when the input has nothing to reduce.
void mapLikeInput(Graph &graph, const Tensor &in, const std::vector<std::size_t> &dims, const Tensor &out) {
  std::vector<unsigned> order;
  std::size_t numOut = 1, numReduced = 1;
  for (unsigned d = 0; d < in.rank(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) order.push_back(d), numOut *= in.dim(d);
  for (unsigned d = 0; d < in.rank(); ++d)
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) order.push_back(d), numReduced *= in.dim(d);
  bool complete = true;
  const Tensor flat = order.size() == in.rank() && numOut && numReduced
                          ? in.dimShuffle(order).reshape({numOut * numReduced})
                          : Tensor();
  const Graph::TileToTensorMapping mapping = flat.valid() ? graph.getTileMapping(flat, &complete) : Graph::TileToTensorMapping();
  if (!flat.valid() || !complete || out.numElements() != numOut) {
    poputil::mapTensorLinearly(graph, out);
    return;
  }
  const std::size_t half = numReduced / 2;
  std::vector<unsigned> tileOf(numOut, 0);
  for (std::size_t tile = 0; tile < mapping.size(); ++tile)
    for (const Interval &r : mapping[tile])
      for (std::size_t o = r.begin() <= half ? 0 : (r.begin() - half + numReduced - 1) / numReduced;
           o < numOut && o * numReduced + half < r.end(); ++o)
        tileOf[o] = unsigned(tile);
  const std::size_t grain = std::max<std::size_t>(1, 4 / graph.getTarget().getTypeSize(out.elementType()));
  Graph::TileToTensorMapping outMapping(mapping.size());
  for (std::size_t o = 0; o < numOut; o += grain) {
    auto &m = outMapping[tileOf[o]];
    const std::size_t e = std::min(numOut, o + grain);
    if (!m.empty() && m.back().end() == o) m.back() = Interval(m.back().begin(), e);
    else m.emplace_back(o, e);
  }
  graph.setTileMapping(out.flatten(), outMapping);
}

} // namespace

std::ostream &operator<<(std::ostream &os, const Operation &op) { return os << opName(op); }
std::istream &operator>>(std::istream &is, Operation &op) {
  std::string s;
  is >> s;
  for (int i = 0; i <= static_cast<int>(Operation::LOG_ADD); ++i)
    if (s == opName(static_cast<Operation>(i))) {
      op = static_cast<Operation>(i);
      return is;
    }
  throw poplar_error("popops::Operation: unknown operation '" + s + "'");
}

void reduceWithOutput(Graph &graph, const Tensor &in, const Tensor &out, const std::vector<std::size_t> &dims,
                      ReduceParams params, std::vector<ComputeSet> &css, const DebugContext &debugContext,
                      const OptionFlags &) {
  reduceImpl(graph, "popops::reduce", in, out, dims, params, css, debugContext);
}

Tensor reduce(Graph &graph, const Tensor &in, const Type &outType, const std::vector<std::size_t> &dims,
              ReduceParams params, std::vector<ComputeSet> &css, const DebugContext &debugContext,
              const OptionFlags &options) {
  if (params.update) fail("popops::reduce", "update needs an existing output: use reduceWithOutput");
  std::vector<std::size_t> shape;
  for (unsigned d = 0; d < in.rank(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) shape.push_back(in.dim(d));
  Tensor out = graph.addVariable(outType, shape, debugContext.getPathName().empty() ? "popops::reduce" : debugContext.getPathName());
  mapLikeInput(graph, in, dims, out);
  reduceWithOutput(graph, in, out, dims, params, css, debugContext, options);
  return out;
}

Tensor reduce(Graph &graph, const Tensor &in, const std::vector<std::size_t> &dims, ReduceParams params,
              std::vector<ComputeSet> &css, const DebugContext &debugContext, const OptionFlags &options) {
  return reduce(graph, in, in.elementType(), dims, params, css, debugContext, options);
}

void reduceWithOutput(Graph &graph, const Tensor &in, const Tensor &out, const std::vector<std::size_t> &dims,
                      ReduceParams params, program::Sequence &prog, const DebugContext &debugContext,
                      const OptionFlags &options) {
  std::vector<ComputeSet> css;
  reduceWithOutput(graph, in, out, dims, params, css, debugContext, options);
  for (const ComputeSet &cs : css) prog.add(program::Execute(cs));
}

Tensor reduce(Graph &graph, const Tensor &in, const Type &outType, const std::vector<std::size_t> &dims,
              ReduceParams params, program::Sequence &prog, const DebugContext &debugContext,
              const OptionFlags &options) {
  std::vector<ComputeSet> css;
  Tensor out = reduce(graph, in, outType, dims, params, css, debugContext, options);
  for (const ComputeSet &cs : css) prog.add(program::Execute(cs));
  return out;
}

Tensor reduce(Graph &graph, const Tensor &in, const std::vector<std::size_t> &dims, ReduceParams params,
              program::Sequence &prog, const DebugContext &debugContext, const OptionFlags &options) {
  return reduce(graph, in, in.elementType(), dims, params, prog, debugContext, options);
}

} // namespace popops
