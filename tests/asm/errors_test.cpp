// Every class of assembler error gives `file:line:col: error: ...` (and never a crash).
#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace ipusim;
using test::assembleError;

namespace {

TEST(AssemblerErrors, UnknownMnemonicAndDirective) {
  EXPECT_EQ(assembleError("  nop\n  fadd $a0, $a1, $a2\n"), "t.s:2:3: error: unknown instruction 'fadd'\n");
  EXPECT_EQ(assembleError(".wibble 3\n"), "t.s:1:1: error: unknown directive '.wibble'\n");
}

TEST(AssemblerErrors, MalformedOperands) {
  EXPECT_EQ(assembleError("add $m1, $m2\n"), "t.s:1:1: error: 'add' takes 3 operands, not 2\n");
  EXPECT_EQ(assembleError("add $m1, $m2, $a3\n"),
            "t.s:1:15: error: expected an MRF register ($m0-$m15), not $a3\n");
  EXPECT_EQ(assembleError("setzi $m1, 0x100000\n"),
            "t.s:1:12: error: immediate 1048576 is out of range [0, 1048575] for operand 2 of 'setzi'\n");
  EXPECT_EQ(assembleError("add $m16, $m1, 1\n"), "t.s:1:5: error: unknown register '$m16'\n");
  EXPECT_EQ(assembleError("f32v2add $a1:2, $a0:1, $a2:3\n"),
            "t.s:1:10: error: register group $a1:2 is not aligned (a pair starts at an even register, a quad at a multiple of 4)\n");
  // Read: an error; written, the SDK takes it (a discarded result, tests/asm/sdk_compat_test.cpp).
  EXPECT_EQ(assembleError("f32add $a0, $a9, $a1\n"),
            "t.s:1:13: error: register $a9 does not exist on Mk2 (ARF general registers are $a0-$a7)\n");
  EXPECT_EQ(assembleError("ld32 $m1, $m2, , 3\n"), "t.s:1:15: error: empty operand\n");
  EXPECT_EQ(assembleError("setzi $m1, (3 + \n"), "t.s:1:16: error: expected an expression\n");
  EXPECT_EQ(assembleError("setzi $m1, 4 / 0\n"), "t.s:1:14: error: division by zero\n");
  EXPECT_EQ(assembleError("get $m0, $NOPE\n"), "t.s:1:10: error: unknown CSR $NOPE\n");
  EXPECT_EQ(assembleError("brz $m0, 0x4C002\n"),
            "t.s:1:10: error: address 311298 is not a multiple of 4 for operand 2 of 'brz'\n");
}

TEST(AssemblerErrors, ModeChecks) {
  EXPECT_EQ(assembleError(".supervisor\nf32add $a0, $a1, $a2\n"),
            "t.s:2:1: error: 'f32add' with these operands requires worker mode (this code is in .supervisor mode)\n");
  EXPECT_EQ(assembleError(".supervisor\nget $m0, $WSR\n"),
            "t.s:2:10: error: CSR $WSR is only available in worker mode\n");
  EXPECT_EQ(assembleError(".worker\nput $CCCSLOAD, $m0\n"),
            "t.s:2:5: error: CSR $CCCSLOAD is only available in supervisor mode\n");
  EXPECT_EQ(assembleError("runall $m1, $m0, 0\n"),
            "t.s:1:1: error: 'runall' with these operands requires supervisor mode (this code is in .worker mode)\n");
  EXPECT_EQ(assembleError(".supervisor\nfnop\n"), "t.s:2:1: error: 'or' requires worker mode\n");
}

TEST(AssemblerErrors, BundleViolations) {
  EXPECT_EQ(assembleError("{ nop }\n"),
            "t.s:1:1: error: too few instructions in bundle (a bundle is one main and one aux instruction)\n");
  EXPECT_EQ(assembleError("{ nop ; fnop ; fnop }\n"),
            "t.s:1:16: error: too many instructions in bundle (a bundle is one main and one aux instruction)\n");
  EXPECT_EQ(assembleError("{ nop ; add $m0, $m1, 1 }\n"),
            "t.s:1:9: error: invalid instruction in bundle: 'or' and 'add' both issue on the main pipeline\n");
  EXPECT_EQ(assembleError("{ fnop ; f32add $a0, $a1, $a2 }\n"),
            "t.s:1:3: error: invalid instruction in bundle: 'or' and 'f32add' both issue on the aux pipeline\n");
  EXPECT_EQ(assembleError("{ fnop ; nop }\n"),
            "t.s:1:3: error: invalid instruction in bundle: the main-pipeline instruction 'or' must come first\n");
  EXPECT_EQ(assembleError("{ ld64 $a0:1, $m0, 0 ; f32add $a1, $a2, $a3 }\n"),
            "t.s:1:24: error: bundle instructions cannot write to the same register ($a1)\n");
  EXPECT_EQ(assembleError(".supervisor\n{ sync 2 ; nop }\n"), "t.s:2:3: error: 'sync' cannot be bundled\n");
  EXPECT_EQ(assembleError("{ nop ; { fnop }\n"), "t.s:1:9: error: '{' inside a bundle\n");
  EXPECT_EQ(assembleError("nop }\n"), "t.s:1:5: error: '}' without '{'\n");
  EXPECT_EQ(assembleError("{ nop ;\n"), "t.s:1:1: error: '{' without '}'\n");
  EXPECT_EQ(assembleError("{ ldconst $m0, 0x12345678 ; fnop }\n"),
            "t.s:1:3: error: this instruction expands to two instructions and cannot be bundled\n");
}

TEST(AssemblerErrors, RepeatBodies) {
  // rpt at an 8-byte boundary leaves its body at +4.
  EXPECT_EQ(assembleError(".align 8\nrpt $m0, 0\n{ nop ; fnop }\n"),
            "t.s:2:1: error: repeat body must start on an 8-byte boundary: the instruction after 'rpt' is at offset 4 "
            "of '.text' (bundle the rpt with an fnop or put a nop before it)\n");
  EXPECT_EQ(assembleError("{ rpt $m0, 1 ; fnop }\n{ nop ; fnop }\nnop\nnop\n"),
            "t.s:3:1: error: 'or' in a repeat body must be bundled (a repeat body is counted in bundles)\n");
  EXPECT_EQ(assembleError("{ rpt $m0, 0 ; fnop }\n{ brz $m1, 0 ; fnop }\n"),
            "t.s:2:3: error: 'brz' is not allowed in a repeat body (control, system and solo instructions)\n");
  EXPECT_EQ(assembleError("{ rpt $m0, 1 ; fnop }\n{ nop ; fnop }\n"),
            "t.s:1:3: error: repeat body of 2 bundles runs past the end of section '.text'\n");
  EXPECT_EQ(assembleError("{ rpt $m0, 256 ; fnop }\n"),
            "t.s:1:12: error: immediate 256 is out of range [0, 255] for operand 2 of 'rpt'\n");
  // .allow_invalid_repeat turns the checks off, as in the Colossus assembler.
  EXPECT_EQ(assembleError(".allow_invalid_repeat\n{ rpt $m0, 0 ; fnop }\n{ brz $m1, 0 ; fnop }\n"), "");
}

TEST(AssemblerErrors, DirectivesMacrosAndSymbols) {
  EXPECT_EQ(assembleError(".error \"unsupported type\"\n"), "t.s:1:1: error: unsupported type\n");
  EXPECT_EQ(assembleError(".if 1\nnop\n"), "t.s:1:1: error: '.if' without '.endif'\n");
  EXPECT_EQ(assembleError(".else\n"), "t.s:1:1: error: '.else' without '.if'\n");
  EXPECT_EQ(assembleError(".macro M\nnop\n"), "t.s:1:1: error: '.macro' without '.endm'\n");
  EXPECT_EQ(assembleError(".macro M a:req\nnop\n.endm\nM\n"),
            "t.s:4:1: error: missing value for required parameter 'a' of macro 'M'\n");
  EXPECT_EQ(assembleError(".macro M\nM\n.endm\nM\n").substr(0, 50),
            "t.s:2:1: error: macros nested more than 100 deep (");
  EXPECT_EQ(assembleError("a:\na:\n"), "t.s:2:1: error: symbol 'a' is already defined\n");
  EXPECT_EQ(assembleError("bri 1f\n"), "t.s:1:5: error: local label '1' is never defined after this point\n");
  EXPECT_EQ(assembleError("bri 1b\n"), "t.s:1:5: error: no earlier definition of local label '1'\n");
  EXPECT_EQ(assembleError(".if undefined_thing\n.endif\n"), "t.s:1:5: error: the condition must be known at this point\n");
  EXPECT_EQ(assembleError("rpt $m0, sym\n"), "t.s:1:10: error: this operand must be a constant, but it refers to symbol 'sym'\n");
  EXPECT_EQ(assembleError(".data\nnop\n"), "t.s:2:1: error: instruction in section '.data', which is not executable\n");
  EXPECT_EQ(assembleError(".byte 256\n"), "t.s:1:7: error: value 256 does not fit in 1 byte\n");
  EXPECT_EQ(assembleError(".align 3\n"), "t.s:1:8: error: alignment must be a power of two up to 4096, not 3\n");
}

TEST(AssemblerErrors, SeveralErrorsAreAllReported) {
  EXPECT_EQ(assembleError("foo\nbar\n"),
            "t.s:1:1: error: unknown instruction 'foo'\nt.s:2:1: error: unknown instruction 'bar'\n");
}

} // namespace

namespace {
std::string repeat(const std::string &s, unsigned n) {
  std::string out;
  for (unsigned i = 0; i < n; ++i) out += s;
  return out;
}
// An error inside a macro names each expansion, innermost first, at the line that invoked it.
TEST(AssemblerErrors, NamesTheMacroExpansionChain) {
  EXPECT_EQ(assembleError(".macro INNER r\n  add \\r, $m1, $a3\n.endm\n.macro OUTER r\n  INNER \\r\n.endm\n"
                          "OUTER $m2\n"),
            "t.s:2:17: error: expected an MRF register ($m0-$m15), not $a3\n"
            "t.s:5:3: note: in expansion of macro 'INNER'\n"
            "t.s:7:1: note: in expansion of macro 'OUTER'\n");
  // Outside the macro again: no notes.
  EXPECT_EQ(assembleError(".macro OK\n  nop\n.endm\nOK\nbogus\n"), "t.s:5:1: error: unknown instruction 'bogus'\n");
}

} // namespace

// Expressions deeper than the assembler takes (issue 14: these crashed with unbounded recursion
// in the parser and evaluator) are errors at the column where the limit is crossed.
TEST(AssemblerErrors, DeepExpressions) {
  // 50,000 terms: a left-deep tree of additions; the expression starts at column 6, so the
  // 1,001st '+' is at column 7 + 2 * 1000.
  std::string terms = "1" + repeat("+1", 49999);
  EXPECT_EQ(assembleError(".section .data\n.int " + terms + "\n"), "t.s:2:2007: error: expression more than 1000 operators deep\n");
  EXPECT_EQ(assembleError(".section .data\n.int " + repeat("(", 200000) + "1" + repeat(")", 200000) + "\n"),
            "t.s:2:1006: error: expression nested more than 1000 levels deep\n");
  EXPECT_EQ(assembleError(".section .data\n.int " + repeat("-", 100000) + "1\n"),
            "t.s:2:1006: error: expression nested more than 1000 levels deep\n");
  // At the limit it assembles: 1000 nested parentheses, and 1000 additions.
  EXPECT_EQ(assembleError(".section .data\n.int " + repeat("(", 1000) + "1" + repeat(")", 1000) + "\n"), "");
  EXPECT_EQ(assembleError(".section .data\n.int 1" + repeat("+1", 1000) + "\n"), "");
}
