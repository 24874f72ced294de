// Machine code for a tile's supervisor program, encoded straight from the ISA table (DESIGN
// decision 1) with labels for branch targets. Every instruction is one 32-bit word, so a program's
// size does not depend on the addresses it loads (each is one setzi).
#pragma once

#include "ipusim/arch/Isa.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ipusim::gc::build {

class SupervisorCode {
public:
  explicit SupervisorCode(uint32_t base) : base_(base) {}

  uint32_t base() const { return base_; }
  uint32_t here() const { return base_ + 4 * uint32_t(words_.size()); }
  const std::vector<uint32_t> &words() const { return words_; }
  /// What each word is, for the image's line table: index into `notes()`.
  const std::vector<uint32_t> &noteOf() const { return noteOf_; }
  const std::vector<std::string> &notes() const { return notes_; }
  /// Later words are attributed to `what` (a step or program name) in exception reports.
  void note(const std::string &what);

  unsigned label();
  void bind(unsigned label);
  /// Patches every branch to its label's address (call once, at the end).
  void resolve();

  // Registers are numbers: $m0 .. $m15 ($m15 = $mzero).
  static constexpr unsigned kZero = 15, kLr = 10, kSp = 11;
  void setzi(unsigned r, uint32_t v);
  /// Any 32-bit constant: setzi, plus `or` of the upper 12 bits when they are not zero.
  void constant(unsigned r, uint32_t v);
  void ld32(unsigned dst, unsigned base, uint32_t imm = 0);
  void ldz16(unsigned dst, unsigned base);
  void ldz8(unsigned dst, unsigned base);
  void lds16(unsigned dst, unsigned base);
  void lds8(unsigned dst, unsigned base);
  void st32(unsigned src, unsigned base, uint32_t imm = 0);
  void add(unsigned dst, unsigned src, int32_t imm);
  void sub(unsigned dst, unsigned a, unsigned b);
  void orr(unsigned dst, unsigned a, unsigned b);
  void shl(unsigned dst, unsigned src, uint32_t imm);
  void brz(unsigned r, unsigned label);
  void brnz(unsigned r, unsigned label);
  void bri(unsigned label);
  void call(unsigned label);      ///< call $lr, label
  void callAddress(uint32_t addr); ///< call $lr, addr
  void br(unsigned r);
  void run(unsigned entry, unsigned base);
  void runall(unsigned entry, unsigned base);
  void sync(unsigned zone);
  void put(uint32_t csr, unsigned r);
  void send(uint32_t addr, uint32_t words, unsigned sctl);
  /// Continues the last send's stream with `items` more, applying a control in its first cycle
  /// (select 0 $INCOMING_MUX, 1 _MUXPAIR, 2 the receive pointer as a word address, 3 the format).
  void sendpic(uint32_t items, unsigned select, uint32_t value);
  void delay(uint64_t cycles);     ///< any number of cycles (>= 1), in delays of at most 2^19
  void delaypic(uint32_t wordAddr);  ///< count 1: sets $INCOMING_DELTA in its issue cycle
  void delaypicFormat(uint32_t format); ///< count 1: sets $INCOMING_FORMAT in its issue cycle
  void delayxpic(uint32_t mux);      ///< count 1: sets $INCOMING_MUX in its issue cycle

private:
  void emit(const char *mnemonic, const char *spec, std::vector<int64_t> values);
  uint32_t base_;
  std::vector<uint32_t> words_;
  std::vector<int64_t> labels_;                          ///< word index, -1 unbound
  std::vector<std::pair<size_t, unsigned>> fixups_;      ///< word index -> label
  std::vector<uint32_t> noteOf_;
  std::vector<std::string> notes_{"supervisor program"};
};

} // namespace ipusim::gc::build
