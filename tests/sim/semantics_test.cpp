// Instruction semantics on the ISS: integer, memory addressing forms, and IEEE binary32/binary16
// results checked against the host's IEEE arithmetic and hand-computed binary16 roundings.
#include "SimUtil.h"

#include "ipusim/arch/Half.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ipusim;
using namespace ipusim::test;

namespace {

TEST(Semantics, IntegerAlu) {
  auto r = worker(R"(
  ld32 $m0, $mvertex_base, 0
  ld32 $m1, $mvertex_base, 1
  sub $m2, $m0, $m1
  st32 $m2, $mvertex_base, 4
  mul $m2, $m0, $m1
  st32 $m2, $mvertex_base, 5
  shrs $m2, $m1, 4
  st32 $m2, $mvertex_base, 6
  shr $m2, $m1, 4
  st32 $m2, $mvertex_base, 7
  cmpslt $m2, $m1, $m0
  st32 $m2, $mvertex_base, 8
  cmpult $m2, $m1, $m0
  st32 $m2, $mvertex_base, 9
  min $m2, $m0, $m1
  st32 $m2, $mvertex_base, 10
  clz $m2, $m0
  st32 $m2, $mvertex_base, 11
  popc $m2, $m1
  st32 $m2, $mvertex_base, 12
  sub $m2, 100, $m0
  st32 $m2, $mvertex_base, 13
  ldconst $m3, 0xDEADBEEF
  st32 $m3, $mvertex_base, 14
)",
                  {7, 0xFFFFFF00u});
  EXPECT_EQ(r.word(0x70010), 7u - 0xFFFFFF00u);
  EXPECT_EQ(r.word(0x70014), uint32_t(7 * -256));
  EXPECT_EQ(r.word(0x70018), 0xFFFFFFF0u);
  EXPECT_EQ(r.word(0x7001C), 0x0FFFFFF0u);
  EXPECT_EQ(r.word(0x70020), 1u); // -256 < 7 signed
  EXPECT_EQ(r.word(0x70024), 0u); // not unsigned
  EXPECT_EQ(r.word(0x70028), 0xFFFFFF00u);
  EXPECT_EQ(r.word(0x7002C), 29u);
  EXPECT_EQ(r.word(0x70030), 24u);
  EXPECT_EQ(r.word(0x70034), 93u);
  EXPECT_EQ(r.word(0x70038), 0xDEADBEEFu);
}

TEST(Semantics, LoadStoreForms) {
  // Offsets scale with the access size; step forms post-increment the delta register.
  auto r = worker(R"(
  setzi $m0, 0x70000
  setzi $m1, 4
  ld32 $m2, $m0, $m1, 1         // 0x70000 + 4 + 1*4
  st32 $m2, $m0, 8
  ldz16 $m3, $m0, 1             // the high half of word 0
  st32 $m3, $m0, 9
  lds8 $m3, $m0, 3              // byte 3 of word 0, sign-extended
  st32 $m3, $m0, 10
  zero $m4
  ld32step $m5, $m0, $m4+=, 2   // 0x70000, then $m4 += 8
  st32 $m4, $m0, 11
  ld64 $a0:1, $m0, 0
  st64 $a0:1, $m0, 6
  ldb16 $a2, $m0, 0
  st32 $a2, $m0, 14
)",
                  {0x8123ABCD, 0x11, 0x22, 0x33});
  EXPECT_EQ(r.word(0x70020), 0x22u);
  EXPECT_EQ(r.word(0x70024), 0x8123u);
  EXPECT_EQ(r.word(0x70028), 0xFFFFFF81u);
  EXPECT_EQ(r.word(0x7002C), 8u);
  EXPECT_EQ(r.word(0x70030), 0x8123ABCDu);
  EXPECT_EQ(r.word(0x70034), 0x11u);
  EXPECT_EQ(r.word(0x70038), 0xABCDABCDu);
}

TEST(Semantics, PaceLoadsWithStrides) {
  // tapack packs three addresses; stride select 0b01 takes stride field 0 (in 64-bit atoms).
  auto r = worker(R"(
  setzi $m0, 0x60000
  setzi $m1, 0x60100
  setzi $m2, 0x60200
  tapack $m4:5, $m0, $m1, $m2
  setzi $m6, 2                         // stride field 0 = 2 atoms
  ld2x64pace $a0:1, $a2:3, $m4:5+=, $m6, 0b0001
  ld2x64pace $a4:5, $a6:7, $m4:5+=, $m6, 0b0001
  st64pace $a4:5, $m4:5+=, $m6, 0b00
  st64pace $a6:7, $m4:5+=, $m6, 0b00
  st32 $a0, $mvertex_base, 0
  st32 $a2, $mvertex_base, 1
)",
                  {});
  (void)r;
  auto t = runAsm(R"(
w:
  setzi $m0, 0x60000
  setzi $m1, 0x60100
  setzi $m2, 0x60200
  tapack $m4:5, $m0, $m1, $m2
  setzi $m6, 2
  ld2x64pace $a0:1, $a2:3, $m4:5+=, $m6, 0b0001
  ld2x64pace $a4:5, $a6:7, $m4:5+=, $m6, 0b0001
  st64pace $a4:5, $m4:5+=, $m6, 0b00
  st64pace $a6:7, $m4:5+=, $m6, 0b00
  exitz $mzero
)",
                  "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
                    for (uint32_t i = 0; i < 8; ++i) {
                      t.memory().write<uint32_t>(0x60000 + 8 * i, 100 + i); // stream 0
                      t.memory().write<uint32_t>(0x60100 + 8 * i, 200 + i); // stream 1
                    }
                  });
  // Stream 0 advanced by 2 atoms: the second load read atom 2; stream 1 by one atom.
  EXPECT_EQ(t.word(0x60200), 102u);
  EXPECT_EQ(t.word(0x60208), 201u);
}

TEST(Semantics, PaceLoadsOfA64BitAndANarrowValue) {
  // ld64a32pace: $m4 = 0x60000 (64-bit stream), $m5 = 0x60100 (32-bit stream); selects 0b0100:
  // the first address steps one 64-bit atom (select 0), the second by stride field 0 = 3 of its
  // own 4-byte units (select 1). ld64b16pace then loads the half at 0x6010C into both halves.
  auto r = runAsm(R"(
w:
  setzi $m4, 0x60000
  setzi $m5, 0x60100
  setzi $m6, 3
  ld64a32pace $a0:1, $a2, $m4:5+=, $m6, 0b0100
  ld64b16pace $a4:5, $a6, $m4:5+=, $m6, 0b0000
  st64 $a0:1, $mvertex_base, 0
  st32 $a2, $mvertex_base, 2
  st64 $a4:5, $mvertex_base, 2
  st32 $a6, $mvertex_base, 6
  st32 $m4, $mvertex_base, 7
  st32 $m5, $mvertex_base, 8
  exitz $mzero
)",
                  "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
                    for (uint32_t i = 0; i < 8; ++i) {
                      t.memory().write<uint32_t>(0x60000 + 4 * i, 100 + i);
                      t.memory().write<uint32_t>(0x60100 + 4 * i, 200 + i);
                    }
                  });
  EXPECT_EQ(r.word(0x70000), 100u);
  EXPECT_EQ(r.word(0x70004), 101u);
  EXPECT_EQ(r.word(0x70008), 200u);
  EXPECT_EQ(r.word(0x70010), 102u); // second 64-bit atom
  EXPECT_EQ(r.word(0x70014), 103u);
  EXPECT_EQ(r.word(0x70018), (203u & 0xFFFF) * 0x10001u); // 0x6010C: the low half of 203, broadcast
  EXPECT_EQ(r.word(0x7001C), 0x60010u);                    // 0x60008 + one atom
  EXPECT_EQ(r.word(0x70020), 0x6010Eu);                    // 0x6010C + one 2-byte unit
  try {
    runAsm("w:\n  setzi $m4, 0x60000\n  setzi $m5, 0x60100\n  ld64a32pace $a0:1, $a1, $m4:5+=, $m6, 0\n  exitz $mzero\n",
           "w", Mode::Worker);
    FAIL() << "no exception";
  } catch (const sim::SimException &e) {
    EXPECT_EQ(e.reason, "invalid operation: the destinations overlap");
  }
}

TEST(Semantics, F32AmpTakesOneInputAPhaseAndMovesPairsOnEvenPhases) {
  // Eight outputs k, eight inputs j: W[k][j] = k + j + 1 in the low (j even) or high (j odd) word of
  // $CWEI_k_(j/2). Warm-up: four even-phase issues (P0, P2, P4, P6; odd phases skipped) with zero
  // input whose partials (k + 1) / 2 for engines 2q, 2q+1 become the first set's Pin. Set 1:
  // inputs x_j = j + 1 at P0..P7. Set 2: zero input; its even phases return set 1's
  // R_k = Pin_k + sum_j (j + 1)(k + j + 1) = (k + 1) / 2 + 204 + 36 k, two a phase.
  std::string body = R"(
  setzi $a7, 0
)";
  auto phase = [](unsigned j) { return std::to_string(16 + j); }; // TAMP_F32_E4_Pj
  for (unsigned q = 0; q < 4; ++q) {                               // warm-up
    body += "  ld32 $a2, $mvertex_base, " + std::to_string(2 * q) + "\n  ld32 $a3, $mvertex_base, " +
            std::to_string(2 * q + 1) + "\n  f32sisoamp $a4:5, $a7, $a2:3, " + phase(2 * q) + "\n";
  }
  for (unsigned j = 0; j < 8; ++j) // set 1
    body += "  ld32 $a0, $mvertex_base, " + std::to_string(8 + j) + "\n  f32sisoamp $a4:5, $a0, $azeros, " +
            phase(j) + "\n";
  for (unsigned j = 0; j < 8; j += 2) // set 2: read set 1 out
    body += "  f32sisoamp $a4:5, $a7, $azeros, " + phase(j) + "\n  st64 $a4:5, $mvertex_base, " +
            std::to_string(8 + j / 2) + "\n";
  std::vector<uint32_t> state;
  for (unsigned k = 0; k < 8; ++k) state.push_back(bits(float(k + 1) / 2)); // partials
  for (unsigned j = 0; j < 8; ++j) state.push_back(bits(float(j + 1)));     // inputs
  auto r = runAsm("w:\n" + body + "  exitz $mzero\n", "w", Mode::Worker, 0x70000, [&](sim::Tile &t) {
    for (unsigned i = 0; i < state.size(); ++i) t.memory().write<uint32_t>(0x70000 + 4 * i, state[i]);
    for (unsigned k = 0; k < 8; ++k)
      for (unsigned j = 0; j < 8; ++j) {
        const unsigned e = 4 * k + j / 2;
        t.setCommonWeight(e, t.commonWeights()[e] | uint64_t(bits(float(k + j + 1))) << (32 * (j & 1)));
      }
  });
  for (unsigned k = 0; k < 8; ++k)
    EXPECT_EQ(r.f32(0x70040 + 4 * k), float(k + 1) / 2 + 204.0f + 36.0f * float(k)) << k;
}

TEST(Semantics, F16AmpWithF32PartialsAndF16Results) {
  // f16v4sihoamp: the f16v4sisoamp pipeline with f16 results. Weights of output k: four halves of
  // 1.0 in $CWEI_k_p; input (1, 2, 3, 4) at every phase; partials 0.5 a lane. Set 1's
  // R_k = 0.5 + 4 x 10 = 40.5, read out by set 2's phase 0 as two halves (0x5110 = 40.5).
  std::string body = "  setzi $a7, 0\n  ld32 $a2, $mvertex_base, 0\n  ld32 $a3, $mvertex_base, 0\n";
  for (unsigned p = 0; p < 4; ++p) body += "  f16v4sihoamp $a6, $azeros, $a2:3, " + std::to_string(16 + p) + "\n";
  body += "  ld64 $a0:1, $mvertex_base, 1\n";
  for (unsigned p = 0; p < 4; ++p) body += "  f16v4sihoamp $a6, $a0:1, $azeros, " + std::to_string(16 + p) + "\n";
  body += "  f16v4sihoamp $a6, $azeros, $azeros, 16\n  st32 $a6, $mvertex_base, 4\n";
  auto r = runAsm("w:\n" + body + "  exitz $mzero\n", "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
    t.memory().write<uint32_t>(0x70000, bits(0.5f));
    t.memory().write<uint32_t>(0x70008, 0x40003C00); // halves 1, 2
    t.memory().write<uint32_t>(0x7000C, 0x44004200); // halves 3, 4
    for (unsigned e = 0; e < 32; ++e) t.setCommonWeight(e, 0x3C003C003C003C00ull);
  });
  EXPECT_EQ(r.word(0x70010), 0x51105110u);
}

TEST(Semantics, AmpPartialsQueueWhateverThePhase) {
  // poplibs primes the AMP's partials with four phase-1 issues on IPU21 ("phase != 0"): the pairs
  // queue in order, so engines (0, 1) ... (6, 7) get partials 1 ... 8 as with phases 0..3. Weights
  // 1.0, input (1, 2, 3, 4) at each phase of set 1: R_k = k + 1 + 4 x 10, read out by set 2.
  auto run = [](const char *primePhases) {
    std::string body = "  setzi $a7, 0\n";
    for (unsigned i = 0; i < 4; ++i)
      body += "  ld64 $a2:3, $mvertex_base, " + std::to_string(2 + i) + "\n  f16v4sisoamp $a4:5, $azeros, $a2:3, " +
              std::to_string(16 + (primePhases[i] - '0')) + "\n";
    body += "  ld64 $a0:1, $mvertex_base, 1\n";
    for (unsigned p = 0; p < 4; ++p) body += "  f16v4sisoamp $a4:5, $a0:1, $azeros, " + std::to_string(16 + p) + "\n";
    for (unsigned p = 0; p < 4; ++p)
      body += "  f16v4sisoamp $a4:5, $azeros, $azeros, " + std::to_string(16 + p) + "\n  st64 $a4:5, $mvertex_base, " +
              std::to_string(8 + p) + "\n";
    return runAsm("w:\n" + body + "  exitz $mzero\n", "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
      t.memory().write<uint32_t>(0x70008, 0x40003C00); // halves 1, 2
      t.memory().write<uint32_t>(0x7000C, 0x44004200); // halves 3, 4
      for (uint32_t k = 0; k < 8; ++k) t.memory().write<float>(0x70010 + 4 * k, float(k + 1));
      for (unsigned e = 0; e < 32; ++e) t.setCommonWeight(e, 0x3C003C003C003C00ull);
    });
  };
  for (const char *prime : {"0123", "1111"}) {
    auto r = run(prime);
    for (uint32_t k = 0; k < 8; ++k) EXPECT_EQ(r.f32(0x70040 + 4 * k), float(k + 1 + 40)) << prime << " " << k;
  }
}

TEST(Semantics, AmpWithTwoEngines) {
  // E2 (flags 8 + phase, ours): four outputs. f16v4sisoamp takes two phases a set: weights of output
  // k are four halves of k + 1 at phase 0 ($CWEI_k_0) and of 1 at phase 1; inputs (1, 2, 3, 4) then
  // (1, 1, 1, 1); warm-up partial pairs (0.5, 1.5), (2.5, 3.5). R_k = k + 0.5 + 10 (k + 1) + 4.
  std::string body = "  ld64 $a2:3, $mvertex_base, 0\n  f16v4sisoamp $a4:5, $azeros, $a2:3, 8\n"
                     "  ld64 $a2:3, $mvertex_base, 1\n  f16v4sisoamp $a4:5, $azeros, $a2:3, 9\n"
                     "  ld64 $a0:1, $mvertex_base, 2\n  f16v4sisoamp $a4:5, $a0:1, $azeros, 8\n"
                     "  ld64 $a0:1, $mvertex_base, 3\n  f16v4sisoamp $a4:5, $a0:1, $azeros, 9\n"
                     "  f16v4sisoamp $a4:5, $azeros, $azeros, 8\n  st64 $a4:5, $mvertex_base, 8\n"
                     "  f16v4sisoamp $a4:5, $azeros, $azeros, 9\n  st64 $a4:5, $mvertex_base, 9\n";
  auto r = runAsm("w:\n" + body + "  exitz $mzero\n", "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
    putWords(t, 0x70000, {bits(0.5f), bits(1.5f), bits(2.5f), bits(3.5f), 0x40003C00, 0x44004200, 0x3C003C00, 0x3C003C00});
    for (unsigned k = 0; k < 4; ++k) {
      uint64_t h = arch::floatToHalf(float(k + 1));
      t.setCommonWeight(4 * k, h | h << 16 | h << 32 | h << 48);
      t.setCommonWeight(4 * k + 1, 0x3C003C003C003C00ull);
    }
  });
  for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(r.f32(0x70040 + 4 * k), float(k) + 0.5f + 10.0f * float(k + 1) + 4.0f) << k;

  // f32sisoamp E2: four outputs, four phases, pairs at phases 0 and 2. W[k][j] = k + j + 1, inputs
  // j + 1, Pin_k = k + 1: R_k = k + 1 + 30 + 10 k.
  std::string f32 = "  ld64 $a2:3, $mvertex_base, 0\n  f32sisoamp $a4:5, $azero, $a2:3, 8\n"
                    "  ld64 $a2:3, $mvertex_base, 1\n  f32sisoamp $a4:5, $azero, $a2:3, 10\n";
  for (unsigned j = 0; j < 4; ++j)
    f32 += "  ld32 $a0, $mvertex_base, " + std::to_string(4 + j) + "\n  f32sisoamp $a4:5, $a0, $azeros, " +
           std::to_string(8 + j) + "\n";
  f32 += "  f32sisoamp $a4:5, $azero, $azeros, 8\n  st64 $a4:5, $mvertex_base, 8\n"
         "  f32sisoamp $a4:5, $azero, $azeros, 10\n  st64 $a4:5, $mvertex_base, 9\n";
  auto s = runAsm("w:\n" + f32 + "  exitz $mzero\n", "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
    putWords(t, 0x70000, {bits(1.0f), bits(2.0f), bits(3.0f), bits(4.0f), bits(1.0f), bits(2.0f), bits(3.0f), bits(4.0f)});
    for (unsigned k = 0; k < 4; ++k)
      for (unsigned j = 0; j < 4; ++j)
        t.setCommonWeight(4 * k + j / 2, t.commonWeights()[4 * k + j / 2] | uint64_t(bits(float(k + j + 1))) << (32 * (j & 1)));
  });
  for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(s.f32(0x70040 + 4 * k), float(k + 1 + 30 + 10 * k)) << k;
}

TEST(Semantics, SixteenOutputAmpFormsRunTwoSets) {
  // f16v4hihov4amp: set A's outputs have weights 1.0 ($CWEI_k_p), set B's 2.0 ($CWEI_(8+k)_p);
  // input (1, 2, 3, 4) at each of four phases (40 for A, 80 for B). Warm-up issue i gives the
  // partial lanes (A_2i, A_2i+1, B_2i, B_2i+1) = (i, i + 0.5, 10 + i, 10.5 + i); set 2's issue i
  // returns (i + 40, i + 40.5, i + 90, i + 90.5).
  std::string body;
  for (unsigned i = 0; i < 4; ++i)
    body += "  ld64 $a2:3, $mvertex_base, " + std::to_string(i) + "\n  f16v4hihov4amp $a4:5, $azeros, $a2:3, " +
            std::to_string(16 + i) + "\n";
  body += "  ld64 $a0:1, $mvertex_base, 4\n";
  for (unsigned p = 0; p < 4; ++p) body += "  f16v4hihov4amp $a4:5, $a0:1, $azeros, " + std::to_string(16 + p) + "\n";
  for (unsigned p = 0; p < 4; ++p)
    body += "  f16v4hihov4amp $a4:5, $azeros, $azeros, " + std::to_string(16 + p) + "\n  st64 $a4:5, $mvertex_base, " +
            std::to_string(8 + p) + "\n";
  auto r = runAsm("w:\n" + body + "  exitz $mzero\n", "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
    for (unsigned i = 0; i < 4; ++i) {
      auto h = [](float f) { return uint32_t(arch::floatToHalf(f)); };
      putWords(t, 0x70000 + 8 * i, {h(float(i)) | h(float(i) + 0.5f) << 16, h(10.0f + float(i)) | h(10.5f + float(i)) << 16});
    }
    putWords(t, 0x70020, {0x40003C00, 0x44004200});
    for (unsigned e = 0; e < 32; ++e) t.setCommonWeight(e, 0x3C003C003C003C00ull);     // 1.0
    for (unsigned e = 32; e < 64; ++e) t.setCommonWeight(e, 0x4000400040004000ull);    // 2.0
  });
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(arch::halfToFloat(uint16_t(r.word(0x70040 + 8 * i))), float(i) + 40.0f) << i;
    EXPECT_EQ(arch::halfToFloat(uint16_t(r.word(0x70040 + 8 * i) >> 16)), float(i) + 40.5f) << i;
    EXPECT_EQ(arch::halfToFloat(uint16_t(r.word(0x70044 + 8 * i))), float(i) + 90.0f) << i;
    EXPECT_EQ(arch::halfToFloat(uint16_t(r.word(0x70044 + 8 * i) >> 16)), float(i) + 90.5f) << i;
  }

  // f32sisov2amp: eight phases of one input (j + 1, summing to 36); set A's weights 1.0, B's 2.0.
  // The pairs alternate A, B: warm-up issue n gives (n, n + 0.5) to set n & 1's pair n / 2; set 2's
  // issue n returns set A's pair (2i + 36, 2i + 36.5) at n = 2i, set B's (2i + 73, 2i + 73.5) at
  // n = 2i + 1.
  std::string v2;
  for (unsigned n = 0; n < 8; ++n)
    v2 += "  ld64 $a2:3, $mvertex_base, " + std::to_string(n) + "\n  f32sisov2amp $a4:5, $azero, $a2:3, " +
          std::to_string(16 + n) + "\n";
  for (unsigned j = 0; j < 8; ++j)
    v2 += "  ld32 $a0, $mvertex_base, " + std::to_string(16 + j) + "\n  f32sisov2amp $a4:5, $a0, $azeros, " +
          std::to_string(16 + j) + "\n";
  for (unsigned n = 0; n < 8; ++n)
    v2 += "  f32sisov2amp $a4:5, $azero, $azeros, " + std::to_string(16 + n) + "\n  st64 $a4:5, $mvertex_base, " +
          std::to_string(32 + n) + "\n";
  auto s = runAsm("w:\n" + v2 + "  exitz $mzero\n", "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
    for (unsigned n = 0; n < 8; ++n) putWords(t, 0x70000 + 8 * n, {bits(float(n)), bits(float(n) + 0.5f)});
    for (unsigned j = 0; j < 8; ++j) putWords(t, 0x70040 + 4 * j, {bits(float(j + 1))});
    for (unsigned e = 0; e < 32; ++e) t.setCommonWeight(e, uint64_t(bits(1.0f)) * 0x100000001ull);
    for (unsigned e = 32; e < 64; ++e) t.setCommonWeight(e, uint64_t(bits(2.0f)) * 0x100000001ull);
  });
  for (unsigned n = 0; n < 8; ++n) {
    const float base = n % 2 ? float(n) + 72.0f : float(n) + 36.0f;
    EXPECT_EQ(s.f32(0x70100 + 8 * n), base) << n;
    EXPECT_EQ(s.f32(0x70104 + 8 * n), base + 0.5f) << n;
  }
}

TEST(Semantics, CommonWeightLoadsKeepEveryHalfExactly) {
  // ld128putcs loads $CWEI entries; the tile keeps each entry's halves as floats for the AMP
  // (Tile::ampHalfWeights), converted on the fast path by the host's F16C and on the stepped path
  // by halfToFloat (runAsm runs both). Every class of half: zeros, subnormals, the smallest and
  // largest normals, infinities, a quiet and a signalling NaN (which F16C would quiet), each in
  // every lane of some entry.
  const uint16_t halves[] = {0x0000, 0x8000, 0x0001, 0x83FF, 0x0400, 0x7BFF, 0x7C00, 0xFC00,
                             0x3C00, 0xB555, 0x7E00, 0x7C01, 0x1234, 0x4321, 0x0200, 0xC000};
  auto half = [&](unsigned e, unsigned j) { return halves[(5 * e + 3 * j) % 16]; };
  std::string program = "  .supervisor\nf:\n  ld32 $m1, $m0, 0\n  put $CCCSLOAD, $m1\n";
  for (unsigned e = 0; e < 64; e += 2) program += "  ld128putcs " + std::to_string(e) + "\n";
  auto r = runAsm(program + "  br $lr\n", "f", Mode::Supervisor, 0x70000, [&](sim::Tile &t) {
    putWords(t, 0x70000, {0x90000});
    for (unsigned e = 0; e < 64; ++e)
      for (unsigned j = 0; j < 4; ++j) t.memory().write<uint16_t>(0x90000 + 8 * e + 2 * j, half(e, j));
  });
  for (unsigned e = 0; e < 64; ++e)
    for (unsigned j = 0; j < 4; ++j) {
      EXPECT_EQ(uint16_t(r.tile->commonWeights()[e] >> (16 * j)), half(e, j)) << e << " " << j;
      EXPECT_EQ(bits(r.tile->ampHalfWeights(e % 4, j)[e / 4]), bits(arch::halfToFloat(half(e, j)))) << e << " " << j;
    }
  EXPECT_TRUE(r.tile->ampWeightsHaveNaN(false));
}

TEST(Semantics, AmpSpecialValues) {
  // f16v4hihov4amp with every weight 1.0 and zero partials: each set's sixteen outputs are the sum
  // of its sixteen input halves (four phases of four), summed in binary32 and rounded to f16. The
  // host-vector handlers (F16C conversions) must give the portable ones' bits: runTile compares
  // the fast path (vector handlers where the host has them) with the stepped one (portable).
  // Set 1: a signalling NaN 0x7C01 -> the canonical NaN 0x7E00 (F16C alone would keep the payload:
  // 0x7E01). Set 2: its negative 0xFC01 -> 0xFE00. Set 3: 4 x 65504 = 262016 -> infinity 0x7C00.
  // Set 4: 2048 + 1 = 2049, a tie between 2048 and 2050 -> even 2048 (0x6800). Set 5: 2^-24 + 2^-24
  // -> the subnormal 2^-23 (0x0002). Set 6: 65504 + 16 = 65520, the first value that rounds to
  // infinity -> 0x7C00; 65504 + 15 -> 65504 (0x7BFF) would be set 7.
  const std::vector<std::vector<uint16_t>> sets = {{0x7C01}, {0xFC01}, {0x7BFF, 0x7BFF, 0x7BFF, 0x7BFF},
                                                   {0x6800, 0x3C00}, {0x0001, 0x0001}, {0x7BFF, 0x4C00},
                                                   {0x7BFF, 0x4B80}};
  const std::vector<uint16_t> expected = {0x7E00, 0xFE00, 0x7C00, 0x6800, 0x0002, 0x7C00, 0x7BFF};
  const unsigned n = unsigned(sets.size());
  std::string body = "  setzi $m1, 0x70000\n";
  // Warm-up set: zero partials. Then each set's four phases; the results of set s come out
  // during set s + 1 (the last during four drain issues), stored after each issue.
  for (unsigned p = 0; p < 4; ++p) body += "  f16v4hihov4amp $a4:5, $azeros, $azeros, " + std::to_string(16 + p) + "\n";
  for (unsigned s = 0; s <= n; ++s)
    for (unsigned p = 0; p < 4; ++p) {
      body += s < n ? "  ld64step $a0:1, $mzero, $m1+=, 1\n  f16v4hihov4amp $a4:5, $a0:1, $azeros, "
                    : "  f16v4hihov4amp $a4:5, $azeros, $azeros, ";
      body += std::to_string(16 + p) + "\n";
      if (s > 0) body += "  st64 $a4:5, $mvertex_base, " + std::to_string(4 * (s - 1) + p) + "\n";
    }
  auto r = runAsm("w:\n" + body + "  exitz $mzero\n", "w", Mode::Worker, 0x71000, [&](sim::Tile &t) {
    for (unsigned s = 0; s < n; ++s) {
      uint16_t in[16] = {};
      for (size_t i = 0; i < sets[s].size(); ++i) in[i] = sets[s][i];
      for (unsigned w = 0; w < 8; ++w) putWords(t, 0x70000 + 32 * s + 4 * w, {uint32_t(in[2 * w]) | uint32_t(in[2 * w + 1]) << 16});
    }
    for (unsigned e = 0; e < 64; ++e) t.setCommonWeight(e, 0x3C003C003C003C00ull); // 1.0
  });
  for (unsigned s = 0; s < n; ++s)
    for (unsigned h = 0; h < 16; ++h) {
      const uint32_t word = r.word(0x71000 + 32 * s + 2 * (h & ~1u));
      EXPECT_EQ(uint16_t(word >> (16 * (h % 2))), expected[s]) << "set " << s + 1 << " half " << h;
    }

  // f16v4sisoamp (f32 results, E4: eight outputs): the NaN's payload survives in binary32, quieted
  // by the multiply on either path: 0x7C01 -> 0x7F802000 -> 0x7FC02000.
  std::string siso = "  ld64 $a0:1, $mvertex_base, 0\n";
  for (unsigned p = 0; p < 4; ++p) siso += "  f16v4sisoamp $a4:5, $azeros, $azeros, " + std::to_string(16 + p) + "\n";
  for (unsigned p = 0; p < 4; ++p)
    siso += "  f16v4sisoamp $a4:5, " + std::string(p == 0 ? "$a0:1" : "$azeros") + ", $azeros, " + std::to_string(16 + p) + "\n";
  for (unsigned p = 0; p < 4; ++p)
    siso += "  f16v4sisoamp $a4:5, $azeros, $azeros, " + std::to_string(16 + p) + "\n  st64 $a4:5, $mvertex_base, " +
            std::to_string(1 + p) + "\n";
  auto q = runAsm("w:\n" + siso + "  exitz $mzero\n", "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
    putWords(t, 0x70000, {0x7C01, 0});
    for (unsigned e = 0; e < 64; ++e) t.setCommonWeight(e, 0x3C003C003C003C00ull);
  });
  for (unsigned k = 0; k < 8; ++k) EXPECT_EQ(q.word(0x70008 + 4 * k), 0x7FC02000u) << k;

  // A partial waits unchanged as Pin ($AACC[1], [3] for the first pair), where gina reads it bit
  // for bit: a signalling NaN partial stays signalling (halfToFloat keeps it: 0x7C01 ->
  // 0x7F802000), which F16C's conversion would have quieted; 0x3C00 -> 1.0.
  auto g = runAsm(R"(w:
  ld32 $a2, $mvertex_base, 0
  f16v4hihoamp $a4, $azeros, $a2, 16
  f32v2gina $a4:5, $azeros, 1
  st64 $a4:5, $mvertex_base, 1
  exitz $mzero
)",
                  "w", Mode::Worker, 0x70000, [](sim::Tile &t) { putWords(t, 0x70000, {0x3C007C01}); });
  EXPECT_EQ(g.word(0x70008), 0x7F802000u);
  EXPECT_EQ(g.word(0x7000C), 0x3F800000u);

  // Two NaNs meet in a product: a NaN weight (0x7F800001) times a NaN input (0x7F800002), f32 in
  // and out (f32sisoamp, E1: two outputs). Which payload the host passes on depends on operand
  // order, so both paths take it from the portable code (runTile compares them); the result is
  // one of the two, quieted.
  auto m = runAsm(R"(w:
  ld32 $a0, $mvertex_base, 0
  f32sisoamp $a4:5, $azero, $azeros, 0
  f32sisoamp $a4:5, $azero, $azeros, 1
  f32sisoamp $a4:5, $a0, $azeros, 0
  f32sisoamp $a4:5, $azero, $azeros, 1
  f32sisoamp $a4:5, $azero, $azeros, 0
  st64 $a4:5, $mvertex_base, 1
  exitz $mzero
)",
                  "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
                    putWords(t, 0x70000, {0x7F800002});
                    for (unsigned e = 0; e < 64; ++e) t.setCommonWeight(e, 0x7F8000017F800001ull);
                  });
  for (uint32_t addr : {0x70008u, 0x7000Cu})
    EXPECT_TRUE(m.word(addr) == 0x7FC00001u || m.word(addr) == 0x7FC00002u) << std::hex << m.word(addr);
}

TEST(Semantics, SlicChainsAreOneDimensionalConvolutions) {
  // f16v4sisoslic: weights of output channel m ($CWEI_m_0, bank 0) are four halves of m + 1; bank 1
  // ($CWEI_m_1) is zero. Issue i: input four halves of i + 1 (dot with m + 1: 4 (i + 1)(m + 1)),
  // partials (100 + 2i, 101 + 2i).
  // 4 taps (flags 0): R_2j = 100 + 2j + 4[(j+1) 7 + (j+2) 5 + (j+3) 3 + (j+4) 1] = 220 + 66j and
  //   R_2j+1 = 101 + 2j + 4[(j+1) 8 + (j+2) 6 + (j+3) 4 + (j+4) 2] = 261 + 82j, returned at issue j + 4.
  // 3 taps (flags 2): R_2j = 100 + 2j + 4[(j+1) 5 + (j+2) 3 + (j+3) 1] = 156 + 38j,
  //   R_2j+1 = 101 + 2j + 4[(j+1) 6 + (j+2) 4 + (j+3) 2] = 181 + 50j, returned at issue j + 3.
  // Bank 1 (flags 1): every weight zero, so the pairs are the partials, returned at issue j + 4.
  auto run = [](unsigned flags) {
    std::string body;
    for (unsigned i = 0; i < 6; ++i)
      body += "  ld64 $a0:1, $mvertex_base, " + std::to_string(i) + "\n  ld64 $a2:3, $mvertex_base, " +
              std::to_string(8 + i) + "\n  f16v4sisoslic $a4:5, $a0:1, $a2:3, " + std::to_string(flags) +
              "\n  st64 $a4:5, $mvertex_base, " + std::to_string(16 + i) + "\n";
    return runAsm("w:\n" + body + "  exitz $mzero\n", "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
      for (unsigned i = 0; i < 6; ++i) {
        uint32_t h = arch::floatToHalf(float(i + 1));
        putWords(t, 0x70000 + 8 * i, {h | h << 16, h | h << 16});
        putWords(t, 0x70040 + 8 * i, {bits(float(100 + 2 * i)), bits(float(101 + 2 * i))});
      }
      for (unsigned m = 0; m < 8; ++m) {
        uint64_t h = arch::floatToHalf(float(m + 1));
        t.setCommonWeight(4 * m, h | h << 16 | h << 32 | h << 48);
      }
    });
  };
  auto four = run(0), three = run(2), bank1 = run(1);
  auto out = [](const TileRun &r, unsigned i, unsigned k) { return r.f32(0x70080 + 8 * i + 4 * k); };
  for (unsigned j = 0; j < 2; ++j) {
    EXPECT_EQ(out(four, j + 4, 0), float(220 + 66 * j)) << j;
    EXPECT_EQ(out(four, j + 4, 1), float(261 + 82 * j)) << j;
    EXPECT_EQ(out(bank1, j + 4, 0), float(100 + 2 * j)) << j;
    EXPECT_EQ(out(bank1, j + 4, 1), float(101 + 2 * j)) << j;
  }
  for (unsigned j = 0; j < 3; ++j) {
    EXPECT_EQ(out(three, j + 3, 0), float(156 + 38 * j)) << j;
    EXPECT_EQ(out(three, j + 3, 1), float(181 + 50 * j)) << j;
  }
}

TEST(Semantics, F32SlicTakesEachPositionInTwoIssues) {
  // f32sisoslic, 3 taps (flags 2 low issue, 6 high issue): output channel m's weights are m + 1
  // (low word of $CWEI_m_0) and 10 (m + 1) (high word). Position i's elements are (i + 1, 1);
  // partials P = (100 + 2i, 101 + 2i) with the low issue, D = (0.5, 0.25) with the high one.
  // The even chain's taps are outputs m = 4, 2, 0 (low weights 5, 3, 1; high 50, 30, 10), the odd
  // chain's m = 5, 3, 1 (6, 4, 2; 60, 40, 20); positions j, j + 1, j + 2 feed taps 0, 1, 2:
  // R_2j = 100.5 + 2j + 5 (j+1) + 3 (j+2) + (j+3) + 90 = 204.5 + 11j;
  // R_2j+1 = 101.25 + 2j + 6 (j+1) + 4 (j+2) + 2 (j+3) + 120 = 241.25 + 14j.
  // The pair (R_2j, R_2j+1) leaves at position j + 3's low issue.
  std::string body;
  for (unsigned i = 0; i < 5; ++i)
    body += "  ld32 $a0, $mvertex_base, " + std::to_string(2 * i) + "\n  ld64 $a2:3, $mvertex_base, " +
            std::to_string(8 + i) + "\n  f32sisoslic $a4:5, $a0, $a2:3, 2\n  st64 $a4:5, $mvertex_base, " +
            std::to_string(16 + i) + "\n  ld32 $a0, $mvertex_base, " + std::to_string(2 * i + 1) +
            "\n  ld64 $a2:3, $mvertex_base, 14\n  f32sisoslic $a4:5, $a0, $a2:3, 6\n";
  auto r = runAsm("w:\n" + body + "  exitz $mzero\n", "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
    for (unsigned i = 0; i < 5; ++i) {
      putWords(t, 0x70000 + 8 * i, {bits(float(i + 1)), bits(1.0f)});
      putWords(t, 0x70040 + 8 * i, {bits(float(100 + 2 * i)), bits(float(101 + 2 * i))});
    }
    putWords(t, 0x70070, {bits(0.5f), bits(0.25f)});
    for (unsigned m = 0; m < 8; ++m)
      t.setCommonWeight(4 * m, uint64_t(bits(float(m + 1))) | uint64_t(bits(10.0f * float(m + 1))) << 32);
  });
  for (unsigned j = 0; j < 2; ++j) {
    EXPECT_EQ(r.f32(0x70080 + 8 * (j + 3)), 204.5f + 11.0f * float(j)) << j;
    EXPECT_EQ(r.f32(0x70084 + 8 * (j + 3)), 241.25f + 14.0f * float(j)) << j;
  }
}

TEST(Semantics, SixteenOutputF16SlicRunsTwoChainSets) {
  // f16v4hihov4slic: set A's output channel m has weights ($CWEI_m_0) four halves of m + 1, set B's
  // ($CWEI_(8+m)_0) of 2 (m + 1); bank 1 ($CWEI_m_1, $CWEI_(8+m)_1) is zero. Issue i: input four
  // halves of i + 1 (a dot of 4 (i + 1) w), partial lanes (A_2i, A_2i+1, B_2i, B_2i+1) =
  // (i, i + 0.5, 20 + i, 20.5 + i).
  // 4 taps (flags 0), A's taps m = 6, 4, 2, 0 (even) and 7, 5, 3, 1 (odd) over issues j..j+3:
  //   A_2j = j + 4[7 (j+1) + 5 (j+2) + 3 (j+3) + (j+4)] = 120 + 65j,
  //   A_2j+1 = j + 0.5 + 4[8 (j+1) + 6 (j+2) + 4 (j+3) + 2 (j+4)] = 160.5 + 81j;
  //   set B's products are twice A's: B_2j = 20 + j + 8 (16j + 30) = 260 + 129j,
  //   B_2j+1 = 20.5 + j + 8 (20j + 40) = 340.5 + 161j; all four returned at issue j + 4.
  // 3 taps (flags 2), taps m = 4, 2, 0 and 5, 3, 1: A_2j = j + 4 (9j + 14) = 56 + 37j,
  //   A_2j+1 = j + 0.5 + 4 (12j + 20) = 80.5 + 49j, B_2j = 20 + j + 8 (9j + 14) = 132 + 73j,
  //   B_2j+1 = 20.5 + j + 8 (12j + 20) = 180.5 + 97j, returned at issue j + 3.
  // Bank 1 (flags 1) on both sets: every product zero, so issue j + 4 returns issue j's partials.
  auto run = [](unsigned flags) {
    std::string body;
    for (unsigned i = 0; i < 6; ++i)
      body += "  ld64 $a0:1, $mvertex_base, " + std::to_string(i) + "\n  ld64 $a2:3, $mvertex_base, " +
              std::to_string(8 + i) + "\n  f16v4hihov4slic $a4:5, $a0:1, $a2:3, " + std::to_string(flags) +
              "\n  st64 $a4:5, $mvertex_base, " + std::to_string(16 + i) + "\n";
    return runAsm("w:\n" + body + "  exitz $mzero\n", "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
      auto h = [](float f) { return uint32_t(arch::floatToHalf(f)); };
      for (unsigned i = 0; i < 6; ++i) {
        const float x = float(i);
        putWords(t, 0x70000 + 8 * i, {h(x + 1) | h(x + 1) << 16, h(x + 1) | h(x + 1) << 16});
        putWords(t, 0x70040 + 8 * i, {h(x) | h(x + 0.5f) << 16, h(20 + x) | h(20.5f + x) << 16});
      }
      for (unsigned m = 0; m < 8; ++m) {
        const uint64_t a = arch::floatToHalf(float(m + 1)), b = arch::floatToHalf(float(2 * (m + 1)));
        t.setCommonWeight(4 * m, a * 0x0001000100010001ull);
        t.setCommonWeight(32 + 4 * m, b * 0x0001000100010001ull);
      }
    });
  };
  auto four = run(0), three = run(2), bank1 = run(1);
  auto lane = [](const TileRun &r, unsigned i, unsigned k) {
    return arch::halfToFloat(uint16_t(r.word(0x70080 + 8 * i + 4 * (k / 2)) >> (16 * (k % 2))));
  };
  for (unsigned j = 0; j < 2; ++j) {
    const float x = float(j);
    EXPECT_EQ(lane(four, j + 4, 0), 120 + 65 * x) << j;
    EXPECT_EQ(lane(four, j + 4, 1), 160.5f + 81 * x) << j;
    EXPECT_EQ(lane(four, j + 4, 2), 260 + 129 * x) << j;
    EXPECT_EQ(lane(four, j + 4, 3), 340.5f + 161 * x) << j;
    EXPECT_EQ(lane(bank1, j + 4, 0), x) << j;
    EXPECT_EQ(lane(bank1, j + 4, 1), x + 0.5f) << j;
    EXPECT_EQ(lane(bank1, j + 4, 2), 20 + x) << j;
    EXPECT_EQ(lane(bank1, j + 4, 3), 20.5f + x) << j;
  }
  for (unsigned j = 0; j < 3; ++j) {
    const float x = float(j);
    EXPECT_EQ(lane(three, j + 3, 0), 56 + 37 * x) << j;
    EXPECT_EQ(lane(three, j + 3, 1), 80.5f + 49 * x) << j;
    EXPECT_EQ(lane(three, j + 3, 2), 132 + 73 * x) << j;
    EXPECT_EQ(lane(three, j + 3, 3), 180.5f + 97 * x) << j;
  }
}

TEST(Semantics, SixteenOutputF32SlicMovesSetAAtTheLowIssueAndSetBAtTheHigh) {
  // f32sisov2slic: set A's output channel m has low/high weights m + 1 and 10 (m + 1) ($CWEI_m_0),
  // set B's 2 (m + 1) and 20 (m + 1) ($CWEI_(8+m)_0); bank 1 holds 1000s, which bank 0 flags must
  // not see. Position i's elements are (i + 1, 1); its low issue takes set A's partials
  // (100 + 2i, 101 + 2i), its high issue set B's (200 + 2i, 201 + 2i).
  // 4 taps (flags 0 low, 4 high), taps m = 6, 4, 2, 0 (even), 7, 5, 3, 1 (odd) at positions j..j+3:
  //   A_2j = 100 + 2j + [7 (j+1) + 5 (j+2) + 3 (j+3) + (j+4)] + 10 (7 + 5 + 3 + 1) = 290 + 18j,
  //   A_2j+1 = 101 + 2j + [8 (j+1) + 6 (j+2) + 4 (j+3) + 2 (j+4)] + 10 (8 + 6 + 4 + 2) = 341 + 22j,
  //   B_2j = 200 + 2j + 2 (16j + 30) + 320 = 580 + 34j, B_2j+1 = 201 + 2j + 2 (20j + 40) + 400 = 681 + 42j;
  //   (A_2j, A_2j+1) leave at position j + 4's low issue, (B_2j, B_2j+1) at its high issue.
  // 3 taps (flags 2, 6), taps m = 4, 2, 0 and 5, 3, 1: A_2j = 100 + 2j + (9j + 14) + 90 = 204 + 11j,
  //   A_2j+1 = 101 + 2j + (12j + 20) + 120 = 241 + 14j, B_2j = 200 + 2j + 2 (9j + 14) + 180 = 408 + 20j,
  //   B_2j+1 = 201 + 2j + 2 (12j + 20) + 240 = 481 + 26j, at position j + 3.
  auto run = [](unsigned flags) {
    std::string body;
    for (unsigned i = 0; i < 6; ++i)
      for (unsigned high = 0; high < 2; ++high)
        body += "  ld32 $a0, $mvertex_base, " + std::to_string(2 * i + high) + "\n  ld64 $a2:3, $mvertex_base, " +
                std::to_string(8 * (high + 1) + i) + "\n  f32sisov2slic $a4:5, $a0, $a2:3, " +
                std::to_string(flags + 4 * high) + "\n  st64 $a4:5, $mvertex_base, " +
                std::to_string(24 + 2 * i + high) + "\n";
    return runAsm("w:\n" + body + "  exitz $mzero\n", "w", Mode::Worker, 0x70000, [](sim::Tile &t) {
      for (unsigned i = 0; i < 6; ++i) {
        putWords(t, 0x70000 + 8 * i, {bits(float(i + 1)), bits(1.0f)});
        putWords(t, 0x70040 + 8 * i, {bits(float(100 + 2 * i)), bits(float(101 + 2 * i))});
        putWords(t, 0x70080 + 8 * i, {bits(float(200 + 2 * i)), bits(float(201 + 2 * i))});
      }
      auto pair = [](float lo, float hi) { return uint64_t(bits(lo)) | uint64_t(bits(hi)) << 32; };
      for (unsigned m = 0; m < 8; ++m) {
        const float w = float(m + 1);
        t.setCommonWeight(4 * m, pair(w, 10 * w));
        t.setCommonWeight(32 + 4 * m, pair(2 * w, 20 * w));
        t.setCommonWeight(4 * m + 1, pair(1000, 1000));
        t.setCommonWeight(32 + 4 * m + 1, pair(1000, 1000));
      }
    });
  };
  auto four = run(0), three = run(2);
  auto out = [](const TileRun &r, unsigned i, bool high, unsigned k) {
    return r.f32(0x700C0 + 16 * i + 8 * high + 4 * k);
  };
  for (unsigned j = 0; j < 2; ++j) {
    const float x = float(j);
    EXPECT_EQ(out(four, j + 4, false, 0), 290 + 18 * x) << j;
    EXPECT_EQ(out(four, j + 4, false, 1), 341 + 22 * x) << j;
    EXPECT_EQ(out(four, j + 4, true, 0), 580 + 34 * x) << j;
    EXPECT_EQ(out(four, j + 4, true, 1), 681 + 42 * x) << j;
  }
  for (unsigned j = 0; j < 3; ++j) {
    const float x = float(j);
    EXPECT_EQ(out(three, j + 3, false, 0), 204 + 11 * x) << j;
    EXPECT_EQ(out(three, j + 3, false, 1), 241 + 14 * x) << j;
    EXPECT_EQ(out(three, j + 3, true, 0), 408 + 20 * x) << j;
    EXPECT_EQ(out(three, j + 3, true, 1), 481 + 26 * x) << j;
  }
}

TEST(Semantics, Float32MatchesHostIeee) {
  float x = 1.1f, y = 3.3e-3f;
  auto r = worker(R"(
  ld32 $a0, $mvertex_base, 0
  ld32 $a1, $mvertex_base, 1
  f32add $a2, $a0, $a1
  st32 $a2, $mvertex_base, 4
  f32sub $a2, $a0, $a1
  st32 $a2, $mvertex_base, 5
  f32mul $a2, $a0, $a1
  st32 $a2, $mvertex_base, 6
  f32div $a2, $a0, $a1
  st32 $a2, $mvertex_base, 7
  f32sqrt $a2, $a0
  st32 $a2, $mvertex_base, 8
  f32cmplt $a2, $a1, $a0
  st32 $a2, $mvertex_base, 9
  ld64 $a4:5, $mvertex_base, 0
  f32v2mul $a4:5, $a0:B, $a4:5
  st64 $a4:5, $mvertex_base, 5
  f32tof16 $a2, $a0
  st32 $a2, $mvertex_base, 12
  f32toi32 $a2, $a0
  st32 $a2, $mvertex_base, 13
)",
                  {bits(x), bits(y)});
  EXPECT_EQ(r.f32(0x70010), x + y);
  EXPECT_EQ(r.f32(0x70014), x - y);
  EXPECT_EQ(r.f32(0x70018), x * y);
  EXPECT_EQ(r.f32(0x7001C), x / y);
  EXPECT_EQ(r.f32(0x70020), std::sqrt(x));
  EXPECT_EQ(r.word(0x70024), 0xFFFFFFFFu);
  EXPECT_EQ(r.f32(0x70028), x * x);
  EXPECT_EQ(r.f32(0x7002C), y * x);
  EXPECT_EQ(r.word(0x70030), 0x3C663C66u); // 1.1 in binary16 (1.099609375), in both halves ([F] S2)
  EXPECT_EQ(r.word(0x70034), 1u);
}

TEST(Half, ConversionsRoundToNearestEven) {
  using arch::doubleToHalf;
  using arch::halfToFloat;
  EXPECT_EQ(doubleToHalf(1.0), 0x3C00);
  EXPECT_EQ(doubleToHalf(1.0 + std::ldexp(1, -11)), 0x3C00);     // tie: to the even 1.0
  EXPECT_EQ(doubleToHalf(1.0 + 3 * std::ldexp(1, -11)), 0x3C02); // tie: to the even 1 + 2^-9
  EXPECT_EQ(doubleToHalf(65504.0), 0x7BFF);                      // largest finite
  EXPECT_EQ(doubleToHalf(65519.0), 0x7BFF);
  EXPECT_EQ(doubleToHalf(65520.0), 0x7C00); // rounds to infinity
  EXPECT_EQ(doubleToHalf(-1e9), 0xFC00);
  EXPECT_EQ(doubleToHalf(std::ldexp(1, -24)), 0x0001);        // smallest subnormal
  EXPECT_EQ(doubleToHalf(std::ldexp(1, -25)), 0x0000);        // tie: to zero
  EXPECT_EQ(doubleToHalf(1.5 * std::ldexp(1, -24)), 0x0002);  // tie: to the even 2 units
  EXPECT_EQ(doubleToHalf(std::ldexp(1, -14)), 0x0400);        // smallest normal
  EXPECT_EQ(doubleToHalf(std::ldexp(1023, -24)), 0x03FF);     // largest subnormal
  EXPECT_EQ(doubleToHalf(-0.0), 0x8000);
  EXPECT_EQ(doubleToHalf(NAN) & 0x7E00, 0x7E00);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.0f);
  EXPECT_TRUE(std::isinf(halfToFloat(0xFC00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
  // Every binary16 value converts to binary32 and back unchanged.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) continue; // NaNs keep their sign only
    ASSERT_EQ(doubleToHalf(halfToFloat(uint16_t(h))), h) << std::hex << h;
  }
}

TEST(Semantics, Float16Vectors) {
  // f16v4add of (1, 1, 65504, 2^-24) + (2^-11, 3*2^-11, 16, 2^-24): the ties round to even,
  // the overflow to infinity, and 2^-24 + 2^-24 = 2^-23 exactly.
  auto r = worker(R"(
  ld64 $a0:1, $mvertex_base, 0
  ld64 $a2:3, $mvertex_base, 1
  f16v4add $a4:5, $a0:1, $a2:3
  st64 $a4:5, $mvertex_base, 2
  f16v4mul $a4:5, $a2:BL, $a0:1
  st64 $a4:5, $mvertex_base, 3
  f16v2tof32 $a4:5, $a0
  st64 $a4:5, $mvertex_base, 4
  f16v4cmplt $a4:5, $a0:1, $a2:3
  st64 $a4:5, $mvertex_base, 5
  f16v2sub $a4, $a0, $a2
  st32 $a4, $mvertex_base, 12
  f16v4mul $a4:5, $a2:BU, $a0:1
  st64 $a4:5, $mvertex_base, 7
)",
                  {0x3C003C00, 0x00017BFF, 0x16001000, 0x00014C00});
  // Inputs: a = {0x3C00, 0x3C00, 0x7BFF, 0x0001}; b = {0x1000 (2^-11), 0x1600 (3*2^-11), 0x4C00 (16), 0x0001}.
  EXPECT_EQ(r.word(0x70010), 0x3C023C00u);
  EXPECT_EQ(r.word(0x70014), 0x00027C00u);
  // a * b[0] (2^-11 broadcast from the low half): 2^-11, 2^-11, 65504*2^-11 = 31.98, 2^-35 -> 0.
  EXPECT_EQ(r.word(0x70018), 0x10001000u);
  EXPECT_EQ(r.word(0x7001C), uint32_t(arch::doubleToHalf(65504.0 * std::ldexp(1, -11))));
  EXPECT_EQ(r.f32(0x70020), 1.0f);
  EXPECT_EQ(r.f32(0x70024), 1.0f);
  EXPECT_EQ(r.word(0x70028), 0x00000000u); // 1 < 2^-11? no; 1 < 3*2^-11? no
  EXPECT_EQ(r.word(0x7002C), 0x00000000u); // 65504 < 16? no; 2^-24 < 2^-24? no
  // f16v2 (one register): 1 - 2^-11 and 1 - 3*2^-11, exact below 1 (spacing 2^-11).
  EXPECT_EQ(r.word(0x70030), 0x3BFD3BFFu);
  // a * b[1] (3*2^-11 from the high half): 3*2^-11 twice; 65504*3*2^-11 = 95.953125, 1535.25
  // steps of the 2^-4 grid, so 95.9375 (0x55FF); 3*2^-35 underflows to +0.
  EXPECT_EQ(r.word(0x70038), 0x16001600u);
  EXPECT_EQ(r.word(0x7003C), 0x000055FFu);
}

TEST(Semantics, Float16ArithmeticThroughBinary32) {
  // The f16 add, sub and multiply handlers round the exact result through binary32 in the
  // default mode (arith16's Exact): the same half as rounding the exact double once, for every
  // half x against a spread of y (every 251st half: both signs, subnormals, infinities, NaNs).
  using arch::doubleToHalf, arch::floatToHalf, arch::halfToFloat;
  unsigned checked = 0;
  for (uint32_t a = 0; a < 0x10000; ++a)
    for (uint32_t b = 0; b < 0x10000; b += 251) {
      const double x = halfToFloat(uint16_t(a)), y = halfToFloat(uint16_t(b));
      for (const double exact : {x + y, x - y, x * y}) {
        const uint16_t want = doubleToHalf(exact), got = floatToHalf(float(exact));
        ASSERT_EQ(got, want) << std::hex << a << " " << b;
        ++checked;
      }
    }
  EXPECT_EQ(checked, 0x10000u * 262 * 3);
}

TEST(Exceptions, RaisedInABatchedRptBodyNameItsBundle) {
  // A one-bundle rpt body (batched on the fast path, its pc noted once) whose load walks off the
  // end of tile memory in its third iteration: both paths (runTile compares them) report the
  // body's bundle and its source line.
  try {
    runAsm(R"(
w:
  setzi $m1, 5
  setzi $m3, 0xE7FF8
  .align 8
  { rpt $m1, 0 ; fnop }
  { ld32step $m4, $mzero, $m3+=, 1 ; f32add $a0, $a0, $a0 }
  exitz $mzero
)",
           "w", Mode::Worker);
    FAIL() << "no exception";
  } catch (const sim::SimException &e) {
    EXPECT_EQ(e.context, 1u);
    EXPECT_EQ(e.instruction, "{ ld32step $m4, $mzero, $m3+=, 1 ; f32add $a0, $a0, $a0 }");
    EXPECT_EQ(e.reason, "4-byte access at 0xe8000 is outside tile memory 0x4c000..0xe8000");
    EXPECT_EQ(e.source, "t.s:7:3");
  }
}

TEST(Exceptions, ReportContextPcInstructionAndReason) {
  try {
    runAsm(R"(
w:
  setzi $m0, 0x70002
  ld32 $m1, $m0, 0
  exitz $mzero
)",
           "w", Mode::Worker);
    FAIL() << "no exception";
  } catch (const sim::SimException &e) {
    EXPECT_EQ(e.context, 1u);
    EXPECT_EQ(e.pc, 0x4C004u);
    EXPECT_EQ(std::string(e.what()),
              "ipu 0, tile 0, context 1 (worker 1), pc 0x4c004 (ld32 $m1, $m0, $mzero, 0) at t.s:4:3: misaligned "
              "4-byte access at 0x70002");
  }
}

TEST(Exceptions, MemoryAndFetchLimits) {
  auto reason = [](const std::string &body, Mode mode = Mode::Worker) {
    try {
      runAsm("w:\n" + body + (mode == Mode::Worker ? "\n  exitz $mzero\n" : "\n  br $lr\n"), "w", mode);
    } catch (const sim::SimException &e) {
      return e.reason;
    }
    return std::string("no exception");
  };
  EXPECT_EQ(reason("  setzi $m0, 0xE8000\n  ld32 $m1, $m0, 0"),
            "4-byte access at 0xe8000 is outside tile memory 0x4c000..0xe8000");
  EXPECT_EQ(reason("  setzi $m0, 0x60000\n  ld128 $a0:3, $m0, 0"), "ld128 from 0x60000, which is not in interleaved memory");
  EXPECT_EQ(reason("  setzi $m0, 0x80000\n  br $m0"), "instruction fetch outside the executable region 0");
  EXPECT_EQ(reason("  trap 3"), "trap 3");
  // One spinning worker started with run leaves the supervisor slots for the runall.
  EXPECT_EQ(reason("  .supervisor\n  setzi $m1, spin\n  setzi $m2, 0\n  run $m1, $m2, 0\n  runall $m1, $m0, 0\n"
                   "  br $lr\n  .worker\nspin:\n  bri spin",
                   Mode::Supervisor),
            "runall while a worker is still running");
}

} // namespace

namespace {

/// Seeds the worker's PRNG with s0 = 1, s1 = 2.
const std::string kSeedPrng = R"(
  setzi $a0, 1
  uput $PRNG_0_0, $a0
  uput $PRNG_0_1, $azero
  setzi $a0, 2
  uput $PRNG_1_0, $a0
  uput $PRNG_1_1, $azero
)";

TEST(Semantics, HardwarePrngIsXoroshiro128aox) {
  // With s0 = 1, s1 = 2: sx = 3, sa = 0, so the first output is 3; the state becomes
  // s0 = rotl(1, 55) ^ 3 ^ (3 << 14) = 0x008000000000C003, s1 = rotl(3, 36) = 0x0000003000000000,
  // whose AND is 0: the second output is their XOR, 0x008000300000C003 (arXiv:2203.04058).
  auto r = worker(kSeedPrng + R"(
  urand64 $a2:3
  st64 $a2:3, $mvertex_base, 0
  urand64 $a2:3
  st64 $a2:3, $mvertex_base, 1
)",
                  {});
  EXPECT_EQ(r.word(0x70000), 3u);
  EXPECT_EQ(r.word(0x70004), 0u);
  EXPECT_EQ(r.word(0x70008), 0x0000C003u);
  EXPECT_EQ(r.word(0x7000C), 0x00800030u);
}

TEST(Semantics, AccumulatorsModel) {
  // ZAACC clears; two f32v4acc of (1, 2, 3, 4) leave AACC[0, 2, 4, 6] = (2, 4, 6, 8). Each
  // f32v2gina 0 returns the head pair AACC[0], AACC[2] and shifts the even chain down a pair,
  // zeros entering at AACC[12], AACC[14]: (2, 4), then (6, 8). f32v2axpy with $TAS = 2 returns
  // the previous AACC[0]/AACC[2] (now 0, 0) while 2x + y goes in.
  auto r = worker(R"(
  setzi $a0, 8
  uput $FP_CLR, $a0
  ld64 $a0:1, $mvertex_base, 0
  ld64 $a2:3, $mvertex_base, 1
  f32v4acc $a0:3
  f32v4acc $a0:3
  f32v2gina $a4:5, $azeros, 0
  st64 $a4:5, $mvertex_base, 4
  f32v2gina $a4:5, $azeros, 0
  st64 $a4:5, $mvertex_base, 5
  ld32 $a6, $mvertex_base, 4
  uput $TAS, $a6
  f32v2axpy $a4:5, $a0:1, $a2:3
  f32v2axpy $a4:5, $a0:1, $a2:3
  st64 $a4:5, $mvertex_base, 6
)",
                  {bits(1), bits(2), bits(3), bits(4), bits(2)});
  EXPECT_EQ(r.f32(0x70020), 2.0f);
  EXPECT_EQ(r.f32(0x70024), 4.0f);
  EXPECT_EQ(r.f32(0x70028), 6.0f);
  EXPECT_EQ(r.f32(0x7002C), 8.0f);
  // axpy: 2 * (1, 2) + (3, 4) = (5, 8) went in first and comes out of the second.
  EXPECT_EQ(r.f32(0x70030), 5.0f);
  EXPECT_EQ(r.f32(0x70034), 8.0f);
}

} // namespace

namespace {

TEST(Semantics, FloatingPointFlagsAndTraps) {
  // $FP_STS: invalid 1, divide by zero 2, overflow 4 (TileConstants.hpp, ours).
  auto r = worker(R"(
  ld32 $a0, $mvertex_base, 0
  ld32 $a1, $mvertex_base, 1
  f32mul $a2, $a0, $a0
  uget $a3, $FP_STS
  st32 $a3, $mvertex_base, 4
  f32div $a2, $a1, $a1
  uget $a3, $FP_STS
  st32 $a3, $mvertex_base, 5
  f32div $a2, $a0, $a1
  uget $a3, $FP_STS
  st32 $a3, $mvertex_base, 6
  or $a4, $azero, 0x100000          // NANOO, bit 20
  uput $FP_CTL, $a4
  f32mul $a2, $a0, $a0
  st32 $a2, $mvertex_base, 7
)",
                  {bits(1e38f), bits(0.0f)});
  EXPECT_EQ(r.word(0x70010), 4u);     // 1e38 * 1e38 overflows
  EXPECT_EQ(r.word(0x70014), 4u | 1); // 0 / 0 is invalid
  EXPECT_EQ(r.word(0x70018), 4u | 1 | 2);
  EXPECT_TRUE(std::isnan(r.f32(0x7001C))); // NANOO: overflow gives NaN
  try {
    worker("  ld32 $a0, $mvertex_base, 0\n  setzi $a4, 4\n  uput $FP_CTL, $a4\n  f32mul $a2, $a0, $a0", {bits(1e38f)});
    FAIL() << "no trap";
  } catch (const sim::SimException &e) {
    EXPECT_EQ(e.reason, "floating-point exception: overflow");
    EXPECT_EQ(e.instruction, "f32mul $a2, $a0, $a0");
  }
}

TEST(Semantics, Float32PairsOnTheFastForms) {
  // f32v2add/sub/mul on register pairs take the fast path's own handlers (RegisterFastForm) when
  // both lanes are finite in the default mode; an overflowing lane or another rounding mode goes
  // to the general handler. runTile compares both paths. Inputs: a = (1e38, 1.5), b = (1e38, 2^-30).
  auto r = worker(R"(
  ld64 $a0:1, $mvertex_base, 0
  ld64 $a2:3, $mvertex_base, 1
  f32v2mul $a4:5, $a0:1, $a2:3
  st64 $a4:5, $mvertex_base, 4
  uget $a6, $FP_STS
  st32 $a6, $mvertex_base, 10
  f32v2add $a4:5, $a0:1, $a2:3
  st64 $a4:5, $mvertex_base, 6
  setzi $a6, 0x10000
  uput $FP_CTL, $a6
  f32v2add $a4:5, $a0:1, $a2:3
  st64 $a4:5, $mvertex_base, 7
  f32v2sub $a0:1, $a0:1, $a2:3
  st64 $a0:1, $mvertex_base, 8
)",
                  {bits(1e38f), bits(1.5f), bits(1e38f), bits(0x1p-30f)});
  EXPECT_EQ(r.word(0x70020), 0x7F800000u); // 1e38 * 1e38 overflows to infinity ...
  EXPECT_EQ(r.word(0x70024), 0x30C00000u); // ... beside 1.5 * 2^-30, exact
  EXPECT_EQ(r.word(0x70028), 4u);          // $FP_STS: overflow
  EXPECT_EQ(r.f32(0x70030), 2e38f);        // 2 * 1e38, exact
  EXPECT_EQ(r.word(0x70034), 0x3FC00000u); // 1.5 + 2^-30 to nearest: 1.5
  EXPECT_EQ(r.word(0x7003C), 0x3FC00001u); // rounded up: 1.5 + 2^-23
  EXPECT_EQ(r.f32(0x70040), 0.0f);         // in place, rounded up: 1e38 - 1e38 ...
  EXPECT_EQ(r.word(0x70044), 0x3FC00000u); // ... and 1.5 - 2^-30 up to 1.5
}

/// The published xoroshiro128aox, as a reference for the stochastic-rounding test.
struct Aox {
  uint64_t s0, s1;
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t next() {
    uint64_t sx = s0 ^ s1, sa = s0 & s1, r = sx ^ (rotl(sa, 1) | rotl(sa, 2));
    s0 = rotl(s0, 55) ^ sx ^ (sx << 14);
    s1 = rotl(sx, 36);
    return r;
  }
};

TEST(Semantics, RoundingModeOfFpCtl) {
  // $FP_CTL.RND (bits 16-18): 0 nearest even, 1 up, 2 down, 3 toward zero. 1 + 2^-30 in f32 lies
  // just above 1: up gives 1 + 2^-23 (0x3F800001), the others 1 (0x3F800000); -(1 + 2^-30) down
  // gives -(1 + 2^-23). In f16, 1 + 2^-12 (from f32tof16) up is 1 + 2^-10 (0x3C01), toward zero 1;
  // 65520 (halfway past the largest f16, 65504) toward zero stays 65504 (0x7BFF), not infinity.
  std::string body = R"(
  ld32 $a0, $mvertex_base, 0
  ld32 $a1, $mvertex_base, 1
  ld32 $a5, $mvertex_base, 2
  ld32 $a6, $mvertex_base, 3
)";
  for (unsigned mode = 0; mode < 4; ++mode) {
    const std::string out = std::to_string(4 + 5 * mode), out1 = std::to_string(5 + 5 * mode),
                      out2 = std::to_string(6 + 5 * mode), out3 = std::to_string(7 + 5 * mode);
    body += "  setzi $a2, " + std::to_string(mode << 16) + "\n  uput $FP_CTL, $a2\n";
    body += "  f32add $a3, $a0, $a1\n  st32 $a3, $mvertex_base, " + out + "\n";
    body += "  f32sub $a4, $azero, $a1\n  f32sub $a3, $a4, $a0\n  st32 $a3, $mvertex_base, " + out1 + "\n";
    body += "  f32tof16 $a3, $a5\n  st32 $a3, $mvertex_base, " + out2 + "\n";
    body += "  f32tof16 $a3, $a6\n  st32 $a3, $mvertex_base, " + out3 + "\n";
  }
  auto r = worker(body, {bits(1.0f), bits(0x1p-30f), bits(1.0f + 0x1p-12f), bits(65520.0f)});
  auto at = [&](unsigned mode, unsigned k) { return r.word(0x70000 + 4 * (4 + 5 * mode + k)); };
  const uint32_t one = 0x3F800000, up = 0x3F800001;
  EXPECT_EQ(at(0, 0), one);
  EXPECT_EQ(at(1, 0), up);
  EXPECT_EQ(at(2, 0), one);
  EXPECT_EQ(at(3, 0), one);
  EXPECT_EQ(at(0, 1), 0x80000000u | one);
  EXPECT_EQ(at(1, 1), 0x80000000u | one);
  EXPECT_EQ(at(2, 1), 0x80000000u | up);
  EXPECT_EQ(at(3, 1), 0x80000000u | one);
  EXPECT_EQ(at(0, 2) & 0xFFFF, 0x3C00u);
  EXPECT_EQ(at(1, 2) & 0xFFFF, 0x3C01u);
  EXPECT_EQ(at(3, 2) & 0xFFFF, 0x3C00u);
  EXPECT_EQ(at(0, 3) & 0xFFFF, 0x7C00u); // nearest: the tie at 65520 goes to even, infinity
  EXPECT_EQ(at(3, 3) & 0xFFFF, 0x7BFFu);
  EXPECT_EQ(at(1, 3) & 0xFFFF, 0x7C00u);
}

TEST(Semantics, StochasticRoundingUsesThePrng) {
  // 1 + 2^-12 lies a quarter of the way from 1 (0x3C00) to 1 + 2^-10 (0x3C01): with ESR it rounds
  // up when the PRNG's 32 bits, as a fraction, are at least 0.75.
  std::string body = R"(
  ld32 $a0, $mvertex_base, 0
  ld32 $a2, $mvertex_base, 1
  uput $PRNG_0_0, $a2
  ld32 $a2, $mvertex_base, 2
  uput $PRNG_0_1, $a2
  ld32 $a2, $mvertex_base, 3
  uput $PRNG_1_0, $a2
  ld32 $a2, $mvertex_base, 4
  uput $PRNG_1_1, $a2
  setzi $a2, 0x80000                // ESR, bit 19
  uput $FP_CTL, $a2
)";
  for (int i = 0; i < 16; ++i) body += "  f32tof16 $a1, $a0\n  st32 $a1, $mvertex_base, " + std::to_string(8 + i) + "\n";
  uint64_t s0 = 0x9E3779B97F4A7C15ull, s1 = 0xBF58476D1CE4E5B9ull;
  auto r = worker(body, {bits(1.0f + 0x1p-12f), uint32_t(s0), uint32_t(s0 >> 32), uint32_t(s1), uint32_t(s1 >> 32)});
  Aox ref{s0, s1};
  int ups = 0;
  for (int i = 0; i < 16; ++i) {
    double u = double(uint32_t(ref.next())) * 0x1p-32;
    uint32_t expect = u >= 0.75 ? 0x3C01 : 0x3C00;
    ups += expect == 0x3C01;
    EXPECT_EQ(r.word(0x70020 + 4 * i), expect | expect << 16) << i; // f32tof16 fills both halves
  }
  EXPECT_GT(ups, 0); // the seed exercises both directions
  EXPECT_LT(ups, 16);
}

} // namespace

namespace {

TEST(Semantics, BundleInstructionsReadBeforeEitherWrites) {
  // The aux f32add reads $a0 in the bundle that loads $a0: it sees the old value (1.0), while the
  // main st32 stores the $a2 that the aux instruction writes in the same bundle: the old 5.0.
  auto r = worker(R"(
  ld32 $a0, $mvertex_base, 0
  ld32 $a2, $mvertex_base, 2
  nop
  { ld32 $a0, $mvertex_base, 1 ; f32add $a1, $a0, $a0 }
  { st32 $a2, $mvertex_base, 5 ; f32add $a2, $a0, $a0 }
  st32 $a1, $mvertex_base, 4
  st32 $a2, $mvertex_base, 6
)",
                  {bits(1.0f), bits(10.0f), bits(5.0f)});
  EXPECT_EQ(r.f32(0x70010), 2.0f);  // 1 + 1, not 10 + 10
  EXPECT_EQ(r.f32(0x70014), 5.0f);  // the store saw $a2 before the add wrote it
  EXPECT_EQ(r.f32(0x70018), 20.0f); // the second add saw the loaded 10
}

} // namespace

namespace {

TEST(Semantics, ByteSwapsBranchesOnSignAndRoundingModes) {
  // swap8 swaps the bytes of each half; brpos takes zero (sign clear); f32int immediates are the
  // backend's TFPU_ROUND_* values: 0 nearest even, 1 up, 2 down, 3 toward zero, 4 ties away.
  auto r = worker(R"(
  ld32 $m0, $mvertex_base, 0
  swap8 $m1, $m0
  st32 $m1, $mvertex_base, 8
  zero $m2
  setzi $m3, 7
  brpos $m2, 1f
  setzi $m3, 9
1:
  st32 $m3, $mvertex_base, 9
  ld32 $a0, $mvertex_base, 1
  f32int $a1, $a0, 0
  st32 $a1, $mvertex_base, 10
  f32int $a1, $a0, 1
  st32 $a1, $mvertex_base, 11
  f32int $a1, $a0, 2
  st32 $a1, $mvertex_base, 12
  f32int $a1, $a0, 3
  st32 $a1, $mvertex_base, 13
  f32int $a1, $a0, 4
  st32 $a1, $mvertex_base, 14
)",
                  {0x11223344, bits(-2.5f)});
  EXPECT_EQ(r.word(0x70020), 0x22114433u);
  EXPECT_EQ(r.word(0x70024), 7u);
  EXPECT_EQ(r.f32(0x70028), -2.0f);
  EXPECT_EQ(r.f32(0x7002C), -2.0f);
  EXPECT_EQ(r.f32(0x70030), -3.0f);
  EXPECT_EQ(r.f32(0x70034), -2.0f);
  EXPECT_EQ(r.f32(0x70038), -3.0f);
}

TEST(Semantics, MacAndOuterProductLanes) {
  // f32v2mac feeds AACC[0] and AACC[2]: with (2, 0.5) x (4, 10), gina 0 returns (8, 5) (the values
  // of Graphcore's tutorial AsmTest). f32v2aop: [0] += x0 y0, [2] += x1 y0, [4] += x0 y1, [6] += x1 y1.
  auto r = worker(R"(
  setzi $a0, 8
  uput $FP_CLR, $a0
  ld64 $a0:1, $mvertex_base, 0
  ld64 $a2:3, $mvertex_base, 1
  f32v2mac $a0:1, $a2:3
  f32v2gina $a4:5, $azeros, 0
  st64 $a4:5, $mvertex_base, 2
  f32v2aop $a0:1, $a2:3, 0
  f32v2gina $a4:5, $azeros, 0
  st64 $a4:5, $mvertex_base, 3
  f32v2gina $a4:5, $azeros, 0
  st64 $a4:5, $mvertex_base, 4
)",
                  {bits(2.0f), bits(0.5f), bits(4.0f), bits(10.0f)});
  EXPECT_EQ(r.f32(0x70010), 8.0f);
  EXPECT_EQ(r.f32(0x70014), 5.0f);
  EXPECT_EQ(r.f32(0x70018), 8.0f);  // x0 y0
  EXPECT_EQ(r.f32(0x7001C), 2.0f);  // x1 y0
  EXPECT_EQ(r.f32(0x70020), 20.0f); // x0 y1
  EXPECT_EQ(r.f32(0x70024), 5.0f);  // x1 y1
}

} // namespace

namespace {

TEST(Semantics, PermutesClassesAndDeltaLoads) {
  auto r = worker(R"(
  ld32 $m0, $mvertex_base, 0
  ld32 $m1, $mvertex_base, 1
  shuf8x8lo $m2, $m0, $m1
  st32 $m2, $mvertex_base, 8
  shuf8x8hi $m2, $m0, $m1
  st32 $m2, $mvertex_base, 9
  sort8x8lo $m2, $m0, $m1
  st32 $m2, $mvertex_base, 10
  roll8r $m2, $m0, $m1
  st32 $m2, $mvertex_base, 11
  cms $m2, $m1
  st32 $m2, $mvertex_base, 12
  ld64 $a0:1, $mvertex_base, 1
  f16v4class $a2, $a0:1
  st32 $a2, $mvertex_base, 13
  // delta loads: the pointer at word 6 holds the deltas 4 and 8 (16-bit each)
  setzi $m3, 0x70018
  setzi $m4, 0x70000
  zero $m5
  ldd16a32 $a4, $m3++, $m4, $m5@
  st32 $a4, $mvertex_base, 14
  ldd16a32 $a4, $m3++, $m4, $m5@
  st32 $a4, $mvertex_base, 15
  ldd16a32 $a4, $m3++, $m4, $m5@
  st32 $a4, $mvertex_base, 16
)",
                  {0x44332211, 0xF0FFFFFF, 0x80007C00, 0x00013C00, 0, 0, 0x00080004});
  EXPECT_EQ(r.word(0x70020), 0xFF22FF11u); // a0 b0 a1 b1
  EXPECT_EQ(r.word(0x70024), 0xF044FF33u); // a2 b2 a3 b3
  EXPECT_EQ(r.word(0x70028), 0xFFFF3311u); // a0 a2 b0 b2
  EXPECT_EQ(r.word(0x7002C), 0xFF443322u); // {b:a} >> 8
  EXPECT_EQ(r.word(0x70030), 3u);          // 0xF0FFFFFF: three bits below the sign equal it
  // halves (0x7C00 +inf, 0x8000 -0, 0x3C00 +1 normal, 0x0001 +subnormal): codes 9, 5, 8, 7.
  EXPECT_EQ(r.word(0x70034), 0x07080509u);
  // The first load uses the initial delta 0, then the deltas 4 and 8 read from the pointer.
  EXPECT_EQ(r.word(0x70038), 0x44332211u);
  EXPECT_EQ(r.word(0x7003C), 0xF0FFFFFFu);
  EXPECT_EQ(r.word(0x70040), 0x80007C00u);
}

} // namespace

namespace {

TEST(Semantics, WorkersStartWithTheSupervisorsFpIctl) {
  // [F] S2: $FP_CTL is initialised from $FP_ICTL at run/runall; $FP_STS is cleared.
  auto r = runAsm(R"(
  .supervisor
s:
  setzi $m1, 0x18
  put $FP_ICTL, $m1
  setzi $m2, w
  runall $m2, $m0, 0
  sync 2
  br $lr
  .worker
w:
  get $m3, $WSR
  and $m3, $m3, 7
  uget $a0, $FP_CTL
  atom $m4, $a0
  st32 $m4, $mvertex_base, $mzero, $m3
  exitz $mzero
)",
                  "s", Mode::Supervisor);
  for (uint32_t k = 0; k < 6; ++k) EXPECT_EQ(r.word(0x70000 + 4 * k), 0x18u) << k;
}

} // namespace

namespace {

TEST(Semantics, GaussianRandomNumbersFollowPoplibsHostModel) {
  // Each value is (sum of the twelve low 5-bit fields of one PRNG output - 186) / 32, the PRNG
  // being xoroshiro128aox seeded with s0 = 1, s1 = 2, whose outputs are 3, then
  // 0x008000300000C003 (see HardwarePrngIsXoroshiro128aox). 3: fields sum to 3, (3 - 186) / 32 =
  // -5.71875. 0x008000300000C003: bits 0-1 (field 0: 3), 14 (field 2: 16), 15 (field 3: 1),
  // 36-37 (field 7: 6) and 55 (field 11: 1) sum to 27: (27 - 186) / 32 = -4.96875.
  auto r = worker(kSeedPrng + R"(
  f32v2grand $a2:3
  st64 $a2:3, $mvertex_base, 0
)",
                  {});
  EXPECT_EQ(r.f32(0x70000), -5.71875f);
  EXPECT_EQ(r.f32(0x70004), -4.96875f);
}

} // namespace

#include "../../simulator/src/Semantics.h"

namespace {

TEST(Semantics, EveryInstructionOfTheTableHasSemantics) {
  // The ISA table (arch/isa/instructions.def) against the handlers of src/semantics: all but the
  // pseudo-instructions, which the assembler expands.
  std::set<std::string> missing;
  for (const arch::InsnDesc &d : arch::instructionTable())
    if (!d.has(arch::kPseudo) && !sim::handlerRegistry().count(d.mnemonic)) missing.insert(d.mnemonic);
  EXPECT_EQ(missing, std::set<std::string>{});
}

} // namespace
