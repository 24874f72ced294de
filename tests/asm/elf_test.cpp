// The ELF format: write -> read keeps everything, and malformed files are clear errors.
#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace ipusim;

namespace {

std::string readError(std::vector<uint8_t> bytes) {
  try {
    cc::readElf(bytes, "f.o");
  } catch (const cc::ObjectError &e) {
    return e.what();
  }
  return "";
}

cc::ObjectFile sample() {
  return test::assemble(R"(
  .section .text.f, "ax"
  .globl f
  .type f, @function
f:
  call $lr, g
  { nop ; fnop }
  .size f, . - f
  .data
  .int g + 4
  .bss
  .space 12
)");
}

TEST(Elf, WriteThenReadKeepsSectionsSymbolsRelocationsAndLines) {
  cc::ObjectFile a = sample();
  std::vector<uint8_t> bytes = cc::writeElf(a);
  EXPECT_EQ(bytes[0], 0x7F);
  EXPECT_EQ(bytes[18] | bytes[19] << 8, cc::kMachineIpu);
  cc::ObjectFile b = cc::readElf(bytes, "f.o");
  ASSERT_EQ(a.sections.size(), b.sections.size());
  for (size_t i = 0; i < a.sections.size(); ++i) {
    EXPECT_EQ(a.sections[i].name, b.sections[i].name);
    EXPECT_EQ(a.sections[i].data, b.sections[i].data);
    EXPECT_EQ(a.sections[i].size, b.sections[i].size);
    EXPECT_EQ(a.sections[i].flags, b.sections[i].flags);
    ASSERT_EQ(a.sections[i].relocs.size(), b.sections[i].relocs.size());
    for (size_t r = 0; r < a.sections[i].relocs.size(); ++r) {
      EXPECT_EQ(a.sections[i].relocs[r].type, b.sections[i].relocs[r].type);
      EXPECT_EQ(a.symbols[a.sections[i].relocs[r].symbol].name, b.symbols[b.sections[i].relocs[r].symbol].name);
      EXPECT_EQ(a.sections[i].relocs[r].addend, b.sections[i].relocs[r].addend);
    }
  }
  const cc::Symbol &f = b.symbols[size_t(b.findSymbol("f"))];
  EXPECT_EQ(f.size, 12u); // call (4) + the bundle (8), which goes at 4 mod 8 unpadded
  EXPECT_EQ(f.type, cc::SymbolType::Func);
  EXPECT_EQ(f.binding, cc::SymbolBinding::Global);
  EXPECT_EQ(b.symbols[size_t(b.findSymbol("g"))].section, cc::kUndefinedSection);
  ASSERT_EQ(b.lines.size(), 2u);
  EXPECT_EQ(b.location(b.lines[1]), "t.s:7:3");
  EXPECT_EQ(b.lines[1].flags, cc::kLineBundle);
  // Writing again gives the same bytes: the format is deterministic.
  EXPECT_EQ(cc::writeElf(b), bytes);
}

TEST(Elf, MalformedInputs) {
  EXPECT_EQ(readError({}), "f.o: error: not an ELF file");
  EXPECT_EQ(readError({'h', 'e', 'l', 'l', 'o'}), "f.o: error: not an ELF file");
  std::vector<uint8_t> good = cc::writeElf(sample());
  std::vector<uint8_t> wrongMachine = good;
  wrongMachine[18] = 0x28; // EM_ARM
  wrongMachine[19] = 0;
  EXPECT_EQ(readError(wrongMachine), "f.o: error: not an IPU ELF file (e_machine is not 0x4950)");
  std::vector<uint8_t> truncated(good.begin(), good.begin() + 60);
  EXPECT_EQ(readError(truncated).substr(0, 29), "f.o: error: malformed ELF: se");
  std::vector<uint8_t> b64 = good;
  b64[4] = 2; // ELFCLASS64
  EXPECT_EQ(readError(b64), "f.o: error: not a 32-bit little-endian ELF file");
}

} // namespace
