#include "SupervisorCode.h"

#include <map>
#include <mutex>
#include <stdexcept>

namespace ipusim::gc::build {

namespace {

/// The table row of an instruction form (mnemonic and operand spec, as in instructions.def).
const arch::InsnDesc &row(const char *mnemonic, const char *spec) {
  static std::mutex m;
  static std::map<std::pair<std::string, std::string>, const arch::InsnDesc *> cache;
  std::lock_guard<std::mutex> lock(m);
  auto key = std::make_pair(std::string(mnemonic), std::string(spec));
  auto it = cache.find(key);
  if (it != cache.end()) return *it->second;
  for (const arch::InsnDesc *d : arch::variantsOf(mnemonic))
    if (std::string(d->spec) == spec) return *(cache[key] = d);
  throw std::logic_error(std::string("no instruction form ") + mnemonic + " " + spec);
}

} // namespace

void SupervisorCode::note(const std::string &what) {
  notes_.push_back(what);
}

void SupervisorCode::emit(const char *mnemonic, const char *spec, std::vector<int64_t> values) {
  const arch::InsnDesc &d = row(mnemonic, spec);
  std::string why;
  for (unsigned i = 0; i < d.numOperands; ++i)
    if (!arch::operandFits(d.operands[i], values[i], &why))
      throw std::logic_error(std::string("supervisor code: ") + mnemonic + " operand " + std::to_string(i) + ": " + why);
  words_.push_back(arch::encode(d, values.data()));
  noteOf_.push_back(uint32_t(notes_.size() - 1));
}

unsigned SupervisorCode::label() {
  labels_.push_back(-1);
  return unsigned(labels_.size() - 1);
}
void SupervisorCode::bind(unsigned l) { labels_[l] = int64_t(words_.size()); }

void SupervisorCode::resolve() {
  for (auto [at, l] : fixups_) {
    if (labels_[l] < 0) throw std::logic_error("supervisor code: unbound label");
    const uint32_t target = base_ + 4 * uint32_t(labels_[l]);
    const arch::InsnDesc *d = arch::decode(words_[at]);
    // The target is the last operand of every branch form used here.
    const arch::OperandDesc &op = d->operands[d->numOperands - 1];
    words_[at] = (words_[at] & ~op.fieldMask()) | arch::encodeOperand(op, target);
  }
  fixups_.clear();
}

void SupervisorCode::setzi(unsigned r, uint32_t v) { emit("setzi", "mw:A, z20@0", {r, v & 0xFFFFF}); }
void SupervisorCode::constant(unsigned r, uint32_t v) {
  setzi(r, v & 0xFFFFF);
  if (v >> 20) emit("or", "mw:B, m:A, hi12@0", {r, r, int64_t(v & 0xFFF00000u)});
}
void SupervisorCode::ld32(unsigned d, unsigned b, uint32_t imm) { emit("ld32", "mw:B, m:A, m:C, z12@0", {d, b, kZero, imm}); }
void SupervisorCode::ldz16(unsigned d, unsigned b) { emit("ldz16", "mw:B, m:A, m:C, z12@0", {d, b, kZero, 0}); }
void SupervisorCode::ldz8(unsigned d, unsigned b) { emit("ldz8", "mw:B, m:A, m:C, z12@0", {d, b, kZero, 0}); }
void SupervisorCode::lds16(unsigned d, unsigned b) { emit("lds16", "mw:B, m:A, m:C, z12@0", {d, b, kZero, 0}); }
void SupervisorCode::lds8(unsigned d, unsigned b) { emit("lds8", "mw:B, m:A, m:C, z12@0", {d, b, kZero, 0}); }
void SupervisorCode::st32(unsigned s, unsigned b, uint32_t imm) { emit("st32", "m:B, m:A, m:C, z12@0", {s, b, kZero, imm}); }
void SupervisorCode::add(unsigned d, unsigned s, int32_t imm) { emit("add", "mw:B, m:A, s16@0", {d, s, imm}); }
void SupervisorCode::sub(unsigned d, unsigned a, unsigned b) { emit("sub", "mw:D, m:A, m:C", {d, a, b}); }
void SupervisorCode::orr(unsigned d, unsigned a, unsigned b) { emit("or", "mw:D, m:A, m:C", {d, a, b}); }
void SupervisorCode::shl(unsigned d, unsigned s, uint32_t imm) { emit("shl", "mw:B, m:A, z12@0", {d, s, imm}); }
void SupervisorCode::brz(unsigned r, unsigned l) {
  fixups_.push_back({words_.size(), l});
  emit("brz", "m:A, tgt19@0", {r, 0});
}
void SupervisorCode::brnz(unsigned r, unsigned l) {
  fixups_.push_back({words_.size(), l});
  emit("brnz", "m:A, tgt19@0", {r, 0});
}
void SupervisorCode::bri(unsigned l) {
  fixups_.push_back({words_.size(), l});
  emit("bri", "tgt19@0", {0});
}
void SupervisorCode::call(unsigned l) {
  fixups_.push_back({words_.size(), l});
  emit("call", "mw:A, tgt20@0", {kLr, 0});
}
void SupervisorCode::callAddress(uint32_t addr) { emit("call", "mw:A, tgt20@0", {kLr, addr}); }
void SupervisorCode::br(unsigned r) { emit("br", "m:A", {r}); }
void SupervisorCode::run(unsigned e, unsigned b) { emit("run", "m:B, m:A, z16@0", {e, b, 0}); }
void SupervisorCode::runall(unsigned e, unsigned b) { emit("runall", "m:B, m:A, z16@0", {e, b, 0}); }
void SupervisorCode::sync(unsigned zone) { emit("sync", "z4@0", {zone}); }
void SupervisorCode::put(uint32_t csr, unsigned r) { emit("put", "csr@0, m:A", {csr, r}); }
void SupervisorCode::send(uint32_t addr, uint32_t words, unsigned sctl) {
  emit("send", "wa18@9, cm1_6@3, z3@0", {addr, words, sctl});
}
void SupervisorCode::sendpic(uint32_t items, unsigned select, uint32_t value) {
  emit("sendpic", "cm1_6@21, z2@18, z18@0", {items, select, value});
}
void SupervisorCode::delay(uint64_t cycles) {
  constexpr uint64_t kMax = 1u << 19; // [RE] S9: a 19-bit count stored minus one
  while (cycles) {
    const uint64_t n = std::min(cycles, kMax);
    emit("delay", "dm1_19@0", {int64_t(n)});
    cycles -= n;
  }
}
void SupervisorCode::delaypic(uint32_t wordAddr) { emit("delaypic", "cm1_7@19, z1@18, z18@0", {1, 0, wordAddr}); }
void SupervisorCode::delaypicFormat(uint32_t format) { emit("delaypic", "cm1_7@19, z1@18, z18@0", {1, 1, format}); }
void SupervisorCode::delayxpic(uint32_t mux) { emit("delayxpic", "cm1_12@14, z1@13, z13@0", {1, 0, mux}); }

} // namespace ipusim::gc::build
