// poplin's sum of depth partials. The vector vertex is assembly generated here: each worker sums
// its contiguous share of 64-bit vectors, two streams at a time (in[0] + in[1] into out, then
// out + in[p] into out), one bundle a vector: ld2xst64pace loads vector k of both streams while
// storing the sum of vector k-3, and the add of vector k-1 issues beside it (emitPass). The
// partials are kept in other memory elements than the output. The few elements past the last
// whole vector go to a C++ vertex.
#include "PartialSum.hpp"

#include "../sdk/Generated.hpp"

#include <poputil/TileMapping.hpp>

#include <sstream>

namespace poplin::detail {

using namespace poplar;

namespace {

const char *cType(const Type &t) { return t == HALF ? "half" : "float"; }

/// One pass over two streams: $m4 the first, $m5 the second, $m6 the output, $m3 the vectors.
/// Bundle k loads vector k of both streams, adds vector k-1 and stores the sum of vector k-3: the
/// store three 64-bit words behind the load of the same output (in the passes that read it) puts
/// the two in opposite element arrays of interleaved memory (ipu-facts §2.4). The sums alternate
/// between two register pairs, A ($a4:5) for even vectors and B ($a6:7) for odd ones; a store
/// reads the pair before the add beside it overwrites it.
void emitPass(std::ostream &os, const std::string &label, const char *add) {
  auto sum = [&](const char *pair) { return std::string(add) + " " + pair + ", $a0:1, $a2:3"; };
  const std::string loads = "ld2x64pace $a0:1, $a2:3, $m8:9+=, $mzero, 0b0000";
  auto loadsStore = [](const char *pair) { return std::string("ld2xst64pace $a0:3, ") + pair + ", $m8:9+=, $mzero, 0b000000"; };
  auto store = [](const char *pair) { return std::string("st64pace ") + pair + ", $m8:9+=, $mzero, 0b00"; };
  os << "  tapack $m8:9, $m4, $m5, $m6\n"
     << "  cmpult $m0, $m3, 3\n"
     << "  brnz $m0, .Lshort" << label << "\n"
     << "  " << loads << "\n"
     << "  { " << loads << " ; " << sum("$a4:5") << " }\n"
     << "  { " << loads << " ; " << sum("$a6:7") << " }\n"
     << "  add $m0, $m3, -3\n"
     << "  shr $m0, $m0, 1\n"
     << "  .align 8\n"
     << "  { rpt $m0, 1 ; fnop }\n"
     // k odd: add vector k-1 (even) into A, store vector k-3 (even) from A; then k even with B.
     << "  { " << loadsStore("$a4:5") << " ; " << sum("$a4:5") << " }\n"
     << "  { " << loadsStore("$a6:7") << " ; " << sum("$a6:7") << " }\n"
     << "  and $m0, $m3, 1\n"
     << "  brz $m0, .Leven" << label << "\n"
     // c odd: the loop ended at k = c; drain: k = c (odd), c+1, c+2.
     << "  { " << store("$a4:5") << " ; " << sum("$a4:5") << " }\n"
     << "  " << store("$a6:7") << "\n"
     << "  " << store("$a4:5") << "\n"
     << "  bri .Ldone" << label << "\n"
     << ".Leven" << label << ":\n"
     // c even: one more odd bundle (k = c-1), then k = c (even), c+1, c+2.
     << "  { " << loadsStore("$a4:5") << " ; " << sum("$a4:5") << " }\n"
     << "  { " << store("$a6:7") << " ; " << sum("$a6:7") << " }\n"
     << "  " << store("$a4:5") << "\n"
     << "  " << store("$a6:7") << "\n"
     << "  bri .Ldone" << label << "\n"
     // Fewer than three vectors: load, add, store.
     << ".Lshort" << label << ":\n"
     << "  .align 8\n"
     << "  { rpt $m3, 2 ; fnop }\n"
     << "  { " << loads << " ; fnop }\n"
     << "  { nop ; " << sum("$a4:5") << " }\n"
     << "  { " << store("$a4:5") << " ; fnop }\n"
     << ".Ldone" << label << ":\n";
}

/// The vector vertex: fields in, out (ONE_PTR, 8-byte aligned), vectors (64-bit ones), parts.
std::string vectorVertex(Graph &graph, const Type &type) {
  std::ostringstream body;
  body << "  poplar::Vector<poplar::Input<poplar::Vector<" << cType(type)
       << ", poplar::VectorLayout::ONE_PTR, 8>>, poplar::VectorLayout::ONE_PTR> in;\n"
       << "  poplar::Output<poplar::Vector<" << cType(type) << ", poplar::VectorLayout::ONE_PTR, 8>> out;\n"
       << "  unsigned vectors;\n  unsigned parts;\n"
       << "  static const bool isExternalCodelet = true;\n"
       << "  void compute(unsigned) {}\n};\n";
  const std::string preamble = "#include <poplar/Vertex.hpp>\n", prefix = "ipusim_poplin_PartialSum";
  const std::string attributes = "[[poplar::constraint(\"elem(**in) != elem(*out)\")]]";
  const std::string name = ipusim::sdk::generatedName(prefix, preamble + attributes, body.str());
  if (graph.hasCodelet(name)) return name;
  ipusim::sdk::addGeneratedVertex(graph, prefix, "poplar::MultiVertex", preamble, body.str(), attributes);
  const std::string entry = "__runCodelet_" + name;
  const char *add = type == HALF ? "f16v4add" : "f32v2add";
  std::stringstream s;
  s << "#include <poplar/TileConstants.hpp>\n"
    << "  .section .text." << entry << ", \"ax\"\n  .globl " << entry << "\n  .type " << entry
    << ", @function\n  .worker\n  .align 8\n"
    << entry << ":\n"
    // This worker's vectors: vectors/6 each (as (n * 43691) >> 18, exact below 2^16), the first
    // vectors%6 workers one more.
    << "  get $m0, $WSR\n"
    << "  and $m0, $m0, CSR_W_WSR__CTXTID_M1__MASK\n"
    << "  ld32 $m1, $mvertex_base, 2\n"
    << "  setzi $m2, 43691\n"
    << "  mul $m2, $m1, $m2\n"
    << "  shr $m2, $m2, 18\n"
    << "  mul $m3, $m2, 6\n"
    << "  sub $m3, $m1, $m3\n"
    << "  mul $m7, $m0, $m2\n"
    << "  min $m5, $m0, $m3\n"
    << "  add $m7, $m7, $m5\n"
    << "  shl $m7, $m7, 3\n"            // byte offset of the first vector
    << "  cmpult $m5, $m0, $m3\n"
    << "  add $m3, $m2, $m5\n"          // vectors of this worker
    << "  brz $m3, .Lexit\n"
    << "  ld32 $m1, $mvertex_base, 0\n" // the partials' pointers
    << "  ld32 $m6, $mvertex_base, 1\n"
    << "  add $m6, $m6, $m7\n"
    << "  ld32 $m4, $m1, 0\n"
    << "  add $m4, $m4, $m7\n"
    << "  ld32 $m5, $m1, 1\n"
    << "  add $m5, $m5, $m7\n";
  emitPass(s, "first", add);
  s << "  ld32 $m2, $mvertex_base, 3\n"
    << "  add $m2, $m2, -3\n"          // passes after the first: parts - 2, as brnzdec counts
    << "  brneg $m2, .Lexit\n"
    << ".Lnext:\n"
    << "  add $m1, $m1, 4\n"
    << "  ld32 $m5, $m1, 1\n"
    << "  add $m5, $m5, $m7\n"
    << "  mov $m4, $m6\n";
  emitPass(s, "more", add);
  s << "  brnzdec $m2, .Lnext\n"
    << ".Lexit:\n"
    << "  exitz $mzero\n"
    << "  .size " << entry << ", . - " << entry << "\n";
  graph.addCodelets(s, "", CodeletFileType::PreprocessedAsmSource);
  return name;
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
                 const std::string &name) {
  const std::size_t parts = partials.dim(0);
  const Type type = out.elementType();
  const std::size_t lanes = 8 / graph.getTarget().getTypeSize(type);
  const Tensor outFlat = out.flatten(), partialsFlat = partials.reshape({parts, out.numElements()});
  const std::string vector = vectorVertex(graph, type), tail = tailVertex(graph, type);
  ComputeSet cs = graph.addComputeSet(name);
  const auto mapping = graph.getTileMapping(outFlat);
  for (std::size_t tile = 0; tile < mapping.size(); ++tile) {
    if (mapping[tile].empty()) continue;
    std::vector<Tensor> outs;
    std::vector<std::vector<Tensor>> ins(parts);
    for (const Interval &iv : mapping[tile]) {
      outs.push_back(outFlat.slice(iv));
      for (std::size_t p = 0; p < parts; ++p) ins[p].push_back(partialsFlat[p].slice(iv));
    }
    const Tensor o = concat(outs);
    const std::size_t whole = o.numElements() / lanes * lanes;
    auto connect = [&](const std::string &vertex, std::size_t begin, std::size_t end) {
      std::vector<Tensor> in;
      for (auto &pieces : ins) in.push_back(concat(pieces).slice(begin, end));
      VertexRef v = graph.addVertex(cs, vertex);
      graph.connect(v["in"], in);
      graph.connect(v["out"], o.slice(begin, end));
      graph.setInitialValue(v["parts"], unsigned(parts));
      if (vertex == vector) graph.setInitialValue(v["vectors"], unsigned((end - begin) / lanes));
      graph.setTileMapping(v, unsigned(tile));
    };
    if (whole) connect(vector, 0, whole);
    if (whole < o.numElements()) connect(tail, whole, o.numElements());
  }
  prog.add(program::Execute(cs));
}

} // namespace poplin::detail
