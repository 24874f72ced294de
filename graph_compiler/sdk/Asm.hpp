// Shared by ipusim's poplibs libraries: the pieces of their assembly vertices (poplin's AMP
// product and partial sums, popops' element-wise operations). Each vertex is a C++ class declared
// external (isExternalCodelet) with its assembly generated beside it; the helpers emit the
// entry, the workers' shares of the work, a read-modify-write store of one half and the loops
// applying a 64-bit vector operation to two streams.
#ifndef IPUSIM_SDK_ASM_HPP
#define IPUSIM_SDK_ASM_HPP

#include "Generated.hpp"

#include <functional>
#include <ostream>
#include <sstream>
#include <string>

namespace ipusim::sdk {

/// The external vertex class `prefix_<hash>` (addGeneratedVertex) and its assembly, which
/// `assembly(os, name)` writes after the TileConstants include; both added to the graph once.
/// Returns the class's name.
inline std::string addAsmVertex(poplar::Graph &graph, const std::string &prefix, const std::string &base,
                                const std::string &preamble, const std::string &body, const std::string &attributes,
                                const std::function<void(std::ostream &, const std::string &)> &assembly) {
  const std::string name = generatedName(prefix, preamble + attributes, body);
  if (graph.hasCodelet(name)) return name;
  addGeneratedVertex(graph, prefix, base, preamble, body, attributes);
  std::stringstream s;
  s << "#include <poplar/TileConstants.hpp>\n";
  assembly(s, name);
  graph.addCodelets(s, "", poplar::CodeletFileType::PreprocessedAsmSource);
  return name;
}

/// The start of function `symbol` in its own section: a worker's or the supervisor's
/// (`kind` "worker" or "supervisor"), global when it is a vertex's entry.
inline void emitEntry(std::ostream &os, const std::string &symbol, const char *kind, bool global) {
  os << "  .section .text." << symbol << ", \"ax\"\n";
  if (global) os << "  .globl " << symbol << "\n";
  os << "  .type " << symbol << ", @function\n  ." << kind << "\n  .align " << (kind[0] == 'w' ? 8 : 4) << "\n"
     << symbol << ":\n";
}

/// The end of function `symbol`.
inline void emitEnd(std::ostream &os, const std::string &symbol) {
  os << "  .size " << symbol << ", . - " << symbol << "\n";
}

/// A worker's share of n items (n the vertex state's word `word`) split over the six workers,
/// n/6 each and one more for the first n%6 (n/6 as (n * 43691) >> 18, exact below 2^16):
/// `first` = its first item, `count` its items. Leaves the worker's id in $m0; uses $m1, $m2,
/// $m3 and $m5.
inline void emitSixWayShare(std::ostream &os, unsigned word, const char *first, const char *count) {
  os << "  get $m0, $WSR\n"
     << "  and $m0, $m0, CSR_W_WSR__CTXTID_M1__MASK\n"
     << "  ld32 $m1, $mvertex_base, " << word << "\n"
     << "  setzi $m2, 43691\n"
     << "  mul $m2, $m1, $m2\n"
     << "  shr $m2, $m2, 18\n"
     << "  mul $m3, $m2, 6\n"
     << "  sub $m3, $m1, $m3\n"
     << "  mul " << first << ", $m0, $m2\n"
     << "  min $m5, $m0, $m3\n"
     << "  add " << first << ", " << first << ", $m5\n"
     << "  cmpult $m5, $m0, $m3\n"
     << "  add " << count << ", $m2, $m5\n";
}

/// A worker's contiguous run of n elements (n the vertex state's word `word`) in whole groups of
/// 8, ceil(n / 48) groups each (n / 48 as ((n + 47) >> 4) * 43691 >> 17), so no two workers
/// write one word: its first element in $m7 and its elements in $m3; a worker with none goes to
/// .Lexit. Leaves the worker's id in $m0; uses $m1 and $m2.
inline void emitGroupRun(std::ostream &os, unsigned word) {
  os << "  get $m0, $WSR\n"
     << "  and $m0, $m0, CSR_W_WSR__CTXTID_M1__MASK\n"
     << "  ld32 $m1, $mvertex_base, " << word << "\n"
     << "  add $m2, $m1, 47\n"
     << "  shr $m2, $m2, 4\n"
     << "  setzi $m3, 43691\n"
     << "  mul $m2, $m2, $m3\n"
     << "  shr $m2, $m2, 17\n"
     << "  shl $m2, $m2, 3\n"
     << "  mul $m7, $m0, $m2\n"
     << "  cmpult $m3, $m7, $m1\n"
     << "  brz $m3, .Lexit\n"
     << "  sub $m3, $m1, $m7\n"
     << "  min $m3, $m3, $m2\n";
}

/// Stores the half in the low lane of `value` (an $a register) at `addr` (4-byte aligned) by a
/// read-modify-write of its word: tile memory stores 32 or 64 bits. Uses $m0, $m1 and $m2.
inline void emitStoreLowHalf(std::ostream &os, const char *value, const char *addr) {
  os << "  atom $m0, " << value << "\n"
     << "  ld32 $m1, " << addr << ", 0\n"
     << "  setzi $m2, 0xffff\n"
     << "  and $m0, $m0, $m2\n"
     << "  andc $m1, $m1, $m2\n"
     << "  or $m1, $m1, $m0\n"
     << "  st32 $m1, " << addr << ", 0\n";
}

/// Emits out[k] = op(a[k], b[k]) for k < $m3, with $m4 = a, $m5 = b, $m6 = out (8-byte aligned;
/// out may be a), using $m0, $m8:9 and $a0..$a7; `label` makes the local labels unique and `op`
/// is the aux instruction ("f32v2add", "f16v4mul" ...). Bundle k loads vector k of both streams
/// (ld2xst64pace), applies op to vector k-1 and stores the result of vector k-3: the store three
/// 64-bit words behind the load of the same output (when out is a) puts the two in opposite
/// element arrays of interleaved memory (ipu-facts §2.4). Results alternate between two register
/// pairs, A ($a4:5) for even vectors and B ($a6:7) for odd ones; a store reads its pair before the
/// operation beside it overwrites it. Fewer than three vectors take a plain load, op, store loop.
inline void emitTwoStreamLoop(std::ostream &os, const std::string &label, const std::string &op) {
  auto apply = [&](const char *pair) { return op + " " + pair + ", $a0:1, $a2:3"; };
  const std::string loads = "ld2x64pace $a0:1, $a2:3, $m8:9+=, $mzero, 0b0000";
  auto loadsStore = [](const char *pair) { return std::string("ld2xst64pace $a0:3, ") + pair + ", $m8:9+=, $mzero, 0b000000"; };
  auto store = [](const char *pair) { return std::string("st64pace ") + pair + ", $m8:9+=, $mzero, 0b00"; };
  os << "  tapack $m8:9, $m4, $m5, $m6\n"
     << "  cmpult $m0, $m3, 3\n"
     << "  brnz $m0, .Lshort" << label << "\n"
     << "  " << loads << "\n"
     << "  { " << loads << " ; " << apply("$a4:5") << " }\n"
     << "  { " << loads << " ; " << apply("$a6:7") << " }\n"
     << "  add $m0, $m3, -3\n"
     << "  shr $m0, $m0, 1\n"
     << "  .align 8\n"
     << "  { rpt $m0, 1 ; fnop }\n"
     // k odd: vector k-1 (even) into A, vector k-3 (even) stored from A; then k even with B.
     << "  { " << loadsStore("$a4:5") << " ; " << apply("$a4:5") << " }\n"
     << "  { " << loadsStore("$a6:7") << " ; " << apply("$a6:7") << " }\n"
     << "  and $m0, $m3, 1\n"
     << "  brz $m0, .Leven" << label << "\n"
     // An odd count: the loop ended at k = count; drain k = count, count + 1, count + 2.
     << "  { " << store("$a4:5") << " ; " << apply("$a4:5") << " }\n"
     << "  " << store("$a6:7") << "\n"
     << "  " << store("$a4:5") << "\n"
     << "  bri .Ldone" << label << "\n"
     << ".Leven" << label << ":\n"
     // An even count: one more odd bundle (k = count - 1), then k = count, count + 1, count + 2.
     << "  { " << loadsStore("$a4:5") << " ; " << apply("$a4:5") << " }\n"
     << "  { " << store("$a6:7") << " ; " << apply("$a6:7") << " }\n"
     << "  " << store("$a4:5") << "\n"
     << "  " << store("$a6:7") << "\n"
     << "  bri .Ldone" << label << "\n"
     << ".Lshort" << label << ":\n"
     << "  .align 8\n"
     << "  { rpt $m3, 2 ; fnop }\n"
     << "  { " << loads << " ; fnop }\n"
     << "  { nop ; " << apply("$a4:5") << " }\n"
     << "  { " << store("$a4:5") << " ; fnop }\n"
     << ".Ldone" << label << ":\n";
}

/// emitTwoStreamLoop for an aux instruction that is a one-stage pipeline (f16v4mix, f32v2axpy:
/// each issue takes its operands in and gives back the previous issue's result), with the same
/// registers, addressing and stores: `apply(dest, x, y)` is the instruction on operands x and y
/// writing dest. Bundle k loads vector k of both streams, issues vector k-1 (which brings out
/// vector k-2's result) and stores vector k-3's, the result the bundle before brought out: the
/// store reads $a4:5 before the issue beside it overwrites it, so one result pair serves. After
/// the last vector's issue an issue of zeros brings out its result. Fewer than three vectors take
/// a plain load, issue, drain, store loop.
inline void emitPipelinedTwoStreamLoop(std::ostream &os, const std::string &label,
                                       const std::function<std::string(const char *, const char *, const char *)> &apply) {
  const std::string loads = "ld2x64pace $a0:1, $a2:3, $m8:9+=, $mzero, 0b0000";
  const std::string loadsStore = "ld2xst64pace $a0:3, $a4:5, $m8:9+=, $mzero, 0b000000";
  const std::string store = "st64pace $a4:5, $m8:9+=, $mzero, 0b00";
  const std::string issue = apply("$a4:5", "$a0:1", "$a2:3"), drain = apply("$a4:5", "$azeros", "$azeros");
  os << "  tapack $m8:9, $m4, $m5, $m6\n"
     << "  cmpult $m0, $m3, 3\n"
     << "  brnz $m0, .Lshort" << label << "\n"
     << "  " << loads << "\n"
     << "  { " << loads << " ; " << apply("$azeros", "$a0:1", "$a2:3") << " }\n" // out: what the pipeline held
     << "  { " << loads << " ; " << issue << " }\n"
     << "  add $m0, $m3, -3\n"
     << "  .align 8\n"
     << "  { rpt $m0, 0 ; fnop }\n"
     << "  { " << loadsStore << " ; " << issue << " }\n"
     << "  { " << store << " ; " << issue << " }\n" // the last vector in
     << "  { " << store << " ; " << drain << " }\n"
     << "  " << store << "\n"
     << "  bri .Ldone" << label << "\n"
     << ".Lshort" << label << ":\n"
     << "  .align 8\n"
     << "  { rpt $m3, 3 ; fnop }\n"
     << "  { " << loads << " ; fnop }\n"
     << "  { nop ; " << apply("$azeros", "$a0:1", "$a2:3") << " }\n"
     << "  { nop ; " << drain << " }\n"
     << "  { " << store << " ; fnop }\n"
     << ".Ldone" << label << ":\n";
}

} // namespace ipusim::sdk

#endif
