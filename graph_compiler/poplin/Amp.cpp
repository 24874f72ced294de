// poplin's AMP kernels: a matrix-product block on the accumulating matrix product unit.
//
// The product vertex is a supervisor vertex in assembly generated here for a Form (the input and
// partials types). It walks the output's column chunks (16 outputs, or 8 for half with float
// partials), the taps (a matrix product has one; a convolution one a kernel position, its input
// starting at the tap's offset into `a`) and the depth's chunks (16 halves or 8 floats); for each
// it loads the chunk's weights into $CWEI (ld128putcs, four 64-bit entries an output) and starts
// the six workers, each streaming its contiguous rows through the AMP: one bundle an AMP issue,
// its main instruction loading the next issue's input and partials and storing an earlier
// issue's results with the triple-packed pace forms. A column chunk's first pass (first tap,
// first depth chunk) starts from zero partials; later ones take the running sums from the output,
// which is also where the results go.
//
// The AMP pipeline (docs/tile-timing.md "AMP"): a set of S issues (S = 4 phases of four halves,
// or 8 phases of one float) takes the inputs of one row; the partials a set gives are those of the
// set after it, and the results it returns those of the set before. Issue u therefore takes the
// input of row u/S - 1 and the partials of row u/S, and returns the results of row u/S - 2; a
// worker with P rows issues S(P + 2) times. Its schedule, with v = u + 1 the issue a bundle loads
// for and each result stored two bundles after the issue that returns it:
//   A  u = -1 .. 2S+1        loads (input and partials), no store: the first S inputs are
//                            don't-cares read from row 0 without stepping;
//   B  u = 2S+2 .. SP-2      loads and a store (ld2xst64pace), an rpt loop of P-3 sets + S-3;
//   C  u = SP-1 .. S(P+1)-2  the last row's input and a store (ldst64pace);
//   D  u = S(P+1)-1 .. S(P+2)-1  stores (st64pace) while the AMP drains;
//   E  the last two stores.
// Storing two bundles behind rather than one puts a bundle's partial load and its store three
// 64-bit words apart, in opposite element arrays of interleaved memory (ipu-facts §2.4: such a
// pair does not conflict), which the one-behind store would not. The results alternate between
// two register pairs for the same reason.
#include "Amp.hpp"

#include "../sdk/Asm.hpp"

#include <sstream>

namespace poplin::amp {

using namespace poplar;

unsigned Form::rowOfOutput(unsigned o) const {
  if (outputs() == 8) return o;
  // Output o = 4q + j: j 0/1 are set A's engines 2q, 2q+1 (rows 2q, 2q+1), j 2/3 set B's (rows 8+2q, 9+2q).
  const unsigned q = o / 4, j = o % 4;
  return (j < 2 ? 0 : 8) + 2 * q + j % 2;
}

unsigned Form::outputOfRow(unsigned r) const {
  for (unsigned o = 0; o < outputs(); ++o)
    if (rowOfOutput(o) == r) return o;
  return r;
}

Tensor Form::inRowOrder(const Tensor &t, unsigned dim) const {
  std::vector<Tensor> rows;
  for (unsigned r = 0; r < outputs(); ++r) rows.push_back(t.slice(outputOfRow(r), outputOfRow(r) + 1, dim));
  return concat(rows, dim);
}

Tensor Form::inOutputOrder(const Tensor &t, unsigned dim) const {
  std::vector<Tensor> outs;
  for (unsigned o = 0; o < outputs(); ++o) outs.push_back(t.slice(rowOfOutput(o), rowOfOutput(o) + 1, dim));
  return concat(outs, dim);
}

void connectProduct(Graph &graph, VertexRef v, unsigned tile, const Tensor &a, const Tensor &w, const Tensor &out,
                    std::size_t rows, std::size_t depth, std::size_t cols, const std::vector<unsigned> &tapOffsets) {
  graph.connect(v["a"], a);
  graph.connect(v["w"], w);
  graph.connect(v["out"], out);
  graph.setInitialValue(v["rows"], unsigned(rows));
  graph.setInitialValue(v["depth"], unsigned(depth));
  graph.setInitialValue(v["cols"], unsigned(cols));
  graph.setInitialValue(v["passIn"], 0u); // written by the supervisor before use
  graph.setInitialValue(v["passOut"], 0u);
  graph.setInitialValue(v["tapOffsets"], tapOffsets);
  graph.setTileMapping(v, tile);
}

namespace {

/// The kernel's shape for one form. A row's outputs (16 halves, 16 floats or 8 floats) are S
/// 64-bit atoms in every form, as many as the issues of a set.
struct Kernel {
  bool f32;              // float input
  unsigned phases;       // S: issues a set (a row's input chunk)
  unsigned outputs;      // a pass's output channels
  unsigned log2InAtom;   // log2 of the input elements in 64 bits
  unsigned log2OutAtom;  // log2 of the partials in 64 bits
  unsigned partialBytes;
  const char *amp;       // the instruction
  const char *flags;     // the phase flags' prefix
  const char *inType, *outType;

  explicit Kernel(const Form &f)
      : f32(f.in == FLOAT), phases(f32 ? 8 : 4), outputs(f.outputs()), log2InAtom(f32 ? 1 : 2),
        log2OutAtom(f.partials == FLOAT ? 1 : 2), partialBytes(f.partials == FLOAT ? 4 : 2),
        amp(f32 ? "f32sisov2amp" : f.partials == HALF ? "f16v4hihov4amp" : "f16v4sisoamp"),
        flags(f32 ? "TAMP_F32_E4_P" : "TAMP_F16V4_E4_P"), inType(f32 ? "float" : "half"),
        outType(f.partials == FLOAT ? "float" : "half") {}
};

// Pace stride selects (asm-dialect §2.6): 00 one 64-bit atom, 01/10/11 the strides register's
// fields 0/1/2. Ours: field 0 the input's jump to its next row, field 1 the output's, field 2 zero.
enum Select : unsigned { kStep = 0, kInRow = 1, kOutRow = 2, kStay = 3 };

/// The input address's select after loading for issue v.
unsigned inputSelect(const Kernel &k, int v) {
  if (v < int(k.phases)) return kStay; // set -1: a don't-care input, read from row 0
  const unsigned p = unsigned(v) % k.phases;
  if (!k.f32) return p == 3 ? kInRow : kStep;
  // Floats: a pair serves two phases; step after the odd one.
  if (p % 2 == 0) return kStay;
  return p == 7 ? kInRow : kStep;
}

/// The partials' (and results') select after the access for issue v: a row is S atoms.
unsigned rowSelect(const Kernel &k, int v) { return unsigned(v) % k.phases == k.phases - 1 ? kOutRow : kStep; }

std::string bin(unsigned v, unsigned bits) {
  std::string s = "0b";
  for (unsigned i = bits; i-- > 0;) s += char('0' + (v >> i & 1));
  return s;
}

/// The result pair of issue u (two pairs in turn; a store reads the one written two bundles before).
const char *resultPair(int u) { return (u % 2 == 0) ? "$a4:5" : "$a6:7"; }

enum class Main { Loads, LoadsStore, InputStore, Store };

/// Bundle u of the schedule: its main instruction and, when `amp`, AMP issue u.
void bundle(std::ostream &os, const Kernel &k, int u, Main main, bool amp, bool zeroPartials) {
  const int v = u + 1;
  std::string m;
  switch (main) {
  case Main::Loads:
    m = "ld2x64pace $a0:1, $a2:3, $m4:5+=, $m2, " + bin(inputSelect(k, v) | rowSelect(k, v) << 2, 4);
    break;
  case Main::LoadsStore:
    m = std::string("ld2xst64pace $a0:3, ") + resultPair(u) + ", $m4:5+=, $m2, " +
        bin(inputSelect(k, v) | rowSelect(k, v) << 2 | rowSelect(k, u - 2) << 4, 6);
    break;
  case Main::InputStore:
    m = std::string("ldst64pace $a0:1, ") + resultPair(u) + ", $m4:5+=, $m2, " +
        bin(inputSelect(k, v) | rowSelect(k, u - 2) << 2, 4);
    break;
  case Main::Store:
    m = std::string("st64pace ") + resultPair(u) + ", $m4:5+=, $m2, " + bin(rowSelect(k, u - 2), 2);
    break;
  }
  if (!amp) {
    os << "  " << m << "\n";
    return;
  }
  const unsigned phase = unsigned(u) % k.phases;
  const std::string input = k.f32 ? (phase % 2 ? "$a1" : "$a0") : "$a0:1";
  os << "  { " << m << " ; " << k.amp << " " << resultPair(u) << ", " << input << ", "
     << (zeroPartials ? "$azeros" : "$a2:3") << ", " << k.flags << phase << " }\n";
}

/// A worker: its rows, the packed addresses and strides, then the schedule. The first pass of a
/// column chunk (zero partials) works out the worker's rows, strides and loop count and leaves
/// them in registers ($m9 the count, $m2 the strides, $m10 the byte offset of its first input
/// row, $m1 the address of its first output row), which a worker keeps from one run to the next
/// ([F] poplibs' "state retained" worker entries); the later passes of the chunk, whose output
/// is the same, only add the pass's input address to the offset.
void worker(std::ostream &os, const Kernel &k, const std::string &name, bool zeroPartials) {
  const int S = int(k.phases);
  ipusim::sdk::emitEntry(os, name, "worker", false);
  if (zeroPartials) {
    ipusim::sdk::emitSixWayShare(os, 3, "$m6", "$m9"); // the first row and the rows P
    os << "  ld32 $m5, $mvertex_base, 4\n"
       << "  shr $m5, $m5, " << k.log2InAtom << "\n" // input row atoms
       << "  mul $m10, $m6, $m5\n"
       << "  shl $m10, $m10, 3\n"          // the first input row's offset
       << "  ld32 $m8, $mvertex_base, 5\n"
       << "  shr $m8, $m8, " << k.log2OutAtom << "\n" // output row atoms
       << "  mul $m11, $m6, $m8\n"
       << "  shl $m11, $m11, 3\n"          // the first output row's offset
       << "  add $m5, $m5, -3\n"           // the input's jump: a row less the 3 atoms stepped
       << "  add $m8, $m8, " << -(S - 1) << "\n" // the output's: a row less S-1 atoms
       << "  shl $m8, $m8, 10\n"
       << "  or $m2, $m5, $m8\n"
       << "  add $m9, $m9, -3\n";          // loop count: P-3 sets
  }
  os << "  ld32 $m7, $mvertex_base, 6\n"
     << "  add $m7, $m7, $m10\n";          // input address
  if (zeroPartials)
    os << "  ld32 $m1, $mvertex_base, 7\n"
       << "  add $m1, $m1, $m11\n";        // partials and results address
  os << "  tapack $m4:5, $m7, $m1, $m1\n";
  for (int u = -1; u <= 2 * S + 1; ++u) bundle(os, k, u, Main::Loads, u >= 0, zeroPartials);
  // Region B from u = 2S+2: whole sets in the loop (the phases and registers repeat every S).
  os << "  .align 8\n  { rpt $m9, " << S - 1 << " ; fnop }\n";
  for (int u = 2 * S + 2; u < 3 * S + 2; ++u) bundle(os, k, u, Main::LoadsStore, true, zeroPartials);
  // The remaining S-3 bundles of region B, then C, D and E, numbered as if P were 3 (only the
  // phases and the register parity matter, and both repeat every S).
  const int P = 3;
  for (int u = 2 * S + 2; u <= S * P - 2; ++u) bundle(os, k, u, Main::LoadsStore, true, zeroPartials);
  for (int u = S * P - 1; u <= S * (P + 1) - 2; ++u) bundle(os, k, u, Main::InputStore, true, zeroPartials);
  for (int u = S * (P + 1) - 1; u <= S * (P + 2) - 1; ++u) bundle(os, k, u, Main::Store, true, zeroPartials);
  for (int u = S * (P + 2); u <= S * (P + 2) + 1; ++u) bundle(os, k, u, Main::Store, false, zeroPartials);
  os << "  exitz $mzero\n";
  ipusim::sdk::emitEnd(os, name);
}

} // namespace

std::string productVertex(Graph &graph, const Form &form) {
  const Kernel k(form);
  // The class: fields in this order give the word offsets the assembly reads.
  std::ostringstream body;
  body << "  poplar::Input<poplar::Vector<" << k.inType << ", poplar::VectorLayout::ONE_PTR, 8>> a;\n"
       << "  poplar::Input<poplar::Vector<" << k.inType << ", poplar::VectorLayout::ONE_PTR, 16, true>> w;\n"
       << "  poplar::Output<poplar::Vector<" << k.outType << ", poplar::VectorLayout::ONE_PTR, 8>> out;\n"
       << "  unsigned rows;\n  unsigned depth;\n  unsigned cols;\n"
       << "  unsigned passIn;\n  unsigned passOut; // the supervisor's notes to the workers\n"
       << "  poplar::Vector<unsigned> tapOffsets;\n"
       << "  static const bool isExternalCodelet = true;\n"
       << "  void compute() {}\n};\n";
  const std::string preamble = std::string("#include <poplar/Vertex.hpp>\n// ") + k.amp + "\n";
  // The input apart from the partials and results, so a bundle's three accesses can go to three
  // element arrays (the schedule keeps the partials' and results' words in opposite arrays).
  const std::string attributes = "[[poplar::constraint(\"elem(*a) != elem(*out)\")]]";
  const unsigned log2Inputs = k.f32 ? 3 : 4, log2Outputs = k.outputs == 8 ? 3 : 4;
  const unsigned entries = 4 * k.outputs; // 64-bit $CWEI entries a pass: four an output
  return ipusim::sdk::addAsmVertex(graph, "ipusim_poplin_AmpMatMul", "poplar::SupervisorVertex", preamble, body.str(),
                                   attributes, [&](std::ostream &s, const std::string &name) {
    const std::string entry = "__runCodelet_" + name, wz = name + "_zero", wa = name + "_acc";
    worker(s, k, wz, true);
    worker(s, k, wa, false);
    ipusim::sdk::emitEntry(s, entry, "supervisor", true);
    s << "  ld32 $m1, $m0, 1\n"          // the weights, chunk after chunk
      << "  ld32 $m4, $m0, 2\n"          // the output's column chunk
      << "  ld32 $m2, $m0, 5\n"
      << "  shr $m2, $m2, " << log2Outputs << "\n"
      << "  add $m2, $m2, -1\n"          // column chunks - 1
      << ".Lcols_" << name << ":\n"
      << "  setzi $m6, " << wz << "\n"
      << "  ld32 $m8, $m0, 8\n"          // the taps' byte offsets into a
      << "  ld32 $m7, $m0, 9\n"
      << "  add $m7, $m7, -1\n"          // taps - 1
      << ".Ltaps_" << name << ":\n"
      << "  ld32 $m5, $m8, 0\n"
      << "  ld32 $m3, $m0, 0\n"
      << "  add $m5, $m5, $m3\n"         // the input's depth chunk at this tap
      << "  ld32 $m3, $m0, 4\n"
      << "  shr $m3, $m3, " << log2Inputs << "\n"
      << "  add $m3, $m3, -1\n"          // depth chunks - 1
      << ".Ldepth_" << name << ":\n"
      << "  sync TEXCH_SYNCZONE_LOCAL\n" // the previous pass's workers are done with $CWEI and the notes
      << "  put $CCCSLOAD, $m1\n";
    for (unsigned e = 0; e < entries; e += 2) s << "  ld128putcs " << e << "\n";
    s << "  st32 $m5, $m0, 6\n"
      << "  st32 $m4, $m0, 7\n"
      << "  runall $m6, $m0, 0\n"
      << "  add $m1, $m1, " << 8 * entries << "\n"
      << "  add $m5, $m5, 32\n"
      << "  setzi $m6, " << wa << "\n"
      << "  brnzdec $m3, .Ldepth_" << name << "\n"
      << "  add $m8, $m8, 4\n"
      << "  brnzdec $m7, .Ltaps_" << name << "\n"
      << "  add $m4, $m4, " << k.outputs * k.partialBytes << "\n"
      << "  brnzdec $m2, .Lcols_" << name << "\n"
      << "  sync TEXCH_SYNCZONE_LOCAL\n"
      << "  br $lr\n";
    ipusim::sdk::emitEnd(s, entry);
  });
}

std::string weightsVertex(Graph &graph, const Form &form) {
  const Kernel k(form);
  const unsigned C = form.inputs(), O = form.outputs();
  std::ostringstream table, body;
  for (unsigned r = 0; r < O; ++r) table << (r ? ", " : "") << form.outputOfRow(r);
  // Each worker writes whole chunks: row r of a chunk's weights is output channel kOut[r]'s C inputs.
  body << "  poplar::Input<poplar::Vector<" << k.inType << ", poplar::VectorLayout::ONE_PTR, 8>> b;\n"
       << "  poplar::Output<poplar::Vector<" << k.inType << ", poplar::VectorLayout::ONE_PTR, 8>> w;\n"
       << "  unsigned chunks;\n"
       << "  void compute(unsigned wid) {\n"
       << "    static const unsigned char kOut[" << O << "] = {" << table.str() << "};\n"
       << "    for (unsigned c = wid; c < chunks; c += 6) {\n"
       << "      const " << k.inType << " *src = &b[c * " << C * O << "];\n"
       << "      " << k.inType << " *dst = &w[c * " << C * O << "];\n"
       << "      for (unsigned r = 0; r < " << O << "; ++r)\n"
       << "        for (unsigned i = 0; i < " << C << "; ++i) dst[r * " << C << " + i] = src[i * " << O << " + kOut[r]];\n"
       << "    }\n  }\n};\n";
  return ipusim::sdk::addGeneratedVertex(graph, "ipusim_poplin_AmpWeights", "poplar::MultiVertex",
                                         "#include <poplar/Vertex.hpp>\n", body.str());
}

double productCycles(const Form &form, std::size_t rows, std::size_t depth, std::size_t cols) {
  const Kernel k(form);
  const double columnChunks = double(cols / k.outputs), passes = columnChunks * double(depth / form.inputs());
  // A pass: the supervisor's sync, weight load and runall (about 60 cycles), then the workers'
  // 3 bundles of addresses (32 more on a column chunk's first pass) and S(P + 2) + 4 bundles of
  // schedule, six cycles each.
  const double P = double((rows + 5) / 6);
  return passes * (60 + 6 * (3 + k.phases * (P + 2) + 4)) + columnChunks * 6 * 27;
}

} // namespace poplin::amp
