// Compatibility rules of the SDK's assembler that poplibs' assembly relies on (issue 13), one
// test per failure kind seen in the sweep of its 180 files (scripts/poplibs-sweep.sh), each with
// a small source of our own that reproduces it. docs/poplibs-compat.md lists the rules.
#include "TestUtil.h"

#include "ipusim/arch/InsnText.h"
#include "ipusim/arch/Isa.h"

#include <gtest/gtest.h>

using namespace ipusim;
using test::assemble;
using test::assembleError;
using test::word;
using test::words;

namespace {

// GNU as / LLVM: a macro value written as one quoted string is substituted without its quotes
// (poplibs: `OPTIONAL_NOP=""`), and `\()` joins a parameter to the text after it.
TEST(SdkCompat, QuotedMacroValuesExpandWithoutQuotes) {
  auto w = words(assemble(".macro PAD EXTRA=\"\"\n  \\EXTRA\n  setzi $m0, 1\n.endm\n"
                          "PAD\nPAD \"nop\"\nPAD EXTRA=\"setzi $m1, 2\"\n"));
  ASSERT_EQ(w.size(), 5u);
  EXPECT_EQ(w[0], word("setzi $m0, 1"));
  EXPECT_EQ(w[1], arch::nopWord());
  EXPECT_EQ(w[3], word("setzi $m1, 2"));
  auto j = assemble(".macro DEF n\nsym_\\n\\()_end:\n  nop\n.endm\nDEF 7\n");
  EXPECT_GE(j.findSymbol("sym_7_end"), 0);
}

// `.ifc`/`.ifnc`: the first string ends at the first comma, the second is the rest of the
// statement. poplibs' `.ifnc, \NANOO, true` compares "" with "true, true": always unequal.
TEST(SdkCompat, IfcSecondStringIsTheRestOfTheStatement) {
  const char *src = ".macro M v\n.ifnc, \\v, true\n  setzi $m0, 1\n.endif\n"
                    ".ifc \\v, a, b\n  setzi $m1, 2\n.endif\n.endm\nM true\nM false\n";
  auto w = words(assemble(src));
  ASSERT_EQ(w.size(), 2u); // the .ifnc block twice; "true" is never "a, b"
  EXPECT_EQ(w[0], word("setzi $m0, 1"));
  EXPECT_EQ(words(assemble(".ifc a, b, c\nnop\n.endif\n.ifc a, a, b\nnop\n.endif\n.ifc x,y, z\n.else\nnop\n.endif\n"))
                .size(),
            1u);
  EXPECT_EQ(assembleError(".ifc a\n.endif\n"), "t.s:1:6: error: '.ifc' needs two comma-separated strings\n");
}

// `sub $mA, $mB, imm` is `add $mA, $mB, -imm` (17 poplibs files write `sub $mcount, $mcount, 1`).
TEST(SdkCompat, SubOfAnImmediateIsAddOfItsNegation) {
  EXPECT_EQ(word("sub $m1, $m1, 1"), word("add $m1, $m1, -1"));
  EXPECT_EQ(word("sub $m2, $m3, ((4 + 2)/2) * 2"), word("add $m2, $m3, -6"));
  EXPECT_EQ(word(".equ K, 32768\nsub $m2, $m3, K"), word("add $m2, $m3, -32768"));
  EXPECT_EQ(word("sub $m1, 5, $m2"), word("sub $m1, 5, $m2")); // the ISA's own form is unchanged
  EXPECT_EQ(assembleError("sub $m1, $m1, 32769\n"),
            "t.s:1:15: error: immediate 32769 is out of range [-32767, 32768] for operand 3 of 'sub' "
            "(assembled as 'add' of its negation)\n");
  // A value known only at link time goes through the same field as `add`'s.
  EXPECT_EQ(words(assemble("sub $m1, $m1, later\n.equ later, 3\n"))[0], word("add $m1, $m1, -3"));
}

// poplibs' headers define register groups over two lines, `#define X a4: \ 5`: after
// preprocessing a group or broadcast suffix may have blanks around its ':'.
TEST(SdkCompat, BlanksAroundTheColonOfARegisterGroup) {
  EXPECT_EQ(word("f32v2add $a4 : 5, $a0:1, $a2 :3"), word("f32v2add $a4:5, $a0:1, $a2:3"));
  EXPECT_EQ(word("ld64step $a4: 5, $mzero, $m1+=, 6"), word("ld64step $a4:5, $mzero, $m1+=, 6"));
  EXPECT_EQ(word("f16v4mul $a0:1, $a2 : BL, $a4:5"), word("f16v4mul $a0:1, $a2:BL, $a4:5"));
}

// A section name is the text up to the comma: macros make names with parentheses in them.
// `.type` takes its comma optionally; `.globl X, @function` declares a stray `@function`.
TEST(SdkCompat, SectionNamesTypeAndGloblAsTheSdkReadsThem) {
  auto o = assemble(".section .text.f(true_1)_entry), \"ax\"\n.globl f, @function\n.type f @function\nf:\n  nop\n");
  ASSERT_GE(o.findSection(".text.f(true_1)_entry)"), 0);
  int f = o.findSymbol("f");
  ASSERT_GE(f, 0);
  EXPECT_EQ(o.symbols[size_t(f)].type, cc::SymbolType::Func);
  EXPECT_EQ(o.symbols[size_t(f)].binding, cc::SymbolBinding::Global);
  EXPECT_LT(o.findSymbol("@function"), 0);
  EXPECT_EQ(assembleError(".section .text.a b, \"ax\"\n"), "t.s:1:10: error: expected a section name, not '.text.a b'\n");
  EXPECT_EQ(assembleError(".type f @wibble\n"), "t.s:1:9: error: unknown symbol type '@wibble'\n");
}

// Floating-point literals with an `h` or `f` suffix are the bits of the value (poplibs:
// `setzi $ascratch, -1.0h`); a minus sign makes the literal of the negative value.
TEST(SdkCompat, FloatingPointLiterals) {
  EXPECT_EQ(word("setzi $a0, -1.0h"), word("setzi $a0, 0xBC00"));
  EXPECT_EQ(word("setzi $a0, 0.5h"), word("setzi $a0, 0x3800"));
  EXPECT_EQ(word("setzi $a0, 65504.0h"), word("setzi $a0, 0x7BFF"));
  EXPECT_EQ(word("setzi $a0, 1.0e-7h"), word("setzi $a0, 0x0002")); // subnormal: 1e-7 / 2^-24 = 1.68 -> 2
  cc::ObjectFile d = assemble(".data\n.int 1.5f, -2.0f\n");
  const auto &data = d.sections[size_t(d.findSection(".data"))].data;
  ASSERT_EQ(data.size(), 8u);
  EXPECT_EQ(data[3], 0x3F); // 0x3FC00000
  EXPECT_EQ(data[2], 0xC0);
  EXPECT_EQ(data[7], 0xC0); // 0xC0000000
  EXPECT_EQ(assembleError("setzi $a0, 1.5\n"),
            "t.s:1:12: error: floating-point literal '1.5' needs a suffix: 'h' (half) or 'f' (float)\n");
  EXPECT_NO_THROW(assemble("setzi $a0, 1f\n1:\n")); // `1f` stays a label reference
}

// `.endm` may follow the body's statements on one line after `;` (poplibs' inline assembly:
// `.macro instruction OPERANDS:vararg; f32exp \OPERANDS; .endm;`), and statements may follow it.
TEST(SdkCompat, OneLineMacroDefinitions) {
  auto w = words(assemble(".macro instr OPS:vararg\n  f32exp \\OPS; .endm; setzi $m1, 2\ninstr $a0, $a1\n"));
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], word("setzi $m1, 2"));
  EXPECT_EQ(w[1], word("f32exp $a0, $a1"));
  EXPECT_EQ(words(assemble(".macro two a; setzi $m0, \\a; setzi $m1, \\a; .endm\ntwo 3\n")).size(), 2u);
}

// $azero read where an MRF register goes is $mzero (register 15 in both files): poplibs writes
// `ld32 $a0, $m1, $azero, 0`. Written, it stays an error.
TEST(SdkCompat, AzeroReadInAnMrfSlot) {
  EXPECT_EQ(word(".worker\nld32 $a0, $m1, $azero, 0"), word(".worker\nld32 $a0, $m1, $mzero, 0"));
  EXPECT_EQ(word("add $m2, $azero, 5"), word("add $m2, $mzero, 5"));
  EXPECT_NE(assembleError("add $azero, $m1, 5\n"), "");
}

// get/put with an ARF register are uget/uput (poplibs: `get $a6, $TAS`).
TEST(SdkCompat, GetAndPutWithArfRegistersAreUgetAndUput) {
  EXPECT_EQ(word(".worker\nget $a6, $TAS"), word(".worker\nuget $a6, $TAS"));
  EXPECT_EQ(word(".worker\nput $FP_CLR, $a2"), word(".worker\nuput $FP_CLR, $a2"));
  EXPECT_EQ(assembleError(".worker\nget $a6, $WSR\n"), "t.s:2:10: error: CSR $WSR is accessed with get/put\n");
}

// `:B` on a half broadcast is `:BL`, and `:BL` on a 32-bit broadcast is `:B` (poplibs:
// `f16v4mul $a2:3, $a0:B, $a4:5`, `f32v2mul $a0:1, $a4:BL, $a0:1`); other suffixes stay errors.
TEST(SdkCompat, BroadcastSuffixesBAndBLAreOneForm) {
  EXPECT_EQ(word("f16v4mul $a2:3, $a0:B, $a4:5"), word("f16v4mul $a2:3, $a0:BL, $a4:5"));
  EXPECT_EQ(word("f32v2mul $a0:1, $a4:BL, $a0:1"), word("f32v2mul $a0:1, $a4:B, $a0:1"));
  EXPECT_NE(word("f16v4mul $a2:3, $a0:B, $a4:5"), word("f16v4mul $a2:3, $a0:BU, $a4:5"));
  EXPECT_EQ(assembleError("f32v2mul $a0:1, $a4:BU, $a0:1\n"),
            "t.s:1:17: error: expected an aligned ARF register pair ($aN:N+1), not $a4:BU\n");
}

// `#` starts a comment anywhere on a line, as `//` does (poplibs' inline assembly writes
// `ld64step $a2:3, $mzero, %[rhs]+=, 1 # Load first rhs`); line markers stay line markers.
TEST(SdkCompat, HashStartsAComment) {
  EXPECT_EQ(word("setzi $m1, 2 # two"), word("setzi $m1, 2"));
  EXPECT_EQ(word("# a whole-line comment\nsetzi $m1, 2"), word("setzi $m1, 2"));
  EXPECT_EQ(assembleError("# 40 \"k.S\"\nbogus\n"), "k.S:40:1: error: unknown instruction 'bogus'\n");
}

// $a8-$a13 do not exist on Mk2, but the SDK's assembler takes them as destinations: poplibs
// discards AMP results into `$a10:11` (its NULL2). As sources they are still an error.
TEST(SdkCompat, ReservedArfRegistersAsDiscardedDestinations) {
  uint32_t w = word("f32v2add $a10:11, $a0:1, $a2:3");
  ASSERT_NE(arch::decode(w), nullptr);
  EXPECT_EQ(arch::formatInstruction(*arch::decode(w), w, false), "f32v2add $a10:11, $a0:1, $a2:3");
  EXPECT_EQ(assembleError("f32v2add $a0:1, $a10:11, $a2:3\n"),
            "t.s:1:17: error: register $a10:11 does not exist on Mk2 (ARF general registers are $a0-$a7)\n");
}

// The rule behind 25 files' rpt failures: a bundle goes at the next word with no pad, so a bundle
// at 4 mod 8 followed by a single `rpt` puts the body on 8 bytes (vectorInnerAdd_float.S's shape).
TEST(SdkCompat, BundleAtFourModEightThenRptAlignsTheBody) {
  const char *src = "setzi $m0, 1\n"             // 0
                    "{ setzi $m1, 2 ; fnop }\n"   // 4: a bundle at 4 mod 8
                    "rpt $m0, (2f - 1f) / 8 - 1\n" // 12
                    "1:\n"                        // 16: the body, on 8 bytes
                    "{ add $m1, $m1, 1 ; fnop }\n"
                    "2:\n";
  auto w = words(assemble(src));
  ASSERT_EQ(w.size(), 6u);
  EXPECT_EQ(w[4], word("add $m1, $m1, 1") | arch::kCoissueBit);
  // Padding before the bundle would have put the body at 4 mod 8, which rpt refuses.
  EXPECT_EQ(assembleError("{ setzi $m1, 2 ; fnop }\nrpt $m0, (2f - 1f) / 8 - 1\n1:\n{ nop ; fnop }\n2:\n"),
            "t.s:2:1: error: repeat body must start on an 8-byte boundary: the instruction after 'rpt' is at "
            "offset 12 of '.text' (bundle the rpt with an fnop or put a nop before it)\n");
}

} // namespace
