// Convolutions as matrix products (docs/poplin.md "Convolutions as products"). The input is
// expanded into a matrix with a row per output position (batch, output row, output column) and
// a column per (kernel position, input channel): the input element that meets that weight there,
// or zero where it falls in padding. The weights become a [kernel positions x input channels] by
// [output channels] matrix, and the convolution is their product, planned and run on the AMP by
// poplin's matMul (MatMul.cpp). The weight deltas are the expanded input, transposed, by the
// output gradient. This is the path for layers whose channels are too few for the direct AMP
// convolution's chunks (MNIST's 1, 10 and 20) and for transforms it does not take (strides,
// dilations, flips, groups): poplibs' planner reaches the same place by folding kernel
// dimensions into the input channels. Both matrices are padded with zeros to the AMP's chunks
// (depth 8 floats or 16 halves, 16 or 8 output columns). The expansion is one Copy program
// through the simulated exchange into the product's operand blocks.
#include "ConvMatMul.hpp"

#include "Amp.hpp"
#include "MatMulDetail.hpp"

#include <poplin/MatMul.hpp>

#include <popops/Rearrange.hpp>
#include <popops/Zero.hpp>
#include <poputil/TileMapping.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <sstream>
#include <utility>

namespace poplin::detail {

using namespace poplar;

namespace {

/// One spatial dimension of the convolution: for each transformed kernel index, the kernel
/// index it holds (-1 in a dilation's hole or the kernel's padding) and the (output, input)
/// coordinates that meet there.
struct Dim {
  std::vector<long> kernel;
  std::vector<std::vector<unsigned>> outs, ins;
  std::size_t size = 1; // output coordinates
};

Dim dim(const ConvParams &p, unsigned d) {
  const long tin = p.getTransformedInputSize(d), tk = p.getTransformedKernelSize(d);
  const auto &ot = p.outputTransform;
  Dim r;
  r.size = p.getOutputSize(d);
  for (long kt = 0; kt < tk; ++kt) {
    r.kernel.push_back(originalIndex(kt, p.kernelShape[d], p.kernelTransform, d, tk));
    r.outs.emplace_back();
    r.ins.emplace_back();
    if (r.kernel.back() < 0) continue;
    for (std::size_t o = 0; o < r.size; ++o) {
      const long u = long(o) * long(ot.stride[d]) + long(ot.truncationLower[d]);
      const long i = originalIndex(u + kt, p.inputFieldShape[d], p.inputTransform, d, tin);
      if (i >= 0) r.outs.back().push_back(unsigned(o)), r.ins.back().push_back(unsigned(i));
    }
  }
  return r;
}

/// A 1-D convolution's missing height: one kernel row meeting the one input row.
Dim flatDim() {
  Dim r;
  r.kernel = {0};
  r.outs = {{0}};
  r.ins = {{0}};
  return r;
}

std::size_t roundUp(std::size_t a, std::size_t b) { return (a + b - 1) / b * b; }

/// The convolution as a product: its kernel positions (the expanded matrix's columns are
/// `ci` channels for each of `taps` in turn) and the product's shape [g][m][kPad] x [g][kPad][nPad].
struct Expansion {
  Dim h, w;
  std::vector<std::pair<unsigned, unsigned>> taps; // (row, column) transformed kernel indices
  std::size_t n, g, ci, co, kh, kw, m, k, kPad, nPad;
  // The expanded matrix's columns: a tap's `ci` channels side by side (column t ci + c), or with
  // `channelsOuter` a channel's taps (column c T + t, T taps). The expansion copies tap by tap, and
  // where the input's channels lie apart in memory ([N][C][H][W] rows) only the second puts
  // neighbouring taps (the input's neighbouring pixels) side by side in the matrix too, which the
  // lowering then moves as one transfer; channels-last input wants the first.
  bool channelsOuter = false;
  bool uncovered = false; // some weight meets no kernel position (a kernel truncation)
  amp::Form form{FLOAT, FLOAT};
  OptionFlags options; // the product's
  std::size_t fieldDims;
};

Expansion expansion(const ConvParams &p, const OptionFlags &options, double proportion) {
  Expansion e;
  e.fieldDims = p.getNumFieldDims();
  e.h = e.fieldDims == 2 ? dim(p, 0) : flatDim();
  e.w = dim(p, unsigned(e.fieldDims - 1));
  e.n = p.batchSize, e.g = p.numConvGroups, e.ci = p.inputChannelsPerConvGroup, e.co = p.outputChannelsPerConvGroup;
  e.kh = e.fieldDims == 2 ? p.kernelShape[0] : 1, e.kw = p.kernelShape.back();
  for (unsigned ty = 0; ty < e.h.kernel.size(); ++ty)
    for (unsigned tx = 0; tx < e.w.kernel.size(); ++tx)
      if (e.h.kernel[ty] >= 0 && e.w.kernel[tx] >= 0) e.taps.emplace_back(ty, tx);
  e.uncovered = e.taps.size() < e.kh * e.kw;
  const std::string *partials = options.find("partialsType");
  e.form = {p.inputType, partials && *partials == "half" ? HALF : FLOAT};
  e.m = e.n * e.h.size * e.w.size;
  e.k = e.taps.size() * e.ci;
  e.kPad = roundUp(std::max<std::size_t>(e.k, 1), e.form.inputs());
  e.nPad = roundUp(e.co, e.form.outputs());
  std::ostringstream amp;
  amp << proportion;
  e.options = {{"availableMemoryProportion", amp.str()}, {"partialsType", e.form.partials == HALF ? "half" : "float"}};
  return e;
}

/// t's elements at `index` along dimension d, as a slice where they are evenly spaced.
Tensor pick(const Tensor &t, unsigned d, const std::vector<unsigned> &index) {
  const long step = index.size() > 1 ? long(index[1]) - long(index[0]) : 1;
  bool even = step > 0;
  for (std::size_t i = 1; even && i < index.size(); ++i) even = long(index[i]) - long(index[i - 1]) == step;
  if (even) return t.slice(index.front(), index.back() + 1, d).subSample(unsigned(step), d);
  std::vector<Tensor> parts;
  for (unsigned i : index) parts.push_back(t.slice(i, i + 1, d));
  return concat(parts, d);
}

/// [N][C][H][W] (a 1-D field given a height of 1).
Tensor as4d(const Tensor &t, std::size_t fieldDims) { return fieldDims == 1 ? t.expand({2}) : t; }

/// The elements of t's first run in memory.
std::size_t firstRun(const Tensor &t) {
  const std::vector<Interval> r = t.getContiguousRegions();
  return r.empty() ? std::size_t(0) : std::size_t(r.front().size());
}

/// Whether the input's pixels along a row lie side by side in memory for more of a kernel row
/// than its channels do at a pixel (as image 0's first pixel and row show): then the expanded
/// matrix takes its columns channel by channel (Expansion::channelsOuter).
bool channelsApart(const Expansion &e, const Tensor &in) {
  const Tensor image = as4d(in, e.fieldDims)[0].slice(0, e.ci, 0); // [Ci][H][W]
  const std::size_t channels = firstRun(image.flatten(1, 3).transpose()[0]);
  const std::size_t pixels = firstRun(image[0][0].slice(0, std::min(e.kw, image.dim(2))));
  return e.ci > 1 && pixels > channels;
}

/// Whether [N][C][H][W] t (C > 1) lies channels last: more of its first pixel's channels side by
/// side in memory than of its first row's pixels.
bool channelsLast(const Tensor &t4) {
  return t4.dim(1) > 1 && firstRun(t4[0].flatten(1, 3).transpose()[0]) > firstRun(t4[0][0][0]);
}

/// Columns of a band of the matrices `transposed` turns: up to 64, so that a big matrix is turned
/// on several tiles.
std::size_t bandOf(std::size_t columns) { return columns > 64 && columns % 64 == 0 ? 64 : columns; }

/// The transposes of m's matrices: a matrix [R][C] a band of bandOf(C) columns at a time.
std::size_t turns(const Tensor &m) { return m.dim(0) * (m.dim(2) / bandOf(m.dim(2))); }

/// The matrices m ([M][R][C]) transposed into a new tensor [M][C][R] by popops' transpose
/// vertices (added to cs), band by band of columns, band u of the turns(m) on tile
/// spreadTile(first + u, total), where its result lies (its input gathered there by the
/// exchange). Operands that lie on few tiles (the AMP's layers keep their input rows on a few,
/// createInput) are thus turned, and then sent on, by many.
Tensor transposed(Graph &graph, const Tensor &m, const ComputeSet &cs, const std::string &name, std::size_t first,
                  std::size_t total) {
  const std::size_t count = m.dim(0), r = m.dim(1), c = m.dim(2), band = bandOf(c), bands = c / band;
  const Tensor out = graph.addVariable(m.elementType(), {count, c, r}, name);
  const Graph::TileToTensorMapping tiles = spreadMapping(graph, count * bands, first, total);
  for (unsigned t = 0; t < tiles.size(); ++t)
    for (const Interval &i : tiles[t])
      for (std::size_t u = i.begin(); u < i.end(); ++u)
        graph.setTileMapping(out[u / bands].slice((u % bands) * band, (u % bands + 1) * band), t);
  popops::rearrange::addTransposeVertices(graph, cs, m.elementType(), unsigned(r), unsigned(band), tiles, [&](std::size_t u) {
    const std::size_t b = u % bands;
    return std::pair<const Tensor, const Tensor>(m[u / bands].slice(b * band, (b + 1) * band, 1).flatten(),
                                                 out[u / bands].slice(b * band, (b + 1) * band).flatten());
  });
  return out;
}

/// Columns of a turned row (turnedRows): W, plus the column before it with `lead` and the one
/// after, rounded up to whole 64-bit words (popops' fast transposes).
std::size_t turnedWidth(std::size_t w, bool lead, const Type &type) {
  const std::size_t word = type == HALF ? 4 : 2;
  return (w + (lead ? 2 : 0) + word - 1) / word * word;
}

/// The rows of [N][C][H][W] t4 (channels last) to turn.
Tensor pixelRows(const Tensor &t4) {
  return t4.dimShuffle({0, 2, 3, 1}).reshape({t4.dim(0) * t4.dim(2), t4.dim(3), t4.dim(1)});
}

/// [N][C][H][W] t4 (channels last) copied into a new tensor that lies row by row and, in a row,
/// channel by channel ([N][H][C][turnedWidth] in memory), viewed [N][C][H][turnedWidth]: each
/// [W][C] row is transposed (`transposed`, turns spread from `first` of `total`). Column j of a
/// row holds t4's column j (with `lead`, j - 1), and zeros where that is outside the row (zero
/// pixels on the tile that turns it, gathered with the row). The weight deltas' product wants both
/// operands' positions side by side (its depth): from channels-last tensors its copies would
/// otherwise move one element at a time. With `lead`, a half tap an odd number of columns aside
/// reads its columns at the same places in their words as the expanded matrix's (expandInput),
/// and with the zeros a padded row's whole width.
Tensor turnedRows(Graph &graph, const Tensor &t4, bool lead, const ComputeSet &cs, const std::string &name,
                  std::size_t first, std::size_t total) {
  const std::size_t n = t4.dim(0), c = t4.dim(1), h = t4.dim(2), w = t4.dim(3);
  const std::size_t tw = turnedWidth(w, lead, t4.elementType()), bands = c / bandOf(c);
  const Tensor rows = pixelRows(t4);
  if (tw == w) return transposed(graph, rows, cs, name, first, total).reshape({n, h, c, w}).dimShuffle({0, 2, 1, 3});
  std::map<unsigned, Tensor> zeros; // a tile's zero pixels
  std::vector<Tensor> padded;
  for (std::size_t r = 0; r < n * h; ++r) {
    // The zero pixels on the tile of the row's first band (spread as `transposed` spreads them).
    const unsigned tile = spreadTile(graph, first + r * bands, total);
    auto z = zeros.find(tile);
    if (z == zeros.end()) {
      Tensor pixels = graph.addConstant(t4.elementType(), {tw - w, c}, 0.0, name + "/zeros");
      graph.setTileMapping(pixels, tile);
      z = zeros.emplace(tile, pixels).first;
    }
    const std::size_t before = lead ? 1 : 0;
    std::vector<Tensor> parts;
    if (before) parts.push_back(z->second.slice(0, before));
    parts.push_back(rows[r]);
    parts.push_back(z->second.slice(before, tw - w));
    padded.push_back(concat(parts).expand({0}));
  }
  return transposed(graph, concat(padded), cs, name, first, total).reshape({n, h, c, tw}).dimShuffle({0, 2, 1, 3});
}

/// The turns of turnedRows(t4).
std::size_t rowTurns(const Tensor &t4) { return t4.dim(0) * t4.dim(2) * (t4.dim(1) / bandOf(t4.dim(1))); }

/// Tap t's `ci` columns of dimension d of x (the expanded matrix's, or the weight matrix's rows).
Tensor tapColumns(const Expansion &e, const Tensor &x, std::size_t t, unsigned d) {
  if (!e.channelsOuter) return x.slice(t * e.ci, (t + 1) * e.ci, d);
  return x.slice(0, e.k, d).reshapePartial(d, d + 1, {e.ci, e.taps.size()}).slice(t, t + 1, d + 1).squeeze({d + 1});
}

/// Appends the copies that fill group g's expanded matrix, viewed [N][OH][OW][kPad] as `rows`,
/// from the input in ([N][G Ci][field]). The copies list the elements position by position, a
/// position's channels together, or with `byChannel` channel by channel, a channel's positions
/// together: the order in which both sides run on in memory (the expanded matrix transposed for
/// the weight deltas is [kPad][M], a column's positions side by side), so that the lowering moves
/// whole runs rather than single elements.
/// With `lead` (the input's rows from turnedRows with lead), a tap whose input columns are an odd number of
/// half elements from its output columns reads them from `lead` (input column x at x + 1): both
/// sides then sit alike in their words, and the exchange moves them straight into place (else
/// each run goes a half-word off through scratch and an on-tile copy). Where the tap's columns
/// run one to one and its other output columns are padding (`wholeRows`), it copies the whole
/// output row, the padding from lead's zeros, so that no run ends in a part word.
/// The elements of the matrix no copy writes (padding) are appended to `blank`; returns whether
/// they lie in runs (else, by channel, some are columns inside rows of positions: single
/// elements, most of them part words, which zeroing the whole matrix first costs less than).
/// A tap with a valid tapIn[t] ([N][G Ci][h][w], the input at the tap's rows and columns, turned
/// on its own where its columns skip) reads that instead.
bool expandInput(const Expansion &e, const Tensor &in, const Tensor &lead, bool wholeRows,
                 const std::vector<Tensor> &tapIn, std::size_t g, const Tensor &rows, bool byChannel,
                 std::vector<Tensor> &src, std::vector<Tensor> &dst, std::vector<Tensor> &blank) {
  bool rowsOnly = true;
  const Tensor in4 = as4d(in, e.fieldDims).slice(g * e.ci, (g + 1) * e.ci, 1);
  auto others = [](const std::vector<unsigned> &used, std::size_t size) {
    std::vector<unsigned> rest;
    for (unsigned i = 0; i < size; ++i)
      if (!std::binary_search(used.begin(), used.end(), i)) rest.push_back(i);
    return rest;
  };
  for (std::size_t t = 0; t < e.taps.size(); ++t) {
    const auto [ty, tx] = e.taps[t];
    const Tensor columns = tapColumns(e, rows, t, 3); // [N][OH][OW][Ci]
    if (e.h.outs[ty].empty() || e.w.outs[tx].empty()) {
      blank.push_back(columns.flatten());
      continue;
    }
    const std::vector<unsigned> &ins = e.w.ins[tx];
    std::vector<unsigned> outs = e.w.outs[tx];
    const bool own = t < tapIn.size() && tapIn[t].valid();
    Tensor from = own ? tapIn[t].slice(g * e.ci, (g + 1) * e.ci, 1) : pick(pick(in4, 2, e.h.ins[ty]), 3, ins); // [N][Ci][h][w]
    if (const long shift = long(ins[0]) - long(outs[0]); !own && lead.valid() && shift % 2) {
      const Tensor led = pick(as4d(lead, e.fieldDims).slice(g * e.ci, (g + 1) * e.ci, 1), 2, e.h.ins[ty]);
      const bool oneToOne = ins.back() - ins.front() + 1 == ins.size() && outs.back() - outs.front() + 1 == outs.size();
      const long first = shift + 1, last = long(e.w.size) + shift; // lead columns of output columns 0 and OW - 1
      if (wholeRows && oneToOne && first >= 0 && last < long(led.dim(3))) {
        from = led.slice(std::size_t(first), std::size_t(last) + 1, 3);
        outs.resize(e.w.size);
        std::iota(outs.begin(), outs.end(), 0u);
      } else {
        std::vector<unsigned> columns;
        for (unsigned x : ins) columns.push_back(x + 1);
        from = pick(led, 3, columns);
      }
    }
    const Tensor readRows = pick(columns, 1, e.h.outs[ty]);
    const Tensor to = pick(readRows, 2, outs); // [N][h][w][Ci]
    src.push_back((byChannel ? from.dimShuffle({1, 0, 2, 3}) : from.dimShuffle({0, 2, 3, 1})).flatten());
    dst.push_back((byChannel ? to.dimShuffle({3, 0, 1, 2}) : to).flatten());
    if (const auto y = others(e.h.outs[ty], e.h.size); !y.empty()) blank.push_back(pick(columns, 1, y).flatten());
    if (const auto x = others(outs, e.w.size); !x.empty()) {
      blank.push_back(pick(readRows, 2, x).flatten());
      rowsOnly &= !byChannel; // by channel, a column inside a row is single elements
    }
  }
  return rowsOnly;
}

/// Group g of [N][G C][field] as the [M][C] matrix of its output positions.
Tensor positions(const Expansion &e, const Tensor &t, std::size_t g, std::size_t c) {
  return as4d(t, e.fieldDims).slice(g * c, (g + 1) * c, 1).dimShuffle({0, 2, 3, 1}).reshape({e.m, c});
}

/// The weights [G][Co][Ci][kernel] (or, transposed and flipped, [G][Ci][Co][kernel]) of kernel
/// position t of group g as a [Ci][Co] matrix.
Tensor tapWeights(const Expansion &e, const Tensor &weights, bool flipped, std::size_t g, std::size_t t) {
  const Tensor w5 = e.fieldDims == 1 ? weights.expand({3}) : weights;
  std::size_t ky = std::size_t(e.h.kernel[e.taps[t].first]), kx = std::size_t(e.w.kernel[e.taps[t].second]);
  if (flipped) ky = e.kh - 1 - ky, kx = e.kw - 1 - kx;
  const Tensor at = w5[g].slice({0, 0, ky, kx}, {w5.dim(1), w5.dim(2), ky + 1, kx + 1}).reshape({w5.dim(1), w5.dim(2)});
  return flipped ? at : at.transpose();
}

void copy(const std::vector<Tensor> &src, const std::vector<Tensor> &dst, program::Sequence &prog, const std::string &name) {
  if (!src.empty()) prog.add(program::Copy(concat(src), concat(dst), false, name));
}

} // namespace

unsigned spreadTile(const Graph &graph, std::size_t i, std::size_t total) {
  return unsigned(i * graph.getTarget().getNumTiles() / std::max<std::size_t>(total, 1));
}

Graph::TileToTensorMapping spreadMapping(const Graph &graph, std::size_t count, std::size_t first, std::size_t total) {
  Graph::TileToTensorMapping tiles(graph.getTarget().getNumTiles());
  for (std::size_t u = 0; u < count; ++u) {
    auto &list = tiles[spreadTile(graph, first + u, total)];
    if (!list.empty() && list.back().end() == u) list.back() = Interval(list.back().begin(), u + 1);
    else list.emplace_back(u, u + 1);
  }
  return tiles;
}

bool convAsProduct(const Graph &graph, const ConvParams &p, const OptionFlags &options, double proportion) {
  if (p.inputType != FLOAT && p.inputType != HALF) return false;
  const std::size_t dims = p.getNumFieldDims();
  if (dims != 1 && dims != 2) return false;
  for (std::size_t d = 0; d < dims; ++d)
    if (p.outputTransform.paddingLower[d] || p.outputTransform.paddingUpper[d]) return false;
  const Expansion e = expansion(p, options, proportion);
  if (!e.form.valid() || e.m < amp::kMinRows) return false;
  // The expanded input (and its transposed copy for the weight deltas) must leave room for the
  // rest: an eighth of the memory the options allow, over all tiles.
  const Target &t = graph.getTarget();
  const double expanded = double(e.g) * e.m * e.kPad * double(t.getTypeSize(p.inputType));
  return expanded <= proportion * t.getNumTiles() * double(t.getBytesPerTile()) / 8;
}

Tensor createProductConvOutput(Graph &graph, const ConvParams &p, const OptionFlags &options, double proportion,
                               const std::string &name) {
  const Expansion e = expansion(p, options, proportion);
  const Tensor product =
      createProductOutput(graph, p.inputType, p.outputType, e.g, e.m, e.kPad, e.nPad, e.options, name);
  // [G][M][nPad] -> [G][N][OH][OW][Co] -> [N][G Co][OH][OW].
  Tensor out = product.slice(0, e.co, 2)
                   .reshape({e.g, e.n, e.h.size, e.w.size, e.co})
                   .dimShuffle({1, 0, 4, 2, 3})
                   .reshape({e.n, e.g * e.co, e.h.size, e.w.size});
  return e.fieldDims == 1 ? out.squeeze({2}) : out;
}

void productConvolution(Graph &graph, const Tensor &in, const Tensor &weights, const Tensor &out, const ConvParams &p,
                        bool transposeAndFlipWeights, program::Sequence &prog, const OptionFlags &options,
                        double proportion, const std::string &name) {
  Expansion e = expansion(p, options, proportion);
  e.channelsOuter = channelsApart(e, in);
  const std::vector<std::size_t> aShape{e.g, e.m, e.kPad}, bShape{e.g, e.kPad, e.nPad};
  Tensor a = createMatMulGroupedInputLHS(graph, p.inputType, p.outputType, aShape, bShape, name + "/expanded", e.options);
  Tensor b = createMatMulGroupedInputRHS(graph, p.inputType, p.outputType, aShape, bShape, name + "/weights", e.options);
  // The expanded matrix's padding (positions a tap does not read, and its columns past k) and
  // the weights' padding are zeroed; the copies fill the rest.
  std::vector<Tensor> zeros, src, dst;
  bool rowsOnly = true;
  for (std::size_t g = 0; g < e.g; ++g) {
    rowsOnly &= expandInput(e, in, Tensor(), false, {}, g, a[g].reshape({e.n, e.h.size, e.w.size, e.kPad}), false, src,
                            dst, zeros);
    for (std::size_t t = 0; t < e.taps.size(); ++t) {
      src.push_back(tapWeights(e, weights, transposeAndFlipWeights, g, t).flatten());
      dst.push_back(tapColumns(e, b[g].slice(0, e.co, 1), t, 0).flatten());
    }
  }
  if (!rowsOnly) zeros = {a.flatten()};
  else if (e.kPad > e.k) zeros.push_back(a.slice(e.k, e.kPad, 2).flatten());
  if (e.kPad > e.k || e.nPad > e.co) zeros.push_back(b.flatten());
  if (!zeros.empty()) popops::zero(graph, concat(zeros), prog, name + "/zero");
  copy(src, dst, prog, name + "/expand");
  Tensor product = createProductOutput(graph, p.inputType, p.outputType, e.g, e.m, e.kPad, e.nPad, e.options,
                                       name + "/product");
  matMulGroupedWithOutput(graph, a, b, product, prog, name, e.options);
  src.clear(), dst.clear();
  for (std::size_t g = 0; g < e.g; ++g) {
    src.push_back(product[g].slice(0, e.co, 1).flatten());
    dst.push_back(positions(e, out, g, e.co).flatten());
  }
  copy(src, dst, prog, name + "/output");
}

void productWeightDeltas(Graph &graph, const Tensor &zDeltas, const Tensor &activations, const Tensor &deltas,
                         const ConvParams &p, program::Sequence &prog, const OptionFlags &options, double proportion,
                         const std::string &name) {
  const Expansion e = expansion(p, options, proportion);
  // [G][kPad][mPad] (the expanded activations transposed) by [G][mPad][nPad] (the output
  // gradient): the depth, the positions, padded with zeros to whole AMP input chunks (else the
  // product runs on the vector unit: ResNet-50's 7x7 layers, 196 positions).
  const std::size_t mPad = roundUp(e.m, e.form.inputs());
  const std::vector<std::size_t> aShape{e.g, e.kPad, mPad}, bShape{e.g, mPad, e.nPad};
  Tensor a = createMatMulGroupedInputLHS(graph, p.inputType, p.inputType, aShape, bShape, name + "/expanded", e.options);
  Tensor b = createMatMulGroupedInputRHS(graph, p.inputType, p.inputType, aShape, bShape, name + "/zDeltas", e.options);
  // Both operands take the positions as their depth, side by side in memory: channels-last
  // operands are first turned row by row (on tiles spread over the IPU, turnedRows), and the
  // copies list their elements channel by channel. A tap whose input columns skip (a stride or a
  // dilation) has its own input turned: the pixels it reads, gathered pixel by pixel.
  ComputeSet turn = graph.addComputeSet(name + "/transpose");
  const Tensor acts4 = as4d(activations, e.fieldDims), dy4 = as4d(zDeltas, e.fieldDims);
  const bool turnActs = channelsLast(acts4), turnDy = channelsLast(dy4);
  auto field = [&](const Tensor &t4) { return e.fieldDims == 1 ? t4.squeeze({2}) : t4; };
  std::vector<char> own(e.taps.size());
  bool rowsUsed = false, odd = false;
  for (std::size_t t = 0; t < e.taps.size(); ++t) {
    const auto &[ty, tx] = e.taps[t];
    const std::vector<unsigned> &ins = e.w.ins[tx];
    if (e.h.outs[ty].empty() || ins.empty()) continue;
    own[t] = turnActs && ins.back() - ins.front() + 1 != ins.size();
    rowsUsed |= !own[t];
    // Half rows of even lengths, turned, also a pixel early for taps an odd number of columns
    // to the side (expandInput).
    odd |= !own[t] && (long(ins[0]) - long(e.w.outs[tx][0])) % 2;
  }
  const bool early = turnActs && odd && p.inputType == HALF && e.w.size % 2 == 0;
  // The turns, spread over the tiles in turn: led activations, activations, each own tap's,
  // gradients.
  std::vector<Tensor> picked(e.taps.size());
  for (std::size_t t = 0; t < e.taps.size(); ++t)
    if (own[t]) picked[t] = pick(pick(acts4, 2, e.h.ins[e.taps[t].first]), 3, e.w.ins[e.taps[t].second]);
  std::size_t total = (early ? rowTurns(acts4) : 0) + (turnActs && rowsUsed ? rowTurns(acts4) : 0) +
                      (turnDy ? rowTurns(dy4) : 0),
              next = 0;
  for (const Tensor &t : picked)
    if (t.valid()) total += rowTurns(t);
  auto place = [&](const Tensor &t4) { return std::exchange(next, next + rowTurns(t4)); };
  // A turned tensor as [N][C][H][W] (the columns of the input, or with `lead` all the turned ones).
  auto turned = [&](const Tensor &t4, bool lead, const std::string &what) {
    const Tensor r = turnedRows(graph, t4, lead, turn, name + what, place(t4), total);
    return lead ? r : r.slice(0, t4.dim(3), 3);
  };
  const Tensor lead = early ? field(turned(acts4, true, "/activationsLead")) : Tensor();
  const Tensor acts = turnActs && rowsUsed ? field(turned(acts4, false, "/activations")) : activations;
  std::vector<Tensor> tapIn(e.taps.size());
  for (std::size_t t = 0; t < e.taps.size(); ++t)
    if (own[t]) tapIn[t] = turned(picked[t], false, "/activationsOfTap");
  const Tensor dy = turnDy ? field(turned(dy4, false, "/zDeltasByChannel")) : zDeltas;
  // Output columns a tap does not read are padding (no truncation, dilation or flip of the
  // input's columns), so they may be copied from lead's zeros.
  const unsigned d = unsigned(e.fieldDims - 1);
  const auto &it = p.inputTransform;
  const bool wholeRows = !it.truncationLower[d] && !it.truncationUpper[d] && it.dilation[d] == 1 && !it.flip[d];
  if (next) prog.add(program::Execute(turn));
  std::vector<Tensor> zeros, src, dst, gradSrc, gradDst;
  bool rowsOnly = true;
  for (std::size_t g = 0; g < e.g; ++g) {
    rowsOnly &= expandInput(e, acts, lead, wholeRows, tapIn, g, a[g].slice(0, e.m, 1).transpose().reshape({e.n, e.h.size, e.w.size, e.kPad}), true,
                src, dst,
                zeros);
    gradSrc.push_back(positions(e, dy, g, e.co).transpose().flatten());
    gradDst.push_back(b[g].slice({0, 0}, {e.m, e.co}).transpose().flatten());
  }
  if (!rowsOnly) {
    zeros = {a.flatten()};
  } else {
    if (e.kPad > e.k) zeros.push_back(a.slice(e.k, e.kPad, 1).flatten());
    if (mPad > e.m) zeros.push_back(a.slice(0, e.k, 1).slice(e.m, mPad, 2).flatten());
  }
  if (e.nPad > e.co) zeros.push_back(b.flatten());
  else if (mPad > e.m) zeros.push_back(b.slice(e.m, mPad, 1).flatten());
  if (!zeros.empty()) popops::zero(graph, concat(zeros), prog, name + "/zero");
  if (zDeltas.elementType() == activations.elementType()) {
    src.insert(src.end(), gradSrc.begin(), gradSrc.end());
    dst.insert(dst.end(), gradDst.begin(), gradDst.end());
  } else {
    copy(gradSrc, gradDst, prog, name + "/zDeltas");
  }
  copy(src, dst, prog, name + "/expand");
  Tensor product = createProductOutput(graph, p.inputType, p.inputType, e.g, e.kPad, mPad, e.nPad, e.options,
                                       name + "/product");
  matMulGroupedWithOutput(graph, a, b, product, prog, name, e.options);
  if (e.uncovered) popops::zero(graph, deltas, prog, name + "/zero");
  // The product's rows are (kernel position, input channel), its columns output channels. Where
  // the deltas lie with their input channels side by side (the AMP's weight chunks), bands of
  // the rows are first transposed on their tiles, so that the copy moves runs of input channels.
  const Tensor first = tapWeights(e, deltas, false, 0, 0); // [Ci][Co]
  Tensor rows = product.slice(0, e.k, 1).slice(0, e.co, 2); // [G][T Ci][Co]
  const bool byInput = firstRun(first.transpose()[0]) > firstRun(first[0]);
  if (byInput) {
    const std::size_t band = e.ci % 16 == 0 ? 16 : e.ci;
    ComputeSet cs = graph.addComputeSet(name + "/deltasTranspose");
    const Tensor bands = rows.reshape({e.g * e.k / band, band, e.co});
    rows = transposed(graph, bands, cs, name + "/deltasByChannel", 0, turns(bands)) // [bands][Co][band]
               .reshape({e.g, e.taps.size(), e.ci / band, e.co, band})
               .dimShuffle({0, 1, 3, 2, 4})
               .reshape({e.g, e.taps.size() * e.co, e.ci}); // [G][T][Co][Ci] as [G][T Co][Ci]
    prog.add(program::Execute(cs));
  }
  src.clear(), dst.clear();
  for (std::size_t g = 0; g < e.g; ++g)
    for (std::size_t t = 0; t < e.taps.size(); ++t) {
      const Tensor at = rows[g].slice(t * (byInput ? e.co : e.ci), (t + 1) * (byInput ? e.co : e.ci));
      src.push_back(at.flatten());
      dst.push_back((byInput ? tapWeights(e, deltas, false, g, t).transpose() : tapWeights(e, deltas, false, g, t)).flatten());
    }
  copy(src, dst, prog, name + "/deltas");
}

} // namespace poplin::detail
