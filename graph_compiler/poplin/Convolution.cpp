// poplin's convolutions: on the AMP directly (channels in the AMP's chunks, Amp.hpp), as matrix
// products on the AMP (ConvMatMul.hpp: the expanded input by the weights), or, for what neither
// takes, by direct generated vertices. The transforms of ConvParams are resolved
// on the host into "taps": for each output coordinate of each spatial dimension, the (kernel
// index, input index) pairs that meet there (an output in padding has none). A vertex then sums,
// for each output element of its block, over its row taps, column taps and input channels.
// Forward blocks are (batch, group, output-channel block, output-row block), each with the input
// rows its taps reach; weight gradients are partial sums per (batch, group, output-row block)
// reduced by popops::reduce. Every value is computed on the tiles.
#include "Amp.hpp"
#include "ConvMatMul.hpp"
#include "PartialSum.hpp"

#include "../sdk/Generated.hpp"

#include <poplin/ConvUtil.hpp>
#include <poplin/Convolution.hpp>

#include <popops/Cast.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Rearrange.hpp>
#include <popops/Reduce.hpp>
#include <popops/ScaledAdd.hpp>
#include <poputil/TileMapping.hpp>

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <cstdio>
#include <sstream>

namespace poplin {

using namespace poplar;

namespace {

using ipusim::sdk::fail;

using ipusim::sdk::shapeString;


std::string cType(const Type &t) { return t == HALF ? "half" : "float"; }

using detail::originalIndex;

// Per output coordinate of dimension d: its (kernel index, input index) pairs.
std::vector<std::vector<std::pair<unsigned, unsigned>>> taps(const ConvParams &p, unsigned d) {
  const long tin = p.getTransformedInputSize(d), tk = p.getTransformedKernelSize(d);
  const std::size_t out = p.getOutputSize(d);
  const auto &ot = p.outputTransform;
  const std::size_t kept = out - ot.paddingLower[d] - ot.paddingUpper[d];
  std::vector<std::vector<std::pair<unsigned, unsigned>>> r(out);
  for (std::size_t o = ot.paddingLower[d]; o < ot.paddingLower[d] + kept; ++o) {
    const long u = long(o - ot.paddingLower[d]) * long(ot.stride[d]) + long(ot.truncationLower[d]);
    for (long kt = 0; kt < tk; ++kt) {
      const long k = originalIndex(kt, p.kernelShape[d], p.kernelTransform, d, tk);
      const long i = originalIndex(u + kt, p.inputFieldShape[d], p.inputTransform, d, tin);
      if (k >= 0 && i >= 0) r[o].emplace_back(unsigned(k), unsigned(i));
    }
  }
  return r;
}

// A 1-D convolution as a 2-D one of height 1.
struct Field {
  std::size_t h, w, kh, kw, oh, ow;
  std::vector<std::vector<std::pair<unsigned, unsigned>>> rowTaps, colTaps;
};

Field field(const std::string &op, const ConvParams &p) {
  p.validate();
  const std::size_t n = p.getNumFieldDims();
  if (n != 1 && n != 2) fail(op, "ipusim supports 1 or 2 field dimensions, not " + std::to_string(n));
  Field f;
  if (n == 1) {
    f.h = f.kh = f.oh = 1;
    f.rowTaps = {{{0u, 0u}}};
  } else {
    f.h = p.inputFieldShape[0], f.kh = p.kernelShape[0], f.oh = p.getOutputSize(0);
    f.rowTaps = taps(p, 0);
  }
  f.w = p.inputFieldShape[n - 1], f.kw = p.kernelShape[n - 1], f.ow = p.getOutputSize(unsigned(n - 1));
  f.colTaps = taps(p, unsigned(n - 1));
  return f;
}

void flattenTaps(const std::vector<std::vector<std::pair<unsigned, unsigned>>> &t, std::size_t begin, std::size_t end,
                 unsigned inputBase, std::vector<unsigned> &start, std::vector<unsigned> &list) {
  start.assign(1, 0);
  list.clear();
  for (std::size_t o = begin; o < end; ++o) {
    for (const auto &[k, i] : t[o]) list.push_back(k), list.push_back(i - inputBase);
    start.push_back(unsigned(list.size() / 2));
  }
  if (list.empty()) list.push_back(0); // a vector field may not be empty
}

std::string addVertexClass(Graph &graph, const std::string &body, const char *kind) {
  return ipusim::sdk::addGeneratedVertex(graph, std::string("ipusim_poplin_") + kind, "poplar::MultiVertex",
                                         "#include <poplar/Vertex.hpp>\n", body);
}

const char *kTapFields = "  poplar::Vector<unsigned> rowStart;\n  poplar::Vector<unsigned> rowTaps;\n"
                         "  poplar::Vector<unsigned> colStart;\n  poplar::Vector<unsigned> colTaps;\n"
                         "  poplar::Vector<unsigned> p; // in channels, slab rows, width, kernel h, w, out rows, w, workers\n";

// out[co][oy][ox] = sum over the row and column taps and input channels of in[ci][iy][ix] w[co][ci][ky][kx].
// With `flipped`, w is given as [ci][co][ky][kx] with every spatial index reversed (weights
// transposed and flipped, gathered as they lie in memory).
std::string forwardVertex(Graph &graph, const Type &in, const Type &out, bool flipped) {
  const std::string I = cType(in), O = cType(out);
  std::ostringstream b;
  b << "  poplar::Input<poplar::Vector<" << I << ", poplar::VectorLayout::ONE_PTR, 8>> in;\n"
    << "  poplar::Input<poplar::Vector<" << I << ", poplar::VectorLayout::ONE_PTR, 8>> w;\n"
    << "  poplar::Output<poplar::Vector<" << O << ", poplar::VectorLayout::SPAN, 8>> out;\n" << kTapFields
    << "  void compute(unsigned wid) {\n"
    << "    const unsigned cin = p[0], rows = p[1], width = p[2], kh = p[3], kw = p[4], orows = p[5], ow = p[6];\n"
    << "    const unsigned lines = out.size() / ow, couts = lines / orows;\n"
    << "    (void)couts;\n"
    << "    for (unsigned line = wid; line < lines && wid < p[7]; line += p[7]) {\n"
    << "      const unsigned co = line / orows, oy = line % orows;\n"
    << "      for (unsigned ox = 0; ox < ow; ++ox) {\n"
    << "        float sum = 0;\n"
    << "        for (unsigned ty = rowStart[oy]; ty < rowStart[oy + 1]; ++ty) {\n"
    << "          const unsigned ky = rowTaps[2 * ty], iy = rowTaps[2 * ty + 1];\n"
    << "          for (unsigned tx = colStart[ox]; tx < colStart[ox + 1]; ++tx) {\n"
    << "            const unsigned kx = colTaps[2 * tx], ix = colTaps[2 * tx + 1];\n"
    << "            for (unsigned ci = 0; ci < cin; ++ci)\n"
    << "              sum += static_cast<float>(in[(ci * rows + iy) * width + ix]) *\n"
    << "                     static_cast<float>(w[" << (flipped ? "((ci * couts + co) * kh + (kh - 1 - ky)) * kw + (kw - 1 - kx)"
                                                         : "((co * cin + ci) * kh + ky) * kw + kx")
    << "]);\n"
    << "          }\n        }\n"
    << "        out[line * ow + ox] = static_cast<" << O << ">(sum);\n"
    << "      }\n    }\n  }\n};\n";
  return addVertexClass(graph, b.str(), "Conv");
}

// dw[co][ci][ky][kx] = sum over the taps of dy[co][oy][ox] in[ci][iy][ix] (float partials) for
// the block's output channels; the workers take its (co, ci, ky) kernel rows in turn.
std::string weightDeltaVertex(Graph &graph, const Type &in) {
  const std::string I = cType(in);
  std::ostringstream b;
  b << "  poplar::Input<poplar::Vector<" << I << ", poplar::VectorLayout::ONE_PTR, 8>> in;\n"
    << "  poplar::Input<poplar::Vector<" << I << ", poplar::VectorLayout::ONE_PTR, 8>> dy;\n"
    << "  poplar::Output<poplar::Vector<float, poplar::VectorLayout::SPAN, 8>> out;\n" << kTapFields
    << "  void compute(unsigned wid) {\n"
    << "    const unsigned cin = p[0], rows = p[1], width = p[2], kh = p[3], kw = p[4], orows = p[5], ow = p[6];\n"
    << "    const unsigned lines = out.size() / kw;\n"
    << "    for (unsigned line = wid; line < lines; line += 6) {\n"
    << "      const unsigned co = line / (cin * kh), ci = line / kh % cin, row = line % kh;\n"
    << "      float *o = &out[line * kw] - row * kw;\n"
    << "      for (unsigned i = 0; i < kw; ++i) o[row * kw + i] = 0;\n"
    << "      for (unsigned oy = 0; oy < orows; ++oy)\n"
    << "        for (unsigned ty = rowStart[oy]; ty < rowStart[oy + 1]; ++ty) {\n"
    << "          const unsigned ky = rowTaps[2 * ty], iy = rowTaps[2 * ty + 1];\n"
    << "          if (ky != row) continue;\n"
    << "          for (unsigned ox = 0; ox < ow; ++ox) {\n"
    << "            const float g = static_cast<float>(dy[(co * orows + oy) * ow + ox]);\n"
    << "            for (unsigned tx = colStart[ox]; tx < colStart[ox + 1]; ++tx)\n"
    << "              o[ky * kw + colTaps[2 * tx]] += g * static_cast<float>(in[(ci * rows + iy) * width + colTaps[2 * tx + 1]]);\n"
    << "          }\n        }\n"
    << "    }\n  }\n};\n";
  return addVertexClass(graph, b.str(), "ConvWeightDeltas");
}

// The input rows the row taps of output rows [begin, end) reach: [lo, hi).
std::pair<unsigned, unsigned> inputRows(const Field &f, std::size_t begin, std::size_t end) {
  unsigned lo = ~0u, hi = 0;
  for (std::size_t o = begin; o < end; ++o)
    for (const auto &t : f.rowTaps[o]) lo = std::min(lo, t.second), hi = std::max(hi, t.second + 1);
  return lo > hi ? std::make_pair(0u, 0u) : std::make_pair(lo, hi);
}

// Connects a block's input slab (the input rows its row taps reach, for batch n and group g)
// and its taps and shape fields (output rows [r0, r1)).
void connectSlab(Graph &graph, VertexRef v, const Tensor &in4, const Field &f, std::size_t n, std::size_t g,
                 std::size_t cin, std::size_t r0, std::size_t r1, unsigned workers) {
  const auto rows = inputRows(f, r0, r1);
  std::vector<unsigned> rowStart, rowList, colStart, colList;
  flattenTaps(f.rowTaps, r0, r1, rows.first, rowStart, rowList);
  flattenTaps(f.colTaps, 0, f.ow, 0, colStart, colList);
  if (rows.second > rows.first)
    graph.connect(v["in"], in4.slice({n, g * cin, rows.first, 0}, {n + 1, (g + 1) * cin, rows.second, f.w}).flatten());
  else // no tap reaches the input: any element, never read
    graph.connect(v["in"], in4.slice({n, g * cin, 0, 0}, {n + 1, g * cin + 1, 1, 1}).flatten());
  graph.setInitialValue(v["rowStart"], rowStart);
  graph.setInitialValue(v["rowTaps"], rowList);
  graph.setInitialValue(v["colStart"], colStart);
  graph.setInitialValue(v["colTaps"], colList);
  graph.setInitialValue(v["p"], std::vector<unsigned>{unsigned(cin), rows.second - rows.first, unsigned(f.w),
                                                       unsigned(f.kh), unsigned(f.kw), unsigned(r1 - r0),
                                                       unsigned(f.ow), workers});
}

// The forward plan: blocks of output channels (cb) and output rows (rb).
struct Plan {
  std::size_t cb, rb;
};

// The options' availableMemoryProportion (0.6 if not given); an option poplibs' convolutions
// do not have is invalid_option.
double memoryProportion(const OptionFlags &options) {
  double proportion = 0.6;
  for (const auto &kv : options) {
    if (kv.first == "availableMemoryProportion") proportion = std::strtod(kv.second.c_str(), nullptr);
    else if (kv.first != "partialsType" && kv.first != "pass" && kv.first != "use128BitConvUnitLoad" &&
             kv.first != "enableMultiStageReduce" && kv.first != "enableFastReduce" && kv.first != "remapOutputTensor" &&
             kv.first != "planConstraints" && kv.first != "enableConvDithering" && kv.first != "gatherConvOutput")
      throw invalid_option("poplin::convolution: unknown option '" + kv.first + "'");
  }
  return proportion;
}

Plan plan(const Graph &graph, const ConvParams &p, const Field &f, const OptionFlags &options) {
  const double proportion = memoryProportion(options);
  const Target &t = graph.getTarget();
  const double budget = proportion * t.getBytesPerTile(), inB = double(t.getTypeSize(p.inputType)),
               outB = double(t.getTypeSize(p.outputType));
  const std::size_t units0 = p.batchSize * p.numConvGroups;
  Plan pl{p.outputChannelsPerConvGroup, f.oh};
  auto bytes = [&](const Plan &x) {
    const auto rows = inputRows(f, 0, std::min(f.oh, x.rb));
    return double(p.inputChannelsPerConvGroup) * (rows.second - rows.first) * f.w * inB +
           double(x.cb) * p.inputChannelsPerConvGroup * f.kh * f.kw * inB + double(x.cb) * x.rb * f.ow * outB;
  };
  auto units = [&](const Plan &x) { return units0 * ((p.outputChannelsPerConvGroup + x.cb - 1) / x.cb) * ((f.oh + x.rb - 1) / x.rb); };
  auto shrink = [&](Plan &x) {
    if (x.rb >= x.cb && x.rb > 1) x.rb = (x.rb + 1) / 2;
    else if (x.cb > 1) x.cb = (x.cb + 1) / 2;
    else return false;
    return true;
  };
  while (units(pl) < t.getNumTiles() && shrink(pl)) {
  }
  while (bytes(pl) > budget)
    if (!shrink(pl))
      fail("poplin::convolution", "no plan fits in availableMemoryProportion " + std::to_string(proportion) +
                                      " of a tile: one output row of one channel needs " +
                                      std::to_string(std::size_t(bytes(pl))) + " bytes");
  return pl;
}

// in [N][G Cin][h][w], out [N][G Cout][oh][ow] as 4-D (a 1-D field gets a height of 1).
Tensor as4d(const Tensor &t, std::size_t fieldDims) { return fieldDims == 1 ? t.expand({2}) : t; }

void checkShape(const std::string &op, const char *what, const Tensor &t, const std::vector<std::size_t> &want) {
  if (t.shape() != want) fail(op, "the shape of " + std::string(what) + " is " + shapeString(t.shape()) + "; expected " + shapeString(want));
}

std::vector<std::size_t> inputShape(const ConvParams &p) {
  std::vector<std::size_t> s{p.batchSize, p.getNumInputChans()};
  s.insert(s.end(), p.inputFieldShape.begin(), p.inputFieldShape.end());
  return s;
}
std::vector<std::size_t> outputShape(const ConvParams &p) {
  std::vector<std::size_t> s{p.batchSize, p.getNumOutputChans()};
  const auto o = p.getOutputFieldShape();
  s.insert(s.end(), o.begin(), o.end());
  return s;
}
std::vector<std::size_t> weightsShape(const ConvParams &p) {
  std::vector<std::size_t> s{p.numConvGroups, p.outputChannelsPerConvGroup, p.inputChannelsPerConvGroup};
  s.insert(s.end(), p.kernelShape.begin(), p.kernelShape.end());
  return s;
}

// The tile of forward block u of `total` blocks: spread over the tiles.
unsigned blockTile(const Graph &graph, std::size_t u, std::size_t total) {
  const std::size_t tiles = graph.getTarget().getNumTiles();
  return unsigned(total >= tiles ? u % tiles : u * tiles / total);
}

// ---- the AMP path ------------------------------------------------------------------------------
//
// A 2-D convolution with one group, channels in multiples of the AMP's chunks (output channels in
// multiples of a pass's outputs: 16, or 8 for half with float partials; input channels of 16
// halves or 8 floats), no transform but input padding, and rows of at least amp::kMinRows
// outputs runs on the AMP product vertex (Amp.hpp) with a tap a kernel position: for an output
// row, the input rows it reads (padding as zeros) lie channels-last in the vertex's `a`, output
// pixel x's input at tap (ky, kx) starting (ky * window width + kx) pixels in, so each tap is a
// [pixels][channels] x [channels][outputs] product over the same rows. The tensors create* make
// for such a convolution are stored as the vertex reads them: the input [N][H][W][C], the
// weights as the AMP's chunks ([Co/O][Kh][Kw][Ci/C][O][C]) and the output [N][Co/cb][OH][OW][cb];
// each is returned as poplin's view. Others are gathered as they lie. Half with float partials
// (poplibs' default) sums into a float tensor laid out as the output, cast into it afterwards.

/// The partials type the options ask for (poplibs' default: float).
Type partialsTypeOf(const OptionFlags &options) {
  const std::string *v = options.find("partialsType");
  if (!v || *v == "float") return FLOAT;
  if (*v == "half") return HALF;
  throw invalid_option("poplin::convolution: partialsType must be half or float, not '" + *v + "'");
}

struct AmpPlan {
  std::size_t cb = 0; // output channels a vertex (a multiple of the pass's outputs); 0: not on the AMP
  std::size_t windowWidth = 0;
  std::size_t parts = 1; // kernel rows split over this many vertices (1 or Kh), their partials summed
  std::size_t rows = 1;  // output rows a vertex (only with the kernel rows split; see ampPlan)
  amp::Form form{FLOAT, FLOAT};
};

AmpPlan ampPlan(const Graph &graph, const ConvParams &p, const OptionFlags &options) {
  AmpPlan none;
  const Type t = p.inputType;
  const amp::Form form{t, partialsTypeOf(options)};
  if (!form.valid() || p.outputType != t) return none;
  if (p.getNumFieldDims() != 2 || p.numConvGroups != 1) return none;
  const auto plain = [](const ConvParams::InputTransform &x, bool padding) {
    for (std::size_t d = 0; d < x.dilation.size(); ++d)
      if (x.truncationLower[d] || x.truncationUpper[d] || x.dilation[d] != 1 || x.flip[d] ||
          (!padding && (x.paddingLower[d] || x.paddingUpper[d])))
        return false;
    return true;
  };
  if (!plain(p.inputTransform, true) || !plain(p.kernelTransform, false)) return none;
  const auto &o = p.outputTransform;
  for (std::size_t d = 0; d < 2; ++d)
    if (o.truncationLower[d] || o.truncationUpper[d] || o.stride[d] != 1 || o.paddingLower[d] || o.paddingUpper[d])
      return none;
  const std::size_t ci = p.inputChannelsPerConvGroup, co = p.outputChannelsPerConvGroup;
  if (ci % form.inputs() || co % form.outputs() || ci > form.maxRow()) return none;
  const std::size_t oh = p.getOutputSize(0), ow = p.getOutputSize(1);
  if (ow < amp::kMinRows) return none;
  AmpPlan plan;
  plan.form = form;
  plan.windowWidth = p.inputFieldShape[1] + p.inputTransform.paddingLower[1] + p.inputTransform.paddingUpper[1];
  // Output channels a vertex: enough vertices (batch x rows x channel blocks) for the tiles.
  const std::size_t chunks = co / form.outputs(), rows = p.batchSize * oh, tiles = graph.getTarget().getNumTiles();
  const std::size_t want = std::min(chunks, std::max<std::size_t>(1, (tiles + rows - 1) / rows));
  plan.cb = (chunks + want - 1) / want * form.outputs();
  if (plan.cb > form.maxRow()) return none; // the output's row jump must fit a pace stride
  // Kernel rows on vertices of their own (each an input row, its Kw taps and partials, summed
  // afterwards) when that costs the busiest tile fewer cycles, the sum included: with fewer
  // output rows than tiles (ResNet-50's 3x3 layer: 896 vertices of 36 passes on 1,472 tiles),
  // Kh times the vertices of a third of the passes fill the tiles (two a tile: 24 passes) and
  // each receives one input row instead of three; each of the Kh tiles of an output block sums a
  // Kh-th of it (ampStorage), receiving Kh - 1 partials of each of its outputs (at 8 bytes a
  // cycle) and adding them (PartialSum.hpp), an exchange and a compute set more (about 400
  // cycles of syncs and set-up).
  // Only when cb divides Co, so that the partials are stored by channel block (ampStorage): in
  // [N][Co][OH][OW] order a tile's partials would be runs of one block's channels, and the sum
  // of many short runs cost more than the split saved (8 tiles, 24 outputs in blocks of 16:
  // 36,811 cycles split, 14,136 not).
  // The output rows a tile takes then go as one vertex: one AMP run over the rows' windows laid
  // end to end, (rows - 1) x windowWidth + ow positions, of which the last Kw - 1 of each row but
  // the last read across into the next row's window, junk that the partials keep and the sum
  // skips. A pass pays its fill, drain and set-up once for all the rows (ResNet-50's 3x3 layer:
  // two rows a tile, 116 positions a pass instead of 56 twice).
  const std::size_t kh = p.kernelShape[0], kw = p.kernelShape[1];
  const std::size_t blocks = (co + plan.cb - 1) / plan.cb, units = p.batchSize * oh * blocks;
  if (kh > 1 && co % plan.cb == 0) {
    // Rows a vertex: a group's (image, channel block, kernel row) rows over the tiles it has.
    const std::size_t perTileSplit = (units * kh + tiles - 1) / tiles, groups = p.batchSize * blocks * kh;
    const std::size_t rows = groups >= tiles ? oh : (oh + tiles / groups - 1) / (tiles / groups);
    const std::size_t vertices = groups * ((oh + rows - 1) / rows);
    const double perTile = double((units + tiles - 1) / tiles), perTileVertices = double((vertices + tiles - 1) / tiles);
    const double positions = double((rows - 1) * plan.windowWidth + ow);
    const double partialBytes = double(graph.getTarget().getTypeSize(form.partials));
    const double share = double(ow) * double(plan.cb) * partialBytes * double(perTileSplit) / double(kh);
    const double sum = double(kh - 1) * share / 8 + 6 * detail::vectorVertexBundles(double(kh - 1), std::ceil(share / 8 / 6)) + 400;
    if (perTileVertices * amp::productCycles(form, std::size_t(positions), ci * kw, plan.cb) + sum <
        perTile * amp::productCycles(form, ow, ci * kw * kh, plan.cb)) {
      plan.parts = kh;
      plan.rows = rows;
    }
  }
  // Memory: the input rows, the weights and the output rows of a vertex.
  const double bytes = double(graph.getTarget().getTypeSize(t)) *
                       (double(kh / plan.parts + plan.rows - 1) * plan.windowWidth * ci + double(plan.cb) * ci * kh * kw +
                        double(plan.rows * plan.windowWidth) * plan.cb);
  if (bytes > memoryProportion(options) * graph.getTarget().getBytesPerTile()) return none;
  return plan;
}

/// The tile holding the first element of `t`.
unsigned firstTile(const Graph &graph, const Tensor &t) {
  const auto mapping = graph.getTileMapping(t.flatten().slice(0, 1));
  return unsigned(std::find_if(mapping.begin(), mapping.end(), [](const auto &m) { return !m.empty(); }) - mapping.begin());
}

/// The tile of the vertex of output block (n, channel block c, row y) and kernel-row part
/// `part` (the vertex of rows y / plan.rows). Counting the vertices by channel block, part, image
/// and rows, each tile takes a run of them (as many as the busiest must: the vertices over the
/// tiles, rounded up), so that the vertices of a tile share their weights (received once) and
/// read neighbouring input rows.
unsigned ampTile(const Graph &graph, const ConvParams &p, const AmpPlan &plan, std::size_t n, std::size_t c,
                 std::size_t y, std::size_t part = 0) {
  const std::size_t blocks = p.outputChannelsPerConvGroup / plan.cb + (p.outputChannelsPerConvGroup % plan.cb != 0);
  const std::size_t oh = p.getOutputSize(0), rowBlocks = (oh + plan.rows - 1) / plan.rows;
  const std::size_t total = p.batchSize * blocks * rowBlocks * plan.parts;
  const std::size_t tiles = graph.getTarget().getNumTiles(), perTile = (total + tiles - 1) / tiles;
  const std::size_t u = ((c * plan.parts + part) * p.batchSize + n) * rowBlocks + y / plan.rows;
  return blockTile(graph, u / perTile, (total + perTile - 1) / perTile);
}

/// A [N][Co/cb][OH][OW][cb] variable of `type`: each vertex's output rows together, on the tile
/// of its kernel-row part `part`; an invalid tensor if cb does not divide Co. With `windows`,
/// the partials of a part with plan.rows output rows a vertex: [N][Co/cb][rows x row blocks]
/// [window width][cb], the vertices' AMP runs, rows of the window's width with junk past OW.
Tensor ampStorage(Graph &graph, const ConvParams &p, const AmpPlan &plan, const Type &type, const std::string &name,
                  std::size_t part = 0, bool windows = false) {
  const std::size_t co = p.outputChannelsPerConvGroup, blocks = co / plan.cb, oh = p.getOutputSize(0);
  const std::size_t height = windows ? (oh + plan.rows - 1) / plan.rows * plan.rows : oh;
  const std::size_t width = windows ? plan.windowWidth : p.getOutputSize(1);
  if (co % plan.cb) return Tensor();
  Tensor o = graph.addVariable(type, {p.batchSize, blocks, height, width, plan.cb}, name);
  // The output of kernel rows split over parts is summed where it lies: each vertex's rows are
  // shared, by pixels, among the tiles of its parts, so that every part's tile sums a share
  // (ResNet-50's 3x3 layer: a third of two rows on each of 1,344 tiles rather than two rows on
  // 448, which received both other parts' partials and summed them alone).
  const bool shared = !windows && plan.parts > 1;
  for (std::size_t n = 0; n < p.batchSize; ++n)
    for (std::size_t c = 0; c < blocks; ++c) {
      const Tensor rows = o[n][c].flatten(); // a slice a row: indexing walks regions
      for (std::size_t y0 = 0; y0 < height; y0 += shared ? plan.rows : 1) {
        const std::size_t y1 = std::min(height, y0 + (shared ? plan.rows : 1)), pixels = (y1 - y0) * width;
        const std::size_t pieces = shared ? plan.parts : 1;
        for (std::size_t i = 0; i < pieces; ++i)
          graph.setTileMapping(rows.slice((y0 * width + pixels * i / pieces) * plan.cb,
                                          (y0 * width + pixels * (i + 1) / pieces) * plan.cb),
                               ampTile(graph, p, plan, n, c, std::min(y0, oh - 1), shared ? i : part));
      }
    }
  return o;
}

/// An output-shaped [N][Co][OH][OW] view of ampStorage's variable; an invalid tensor if cb does
/// not divide Co.
Tensor ampOutput(Graph &graph, const ConvParams &p, const AmpPlan &plan, const Type &type, const std::string &name) {
  const Tensor o = ampStorage(graph, p, plan, type, name);
  if (!o.valid()) return o;
  const std::size_t oh = p.getOutputSize(0), ow = p.getOutputSize(1);
  return o.dimShuffle({0, 2, 3, 1, 4}).reshape({p.batchSize, oh, ow, p.outputChannelsPerConvGroup}).dimShuffle({0, 3, 1, 2});
}

/// The weights [1][Co][Ci][Kh][Kw] of output channels [c0, c1) and kernel rows [ky0, ky1) in the
/// vertex's order: column chunks, taps, depth chunks, each chunk a pass's outputs as rows (in
/// amp::Form::rowOfOutput's order) of C inputs.
Tensor ampWeights(const Tensor &weights, const ConvParams &p, const amp::Form &form, std::size_t c0, std::size_t c1,
                  std::size_t ky0, std::size_t ky1) {
  const std::size_t C = form.inputs(), O = form.outputs();
  const Tensor w = weights[0]
                       .slice(c0, c1)
                       .reshape({(c1 - c0) / O, O, p.inputChannelsPerConvGroup / C, C, p.kernelShape[0], p.kernelShape[1]})
                       .dimShuffle({0, 4, 5, 2, 1, 3})
                       .slice(ky0, ky1, 1);
  return form.inRowOrder(w, 4).flatten();
}

void ampConvolution(Graph &graph, const Tensor &in, const Tensor &weights, const Tensor &out, const ConvParams &p,
                    const AmpPlan &plan, program::Sequence &prog, const std::string &name) {
  const Type type = p.inputType;
  const std::size_t ci = p.inputChannelsPerConvGroup, co = p.outputChannelsPerConvGroup;
  const std::size_t h = p.inputFieldShape[0], w = p.inputFieldShape[1], kh = p.kernelShape[0], kw = p.kernelShape[1];
  const std::size_t oh = p.getOutputSize(0), ow = p.getOutputSize(1), width = plan.windowWidth;
  const std::size_t padTop = p.inputTransform.paddingLower[0], padLeft = p.inputTransform.paddingLower[1];
  const unsigned bytes = unsigned(graph.getTarget().getTypeSize(type));
  const std::string vertex = amp::productVertex(graph, plan.form);
  // With partials of another type than the output (half with float partials), the vertices write
  // a partials tensor laid out as the output would be, cast into the output afterwards.
  const bool direct = plan.form.partials == out.elementType();
  Tensor sums = direct ? out : ampOutput(graph, p, plan, plan.form.partials, name + "/partials");
  if (!sums.valid()) sums = graph.clone(plan.form.partials, out, name + "/partials");
  bool outMapped = !direct;
  if (direct) graph.getTileMapping(out, &outMapped);
  // With the kernel rows split (AmpPlan::parts; cb then divides Co), each part's vertices write
  // partials of their own on the part's tiles, summed into `sums` afterwards. They are kept in
  // ampStorage's order ([N][Co/cb][OH][OW][cb]), and the vertices and the sum take them so: an
  // [N][Co][OH][OW] view of that order is a region every cb elements, slow to build and to
  // walk. With several output rows a vertex (plan.rows), their rows are the window's width.
  const std::size_t parts = plan.parts, rowsPerPart = kh / parts, rowsPerVertex = plan.rows;
  const std::size_t partialRow = rowsPerVertex > 1 ? width : ow; // a stored partial row's pixels
  std::vector<Tensor> partials;
  for (std::size_t part = 0; parts > 1 && part < parts; ++part)
    partials.push_back(ampStorage(graph, p, plan, plan.form.partials, name + "/rows", part, rowsPerVertex > 1));
  const Tensor inNHWC = in.dimShuffle({0, 2, 3, 1}), sumsNHWC = sums.dimShuffle({0, 2, 3, 1});
  std::vector<unsigned> tapOffsets;
  for (std::size_t ky = 0; ky < rowsPerPart; ++ky)
    for (std::size_t kx = 0; kx < kw; ++kx) tapOffsets.push_back(unsigned((ky * width + kx) * ci * bytes));
  // Zeros for the padding: a whole window row's worth on a tile that needs one, else the side
  // padding's (the larger side), made once a tile.
  const std::size_t sides = std::max<std::size_t>(padLeft, width - padLeft - w) * ci;
  std::map<std::pair<unsigned, bool>, Tensor> zeros;
  auto zerosOn = [&](unsigned tile, std::size_t n) {
    const bool whole = n > sides;
    auto it = zeros.find({tile, whole});
    if (it == zeros.end()) {
      Tensor z = graph.addConstant(type, {whole ? width * ci : sides}, 0.0, name + "/padding");
      graph.setTileMapping(z, tile);
      it = zeros.emplace(std::make_pair(tile, whole), z).first;
    }
    return it->second.slice(0, n);
  };
  // A stored kernel-row part's output rows whose input row is padding are not computed (their
  // partials are zeros, which the sum reads from a constant): a vertex's run begins and ends
  // at rows with input (the 3x3 layer's first and last row blocks read a row of zeros).
  const std::size_t blocks = co / plan.cb;
  std::vector<char> padded(parts > 1 ? parts * p.batchSize * blocks * oh : 0);
  auto paddedAt = [&](std::size_t part, std::size_t n, std::size_t c, std::size_t y) -> char & {
    return padded[((part * p.batchSize + n) * blocks + c) * oh + y];
  };
  auto hasInput = [&](std::size_t part, std::size_t y) {
    const long iy = long(y + part) - long(padTop);
    return iy >= 0 && iy < long(h);
  };
  ComputeSet cs = graph.addComputeSet(name);
  for (std::size_t c0 = 0, c = 0; c0 < co; c0 += plan.cb, ++c) {
    const std::size_t c1 = std::min(co, c0 + plan.cb);
    for (std::size_t part = 0; part < parts; ++part) {
      const std::size_t ky0 = part * rowsPerPart, ky1 = ky0 + rowsPerPart;
      const Tensor wv = ampWeights(weights, p, plan.form, c0, c1, ky0, ky1);
      const bool toStorage = parts > 1;
      for (std::size_t n = 0; n < p.batchSize; ++n) {
        // An image's views made once: indexing a view walks its regions.
        // (Stored partials flat: [rows][pixels][cb].)
        const Tensor inImage = inNHWC[n], outImage = toStorage ? partials[part][n][c].flatten() : sumsNHWC[n];
        // An output the caller left unmapped: each row on its (first part's) vertex's tile.
        const Tensor unmapped = !outMapped && part == 0 ? sumsNHWC[n] : Tensor();
        for (std::size_t block = 0; block < oh; block += rowsPerVertex) {
          const unsigned tile = ampTile(graph, p, plan, n, c, block, part);
          const std::size_t blockEnd = std::min(oh, block + rowsPerVertex);
          if (unmapped.valid())
            for (std::size_t r = block; r < blockEnd; ++r) graph.setTileMapping(unmapped[r].slice(c0, c1, 1), tile);
          // Output rows [y, y + rows): the input rows they read, each a window row, end to end.
          std::size_t y = block, end = blockEnd;
          if (!padded.empty()) {
            while (y < end && !hasInput(part, y)) paddedAt(part, n, c, y++) = 1;
            while (end > y && !hasInput(part, end - 1)) paddedAt(part, n, c, --end) = 1;
            if (y == end) continue;
          }
          const std::size_t rows = end - y, positions = (rows - 1) * width + ow;
          std::vector<Tensor> window;
          for (std::size_t ky = ky0; ky < ky1 + rows - 1; ++ky) {
            const long iy = long(y + ky) - long(padTop);
            if (iy < 0 || iy >= long(h)) {
              window.push_back(zerosOn(tile, width * ci));
              continue;
            }
            // The row's side padding from zeros on the row's tile: they come with the row in the
            // exchange, where zeros on this tile would be copied in, a copy list in the compute set.
            const Tensor row = inImage[std::size_t(iy)].flatten();
            const unsigned home = firstTile(graph, row);
            if (padLeft) window.push_back(zerosOn(home, padLeft * ci));
            window.push_back(row);
            if (width > padLeft + w) window.push_back(zerosOn(home, (width - padLeft - w) * ci));
          }
          const Tensor o = toStorage ? outImage.slice(y * partialRow * plan.cb, (y * partialRow + positions) * plan.cb)
                                     : outImage[y].slice(c0, c1, 1).flatten();
          amp::connectProduct(graph, graph.addVertex(cs, vertex), tile, concat(window), wv, o, positions, ci, c1 - c0,
                              tapOffsets);
        }
      }
    }
  }
  prog.add(program::Execute(cs));
  // The sum and the cast go in the storage order of ampOutput ([N][Co/cb][OH][OW][cb]), where
  // its runs are long (in [N][Co][OH][OW] order a tile's elements are runs of one).
  auto stored = [&](const Tensor &t) {
    if (co % plan.cb) return t;
    return t.dimShuffle({0, 2, 3, 1}).reshape({p.batchSize, oh, ow, co / plan.cb, plan.cb}).dimShuffle({0, 3, 1, 2, 4});
  };
  if (parts > 1) {
    // The partials are in ampStorage's order already; their window rows are cut to the
    // output's, and rows not computed read zeros on the sum's tile.
    const Tensor sumsStored = stored(sums);
    std::map<unsigned, Tensor> zeroRows;
    auto zeroRow = [&](std::size_t n, std::size_t c, std::size_t y) {
      const unsigned tile = firstTile(graph, sumsStored[n][c][y]);
      auto it = zeroRows.find(tile);
      if (it == zeroRows.end()) {
        Tensor z = graph.addConstant(plan.form.partials, {ow, plan.cb}, 0.0, name + "/rows/padding");
        graph.setTileMapping(z, tile);
        it = zeroRows.emplace(tile, z).first;
      }
      return it->second;
    };
    const bool anyPadded = std::find(padded.begin(), padded.end(), 1) != padded.end();
    std::vector<Tensor> inOrder;
    for (std::size_t part = 0; part < parts; ++part) {
      const Tensor t = rowsPerVertex > 1 ? partials[part].slice(0, oh, 2).slice(0, ow, 3) : partials[part];
      if (!anyPadded) {
        inOrder.push_back(t.expand({0}));
        continue;
      }
      std::vector<Tensor> rows;
      for (std::size_t n = 0; n < p.batchSize; ++n)
        for (std::size_t c = 0; c < blocks; ++c) {
          const Tensor image = t[n][c];
          for (std::size_t y = 0; y < oh; ++y) rows.push_back((paddedAt(part, n, c, y) ? zeroRow(n, c, y) : image[y]).expand({0}));
        }
      inOrder.push_back(concat(rows).reshape(t.shape()).expand({0}));
    }
    detail::sumPartials(graph, concat(inOrder), sumsStored, prog, name + "/rows", rowsPerVertex > 1 || anyPadded);
  }
  if (!direct) popops::cast(graph, stored(sums), stored(out), prog, name + "/cast");
}

} // namespace

// The original index of transformed coordinate t (of `total`) in a dimension of `size`
// elements under transform T, or -1 where t is padding or a dilation's hole.
long detail::originalIndex(long t, std::size_t size, const ConvParams::InputTransform &T, unsigned d, long total) {
  long x = T.flip[d] ? total - 1 - t : t;
  x -= long(T.paddingLower[d]);
  const long truncated = long(size) - long(T.truncationLower[d]) - long(T.truncationUpper[d]);
  if (truncated <= 0) return -1;
  const long dilated = (truncated - 1) * long(T.dilation[d]) + 1;
  if (x < 0 || x >= dilated || x % long(T.dilation[d])) return -1;
  return x / long(T.dilation[d]) + long(T.truncationLower[d]);
}

namespace {
/// The parameters every entry plans on: validated, then canonical (ConvParams::canonicalize: the
/// same convolution, so every form of it is planned alike, the input gradient of a padded layer
/// as the layer itself, and createInput/createWeights lay tensors out as convolution wants them).
ConvParams planned(const ConvParams &params) {
  params.validate();
  return params.canonicalize();
}
} // namespace

Tensor createWeights(Graph &graph, const ConvParams &paramsIn, const DebugContext &debugContext, const OptionFlags &options,
                     PlanningCache *) {
  const ConvParams params = planned(paramsIn);
  const std::string name = debugContext.getPathName().empty() ? "poplin::weights" : debugContext.getPathName();
  if (const AmpPlan plan = ampPlan(graph, params, options); plan.cb) {
    // The AMP's chunks: [Co/16][Kh][Kw][Ci/C][16 rows][C], viewed as [1][Co][Ci][Kh][Kw].
    const amp::Form form = plan.form;
    const std::size_t C = form.inputs(), O = form.outputs();
    const std::size_t co = params.outputChannelsPerConvGroup, ci = params.inputChannelsPerConvGroup;
    const std::size_t kh = params.kernelShape[0], kw = params.kernelShape[1];
    Tensor chunks = graph.addVariable(params.inputType, {co / O, kh, kw, ci / C, O, C}, name);
    // Each vertex's block of cb output channels together on one tile, which broadcasts it to
    // all the vertices of the block in one long send. Spread over the tiles in chunks, a block
    // came from dozens of tiles, each send a broadcast to hundreds of receivers across the die
    // that waited for the skew between its receivers' windows (ResNet-50's 3x3 layer: 36 chunks
    // a block). The block's last vertex's tile holds it (createInput's rows lie on the first
    // block's vertices, so only the first block's home also sends a row).
    // With the kernel rows split, each part's rows of the block on a tile of the part's.
    const std::size_t oh = params.getOutputSize(0), rowsPerPart = kh / plan.parts;
    for (std::size_t c0 = 0, c = 0; c0 < co; c0 += plan.cb, ++c)
      for (std::size_t part = 0; part < plan.parts; ++part)
        graph.setTileMapping(chunks.slice(c0 / O, std::min(co, c0 + plan.cb) / O).slice(part * rowsPerPart, (part + 1) * rowsPerPart, 1),
                             ampTile(graph, params, plan, params.batchSize - 1, c, oh - 1, part));
    // [Co/O][Kh][Kw][Ci/C][O][C] -> [Co/O][O][Ci/C][C][Kh][Kw] -> [Co][Ci][Kh][Kw].
    return form.inOutputOrder(chunks, 4).dimShuffle({0, 4, 3, 5, 1, 2}).reshape({co, ci, kh, kw}).expand({0});
  }
  const std::size_t co = params.outputChannelsPerConvGroup, ci = params.inputChannelsPerConvGroup;
  if (co % 16 == 0 && ci % 16 == 0 && ci && co &&
      detail::convAsProduct(graph, params, options, memoryProportion(options))) {
    // Kernel position by kernel position, input channels innermost ([G][kernel][Co][Ci] in
    // memory): the product's weight chunks take a position's input channels side by side, and
    // weightsTransposeChansFlipXY's 16 x 16 blocks are rows of 16 (in [G][Co][Ci][kernel] every
    // element of both lay a kernel apart, and moved one at a time: ResNet-50's 14x14 3x3 layer's
    // forward spent 71,910 cycles so, its input gradient's transposition 265,447). Spread in
    // runs of 16 channels, so that the transposition's blocks spread over the tiles too.
    const std::size_t nd = params.getNumFieldDims();
    std::vector<std::size_t> shape{params.numConvGroups};
    shape.insert(shape.end(), params.kernelShape.begin(), params.kernelShape.end());
    shape.push_back(co);
    shape.push_back(ci);
    Tensor w = graph.addVariable(params.inputType, shape, name);
    poputil::mapTensorLinearly(graph, w, 1, 16);
    std::vector<unsigned> order{0, unsigned(nd + 1), unsigned(nd + 2)};
    for (unsigned d = 1; d <= nd; ++d) order.push_back(d);
    return w.dimShuffle(order);
  }
  Tensor w = graph.addVariable(params.inputType, weightsShape(params), name);
  poputil::mapTensorLinearly(graph, w);
  return w;
}

Tensor createInput(Graph &graph, const ConvParams &paramsIn, const DebugContext &debugContext, const OptionFlags &options,
                   PlanningCache *) {
  const ConvParams params = planned(paramsIn);
  const std::string name = debugContext.getPathName().empty() ? "poplin::input" : debugContext.getPathName();
  if (const AmpPlan plan = ampPlan(graph, params, options); plan.cb) {
    // Channels last, viewed as [N][C][H][W]. A vertex reads `wave` consecutive rows, each in a
    // wave of its own (row r in wave r mod `wave`: the rows' broadcasts can go `wave` at a time
    // on every tile). Where the tiles without vertices can hold every row, one of each wave a
    // tile, they do: they only send, where a reader that holds a row also receives another, and
    // a supervisor cannot steer a receive while it sends (the 3x3 layer's rows took three waves
    // instead of two: a home's send in the first wave ran into the select of its receive in the
    // second), and it copies its own row into its vertex's window, in the compute set (the
    // layer: 3,777 -> 3,649 cycles of exchange, 9,109 -> 8,081 of compute). Otherwise each row
    // goes on the tile of the first channel block's vertex whose central tap reads it: that
    // vertex receives the rows above and below, and each tile sends one row and receives the
    // others. On the first tiles in turn, the rows' homes were vertex tiles receiving rows of
    // their own in the same cycles, and ResNet-50's 3x3 layer's rows took 6 waves instead of 3.
    const std::size_t h = params.inputFieldShape[0], w = params.inputFieldShape[1], c = params.inputChannelsPerConvGroup;
    Tensor nhwc = graph.addVariable(params.inputType, {params.batchSize, h, w, c}, name);
    const long oh = long(params.getOutputSize(0)), kh = long(params.kernelShape[0]), centre = kh / 2;
    const long padTop = long(params.inputTransform.paddingLower[0]);
    const std::size_t blocks = (params.outputChannelsPerConvGroup + plan.cb - 1) / plan.cb;
    const std::size_t wave = (plan.parts > 1 ? 1 : std::size_t(kh)) + plan.rows - 1;
    std::vector<char> busy(graph.getTarget().getNumTiles());
    for (std::size_t n = 0; n < params.batchSize; ++n)
      for (std::size_t b = 0; b < blocks; ++b)
        for (std::size_t part = 0; part < plan.parts; ++part)
          for (std::size_t y = 0; y < std::size_t(oh); y += plan.rows) busy[ampTile(graph, params, plan, n, b, y, part)] = 1;
    std::vector<unsigned> idle;
    for (unsigned t = 0; t < busy.size(); ++t)
      if (!busy[t]) idle.push_back(t);
    if (idle.size() >= params.batchSize * ((h + wave - 1) / wave)) {
      std::vector<std::size_t> used(wave); // rows of each wave placed
      for (std::size_t n = 0; n < params.batchSize; ++n)
        for (std::size_t r = 0; r < h; ++r) graph.setTileMapping(nhwc[n][r], idle[used[r % wave]++]);
      return nhwc.dimShuffle({0, 3, 1, 2});
    }
    for (std::size_t n = 0; n < params.batchSize; ++n)
      for (std::size_t r = 0; r < h; ++r) {
        const long y = std::clamp(long(r) + padTop - centre, 0L, oh - 1), ky = long(r) + padTop - y;
        // With the kernel rows split, the part of that vertex that reads the row.
        const std::size_t part = plan.parts > 1 && ky >= 0 && ky < long(plan.parts) ? std::size_t(ky) : 0;
        graph.setTileMapping(nhwc[n][r], ampTile(graph, params, plan, n, r % blocks, std::size_t(y), part));
      }
    return nhwc.dimShuffle({0, 3, 1, 2});
  }
  if (const double proportion = memoryProportion(options);
      params.getNumInputChans() > 1 && detail::convAsProduct(graph, params, options, proportion)) {
    // Channels last, whole pixels on a tile: the product's expanded matrix takes a position's
    // channels side by side, so the expansion moves a pixel's channels as one run whatever the
    // strides (rows of [N][C][H][W] would go element by element where a stride skips pixels).
    std::vector<std::size_t> shape{params.batchSize};
    shape.insert(shape.end(), params.inputFieldShape.begin(), params.inputFieldShape.end());
    shape.push_back(params.getNumInputChans());
    Tensor last = graph.addVariable(params.inputType, shape, name);
    poputil::mapTensorLinearly(graph, last, 1, unsigned(params.getNumInputChans()));
    std::vector<unsigned> order{0, unsigned(shape.size() - 1)};
    for (unsigned d = 1; d + 1 < shape.size(); ++d) order.push_back(d);
    return last.dimShuffle(order);
  }
  Tensor in = graph.addVariable(params.inputType, inputShape(params), name);
  // Whole rows of the field on a tile.
  poputil::mapTensorLinearly(graph, in, 1, unsigned(params.inputFieldShape.back()));
  return in;
}

Tensor createConvOutput(Graph &graph, const ConvParams &paramsIn, const DebugContext &debugContext,
                        const OptionFlags &options, PlanningCache *) {
  const std::string op = "poplin::createConvOutput";
  const ConvParams params = planned(paramsIn);
  const Field f = field(op, params);
  const std::string name = debugContext.getPathName().empty() ? "poplin::output" : debugContext.getPathName();
  if (const AmpPlan ap = ampPlan(graph, params, options); ap.cb)
    if (Tensor o = ampOutput(graph, params, ap, params.outputType, name); o.valid()) return o;
  if (const double proportion = memoryProportion(options); detail::convAsProduct(graph, params, options, proportion))
    return detail::createProductConvOutput(graph, params, options, proportion, name);
  const Plan pl = plan(graph, params, f, options);
  Tensor out = graph.addVariable(params.outputType, outputShape(params), name);
  const Tensor o4 = as4d(out, params.getNumFieldDims());
  const std::size_t cbs = (params.outputChannelsPerConvGroup + pl.cb - 1) / pl.cb, rbs = (f.oh + pl.rb - 1) / pl.rb;
  const std::size_t total = params.batchSize * params.numConvGroups * cbs * rbs;
  std::size_t u = 0;
  for (std::size_t n = 0; n < params.batchSize; ++n)
    for (std::size_t g = 0; g < params.numConvGroups; ++g)
      for (std::size_t c = 0; c < cbs; ++c)
        for (std::size_t r = 0; r < rbs; ++r, ++u) {
          const std::size_t c0 = g * params.outputChannelsPerConvGroup + c * pl.cb,
                            c1 = g * params.outputChannelsPerConvGroup + std::min(params.outputChannelsPerConvGroup, (c + 1) * pl.cb);
          const std::size_t r0 = r * pl.rb, r1 = std::min(f.oh, r0 + pl.rb);
          graph.setTileMapping(o4.slice({n, c0, r0, 0}, {n + 1, c1, r1, f.ow}), blockTile(graph, u, total));
        }
  return out;
}

void convolutionWithOutput(Graph &graph, const Tensor &in, const Tensor &weightsIn, const Tensor &out,
                           const ConvParams &paramsIn, bool transposeAndFlipWeights, program::Sequence &prog,
                           const DebugContext &debugContext, const OptionFlags &options, PlanningCache *) {
  const std::string op = "poplin::convolution";
  const ConvParams params = planned(paramsIn);
  const std::string name = debugContext.getPathName().empty() ? op : debugContext.getPathName();
  const Field f = field(op, params);
  const std::size_t nd = params.getNumFieldDims();
  if (params.inputType != FLOAT && params.inputType != HALF) fail(op, "the input type must be float or half");
  checkShape(op, "the input", in, inputShape(params));
  checkShape(op, "the output", out, outputShape(params));
  if (in.elementType() != params.inputType) fail(op, "the input is " + in.elementType().toString() + "; params say " + params.inputType.toString());
  // Weights given transposed and flipped ([G][Cin][Cout][kernel], each kernel reversed) are
  // gathered as they lie and indexed transposed and flipped by the vertex.
  const Tensor &weights = weightsIn;
  if (transposeAndFlipWeights) {
    std::vector<std::size_t> given = weightsShape(params);
    std::swap(given[1], given[2]);
    checkShape(op, "the weights (transposed and flipped)", weightsIn, given);
  } else {
    checkShape(op, "the weights", weightsIn, weightsShape(params));
  }
  if (weights.elementType() != params.inputType) fail(op, "the weights are " + weights.elementType().toString() + "; params say " + params.inputType.toString());
  if (const AmpPlan ap = ampPlan(graph, params, options); ap.cb) {
    // Weights given transposed and flipped are first copied into the AMP's layout as forward
    // weights (weightsTransposeChansFlipXY), as poplin does.
    Tensor forward = weights;
    if (transposeAndFlipWeights) {
      forward = createWeights(graph, params, name + "/weights", options);
      weightsTransposeChansFlipXY(graph, weights, forward, prog, name + "/transposeFlip");
    }
    ampConvolution(graph, in, forward, out, params, ap, prog, name);
    return;
  }
  if (const double proportion = memoryProportion(options); detail::convAsProduct(graph, params, options, proportion)) {
    // Weights given transposed and flipped whose channels fill 16 x 16 blocks are first turned
    // into forward weights by weightsTransposeChansFlipXY's transposes: the product's weight
    // chunks take input channels side by side, which transposed weights hold apart.
    const bool turn = transposeAndFlipWeights && params.inputChannelsPerConvGroup % 16 == 0 &&
                      params.outputChannelsPerConvGroup % 16 == 0;
    Tensor forward = weights;
    if (turn) {
      forward = createWeights(graph, params, name + "/weights", options);
      weightsTransposeChansFlipXY(graph, weights, forward, prog, name + "/transposeFlip");
    }
    detail::productConvolution(graph, in, forward, out, params, transposeAndFlipWeights && !turn, prog, options,
                               proportion, name);
    return;
  }
  const Plan pl = plan(graph, params, f, options);
  const Tensor in4 = as4d(in, nd), out4 = as4d(out, nd), w4 = nd == 1 ? weights.expand({3}) : weights;
  bool outMapped = false;
  graph.getTileMapping(out, &outMapped);
  const std::string vertex = forwardVertex(graph, params.inputType, params.outputType, transposeAndFlipWeights);
  const std::size_t cin = params.inputChannelsPerConvGroup, cout = params.outputChannelsPerConvGroup;
  const std::size_t cbs = (cout + pl.cb - 1) / pl.cb, rbs = (f.oh + pl.rb - 1) / pl.rb;
  const std::size_t total = params.batchSize * params.numConvGroups * cbs * rbs;
  const unsigned outBytes = unsigned(graph.getTarget().getTypeSize(params.outputType));
  ComputeSet cs = graph.addComputeSet(name);
  std::size_t u = 0;
  for (std::size_t n = 0; n < params.batchSize; ++n)
    for (std::size_t g = 0; g < params.numConvGroups; ++g)
      for (std::size_t c = 0; c < cbs; ++c)
        for (std::size_t r = 0; r < rbs; ++r, ++u) {
          const std::size_t c0 = c * pl.cb, c1 = std::min(cout, c0 + pl.cb);
          const std::size_t r0 = r * pl.rb, r1 = std::min(f.oh, r0 + pl.rb);
          const unsigned tile = blockTile(graph, u, total);
          const Tensor o = out4.slice({n, g * cout + c0, r0, 0}, {n + 1, g * cout + c1, r1, f.ow});
          if (!outMapped) graph.setTileMapping(o, tile);
          VertexRef v = graph.addVertex(cs, vertex);
          connectSlab(graph, v, in4, f, n, g, cin, r0, r1, f.ow * outBytes % 4 ? 1u : 6u);
          graph.connect(v["w"], (transposeAndFlipWeights ? w4.slice({g, 0, c0, 0, 0}, {g + 1, cin, c1, f.kh, f.kw})
                                                         : w4.slice({g, c0, 0, 0, 0}, {g + 1, c1, cin, f.kh, f.kw}))
                                    .flatten());
          graph.connect(v["out"], o.flatten());
          graph.setTileMapping(v, tile);
        }
  prog.add(program::Execute(cs));
}

Tensor convolution(Graph &graph, const Tensor &in, const Tensor &weights, const ConvParams &params,
                   bool transposeAndFlipWeights, program::Sequence &prog, const DebugContext &debugContext,
                   const OptionFlags &options, PlanningCache *cache) {
  Tensor out = createConvOutput(graph, params, debugContext, options, cache);
  convolutionWithOutput(graph, in, weights, out, params, transposeAndFlipWeights, prog, debugContext, options, cache);
  return out;
}

void weightsTransposeChansFlipXY(Graph &graph, const Tensor &weightsIn, const Tensor &weightsOut, program::Sequence &prog,
                                 const DebugContext &debugContext, const OptionFlags &) {
  const std::string op = "poplin::weightsTransposeChansFlipXY";
  if (weightsIn.rank() < 3)
    fail(op, "weightsIn has shape " + shapeString(weightsIn.shape()) +
                 "; [groups][output channels][input channels][kernel...] expected");
  std::vector<std::size_t> want = weightsIn.shape();
  std::swap(want[1], want[2]);
  if (weightsOut.shape() != want)
    fail(op, "weightsOut has shape " + shapeString(weightsOut.shape()) + "; " + shapeString(want) +
                 " expected (weightsIn's with its channel dimensions swapped)");
  const Type type = weightsIn.elementType();
  if (weightsOut.elementType() != type)
    fail(op, "weightsOut is " + weightsOut.elementType().toString() + " and weightsIn " + type.toString());
  const std::size_t groups = weightsIn.dim(0), co = weightsIn.dim(1), ci = weightsIn.dim(2);
  const std::size_t k = weightsIn.numElements() / std::max<std::size_t>(1, groups * co * ci);
  const std::size_t B = 16;
  if ((type != HALF && type != FLOAT) || co % B || ci % B || weightsIn.numElements() == 0) {
    Tensor view = weightsIn.dimShufflePartial({1, 2}, {2, 1});
    for (unsigned d = 3; d < view.rank(); ++d) view = view.reverse(d);
    prog.add(program::Copy(view, weightsOut, false, debugContext));
    return;
  }
  // Kernel position p's [co][ci] matrix goes, transposed, to position k - 1 - p (reversing every
  // spatial dimension of a row-major index reverses the flat index), in 16 x 16 blocks: in the
  // AMP's layout (createWeights) each block is contiguous on both sides, so it travels as one
  // piece. popops' transpose vertices turn the blocks on tiles spread over the IPU, the exchange
  // bringing each there and back: the AMP keeps a layer's weights on a few tiles (ResNet-50's
  // 3x3 layer: 12), which turned all 144 blocks themselves (6,812 cycles of its input gradient).
  const Tensor in4 = weightsIn.reshape({groups, co, ci, k}), out4 = weightsOut.reshape({groups, ci, co, k});
  const std::size_t cob = co / B, cib = ci / B, matrices = groups * k * cob * cib;
  struct Block {
    std::size_t g, p, o, i; // group, kernel position, output- and input-channel blocks
  };
  auto block = [&](std::size_t m) {
    const std::size_t i = m % cib, o = m / cib % cob, p = m / (cib * cob) % k, g = m / (cib * cob * k);
    return Block{g, p, o, i};
  };
  const Graph::TileToTensorMapping blocks = detail::spreadMapping(graph, matrices, 0, matrices);
  const std::string name = debugContext.getPathName().empty() ? op : debugContext.getPathName();
  ComputeSet cs = graph.addComputeSet(name);
  popops::rearrange::addTransposeVertices(graph, cs, type, unsigned(B), unsigned(B), blocks, [&](std::size_t m) {
    const Block b = block(m);
    const Tensor src = in4.slice({b.g, b.o * B, b.i * B, b.p}, {b.g + 1, b.o * B + B, b.i * B + B, b.p + 1}).reshape({B, B});
    const std::size_t q = k - 1 - b.p;
    const Tensor dst = out4.slice({b.g, b.i * B, b.o * B, q}, {b.g + 1, b.i * B + B, b.o * B + B, q + 1}).reshape({B, B});
    return std::pair<const Tensor, const Tensor>(src, dst);
  });
  prog.add(program::Execute(cs));
}

namespace {

/// The weight deltas of the convolution, laid out as `like` (the weights they will update) or,
/// without it, as createWeights lays out the layer's weights: popops' update of the weights by
/// the deltas then reads both where they lie, element for element.
Tensor weightDeltas(Graph &graph, const std::string &op, const Tensor &zDeltas, const Tensor &activations,
                    const ConvParams &params, const Tensor &like, program::Sequence &prog,
                    const DebugContext &debugContext, const OptionFlags &options) {
  const std::string name = debugContext.getPathName().empty() ? op : debugContext.getPathName();
  const Field f = field(op, params);
  const std::size_t nd = params.getNumFieldDims();
  checkShape(op, "zDeltas", zDeltas, outputShape(params));
  checkShape(op, "the activations", activations, inputShape(params));
  const auto ws = weightsShape(params);
  if (like.valid()) checkShape(op, "the weights", like, ws);
  Tensor deltas = like.valid() ? graph.clone(params.inputType, like, name + "/deltas")
                               : createWeights(graph, params, name + "/deltas", options);
  if (const double proportion = memoryProportion(options); detail::convAsProduct(graph, params, options, proportion)) {
    detail::productWeightDeltas(graph, zDeltas, activations, deltas, params, prog, options, proportion, name);
    return deltas;
  }
  const std::size_t cin = params.inputChannelsPerConvGroup, cout = params.outputChannelsPerConvGroup;
  // Blocks of (batch, group, output channels, output rows): whole images while their rows fit,
  // output-channel blocks halved until there are as many blocks as tiles. Each writes float
  // partials of its channels' weights; popops sums the partials over the batch and row blocks.
  plan(graph, params, f, options); // the forward plan's option and memory checks hold here too
  const Target &target = graph.getTarget();
  const double budget = memoryProportion(options) * target.getBytesPerTile(), inB = double(target.getTypeSize(params.inputType));
  std::size_t cb = cout, rb = f.oh;
  auto bytes = [&] {
    const auto rows = inputRows(f, 0, std::min(f.oh, rb));
    return double(cin) * (rows.second - rows.first) * f.w * inB + double(cb) * rb * f.ow * inB +
           4.0 * cb * cin * f.kh * f.kw;
  };
  auto blocks = [&] { return params.batchSize * params.numConvGroups * ((cout + cb - 1) / cb) * ((f.oh + rb - 1) / rb); };
  while (blocks() < target.getNumTiles() && (cb > 1 || rb > 1)) {
    if (cb > 1) cb = (cb + 1) / 2;
    else rb = (rb + 1) / 2;
  }
  while (bytes() > budget && (rb > 1 || cb > 1)) {
    if (rb > 1) rb = (rb + 1) / 2;
    else cb = (cb + 1) / 2;
  }
  const std::size_t rbs = (f.oh + rb - 1) / rb, cbs = (cout + cb - 1) / cb, parts = params.batchSize * rbs;
  std::vector<std::size_t> pshape{parts};
  pshape.insert(pshape.end(), ws.begin(), ws.end());
  Tensor partials = graph.addVariable(FLOAT, pshape, name + "/partials");
  const Tensor in4 = as4d(activations, nd), dy4 = as4d(zDeltas, nd);
  const std::string vertex = weightDeltaVertex(graph, params.inputType);
  ComputeSet cs = graph.addComputeSet(name);
  const std::size_t total = blocks();
  std::size_t u = 0;
  for (std::size_t n = 0; n < params.batchSize; ++n)
    for (std::size_t r = 0; r < rbs; ++r)
      for (std::size_t g = 0; g < params.numConvGroups; ++g)
        for (std::size_t c = 0; c < cbs; ++c, ++u) {
          const std::size_t r0 = r * rb, r1 = std::min(f.oh, r0 + rb), c0 = c * cb, c1 = std::min(cout, c0 + cb);
          const unsigned tile = blockTile(graph, u, total);
          const Tensor dst = partials[n * rbs + r][g].slice(c0, c1).flatten();
          graph.setTileMapping(dst, tile);
          VertexRef v = graph.addVertex(cs, vertex);
          connectSlab(graph, v, in4, f, n, g, cin, r0, r1, 6u);
          graph.connect(v["dy"], dy4.slice({n, g * cout + c0, r0, 0}, {n + 1, g * cout + c1, r1, f.ow}).flatten());
          graph.connect(v["out"], dst);
          graph.setTileMapping(v, tile);
        }
  prog.add(program::Execute(cs));
  popops::reduceWithOutput(graph, partials, deltas, {0}, popops::Operation::ADD, prog, name + "/reduce");
  return deltas;
}

} // namespace

Tensor calculateWeightDeltas(Graph &graph, const Tensor &zDeltas, const Tensor &activations, const ConvParams &params,
                             program::Sequence &prog, const DebugContext &debugContext, const OptionFlags &options,
                             PlanningCache *) {
  return weightDeltas(graph, "poplin::calculateWeightDeltas", zDeltas, activations, params, Tensor(), prog,
                      debugContext, options);
}

void convolutionWeightUpdate(Graph &graph, const Tensor &zDeltas, const Tensor &weights, const Tensor &activations,
                             ConvParams params, const Tensor &scale, program::Sequence &prog,
                             const DebugContext &debugContext, const OptionFlags &options, PlanningCache *) {
  Tensor deltas = weightDeltas(graph, "poplin::convolutionWeightUpdate", zDeltas, activations, params, weights, prog,
                               debugContext, options);
  popops::scaledAddTo(graph, weights, deltas, scale, prog, debugContext);
}

void convolutionWeightUpdate(Graph &graph, const Tensor &zDeltas, const Tensor &weights, const Tensor &activations,
                             ConvParams params, float scale, program::Sequence &prog, const DebugContext &debugContext,
                             const OptionFlags &options, PlanningCache *) {
  Tensor deltas = weightDeltas(graph, "poplin::convolutionWeightUpdate", zDeltas, activations, params, weights, prog,
                               debugContext, options);
  popops::scaledAddTo(graph, weights, deltas, scale, prog, debugContext);
}

namespace {
std::vector<std::size_t> allButChannels(const Tensor &t) {
  std::vector<std::size_t> dims{0};
  for (std::size_t d = 2; d < t.rank(); ++d) dims.push_back(d);
  return dims;
}
} // namespace

void convolutionBiasUpdate(Graph &graph, const Tensor &zDeltas, const Tensor &biases, const Tensor &scale,
                           const OptionFlags &, program::Sequence &prog, const DebugContext &debugContext) {
  if (zDeltas.rank() < 2 || biases.rank() != 1 || biases.dim(0) != zDeltas.dim(1))
    fail("poplin::convolutionBiasUpdate", "biases must be one per channel of zDeltas (" + shapeString(zDeltas.shape()) + ")");
  Tensor sums = popops::reduce(graph, zDeltas, FLOAT, allButChannels(zDeltas), popops::Operation::ADD, prog, debugContext);
  popops::scaledAddTo(graph, biases, popops::cast(graph, sums, biases.elementType(), prog), scale, prog, debugContext);
}

void convolutionBiasUpdate(Graph &graph, const Tensor &zDeltas, const Tensor &biases, float scale,
                           const OptionFlags &, program::Sequence &prog, const DebugContext &debugContext) {
  if (zDeltas.rank() < 2 || biases.rank() != 1 || biases.dim(0) != zDeltas.dim(1))
    fail("poplin::convolutionBiasUpdate", "biases must be one per channel of zDeltas (" + shapeString(zDeltas.shape()) + ")");
  Tensor sums = popops::reduce(graph, zDeltas, FLOAT, allButChannels(zDeltas), popops::Operation::ADD, prog, debugContext);
  popops::scaledAddTo(graph, biases, popops::cast(graph, sums, biases.elementType(), prog), scale, prog, debugContext);
}

void addBias(Graph &graph, const Tensor &in, const Tensor &biases, program::Sequence &prog,
             const DebugContext &debugContext) {
  if (in.rank() < 2 || biases.rank() != 1 || biases.dim(0) != in.dim(1))
    fail("poplin::addBias", "biases must be one per channel of the input (" + shapeString(in.shape()) + ")");
  std::vector<std::size_t> shape{biases.dim(0)};
  for (std::size_t d = 2; d < in.rank(); ++d) shape.push_back(1);
  popops::addInPlace(graph, in, biases.reshape(shape), prog, debugContext);
}

Tensor createBiases(Graph &graph, const Tensor &activations, const DebugContext &debugContext) {
  if (activations.rank() < 2) fail("poplin::createBiases", "the activations need a channel dimension");
  Tensor b = graph.addVariable(activations.elementType(), {activations.dim(1)},
                               debugContext.getPathName().empty() ? "poplin::biases" : debugContext.getPathName());
  poputil::mapTensorLinearly(graph, b);
  return b;
}

} // namespace poplin
