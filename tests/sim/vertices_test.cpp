// Vertices written in the real dialect, run on the ISS with their outputs and cycle counts
// asserted. Each count is derived by hand from docs/tile-timing.md in the comment above it.
#include "SimUtil.h"

#include "ipusim/arch/Half.h"

#include <gtest/gtest.h>

using namespace ipusim;
using namespace ipusim::test;

namespace {

cc::ObjectFile assembleFile(const std::string &path) { return cc::assembleFile(path, {}); }
std::string vertex(const std::string &name) { return std::string(IPUSIM_TEST_DIR) + "/sim/vertices/" + name; }

constexpr uint32_t kIn0 = 0x60000, kIn1 = 0x64000, kOut = 0x68000, kState = 0x70000;

TEST(Vertices, SupervisorVectorAddF32StartsSixWorkers) {
  // examples/asm/vector_add.S, 12 float pairs: every worker gets (12 - id + 5) / 6 = 2 pairs and
  // issues 16 + 1 (rpt) + 2 x 4 + 1 (exitz) = 26 bundles.
  // Supervisor: c0 setzi $m1; c6 runall (needs $m1). Workers may start at 12: contexts 1..6 issue
  // first at 12..17 and exit 25 turns later at 162..167. The supervisor's first slot after c6 is
  // 168 (context 1's, free since 162): sync there resumes at max(168, 167) + 6 = 174; br $lr: 180.
  auto r = runTile(assembleFile(std::string(IPUSIM_SOURCE_DIR) + "/examples/asm/vector_add.S"), "VectorAdd_f32",
                   Mode::Supervisor, kState, [](sim::Tile &t) {
                     putWords(t, kState, {kIn0, kIn1, kOut, 12});
                     for (uint32_t i = 0; i < 24; ++i) {
                       t.memory().write<float>(kIn0 + 4 * i, float(i));
                       t.memory().write<float>(kIn1 + 4 * i, 0.25f * float(i) - 3.0f);
                     }
                   });
  for (uint32_t i = 0; i < 24; ++i) EXPECT_EQ(r.f32(kOut + 4 * i), float(i) + (0.25f * float(i) - 3.0f)) << i;
  EXPECT_EQ(r.word(kOut + 96), 0u); // nothing written past the end
  EXPECT_EQ(r.stats.cycles, 180u);
  EXPECT_EQ(r.stats.bundles[0], 4u);
  for (unsigned c = 1; c <= 6; ++c) EXPECT_EQ(r.stats.bundles[c], 26u);
}

TEST(Vertices, MultiVertexVectorAddF16) {
  // 12 atoms (48 halves), 2 per worker: 26 bundles each, as above. Launcher: c7 runall; contexts
  // 2..6 issue first at 13..17, context 1 at 18; exits at 163..167 and 168. First free supervisor
  // slot: 169 (context 2's): sync resumes at max(169, 168) + 6 = 175; br $lr: 181.
  std::vector<uint16_t> a(48), b(48);
  for (int i = 0; i < 48; ++i) {
    a[i] = arch::doubleToHalf(0.5 * i - 7);
    b[i] = arch::doubleToHalf(1.0 / (i + 1));
  }
  auto r = runTile(assembleFile(vertex("vector_add_f16.S")), "VectorAdd_f16", Mode::Multi, kState, [&](sim::Tile &t) {
    putWords(t, kState, {kIn0, kIn1, kOut, 12});
    for (int i = 0; i < 48; ++i) {
      t.memory().write<uint16_t>(kIn0 + 2 * i, a[i]);
      t.memory().write<uint16_t>(kIn1 + 2 * i, b[i]);
    }
  });
  for (int i = 0; i < 48; ++i) {
    // One rounding of the exact sum (IEEE binary16 addition).
    uint16_t expect = arch::doubleToHalf(double(arch::halfToFloat(a[i])) + double(arch::halfToFloat(b[i])));
    EXPECT_EQ(r.tile->memory().read<uint16_t>(kOut + 2 * i), expect) << i;
  }
  EXPECT_EQ(r.stats.cycles, 181u);
}

TEST(Vertices, ScaledAddWithPaceLoads) {
  // One worker, n = 5 pairs: 6 + 1 + 4n + 1 = 28 bundles at 18, 24, ... (exit at 18 + 27 x 6 =
  // 180); sync resumes at 186; br $lr: 192 = 72 + 24n.
  auto setup = [](uint32_t bAddr) {
    return [bAddr](sim::Tile &t) {
      putWords(t, kState, {kIn0, bAddr, kOut, 5, bits(1.5f)});
      for (uint32_t i = 0; i < 10; ++i) {
        t.memory().write<float>(kIn0 + 4 * i, float(i));
        t.memory().write<float>(bAddr + 4 * i, 100.0f + float(i));
      }
    };
  };
  auto r = runTile(assembleFile(vertex("scaled_add.S")), "ScaledAdd", Mode::Worker, kState, setup(kIn1));
  for (uint32_t i = 0; i < 10; ++i) EXPECT_EQ(r.f32(kOut + 4 * i), float(i) + 1.5f * (100.0f + float(i))) << i;
  EXPECT_EQ(r.stats.cycles, 192u);
  // With b in the same 16 KiB element as a, each ld2x64pace waits one more turn: 192 + 5 x 6.
  auto slow = runTile(assembleFile(vertex("scaled_add.S")), "ScaledAdd", Mode::Worker, kState, setup(kIn0 + 0x100));
  EXPECT_EQ(slow.f32(kOut), 0.0f + 1.5f * 100.0f);
  EXPECT_EQ(slow.stats.cycles, 222u);
}

TEST(Vertices, Reduction) {
  // n = 8 pairs: 3 + 1 (nop) + 1 (rpt) + 2n + 3 = 24 bundles: exit at 18 + 23 x 6 = 156;
  // sync resumes at 162; br $lr: 168 = 72 + 12n.
  float in[16];
  for (int i = 0; i < 16; ++i) in[i] = 1.0f / float(i + 3);
  auto r = runTile(assembleFile(vertex("reduce.S")), "ReduceAdd", Mode::Worker, kState, [&](sim::Tile &t) {
    putWords(t, kState, {kIn0, 8});
    for (int i = 0; i < 16; ++i) t.memory().write<float>(kIn0 + 4 * i, in[i]);
  });
  float even = 0, odd = 0; // the same order of additions as the vertex
  for (int i = 0; i < 16; i += 2) {
    even += in[i];
    odd += in[i + 1];
  }
  EXPECT_EQ(r.f32(kState + 8), even + odd);
  EXPECT_EQ(r.stats.cycles, 168u);
}

} // namespace

namespace {

TEST(Vertices, AmpConvolution1x1Partial) {
  // tests/sim/vertices/conv1x1.S, N = 3 positions, 16 input and 8 output channels.
  // Supervisor: c0 ld32 $m1; c6 put $CCCSLOAD (needs $m1), next issue 6 later: c12..c27 the 16
  // ld128putcs; c28 setzi $m2; c29 add $m3; c30 setzi $m4; c36 sub $m3 (needs $m4: 30+6);
  // c42 run (needs $m3: 36+6); the worker (context 1, slot 0) may start at 48.
  // Worker: 6 + 8 (warm-up set) + 12 (set 1) + 1 (add) + (N-2) x (16 + 1 brnzdec) + 12 + 8 (the
  // last two sets) + 1 (exitz) = 65 bundles at 48, 54, ... exit at 48 + 64 x 6 = 432. The
  // supervisor issues sync at 49 (slot 1), resumes at max(49, 432) + 6 = 438, returns at 444.
  // Small integers keep every sum exact in binary16, so the expected outputs are exact.
  auto w = [](int k, int i) { return ((k * 3 + i * 5) % 5) - 2; };
  auto x = [](int n, int i) { return (n + i) % 8; };
  auto partial = [](int n, int k) { return k - n; };
  const int N = 3;
  auto r = runTile(assembleFile(vertex("conv1x1.S")), "conv1x1", Mode::Supervisor, kState, [&](sim::Tile &t) {
    putWords(t, kState, {0x90000, kIn0, kIn1, kOut, N});
    for (int k = 0; k < 8; ++k)
      for (int p = 0; p < 4; ++p)
        for (int i = 0; i < 4; ++i) // entry 4k+p, half i: output k, input channel 4p+i
          t.memory().write<uint16_t>(0x90000 + 8 * (4 * k + p) + 2 * i, arch::doubleToHalf(w(k, 4 * p + i)));
    for (int n = 0; n < N; ++n) {
      for (int i = 0; i < 16; ++i) t.memory().write<uint16_t>(kIn0 + 2 * (16 * n + i), arch::doubleToHalf(x(n, i)));
      for (int k = 0; k < 8; ++k) t.memory().write<uint16_t>(kIn1 + 2 * (8 * n + k), arch::doubleToHalf(partial(n, k)));
    }
  });
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < 8; ++k) {
      int expect = partial(n, k);
      for (int i = 0; i < 16; ++i) expect += w(k, i) * x(n, i);
      EXPECT_EQ(arch::halfToFloat(r.tile->memory().read<uint16_t>(kOut + 2 * (8 * n + k))), float(expect))
          << "position " << n << " channel " << k;
    }
  EXPECT_EQ(r.word(kOut + 2 * 8 * N), 0u); // nothing stored past the last position
  EXPECT_EQ(r.stats.cycles, 444u);
  EXPECT_EQ(r.stats.bundles[1], 65u);
}

} // namespace
