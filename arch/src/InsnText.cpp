#include "ipusim/arch/InsnText.h"

#include "ipusim/arch/Registers.h"

#include <cstdio>

namespace ipusim::arch {

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string immediate(int64_t v) { return (v >= -9 && v <= 9) ? std::to_string(v) : (v < 0 ? "-0x" + hex(uint64_t(-v)) : "0x" + hex(uint64_t(v))); }

} // namespace

std::string formatInstruction(const InsnDesc &d, uint32_t word, bool supervisor,
                              const std::function<std::optional<std::string>(unsigned)> &operandText) {
  // Print the familiar pseudo-instruction names for the exact no-op encodings.
  if (std::string(d.mnemonic) == "or" && d.numOperands == 3 && d.operands[2].kind == OperandKind::UImm &&
      decodeOperand(d.operands[0], word) == 15 && decodeOperand(d.operands[1], word) == 15 &&
      decodeOperand(d.operands[2], word) == 0)
    return d.operands[0].isArf() ? "fnop" : "nop";
  std::string s = d.mnemonic;
  for (unsigned i = 0; i < d.numOperands; ++i) {
    s += i ? ", " : " ";
    if (operandText)
      if (auto t = operandText(i)) {
        s += *t;
        continue;
      }
    const OperandDesc &op = d.operands[i];
    int64_t v = decodeOperand(op, word);
    if (op.isRegister()) {
      s += registerName(op.isArf() ? RegFile::A : RegFile::M, unsigned(v), op.registerCount());
      switch (op.kind) {
      case OperandKind::MPostInc: case OperandKind::MPairPostInc: s += "+="; break;
      case OperandKind::MAutoInc: s += "++"; break;
      case OperandKind::MAt: s += "@"; break;
      case OperandKind::MShift: s += ">>"; break;
      case OperandKind::ABroadcast: s += ":B"; break;
      case OperandKind::ABroadcastLo: s += ":BL"; break;
      case OperandKind::ABroadcastHi: s += ":BU"; break;
      default: break;
      }
      continue;
    }
    switch (op.kind) {
    case OperandKind::Csr:
    case OperandKind::UpperCsr: {
      CsrSpace space = op.kind == OperandKind::UpperCsr ? CsrSpace::WorkerAux
                       : supervisor                      ? CsrSpace::Supervisor
                                                         : CsrSpace::WorkerMain;
      const CsrInfo *c = csrByIndex(uint16_t(v), space);
      s += c ? c->name : std::to_string(v);
      break;
    }
    case OperandKind::CommonConfig: s += v < 64 ? commonConfigName(unsigned(v)) : std::to_string(v); break;
    case OperandKind::Target: case OperandKind::HighImm: s += "0x" + hex(uint64_t(v)); break;
    default: s += immediate(v);
    }
  }
  return s;
}

} // namespace ipusim::arch
