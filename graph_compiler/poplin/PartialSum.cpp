// poplin's sum of depth partials. The vector vertex is assembly generated here: each worker sums
// its contiguous share of 64-bit vectors, two streams at a time (in[0] + in[1] into out, then
// out + in[p] into out), one bundle a vector: ld2xst64pace loads vector k of both streams while
// storing the sum of vector k-3, and the add of vector k-1 issues beside it (sdk/Asm.hpp). The
// partials are kept in other memory elements than the output and than each other (the first
// pass loads two partials in a bundle: in one element it took two cycles a bundle). The few
// elements past the last whole vector go to a C++ vertex. A one-worker form of the vector vertex
// sums one piece of a tile's runs (sumPartials' `apart`).
#include "PartialSum.hpp"

#include "../sdk/Generated.hpp"
#include "../sdk/Asm.hpp"

#include <poputil/TileMapping.hpp>

#include <algorithm>
#include <set>
#include <sstream>

namespace poplin::detail {

using namespace poplar;

namespace {

const char *cType(const Type &t) { return t == HALF ? "half" : "float"; }

/// The assembly vertices' C++ class body: fields in, out (ONE_PTR, 8-byte aligned), vectors
/// (64-bit ones), parts; a MultiVertex's unless `oneWorker`.
std::string fields(const Type &type, bool oneWorker = false) {
  std::ostringstream body;
  body << "  poplar::Vector<poplar::Input<poplar::Vector<" << cType(type)
       << ", poplar::VectorLayout::ONE_PTR, 8>>, poplar::VectorLayout::ONE_PTR> in;\n"
       << "  poplar::Output<poplar::Vector<" << cType(type) << ", poplar::VectorLayout::ONE_PTR, 8>> out;\n"
       << "  unsigned vectors;\n  unsigned parts;\n"
       << "  static const bool isExternalCodelet = true;\n"
       << (oneWorker ? "  void compute() {}\n};\n" : "  void compute(unsigned) {}\n};\n");
  return body.str();
}

/// The vector vertex: a MultiVertex whose workers share the vectors, or (`oneWorker`) a Vertex
/// that sums all of them on the worker it runs on.
std::string vectorVertex(Graph &graph, const Type &type, bool oneWorker = false) {
  const std::string attributes = "[[poplar::constraint(\"elem(**in) != elem(*out)\", \"elem(**in) != elem(**in)\")]]";
  const char *add = type == HALF ? "f16v4add" : "f32v2add";
  return ipusim::sdk::addAsmVertex(graph, oneWorker ? "ipusim_poplin_PartialSumRun" : "ipusim_poplin_PartialSum",
                                   oneWorker ? "poplar::Vertex" : "poplar::MultiVertex", "#include <poplar/Vertex.hpp>\n",
                                   fields(type, oneWorker), attributes, [&](std::ostream &s, const std::string &name) {
    const std::string entry = "__runCodelet_" + name;
    ipusim::sdk::emitEntry(s, entry, "worker", true);
    if (oneWorker)
      s << "  ld32 $m3, $mvertex_base, 2\n" // all the vectors, from the first
        << "  setzi $m7, 0\n";
    else
      ipusim::sdk::emitSixWayShare(s, 2, "$m7", "$m3"); // this worker's vectors
    s << "  shl $m7, $m7, 3\n"            // byte offset of the first
      << "  brz $m3, .Lexit\n"
      << "  ld32 $m1, $mvertex_base, 0\n" // the partials' pointers
      << "  ld32 $m6, $mvertex_base, 1\n"
      << "  add $m6, $m6, $m7\n"
      << "  ld32 $m4, $m1, 0\n"
      << "  add $m4, $m4, $m7\n"
      << "  ld32 $m5, $m1, 1\n"
      << "  add $m5, $m5, $m7\n";
    ipusim::sdk::emitTwoStreamLoop(s, "first", add);
    s << "  ld32 $m2, $mvertex_base, 3\n"
      << "  add $m2, $m2, -3\n"          // passes after the first: parts - 2, as brnzdec counts
      << "  brneg $m2, .Lexit\n"
      << ".Lnext:\n"
      << "  add $m1, $m1, 4\n"
      << "  ld32 $m5, $m1, 1\n"
      << "  add $m5, $m5, $m7\n"
      << "  mov $m4, $m6\n";
    ipusim::sdk::emitTwoStreamLoop(s, "more", add);
    s << "  brnzdec $m2, .Lnext\n"
      << ".Lexit:\n"
      << "  exitz $mzero\n";
    ipusim::sdk::emitEnd(s, entry);
  });
}

/// The deep vertex, for many partials of few vectors (a depth split over many tiles of a small
/// product: a weight gradient): each worker sums its vectors one at a time in registers across
/// every partial, two bundles a partial (the partial's pointer, then its vector beside the add
/// of the one before), where the vector vertex pays a pass of about a dozen bundles a partial
/// however few vectors it has. Same fields as the vector vertex.
std::string deepVertex(Graph &graph, const Type &type) {
  const char *add = type == HALF ? "f16v4add" : "f32v2add";
  return ipusim::sdk::addAsmVertex(graph, "ipusim_poplin_PartialSumDeep", "poplar::MultiVertex",
                                   "#include <poplar/Vertex.hpp>\n", fields(type), "",
                                   [&](std::ostream &s, const std::string &name) {
    const std::string entry = "__runCodelet_" + name;
    const std::string sum = std::string(add) + " $a0:1, $a0:1, $a2:3";
    ipusim::sdk::emitEntry(s, entry, "worker", true);
    ipusim::sdk::emitSixWayShare(s, 2, "$m7", "$m3"); // this worker's vectors
    s << "  brz $m3, .Lexit\n"
      << "  add $m3, $m3, -1\n"           // brnzdec counts
      << "  shl $m7, $m7, 3\n"            // byte offset of the first
      << "  ld32 $m6, $mvertex_base, 1\n"
      << "  add $m6, $m6, $m7\n"          // its output
      << "  ld32 $m2, $mvertex_base, 3\n"
      << "  add $m2, $m2, -2\n"           // partials after the first two (parts >= 2)
      << ".Lvector:\n"
      << "  ld32 $m1, $mvertex_base, 0\n" // the partials' pointers
      << "  ld32step $m4, $mzero, $m1+=, 1\n"
      << "  ld64 $a0:1, $m4, $m7, 0\n"
      << "  ld32step $m4, $mzero, $m1+=, 1\n"
      << "  ld64 $a2:3, $m4, $m7, 0\n"
      << "  brz $m2, .Llast\n"
      << "  .align 8\n"
      << "  { rpt $m2, 1 ; fnop }\n"
      << "  { ld32step $m4, $mzero, $m1+=, 1 ; " << sum << " }\n"
      << "  { ld64 $a2:3, $m4, $m7, 0 ; fnop }\n"
      << ".Llast:\n"
      << "  { add $m7, $m7, 8 ; " << sum << " }\n"
      << "  st64step $a0:1, $mzero, $m6+=, 1\n"
      << "  brnzdec $m3, .Lvector\n"
      << ".Lexit:\n"
      << "  exitz $mzero\n";
    ipusim::sdk::emitEnd(s, entry);
  });
}

/// The elements past the last whole vector, one worker, in C++.
std::string tailVertex(Graph &graph, const Type &type) {
  const std::string T = cType(type);
  std::ostringstream body;
  body << "  poplar::Vector<poplar::Input<poplar::Vector<" << T << ", poplar::VectorLayout::ONE_PTR>>,"
       << " poplar::VectorLayout::ONE_PTR> in;\n"
       << "  poplar::Output<poplar::Vector<" << T << ", poplar::VectorLayout::SPAN>> out;\n"
       << "  unsigned parts;\n"
       << "  void compute() {\n"
       << "    for (unsigned i = 0; i < out.size(); ++i) {\n"
       << "      " << T << " acc = in[0][i];\n"
       << "      for (unsigned p = 1; p < parts; ++p) acc += in[p][i];\n"
       << "      out[i] = acc;\n"
       << "    }\n  }\n};\n";
  return ipusim::sdk::addGeneratedVertex(graph, "ipusim_poplin_PartialSumTail", "poplar::Vertex",
                                         "#include <poplar/Vertex.hpp>\n", body.str());
}

} // namespace

void sumPartials(Graph &graph, const Tensor &partials, const Tensor &out, program::Sequence &prog,
                 const std::string &name, bool apart) {
  const std::size_t parts = partials.dim(0);
  const Type type = out.elementType();
  const std::size_t lanes = 8 / graph.getTarget().getTypeSize(type);
  const Tensor outFlat = out.flatten();
  // Each part's flat view made once: slicing it by an interval is then a search, not a copy of
  // all its regions.
  std::vector<Tensor> partFlat;
  for (std::size_t p = 0; p < parts; ++p) partFlat.push_back(partials[p].flatten());
  const std::string vector = vectorVertex(graph, type), tail = tailVertex(graph, type);
  std::string deep, run; // made when first used
  ComputeSet cs = graph.addComputeSet(name);
  const auto mapping = graph.getTileMapping(outFlat);
  for (std::size_t tile = 0; tile < mapping.size(); ++tile) {
    if (mapping[tile].empty()) continue;
    std::vector<Tensor> outs;
    std::vector<std::vector<Tensor>> pieces(parts);
    for (const Interval &iv : mapping[tile]) {
      outs.push_back(outFlat.slice(iv));
      for (std::size_t p = 0; p < parts; ++p) pieces[p].push_back(partFlat[p].slice(iv));
    }
    const Tensor o = concat(outs);
    std::vector<Tensor> ins;
    for (auto &ps : pieces) ins.push_back(concat(ps));
    // The runs: the whole tile, or (apart) the stretches between any operand's region boundaries.
    std::set<std::size_t> cuts{0, o.numElements()};
    auto cutAt = [&](const Tensor &t) {
      for (const Interval &iv : t.getContiguousRegions()) cuts.insert(iv.begin());
    };
    if (apart) {
      cutAt(o);
      for (const Tensor &t : ins) cutAt(t);
    }
    auto connect = [&](const std::string &vertex, std::size_t begin, std::size_t end) {
      std::vector<Tensor> in;
      for (const Tensor &t : ins) in.push_back(t.slice(begin, end));
      VertexRef v = graph.addVertex(cs, vertex);
      graph.connect(v["in"], in);
      graph.connect(v["out"], o.slice(begin, end));
      graph.setInitialValue(v["parts"], unsigned(parts));
      if (vertex != tail) graph.setInitialValue(v["vectors"], unsigned((end - begin) / lanes));
      graph.setTileMapping(v, unsigned(tile));
    };
    // The vector vertex makes a pass a partial after the first; the deep vertex is cheaper for
    // many partials of few vectors.
    auto deepIsCheaper = [&](double perWorker) {
      return parts >= 2 && deepVertexBundles(double(parts), perWorker) < vectorVertexBundles(double(parts - 1), perWorker);
    };
    std::vector<std::pair<std::size_t, std::size_t>> runs; // whole vectors: [begin, end)
    std::size_t vectors = 0;
    for (auto cut = cuts.begin(); std::next(cut) != cuts.end(); ++cut) {
      const std::size_t begin = *cut, end = *std::next(cut), whole = begin + (end - begin) / lanes * lanes;
      if (whole > begin) runs.push_back({begin, whole});
      vectors += (whole - begin) / lanes;
      if (whole < end) connect(tail, whole, end);
    }
    // Several runs: one-worker vertices, at most `most` vectors each, the least for which the
    // runs make six or fewer (or a run each, with more than six runs), so that the workers sum
    // them side by side (a MultiVertex a run would run one after the other, each paying its
    // set-up).
    std::size_t most = (vectors + 5) / 6, longest = 0;
    for (const auto &r : runs) longest = std::max(longest, (r.second - r.first) / lanes);
    auto pieceCount = [&](std::size_t perPiece) {
      std::size_t n = 0;
      for (const auto &r : runs) n += ((r.second - r.first) / lanes + perPiece - 1) / perPiece;
      return n;
    };
    while (runs.size() > 1 && most < longest && pieceCount(most) > 6) ++most;
    if (runs.size() > 1 && !deepIsCheaper(double(most))) {
      if (run.empty()) run = vectorVertex(graph, type, true);
      for (const auto &r : runs) {
        const std::size_t n = (r.second - r.first) / lanes, count = (n + most - 1) / most;
        for (std::size_t i = 0; i < count; ++i)
          connect(run, r.first + n * i / count * lanes, r.first + n * (i + 1) / count * lanes);
      }
      continue;
    }
    for (const auto &r : runs) {
      // The busiest worker's bundles.
      const bool useDeep = deepIsCheaper(double(((r.second - r.first) / lanes + 5) / 6));
      if (useDeep && deep.empty()) deep = deepVertex(graph, type);
      connect(useDeep ? deep : vector, r.first, r.second);
    }
  }
  prog.add(program::Execute(cs));
}

} // namespace poplin::detail
