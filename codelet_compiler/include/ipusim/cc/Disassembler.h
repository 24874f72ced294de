// ipu-objdump: listings and re-assemblable source of objects and tile images.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "ipusim/arch/InsnText.h"
#include "ipusim/arch/Isa.h"
#include "ipusim/cc/Object.h"

namespace ipusim::cc {

using arch::formatInstruction; // arch/InsnText.h

/// `ipu-objdump -d`: address, words and instructions of every code section, with symbols.
std::string disassemble(const ObjectFile &obj, const std::string &name);

/// `ipu-objdump --asm`: source that ipu-as assembles back to the same section bytes, symbols
/// and relocations.
std::string disassembleToSource(const ObjectFile &obj, const std::string &name);

} // namespace ipusim::cc
