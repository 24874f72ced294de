// Instructions whose exact behaviour is not public, modelled on the readings documented in their
// handlers (simulator/src/semantics/{Extra,Memory,Accumulators}.cpp, each inferred detail marked
// [I]): roll8l, roll32, sort8, ldd16v2a32, ldb16b16, the f16v4istacc/f16v4stacc transpose and
// f16v4mix/f16v4gacc. Every expected value is derived by hand in the comments.
#include "SimUtil.h"

#include <gtest/gtest.h>

using namespace ipusim;
using namespace ipusim::test;

namespace {

TEST(SemanticsExtra, RollsAndSort8MirrorRoll8rAndSort8x8lo) {
  // a = 0x44332211 (bytes a0..a3 = 11 22 33 44), b = 0x88776655 (b0..b3 = 55 66 77 88).
  // roll8l: the high word of {b:a} << 8 = bytes (a3, b0, b1, b2) = 44 55 66 77 -> 0x77665544.
  // roll8r (the existing mirror image): bytes (a1, a2, a3, b0) = 22 33 44 55 -> 0x55443322.
  // sort8 of a: bytes (a0, a2, a1, a3) = 11 33 22 44 -> 0x44223311.
  // roll32 of the pairs (0x03020100, 0x07060504) and (0x0B0A0908, 0x0F0E0D0C): the middle two
  // words of the 128-bit {b:a}, (a.hi, b.lo) = (0x07060504, 0x0B0A0908), also when the
  // destination is the first source (the LLVM backend's `roll32 $a0:1, $a0:1, $a2:3`).
  auto r = worker(R"(
  ld32 $m0, $mvertex_base, 0
  ld32 $m1, $mvertex_base, 1
  roll8l $m2, $m0, $m1
  st32 $m2, $mvertex_base, 8
  roll8r $m2, $m0, $m1
  st32 $m2, $mvertex_base, 9
  sort8 $m2, $m0
  st32 $m2, $mvertex_base, 10
  ld64 $a0:1, $mvertex_base, 1
  ld64 $a2:3, $mvertex_base, 2
  roll32 $a4:5, $a0:1, $a2:3
  st64 $a4:5, $mvertex_base, 6
  roll32 $a0:1, $a0:1, $a2:3
  st64 $a0:1, $mvertex_base, 7
)",
                  {0x44332211, 0x88776655, 0x03020100, 0x07060504, 0x0B0A0908, 0x0F0E0D0C});
  EXPECT_EQ(r.word(0x70020), 0x77665544u);
  EXPECT_EQ(r.word(0x70024), 0x55443322u);
  EXPECT_EQ(r.word(0x70028), 0x44223311u);
  EXPECT_EQ(r.word(0x70030), 0x07060504u);
  EXPECT_EQ(r.word(0x70034), 0x0B0A0908u);
  EXPECT_EQ(r.word(0x70038), 0x07060504u);
  EXPECT_EQ(r.word(0x7003C), 0x0B0A0908u);
}

TEST(SemanticsExtra, Ldd16v2a32UsesTheDeltaInTheMsbsAndLoadsTheNextPair) {
  // Data words w0..w7 = 0xD0000000 + k at 0x70000 (the base); delta pairs at 0x70040:
  // 0x000C0004 (lsbs 4, msbs 12), then 0x00180008 (lsbs 8, msbs 24), then 0.
  // 1st ldd16v2a32: the initial $m5 = 0 has msbs 0 -> w0; $m5 = 0x000C0004, $m3 = 0x70044.
  // ld64a32 then takes the lsbs (4) -> w1 into $a5, and the 64 bits at $m6 = 0x70008 (w2, w3)
  // into $a6:7 (the pairing that motivates the lsbs/msbs reading, [I]).
  // 2nd: msbs 12 -> w3; $m5 = 0x00180008, $m3 = 0x70048.
  // 3rd: msbs 24 -> w6; $m5 = 0, $m3 = 0x7004C.
  auto r = worker(R"(
  setzi $m3, 0x70040
  setzi $m4, 0x70000
  setzi $m6, 0x70008
  zero $m5
  ldd16v2a32 $a0, $m3++, $m4, $m5@
  st32 $m5, $mvertex_base, 24
  st32 $m3, $mvertex_base, 25
  ld64a32 $a4:7, $m6++, $m4, $m5
  ldd16v2a32 $a1, $m3++, $m4, $m5@
  st32 $m5, $mvertex_base, 26
  ldd16v2a32 $a2, $m3++, $m4, $m5@
  st32 $m5, $mvertex_base, 27
  st32 $m3, $mvertex_base, 28
  st32 $a0, $mvertex_base, 20
  st32 $a1, $mvertex_base, 21
  st32 $a2, $mvertex_base, 22
  st32 $a5, $mvertex_base, 23
  st64 $a6:7, $mvertex_base, 15
)",
                  {0xD0000000, 0xD0000001, 0xD0000002, 0xD0000003, 0xD0000004, 0xD0000005,
                   0xD0000006, 0xD0000007, 0, 0, 0, 0, 0, 0, 0, 0, 0x000C0004, 0x00180008, 0});
  EXPECT_EQ(r.word(0x70050), 0xD0000000u); // $a0: w0
  EXPECT_EQ(r.word(0x70054), 0xD0000003u); // $a1: w3
  EXPECT_EQ(r.word(0x70058), 0xD0000006u); // $a2: w6
  EXPECT_EQ(r.word(0x7005C), 0xD0000001u); // ld64a32's $a5: w1
  EXPECT_EQ(r.word(0x70060), 0x000C0004u); // $m5 after the 1st
  EXPECT_EQ(r.word(0x70064), 0x70044u);    // $m3 after the 1st
  EXPECT_EQ(r.word(0x70068), 0x00180008u); // $m5 after the 2nd
  EXPECT_EQ(r.word(0x7006C), 0u);          // $m5 after the 3rd
  EXPECT_EQ(r.word(0x70070), 0x7004Cu);    // $m3 after the 3rd
  EXPECT_EQ(r.word(0x70078), 0xD0000002u); // ld64a32's $a6:7: w2, w3
  EXPECT_EQ(r.word(0x7007C), 0xD0000003u);
}

TEST(SemanticsExtra, Ldb16b16BroadcastsTwoHalvesAndStepsTheDeltas) {
  // Halves 0x1000 + i at 0x70000 + 2i (words 0x10011000, 0x10031002, ...). Deltas 0x00060002
  // (low 2, high 6), mini-deltas 0x31.
  // 1st: low delta 2 -> half 1 = 0x1001 broadcast into $a0; high delta 6 -> half 3 = 0x1003 into
  // $a1. Then low += 2 bytes -> 4, high += 1 (mini-delta) * 2 bytes -> 8: 0x00080004; $m3 = 0x3.
  // 2nd: byte 4 -> half 2 = 0x1002 into $a2, byte 8 -> half 4 = 0x1004 into $a3; low -> 6,
  // high += 3 * 2 -> 14: 0x000E0006; $m3 = 0.
  auto r = worker(R"(
  setzi $m1, 0x70000
  ld32 $m2, $mvertex_base, 8
  ld32 $m3, $mvertex_base, 9
  ldb16b16 $a0:1, $m1, $m2++, $m3>>
  ldb16b16 $a2:3, $m1, $m2++, $m3>>
  st64 $a0:1, $mvertex_base, 6
  st64 $a2:3, $mvertex_base, 7
  st32 $m2, $mvertex_base, 16
  st32 $m3, $mvertex_base, 17
)",
                  {0x10011000, 0x10031002, 0x10051004, 0x10071006, 0, 0, 0, 0, 0x00060002, 0x31});
  EXPECT_EQ(r.word(0x70030), 0x10011001u);
  EXPECT_EQ(r.word(0x70034), 0x10031003u);
  EXPECT_EQ(r.word(0x70038), 0x10021002u);
  EXPECT_EQ(r.word(0x7003C), 0x10041004u);
  EXPECT_EQ(r.word(0x70040), 0x000E0006u);
  EXPECT_EQ(r.word(0x70044), 0u);
}

TEST(SemanticsExtra, IstaccAndStaccTranspose4x4BlocksOf16BitValues) {
  // poplibs' sequence (inlineAssemblerTranspose.hpp): istacc P0 (rows 0, 1), istacc P1 (rows 2,
  // 3), stacc P0/P1 -> columns 0/1, the next block's istacc P0/P1 -> columns 2/3 of this one,
  // istacc with $azeros to flush. Flags: TISTACC_P0/TSTACC_P0 = 0, _P1 = 1 (TileConstants.hpp).
  // Block A: A[r][c] = 0xA0rc; row r is the words (A[r][1] A[r][0], A[r][3] A[r][2]).
  // Block B: B[r][c] = 0x7Crc: +inf (0x7C00) and NaN bit patterns, which a transpose must keep.
  // Column c comes back as (row0 | row1 << 16, row2 | row3 << 16).
  auto r = worker(R"(
  setzi $a0, 8
  uput $FP_CLR, $a0
  ld64 $a0:1, $mvertex_base, 0
  ld64 $a2:3, $mvertex_base, 1
  f16v4istacc $a4:5, $a0:1, $a2:3, 0
  st64 $a4:5, $mvertex_base, 8
  ld64 $a0:1, $mvertex_base, 2
  ld64 $a2:3, $mvertex_base, 3
  f16v4istacc $a4:5, $a0:1, $a2:3, 1
  st64 $a4:5, $mvertex_base, 9
  f16v4stacc $a4:5, 0
  st64 $a4:5, $mvertex_base, 10
  f16v4stacc $a4:5, 1
  st64 $a4:5, $mvertex_base, 11
  ld64 $a0:1, $mvertex_base, 4
  ld64 $a2:3, $mvertex_base, 5
  f16v4istacc $a4:5, $a0:1, $a2:3, 0
  st64 $a4:5, $mvertex_base, 12
  ld64 $a0:1, $mvertex_base, 6
  ld64 $a2:3, $mvertex_base, 7
  f16v4istacc $a4:5, $a0:1, $a2:3, 1
  st64 $a4:5, $mvertex_base, 13
  f16v4stacc $a4:5, 0
  st64 $a4:5, $mvertex_base, 14
  f16v4stacc $a4:5, 1
  st64 $a4:5, $mvertex_base, 15
  f16v4istacc $a4:5, $azeros, $azeros, 0
  st64 $a4:5, $mvertex_base, 16
  f16v4istacc $a4:5, $azeros, $azeros, 1
  st64 $a4:5, $mvertex_base, 17
  f16v4stacc $a4:5, 0
  st64 $a4:5, $mvertex_base, 18
)",
                  {0xA001A000, 0xA003A002, 0xA011A010, 0xA013A012, 0xA021A020, 0xA023A022,
                   0xA031A030, 0xA033A032, 0x7C017C00, 0x7C037C02, 0x7C117C10, 0x7C137C12,
                   0x7C217C20, 0x7C237C22, 0x7C317C30, 0x7C337C32});
  auto column = [&](unsigned i) {
    return std::make_pair(r.word(0x70040 + 8 * i), r.word(0x70044 + 8 * i));
  };
  using P = std::pair<uint32_t, uint32_t>;
  // The first istacc P0/P1 return columns 2/3 of the cleared accumulators: zeros.
  EXPECT_EQ(column(0), P(0, 0));
  EXPECT_EQ(column(1), P(0, 0));
  // A's columns 0..3: (A0c, A1c, A2c, A3c).
  EXPECT_EQ(column(2), P(0xA010A000, 0xA030A020));
  EXPECT_EQ(column(3), P(0xA011A001, 0xA031A021));
  EXPECT_EQ(column(4), P(0xA012A002, 0xA032A022));
  EXPECT_EQ(column(5), P(0xA013A003, 0xA033A023));
  // B's columns, bit for bit.
  EXPECT_EQ(column(6), P(0x7C107C00, 0x7C307C20));
  EXPECT_EQ(column(7), P(0x7C117C01, 0x7C317C21));
  EXPECT_EQ(column(8), P(0x7C127C02, 0x7C327C22));
  EXPECT_EQ(column(9), P(0x7C137C03, 0x7C337C23));
  // After the flush the block is the zeros istacc took in.
  EXPECT_EQ(column(10), P(0, 0));
}

TEST(SemanticsExtra, TransposeFlagsOtherThanP0AndP1AreNotModelled) {
  try {
    worker("  f16v4stacc $a4:5, 2", {});
    FAIL() << "no exception";
  } catch (const sim::SimException &e) {
    EXPECT_EQ(
        e.reason,
        "f16v4stacc flags 2 are not modelled (only P0 = 0 and P1 = 1, the 4x4 16-bit transpose)");
  }
}

TEST(SemanticsExtra, MixReturnsThePreviousResultAndGaccTheNewOne) {
  // x = (1 + 2^-9, 2, 0, 1024) = halves (0x3C02, 0x4000, 0x0000, 0x6400),
  // y = (1, 0.5, 3, 1024) = (0x3C00, 0x3800, 0x4200, 0x6400).
  // mix 1: $TAS = 0xBC003C01: a = 1 + 2^-10 (bits 15:0), b = -1 (bits 31:16).
  //   z0 = (1 + 2^-10)(1 + 2^-9) - 1 = 3 * 2^-10 + 2^-19 = 1.5 * 2^-9 + 2^-19, exact in binary32;
  //        as a half (exponent -9, last place 2^-19): 0x1A01. (A product rounded to half first,
  //        1 + 3 * 2^-10, would give 3 * 2^-10 = 0x1A00: the FP32 intermediate shows.)
  //   z1 = 2 (1 + 2^-10) - 0.5 = 1.5 + 2^-9 = 0x3E02;  z2 = -3 = 0xC200;
  //   z3 = 1024 (1 + 2^-10) - 1024 = 1 = 0x3C00.
  //   Its destination gets the previous result: the cleared accumulators, 0.
  //   gacc: (0x3E021A01, 0x3C00C200).
  // mix 2: $TAS = 0x34003800: a = 0.5, b = 0.25. Destination: mix 1's result again.
  //   z0 = 0.5 (1 + 2^-9) + 0.25 = 0.75 + 2^-10 = 0x3A02 (last place 2^-11); z1 = 1 + 0.125 =
  //   0x3C80; z2 = 0.75 = 0x3A00; z3 = 512 + 256 = 768 = 0x6200. gacc: (0x3C803A02, 0x62003A00),
  //   twice (gacc leaves the accumulators as they are).
  // f16v4acc (lane k into AACC[2k]) twice of x after clearing: 2x = (2 + 2^-8, 4, 0, 2048) =
  //   halves (0x4002, 0x4400, 0, 0x6800); gacc reads the same AACC[0, 2, 4, 6]:
  //   (0x44004002, 0x68000000).
  auto r = worker(R"(
  setzi $a0, 8
  uput $FP_CLR, $a0
  ld64 $a0:1, $mvertex_base, 0
  ld64 $a2:3, $mvertex_base, 1
  ld32 $a6, $mvertex_base, 4
  uput $TAS, $a6
  f16v4mix $a4:5, $a0:1, $a2:3
  st64 $a4:5, $mvertex_base, 4
  f16v4gacc $a4:5
  st64 $a4:5, $mvertex_base, 5
  ld32 $a6, $mvertex_base, 5
  uput $TAS, $a6
  f16v4mix $a4:5, $a0:1, $a2:3
  st64 $a4:5, $mvertex_base, 6
  f16v4gacc $a4:5
  st64 $a4:5, $mvertex_base, 7
  f16v4gacc $a4:5
  st64 $a4:5, $mvertex_base, 8
  setzi $a6, 8
  uput $FP_CLR, $a6
  f16v4acc $a0:1
  f16v4acc $a0:1
  f16v4gacc $a4:5
  st64 $a4:5, $mvertex_base, 9
)",
                  {0x40003C02, 0x64000000, 0x38003C00, 0x64004200, 0xBC003C01, 0x34003800});
  EXPECT_EQ(r.word(0x70020), 0u);
  EXPECT_EQ(r.word(0x70024), 0u);
  EXPECT_EQ(r.word(0x70028), 0x3E021A01u);
  EXPECT_EQ(r.word(0x7002C), 0x3C00C200u);
  EXPECT_EQ(r.word(0x70030), 0x3E021A01u);
  EXPECT_EQ(r.word(0x70034), 0x3C00C200u);
  EXPECT_EQ(r.word(0x70038), 0x3C803A02u);
  EXPECT_EQ(r.word(0x7003C), 0x62003A00u);
  EXPECT_EQ(r.word(0x70040), 0x3C803A02u);
  EXPECT_EQ(r.word(0x70044), 0x62003A00u);
  EXPECT_EQ(r.word(0x70048), 0x44004002u);
  EXPECT_EQ(r.word(0x7004C), 0x68000000u);
}

} // namespace
