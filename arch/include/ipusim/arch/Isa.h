// The tile instruction set, read from arch/isa/instructions.def (the one table, DESIGN decision 1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ipusim::arch {

enum class Pipe : uint8_t { Main, Aux };

/// Which contexts may execute an instruction.
enum ModeMask : uint8_t { kWorker = 1, kSupervisor = 2, kAnyMode = 3 };

/// How the simulator times an instruction (the latencies live in the simulator and arch/configs).
enum class TimingClass : uint8_t {
  Alu, Load, Store, LoadStore, Branch, Call, Repeat, Exit, Csr, RunWorker, Sync, Exchange, Trap,
  PutCs, Fp, FpMultiCycle, Amp, Accumulator, Random, Pseudo
};
const char *timingClassName(TimingClass c);

enum InsnFlags : uint8_t {
  kControl = 1, ///< branch, call, rpt, exit: forbidden in a rpt body
  kSystem = 2,  ///< CSR access, run, sync, exchange: forbidden in a rpt body
  kSolo = 4,    ///< cannot be bundled
  kAlias = 8,   ///< another name for an encoding; the disassembler prints the primary row
  kPseudo = 16, ///< expands to other instructions; has no encoding of its own
};

enum class OperandKind : uint8_t {
  MReg, AReg, MPair, APair, AQuad,
  MPostInc,     ///< $mN+=
  MPairPostInc, ///< $mN:N+1+=
  MAutoInc,     ///< $mN++
  MAt,          ///< $mN@
  MShift,       ///< $mN>>
  ABroadcast, ABroadcastLo, ABroadcastHi, ///< $aN:B $aN:BL $aN:BU
  UImm, SImm,
  HighImm,      ///< 32-bit value with zero low 20 bits, stored as bits 31:20
  Target,       ///< byte address, stored as a word address
  Csr, UpperCsr, CommonConfig,
  MinusOne,     ///< count stored minus one
  WordOffset,   ///< word-aligned byte offset stored as a word offset
};

struct OperandDesc {
  OperandKind kind;
  bool written; ///< the instruction writes this register
  uint8_t lo;   ///< lowest bit of the field
  uint8_t width;

  bool isRegister() const { return kind < OperandKind::UImm; }
  bool isArf() const;
  /// Registers the operand spans: 1, 2 or 4.
  unsigned registerCount() const;
  uint32_t fieldMask() const { return ((width == 32 ? 0 : (1u << width)) - 1u) << lo; }
};

constexpr unsigned kMaxOperands = 5;
constexpr uint32_t kCoissueBit = 1u << 31; ///< [F] S7: bit 31 of each word of a bundle

struct InsnDesc {
  uint16_t id;
  const char *mnemonic;
  const char *spec; ///< the operand column of the table, for messages and docs
  uint32_t match, mask;
  Pipe pipe;
  uint8_t modes;
  TimingClass timing;
  uint8_t flags;
  uint8_t numOperands;
  OperandDesc operands[kMaxOperands];

  bool allowedIn(ModeMask mode) const { return modes & mode; }
  bool has(InsnFlags f) const { return flags & f; }
};

/// Every row of the table, in table order (variants of a mnemonic are adjacent).
const std::vector<InsnDesc> &instructionTable();

/// The variants of a mnemonic in the order the assembler tries them; empty if it is unknown.
/// Pseudo-instructions have one row with kPseudo set and no operands.
std::vector<const InsnDesc *> variantsOf(std::string_view mnemonic);

/// Every mnemonic (instructions, aliases and pseudo-instructions), sorted.
std::vector<std::string> allMnemonics();

/// The row an instruction word decodes to (bit 31 ignored), or nullptr.
const InsnDesc *decode(uint32_t word);

/// Checks that `value` (as written in source) fits operand `op`; on failure sets `why`.
bool operandFits(const OperandDesc &op, int64_t value, std::string *why);

/// The field bits of `value` for operand `op` (value must fit).
uint32_t encodeOperand(const OperandDesc &op, int64_t value);

/// The source-level value of operand `op` in `word` (the inverse of encodeOperand).
int64_t decodeOperand(const OperandDesc &op, uint32_t word);

/// The word of `nop` (`or $mzero, $mzero, 0`, [F] S2 manual), used to pad code.
uint32_t nopWord();

/// Encodes a whole instruction from source-level operand values (which must fit).
uint32_t encode(const InsnDesc &insn, const int64_t *values);

} // namespace ipusim::arch
