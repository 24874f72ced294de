// poplin's matrix multiplications: a plan splits the groups, rows, columns and depth of the
// product over the tiles; each tile multiplies its blocks on the AMP (Amp.hpp, assembly) or with a
// generated C++ vertex (compiled by ipu-cc, cached by content) into partial sums; partials over
// the depth are summed on the tiles sharing the output's block (PartialSum.hpp). Every value is
// computed on the tiles and every operand block reaches its tile through the simulated exchange.
#include "Amp.hpp"
#include "MatMulDetail.hpp"
#include "PartialSum.hpp"

#include "../sdk/Generated.hpp"

#include <poplin/MatMul.hpp>
#include <poplin/codelets.hpp>

#include <popops/Cast.hpp>
#include <popops/ScaledAdd.hpp>
#include <popops/Zero.hpp>
#include <poputil/TileMapping.hpp>

#include <poplar/Tensor.hpp>

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <cstdio>
#include <limits>
#include <sstream>

namespace poplin {

using namespace poplar;

matmul::PlanningCache::PlanningCache() = default;
matmul::PlanningCache::~PlanningCache() = default;

void addCodelets(Graph &) {
  // poplin's vertices are generated for their types when an operation is added.
}

namespace {

using ipusim::sdk::fail;

using ipusim::sdk::shapeString;

std::size_t ceilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// ---- options ----------------------------------------------------------------------------------

struct Options {
  double availableMemoryProportion = 0.6;
  Type partialsType = FLOAT;
  /// The planner's own: count the output block too (choosePlan, past the caller's proportion).
  bool countOutput = false;
};

Options parseOptions(const std::string &op, const OptionFlags &flags) {
  Options o;
  auto boolean = [&](const std::string &k, const std::string &v) {
    if (v != "true" && v != "false") throw invalid_option(op + ": option '" + k + "' must be true or false, not '" + v + "'");
  };
  for (const auto &kv : flags) {
    const std::string &k = kv.first, &v = kv.second;
    if (k == "availableMemoryProportion") {
      char *end = nullptr;
      const double p = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end || p < 0 || p > 1)
        throw invalid_option(op + ": availableMemoryProportion must be a number in [0, 1], not '" + v + "'");
      o.availableMemoryProportion = p;
    } else if (k == "partialsType") {
      if (v == "half") o.partialsType = HALF;
      else if (v == "float") o.partialsType = FLOAT;
      else throw invalid_option(op + ": partialsType must be half or float, not '" + v + "'");
    } else if (k == "fullyConnectedPass") {
      if (v != "NONE" && v != "INFERENCE_FWD" && v != "TRAINING_FWD" && v != "TRAINING_BWD" && v != "TRAINING_WU")
        throw invalid_option(op + ": fullyConnectedPass must be NONE, INFERENCE_FWD, TRAINING_FWD, TRAINING_BWD or "
                                  "TRAINING_WU, not '" + v + "'");
    } else if (k == "inputRHSIsPreArranged" || k == "use128BitConvUnitLoad" || k == "enableMultiStageReduce" ||
               k == "enableFastReduce" || k == "remapOutputTensor" || k == "gatherOutput" ||
               k == "disableSRForAMPVertices") {
      boolean(k, v);
    } else if (k != "planConstraints") {
      throw invalid_option(op + ": unknown option '" + k + "'");
    }
  }
  return o;
}

// ---- the plan ---------------------------------------------------------------------------------

// The generated C++ vertex's speed, for the plan's cost model, in a worker's instructions (a
// tile issues one a cycle, each worker one every sixth): each step of the depth for one row costs
// kVertexDepthStep (the scalar of A, the row pointers, the inner loop's set-up and branches),
// each step of its inner loop kVertexPairStep (a float2 multiply-add over two columns when the
// row is float and even) or kVertexColumnStep (one column). Workers take rows in turn, so a block
// of few rows keeps most of them idle. Measured on one tile (docs/poplin.md; a worker a row):
// 6 x 150 x 1 took 34,175 cycles, 6 x 150 x 3 43,265, 6 x 100 x 16 40,433, 6 x 100 x 15 67,673,
// 6 x 400 x 16 153,833.
const double kVertexDepthStep = 32, kVertexPairStep = 4, kVertexColumnStep = 5.4;

/// The block kernel a plan is for: the AMP's (Amp.hpp; its Form by the input and partials types)
/// where the types and shapes suit it, else the generated C++ vertex.
struct Kernel {
  bool amp = false;
  amp::Form form{FLOAT, FLOAT};
  std::size_t kAlign = 1, nAlign = 1, minRows = 1, maxRow = std::numeric_limits<std::size_t>::max();
  std::size_t accBytes = 4;
  double cycles(std::size_t mb, std::size_t kb, std::size_t nb) const {
    if (amp) return amp::productCycles(form, mb, kb, nb);
    const std::size_t workers = nb * accBytes % 4 ? 1 : 6;
    const bool pairs = form.in == FLOAT && form.partials == FLOAT && nb % 2 == 0;
    const double row = pairs ? kVertexPairStep * double(nb / 2) : kVertexColumnStep * double(nb);
    return 6.0 * double(ceilDiv(mb, workers)) * double(kb) * (kVertexDepthStep + row);
  }
};

/// The AMP takes the depth in chunks of 16 halves or 8 floats and the columns in chunks of 16 (8
/// for half with float partials); its left operand's rows must lie in memory as rows (not a
/// transposed view).
Kernel chooseKernel(const Type &in, const Type &partials, std::size_t m, std::size_t k, std::size_t n,
                    bool aTransposed) {
  Kernel kern;
  kern.form = {in, partials};
  if (!kern.form.valid() || aTransposed || m < amp::kMinRows) return kern;
  if (k % kern.form.inputs() || n % kern.form.outputs()) return kern;
  kern.amp = true;
  kern.kAlign = kern.form.inputs();
  kern.nAlign = kern.form.outputs();
  kern.minRows = amp::kMinRows;
  kern.maxRow = kern.form.maxRow();
  return kern;
}

std::size_t roundUp(std::size_t a, std::size_t b) { return ceilDiv(a, b) * b; }

struct Plan {
  std::size_t g, m, k, n;     // the product: g groups of [m, k] x [k, n]
  std::size_t pg, pm, pn, pk; // the parts each dimension is split into
  std::size_t gb, mb, nb, kb; // block sizes (the last block of a dimension may be smaller)
  double cycles;
  std::size_t bytesPerTile;
  bool amp;

  std::size_t tiles() const { return pg * pm * pn * pk; }
  /// Block i of the groups, rows, columns or depth: [begin, end), empty past the dimension.
  std::pair<std::size_t, std::size_t> groups(std::size_t i) const { return range(i, gb, g); }
  std::pair<std::size_t, std::size_t> rows(std::size_t i) const { return range(i, mb, m); }
  std::pair<std::size_t, std::size_t> cols(std::size_t i) const { return range(i, nb, n); }
  std::pair<std::size_t, std::size_t> depth(std::size_t i) const { return range(i, kb, k); }
  static std::pair<std::size_t, std::size_t> range(std::size_t i, std::size_t block, std::size_t size) {
    const std::size_t b = std::min(size, i * block);
    return {b, std::min(size, b + block)};
  }
  unsigned tile(std::size_t gi, std::size_t mi, std::size_t ni, std::size_t ki) const {
    return unsigned(((gi * pm + mi) * pn + ni) * pk + ki);
  }
  /// The tiles createMatMulInputLHS/RHS put A's block (gi, mi, ki) and B's block (gi, ni, ki)
  /// on (placeOperands): one of the tiles that multiply it, which sends it to the others.
  std::vector<unsigned> aHome, bHome;
  unsigned aTile(std::size_t gi, std::size_t mi, std::size_t ki) const { return aHome.at((gi * pm + mi) * pk + ki); }
  unsigned bTile(std::size_t gi, std::size_t ni, std::size_t ki) const { return bHome.at((gi * pn + ni) * pk + ki); }
  std::string str() const {
    std::ostringstream s;
    s << "groups " << g << " in " << pg << ", rows " << m << " in " << pm << " of " << mb << ", columns " << n
      << " in " << pn << " of " << nb << ", depth " << k << " in " << pk << " of " << kb << "; " << tiles()
      << " tiles, " << bytesPerTile << " bytes a tile, about " << std::size_t(cycles) << " cycles on the "
      << (amp ? "AMP" : "vector unit");
    return s.str();
  }
};

/// The partial sums' cycles on one of the tiles sharing an output block (mapOutputBlock), a
/// worker's bundle every sixth cycle, by the cheaper of the PartialSum vertices (PartialSum.hpp),
/// the vector vertex counted a pass a part (the 1024^3 half product's 13 parts of 905 halves
/// measure 3,873 cycles, this gives 3,900).
double sumCycles(const Plan &p, double partialBytes) {
  const double share = double(roundUp(ceilDiv(p.gb * p.mb * p.nb, p.pk), 4));
  const double vectorsPerWorker = std::ceil(share * partialBytes / 8 / 6);
  return 6 * std::min(detail::vectorVertexBundles(double(p.pk), vectorsPerWorker),
                      detail::deepVertexBundles(double(p.pk), vectorsPerWorker));
}

/// Chooses the home of each operand block among the tiles that multiply it. The home sends the
/// block to the others in one broadcast, and a long send goes as 64-bit items on both transmit
/// lanes of the home's tile pair (tiles 2j and 2j+1; ExchangeSchedule), so the blocks at home on
/// one pair are sent one after the other. With every block on the first tile that multiplies it,
/// the 1024^3 half product's first tiles' pairs held four blocks and took twice the exchange
/// cycles of the rest. Each block, largest first, goes to the candidate whose pair has the fewest
/// elements to send so far (deterministic: the first such in its order); a block nobody else
/// needs weighs 0.
void placeOperands(Plan &p) {
  struct Block {
    double elements; // sent: 0 if only its home multiplies it
    bool a;
    std::size_t gi, i, ki; // i: mi for A, ni for B
  };
  std::vector<Block> blocks;
  for (std::size_t gi = 0; gi < p.pg; ++gi)
    for (std::size_t ki = 0; ki < p.pk; ++ki) {
      const auto [g0, g1] = p.groups(gi);
      const auto [k0, k1] = p.depth(ki);
      for (std::size_t mi = 0; mi < p.pm; ++mi) {
        const auto [m0, m1] = p.rows(mi);
        blocks.push_back({double(g1 - g0) * double(m1 - m0) * double(k1 - k0) * (p.pn > 1), true, gi, mi, ki});
      }
      for (std::size_t ni = 0; ni < p.pn; ++ni) {
        const auto [n0, n1] = p.cols(ni);
        blocks.push_back({double(g1 - g0) * double(n1 - n0) * double(k1 - k0) * (p.pm > 1), false, gi, ni, ki});
      }
    }
  std::stable_sort(blocks.begin(), blocks.end(), [](const Block &x, const Block &y) { return x.elements > y.elements; });
  p.aHome.assign(p.pg * p.pm * p.pk, 0);
  p.bHome.assign(p.pg * p.pn * p.pk, 0);
  std::vector<double> pairLoad((p.tiles() + 1) / 2, 0);
  for (const Block &b : blocks) {
    // The candidates from a different one for each block, so that ties spread the blocks
    // (from the first every time, all of A's blocks of a depth pair went to column blocks 0
    // and 1, whose pairs then had no room left for B's).
    const std::size_t candidates = b.a ? p.pn : p.pm, start = (b.gi + b.i + b.ki) % candidates;
    unsigned best = 0;
    for (std::size_t j = 0; j < candidates; ++j) {
      const std::size_t c = (start + j) % candidates;
      const unsigned t = b.a ? p.tile(b.gi, b.i, c, b.ki) : p.tile(b.gi, c, b.i, b.ki);
      if (j == 0 || pairLoad[t / 2] < pairLoad[best / 2]) best = t;
    }
    pairLoad[best / 2] += b.elements;
    (b.a ? p.aHome[(b.gi * p.pm + b.i) * p.pk + b.ki] : p.bHome[(b.gi * p.pn + b.i) * p.pk + b.ki]) = best;
  }
}

Plan makePlan(const std::string &op, const Target &target, std::size_t g, std::size_t m, std::size_t k,
              std::size_t n, const Type &inType, const Options &opts, const Kernel &kern) {
  const std::size_t numTiles = target.getNumTiles();
  const double inBytes = double(target.getTypeSize(inType));
  const double partialBytes = double(target.getTypeSize(opts.partialsType));
  const double exchange = target.getExchangeBytesPerCycle();
  const double budget = opts.availableMemoryProportion * target.getBytesPerTile();
  Plan best{};
  best.cycles = std::numeric_limits<double>::infinity();
  std::size_t smallest = std::numeric_limits<std::size_t>::max();
  std::vector<Plan> feasible;
  auto consider = [&](std::size_t pg, std::size_t pm, std::size_t pn, std::size_t pk) {
    Plan p{g,
           m,
           k,
           n,
           pg,
           pm,
           pn,
           pk,
           ceilDiv(g, pg),
           ceilDiv(m, pm),
           roundUp(ceilDiv(n, pn), kern.nAlign),
           roundUp(ceilDiv(k, pk), kern.kAlign),
           0,
           0,
           kern.amp,
           {},
           {}};
    // Parts that leave a block empty are the same plan as fewer parts.
    if ((p.gb * (pg - 1) >= g && g) || (p.mb * (pm - 1) >= m && m) || (p.nb * (pn - 1) >= n && n) ||
        (p.kb * (pk - 1) >= k && k))
      return;
    if (m - p.mb * (pm - 1) < kern.minRows || p.nb > kern.maxRow || p.kb > kern.maxRow) return;
    const double aBlock = double(p.gb) * p.mb * p.kb * inBytes, bBlock = double(p.gb) * p.kb * p.nb * inBytes;
    const double partials = double(p.gb) * p.mb * p.nb * partialBytes;
    // Memory: the gathered operand blocks, the partials and, with a split depth, the reduction's
    // copy of them; the AMP's weights also pass through their reordering (twice the block).
    const double output = opts.countOutput ? double(p.gb) * p.mb * p.nb * inBytes : 0;
    const double bytes = aBlock + bBlock * (kern.amp ? 3 : 1) + partials * (pk > 1 ? 2 : 1) + output;
    smallest = std::min(smallest, std::size_t(bytes));
    if (bytes > budget) return;
    // Cycles: the block's kernel, the operand blocks received (every tile but one of those
    // sharing a block receives it), the partials sent to the output's tiles and their sum there.
    // Blocks and partials travel as 64-bit items, twice the exchange's bytes a cycle
    // (ExchangeSchedule.h), a receiver taking one a cycle; in the partials' all-to-all a tile
    // sends all but its own share, and the two tiles of a pair share one transmit lane. (At the
    // 32-bit rate, and each tile's partials counted twice, the model put the 1024^3 half product
    // at 36.0 k cycles with 11 x 16 x 8 and 36.2 k with 9 x 32 x 5, which measure 28,609 and
    // 27,722; now 26.4 k for the second, its choice, and 27.5 k for the first.)
    const double in = (pn > 1 ? aBlock : 0) + (pm > 1 ? bBlock : 0), wide = 2 * exchange;
    const double lane = 2 * partials * double(pk - 1) / double(pk);
    p.cycles = double(p.gb) * kern.cycles(p.mb, p.kb, p.nb) + in / wide + (pk > 1 ? lane / wide + sumCycles(p, partialBytes) : 0);
    p.bytesPerTile = std::size_t(bytes);
    feasible.push_back(p);
    if (p.cycles < best.cycles || (p.cycles == best.cycles && p.tiles() < best.tiles())) best = p;
  };
  for (std::size_t pg = 1; pg <= std::min(g ? g : 1, numTiles); ++pg)
    for (std::size_t pm = 1; pm <= std::min(m ? m : 1, numTiles / pg); ++pm)
      for (std::size_t pn = 1; pn <= std::min(n ? n : 1, numTiles / (pg * pm)); ++pn)
        for (std::size_t pk = 1; pk <= std::min(k ? k : 1, numTiles / (pg * pm * pn)); ++pk) consider(pg, pm, pn, pk);
  // What the model leaves out costs about the same on every tile a plan uses (a vertex's start,
  // its share of the exchange code, and what follows the product: an output of one element a
  // tile makes every later operation on it gather from hundreds of tiles). Of the plans within
  // kTileSlack cycles of the fastest, the one on the fewest tiles: a small product (MNIST's
  // [40 x 256] x [256 x 10]) then stays on tens of tiles, a large one is unchanged.
  const double kTileSlack = 150;
  for (const Plan &p : feasible)
    if (p.cycles <= best.cycles + kTileSlack && p.tiles() < best.tiles()) best = p;
  if (best.cycles == std::numeric_limits<double>::infinity())
    fail(op, "no plan fits in availableMemoryProportion " + [&] {
      std::ostringstream v;
      v << opts.availableMemoryProportion;
      return v.str();
    }() + " of a tile's " +
                 std::to_string(target.getBytesPerTile()) + " bytes: the smallest needs " + std::to_string(smallest) +
                 " bytes a tile on " + std::to_string(numTiles) + " tiles");
  placeOperands(best);
  return best;
}

/// The plan for the AMP where it applies and a plan fits, else for the C++ vertex. Where no AMP
/// plan fits availableMemoryProportion, the proportion is doubled until one fits, as poplin's
/// planner does ([F] poplibs ConvPlan.cpp: "unable to meet memory target", then retries
/// "doubling temp memory"), up to kRelaxedProportion of the tile with the output block counted
/// too (the rest of a tile's memory: code, stacks, buffers), so that what is chosen still fits:
/// a large product stays on the AMP (poplibs' GEMM benchmark 1000 x 512 x 20,000 had gone to the
/// vector unit at 0.6, 36.5 M cycles against 0.30 M), one that needs more takes the vector unit.
Plan choosePlan(const std::string &op, const Target &target, std::size_t g, std::size_t m, std::size_t k,
                std::size_t n, const Type &inType, const Options &opts, bool aTransposed) {
  const double kRelaxedProportion = 0.95;
  const Kernel kern = chooseKernel(inType, opts.partialsType, m, k, n, aTransposed);
  if (kern.amp) {
    Options relaxed = opts;
    for (;;) {
      try {
        return makePlan(op, target, g, m, k, n, inType, relaxed, kern);
      } catch (const poplar_error &) {
        // No AMP plan fits (its blocks are aligned to the AMP's chunks): more memory, or past
        // the bound the vector unit's plan may.
      }
      if (relaxed.availableMemoryProportion >= kRelaxedProportion || relaxed.availableMemoryProportion <= 0) break;
      relaxed.availableMemoryProportion = std::min(kRelaxedProportion, 2 * relaxed.availableMemoryProportion);
      relaxed.countOutput = true;
    }
  }
  Kernel vector{false, {inType, opts.partialsType}};
  vector.accBytes = target.getTypeSize(opts.partialsType);
  return makePlan(op, target, g, m, k, n, inType, opts, vector);
}

// ---- the vertex -------------------------------------------------------------------------------


std::string cType(const Type &t) {
  if (t == FLOAT) return "float";
  if (t == HALF) return "half";
  if (t == INT) return "int";
  return "";
}

// out[r][c] = sum over d of a[r][d] b[d][c], accumulated in out (the accumulator type): both
// operand blocks are gathered row-major as they are laid out (rows of contiguous elements), and
// each row of the output is a running sum of rows of b scaled by a's elements, so the inner
// loop walks b and out forwards (two multiply-adds a step with float2 when the row length is
// even). Rows go to the workers in turn; `workers` is 1 when two rows could share a word.
// An operand that is a transposed view of a row-major tensor (aT: a is [depth][rows]; bT: b is
// [cols][depth]) is gathered as its rows lie in memory and indexed transposed, so the exchange
// moves whole rows rather than single elements.
std::string matMulVertex(Graph &graph, const Type &in, const Type &acc, bool aT, bool bT) {
  const std::string I = cType(in), A = cType(acc);
  std::ostringstream body;
  // Pointers walk the operands (no index arithmetic a step) and the float2 test is made once a
  // row, not once a depth step: the loop the plan's cost model measures.
  body << "  poplar::Input<poplar::Vector<" << I << ", poplar::VectorLayout::ONE_PTR, 8>> a;\n"
       << "  poplar::Input<poplar::Vector<" << I << ", poplar::VectorLayout::ONE_PTR, 8>> b;\n"
       << "  poplar::Output<poplar::Vector<" << A << ", poplar::VectorLayout::SPAN, 8>> out;\n"
       << "  unsigned cols;\n  unsigned depth;\n  unsigned workers;\n"
       << "  void compute(unsigned wid) {\n"
       << "    const unsigned rows = out.size() / cols;\n"
       << "    for (unsigned r = wid; r < rows && wid < workers; r += workers) {\n"
       << "      " << A << " *o = &out[r * cols];\n"
       << "      for (unsigned c = 0; c < cols; ++c) o[c] = 0;\n"
       << "      const " << I << " *x = &a[" << (aT ? "r" : "r * depth") << "];\n"
       << "      const unsigned xStep = " << (aT ? "rows" : "1") << ";\n";
  if (bT) {
    body << "      for (unsigned d = 0; d < depth; ++d, x += xStep) {\n"
         << "        const " << A << " s = static_cast<" << A << ">(*x);\n"
         << "        const " << I << " *y = &b[d];\n"
         << "        for (unsigned c = 0; c < cols; ++c, y += depth) o[c] += s * static_cast<" << A << ">(*y);\n"
         << "      }\n    }\n  }\n};\n";
  } else {
    body << "      const " << I << " *y = &b[0];\n";
    if (in == FLOAT && acc == FLOAT)
      body << "      if ((cols & 1) == 0) {\n"
           << "        float2 *o2 = reinterpret_cast<float2 *>(o);\n"
           << "        const unsigned pairs = cols / 2;\n"
           << "        for (unsigned d = 0; d < depth; ++d, x += xStep, y += cols) {\n"
           << "          const float2 s2 = {*x, *x};\n"
           << "          const float2 *y2 = reinterpret_cast<const float2 *>(y);\n"
           << "          for (unsigned c = 0; c < pairs; ++c) o2[c] += s2 * y2[c];\n"
           << "        }\n"
           << "        continue;\n"
           << "      }\n";
    body << "      for (unsigned d = 0; d < depth; ++d, x += xStep, y += cols) {\n"
         << "        const " << A << " s = static_cast<" << A << ">(*x);\n"
         << "        for (unsigned c = 0; c < cols; ++c) o[c] += s * static_cast<" << A << ">(y[c]);\n"
         << "      }\n    }\n  }\n};\n";
  }
  return ipusim::sdk::addGeneratedVertex(graph, "ipusim_poplin_MatMul", "poplar::MultiVertex",
                                         "#include <poplar/Vertex.hpp>\n#include <ipudef.h>\n", body.str());
}

// ---- the product ------------------------------------------------------------------------------

struct Shapes {
  std::size_t g, m, k, n;
};

Shapes checkShapes(const std::string &op, const std::vector<std::size_t> &a, const std::vector<std::size_t> &b,
                   bool grouped) {
  const std::size_t rank = grouped ? 3 : 2;
  if (a.size() != rank) fail(op, "A must have rank " + std::to_string(rank) + ", its shape is " + shapeString(a));
  if (b.size() != rank) fail(op, "B must have rank " + std::to_string(rank) + ", its shape is " + shapeString(b));
  if (grouped && a[0] != b[0])
    fail(op, "A has " + std::to_string(a[0]) + " groups and B " + std::to_string(b[0]) + " (shapes " + shapeString(a) +
                 " and " + shapeString(b) + ")");
  const std::size_t o = grouped ? 1 : 0;
  if (a[o + 1] != b[o])
    fail(op, "A's columns (" + std::to_string(a[o + 1]) + ") must equal B's rows (" + std::to_string(b[o]) +
                 "): shapes " + shapeString(a) + " and " + shapeString(b));
  return {grouped ? a[0] : 1, a[o], a[o + 1], b[o + 1]};
}

void checkTypes(const std::string &op, const Type &a, const Type &b) {
  if (a != b) fail(op, "A is " + a.toString() + " and B is " + b.toString() + ": they must have one type");
  if (a != FLOAT && a != HALF) fail(op, "A and B must be float or half, not " + a.toString());
}

// The AMP's weights for B (grouped, [g][k][n]): returns weights(g, n0, n1, k0, k1), the chunks of
// that block of B in the order the product vertex loads them (column chunks, then depth chunks;
// each chunk 16 (or 8) rows of C, row r holding the output column amp::Form::rowOfOutput maps to r). A B that
// is a transposed view of a row-major [n][k] tensor, or one createMatMulInputRHS made for the AMP,
// has its chunks' rows in memory already: they are gathered as they lie. Otherwise a compute set
// reorders each chunk on one of the tiles that multiply it.
std::function<Tensor(std::size_t, std::size_t, std::size_t, std::size_t, std::size_t)>
weightChunks(Graph &graph, const Plan &plan, const amp::Form &form, const Tensor &B, bool bT, program::Sequence &prog,
             const std::string &name) {
  const Type type = B.elementType();
  const std::size_t C = form.inputs(), O = form.outputs();
  // B's columns lie in memory as rows when B is a transposed view or was made by
  // createMatMulInputRHS for the AMP (whose chunks are then whole in memory).
  const bool rowsLie = bT || B[0].transpose()[0].slice(0, C).isContiguous();
  if (rowsLie) {
    // All of B as [g][column chunk][depth chunk][output][input], outputs in row order, made
    // once (a view of B) and cut per group, so each block's chunks are a slice of a slice.
    const Tensor ordered =
        form.inRowOrder(B.reshape({plan.g, plan.k / C, C, plan.n / O, O}).dimShuffle({0, 3, 1, 4, 2}), 3);
    std::vector<Tensor> groups;
    for (std::size_t gg = 0; gg < plan.g; ++gg) groups.push_back(ordered[gg]);
    return [groups, C, O](std::size_t gg, std::size_t n0, std::size_t n1, std::size_t k0, std::size_t k1) {
      return groups[gg].slice(n0 / O, n1 / O).slice(k0 / C, k1 / C, 1).flatten();
    };
  }
  const std::size_t G = plan.g, NC = plan.n / O, KC = plan.k / C;
  Tensor w = graph.addVariable(type, {G, NC, KC, O * C}, name + "/weights");
  const std::string vertex = amp::weightsVertex(graph, form);
  ComputeSet cs = graph.addComputeSet(name + "/weights");
  for (std::size_t gi = 0; gi < plan.pg; ++gi)
    for (std::size_t ni = 0; ni < plan.pn; ++ni)
      for (std::size_t ki = 0; ki < plan.pk; ++ki) {
        const auto [g0, g1] = plan.groups(gi);
        const auto [n0, n1] = plan.cols(ni);
        const auto [k0, k1] = plan.depth(ki);
        if (g0 >= g1 || n0 >= n1 || k0 >= k1) continue;
        // The block's chunks are shared out over the tiles that multiply it (its row blocks).
        for (std::size_t gg = g0; gg < g1; ++gg) {
          std::vector<std::vector<Tensor>> src(plan.pm), dst(plan.pm);
          std::size_t at = 0;
          for (std::size_t nc = n0 / O; nc < n1 / O; ++nc)
            for (std::size_t kc = k0 / C; kc < k1 / C; ++kc, ++at) {
              const std::size_t mi = at % plan.pm;
              src[mi].push_back(B[gg].slice({kc * C, nc * O}, {kc * C + C, nc * O + O}).flatten());
              dst[mi].push_back(w[gg][nc][kc]);
              graph.setTileMapping(w[gg][nc][kc], plan.tile(gi, mi, ni, ki));
            }
          for (std::size_t mi = 0; mi < plan.pm; ++mi) {
            if (dst[mi].empty()) continue;
            VertexRef v = graph.addVertex(cs, vertex);
            graph.connect(v["b"], concat(src[mi]));
            graph.connect(v["w"], concat(dst[mi]));
            graph.setInitialValue(v["chunks"], unsigned(dst[mi].size()));
            graph.setTileMapping(v, plan.tile(gi, mi, ni, ki));
          }
        }
      }
  prog.add(program::Execute(cs));
  return [w, C, O](std::size_t gg, std::size_t n0, std::size_t n1, std::size_t k0, std::size_t k1) {
    std::vector<Tensor> chunks;
    for (std::size_t nc = n0 / O; nc < n1 / O; ++nc) chunks.push_back(w[gg][nc].slice(k0 / C, k1 / C).flatten());
    return concat(chunks);
  };
}

/// A dimension of the product, for blockTensor.
enum class Dim { Rows, Depth, Cols };

// A [g][rows][cols] tensor made of one variable per block of the plan (rows and cols each the
// product's rows, depth or columns: [g][m][n] for outputs, [g][m][k] for A, [g][k][n] for B), so
// that a block lies together on its tile (as the block vertices read and write it);
// `place(gi, row block, column block, block)` maps each.
Tensor blockTensor(Graph &graph, const Type &type, const Plan &plan, const std::string &name,
                   const std::function<void(std::size_t, std::size_t, std::size_t, const Tensor &)> &place,
                   Dim rowDim = Dim::Rows, Dim colDim = Dim::Cols) {
  auto extent = [&](Dim d) {
    return d == Dim::Rows ? std::make_pair(plan.m, plan.mb) : d == Dim::Depth ? std::make_pair(plan.k, plan.kb)
                                                                             : std::make_pair(plan.n, plan.nb);
  };
  const auto [rows, rowBlock] = extent(rowDim);
  const auto [columns, colBlock] = extent(colDim);
  std::vector<Tensor> groups;
  for (std::size_t gi = 0; gi * plan.gb < plan.g; ++gi) {
    const auto [g0, g1] = plan.groups(gi);
    std::vector<Tensor> rowBlocks;
    for (std::size_t ri = 0; ri * rowBlock < rows; ++ri) {
      const auto [r0, r1] = Plan::range(ri, rowBlock, rows);
      std::vector<Tensor> cols;
      for (std::size_t ci = 0; ci * colBlock < columns; ++ci) {
        const auto [c0, c1] = Plan::range(ci, colBlock, columns);
        Tensor block = graph.addVariable(type, {g1 - g0, r1 - r0, c1 - c0}, name);
        place(gi, ri, ci, block);
        cols.push_back(block);
      }
      rowBlocks.push_back(concat(cols, 2));
    }
    groups.push_back(concat(rowBlocks, 1));
  }
  return concat(groups, 0);
}

// Maps the output's block (gi, mi, ni): on the block's tile or, with the depth split, shared out
// over the tiles of its depth blocks, so that summing the partials is spread over them (each
// receives about one block's worth of partials) rather than gathered on one tile.
void mapOutputBlock(Graph &graph, const Plan &plan, const Tensor &block, std::size_t gi, std::size_t mi,
                    std::size_t ni) {
  const Tensor flat = block.flatten();
  const std::size_t parts = std::min(plan.pk, ceilDiv(plan.k, plan.kb));
  const std::size_t share = roundUp(ceilDiv(flat.numElements(), parts), 4);
  for (std::size_t p = 0; p < parts && p * share < flat.numElements(); ++p)
    graph.setTileMapping(flat.slice(p * share, std::min(flat.numElements(), (p + 1) * share)), plan.tile(gi, mi, ni, p));
}

bool transposedView(const Tensor &t) { return !t[0].isContiguous() && t[0].transpose().isContiguous(); }

// The output [g][m][n] of a product of [g][m][k] by [g][k][n] laid out for the plan multiply
// will make: a variable a block.
Tensor createOutput(Graph &graph, const std::string &op, const Shapes &s, const Type &inType, bool aTransposed,
                    const Type &type, const OptionFlags &flags, const std::string &name) {
  const Options opts = parseOptions(op, flags);
  if (s.g * s.m * s.n == 0 || s.k == 0) return graph.addVariable(type, {s.g, s.m, s.n}, name);
  const Plan plan = choosePlan(op, graph.getTarget(), s.g, s.m, s.k, s.n, inType, opts, aTransposed);
  return blockTensor(graph, type, plan, name, [&](std::size_t gi, std::size_t mi, std::size_t ni, const Tensor &block) {
    mapOutputBlock(graph, plan, block, gi, mi, ni);
  });
}

Tensor createOutput(Graph &graph, const std::string &op, const Tensor &A, const Tensor &B, const Type &type,
                    const OptionFlags &flags, const std::string &name) {
  const Shapes s = checkShapes(op, A.shape(), B.shape(), true);
  checkTypes(op, A.elementType(), B.elementType());
  return createOutput(graph, op, s, A.elementType(), transposedView(A), type, flags, name);
}

// C[g] = A[g] B[g] written into out (grouped shapes, rank 3).
void multiply(Graph &graph, const std::string &op, const Tensor &A, const Tensor &B, const Tensor &out,
              program::Sequence &prog, const DebugContext &dc, const OptionFlags &flags) {
  const Options opts = parseOptions(op, flags);
  const Shapes s = checkShapes(op, A.shape(), B.shape(), true);
  checkTypes(op, A.elementType(), B.elementType());
  if (out.shape() != std::vector<std::size_t>{s.g, s.m, s.n})
    fail(op, "the output has shape " + shapeString(out.shape()) + "; the product's is " +
                 shapeString({s.g, s.m, s.n}));
  if (out.elementType() != FLOAT && out.elementType() != HALF)
    fail(op, "the output must be float or half, not " + out.elementType().toString());
  const std::string name = dc.getPathName().empty() ? op : dc.getPathName();
  if (s.g * s.m * s.n == 0) return;
  if (s.k == 0) {
    popops::zero(graph, out, prog, name);
    return;
  }
  const Type acc = opts.partialsType;
  // Operands that are transposed views of row-major tensors are gathered untransposed.
  const bool aT = transposedView(A), bT = transposedView(B);
  const Plan plan = choosePlan(op, graph.getTarget(), s.g, s.m, s.k, s.n, A.elementType(), opts, aT);
  const std::string vertex =
      plan.amp ? amp::productVertex(graph, {A.elementType(), acc}) : matMulVertex(graph, A.elementType(), acc, aT, bT);
  // The AMP's weights: B's blocks in chunks of 16 columns by C rows, each chunk's columns as rows
  // in the AMP's engine order (weightChunks).
  std::function<Tensor(std::size_t, std::size_t, std::size_t, std::size_t, std::size_t)> weights;
  if (plan.amp) weights = weightChunks(graph, plan, {A.elementType(), acc}, B, bT, prog, name);
  // The blocks write partial sums in the accumulator type: straight into the output when the
  // depth is not split and the types agree, else into partials that popops sums (over the
  // depth) or converts.
  const bool direct = plan.pk == 1 && out.elementType() == acc;
  Tensor partials;
  // Each depth part's blocks by tile, for the block vertices' outputs (slicing the assembled view
  // per block would copy all its regions each time).
  std::map<unsigned, Tensor> partialBlock;
  if (!direct) {
    std::vector<Tensor> depthParts;
    for (std::size_t ki = 0; ki < plan.pk; ++ki)
      depthParts.push_back(blockTensor(graph, acc, plan, name + "/partials", [&](std::size_t gi, std::size_t mi,
                                                                                 std::size_t ni, const Tensor &block) {
                             const unsigned tile = plan.tile(gi, mi, ni, ki);
                             graph.setTileMapping(block, tile);
                             partialBlock[tile] = block;
                           }).expand({0}));
    partials = concat(depthParts);
  }
  // The output is placed by the plan unless the caller mapped it.
  bool outMapped = false;
  graph.getTileMapping(out, &outMapped);
  const unsigned accBytes = unsigned(graph.getTarget().getTypeSize(acc));
  ComputeSet cs = graph.addComputeSet(name);
  for (std::size_t gi = 0; gi < plan.pg; ++gi)
    for (std::size_t mi = 0; mi < plan.pm; ++mi)
      for (std::size_t ni = 0; ni < plan.pn; ++ni)
        for (std::size_t ki = 0; ki < plan.pk; ++ki) {
          const auto [g0, g1] = plan.groups(gi);
          const auto [m0, m1] = plan.rows(mi);
          const auto [n0, n1] = plan.cols(ni);
          const auto [k0, k1] = plan.depth(ki);
          if (g0 >= g1 || m0 >= m1 || n0 >= n1 || k0 >= k1) continue;
          const unsigned tile = plan.tile(gi, mi, ni, ki);
          // The block's output: [groups][rows][cols] of this tile.
          const Tensor dst = direct ? out.slice({g0, m0, n0}, {g1, m1, n1}) : partialBlock.at(tile);
          if (ki == 0 && !outMapped) mapOutputBlock(graph, plan, out.slice({g0, m0, n0}, {g1, m1, n1}), gi, mi, ni);
          for (std::size_t gg = g0; gg < g1; ++gg) {
            VertexRef v = graph.addVertex(cs, vertex);
            if (plan.amp) {
              amp::connectProduct(graph, v, tile, A[gg].slice({m0, k0}, {m1, k1}).flatten(), weights(gg, n0, n1, k0, k1),
                                  dst[gg - g0].flatten(), m1 - m0, k1 - k0, n1 - n0, {0});
              continue;
            }
            const Tensor a = A[gg].slice({m0, k0}, {m1, k1}), b = B[gg].slice({k0, n0}, {k1, n1});
            graph.connect(v["a"], (aT ? a.transpose() : a).flatten());
            graph.connect(v["b"], (bT ? b.transpose() : b).flatten());
            graph.connect(v["out"], dst[gg - g0].flatten());
            graph.setInitialValue(v["cols"], unsigned(n1 - n0));
            graph.setInitialValue(v["depth"], unsigned(k1 - k0));
            graph.setInitialValue(v["workers"], (n1 - n0) * accBytes % 4 ? 1u : 6u);
            graph.setTileMapping(v, tile);
          }
        }
  prog.add(program::Execute(cs));
  if (plan.pk > 1) {
    if (out.elementType() == acc) {
      detail::sumPartials(graph, partials, out, prog, name + "/reduce");
    } else {
      Tensor sum = graph.clone(acc, out, name + "/sum");
      detail::sumPartials(graph, partials, sum, prog, name + "/reduce");
      popops::cast(graph, sum, out, prog, name + "/cast");
    }
  } else if (!direct) {
    popops::cast(graph, partials[0], out, prog, name + "/cast");
  }
}

Tensor createOperand(Graph &graph, const std::string &op, const Type &type, const std::vector<std::size_t> &aShape,
                     const std::vector<std::size_t> &bShape, bool grouped, bool lhs, const DebugContext &dc,
                     const OptionFlags &flags) {
  const Options opts = parseOptions(op, flags);
  const Shapes s = checkShapes(op, aShape, bShape, grouped);
  if (type != FLOAT && type != HALF) fail(op, "the input type must be float or half, not " + type.toString());
  const std::string name = dc.getPathName().empty() ? op : dc.getPathName();
  const Plan p = s.k && s.g ? choosePlan(op, graph.getTarget(), s.g, s.m, s.k, s.n, type, opts, false) : Plan{};
  if (!lhs && p.amp) {
    // The AMP's weight order: chunks [g][n/16][k/C] of 16 rows (output columns in the order of
    // amp::Form::rowOfOutput) by C; each block's chunks a variable of its own on its home
    // (placeOperands), so that the product vertex on the home reads them where they lie (in one
    // variable of the whole, a block of a split depth would be strided, and gathered by a copy
    // on the home first); the user sees the [g][k][n] view.
    const amp::Form form{type, opts.partialsType};
    const std::size_t C = form.inputs(), O = form.outputs();
    std::vector<Tensor> groups;
    for (std::size_t gi = 0; gi * p.gb < s.g; ++gi) {
      const auto [g0, g1] = p.groups(gi);
      std::vector<Tensor> cols;
      for (std::size_t ni = 0; ni * p.nb < s.n; ++ni) {
        const auto [n0, n1] = p.cols(ni);
        std::vector<Tensor> depth;
        for (std::size_t ki = 0; ki * p.kb < s.k; ++ki) {
          const auto [k0, k1] = p.depth(ki);
          Tensor block = graph.addVariable(type, {g1 - g0, (n1 - n0) / O, (k1 - k0) / C, O, C}, name);
          graph.setTileMapping(block, p.bTile(gi, ni, ki));
          depth.push_back(block);
        }
        cols.push_back(concat(depth, 2));
      }
      groups.push_back(concat(cols, 1));
    }
    const Tensor w = concat(groups, 0);
    Tensor t = form.inOutputOrder(w, 3).dimShuffle({0, 2, 4, 1, 3}).reshape({s.g, s.k, s.n});
    return grouped ? t : t[0];
  }
  if (lhs && s.k && s.g && s.m) {
    // Each block a variable of its own on its home (placeOperands); the user sees the
    // [g][m][k] view.
    Tensor t = blockTensor(
        graph, type, p, name,
        [&](std::size_t gi, std::size_t mi, std::size_t ki, const Tensor &block) {
          graph.setTileMapping(block, p.aTile(gi, mi, ki));
        },
        Dim::Rows, Dim::Depth);
    return grouped ? t : t[0];
  }
  if (!lhs && s.k && s.g && s.n) {
    // The vector unit's right operand: each [depth block][column block] a variable of its own
    // on its home (placeOperands) (a block of a row-major whole would be a column strip,
    // a region a row, for every operation on the tensor to visit).
    Tensor t = blockTensor(
        graph, type, p, name,
        [&](std::size_t gi, std::size_t ki, std::size_t ni, const Tensor &block) {
          graph.setTileMapping(block, p.bTile(gi, ni, ki));
        },
        Dim::Depth, Dim::Cols);
    return grouped ? t : t[0];
  }
  Tensor t = graph.addVariable(type, lhs ? std::vector<std::size_t>{s.g, s.m, s.k} : std::vector<std::size_t>{s.g, s.k, s.n},
                               name);
  poputil::mapTensorLinearly(graph, t);
  return grouped ? t : t[0];
}

} // namespace

Tensor detail::createProductOutput(Graph &graph, const Type &inputType, const Type &outputType, std::size_t g,
                                   std::size_t m, std::size_t k, std::size_t n, const OptionFlags &options,
                                   const std::string &name) {
  return createOutput(graph, "poplin::matMulGrouped", Shapes{g, m, k, n}, inputType, false, outputType, options, name);
}

void matMulGroupedWithOutput(Graph &graph, const Tensor &A, const Tensor &B, Tensor &out, program::Sequence &prog,
                             const DebugContext &debugContext, const OptionFlags &options, PlanningCache *) {
  multiply(graph, "poplin::matMulGrouped", A, B, out, prog, debugContext, options);
}

Tensor matMulGrouped(Graph &graph, const Tensor &A, const Tensor &B, program::Sequence &prog, const Type &outputType,
                     const DebugContext &debugContext, const OptionFlags &options, PlanningCache *cache) {
  Tensor out = createOutput(graph, "poplin::matMulGrouped", A, B, outputType, options,
                            debugContext.getPathName().empty() ? "poplin::matMulGrouped" : debugContext.getPathName());
  matMulGroupedWithOutput(graph, A, B, out, prog, debugContext, options, cache);
  return out;
}

void matMulWithOutput(Graph &graph, const Tensor &A, const Tensor &B, Tensor &out, program::Sequence &prog,
                      const DebugContext &debugContext, const OptionFlags &options, PlanningCache *) {
  const std::string op = "poplin::matMul";
  checkShapes(op, A.shape(), B.shape(), false);
  if (out.rank() != 2) fail(op, "the output must have rank 2, its shape is " + shapeString(out.shape()));
  multiply(graph, op, A.expand({0}), B.expand({0}), out.expand({0}), prog, debugContext, options);
}

Tensor matMul(Graph &graph, const Tensor &A, const Tensor &B, program::Sequence &prog, const Type &outputType,
              const DebugContext &debugContext, const OptionFlags &options, PlanningCache *cache) {
  const std::string op = "poplin::matMul";
  checkShapes(op, A.shape(), B.shape(), false);
  Tensor out = createOutput(graph, op, A.expand({0}), B.expand({0}), outputType, options,
                            debugContext.getPathName().empty() ? op : debugContext.getPathName())[0];
  matMulWithOutput(graph, A, B, out, prog, debugContext, options, cache);
  return out;
}

Tensor matMul(Graph &graph, const Tensor &A, const Tensor &B, program::Sequence &prog, const DebugContext &debugContext,
              const OptionFlags &options, PlanningCache *cache) {
  return matMul(graph, A, B, prog, A.elementType(), debugContext, options, cache);
}

namespace {
void reportPlan(std::ostream &os, const std::string &op, const Graph &graph, const Type &inputType,
                const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape, bool grouped,
                const OptionFlags &options) {
  const Shapes s = checkShapes(op, aShape, bShape, grouped);
  os << choosePlan(op, graph.getTarget(), s.g, s.m, s.k, s.n, inputType, parseOptions(op, options), false).str()
     << "\n";
}
} // namespace

void matMulReportPlan(std::ostream &out, const Graph &graph, const Type &inputType, const Type &,
                      const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape,
                      const OptionFlags &options, PlanningCache *) {
  reportPlan(out, "poplin::matMul", graph, inputType, aShape, bShape, false, options);
}

void matMulGroupedReportPlan(std::ostream &out, const Graph &graph, const Type &inputType, const Type &,
                             const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape,
                             const OptionFlags &options, PlanningCache *) {
  reportPlan(out, "poplin::matMulGrouped", graph, inputType, aShape, bShape, true, options);
}

Tensor transposeGroupedMatrix(const Tensor &A) {
  if (A.rank() != 3)
    fail("poplin::transposeGroupedMatrix", "A must have rank 3 ([groups][rows][columns]), its shape is " + shapeString(A.shape()));
  return A.dimShufflePartial({1, 2}, {2, 1});
}

void matMulAcc(Graph &graph, const Tensor &C, float k, const Tensor &A, const Tensor &B, program::Sequence &prog,
               const DebugContext &debugContext, const OptionFlags &options, PlanningCache *cache) {
  Tensor product = matMul(graph, A, B, prog, C.elementType(), debugContext, options, cache);
  popops::scaledAddTo(graph, C, product, k, prog, debugContext);
}

void matMulAcc(Graph &graph, const Tensor &C, const Tensor &k, const Tensor &A, const Tensor &B,
               program::Sequence &prog, const DebugContext &debugContext, const OptionFlags &options,
               PlanningCache *cache) {
  Tensor product = matMul(graph, A, B, prog, C.elementType(), debugContext, options, cache);
  popops::scaledAddTo(graph, C, product, k, prog, debugContext);
}

void matMulGroupedAcc(Graph &graph, const Tensor &C, float k, const Tensor &A, const Tensor &B,
                      program::Sequence &prog, const DebugContext &debugContext, const OptionFlags &options,
                      PlanningCache *cache) {
  Tensor product = matMulGrouped(graph, A, B, prog, C.elementType(), debugContext, options, cache);
  popops::scaledAddTo(graph, C, product, k, prog, debugContext);
}

void matMulGroupedAcc(Graph &graph, const Tensor &C, const Tensor &k, const Tensor &A, const Tensor &B,
                      program::Sequence &prog, const DebugContext &debugContext, const OptionFlags &options,
                      PlanningCache *cache) {
  Tensor product = matMulGrouped(graph, A, B, prog, C.elementType(), debugContext, options, cache);
  popops::scaledAddTo(graph, C, product, k, prog, debugContext);
}

Tensor createMatMulInputLHS(Graph &graph, const Type &inputType, const Type &, const std::vector<std::size_t> &aShape,
                            const std::vector<std::size_t> &bShape, const DebugContext &debugContext,
                            const OptionFlags &options, PlanningCache *) {
  return createOperand(graph, "poplin::createMatMulInputLHS", inputType, aShape, bShape, false, true, debugContext,
                       options);
}
Tensor createMatMulInputLHS(Graph &graph, const Type &dataType, const std::vector<std::size_t> &aShape,
                            const std::vector<std::size_t> &bShape, const DebugContext &debugContext,
                            const OptionFlags &options, PlanningCache *cache) {
  return createMatMulInputLHS(graph, dataType, dataType, aShape, bShape, debugContext, options, cache);
}
Tensor createMatMulInputRHS(Graph &graph, const Type &inputType, const Type &, const std::vector<std::size_t> &aShape,
                            const std::vector<std::size_t> &bShape, const DebugContext &debugContext,
                            const OptionFlags &options, PlanningCache *) {
  return createOperand(graph, "poplin::createMatMulInputRHS", inputType, aShape, bShape, false, false, debugContext,
                       options);
}
Tensor createMatMulInputRHS(Graph &graph, const Type &dataType, const std::vector<std::size_t> &aShape,
                            const std::vector<std::size_t> &bShape, const DebugContext &debugContext,
                            const OptionFlags &options, PlanningCache *cache) {
  return createMatMulInputRHS(graph, dataType, dataType, aShape, bShape, debugContext, options, cache);
}
Tensor createMatMulGroupedInputLHS(Graph &graph, const Type &inputType, const Type &,
                                   const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape,
                                   const DebugContext &debugContext, const OptionFlags &options, PlanningCache *) {
  return createOperand(graph, "poplin::createMatMulGroupedInputLHS", inputType, aShape, bShape, true, true,
                       debugContext, options);
}
Tensor createMatMulGroupedInputRHS(Graph &graph, const Type &inputType, const Type &,
                                   const std::vector<std::size_t> &aShape, const std::vector<std::size_t> &bShape,
                                   const DebugContext &debugContext, const OptionFlags &options, PlanningCache *) {
  return createOperand(graph, "poplin::createMatMulGroupedInputRHS", inputType, aShape, bShape, true, false,
                       debugContext, options);
}

} // namespace poplin
