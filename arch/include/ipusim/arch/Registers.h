// Register files, aliases and CSRs of the Mk2 tile (asm-dialect §2.2, ipu-facts §2.3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ipusim/arch/Isa.h"

namespace ipusim::arch {

enum class RegFile : uint8_t { M, A };

/// A register operand as written: `$m3`, `$a0:1`, `$a4:7`, `$azeros`, `$lr` ...
struct RegisterRef {
  RegFile file;
  uint8_t index; ///< first register
  uint8_t count; ///< 1, 2 (pair) or 4 (quad)
};

/// Parses a register name (without suffixes such as `+=`); nullopt if it is not one.
std::optional<RegisterRef> parseRegister(std::string_view text);

/// The canonical spelling of a register or register group (`$m10` prints as `$lr`).
std::string registerName(RegFile file, unsigned index, unsigned count = 1);

/// ARF registers that do not exist on Mk2: $a8..$a13 ([F] S6 ARF_GP_REGISTERS = 8; $a14/$a15 read 0).
bool isReservedArf(unsigned index);

/// The space of a CSR operand: get/put in worker or supervisor code, or uget/uput (worker only).
enum class CsrSpace : uint8_t { WorkerMain, WorkerAux, Supervisor };

struct CsrInfo {
  const char *name; ///< with the leading '$'
  CsrSpace space;
  uint16_t index;
};

/// Looks a CSR name up in `space`; nullptr if there is none of that name there.
const CsrInfo *findCsr(std::string_view name, CsrSpace space);
/// Looks a CSR name up in any space (for "wrong mode" diagnostics).
const CsrInfo *findCsrAnySpace(std::string_view name);
/// The name of CSR `index` in `space`, or nullptr.
const CsrInfo *csrByIndex(uint16_t index, CsrSpace space);
/// Every CSR the table knows.
const std::vector<CsrInfo> &csrTable();

/// `$CWEI_n_m` (AMP common weights, n 0..15, m 0..3) is index 4n+m ([F] S2; asm-dialect §2.2).
std::optional<unsigned> parseCommonConfig(std::string_view name);
std::string commonConfigName(unsigned index);

} // namespace ipusim::arch
