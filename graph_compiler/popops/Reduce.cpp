// popops' reductions in two compute sets. Stage 1: on every tile, the elements of the (view of
// the) input it holds are cut into up to six groups of about equal size, one vertex (one
// worker) each, and every group reduces its elements of each output it touches into one
// partial, a variable on that tile. Stage 2: on the tile of each output element, a vertex
// reduces that output's partials (brought there by the exchange) and applies the scale and the
// update. The vertices are generated C++ for the operation and types, like the element-wise
// ones, so every value is computed on the tiles.
#include "Internal.hpp"

#include <popops/Reduce.hpp>
#include <poputil/TileMapping.hpp>

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <istream>
#include <map>
#include <ostream>
#include <sstream>

namespace popops {

using namespace poplar;
using detail::deviceType;
using detail::fnv1a;

namespace {

const char *opName(Operation op) {
  static const char *names[] = {"ADD", "MUL", "MIN", "MAX", "LOGICAL_AND", "LOGICAL_OR", "SQUARE_ADD", "LOG_ADD"};
  return names[static_cast<int>(op)];
}

[[noreturn]] void fail(const std::string &op, const std::string &what) { throw poplar_error(op + ": " + what); }

// The partials' type: float for float and half inputs (poplibs accumulates half in float).
Type accType(const Type &in) { return in == HALF ? FLOAT : in; }

// The vertex that reduces, for each element of `out`, numRegions[o] consecutive regions of
// `in`: with `square`, of the squares; with `final`, the result is scaled (and, with
// `update`, combined with out's value as poplibs' update does: added, log-added for LOG_ADD).
std::string reduceVertex(Graph &graph, const std::string &op, Operation operation, const Type &in, const Type &out,
                         bool square, bool final, bool update, bool scaled) {
  const std::string I = deviceType(op, in), O = deviceType(op, out), A = deviceType(op, accType(in));
  const bool isFloat = accType(in) == FLOAT;
  std::string init, step;
  switch (operation) {
  case Operation::ADD:
  case Operation::SQUARE_ADD:
    init = "0";
    step = "acc = acc + x;";
    break;
  case Operation::MUL:
    init = "1";
    step = "acc = acc * x;";
    break;
  case Operation::MAX:
    init = isFloat ? "-INFINITY" : "std::numeric_limits<" + A + ">::lowest()";
    step = "acc = x > acc ? x : acc;";
    break;
  case Operation::MIN:
    init = isFloat ? "INFINITY" : "std::numeric_limits<" + A + ">::max()";
    step = "acc = x < acc ? x : acc;";
    break;
  case Operation::LOGICAL_AND:
    init = "true";
    step = "acc = acc && x;";
    break;
  case Operation::LOGICAL_OR:
    init = "false";
    step = "acc = acc || x;";
    break;
  case Operation::LOG_ADD:
    init = "-INFINITY";
    step = "acc = logAdd(acc, x);";
    break;
  }
  std::ostringstream body;
  body << "  poplar::Vector<poplar::Input<poplar::Vector<" << I << ">>> in;\n"
       << "  poplar::Vector<unsigned> numRegions;\n"
       << "  poplar::" << (update ? "InOut" : "Output") << "<poplar::Vector<" << O << ">> out;\n"
       << (scaled ? "  poplar::Input<float> scale;\n" : "") << "  void compute() {\n"
       << "    unsigned r = 0;\n"
       << "    for (unsigned o = 0; o < out.size(); ++o) {\n"
       << "      " << A << " acc = " << init << ";\n"
       << "      for (unsigned k = 0; k < numRegions[o]; ++k, ++r) {\n"
       << "        for (unsigned i = 0; i < in[r].size(); ++i) {\n"
       << "          " << A << " x = static_cast<" << A << ">(in[r][i]);\n"
       << (square ? "          x = x * x;\n" : "") << "          " << step << "\n"
       << "        }\n      }\n";
  if (final && scaled) body << "      acc = static_cast<" << A << ">(acc * scale);\n";
  if (final && update)
    body << "      acc = " << (operation == Operation::LOG_ADD ? "logAdd(acc, static_cast<" + A + ">(out[o]))"
                                                                : "acc + static_cast<" + A + ">(out[o])")
         << ";\n";
  body << "      out[o] = static_cast<" << O << ">(acc);\n    }\n  }\n};\n";
  char name[48];
  std::snprintf(name, sizeof name, "ipusim_popops_Reduce_%016" PRIx64, fnv1a(body.str()));
  if (!graph.hasCodelet(name)) {
    std::stringstream src;
    src << "#include <poplar/Vertex.hpp>\n#include <cmath>\n#include <limits>\n"
        << "static inline float logAdd(float a, float b) {\n"
        << "  const float hi = a > b ? a : b, lo = a > b ? b : a;\n"
        << "  return hi == -INFINITY ? hi : hi + std::log1p(std::exp(lo - hi));\n}\n"
        << "class " << name << " : public poplar::Vertex {\npublic:\n"
        << body.str();
    graph.addCodelets(src, "-O2");
  }
  return name;
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
  // Each output's partials and the tiles they are on.
  std::vector<std::vector<Tensor>> partialsOf(numOut);
  std::vector<std::vector<unsigned>> partialTiles(numOut);
  const std::string partialVertex =
      numReduced ? reduceVertex(graph, op, operation, inType, acc, operation == Operation::SQUARE_ADD, false, false,
                                false)
                 : "";
  const auto mapping = numReduced ? graph.getTileMapping(flat) : std::vector<std::vector<Interval>>();
  for (std::size_t tile = 0; tile < mapping.size(); ++tile) {
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
      for (std::size_t k = 0; k < outs.size(); ++k) {
        partialsOf[outs[k]].push_back(partial.slice(k, k + 1));
        partialTiles[outs[k]].push_back(unsigned(tile));
      }
    }
  }

  css.push_back(cs1);

  // Intermediate stages while an output has more than kFanIn partials: groups of kFanIn reduced
  // on the tile of the group's first partial, so no tile receives more than kFanIn values of
  // one output in one exchange (a tree instead of every tile sending to one).
  const std::size_t kFanIn = 32;
  const Operation second = operation == Operation::SQUARE_ADD ? Operation::ADD : operation;
  for (unsigned level = 1;; ++level) {
    bool deep = false;
    for (const auto &ps : partialsOf) deep |= ps.size() > kFanIn;
    if (!deep) break;
    ComputeSet cs = graph.addComputeSet(name + "/partials" + std::to_string(level));
    const std::string vertex = reduceVertex(graph, op, second, acc, acc, false, false, false, false);
    for (std::size_t o = 0; o < numOut; ++o) {
      if (partialsOf[o].size() <= kFanIn) continue;
      std::vector<Tensor> next;
      std::vector<unsigned> nextTiles;
      for (std::size_t b = 0; b < partialsOf[o].size(); b += kFanIn) {
        const std::size_t e = std::min(partialsOf[o].size(), b + kFanIn);
        const unsigned tile = partialTiles[o][b];
        Tensor partial = graph.addVariable(acc, {1}, name + "/partial");
        graph.setTileMapping(partial, tile);
        VertexRef v = graph.addVertex(cs, vertex);
        graph.connect(v["in"], std::vector<Tensor>{concat(std::vector<Tensor>(partialsOf[o].begin() + b,
                                                                              partialsOf[o].begin() + e))});
        graph.setInitialValue(v["numRegions"], std::vector<unsigned>{1});
        graph.connect(v["out"], partial);
        graph.setTileMapping(v, tile);
        next.push_back(partial);
        nextTiles.push_back(tile);
      }
      partialsOf[o] = next;
      partialTiles[o] = nextTiles;
    }
    css.push_back(cs);
  }

  // The last stage: each output's partials reduced on the output's tile (up to six vertices a tile).
  ComputeSet cs2 = graph.addComputeSet(name + "/final");
  const std::string finalVertex =
      reduceVertex(graph, op, second, acc, out.elementType(), false, true, params.update, params.useScale);
  const auto outMapping = graph.getTileMapping(outFlat);
  for (std::size_t tile = 0; tile < outMapping.size(); ++tile) {
    std::vector<std::size_t> outs;
    for (const Interval &r : outMapping[tile])
      for (std::size_t o = r.begin(); o < r.end(); ++o) outs.push_back(o);
    // Outputs narrower than a word are stored by read-modify-write of their word, so two
    // workers must not write neighbours: one vertex a tile for them.
    const bool subWord = graph.getTarget().getTypeSize(out.elementType()) < 4;
    const std::size_t groups =
        std::min<std::size_t>(subWord ? 1 : graph.getTarget().getNumWorkerContexts(), outs.size());
    for (std::size_t g = 0; g < groups; ++g) {
      std::vector<Tensor> regions, outputs;
      std::vector<unsigned> numRegions;
      for (std::size_t k = outs.size() * g / groups; k < outs.size() * (g + 1) / groups; ++k) {
        const std::size_t o = outs[k];
        outputs.push_back(outFlat.slice(o, o + 1));
        numRegions.push_back(partialsOf[o].empty() ? 0 : 1);
        if (!partialsOf[o].empty()) regions.push_back(concat(partialsOf[o]).flatten());
      }
      VertexRef v = graph.addVertex(cs2, finalVertex);
      graph.connect(v["in"], regions);
      graph.setInitialValue(v["numRegions"], numRegions);
      graph.connect(v["out"], concat(outputs));
      if (params.useScale) graph.connect(v["scale"], params.scale.reshape({}));
      graph.setTileMapping(v, unsigned(tile));
    }
  }
  css.push_back(cs2);
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
  poputil::mapTensorLinearly(graph, out);
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
