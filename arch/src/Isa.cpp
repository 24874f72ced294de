// Builds the instruction table from arch/isa/instructions.def and decodes words against it.
#include "ipusim/arch/Isa.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <stdexcept>

namespace ipusim::arch {
namespace {

struct RawRow {
  const char *mnemonic, *spec;
  uint32_t match;
  Pipe pipe;
  uint8_t modes;
  TimingClass timing;
  uint8_t flags;
};

using TC = TimingClass;
constexpr Pipe Main = Pipe::Main, Aux = Pipe::Aux;
constexpr TC Alu = TC::Alu, Load = TC::Load, Store = TC::Store, LoadStore = TC::LoadStore,
             Branch = TC::Branch, Call = TC::Call, Repeat = TC::Repeat, Exit = TC::Exit,
             Csr = TC::Csr, RunWorker = TC::RunWorker, Sync = TC::Sync, Exchange = TC::Exchange,
             Trap = TC::Trap, PutCs = TC::PutCs, Fp = TC::Fp, FpMultiCycle = TC::FpMultiCycle,
             Amp = TC::Amp, Accumulator = TC::Accumulator, Random = TC::Random,
             Pseudo = TC::Pseudo;

const RawRow kRows[] = {
#define IPU_INSN(mn, spec, match, pipe, modes, timing, flags)                                     \
  {mn, spec, match, pipe, modes, timing, flags},
#include "../isa/instructions.def"
#undef IPU_INSN
};

// A function-local static: the table may be built during other files' static initialisation.
const std::map<std::string, std::pair<OperandKind, bool>> &regKinds() {
  static const std::map<std::string, std::pair<OperandKind, bool>> kinds = {
    {"m", {OperandKind::MReg, false}},          {"mw", {OperandKind::MReg, true}},
    {"a", {OperandKind::AReg, false}},          {"aw", {OperandKind::AReg, true}},
    {"mp", {OperandKind::MPair, false}},        {"mpw", {OperandKind::MPair, true}},
    {"ap", {OperandKind::APair, false}},        {"apw", {OperandKind::APair, true}},
    {"aq", {OperandKind::AQuad, false}},        {"aqw", {OperandKind::AQuad, true}},
    {"mi", {OperandKind::MPostInc, true}},      {"mpi", {OperandKind::MPairPostInc, true}},
    {"mpp", {OperandKind::MAutoInc, true}},     {"ma", {OperandKind::MAt, false}},
    {"mr", {OperandKind::MShift, false}},       {"ab", {OperandKind::ABroadcast, false}},
    {"abl", {OperandKind::ABroadcastLo, false}}, {"abu", {OperandKind::ABroadcastHi, false}},
  };
  return kinds;
}

OperandDesc parseOperandSpec(const std::string &tok, const char *mnemonic) {
  auto bad = [&]() -> OperandDesc {
    throw std::logic_error(std::string("instructions.def: bad operand '") + tok + "' of " + mnemonic);
  };
  if (auto colon = tok.find(':'); colon != std::string::npos) {
    auto it = regKinds().find(tok.substr(0, colon));
    if (it == regKinds().end() || colon + 2 != tok.size()) return bad();
    static const std::map<char, uint8_t> fields = {{'A', 20}, {'B', 16}, {'C', 12}, {'E', 8}, {'D', 4}};
    auto f = fields.find(tok[colon + 1]);
    if (f == fields.end()) return bad();
    return {it->second.first, it->second.second, f->second, 4};
  }
  auto at = tok.find('@');
  if (at == std::string::npos) return bad();
  std::string kind = tok.substr(0, at);
  uint8_t lo = uint8_t(std::stoi(tok.substr(at + 1)));
  struct Named { const char *name; OperandKind kind; uint8_t width; };
  static const Named named[] = {
      {"hi12", OperandKind::HighImm, 12},   {"tgt19", OperandKind::Target, 19},
      {"tgt20", OperandKind::Target, 20},   {"csr", OperandKind::Csr, 8},
      {"ucsr", OperandKind::UpperCsr, 8},   {"cwei", OperandKind::CommonConfig, 8},
      {"str2", OperandKind::UImm, 2},       {"str4", OperandKind::UImm, 4},
      {"str6", OperandKind::UImm, 6},       {"flags6", OperandKind::UImm, 6},
      {"rnd3", OperandKind::UImm, 3},       {"dm1_19", OperandKind::MinusOne, 19},
      {"cm1_6", OperandKind::MinusOne, 6},  {"wa18", OperandKind::WordOffset, 18},
  };
  for (const Named &n : named)
    if (kind == n.name) return {n.kind, false, lo, n.width};
  // cm1_N / dm1_N: an N-bit count or delay stored minus one.
  if (kind.size() > 4 && (kind[0] == 'c' || kind[0] == 'd') && kind.compare(1, 3, "m1_") == 0 &&
      kind.find_first_not_of("0123456789", 4) == std::string::npos)
    return {OperandKind::MinusOne, false, lo, uint8_t(std::stoi(kind.substr(4)))};
  if (kind.size() >= 2 && (kind[0] == 'z' || kind[0] == 's') &&
      kind.find_first_not_of("0123456789", 1) == std::string::npos)
    return {kind[0] == 'z' ? OperandKind::UImm : OperandKind::SImm, false, lo,
            uint8_t(std::stoi(kind.substr(1)))};
  return bad();
}

struct Table {
  std::vector<InsnDesc> rows;
  std::map<std::string, std::vector<const InsnDesc *>, std::less<>> byMnemonic;
  std::array<std::vector<const InsnDesc *>, 128> byPrimary; ///< bits 30:24 of the word

  Table() {
    for (const RawRow &r : kRows) {
      InsnDesc d{};
      d.id = uint16_t(rows.size());
      d.mnemonic = r.mnemonic;
      d.spec = r.spec;
      d.match = r.match;
      d.pipe = r.pipe;
      d.modes = r.modes;
      d.timing = r.timing;
      d.flags = r.flags;
      uint32_t used = 0;
      std::string spec = r.spec;
      size_t pos = 0;
      while (pos < spec.size()) {
        size_t comma = spec.find(',', pos);
        std::string tok = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        tok.erase(0, tok.find_first_not_of(' '));
        tok.erase(tok.find_last_not_of(' ') + 1);
        if (d.numOperands == kMaxOperands) throw std::logic_error("too many operands");
        OperandDesc op = parseOperandSpec(tok, r.mnemonic);
        if (used & op.fieldMask()) throw std::logic_error(std::string("overlapping fields in ") + r.mnemonic);
        used |= op.fieldMask();
        d.operands[d.numOperands++] = op;
        if (comma == std::string::npos) break;
        pos = comma + 1;
      }
      d.mask = d.has(kPseudo) ? 0 : (~used & ~kCoissueBit);
      if (d.match & ~d.mask) throw std::logic_error(std::string("match overlaps fields in ") + r.mnemonic);
      rows.push_back(d);
    }
    for (const InsnDesc &d : rows) {
      byMnemonic[d.mnemonic].push_back(&d);
      if (d.has(kPseudo)) continue;
      for (uint32_t p = 0; p < 128; ++p)
        if (((p << 24) ^ d.match) & d.mask & 0x7F000000u) continue;
        else byPrimary[p].push_back(&d);
    }
    // Within a primary opcode, try primary rows before aliases so decode() prints the real name.
    for (auto &list : byPrimary)
      std::stable_sort(list.begin(), list.end(), [](const InsnDesc *a, const InsnDesc *b) {
        return !a->has(kAlias) && b->has(kAlias);
      });
  }
};

const Table &table() {
  static const Table t;
  return t;
}

int64_t signExtend(uint32_t v, unsigned width) {
  uint32_t m = 1u << (width - 1);
  return int64_t(int32_t((v ^ m) - m));
}

} // namespace

const char *timingClassName(TimingClass c) {
  static const char *names[] = {"Alu", "Load", "Store", "LoadStore", "Branch", "Call", "Repeat",
                                "Exit", "Csr", "RunWorker", "Sync", "Exchange", "Trap", "PutCs",
                                "Fp", "FpMultiCycle", "Amp", "Accumulator", "Random", "Pseudo"};
  return names[unsigned(c)];
}

bool OperandDesc::isArf() const {
  switch (kind) {
  case OperandKind::AReg: case OperandKind::APair: case OperandKind::AQuad:
  case OperandKind::ABroadcast: case OperandKind::ABroadcastLo: case OperandKind::ABroadcastHi:
    return true;
  default:
    return false;
  }
}

unsigned OperandDesc::registerCount() const {
  switch (kind) {
  case OperandKind::MPair: case OperandKind::APair: case OperandKind::MPairPostInc: return 2;
  case OperandKind::AQuad: return 4;
  default: return isRegister() ? 1 : 0;
  }
}

const std::vector<InsnDesc> &instructionTable() { return table().rows; }

std::vector<const InsnDesc *> variantsOf(std::string_view mnemonic) {
  auto it = table().byMnemonic.find(mnemonic);
  return it == table().byMnemonic.end() ? std::vector<const InsnDesc *>{} : it->second;
}

std::vector<std::string> allMnemonics() {
  std::vector<std::string> out;
  for (auto &[name, rows] : table().byMnemonic) out.push_back(name);
  return out;
}

const InsnDesc *decode(uint32_t word) {
  for (const InsnDesc *d : table().byPrimary[(word >> 24) & 0x7F])
    if ((word & d->mask) == d->match) return d;
  return nullptr;
}

bool operandFits(const OperandDesc &op, int64_t v, std::string *why) {
  auto fail = [&](const std::string &msg) {
    if (why) *why = msg;
    return false;
  };
  const int64_t umax = (int64_t(1) << op.width) - 1;
  auto range = [&](int64_t lo, int64_t hi, const char *what) {
    if (v >= lo && v <= hi) return true;
    return fail(std::string(what) + " " + std::to_string(v) + " is out of range [" +
                std::to_string(lo) + ", " + std::to_string(hi) + "]");
  };
  switch (op.kind) {
  case OperandKind::UImm:
  case OperandKind::Csr:
  case OperandKind::CommonConfig:
    return range(0, umax, "immediate");
  case OperandKind::UpperCsr:
    // The upper space may be written with its space bit (index | 0x100, as in CSR_W_FP_CTL__INDEX).
    return range(0, 2 * umax + 1, "CSR index");
  case OperandKind::SImm:
    return range(-(umax + 1) / 2, umax / 2, "immediate");
  case OperandKind::HighImm:
    if (v < 0 || v > 0xFFFFFFFFll) return range(0, 0xFFFFFFFFll, "immediate");
    if (v & 0xFFFFF) return fail("immediate " + std::to_string(v) + " has non-zero low 20 bits");
    return true;
  case OperandKind::Target:
  case OperandKind::WordOffset:
    if (v & 3) return fail("address " + std::to_string(v) + " is not a multiple of 4");
    return range(0, umax * 4, "address");
  case OperandKind::MinusOne:
    return range(1, umax + 1, "count");
  default:
    return true; // registers are checked by the parser
  }
}

uint32_t encodeOperand(const OperandDesc &op, int64_t v) {
  uint64_t field;
  switch (op.kind) {
  case OperandKind::HighImm: field = uint64_t(v) >> 20; break;
  case OperandKind::Target: case OperandKind::WordOffset: field = uint64_t(v) >> 2; break;
  case OperandKind::MinusOne: field = uint64_t(v - 1); break;
  default: field = uint64_t(v); break;
  }
  return (uint32_t(field) << op.lo) & op.fieldMask();
}

int64_t decodeOperand(const OperandDesc &op, uint32_t word) {
  uint32_t field = (word & op.fieldMask()) >> op.lo;
  switch (op.kind) {
  case OperandKind::SImm: return signExtend(field, op.width);
  case OperandKind::HighImm: return int64_t(field) << 20;
  case OperandKind::Target: case OperandKind::WordOffset: return int64_t(field) << 2;
  case OperandKind::MinusOne: return int64_t(field) + 1;
  default: return field;
  }
}

uint32_t nopWord() {
  static const uint32_t word = [] {
    for (const InsnDesc *d : variantsOf("or"))
      if (std::strcmp(d->spec, "mw:B, m:A, z12@0") == 0) {
        const int64_t ops[] = {15, 15, 0};
        return encode(*d, ops);
      }
    throw std::logic_error("instructions.def has no `or $m, $m, zimm12`");
  }();
  return word;
}

uint32_t encode(const InsnDesc &insn, const int64_t *values) {
  uint32_t word = insn.match;
  for (unsigned i = 0; i < insn.numOperands; ++i) word |= encodeOperand(insn.operands[i], values[i]);
  return word;
}

} // namespace ipusim::arch
