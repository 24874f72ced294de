// The command-line tools: ipu-as, ipu-ld and ipu-objdump on files in the real dialect, the
// assemble -> disassemble -> re-assemble round trip, and exit statuses.
#include "TestUtil.h"

#include "ipusim/arch/Isa.h"
#include "ipusim/cc/Disassembler.h"

#include <gtest/gtest.h>

#include <set>

using namespace ipusim;
using test::run;
using test::tool;

namespace {

std::string input(const std::string &name) {
  std::string example = std::string(IPUSIM_SOURCE_DIR) + "/examples/asm/" + name;
  return std::filesystem::exists(example) ? example : std::string(IPUSIM_TEST_DIR) + "/asm/inputs/" + name;
}

/// Section contents and relocations of an object, for comparing round trips.
std::string fingerprint(const cc::ObjectFile &o) {
  std::string s;
  for (const cc::Section &sec : o.sections) {
    if (sec.isNobits() ? sec.size == 0 : sec.data.empty()) continue;
    s += sec.name + " size=" + std::to_string(sec.size) + ":";
    for (uint8_t b : sec.data) s += std::to_string(b) + ",";
    for (const cc::Relocation &r : sec.relocs)
      s += " [" + std::to_string(r.offset) + " " + cc::relocTypeName(r.type) + " " + o.symbols[r.symbol].name + "+" +
           std::to_string(r.addend) + "]";
    s += "\n";
  }
  std::set<std::string> globals;
  for (const cc::Symbol &sym : o.symbols)
    if (sym.binding != cc::SymbolBinding::Local)
      globals.insert("global " + sym.name + "@" + std::to_string(sym.value) +
                     (sym.section == cc::kUndefinedSection ? "U" : "") + "\n");
  for (const std::string &g : globals) s += g;
  return s;
}

TEST(Tools, ListMnemonics) {
  auto r = run(tool("ipu-as") + " --list-mnemonics");
  EXPECT_EQ(r.status, 0);
  std::string expect;
  for (const std::string &m : arch::allMnemonics()) expect += m + "\n";
  EXPECT_EQ(r.out, expect);
  EXPECT_GE(std::count(r.out.begin(), r.out.end(), '\n'), 230);
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, AssembleDisassembleReassembleGivesIdenticalBytes) {
  test::TempDir dir;
  std::string obj = dir.file("a.o"), src = dir.file("a.S"), obj2 = dir.file("b.o");
  auto as = run(tool("ipu-as") + " " + input(GetParam()) + " -o " + obj);
  ASSERT_EQ(as.status, 0) << as.err;
  auto dis = run(tool("ipu-objdump") + " --asm " + obj + " > " + src);
  ASSERT_EQ(dis.status, 0) << dis.err;
  auto as2 = run(tool("ipu-as") + " " + src + " -o " + obj2);
  ASSERT_EQ(as2.status, 0) << as2.err;
  EXPECT_EQ(fingerprint(cc::readElfFile(obj)), fingerprint(cc::readElfFile(obj2)));
  // The linked image round-trips too (its sections start at their addresses).
  std::string elf = dir.file("a.elf"), src3 = dir.file("c.S"), obj3 = dir.file("c.o");
  auto ld = run(tool("ipu-ld") + " -o " + elf + " " + obj);
  ASSERT_EQ(ld.status, 0) << ld.err;
  ASSERT_EQ(run(tool("ipu-objdump") + " --asm " + elf + " > " + src3).status, 0);
  auto as3 = run(tool("ipu-as") + " " + src3 + " -o " + obj3);
  ASSERT_EQ(as3.status, 0) << as3.err;
  cc::ObjectFile image = cc::readElfFile(elf), again = cc::readElfFile(obj3);
  for (const cc::Section &s : image.sections) {
    int i = again.findSection(s.name);
    ASSERT_GE(i, 0) << s.name;
    EXPECT_EQ(again.sections[size_t(i)].data, s.data) << s.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Inputs, RoundTrip,
                         ::testing::Values("vector_add.S", "amp_conv.S", "supervisor.S", "macros.S"));

TEST(Tools, EveryInstructionFormRoundTripsThroughTheTools) {
  // One instruction per table row (worker rows in a worker section, supervisor rows in a
  // supervisor one), with operands that exercise each field.
  std::string src[2];
  for (const arch::InsnDesc &d : arch::instructionTable()) {
    if (d.has(arch::kPseudo)) continue;
    bool sup = !(d.modes & arch::kWorker);
    int64_t values[arch::kMaxOperands];
    for (unsigned i = 0; i < d.numOperands; ++i) {
      const arch::OperandDesc &op = d.operands[i];
      int64_t max = (int64_t(1) << op.width) - 1;
      values[i] = op.isRegister() ? (op.isArf() ? 4 : 6)
                  : op.kind == arch::OperandKind::HighImm ? 0x3F800000
                  : op.kind == arch::OperandKind::Target || op.kind == arch::OperandKind::WordOffset ? 0x4C010
                  : op.kind == arch::OperandKind::MinusOne ? 2
                  : op.kind == arch::OperandKind::SImm ? -2
                                                        : std::min<int64_t>(max, 5);
    }
    src[sup] += "  " + cc::formatInstruction(d, arch::encode(d, values), sup) + "\n";
  }
  test::TempDir dir;
  std::string file = dir.file("all.s", "  .allow_invalid_repeat\n  .section .text.w, \"ax\"\n  .worker\n" + src[0] +
                                           "  .section .text.s, \"ax\"\n  .supervisor\n" + src[1]);
  std::string obj = dir.file("all.o"), back = dir.file("back.s"), obj2 = dir.file("back.o");
  auto r = run(tool("ipu-as") + " " + file + " -o " + obj);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(run(tool("ipu-objdump") + " --asm " + obj + " > " + back).status, 0);
  r = run(tool("ipu-as") + " " + back + " -o " + obj2);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(fingerprint(cc::readElfFile(obj)), fingerprint(cc::readElfFile(obj2)));
  EXPECT_GT(cc::readElfFile(obj).sections[0].data.size(), 4u * 300);
}

TEST(Tools, ListingShowsAddressesWordsBundlesAndSymbols) {
  test::TempDir dir;
  std::string obj = dir.file("v.o"), elf = dir.file("v.elf");
  ASSERT_EQ(run(tool("ipu-as") + " " + input("vector_add.S") + " -o " + obj).status, 0);
  ASSERT_EQ(run(tool("ipu-ld") + " -o " + elf + " " + obj).status, 0);
  auto r = run(tool("ipu-objdump") + " -d " + elf);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("0004c000 <VectorAdd_f32_worker>:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4c000:\t2100f401         \tget $m0, $WSR"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{ ld64step $a0:1, $mzero, $m1+=, $m6 ; fnop }"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<VectorAdd_f32>:"), std::string::npos);
  EXPECT_NE(r.out.find("setzi $m1, 0x4c000 <VectorAdd_f32_worker>"), std::string::npos) << r.out;
  auto o = run(tool("ipu-objdump") + " -d " + obj);
  EXPECT_NE(o.out.find("R_IPU_ZIMM20\tVectorAdd_f32_worker"), std::string::npos) << o.out;
}

TEST(Tools, ErrorsExitWithStatus1) {
  test::TempDir dir;
  std::string bad = dir.file("bad.S", "  nop\n  bogus $m0\n");
  auto r = run(tool("ipu-as") + " " + bad + " -o " + dir.file("x.o"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, bad + ":2:3: error: unknown instruction 'bogus'\n");
  // Preprocessor errors keep clang's file:line:col form.
  std::string inc = dir.file("inc.S", "#include \"nothere.h\"\n");
  r = run(tool("ipu-as") + " " + inc + " -o " + dir.file("y.o"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(inc + ":1:10: fatal error: 'nothere.h' file not found"), std::string::npos) << r.err;
  std::string o = dir.file("u.o");
  ASSERT_EQ(run(tool("ipu-as") + " " + dir.file("u.s", "  call $lr, nowhere\n") + " -o " + o).status, 0);
  r = run(tool("ipu-ld") + " -o " + dir.file("u.elf") + " " + o);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, dir.file("u.s") + ":1:3: error: undefined symbol 'nowhere'\n");
  r = run(tool("ipu-objdump") + " -d " + bad);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, bad + ": error: not an ELF file\n");
  r = run(tool("ipu-objdump") + " -d " + dir.file("missing.o"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, dir.file("missing.o") + ": error: no such file\n");
}

} // namespace
