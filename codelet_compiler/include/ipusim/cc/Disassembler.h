// ipu-objdump: listings and re-assemblable source of objects and tile images.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "ipusim/arch/Isa.h"
#include "ipusim/cc/Object.h"

namespace ipusim::cc {

/// Text of one instruction, e.g. `ld32step $m1, $mzero, $m2+=, 1`. `operandText`, if given, may
/// supply an operand's text (a relocated symbol); `supervisor` selects the CSR names.
std::string formatInstruction(const arch::InsnDesc &insn, uint32_t word, bool supervisor,
                              const std::function<std::optional<std::string>(unsigned operand)> &operandText = {});

/// `ipu-objdump -d`: address, words and instructions of every code section, with symbols.
std::string disassemble(const ObjectFile &obj, const std::string &name);

/// `ipu-objdump --asm`: source that ipu-as assembles back to the same section bytes, symbols
/// and relocations.
std::string disassembleToSource(const ObjectFile &obj, const std::string &name);

} // namespace ipusim::cc
