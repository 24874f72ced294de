// The linker: layout at the Mk2 memory map, symbol resolution, relocations and their errors.
#include "TestUtil.h"

#include "ipusim/arch/Config.h"
#include "ipusim/cc/Linker.h"

#include <gtest/gtest.h>

using namespace ipusim;

namespace {

arch::TileConfig mk2() { return arch::loadNamedConfig("mk2").tile; }

cc::ObjectFile linkTexts(const std::vector<std::string> &texts, const std::string &entry = "") {
  std::vector<cc::LinkInput> in;
  for (size_t i = 0; i < texts.size(); ++i)
    in.push_back({"o" + std::to_string(i) + ".o", cc::assembleText(texts[i], "f" + std::to_string(i) + ".s")});
  return cc::link(in, mk2(), {entry});
}

std::string linkError(const std::vector<std::string> &texts) {
  try {
    linkTexts(texts);
  } catch (const cc::LinkError &e) {
    return e.what();
  }
  return "";
}

TEST(Linker, PlacesCodeInRegion0AndResolvesSymbols) {
  auto img = linkTexts({R"(
  .section .text.a, "ax"
  .globl entry
entry:
  call $lr, helper
  setzi $m1, table
  ldconst $m2, table + 4
  exitz $mzero
  .section .data.t, "aw"
  .globl table
table:
  .int helper, table
  .scaled_ptr32 table
  .short 0
)",
                        R"(
  .section .text.b, "ax"
  .globl helper
helper:
  br $lr
  .section .data.interleaved.x, "aw"
big:
  .int 1
)"},
                       "entry");
  EXPECT_TRUE(img.linked);
  EXPECT_EQ(img.entry, 0x4C000u);
  int text = img.findSection(".text");
  ASSERT_GE(text, 0);
  EXPECT_EQ(img.sections[size_t(text)].addr, 0x4C000u); // [F] S6 TMEM_REGION0_BASE_ADDR
  auto w = test::words(img, ".text");
  ASSERT_EQ(w.size(), 6u);
  // .text.a is 20 bytes (ldconst of an address is two instructions); .text.b follows at 0x4C014.
  uint32_t helper = img.symbols[size_t(img.findSymbol("helper"))].value;
  EXPECT_EQ(helper, 0x4C014u);
  EXPECT_EQ(w[0] & 0xFFFFF, helper >> 2); // call target is a word address
  uint32_t table = img.symbols[size_t(img.findSymbol("table"))].value;
  int data = img.findSection(".data");
  EXPECT_EQ(table, img.sections[size_t(data)].addr);
  EXPECT_EQ(table, 0x4C018u);
  EXPECT_EQ(w[1] & 0xFFFFF, table);
  EXPECT_EQ(w[2] & 0xFFFFF, (table + 4) & 0xFFFFF); // setzi half of ldconst
  EXPECT_EQ(w[3] & 0xFFF, 0u);                     // or half: top bits of 0x4C01C
  auto d = test::words(img, ".data");
  EXPECT_EQ(d[0], helper);
  EXPECT_EQ(d[1], table);
  EXPECT_EQ(d[2] & 0xFFFF, (table - 0x4C000) >> 2); // SCALED_PTR32, asm-dialect §3.2
  int inter = img.findSection(".data.interleaved");
  ASSERT_GE(inter, 0);
  EXPECT_EQ(img.sections[size_t(inter)].addr, 0x80000u); // region 1
  // Line entries follow the code to its address.
  ASSERT_FALSE(img.lines.empty());
  EXPECT_EQ(img.location(*img.lineAt(uint32_t(text), 0x14)), "f1.s:5:3");
}

TEST(Linker, UndefinedSymbolNamesTheSourceLine) {
  EXPECT_EQ(linkError({"nop\n  call $lr, missing_fn\n"}), "f0.s:2:3: error: undefined symbol 'missing_fn'\n");
  EXPECT_EQ(linkError({".data\n.int nothing\n"}), "o0.o:(.data+0x0): error: undefined symbol 'nothing'\n");
}

TEST(Linker, DuplicateSymbol) {
  EXPECT_EQ(linkError({".globl f\nf: nop\n", ".globl f\nf: nop\n"}),
            "o1.o: error: duplicate symbol 'f' (also defined in o0.o)\n");
  // A weak definition gives way to a strong one.
  EXPECT_EQ(linkError({".weak f\nf: nop\n", ".globl f\nf: nop\n"}), "");
}

TEST(Linker, OutOfRangeFixup) {
  // A tile address does not fit in add's simm16.
  EXPECT_EQ(linkError({"x: add $m0, $m0, x\n"}),
            "f0.s:1:4: error: relocation R_IPU_SIMM16 against '.text' out of range: value 0x4c000 is out of range "
            "[-0x8000, 0x7fff]\n");
}

TEST(Linker, CodeMustFitInTheExecutableRegion) {
  // Region 0 is 0x4C000..0x80000 (208 KiB).
  EXPECT_EQ(linkError({".space 0x34004\n"}),
            "ipu-ld: error: code (212996 bytes) does not fit in the executable region 0x4c000..0x80000\n");
}

} // namespace
