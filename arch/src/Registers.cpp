// Register names, aliases and the CSR table (asm-dialect §2.2; ipu-facts §2.3, §4.2).
#include "ipusim/arch/Registers.h"

#include <cctype>
#include <vector>

namespace ipusim::arch {
namespace {

struct Alias {
  const char *name;
  RegFile file;
  uint8_t index, count;
};

// Aliases from the Colossus clang target (asm-dialect §2.2; the LLVM values win over the ISA
// manual's $sp=$m7 / $lr=$m6 / $fp=$m5).
const Alias kAliases[] = {
    {"$bp", RegFile::M, 8, 1},           {"$fp", RegFile::M, 9, 1},
    {"$lr", RegFile::M, 10, 1},          {"$sp", RegFile::M, 11, 1},
    {"$mworker_base", RegFile::M, 12, 1}, {"$mvertex_base", RegFile::M, 13, 1},
    {"$mzero", RegFile::M, 15, 1},       {"$azero", RegFile::A, 15, 1},
    {"$azeros", RegFile::A, 14, 2},
};

bool parseNumber(std::string_view s, unsigned &out) {
  if (s.empty() || s.size() > 2) return false;
  out = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    out = out * 10 + unsigned(c - '0');
  }
  return !(s.size() == 2 && s[0] == '0');
}

} // namespace

std::optional<RegisterRef> parseRegister(std::string_view text) {
  for (const Alias &a : kAliases)
    if (text == a.name) return RegisterRef{a.file, a.index, a.count};
  if (text.size() < 3 || text[0] != '$' || (text[1] != 'm' && text[1] != 'a')) return std::nullopt;
  RegFile file = text[1] == 'm' ? RegFile::M : RegFile::A;
  std::string_view rest = text.substr(2);
  unsigned first, last;
  auto colon = rest.find(':');
  if (!parseNumber(rest.substr(0, colon), first) || first > 15) return std::nullopt;
  if (colon == std::string_view::npos) return RegisterRef{file, uint8_t(first), 1};
  if (!parseNumber(rest.substr(colon + 1), last) || last > 15 || last < first) return std::nullopt;
  unsigned count = last - first + 1;
  if (count != 2 && count != 4) return std::nullopt;
  return RegisterRef{file, uint8_t(first), uint8_t(count)};
}

std::string registerName(RegFile file, unsigned index, unsigned count) {
  if (file == RegFile::M && count == 1) {
    switch (index) {
    case 10: return "$lr";
    case 11: return "$sp";
    case 12: return "$mworker_base";
    case 13: return "$mvertex_base";
    case 15: return "$mzero";
    }
  }
  if (file == RegFile::A && index == 15 && count == 1) return "$azero";
  if (file == RegFile::A && index == 14 && count == 2) return "$azeros";
  std::string s = file == RegFile::M ? "$m" : "$a";
  s += std::to_string(index);
  if (count > 1) s += ":" + std::to_string(index + count - 1);
  return s;
}

bool isReservedArf(unsigned index) { return index >= 8 && index <= 13; }

const std::vector<CsrInfo> &csrTable() {
  using S = CsrSpace;
  static const std::vector<CsrInfo> table = {
      // Worker, get/put: ipu2 indices from csrs_ipu2.s (asm-dialect §2.2).
      {"$PC", S::WorkerMain, 0}, {"$WSR", S::WorkerMain, 1}, {"$VERTEX_BASE", S::WorkerMain, 2},
      {"$WORKER_BASE", S::WorkerMain, 3}, {"$REPEAT_COUNT", S::WorkerMain, 4},
      {"$REPEAT_FIRST", S::WorkerMain, 5}, {"$REPEAT_END", S::WorkerMain, 6},
      {"$COUNT_L", S::WorkerMain, 96}, {"$COUNT_U", S::WorkerMain, 97},
      {"$DBG_DATA", S::WorkerMain, 112}, {"$DBG_BRK_ID", S::WorkerMain, 113},
      // Worker, uget/uput (asm-dialect §2.2).
      {"$FP_STS", S::WorkerAux, 0}, {"$FP_CLR", S::WorkerAux, 1}, {"$FP_CTL", S::WorkerAux, 2},
      {"$PRNG_0_0", S::WorkerAux, 3}, {"$PRNG_0_1", S::WorkerAux, 4},
      {"$PRNG_1_0", S::WorkerAux, 5}, {"$PRNG_1_1", S::WorkerAux, 6},
      {"$PRNG_SEED", S::WorkerAux, 7}, {"$TAS", S::WorkerAux, 8},
      // Supervisor, get/put: ipu2 indices from csrs_ipu2.s where given (PC, FP_ICTL, CCCSLOAD,
      // DBG_*, CTXT_STS); the rest are the Mk1 indices of [RE] S8 (ipu-facts §2.3), which
      // IPU21 confirms for $INCOMING_MUX and $INCOMING_DCOUNT ([RE] S9).
      {"$PC", S::Supervisor, 0}, {"$SSR", S::Supervisor, 1}, {"$CR", S::Supervisor, 2},
      {"$TILE_ID", S::Supervisor, 3}, {"$FP_ICTL", S::Supervisor, 32},
      {"$WORKER0_BASE", S::Supervisor, 33}, {"$WORKER1_BASE", S::Supervisor, 34},
      {"$WORKER2_BASE", S::Supervisor, 35}, {"$WORKER3_BASE", S::Supervisor, 36},
      {"$WORKER4_BASE", S::Supervisor, 37}, {"$WORKER5_BASE", S::Supervisor, 38},
      {"$CCCSLOAD", S::Supervisor, 80}, {"$SCOUNT_L", S::Supervisor, 96},
      {"$SCOUNT_U", S::Supervisor, 97}, {"$DBG_DATA", S::Supervisor, 112},
      {"$DBG_BRK_ID", S::Supervisor, 113}, {"$CTXT_STS", S::Supervisor, 114},
      {"$INCOMING_MUX", S::Supervisor, 0xa0}, {"$INCOMING_MUXPAIR", S::Supervisor, 0xa1},
      {"$INCOMING_DELTA", S::Supervisor, 0xa2}, {"$INCOMING_FORMAT", S::Supervisor, 0xa3},
      {"$INCOMING_BASE", S::Supervisor, 0xa4}, {"$INCOMING_SINIT", S::Supervisor, 0xa5},
      {"$INCOMING_DCOUNT", S::Supervisor, 0xa6}, {"$OUTGOING_BASE", S::Supervisor, 0xa7},
      {"$OUTGOING_DELTA", S::Supervisor, 0xa8}, {"$EXCHANGE_CTL", S::Supervisor, 0xa9},
      {"$ANS_DCOUNT", S::Supervisor, 0xaa}, {"$EXCHANGE_ADJ", S::Supervisor, 0xab},
  };
  return table;
}

const CsrInfo *findCsr(std::string_view name, CsrSpace space) {
  for (const CsrInfo &c : csrTable())
    if (c.space == space && name == c.name) return &c;
  return nullptr;
}

const CsrInfo *findCsrAnySpace(std::string_view name) {
  for (const CsrInfo &c : csrTable())
    if (name == c.name) return &c;
  return nullptr;
}

const CsrInfo *csrByIndex(uint16_t index, CsrSpace space) {
  for (const CsrInfo &c : csrTable())
    if (c.space == space && c.index == index) return &c;
  return nullptr;
}

std::optional<unsigned> parseCommonConfig(std::string_view name) {
  constexpr std::string_view prefix = "$CWEI_";
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view rest = name.substr(prefix.size());
  auto us = rest.find('_');
  if (us == std::string_view::npos) return std::nullopt;
  unsigned n, m;
  if (!parseNumber(rest.substr(0, us), n) || !parseNumber(rest.substr(us + 1), m)) return std::nullopt;
  if (n > 15 || m > 3) return std::nullopt;
  return 4 * n + m;
}

std::string commonConfigName(unsigned index) {
  return "$CWEI_" + std::to_string(index / 4) + "_" + std::to_string(index % 4);
}

} // namespace ipusim::arch
