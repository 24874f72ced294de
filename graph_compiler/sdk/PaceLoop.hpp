// Shared by ipusim's poplibs libraries: the assembly of a loop applying a 64-bit vector operation
// to two streams of 64-bit vectors into a third, one bundle a vector (poplin's partial sums,
// popops' element-wise add, subtract and multiply).
#ifndef IPUSIM_SDK_PACELOOP_HPP
#define IPUSIM_SDK_PACELOOP_HPP

#include <ostream>
#include <string>

namespace ipusim::sdk {

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

} // namespace ipusim::sdk

#endif
