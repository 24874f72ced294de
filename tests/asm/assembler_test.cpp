// The assembler: directives, macros, conditionals, expressions, pseudo-instructions, bundles,
// rpt, symbols, relocations and the line table, with exact words and values.
#include "TestUtil.h"

#include "ipusim/arch/Isa.h"

#include <gtest/gtest.h>

using namespace ipusim;
using test::assemble;
using test::word;
using test::words;

namespace {

const uint32_t kNop = arch::nopWord();

TEST(Assembler, PseudoInstructions) {
  EXPECT_EQ(word("nop"), word("or $mzero, $mzero, 0"));
  EXPECT_EQ(word("fnop"), word("or $azero, $azero, 0"));
  EXPECT_EQ(word("zero $m3"), word("or $m3, $mzero, 0"));
  EXPECT_EQ(word("zero $a2"), word("or $a2, $azero, 0"));
  EXPECT_EQ(word("zero $a2:3"), word("or64 $a2:3, $azeros, $azeros"));
  EXPECT_EQ(word("mov $m1, $m2"), word("or $m1, $m2, $mzero"));
  EXPECT_EQ(word("mov $a1, $a2"), word("or $a1, $a2, $azero"));
  EXPECT_EQ(word("mov $a0:1, $a4:5"), word("or64 $a0:1, $a4:5, $azeros"));
  EXPECT_EQ(word("mov $m1, $a2"), word("atom $m1, $a2"));
  EXPECT_EQ(word("movz $m1, $m2, $m3"), word("movnz $m1, $m2, $m3")); // asm-dialect §2.1: old name
  // ldconst: setzi for the low 20 bits, `or` of the top 12 (asm-dialect §2.1).
  EXPECT_EQ(word("ldconst $m1, 0x12345"), word("setzi $m1, 0x12345"));
  EXPECT_EQ(word("ldconst $a1, 0x3f800000"), word("or $a1, $azero, 0x3f800000"));
  auto two = words(assemble("ldconst $m2, 0x3f812345"));
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0], word("setzi $m2, 0x12345"));
  EXPECT_EQ(two[1], word("or $m2, $m2, 0x3f800000"));
  EXPECT_EQ(words(assemble("ldconst $m2, -1")).size(), 2u);
}

TEST(Assembler, ThreeOperandMemoryFormsMeanDeltaZero) {
  EXPECT_EQ(word("ld32 $m1, $m2, 3"), word("ld32 $m1, $m2, $mzero, 3"));
  EXPECT_EQ(word("ld32 $a1, $m2, $m4"), word("ld32 $a1, $m2, $mzero, $m4"));
  EXPECT_EQ(word("st64 $a0:1, $m2, 1"), word("st64 $a0:1, $m2, $mzero, 1"));
  EXPECT_EQ(word("ldz16 $m0, $m13, 5"), word("ldz16 $m0, $mvertex_base, $mzero, 5"));
}

TEST(Assembler, ImmediateVariantsAreChosenByValue) {
  // add has simm16 and zimm16 forms: -1 needs the signed one, 0xFFFF the unsigned one.
  EXPECT_EQ(arch::decode(word("add $m0, $m1, -1"))->operands[2].kind, arch::OperandKind::SImm);
  EXPECT_EQ(arch::decode(word("add $m0, $m1, 0xFFFF"))->operands[2].kind, arch::OperandKind::UImm);
  // or has zimm12 (low bits) and immz12 (top 12 bits) forms.
  EXPECT_EQ(arch::decode(word("or $a0, $a0, 0xFFF"))->operands[2].kind, arch::OperandKind::UImm);
  EXPECT_EQ(arch::decode(word("or $a0, $a0, 0x7F800000"))->operands[2].kind, arch::OperandKind::HighImm);
  // CSR indices may carry the upper-space flag of CSR_W_FP_CTL__INDEX (258 = 0x100 + 2).
  EXPECT_EQ(word("uput 258, $a0"), word("uput $FP_CTL, $a0"));
  EXPECT_EQ(word(".supervisor\nld64putcs $CWEI_2_1"), word(".supervisor\nld64putcs 9"));
}

TEST(Assembler, MacrosWithDefaultsNamedArgumentsCounterAndConcatenation) {
  auto obj = assemble(R"(
.macro LOADW reg, base=$mzero, off=0
  ld32 \reg, \base, \off
.endm
.macro LABELLED name
\name\()_start\@:
  nop
.endm
  LOADW $m1
  LOADW $m2, $m3, 4
  LOADW off=2, reg=$m5, base=$m6
  LABELLED foo
  LABELLED foo
)");
  auto w = words(obj);
  ASSERT_EQ(w.size(), 5u);
  EXPECT_EQ(w[0], word("ld32 $m1, $mzero, $mzero, 0"));
  EXPECT_EQ(w[1], word("ld32 $m2, $m3, $mzero, 4"));
  EXPECT_EQ(w[2], word("ld32 $m5, $m6, $mzero, 2"));
  EXPECT_GE(obj.findSymbol("foo_start3"), 0); // \@ counts macro expansions: this is the fourth
  EXPECT_GE(obj.findSymbol("foo_start4"), 0);
  EXPECT_EQ(obj.symbols[size_t(obj.findSymbol("foo_start4"))].value, 16u);
}

TEST(Assembler, NestedMacrosExitmAndRept) {
  auto w = words(assemble(R"(
.macro INNER r
  setzi \r, 1
.endm
.macro OUTER r, n
  INNER \r
  .ifeq \n
    .exitm
  .endif
  setzi \r, \n
.endm
  OUTER $m1, 0
  OUTER $m2, 7
  .rept 2
  nop
  .endr
)"));
  ASSERT_EQ(w.size(), 5u);
  EXPECT_EQ(w[0], word("setzi $m1, 1"));
  EXPECT_EQ(w[1], word("setzi $m2, 1"));
  EXPECT_EQ(w[2], word("setzi $m2, 7"));
  EXPECT_EQ(w[3], kNop);
  EXPECT_EQ(w[4], kNop);
}

TEST(Assembler, Conditionals) {
  auto w = words(assemble(R"(
.equ MODE, 2
.if MODE == 1
  setzi $m0, 1
.elseif MODE == 2
  setzi $m0, 2
.else
  setzi $m0, 3
.endif
.macro PICK kind
.ifc \kind, float
  setzi $m1, 4
.else
.ifnc \kind, half
  .error "bad kind"
.endif
  setzi $m1, 2
.endif
.endm
  PICK float
  PICK half
.ifeqs "a", "a"
  setzi $m2, 9
.endif
.ifdef MODE
  setzi $m3, 1
.endif
.ifndef NOPE
  setzi $m4, 1
.endif
.if 0
  .if 1
    this would not assemble
  .endif
.endif
)"));
  ASSERT_EQ(w.size(), 6u);
  EXPECT_EQ(w[0], word("setzi $m0, 2"));
  EXPECT_EQ(w[1], word("setzi $m1, 4"));
  EXPECT_EQ(w[2], word("setzi $m1, 2"));
  EXPECT_EQ(w[3], word("setzi $m2, 9"));
  EXPECT_EQ(w[4], word("setzi $m3, 1"));
  EXPECT_EQ(w[5], word("setzi $m4, 1"));
}

TEST(Assembler, LocalLabelsAndRptBodySize) {
  // The idiom `rpt $n, (2f - 1f)/8 - 1` (asm-dialect §2.3): a body of 3 bundles gives 2.
  auto obj = assemble(R"(
  .align 8
  { rpt $m0, (2f - 1f) / 8 - 1 ; fnop }
1:
  { ld64step $a0:1, $mzero, $m1+=, 1 ; fnop }
  { nop ; f32v2add $a2:3, $a0:1, $a2:3 }
  { nop ; fnop }
2:
1:
  brnzdec $m3, 1b
  bri 1f
1:
  exitz $mzero
)");
  auto w = words(obj);
  ASSERT_EQ(w.size(), 11u);
  EXPECT_EQ(w[0] & 0xFF, 2u);
  // The branches are relocated against the section: 1b is offset 32, 1f offset 40.
  const auto &rel = obj.sections[size_t(obj.findSection(".text"))].relocs;
  ASSERT_EQ(rel.size(), 2u);
  EXPECT_EQ(rel[0].offset, 32u);
  EXPECT_EQ(rel[0].type, cc::R_IPU_TARGET19);
  EXPECT_EQ(rel[0].addend, 32);
  EXPECT_EQ(rel[1].offset, 36u);
  EXPECT_EQ(rel[1].addend, 40);
}

TEST(Assembler, BundlesGoAtAnyWordWithoutPadding) {
  // poplibs counts on this (issue 13): vectorInnerAdd_float.S places { ld32step ; f32mul } then a
  // single rpt so that the repeat body lands on 8 bytes, which only works if the bundle may sit at
  // 4 mod 8. A nop here would push that body to 4 mod 8.
  auto w = words(assemble("setzi $m0, 1\n{ setzi $m1, 2 ; setzi $a0, 3 }\n"));
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[1], word("setzi $m1, 2") | arch::kCoissueBit);
  EXPECT_EQ(w[2], word("setzi $a0, 3") | arch::kCoissueBit);
  // Multi-line bundle syntax gives the same bytes.
  auto m = words(assemble("setzi $m0, 1\n{\n  setzi $m1, 2\n  setzi $a0, 3\n}\n"));
  EXPECT_EQ(m, w);
}

TEST(Assembler, DataDirectivesSymbolsAndRelocations) {
  auto obj = assemble(R"(
  .section .data.state, "aw"
  .globl state
  .type state, @object
state:
  .int 0x11223344, extern_sym + 8
  .short -2, 0x1234
  .byte 1, 2, 0xFF
  .align 4
  .scaled_ptr64 buffer
  .space 2, 0xAB
  .size state, . - state
  .equ SIZE, 0x40
  .set SIZE2, SIZE * 2
  .int SIZE2
  .section .bss.buf, "aw", @nobits
  .align 16
buffer:
  .space 64
)");
  int d = obj.findSection(".data.state");
  ASSERT_GE(d, 0);
  const auto &s = obj.sections[size_t(d)];
  std::vector<uint8_t> expect = {0x44, 0x33, 0x22, 0x11, 0, 0, 0, 0, 0xFE, 0xFF, 0x34, 0x12, 1, 2, 0xFF, 0,
                                 0, 0, 0xAB, 0xAB, 0x80, 0, 0, 0};
  EXPECT_EQ(s.data, expect);
  ASSERT_EQ(s.relocs.size(), 2u);
  EXPECT_EQ(s.relocs[0].offset, 4u);
  EXPECT_EQ(s.relocs[0].type, cc::R_IPU_32);
  EXPECT_EQ(obj.symbols[s.relocs[0].symbol].name, "extern_sym");
  EXPECT_EQ(obj.symbols[s.relocs[0].symbol].section, cc::kUndefinedSection);
  EXPECT_EQ(s.relocs[0].addend, 8);
  EXPECT_EQ(s.relocs[1].type, cc::R_IPU_SCALED_PTR64);
  const cc::Symbol &st = obj.symbols[size_t(obj.findSymbol("state"))];
  EXPECT_EQ(st.size, 20u);
  EXPECT_EQ(st.binding, cc::SymbolBinding::Global);
  EXPECT_EQ(st.type, cc::SymbolType::Object);
  const auto &bss = obj.sections[size_t(obj.findSection(".bss.buf"))];
  EXPECT_TRUE(bss.isNobits());
  EXPECT_EQ(bss.size, 64u);
  EXPECT_EQ(bss.align, 16u);
}

TEST(Assembler, SupervisorCodeAndModeInLineTable) {
  auto obj = assemble(R"(
  .section .text.sup, "ax"
  .supervisor
  setzi $m1, worker
  runall $m1, $m0, 0
  sync 2
  put $CCCSLOAD, $m2
  ld128putcs 3
  br $lr
  .worker
worker:
  get $m0, $WSR
  exitz $mzero
)");
  ASSERT_EQ(obj.lines.size(), 8u);
  EXPECT_EQ(obj.lines[0].flags & cc::kLineSupervisor, cc::kLineSupervisor);
  EXPECT_EQ(obj.lines[0].line, 4u);
  EXPECT_EQ(obj.lines[0].column, 3u);
  EXPECT_EQ(obj.lines[6].flags & cc::kLineSupervisor, 0);
  EXPECT_EQ(obj.location(obj.lines[6]), "t.s:12:3");
}

TEST(Assembler, PreprocessorWithBuiltinHeadersIncludesAndDefines) {
  test::TempDir dir;
  dir.file("local.h", "#define LOCAL_VALUE 77\n");
  std::string src = dir.file("x.S", R"(#include "poplar/TileConstants.hpp"
#include "poplar/AvailableVTypes.h"
#include "poplar/StackSizeDefs.hpp"
#include <local.h>
  .section .text.x, FUNCTION_IS_WORKER
x:
  setzi $m0, CTXT_WORKERS
  setzi $m1, LOCAL_VALUE
  setzi $m2, FROM_CMDLINE
#if defined(__IPU__) && __IPU_ARCH_VERSION__ == 2 && VECTOR_AVAIL_SCALED_PTR64
  setzi $m3, TMEM_REGION0_BASE_ADDR
#endif
  uput CSR_W_FP_CTL__INDEX, $a0
DEF_STACK_USAGE 16 x
)");
  cc::AssemblerOptions opt;
  opt.includeDirs.push_back(dir.path.string());
  opt.defines.push_back("FROM_CMDLINE=5");
  auto obj = cc::assembleFile(src, opt);
  auto w = words(obj, ".text.x");
  ASSERT_EQ(w.size(), 5u);
  EXPECT_EQ(w[0], word("setzi $m0, 6"));
  EXPECT_EQ(w[1], word("setzi $m1, 77"));
  EXPECT_EQ(w[2], word("setzi $m2, 5"));
  EXPECT_EQ(w[3], word("setzi $m3, 0x4c000"));
  EXPECT_EQ(w[4], word("uput $FP_CTL, $a0"));
  int su = obj.findSymbol("x.stack_usage");
  ASSERT_GE(su, 0);
  EXPECT_EQ(obj.symbols[size_t(su)].section, cc::kAbsoluteSection);
  EXPECT_EQ(obj.symbols[size_t(su)].value, 16u);
  EXPECT_EQ(obj.location(obj.lines[0]), src + ":7:3");
}

} // namespace
