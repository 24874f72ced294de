// The text of one instruction, as ipu-objdump prints it and ipu-as reads it back, for every tool
// that shows instructions (the disassembler, the simulator's exception reports and traces).
#pragma once

#include "ipusim/arch/Isa.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace ipusim::arch {

/// Text of one instruction, e.g. `ld32step $m1, $mzero, $m2+=, 1`; the exact no-op encodings print
/// as `nop` and `fnop`. `operandText`, if given, may supply an operand's text (a relocated
/// symbol); `supervisor` selects the CSR names.
std::string formatInstruction(const InsnDesc &insn, uint32_t word, bool supervisor,
                              const std::function<std::optional<std::string>(unsigned operand)> &operandText = {});

} // namespace ipusim::arch
