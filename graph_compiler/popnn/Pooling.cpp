// popnn's pooling by generated vertices: the window of each output coordinate, per field
// dimension, is resolved on the host into the input coordinates it covers ("taps"; padding
// covers none, truncation shifts them); a vertex pools whole (batch, channel) planes. Max is
// std::fmax, the tile's f32max (a NaN element is passed over, as the compare-and-select it
// replaced did). The input gradient gathers, for each input element, from the windows that
// cover it.
#include "../sdk/Generated.hpp"

#include <popnn/Pooling.hpp>

#include <poputil/TileMapping.hpp>

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <tuple>

namespace popnn {
namespace pooling {

using namespace poplar;

namespace {

using ipusim::sdk::fail;


std::size_t outputSize(const PoolParams &p, unsigned d) {
  const long padded = long(p.inputFieldShape[d]) + p.inputTruncationOrPaddingLower[d] + p.inputTruncationOrPaddingUpper[d];
  const long k = long(p.kernelShape[d]);
  return padded < k ? 0 : std::size_t((padded - k) / long(p.stride[d]) + 1);
}

// For each output coordinate of dimension d: the input coordinates its window covers.
std::vector<std::vector<unsigned>> windows(const PoolParams &p, unsigned d) {
  std::vector<std::vector<unsigned>> r(outputSize(p, d));
  for (std::size_t o = 0; o < r.size(); ++o)
    for (long k = 0; k < long(p.kernelShape[d]); ++k) {
      const long i = long(o) * long(p.stride[d]) + k - p.inputTruncationOrPaddingLower[d];
      if (i >= 0 && i < long(p.inputFieldShape[d])) r[o].push_back(unsigned(i));
    }
  return r;
}

// The same, inverted: for each input coordinate, the outputs whose windows cover it.
std::vector<std::vector<unsigned>> covering(const std::vector<std::vector<unsigned>> &w, std::size_t inputs) {
  std::vector<std::vector<unsigned>> r(inputs);
  for (std::size_t o = 0; o < w.size(); ++o)
    for (unsigned i : w[o]) r[i].push_back(unsigned(o));
  return r;
}

void flatten(const std::vector<std::vector<unsigned>> &t, std::vector<unsigned> &start, std::vector<unsigned> &list) {
  start.assign(1, 0);
  list.clear();
  for (const auto &v : t) list.insert(list.end(), v.begin(), v.end()), start.push_back(unsigned(list.size()));
  if (list.empty()) list.push_back(0);
}

struct Shape {
  std::size_t h, w, oh, ow;
  std::vector<std::vector<unsigned>> rows, cols; // windows per output row / column
};

Shape shape(const std::string &op, const PoolParams &p, const std::vector<std::size_t> &inShape) {
  const std::size_t n = p.getNumFieldDims();
  if (n != 1 && n != 2) fail(op, "ipusim pools fields of 1 or 2 dimensions, not " + std::to_string(n));
  if (p.kernelShape.size() != n || p.stride.size() != n || p.inputTruncationOrPaddingLower.size() != n ||
      p.inputTruncationOrPaddingUpper.size() != n)
    fail(op, "the kernel, stride and padding need one value per field dimension (" + std::to_string(n) + ")");
  for (unsigned s : p.stride)
    if (!s) fail(op, "a stride of 0");
  std::vector<std::size_t> want{p.batchSize, p.numChannels};
  want.insert(want.end(), p.inputFieldShape.begin(), p.inputFieldShape.end());
  if (inShape != want) {
    std::string got = "{", exp = "{";
    for (std::size_t i = 0; i < inShape.size(); ++i) got += (i ? "," : "") + std::to_string(inShape[i]);
    for (std::size_t i = 0; i < want.size(); ++i) exp += (i ? "," : "") + std::to_string(want[i]);
    fail(op, "the input's shape is " + got + "}; the parameters say " + exp + "}");
  }
  Shape s;
  if (n == 1) {
    s.h = s.oh = 1;
    s.rows = {{0u}};
  } else {
    s.h = p.inputFieldShape[0], s.oh = outputSize(p, 0), s.rows = windows(p, 0);
  }
  s.w = p.inputFieldShape[n - 1], s.ow = outputSize(p, unsigned(n - 1)), s.cols = windows(p, unsigned(n - 1));
  if (!s.oh || !s.ow) fail(op, "the window is larger than the padded input");
  return s;
}

std::string vertexClass(Graph &graph, const std::string &body) {
  return ipusim::sdk::addGeneratedVertex(graph, "ipusim_popnn_Pool", "poplar::MultiVertex",
                                         "#include <poplar/Vertex.hpp>\n#include <cmath>\n#include <ipudef.h>\n", body);
}

std::string typeName(const Type &t) { return t == HALF ? "half" : "float"; }

// Planes of (batch, channel) spread over the tiles: [begin, end) for each used tile.
std::vector<std::pair<std::size_t, std::size_t>> planeBlocks(const Graph &graph, std::size_t planes) {
  const std::size_t tiles = graph.getTarget().getNumTiles(), per = (planes + tiles - 1) / tiles;
  std::vector<std::pair<std::size_t, std::size_t>> r;
  for (std::size_t b = 0; b < planes; b += per) r.emplace_back(b, std::min(planes, b + per));
  return r;
}

Tensor as3d(const Tensor &t, std::size_t planes, std::size_t h, std::size_t w) { return t.reshape({planes, h, w}); }

// ---- channels last ----------------------------------------------------------------------------
// Activations that lie channels-last (a convolution's output as poplin's products write it) are
// pooled in that order: a vertex takes (image, block of rows) with every channel, so its input
// rows arrive as long runs, and its six workers share the block's pixels.

/// t ([N][C][field]) as [N][H][W][C] (a 1-D field given a height of 1).
Tensor asNHWC(const Tensor &t) {
  const Tensor t4 = t.rank() == 3 ? t.expand({2}) : t;
  return t4.dimShuffle({0, 2, 3, 1});
}

/// Whether t lies channels-last: fewer contiguous runs with the channels innermost.
bool channelsLast(const Tensor &t) {
  return t.dim(1) > 1 && asNHWC(t).getContiguousRegions().size() < t.getContiguousRegions().size();
}

/// A [N][H][W][C] variable seen as [N][C][field] (a 1-D field drops H, which is 1).
Tensor fromNHWC(const Tensor &nhwc, std::size_t fieldDims) {
  const Tensor t = nhwc.dimShuffle({0, 3, 1, 2});
  return fieldDims == 1 ? t.squeeze({2}) : t;
}

/// Blocks of `rows` rows of each of n images, about one a tile: (image, [begin, end)).
std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> rowBlocks(const Graph &graph, std::size_t n,
                                                                          std::size_t rows) {
  const std::size_t tiles = graph.getTarget().getNumTiles();
  const std::size_t per = std::max<std::size_t>(1, (n * rows + tiles - 1) / tiles);
  std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> r;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t b = 0; b < rows; b += per) r.emplace_back(i, b, std::min(rows, b + per));
  return r;
}

/// The rows of `taps` (per row, the rows it meets) for rows [begin, end), relative to the
/// first row they meet: (start, list, first, one past the last).
struct RowTaps {
  std::vector<unsigned> start, list;
  unsigned lo = 0, hi = 0;
};
RowTaps rowTaps(const std::vector<std::vector<unsigned>> &taps, std::size_t begin, std::size_t end) {
  RowTaps r;
  r.lo = ~0u;
  for (std::size_t o = begin; o < end; ++o)
    for (unsigned i : taps[o]) r.lo = std::min(r.lo, i), r.hi = std::max(r.hi, i + 1);
  if (r.lo > r.hi) r.lo = r.hi = 0;
  r.start.assign(1, 0);
  for (std::size_t o = begin; o < end; ++o) {
    for (unsigned i : taps[o]) r.list.push_back(i - r.lo);
    r.start.push_back(unsigned(r.list.size()));
  }
  if (r.list.empty()) r.list.push_back(0);
  return r;
}

} // namespace

std::vector<std::size_t> PoolParams::getOutputFieldShape() const {
  std::vector<std::size_t> s;
  for (unsigned d = 0; d < getNumFieldDims(); ++d) s.push_back(outputSize(*this, d));
  return s;
}
std::vector<std::size_t> getOutputFieldShape(const PoolParams &params) { return params.getOutputFieldShape(); }
const char *asString(const PoolingType &m) { return m == PoolingType::MAX ? "max" : m == PoolingType::AVG ? "avg" : "sum"; }
std::ostream &operator<<(std::ostream &o, const PoolParams &p) {
  o << "Pool params: " << asString(p.poolingType) << ", batch " << p.batchSize << ", channels " << p.numChannels
    << ", field {";
  for (std::size_t i = 0; i < p.inputFieldShape.size(); ++i) o << (i ? "," : "") << p.inputFieldShape[i];
  o << "}, kernel {";
  for (std::size_t i = 0; i < p.kernelShape.size(); ++i) o << (i ? "," : "") << p.kernelShape[i];
  return o << "}";
}

namespace {

/// The pixel loop of a channels-last vertex: the workers take the block's pixels in turn
/// (all six when a pixel's channels fill whole words, else one), `body` computing pixel pix
/// (row y, column x of the block) for channel c.
std::string pixelLoop(const std::string &body) {
  return "  void compute(unsigned wid) {\n"
         "    const unsigned C = p[0], W = p[1], workers = p[2], pixels = out.size() / C;\n"
         "    if (wid >= workers) return;\n"
         "    // (y, x) of pixel pix stepped, not divided out: the tile has no divider.\n"
         "    unsigned y = wid / W, x = wid % W;\n"
         "    for (unsigned pix = wid; pix < pixels; pix += workers, x += workers) {\n"
         "      while (x >= W) x -= W, ++y;\n"
         "      for (unsigned c = 0; c < C; ++c) {\n" + body +
         "      }\n    }\n  }\n};\n";
}

/// The float form of the channels-last loops: for each of a worker's pixels, o (its channels in
/// `out`, the accumulators) set to `init`, then `tap` for each (ty, tx) of the pixel, then `after`.
std::string pixelTapLoop(const std::string &tap, const std::string &init, const std::string &after) {
  return "  void compute(unsigned wid) {\n"
         "    const unsigned C = p[0], W = p[1], workers = p[2], pixels = out.size() / C;\n"
         "    if (wid >= workers) return;\n"
         "    // (y, x) of pixel pix stepped, not divided out: the tile has no divider.\n"
         "    unsigned y = wid / W, x = wid % W;\n"
         "    for (unsigned pix = wid; pix < pixels; pix += workers, x += workers) {\n"
         "      while (x >= W) x -= W, ++y;\n"
         "      float *o = &out[pix * C];\n"
         "      for (unsigned c = 0; c < C; ++c) o[c] = " + init + ";\n"
         "      for (unsigned ty = rowStart[y]; ty < rowStart[y + 1]; ++ty)\n"
         "        for (unsigned tx = colStart[x]; tx < colStart[x + 1]; ++tx) {\n" +
         tap +
         "        }\n" + after +
         "    }\n  }\n};\n";
}

unsigned pixelWorkers(const Type &t, std::size_t channels) { return channels * (t == HALF ? 2 : 4) % 4 ? 1 : 6; }

/// Whether every window of a 2-D field is whole and starts at its output's coordinate times the
/// stride (no padding or truncation at the start): then a window's taps are found by stepping.
bool wholeWindows(const PoolParams &p, const Shape &s) {
  if (p.getNumFieldDims() != 2) return false;
  for (unsigned d = 0; d < 2; ++d)
    if (p.inputTruncationOrPaddingLower[d] != 0) return false;
  for (const auto *w : {&s.rows, &s.cols})
    for (const std::vector<unsigned> &taps : *w)
      if (taps.size() != p.kernelShape[w == &s.rows ? 0 : 1]) return false;
  return true;
}

/// Float max pooling of channels-last activations with an even number of channels and whole
/// windows: a worker's pixels in turn, each window's taps found by stepping (no tables), the
/// channels a pair at a time (f32v2max on 64-bit loads). The same maxima in the same order as
/// the general vertex (from -inf, tap by tap in row order). The shape is in the source as
/// constants (a vertex class for each layer's), so the compiler unrolls the window and divides
/// by constants; the general vertex, compiled from its tables, took some 600 bundles a pixel of
/// MNIST's first pooling (2x2 windows of 10 channels), most of them its set-up and per-tap
/// arithmetic spilled to the stack.
std::string wholeWindowMaxPool(const PoolParams &p, const Shape &s) {
  const std::size_t C2 = p.numChannels / 2;
  std::ostringstream b;
  b << "  poplar::Input<poplar::Vector<float, poplar::VectorLayout::ONE_PTR, 8>> in;\n"
    << "  poplar::Output<poplar::Vector<float, poplar::VectorLayout::SPAN, 8>> out;\n"
    << "  void compute(unsigned wid) {\n"
    << "    // channel pairs, output width, window, pairs an input row, a column step, a row step\n"
    << "    constexpr unsigned C2 = " << C2 << ", OW = " << s.ow << ", KH = " << p.kernelShape[0]
    << ", KW = " << p.kernelShape[1] << ", ROW = " << s.w * C2 << ", SX = " << p.stride[1] * C2
    << ", SY = " << p.stride[0] * s.w * C2 << ";\n"
    << "    const unsigned pixels = out.size() / (2 * C2);\n"
    << "    const float2 *in2 = reinterpret_cast<const float2 *>(&in[0]);\n"
    << "    float2 *out2 = reinterpret_cast<float2 *>(&out[0]);\n"
    << "    // (y, x) of pixel pix stepped, not divided out.\n"
    << "    unsigned y = 0, x = wid;\n"
    << "    while (x >= OW) x -= OW, ++y;\n"
    << "    for (unsigned pix = wid; pix < pixels; pix += 6) {\n"
    << "      const float2 *w = in2 + y * SY + x * SX;\n"
    << "      float2 *o = out2 + pix * C2;\n"
    << "      for (unsigned c = 0; c < C2; ++c) {\n"
    << "        float2 m = {-INFINITY, -INFINITY};\n"
    << "        for (unsigned ky = 0; ky < KH; ++ky)\n"
    << "          for (unsigned kx = 0; kx < KW; ++kx) m = __builtin_ipu_max(m, w[ky * ROW + kx * C2 + c]);\n"
    << "        o[c] = m;\n"
    << "      }\n"
    << "      x += 6;\n"
    << "      while (x >= OW) x -= OW, ++y;\n"
    << "    }\n"
    << "  }\n};\n";
  return b.str();
}

Tensor poolChannelsLast(Graph &graph, const PoolParams &params, const Shape &s, const Tensor &in,
                        program::Sequence &prog, const std::string &name) {
  const std::string T = typeName(in.elementType());
  const bool isMax = params.poolingType == PoolingType::MAX, isAvg = params.poolingType == PoolingType::AVG;
  const std::size_t C = params.numChannels;
  const bool whole = isMax && in.elementType() == FLOAT && C % 2 == 0 && wholeWindows(params, s);
  // The general vertex's source (made only where the whole-window one does not serve).
  auto general = [&] {
    std::ostringstream b;
    b << "  poplar::Input<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR>> in;\n"
      << "  poplar::Output<poplar::Vector<" << T << ">> out;\n"
      << "  poplar::Vector<unsigned> rowStart;\n  poplar::Vector<unsigned> rowTaps;\n"
      << "  poplar::Vector<unsigned> colStart;\n  poplar::Vector<unsigned> colTaps;\n"
      << "  poplar::Vector<unsigned> p; // channels, output width, workers, input width\n"
      << (in.elementType() == FLOAT
              // Float: the output pixel's channels accumulate in place, a tap at a time, so the inner
              // loop streams over the channels (the tap's offset worked out once a tap, not once a
              // channel); the same operations in the same order as the general loop below.
              ? pixelTapLoop(std::string("          const float *v = &in[(rowTaps[ty] * p[3] + colTaps[tx]) * C];\n"
                                         "          for (unsigned c = 0; c < C; ++c) ") +
                                 (isMax ? "o[c] = std::fmax(o[c], v[c]);\n" : "o[c] += v[c];\n"),
                             isMax ? "-INFINITY" : "0",
                             isAvg ? "        const float n = float((rowStart[y + 1] - rowStart[y]) * (colStart[x + 1] - colStart[x]));\n"
                                     "        for (unsigned c = 0; c < C; ++c) o[c] /= n;\n"
                                   : "")
              : pixelLoop(std::string("        float acc = ") + (isMax ? "-INFINITY" : "0") + ";\n"
                   "        for (unsigned ty = rowStart[y]; ty < rowStart[y + 1]; ++ty)\n"
                   "          for (unsigned tx = colStart[x]; tx < colStart[x + 1]; ++tx) {\n"
                   "            const float v = static_cast<float>(in[(rowTaps[ty] * p[3] + colTaps[tx]) * C + c]);\n"
                   "            " + (isMax ? "acc = std::fmax(acc, v);" : "acc += v;") + "\n"
                   "          }\n" +
                   (isAvg ? "        acc /= float((rowStart[y + 1] - rowStart[y]) * (colStart[x + 1] - colStart[x]));\n" : "") +
                   "        out[pix * C + c] = static_cast<" + T + ">(acc);\n"));
    return b.str();
  };
  const std::string vertex = vertexClass(graph, whole ? wholeWindowMaxPool(params, s) : general());
  Tensor out = graph.addVariable(in.elementType(), {params.batchSize, s.oh, s.ow, C}, name);
  const Tensor inNHWC = asNHWC(in);
  std::vector<unsigned> colStart, colList;
  flatten(s.cols, colStart, colList);
  ComputeSet cs = graph.addComputeSet(name);
  const auto blocks = rowBlocks(graph, params.batchSize, s.oh);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto [n, r0, r1] = blocks[i];
    const unsigned tile = unsigned(i * graph.getTarget().getNumTiles() / blocks.size());
    const RowTaps rows = rowTaps(s.rows, r0, r1);
    const Tensor o = out[n].slice(r0, r1).flatten();
    graph.setTileMapping(o, tile);
    VertexRef v = graph.addVertex(cs, vertex);
    graph.connect(v["in"], rows.hi > rows.lo ? inNHWC[n].slice(rows.lo, rows.hi).flatten() : inNHWC[n][0][0]);
    graph.connect(v["out"], o);
    if (!whole) {
      graph.setInitialValue(v["rowStart"], rows.start);
      graph.setInitialValue(v["rowTaps"], rows.list);
      graph.setInitialValue(v["colStart"], colStart);
      graph.setInitialValue(v["colTaps"], colList);
      graph.setInitialValue(v["p"], std::vector<unsigned>{unsigned(C), unsigned(s.ow), pixelWorkers(in.elementType(), C),
                                                          unsigned(s.w)});
    }
    graph.setTileMapping(v, tile);
  }
  prog.add(program::Execute(cs));
  return fromNHWC(out, params.getNumFieldDims());
}

/// The gradient of float max pooling of channels-last activations over windows that tile the
/// field (whole, the stride equal to the window): each input pixel meets at most one window, so
/// its gradient is the pooled gradient where it equals the window's maximum, +0 elsewhere (or
/// where no window covers it), as `0 + (match ? g : 0)`, the general vertex's sum. The shape is
/// in the source as constants; a vertex's first row's place in its window (`p[0]`) and its rows
/// that a window covers (`p[1]`) are fields.
std::string tilingMaxPoolGradient(const PoolParams &p, const Shape &s) {
  std::ostringstream b;
  b << "  poplar::Input<poplar::Vector<float, poplar::VectorLayout::ONE_PTR, 8>> in;\n"
    << "  poplar::Input<poplar::Vector<float, poplar::VectorLayout::ONE_PTR, 8>> pooled;\n"
    << "  poplar::Input<poplar::Vector<float, poplar::VectorLayout::ONE_PTR, 8>> pg;\n"
    << "  poplar::Output<poplar::Vector<float, poplar::VectorLayout::SPAN, 8>> out;\n"
    << "  poplar::Vector<unsigned> p; // the first row's place in its window, the rows windows cover\n"
    << "  void compute(unsigned wid) {\n"
    << "    // channels, input width, output width, window, the columns windows cover\n"
    << "    constexpr unsigned C = " << p.numChannels << ", W = " << s.w << ", OW = " << s.ow << ", KH = "
    << p.kernelShape[0] << ", KW = " << p.kernelShape[1] << ", XS = " << s.ow * p.kernelShape[1] << ";\n"
    << "    const unsigned phase = p[0], covered = p[1], pixels = out.size() / C;\n"
    << "    // (y, x) of pixel pix stepped, not divided out.\n"
    << "    unsigned y = 0, x = wid;\n"
    << "    while (x >= W) x -= W, ++y;\n"
    << "    for (unsigned pix = wid; pix < pixels; pix += 6) {\n"
    << "      float *o = &out[pix * C];\n"
    << "      if (y < covered && x < XS) {\n"
    << "        const float *v = &in[pix * C];\n"
    << "        const unsigned at = ((y + phase) / KH * OW + x / KW) * C;\n"
    << "        for (unsigned c = 0; c < C; ++c) {\n"
    << "          const float g = pg[at + c];\n"
    << "          o[c] = 0.0f + (v[c] == pooled[at + c] ? g : 0.0f);\n"
    << "        }\n"
    << "      } else {\n"
    << "        for (unsigned c = 0; c < C; ++c) o[c] = 0.0f;\n"
    << "      }\n"
    << "      x += 6;\n"
    << "      while (x >= W) x -= W, ++y;\n"
    << "    }\n"
    << "  }\n};\n";
  return b.str();
}

/// The input gradient of channels-last activations: a vertex takes (image, block of input
/// rows) with every channel, and the pooled rows whose windows cover them. Max pooling's
/// gradient adds the pooled gradient where the input is its window's maximum and +0 elsewhere,
/// without a branch (the gradient is loaded first, so the compiler selects with the compare's
/// mask); the sums are those of adding only the matches, as an accumulator that starts at +0
/// never holds -0.
Tensor gradientChannelsLast(Graph &graph, const PoolParams &params, const Shape &s, const Tensor *in,
                            const Tensor *pooled, const Tensor &pooledGradient, program::Sequence &prog,
                            const std::string &name) {
  const std::string T = typeName(pooledGradient.elementType());
  const bool isMax = params.poolingType == PoolingType::MAX, isAvg = params.poolingType == PoolingType::AVG;
  const std::size_t C = params.numChannels;
  const bool tiling = isMax && pooledGradient.elementType() == FLOAT && wholeWindows(params, s) &&
                      params.stride[0] == params.kernelShape[0] && params.stride[1] == params.kernelShape[1];
  std::ostringstream b;
  b << (isMax ? "  poplar::Input<poplar::Vector<" + T + ", poplar::VectorLayout::ONE_PTR>> in;\n"
                "  poplar::Input<poplar::Vector<" + T + ", poplar::VectorLayout::ONE_PTR>> pooled;\n"
              : std::string())
    << "  poplar::Input<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR>> pg;\n"
    << "  poplar::Output<poplar::Vector<" << T << ">> out;\n"
    << "  poplar::Vector<unsigned> rowStart;\n  poplar::Vector<unsigned> rowOuts;\n"
    << "  poplar::Vector<unsigned> colStart;\n  poplar::Vector<unsigned> colOuts;\n"
    << "  poplar::Vector<unsigned> rowCount;\n  poplar::Vector<unsigned> colCount;\n"
    << "  poplar::Vector<unsigned> p; // channels, input width, workers, output width\n"
    << (pooledGradient.elementType() == FLOAT
            ? pixelTapLoop(std::string("          const unsigned oy = rowOuts[ty], ox = colOuts[tx], at = (oy * p[3] + ox) * C;\n") +
                               (isMax ? "          for (unsigned c = 0; c < C; ++c)\n"
                                        "            { const float g = pg[at + c]; o[c] += in[pix * C + c] == pooled[at + c] ? g : 0.0f; }\n"
                                : isAvg ? "          const float n = float(rowCount[oy] * colCount[ox]);\n"
                                          "          for (unsigned c = 0; c < C; ++c) o[c] += pg[at + c] / n;\n"
                                        : "          for (unsigned c = 0; c < C; ++c) o[c] += pg[at + c];\n"),
                           "0", "")
            : pixelLoop(std::string("        float g = 0;\n") +
                 (isMax ? "        const float v = static_cast<float>(in[pix * C + c]);\n" : "") +
                 "        for (unsigned ty = rowStart[y]; ty < rowStart[y + 1]; ++ty)\n"
                 "          for (unsigned tx = colStart[x]; tx < colStart[x + 1]; ++tx) {\n"
                 "            const unsigned oy = rowOuts[ty], ox = colOuts[tx], o = (oy * p[3] + ox) * C + c;\n" +
                 (isMax ? "            { const float d = static_cast<float>(pg[o]); g += v == static_cast<float>(pooled[o]) ? d : 0.0f; }\n"
                  : isAvg ? "            g += static_cast<float>(pg[o]) / float(rowCount[oy] * colCount[ox]);\n"
                          : "            g += static_cast<float>(pg[o]);\n") +
                 "          }\n"
                 "        out[pix * C + c] = static_cast<" + T + ">(g);\n"));
  const std::string vertex = vertexClass(graph, tiling ? tilingMaxPoolGradient(params, s) : b.str());
  Tensor grad = graph.addVariable(pooledGradient.elementType(), {params.batchSize, s.h, s.w, C}, name);
  // Each view once: a view of a whole activation walks all its elements.
  const Tensor pgNHWC = asNHWC(pooledGradient), inNHWC = isMax ? asNHWC(*in) : Tensor(),
               pooledNHWC = isMax ? asNHWC(*pooled) : Tensor();
  std::vector<unsigned> colStart, colList, colCount;
  flatten(covering(s.cols, s.w), colStart, colList);
  for (const auto &c : s.cols) colCount.push_back(unsigned(c.size()));
  const auto coveringRows = covering(s.rows, s.h);
  ComputeSet cs = graph.addComputeSet(name);
  const auto blocks = rowBlocks(graph, params.batchSize, s.h);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto [n, r0, r1] = blocks[i];
    const unsigned tile = unsigned(i * graph.getTarget().getNumTiles() / blocks.size());
    const RowTaps rows = rowTaps(coveringRows, r0, r1); // the pooled rows [lo, hi) they meet
    std::vector<unsigned> rowCount;
    for (unsigned o = rows.lo; o < std::max(rows.hi, rows.lo + 1) && o < s.oh; ++o)
      rowCount.push_back(unsigned(s.rows[o].size()));
    const Tensor o = grad[n].slice(r0, r1).flatten();
    graph.setTileMapping(o, tile);
    VertexRef v = graph.addVertex(cs, vertex);
    const std::size_t image = n; // (a structured binding cannot be captured in C++17)
    auto pooledRows = [&](const Tensor &nhwc) {
      return rows.hi > rows.lo ? nhwc[image].slice(rows.lo, rows.hi).flatten() : nhwc[image][0][0];
    };
    if (isMax) {
      graph.connect(v["in"], inNHWC[n].slice(r0, r1).flatten());
      graph.connect(v["pooled"], pooledRows(pooledNHWC));
    }
    graph.connect(v["pg"], pooledRows(pgNHWC));
    graph.connect(v["out"], o);
    if (tiling) {
      const std::size_t kh = params.kernelShape[0], covered = std::min(r1, s.oh * kh);
      graph.setInitialValue(v["p"], std::vector<unsigned>{unsigned(r0 - rows.lo * kh), unsigned(covered > r0 ? covered - r0 : 0)});
      graph.setTileMapping(v, tile);
      continue;
    }
    graph.setInitialValue(v["rowStart"], rows.start);
    graph.setInitialValue(v["rowOuts"], rows.list);
    graph.setInitialValue(v["colStart"], colStart);
    graph.setInitialValue(v["colOuts"], colList);
    graph.setInitialValue(v["rowCount"], rowCount);
    graph.setInitialValue(v["colCount"], colCount);
    graph.setInitialValue(v["p"], std::vector<unsigned>{unsigned(C), unsigned(s.w),
                                                        pixelWorkers(pooledGradient.elementType(), C), unsigned(s.ow)});
    graph.setTileMapping(v, tile);
  }
  prog.add(program::Execute(cs));
  return fromNHWC(grad, params.getNumFieldDims());
}

} // namespace

Tensor pool(Graph &graph, const PoolParams &params, const Tensor &in, program::Sequence &prog,
            const DebugContext &debugContext, const OptionFlags &) {
  const std::string op = "popnn::pooling::pool";
  const std::string name = debugContext.getPathName().empty() ? op : debugContext.getPathName();
  const Shape s = shape(op, params, in.shape());
  const std::string T = typeName(in.elementType());
  const bool isMax = params.poolingType == PoolingType::MAX, isAvg = params.poolingType == PoolingType::AVG;
  if (channelsLast(in)) return poolChannelsLast(graph, params, s, in, prog, name);
  std::ostringstream b;
  b << "  poplar::Input<poplar::Vector<" << T << ">> in;\n  poplar::Output<poplar::Vector<" << T << ">> out;\n"
    << "  poplar::Vector<unsigned> rowStart;\n  poplar::Vector<unsigned> rowTaps;\n"
    << "  poplar::Vector<unsigned> colStart;\n  poplar::Vector<unsigned> colTaps;\n"
    << "  poplar::Vector<unsigned> p; // h, w, out h, out w\n"
    << "  void compute(unsigned wid) {\n"
    << "    if (wid) return; // one worker: outputs of a plane may share words\n"
    << "    const unsigned h = p[0], w = p[1], oh = p[2], ow = p[3], planes = out.size() / (oh * ow);\n"
    << "    for (unsigned pl = 0; pl < planes; ++pl)\n"
    << "      for (unsigned oy = 0; oy < oh; ++oy)\n"
    << "        for (unsigned ox = 0; ox < ow; ++ox) {\n"
    << "          float acc = " << (isMax ? "-INFINITY" : "0") << ";\n"
    << "          for (unsigned ty = rowStart[oy]; ty < rowStart[oy + 1]; ++ty)\n"
    << "            for (unsigned tx = colStart[ox]; tx < colStart[ox + 1]; ++tx) {\n"
    << "              const float x = static_cast<float>(in[(pl * h + rowTaps[ty]) * w + colTaps[tx]]);\n"
    << "              " << (isMax ? "acc = std::fmax(acc, x);" : "acc += x;") << "\n"
    << "            }\n"
    << (isAvg ? "          acc /= float((rowStart[oy + 1] - rowStart[oy]) * (colStart[ox + 1] - colStart[ox]));\n" : "")
    << "          out[(pl * oh + oy) * ow + ox] = static_cast<" << T << ">(acc);\n"
    << "        }\n  }\n};\n";
  const std::string vertex = vertexClass(graph, b.str());
  std::vector<std::size_t> outShape{params.batchSize, params.numChannels};
  const auto of = params.getOutputFieldShape();
  outShape.insert(outShape.end(), of.begin(), of.end());
  Tensor out = graph.addVariable(in.elementType(), outShape, name);
  const std::size_t planes = params.batchSize * params.numChannels;
  const Tensor in3 = as3d(in, planes, s.h, s.w), out3 = as3d(out, planes, s.oh, s.ow);
  std::vector<unsigned> rowStart, rowTaps, colStart, colTaps;
  flatten(s.rows, rowStart, rowTaps);
  flatten(s.cols, colStart, colTaps);
  ComputeSet cs = graph.addComputeSet(name);
  const auto blocks = planeBlocks(graph, planes);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const unsigned tile = unsigned(i * graph.getTarget().getNumTiles() / blocks.size());
    const Tensor o = out3.slice(blocks[i].first, blocks[i].second).flatten();
    graph.setTileMapping(o, tile);
    VertexRef v = graph.addVertex(cs, vertex);
    graph.connect(v["in"], in3.slice(blocks[i].first, blocks[i].second).flatten());
    graph.connect(v["out"], o);
    graph.setInitialValue(v["rowStart"], rowStart);
    graph.setInitialValue(v["rowTaps"], rowTaps);
    graph.setInitialValue(v["colStart"], colStart);
    graph.setInitialValue(v["colTaps"], colTaps);
    graph.setInitialValue(v["p"], std::vector<unsigned>{unsigned(s.h), unsigned(s.w), unsigned(s.oh), unsigned(s.ow)});
    graph.setTileMapping(v, tile);
  }
  prog.add(program::Execute(cs));
  return out;
}

namespace {

Tensor gradient(Graph &graph, const PoolParams &params, const Tensor *in, const Tensor *pooled,
                const Tensor &pooledGradient, program::Sequence &prog, const std::string &name) {
  const std::string op = "popnn::pooling::poolInputGradient";
  std::vector<std::size_t> inShape{params.batchSize, params.numChannels};
  inShape.insert(inShape.end(), params.inputFieldShape.begin(), params.inputFieldShape.end());
  if (in && in->shape() != inShape) fail(op, "the input's shape is " + in->shapeToString() + "; the parameters say another");
  const Shape s = shape(op, params, inShape);
  std::vector<std::size_t> outShape{params.batchSize, params.numChannels};
  const auto of = params.getOutputFieldShape();
  outShape.insert(outShape.end(), of.begin(), of.end());
  if (pooledGradient.shape() != outShape)
    fail(op, "the pooled gradient's shape is " + pooledGradient.shapeToString() + "; the pooling's output has another");
  const bool isMax = params.poolingType == PoolingType::MAX, isAvg = params.poolingType == PoolingType::AVG;
  if (isMax && (!in || !pooled)) fail(op, "MAX pooling's gradient needs the input and the pooled output");
  if (isMax ? channelsLast(*in) : channelsLast(pooledGradient))
    return gradientChannelsLast(graph, params, s, in, pooled, pooledGradient, prog, name);
  const std::string T = typeName(pooledGradient.elementType());
  std::ostringstream b;
  b << (isMax ? "  poplar::Input<poplar::Vector<" + T + ">> in;\n  poplar::Input<poplar::Vector<" + T + ">> pooled;\n" : "")
    << "  poplar::Input<poplar::Vector<" << T << ">> pg;\n  poplar::Output<poplar::Vector<" << T << ">> out;\n"
    << "  poplar::Vector<unsigned> rowStart;\n  poplar::Vector<unsigned> rowOuts;\n"
    << "  poplar::Vector<unsigned> colStart;\n  poplar::Vector<unsigned> colOuts;\n"
    << "  poplar::Vector<unsigned> rowCount;\n  poplar::Vector<unsigned> colCount;\n"
    << "  poplar::Vector<unsigned> p; // h, w, out h, out w\n"
    << "  void compute(unsigned wid) {\n"
    << "    if (wid) return;\n"
    << "    const unsigned h = p[0], w = p[1], oh = p[2], ow = p[3], planes = out.size() / (h * w);\n"
    << "    for (unsigned pl = 0; pl < planes; ++pl)\n"
    << "      for (unsigned iy = 0; iy < h; ++iy)\n"
    << "        for (unsigned ix = 0; ix < w; ++ix) {\n"
    << "          float g = 0;\n"
    << (isMax ? "          const float x = static_cast<float>(in[(pl * h + iy) * w + ix]);\n" : "")
    << "          for (unsigned ty = rowStart[iy]; ty < rowStart[iy + 1]; ++ty)\n"
    << "            for (unsigned tx = colStart[ix]; tx < colStart[ix + 1]; ++tx) {\n"
    << "              const unsigned oy = rowOuts[ty], ox = colOuts[tx], o = (pl * oh + oy) * ow + ox;\n"
    << (isMax ? "              { const float d = static_cast<float>(pg[o]); g += x == static_cast<float>(pooled[o]) ? d : 0.0f; }\n"
              : isAvg ? "              g += static_cast<float>(pg[o]) / float(rowCount[oy] * colCount[ox]);\n"
                      : "              g += static_cast<float>(pg[o]);\n")
    << "            }\n"
    << "          out[(pl * h + iy) * w + ix] = static_cast<" << T << ">(g);\n"
    << "        }\n  }\n};\n";
  const std::string vertex = vertexClass(graph, b.str());
  Tensor grad = graph.addVariable(pooledGradient.elementType(), inShape, name);
  const std::size_t planes = params.batchSize * params.numChannels;
  const Tensor g3 = as3d(grad, planes, s.h, s.w), pg3 = as3d(pooledGradient, planes, s.oh, s.ow);
  std::vector<unsigned> rowStart, rowOuts, colStart, colOuts, rowCount, colCount;
  flatten(covering(s.rows, s.h), rowStart, rowOuts);
  flatten(covering(s.cols, s.w), colStart, colOuts);
  for (const auto &r : s.rows) rowCount.push_back(unsigned(r.size()));
  for (const auto &c : s.cols) colCount.push_back(unsigned(c.size()));
  ComputeSet cs = graph.addComputeSet(name);
  const auto blocks = planeBlocks(graph, planes);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const unsigned tile = unsigned(i * graph.getTarget().getNumTiles() / blocks.size());
    const Tensor o = g3.slice(blocks[i].first, blocks[i].second).flatten();
    graph.setTileMapping(o, tile);
    VertexRef v = graph.addVertex(cs, vertex);
    if (isMax) {
      graph.connect(v["in"], as3d(*in, planes, s.h, s.w).slice(blocks[i].first, blocks[i].second).flatten());
      graph.connect(v["pooled"], as3d(*pooled, planes, s.oh, s.ow).slice(blocks[i].first, blocks[i].second).flatten());
    }
    graph.connect(v["pg"], pg3.slice(blocks[i].first, blocks[i].second).flatten());
    graph.connect(v["out"], o);
    graph.setInitialValue(v["rowStart"], rowStart);
    graph.setInitialValue(v["rowOuts"], rowOuts);
    graph.setInitialValue(v["colStart"], colStart);
    graph.setInitialValue(v["colOuts"], colOuts);
    graph.setInitialValue(v["rowCount"], rowCount);
    graph.setInitialValue(v["colCount"], colCount);
    graph.setInitialValue(v["p"], std::vector<unsigned>{unsigned(s.h), unsigned(s.w), unsigned(s.oh), unsigned(s.ow)});
    graph.setTileMapping(v, tile);
  }
  prog.add(program::Execute(cs));
  return grad;
}

} // namespace

Tensor poolInputGradient(Graph &graph, const PoolParams &params, const Tensor &in, const Tensor &pooled,
                         const Tensor &pooledGradient, bool, program::Sequence &prog, const DebugContext &debugContext,
                         const OptionFlags &) {
  const std::string name = debugContext.getPathName().empty() ? "popnn::pooling::poolInputGradient" : debugContext.getPathName();
  return gradient(graph, params, &in, &pooled, pooledGradient, prog, name);
}

Tensor poolInputGradient(Graph &graph, const PoolParams &params, const unsigned, const Tensor &pooledGradient,
                         program::Sequence &prog, const DebugContext &debugContext, const OptionFlags &) {
  const std::string name = debugContext.getPathName().empty() ? "popnn::pooling::poolInputGradient" : debugContext.getPathName();
  return gradient(graph, params, nullptr, nullptr, pooledGradient, prog, name);
}

} // namespace pooling
} // namespace popnn
