// The ISA table: coverage of the dialect's mnemonics, unambiguous encodings, the published
// encodings, and assemble -> disassemble -> re-assemble for every row.
#include "TestUtil.h"

#include "ipusim/arch/Isa.h"
#include "ipusim/arch/Registers.h"
#include "ipusim/cc/Disassembler.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <sstream>

using namespace ipusim;
using namespace ipusim::arch;

namespace {

// The 179 mnemonics used by poplibs' assembly (asm-dialect §2.1), plus f32fromi32 and lds8step
// from the historical files.
const char *kPoplibsMnemonics[] = {
    "ld32", "add", "ld64putcs", "st32", "ld2x64pace", "ld32step", "brz", "setzi", "ldz16", "and",
    "ld64step", "shr", "ldz16step", "ld64", "brnzdec", "shl", "mul", "fnop", "bri", "mov", "exitz",
    "rpt", "st32step", "st64pace", "st64step", "f32sisoamp", "sub", "nop", "brnz", "ld128putcs",
    "ldst64pace", "f16v4hihoamp", "f32sisov2amp", "or", "f32v2gina", "f32v2mul", "f16v4mul", "cmpult",
    "uput", "st64", "ldb16", "ldb16step", "get", "f16v4sisoamp", "f16v4hihov4amp", "cmpeq",
    "ld2xst64pace", "sort4x16lo", "call", "brneg", "f16v2tof32", "and64", "f16v4mix", "f32add",
    "f32v2add", "f16v4hihoslic", "br", "tapack", "sync", "roll16", "f32v2axpy", "or64", "f32mul",
    "f16v2gina", "ldz8", "f32v4acc", "f32v2tof16", "runall", "min", "ldconst", "f16v8acc", "zero",
    "f16v4acc", "andc64", "atom", "f16v2mul", "f16v4add", "sort4x16hi", "brpos", "f16tof32",
    "f16v4cmac", "put", "f32tof16", "andc", "f32div", "movnz", "f32v2sub", "f16v2add", "ldd16a64",
    "exitnz", "ldz8step", "ldd16b16", "f32v2clamp", "urand64", "f32v2cmpeq", "f16v2exp", "f32v2mac", "f32exp",
    "ldd16a32", "ld128", "f32sub", "f16v2grand", "f16v2sigm", "f32sigm", "f16v4clamp", "f32v4tof16",
    "f16v2cmac", "ld128step", "f16v2clamp", "f16v4cmpeq", "roll8r", "f16v4stacc", "lds16",
    "f16v2sub", "f32oox", "f32oorx", "f16v4istacc", "f32mac", "f16v2ln", "f16v4sub", "shuf8x8lo",
    "f16v4absadd", "sort4x32lo", "f32ln", "uget", "f32tanh", "f32v2cmpgt", "f32v2grand", "xnor",
    "not64", "f32v4absacc", "f32v2absadd", "f16v4cmplt", "sort4x32hi", "run", "f16v2tanh",
    "f32clamp", "shuf8x8hi", "max", "stm32", "f32v2sufromui", "f16v4sufromui", "f32fromui32",
    "f32v2rmask", "f16v4rmask", "abs", "lds16step", "xor", "cmpne", "f32int", "f32toui32",
    "f32v2cmplt", "f16v4cmple", "f32v2cmple", "roll8l", "f16v4gacc", "f16v4absacc", "f32absadd",
    "sort8x8lo", "swap16", "roll32", "lds8", "sort8x8hi", "f32v2max", "f16v4max", "f32v2cmpge",
    "f32cmpgt", "cmpslt", "f32cmpge", "f32toi32", "urand32", "f32class", "f16v8absacc", "f32max",
    "f16v2max", "f32cmplt", "f16v2absadd", "f16v4cmpgt", "popc", "f32fromi32", "lds8step"};

TEST(IsaTable, HasAtLeast230MnemonicsIncludingEveryPoplibsOne) {
  std::vector<std::string> all = allMnemonics();
  std::set<std::string> set(all.begin(), all.end());
  EXPECT_GE(all.size(), 230u);
  EXPECT_EQ(std::size(kPoplibsMnemonics), 181u);
  for (const char *m : kPoplibsMnemonics) EXPECT_TRUE(set.count(m)) << m;
  // Supervisor exchange and sync instructions, and the old name of movnz.
  for (const char *m : {"send", "sendoff", "sendpic", "delay", "delaypic", "delayxpic", "sans", "movz",
                        "brzdec", "exitneg", "exitpos", "trap", "f32sqrt", "f32v2aop", "not"})
    EXPECT_TRUE(set.count(m)) << m;
}

TEST(IsaTable, NoTwoRowsShareAnEncoding) {
  const auto &rows = instructionTable();
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = i + 1; j < rows.size(); ++j) {
      const InsnDesc &a = rows[i], &b = rows[j];
      if (a.has(kPseudo) || b.has(kPseudo)) continue;
      bool aliasPair = (a.has(kAlias) || b.has(kAlias)) && a.match == b.match && a.mask == b.mask;
      if (aliasPair) continue;
      EXPECT_NE((a.match ^ b.match) & a.mask & b.mask, 0u)
          << a.mnemonic << " " << a.spec << " overlaps " << b.mnemonic << " " << b.spec;
    }
}

TEST(IsaTable, RowsAreConsistent) {
  for (const InsnDesc &d : instructionTable()) {
    if (d.has(kPseudo)) continue;
    const InsnDesc *back = decode(d.match);
    ASSERT_NE(back, nullptr) << d.mnemonic;
    if (d.has(kAlias)) EXPECT_TRUE(back->match == d.match && !back->has(kAlias)) << d.mnemonic << " is an alias of nothing";
    else EXPECT_EQ(back, &d) << d.mnemonic << " " << d.spec << " does not decode to itself";
    bool arf = false;
    for (unsigned i = 0; i < d.numOperands; ++i) arf |= d.operands[i].isArf();
    if (arf) EXPECT_EQ(d.modes, kWorker) << d.mnemonic << ": ARF operands exist only in workers";
    if (d.pipe == Pipe::Aux) EXPECT_EQ(d.modes, kWorker) << d.mnemonic << ": the supervisor has no aux pipeline";
    EXPECT_EQ(d.match & kCoissueBit, 0u);
  }
}

/// Assembles one instruction and returns its word.
uint32_t assembleOne(const std::string &text, bool supervisor) {
  // rpt rows are assembled without a body here; .allow_invalid_repeat skips the body checks.
  auto obj = test::assemble(std::string(".allow_invalid_repeat\n") + (supervisor ? ".supervisor\n" : ".worker\n") + text + "\n");
  auto w = test::words(obj);
  EXPECT_EQ(w.size(), 1u) << text;
  return w.empty() ? 0 : w[0];
}

TEST(IsaTable, PublishedEncodings) {
  // ipu-facts §3.3 and asm-dialect §5: `add $m4, $m5, $m6` is 0x44506041 alone ([F] S7, LLVM
  // disassembler tests), with bit 31 set inside a bundle.
  EXPECT_EQ(assembleOne("add $m4, $m5, $m6", false), 0x44506041u);
  auto b = test::words(test::assemble("{ add $m4, $m5, $m6 ; fnop }"));
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0], 0xC4506041u);
  EXPECT_EQ(b[1] & kCoissueBit, kCoissueBit);
  // [RE] S9 opcode constants (the IPU21 flavour of the same encodings).
  EXPECT_EQ(assembleOne("ld32 $m3, $m1, $m2, 0x123", false), 0x01000000u | 1u << 20 | 3u << 16 | 2u << 12 | 0x123);
  EXPECT_EQ(assembleOne("st32 $m3, $m1, $m2, 7", false), 0x4F000000u | 1u << 20 | 3u << 16 | 2u << 12 | 7);
  EXPECT_EQ(assembleOne("add $m2, $m7, -3", false), 0x22000000u | 7u << 20 | 2u << 16 | 0xFFFD);
  EXPECT_EQ(assembleOne("setzi $m9, 0xABCDE", false), 0x19000000u | 9u << 20 | 0xABCDE);
  EXPECT_EQ(assembleOne("call $lr, 0x4C010", false), 0x18000000u | 10u << 20 | (0x4C010 >> 2));
  EXPECT_EQ(assembleOne("brz $m1, 0x4C100", false), 0x13000000u | 1u << 20 | (0x4C100 >> 2));
  EXPECT_EQ(assembleOne("br $m3", true), 0x43000000u | 3u << 20);
  EXPECT_EQ(assembleOne("put $CCCSLOAD, $m4", true), 0x43008000u | 4u << 20 | 80);
  EXPECT_EQ(assembleOne("sync 2", true), 0x41800000u | 2);
  EXPECT_EQ(assembleOne("sans 0", true), 0x40C00000u);
  EXPECT_EQ(assembleOne("delay 100", true), 0x40A00000u | 99);
  // [F] S7 field layout of `put`: [25:24]=11, [15]=1, register at [23:20], CSR at [7:0].
  uint32_t put = assembleOne("put 0x21, $m5", true);
  EXPECT_EQ((put >> 24) & 3, 3u);
  EXPECT_EQ((put >> 15) & 1, 1u);
  EXPECT_EQ((put >> 20) & 0xF, 5u);
  EXPECT_EQ(put & 0xFF, 0x21u);
}

/// A value for operand `op` that the assembler accepts.
int64_t randomOperand(const OperandDesc &op, std::mt19937 &rng) {
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int64_t fieldMax = (int64_t(1) << op.width) - 1;
  if (op.isRegister()) {
    unsigned n = op.registerCount();
    if (op.isArf()) {
      std::vector<int64_t> ok;
      for (int r = 0; r < 16; r += int(n))
        if (!isReservedArf(unsigned(r))) ok.push_back(r);
      return ok[size_t(uniform(0, int64_t(ok.size()) - 1))];
    }
    return uniform(0, 15 / n) * n;
  }
  switch (op.kind) {
  case OperandKind::SImm: return uniform(-(fieldMax + 1) / 2, fieldMax / 2);
  case OperandKind::HighImm: return uniform(0, 0xFFF) << 20;
  case OperandKind::Target: case OperandKind::WordOffset: return uniform(0, fieldMax) * 4;
  case OperandKind::MinusOne: return uniform(1, fieldMax + 1);
  case OperandKind::CommonConfig: return uniform(0, 63);
  default: return uniform(0, fieldMax);
  }
}

TEST(IsaTable, EveryRowRoundTripsThroughTheAssembler) {
  std::mt19937 rng(12345);
  for (const InsnDesc &d : instructionTable()) {
    if (d.has(kPseudo)) continue;
    bool supervisor = !(d.modes & kWorker);
    bool reached = false;
    for (int trial = 0; trial < 12; ++trial) {
      int64_t values[kMaxOperands];
      for (unsigned i = 0; i < d.numOperands; ++i) values[i] = randomOperand(d.operands[i], rng);
      uint32_t word = encode(d, values);
      // assemble(disassemble(word)) must give a word that disassembles to the same text and
      // re-assembles to the same word.
      std::string text = cc::formatInstruction(d, word, supervisor);
      uint32_t w1 = assembleOne(text, supervisor);
      const InsnDesc *d1 = decode(w1);
      ASSERT_NE(d1, nullptr) << text;
      std::string text2 = cc::formatInstruction(*d1, w1, supervisor);
      EXPECT_EQ(assembleOne(text2, supervisor), w1) << text << " -> " << text2;
      if (d1->match == d.match && d1->mask == d.mask) {
        reached = true;
        EXPECT_EQ(w1, word) << d.mnemonic << " " << d.spec << ": " << text;
      }
    }
    EXPECT_TRUE(reached) << d.mnemonic << " " << d.spec << " is never chosen by the assembler";
  }
}

// Every immediate operand of every row, one past its range: the assembler either finds another
// row that takes the value, or says the immediate is out of range, naming the operand; never
// that some other form wanted a register there (issue 14: `ld32 $m0, $m1, $m2, 4096`).
TEST(IsaTable, EveryImmediateOutOfRangeSaysSo) {
  std::mt19937 rng(777);
  unsigned checked = 0;
  for (const InsnDesc &d : instructionTable()) {
    if (d.has(kPseudo) || std::string(d.mnemonic) == "rpt") continue;
    const bool supervisor = !(d.modes & kWorker);
    for (unsigned i = 0; i < d.numOperands; ++i) {
      const OperandDesc &op = d.operands[i];
      const int64_t fieldMax = (int64_t(1) << op.width) - 1;
      int64_t bad;
      switch (op.kind) {
      case OperandKind::UImm: bad = fieldMax + 1; break;
      case OperandKind::SImm: bad = fieldMax / 2 + 1; break;
      case OperandKind::MinusOne: bad = fieldMax + 2; break;
      case OperandKind::WordOffset: bad = (fieldMax + 1) * 4; break;
      default: continue; // registers, CSRs, targets (labels), high immediates
      }
      int64_t values[kMaxOperands];
      for (unsigned k = 0; k < d.numOperands; ++k) values[k] = randomOperand(d.operands[k], rng);
      // The row's text with valid operands, then operand i replaced.
      const std::string text = cc::formatInstruction(d, encode(d, values), supervisor);
      const size_t space = text.find(' ');
      ASSERT_NE(space, std::string::npos) << text;
      std::vector<std::string> ops;
      for (size_t at = space + 1;;) {
        const size_t comma = text.find(", ", at);
        ops.push_back(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
        if (comma == std::string::npos) break;
        at = comma + 2;
      }
      ASSERT_EQ(ops.size(), d.numOperands) << text;
      ops[i] = std::to_string(bad);
      std::string line = text.substr(0, space) + " ";
      for (size_t k = 0; k < ops.size(); ++k) line += (k ? ", " : "") + ops[k];
      try {
        test::assemble(std::string(".allow_invalid_repeat\n") + (supervisor ? ".supervisor\n" : ".worker\n") + line + "\n");
      } catch (const std::exception &e) {
        const std::string msg = e.what();
        // "immediate N", "count N", "address N": what the operand is, then the range.
        EXPECT_NE(msg.find(" " + std::to_string(bad) + " is out of range ["), std::string::npos) << line << ": " << msg;
        EXPECT_NE(msg.find(" for operand " + std::to_string(i + 1) + " of '" + d.mnemonic + "'"), std::string::npos)
            << line << ": " << msg;
        EXPECT_EQ(msg.find("expected"), std::string::npos) << line << ": " << msg;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 92u); // the immediate operands of the table (a new row changes this)
}

TEST(Registers, AliasesAndGroups) {
  auto lr = parseRegister("$lr");
  ASSERT_TRUE(lr);
  EXPECT_EQ(lr->index, 10); // asm-dialect §2.2: the LLVM value, not the ISA manual's $m6
  EXPECT_EQ(parseRegister("$sp")->index, 11);
  EXPECT_EQ(parseRegister("$mworker_base")->index, 12);
  EXPECT_EQ(parseRegister("$mvertex_base")->index, 13);
  EXPECT_EQ(parseRegister("$mzero")->index, 15);
  EXPECT_EQ(parseRegister("$azero")->index, 15);
  auto zs = parseRegister("$azeros");
  EXPECT_EQ(zs->index, 14);
  EXPECT_EQ(zs->count, 2);
  auto q = parseRegister("$a4:7");
  EXPECT_EQ(q->count, 4);
  EXPECT_FALSE(parseRegister("$a4:6"));
  EXPECT_FALSE(parseRegister("$m16"));
  EXPECT_EQ(registerName(RegFile::A, 0, 2), "$a0:1");
  EXPECT_EQ(findCsr("$WSR", CsrSpace::WorkerMain)->index, 1);
  EXPECT_EQ(findCsr("$FP_CTL", CsrSpace::WorkerAux)->index, 2);
  EXPECT_EQ(findCsr("$CCCSLOAD", CsrSpace::Supervisor)->index, 80);
  EXPECT_EQ(findCsr("$WSR", CsrSpace::Supervisor), nullptr);
  EXPECT_EQ(*parseCommonConfig("$CWEI_3_2"), 14u);
}

} // namespace
