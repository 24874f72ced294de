// popops' transposes of many small matrices (docs/popops.md "Transposes"): one vertex a tile
// transposes the matrices that tile holds. Half matrices whose sides are multiples of 4 and float
// ones with even sides run in assembly, a 4 x 4 (2 x 2) block at a time; the others run a C++
// vertex whose six workers split the output into whole output rows (or whole matrices, or one
// worker, when rows would share a 32-bit word: sub-word stores are read-modify-write). The
// matrices' elements reach the vertex as its fields; the graph compiler brings those held
// elsewhere through the exchange.
#include "../sdk/Asm.hpp"
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

// The assembly transpose of half (float) matrices with sides multiples of g = 4 (2), as poplibs'
// transpose vertices do it ([F] poplibs' transpose assembly: sort4x16lo/hi, sort4x32lo/hi). The
// matrices lie one after another, so their rows stack into one [matrices x rows][cols] array
// whose g-row bands (k = 0, 1, ...) the six workers take in turn, worker w bands w, w + 6, ...
// A band is cols / g blocks of g x g, each read as 64-bit rows (ld64step down the rows, the last
// stepping back up to the next block) and written as its g columns. Float: rows r, r+1 give
// columns 0 and 1 as sort4x32lo and sort4x32hi, one 64-bit store each. Half (the ARF has eight
// registers, too few for a whole block and its columns): two rows at a time give the four
// columns' two halves each, sort4x16lo/hi of their words, one 32-bit store each, the second pair
// of rows 4 bytes on. In the output, band k of matrix m = k / R (R = rows / g) is columns
// g (k % R) ... of its transposed rows: 8 bytes further for each band, and a matrix's size less
// R such steps further at each new matrix. A half block takes 14 bundles for 16 elements, a
// float block 5 for 4; no bundle both loads and stores.
// State (words): src, dst, then the bands, R, blocks a band, a source row's 64-bit words, the
// step back up (1 - (g - 1) x that), an output row's 64-bit (float) or 32-bit (half) words and
// (half) the steps from the first pair's last store to the second pair's first (back up 3 rows,
// on 4 bytes) and from the block's last store to the next block's first, the bytes from a
// worker's band to its next (6 g source rows) and from a matrix's last band to the next
// matrix's first.
std::string transposeAsmVertex(Graph &graph, const Type &type) {
  const bool half = type == HALF;
  const std::string T = half ? "half" : "float";
  std::ostringstream b;
  b << "  poplar::Input<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR, 8>> src;\n"
    << "  poplar::Output<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR, 8>> dst;\n"
    << "  unsigned bands;\n  unsigned bandsPerMatrix;\n  unsigned blocksPerBand;\n  unsigned srcRowWords;\n"
    << "  int srcBack;\n  unsigned dstRowWords;\n  int dstBack;\n  int dstNext;\n  unsigned srcStep;\n"
    << "  unsigned matrixStep;\n"
    << "  static const bool isExternalCodelet = true;\n"
    << "  void compute(unsigned) {}\n};\n";
  const std::string preamble = std::string("#include <poplar/Vertex.hpp>\n// transpose, ") + (half ? "sort4x16" : "sort4x32") + "\n";
  return ipusim::sdk::addAsmVertex(graph, "ipusim_popops_TransposeBlocks", "poplar::MultiVertex", preamble, b.str(), "",
                                   [&](std::ostream &src, const std::string &name) {
    const std::string entry = "__runCodelet_" + name;
    const unsigned log2Band = half ? 5 : 4; // a band's source rows: g rows of 8 x srcRowWords bytes
    ipusim::sdk::emitEntry(src, entry, "worker", true);
    // $m1 k, $m2 the band's first source row, $m3 its first output word, $m4/$m5 the block's,
    // $m6 srcRowWords, $m7 srcBack, $m8 blocksPerBand, $m9 dstRowWords, $m10 k % R; in the
    // band (half) $m0 dstBack and $m11 dstNext, else scratch and R.
    src << "  get $m0, $WSR\n"
        << "  and $m1, $m0, CSR_W_WSR__CTXTID_M1__MASK\n"
        << "  ld32 $m0, $mvertex_base, 2\n"
        << "  cmpult $m0, $m1, $m0\n"
        << "  brz $m0, .Lexit\n"
        << "  ld32 $m6, $mvertex_base, 5\n"
        << "  ld32 $m7, $mvertex_base, 6\n"
        << "  ld32 $m8, $mvertex_base, 4\n"
        << "  ld32 $m9, $mvertex_base, 7\n"
        << "  mul $m2, $m1, $m6\n"
        << "  shl $m2, $m2, " << log2Band << "\n"
        << "  ld32 $m0, $mvertex_base, 0\n"
        << "  add $m2, $m2, $m0\n"
        << "  shl $m3, $m1, 3\n"
        << "  ld32 $m0, $mvertex_base, 1\n"
        << "  add $m3, $m3, $m0\n"
        << "  add $m10, $m1, 0\n"
        << ".Lwrap:\n" // while k % R is not below R: the next matrix
        << "  ld32 $m11, $mvertex_base, 3\n"
        << "  cmpult $m0, $m10, $m11\n"
        << "  brnz $m0, .Lband\n"
        << "  sub $m10, $m10, $m11\n"
        << "  ld32 $m0, $mvertex_base, 11\n"
        << "  add $m3, $m3, $m0\n"
        << "  bri .Lwrap\n"
        << ".Lband:\n"
        << "  add $m4, $m2, 0\n"
        << "  add $m5, $m3, 0\n";
    auto load = [](const char *pair, const char *step) {
      return std::string("ld64step ") + pair + ", $mzero, $m4+=, " + step;
    };
    if (half) {
      auto store = [](const char *reg, const char *step) {
        return std::string("st32step ") + reg + ", $mzero, $m5+=, " + step;
      };
      // Two rows: the four columns' halves from them, a 32-bit store each down the columns.
      auto pair = [&](const char *lastLoadStep, const char *lastStoreStep) {
        src << "  { " << load("$a0:1", "$m6") << " ; fnop }\n"
            << "  { " << load("$a2:3", lastLoadStep) << " ; fnop }\n"
            << "  { nop ; sort4x16lo $a4, $a0, $a2 }\n"
            << "  { " << store("$a4", "$m9") << " ; sort4x16hi $a5, $a0, $a2 }\n"
            << "  { " << store("$a5", "$m9") << " ; sort4x16lo $a6, $a1, $a3 }\n"
            << "  { " << store("$a6", "$m9") << " ; sort4x16hi $a7, $a1, $a3 }\n"
            << "  { " << store("$a7", lastStoreStep) << " ; fnop }\n";
      };
      src << "  ld32 $m0, $mvertex_base, 8\n"
          << "  ld32 $m11, $mvertex_base, 9\n"
          << "  .align 8\n"
          << "  { rpt $m8, 13 ; fnop }\n";
      pair("$m6", "$m0");
      pair("$m7", "$m11");
    } else {
      auto store = [](const char *p) { return std::string("st64step ") + p + ", $mzero, $m5+=, $m9"; };
      src << "  .align 8\n"
          << "  { rpt $m8, 4 ; fnop }\n"
          << "  { " << load("$a0:1", "$m6") << " ; fnop }\n"
          << "  { " << load("$a2:3", "$m7") << " ; fnop }\n"
          << "  { nop ; sort4x32lo $a4:5, $a0:1, $a2:3 }\n"
          << "  { " << store("$a4:5") << " ; sort4x32hi $a6:7, $a0:1, $a2:3 }\n"
          << "  { " << store("$a6:7") << " ; fnop }\n";
    }
    src << "  add $m1, $m1, 6\n" // the worker's next band
        << "  ld32 $m0, $mvertex_base, 2\n"
        << "  cmpult $m0, $m1, $m0\n"
        << "  brz $m0, .Lexit\n"
        << "  ld32 $m0, $mvertex_base, 10\n"
        << "  add $m2, $m2, $m0\n"
        << "  add $m10, $m10, 6\n"
        << "  add $m3, $m3, 48\n"
        << "  bri .Lwrap\n"
        << ".Lexit:\n  exitz $mzero\n";
    ipusim::sdk::emitEnd(src, entry);
  });
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
  const std::size_t bytes = graph.getTarget().getTypeSize(dType), size = std::size_t(rows) * cols;
  // Sides in whole 64-bit words: transposeAsmVertex's g x g blocks (g = 4 half, 2 float).
  const bool blocks = canUseFastTranspose(graph.getTarget(), dType, rows, cols, 0);
  const unsigned g = unsigned(8 / bytes);
  const std::string vertex = blocks ? transposeAsmVertex(graph, dType) : transposeVertex(graph, dType);
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
    if (blocks) {
      // transposeAsmVertex's state; a row's bytes are a multiple of 8 (g elements).
      const unsigned bandsPerMatrix = rows / g, srcRowWords = unsigned(cols * bytes / 8);
      graph.setInitialValue(v["bands"], unsigned(ins.size()) * bandsPerMatrix);
      graph.setInitialValue(v["bandsPerMatrix"], bandsPerMatrix);
      graph.setInitialValue(v["blocksPerBand"], cols / g);
      graph.setInitialValue(v["srcRowWords"], srcRowWords);
      graph.setInitialValue(v["srcBack"], 1 - int(g - 1) * int(srcRowWords));
      // The output's rows in 32-bit words for half (its stores are of two halves), else 64-bit.
      const int dstRowWords = int(rows * bytes / (dType == HALF ? 4 : 8));
      graph.setInitialValue(v["dstRowWords"], unsigned(dstRowWords));
      graph.setInitialValue(v["dstBack"], 1 - 3 * dstRowWords);
      graph.setInitialValue(v["dstNext"], dstRowWords - 1);
      graph.setInitialValue(v["srcStep"], 6 * g * srcRowWords * 8);
      graph.setInitialValue(v["matrixStep"], unsigned(size * bytes) - bandsPerMatrix * 8);
    } else {
      graph.setInitialValue(v["rows"], rows);
      graph.setInitialValue(v["cols"], cols);
      graph.setInitialValue(v["matrices"], unsigned(ins.size()));
      graph.setInitialValue(v["split"], split);
    }
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
