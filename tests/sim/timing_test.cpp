// Barrel timing of one tile, with every cycle count derived by hand in the comment above it from
// the rules of docs/tile-timing.md (ipu-facts §2.1, asm-dialect §3.4; parameters from mk2.toml:
// supervisor result latency 6, taken branch 6, runall 6, sync LOCAL 6, worker start 6).
#include "SimUtil.h"

#include "ipusim/arch/Half.h"
#include "ipusim/arch/PackedAddresses.h"

#include <gtest/gtest.h>

using namespace ipusim;
using namespace ipusim::test;

namespace {

TEST(TileTiming, SupervisorWaitsForItsProducers) {
  // c0 setzi $m1; c6 add (needs $m1: 0+6); c7 add (needs $m0, ready from the start);
  // c12 st32 (needs $m2: 6+6); c13 br $lr taken: the halt address is reached at 13+6 = 19.
  auto r = runAsm(R"(
  .supervisor
f:
  setzi $m1, 5
  add $m2, $m1, 1
  add $m3, $m0, 2
  st32 $m2, $m0, 0
  br $lr
)",
                  "f", Mode::Supervisor);
  EXPECT_EQ(r.stats.cycles, 19u);
  EXPECT_EQ(r.word(0x70000), 6u);
  EXPECT_EQ(r.stats.bundles[0], 5u);
  EXPECT_EQ(r.stats.stallCycles[0], 5u + 4u + 5u); // cycles 1-5, 8-11, 14-18
}

/// Runs `entry` (the supervisor with $m0 = 0x70000, or a worker through the launcher, its vertex
/// base 0x70000) on both paths, expecting each to raise `reason`; checks that the two paths' stats
/// are the same and returns them.
sim::TileStats raisingStats(const std::string &source, const std::string &entry, Mode mode, const std::string &reason,
                            uint64_t maxCycles = 1ull << 34, const std::function<void(sim::Tile &)> &setup = {}) {
  const cc::ObjectFile image = cc::link({{"t.o", assemble(source)}}, mk2Config().tile);
  const uint32_t pc = image.symbols[size_t(image.findSymbol(entry))].value;
  sim::TileStats stats[2];
  for (const bool fast : {true, false}) {
    sim::Tile tile(mk2Config().tile);
    tile.setFastPaths(fast);
    sim::loadImage(tile, image, "t.elf");
    if (setup) setup(tile);
    try {
      if (mode == Mode::Supervisor) tile.runSupervisor(pc, 0x70000, maxCycles);
      else tile.runSupervisor(tile.installWorkerLauncher(pc, 0x70000, mode == Mode::Multi), 0, maxCycles);
      ADD_FAILURE() << "no exception";
    } catch (const sim::SimException &e) {
      EXPECT_EQ(e.reason, reason) << (fast ? "fast" : "stepped");
    }
    stats[fast] = tile.stats();
  }
  EXPECT_EQ(stats[1].cycles, stats[0].cycles);
  for (unsigned c = 0; c < 7; ++c) {
    EXPECT_EQ(stats[1].bundles[c], stats[0].bundles[c]) << "context " << c;
    EXPECT_EQ(stats[1].stallCycles[c], stats[0].stallCycles[c]) << "context " << c;
  }
  return stats[1];
}

TEST(TileTiming, ASupervisorFaultCountsTheCyclesItsInstructionWaited) {
  // c0 setzi $m1; c6 add (waits for $m1: stalls 1-5); c12 ld32 from address 6 (waits for $m2:
  // stalls 7-11), which faults: the tile stops at cycle 12 with 2 supervisor issues and 10 stall
  // cycles, on the fast path (which runs the supervisor ahead and counts its stalls when it
  // stops) as cycle by cycle.
  const sim::TileStats s = raisingStats(R"(
  .supervisor
f:
  setzi $m1, 5
  add $m2, $m1, 1
  ld32 $m3, $m2, 0
  br $lr
)",
                                        "f", Mode::Supervisor, "4-byte access at 0x6 is outside tile memory 0x4c000..0xe8000");
  EXPECT_EQ(s.cycles, 12u);
  EXPECT_EQ(s.bundles[0], 2u);
  EXPECT_EQ(s.stallCycles[0], 10u);
}

TEST(TileTiming, SupervisorTakenBranchesRefillThePipeline) {
  // c0 brz taken -> c6 brnz not taken -> c7 br $lr taken -> 13.
  auto r = runAsm(R"(
  .supervisor
f:
  brz $mzero, 1f
  setzi $m2, 7
1:
  brnz $mzero, 2f
  br $lr
2:
  trap 1
)",
                  "f", Mode::Supervisor);
  EXPECT_EQ(r.stats.cycles, 13u);
  EXPECT_EQ(r.stats.bundles[0], 3u);
}

TEST(TileTiming, OneWorkerIssuesOnceEverySixCycles) {
  // Launcher (supervisor): c0 setzi $m1, c1 setzi $m2, c7 run (needs $m2: 1+6); the worker may
  // start at 7+6 = 13 and owns slot 0, so it issues at 18, 24, 30 and exits at 36. The supervisor
  // issues sync at 13 (slot 1 is free), resumes at max(13, 36)+6 = 42 and returns: 42+6 = 48.
  auto r = runAsm(R"(
w:
  setzi $m0, 1
  add $m0, $m0, 1
  st32 $m0, $mvertex_base, 0
  exitz $mzero
)",
                  "w", Mode::Worker);
  EXPECT_EQ(r.stats.cycles, 48u);
  EXPECT_EQ(r.word(0x70000), 2u);
  EXPECT_EQ(r.stats.bundles[1], 4u);
  EXPECT_EQ(r.tile->context(1).exitStatus, 1);
  EXPECT_EQ(r.tile->context(1).exitCycle, 36u);
}

TEST(TileTiming, SixWorkersShareTheBarrel) {
  // runall at c7; worker k (context k, slot k-1) may start at 13: contexts 2..6 issue first at
  // 13..17 and context 1 at 18; four bundles each, six cycles apart: context 2 exits at 31 and
  // context 1, the last, at 36. All slots are the workers' from c8; the first free supervisor
  // slot is 37 (context 2's): sync issues there, resumes at max(37, 36)+6 = 43: br $lr -> 49.
  auto r = runAsm(R"(
w:
  get $m0, $WSR
  and $m0, $m0, 7
  st32 $m0, $mvertex_base, $mzero, $m0
  exitz $mzero
)",
                  "w", Mode::Multi);
  EXPECT_EQ(r.stats.cycles, 49u);
  for (uint32_t k = 0; k < 6; ++k) EXPECT_EQ(r.word(0x70000 + 4 * k), k);
  for (unsigned c = 1; c <= 6; ++c) EXPECT_EQ(r.stats.bundles[c], 4u);
  EXPECT_EQ(r.tile->context(2).exitCycle, 31u);
  EXPECT_EQ(r.tile->context(1).exitCycle, 36u);
}

TEST(TileTiming, RptLoopsHaveNoOverhead) {
  // The worker issues setzi, nop, the rpt bundle, 3 x 2 body bundles, st32 and exitz: 11 issues
  // at 18, 24, ... 78 (exit). sync resumes at 78+6 = 84; br $lr -> 90.
  auto r = runAsm(R"(
  .align 8
w:
  setzi $m1, 3
  nop
  { rpt $m1, 1 ; fnop }
  { add $m2, $m2, 1 ; fnop }
  { nop ; fnop }
  st32 $m2, $mvertex_base, 0
  exitz $mzero
)",
                  "w", Mode::Worker);
  EXPECT_EQ(r.word(0x70000), 3u);
  EXPECT_EQ(r.stats.bundles[1], 11u);
  EXPECT_EQ(r.stats.cycles, 90u);
}

TEST(TileTiming, DataDependentFpInstructionsOccupyTheWorker) {
  // f32div occupies 5 worker turns ([tile.fp_worker_cycles] f32div = 5, from S5's 10 cycles per
  // 2 floats): issues at 18, 24, 30 (div), 60, 66 (exit); sync -> 72; br $lr -> 78.
  auto r = runAsm(R"(
w:
  ld32 $a0, $mvertex_base, 0
  ld32 $a1, $mvertex_base, 1
  f32div $a2, $a0, $a1
  st32 $a2, $mvertex_base, 2
  exitz $mzero
)",
                  "w", Mode::Worker, 0x70000, [](sim::Tile &t) { putWords(t, 0x70000, {bits(1.0f), bits(3.0f)}); });
  EXPECT_EQ(r.f32(0x70008), 1.0f / 3.0f);
  EXPECT_EQ(r.stats.cycles, 78u);
  EXPECT_EQ(r.stats.stallCycles[1], 5u); // its slot at 12 (before its start at 13), then 36, 42, 48, 54
}

TEST(TileTiming, TwoAccessesToOneMemoryElementStall) {
  // ld2x64pace reads two addresses. In different 16 KiB elements it takes one turn; in the same
  // element the second access waits (memory_conflict_stall = 6 cycles = one more turn).
  auto program = R"(
w:
  ld32 $m0, $mvertex_base, 0
  ld32 $m1, $mvertex_base, 1
  tapack $m2:3, $m0, $m1, $mzero
  ld2x64pace $a0:1, $a2:3, $m2:3+=, $mzero, 0
  exitz $mzero
)";
  auto apart = runAsm(program, "w", Mode::Worker, 0x70000, [](sim::Tile &t) { putWords(t, 0x70000, {0x60000, 0x64000}); });
  auto together = runAsm(program, "w", Mode::Worker, 0x70000, [](sim::Tile &t) { putWords(t, 0x70000, {0x60000, 0x60008}); });
  EXPECT_EQ(together.stats.cycles, apart.stats.cycles + 6);
  // In the interleaved region, even and odd 64-bit words are in different elements.
  auto interleaved = runAsm(program, "w", Mode::Worker, 0x70000, [](sim::Tile &t) { putWords(t, 0x70000, {0x90000, 0x90008}); });
  EXPECT_EQ(interleaved.stats.cycles, apart.stats.cycles);
}

TEST(TileTiming, BatchedRptLoopsAndSkippedCyclesMatchTheCycleByCycleModel) {
  // With the fast paths off the tile steps every cycle and issues every bundle one at a time; on,
  // rpt loops run batched and idle cycles are skipped. Cycles, bundles, stalls and memory must
  // agree exactly: here with memory conflicts (b in a's element), six workers in a rpt loop, and
  // the supervisor waiting in sync.
  auto run = [](bool slow, uint32_t bAddr) {
    cc::ObjectFile obj = cc::assembleFile(std::string(IPUSIM_TEST_DIR) + "/sim/vertices/scaled_add.S", {});
    TileRun r;
    r.image = cc::link({{"t.o", obj}}, mk2Config().tile);
    r.tile = std::make_unique<sim::Tile>(mk2Config().tile);
    sim::loadImage(*r.tile, r.image, "t.elf");
    putWords(*r.tile, 0x70000, {0x60000, bAddr, 0x68000, 7, bits(0.5f)});
    for (uint32_t i = 0; i < 14; ++i) r.tile->memory().write<float>(0x60000 + 4 * i, float(i));
    r.tile->setFastPaths(!slow);
    uint32_t entry = r.image.symbols[size_t(r.image.findSymbol("ScaledAdd"))].value;
    r.stats = r.tile->runSupervisor(r.tile->installWorkerLauncher(entry, 0x70000, true), 0);
    return r;
  };
  for (uint32_t b : {0x64000u, 0x60100u}) {
    TileRun slow = run(true, b), fast = run(false, b);
    EXPECT_EQ(fast.stats.cycles, slow.stats.cycles);
    for (unsigned c = 0; c < 7; ++c) {
      EXPECT_EQ(fast.stats.bundles[c], slow.stats.bundles[c]) << c;
      EXPECT_EQ(fast.stats.stallCycles[c], slow.stats.stallCycles[c]) << c;
    }
    for (uint32_t i = 0; i < 14; ++i) EXPECT_EQ(fast.word(0x68000 + 4 * i), slow.word(0x68000 + 4 * i));
  }
}

/// A worker running poplin's AMP loop shape (graph_compiler/poplin/Amp.cpp): an rpt body of S
/// bundles `{ ld2xst64pace ; AMP form }` (S = the form's phases), which the fast path runs in one
/// executor (Tile::runPaceLoop, and vectorPaceAmpLoop where the host has AVX2 and F16C) with each
/// address's path checked before the loop. runAsm compares it with the stepped path: cycles,
/// bundles, stalls, memory (the registers are stored after the loop) and exceptions. Strides:
/// field 0 +3 atoms, field 1 -5, field 2 +2; the selects (input, partials, store) of bundle b are
/// pattern b % 4 of (0,0,0), (0,1,0), (0,2,3), (1,0,0), so every four bundles the input moves 6
/// atoms, the partials come back to where they started (P, P+1, P+4, P-1 atoms) and the store
/// moves 5. `p0` is the body's first phase; with `prelude` the phases before it are issued before
/// the loop (as poplin's kernel does), so that the pair the AMP moves matches the phase.
struct PaceAmpLoop {
  std::string form;
  unsigned phases;
  bool f32In;
  unsigned p0 = 0;
  bool prelude = false;
  unsigned lastFlags = 0; ///< the last bundle's flags if not 0
  bool nan = true;        ///< a NaN input in iteration 8; else none, and a set's issues after the loop
  bool onePair = false;   ///< every AMP's results in $a4:5, stored a bundle later: not poplin's
                          ///< registers, so the vector executor leaves the loop to the general one
  bool zeroPartials = false; ///< the AMPs' partials $azeros (a column chunk's first pass in poplin)
  uint32_t in = 0x60000, partials = 0x64100; ///< the input's and the partials' first addresses
  int32_t storeStride = 2;                      ///< the strides' field 2 (the store's step in bundle 4m + 2), in atoms

  std::string program() const {
    std::string body = "w:\n  ld32 $m0, $mvertex_base, 0\n  ld32 $m1, $mvertex_base, 1\n  ld32 $m3, $mvertex_base, 2\n"
                       "  tapack $m4:5, $m0, $m1, $m3\n  ld32 $m2, $mvertex_base, 3\n  ld32 $m6, $mvertex_base, 4\n";
    if (prelude)
      for (unsigned p = 0; p < p0; ++p) body += "  " + form + " $a4:5, " + input(p) + ", $azeros, " + std::to_string(16 + p) + "\n";
    body += "  .align 8\n  { rpt $m6, " + std::to_string(phases - 1) + " ; fnop }\n";
    const char *selects[] = {"0b000000", "0b000100", "0b111000", "0b000001"};
    for (unsigned b = 0; b < phases; ++b) {
      const std::string result = b % 2 && !onePair ? "$a6:7" : "$a4:5";
      const unsigned flags = b == phases - 1 && lastFlags ? lastFlags : 16 + (p0 + b) % phases;
      body += "  { ld2xst64pace $a0:3, " + result + ", $m4:5+=, $m2, " + selects[b % 4] + " ; " + form + " " + result + ", " +
              input((p0 + b) % phases) + (zeroPartials ? ", $azeros, " : ", $a2:3, ") + std::to_string(flags) + " }\n";
    }
    // After a loop without NaNs, the next set's issues read what the executor left (its sums,
    // pending partials, results and pair): their results are stored at 0x70080.
    if (!nan)
      for (unsigned k = 0; k < phases; ++k)
        body += "  " + form + " $a4:5, " + input((p0 + k) % phases) + ", $azeros, " + std::to_string(16 + (p0 + k) % phases) +
                "\n  st64 $a4:5, $mvertex_base, " + std::to_string(16 + k) + "\n";
    for (unsigned r = 0; r < 4; ++r)
      body += "  st64 $a" + std::to_string(2 * r) + ":" + std::to_string(2 * r + 1) + ", $mvertex_base, " + std::to_string(4 + r) + "\n";
    return body + "  st32 $m4, $mvertex_base, 16\n  st32 $m5, $mvertex_base, 17\n  exitz $mzero\n";
  }
  /// The input operand of a phase: four halves, or one float of the loaded pair (poplin's order).
  std::string input(unsigned phase) const { return f32In ? (phase % 2 ? "$a1" : "$a0") : "$a0:1"; }
  /// The input address of iteration 8's first bundle (the iteration moves 6 atoms a 4 bundles).
  uint32_t nanInput() const { return in + 8 * 8 * 6 * (phases / 4); }

  TileRun run(uint32_t out, uint32_t iterations) const {
    return runAsm(program(), "w", Mode::Worker, 0x70000, [&](sim::Tile &t) {
      putWords(t, 0x70000, {in, partials, out, 3u | 0x3FBu << 10 | (uint32_t(storeStride) & 0x3FFu) << 20, iterations});
      for (uint32_t i = 0; i < 1024; ++i) { // inputs and partials of varied size (the products round)
        const float x = float(int(i * 37 % 201) - 100) / 48.0f, partial = float(int(i * 53 % 157) - 78) / 40.0f;
        if (f32In) {
          t.memory().write<float>(in + 4 * i, x);
          t.memory().write<float>(partials - 64 + 4 * i, partial);
        } else {
          t.memory().write<uint16_t>(in + 2 * i, arch::floatToHalf(x));
          t.memory().write<uint16_t>(partials - 64 + 2 * i, arch::floatToHalf(partial));
        }
      }
      // A NaN input, loaded by iteration 8's first bundle: the issues that meet it take the
      // portable handler (and the executor hands the rest of the loop to the general one).
      if (!nan) return;
      if (f32In) t.memory().write<uint64_t>(nanInput(), 0x7FC000007FC00000ull); // whichever the issue takes
      else t.memory().write<uint16_t>(nanInput() + 2, 0x7E00);
      for (unsigned e = 0; e < 64; ++e) // halves about 0.5, 0.6, -1 and 1; as floats about 0.6 and 1.3
        t.setCommonWeight(e, 0x3C00BC0039003800ull + 0x0001000100010001ull * e);
    });
  }
};

TEST(TileTiming, PaceAmpLoopsMatchTheCycleByCycleModel) {
  for (const PaceAmpLoop &loop : {PaceAmpLoop{"f16v4hihov4amp", 4, false}, PaceAmpLoop{"f16v4sisoamp", 4, false},
                                  PaceAmpLoop{"f32sisov2amp", 8, true}, PaceAmpLoop{"f16v4hihov4amp", 4, false, 2, true},
                                  PaceAmpLoop{"f32sisov2amp", 8, true, 6, true}, PaceAmpLoop{"f16v4sisoamp", 4, false, 2, false},
                                  PaceAmpLoop{"f16v4hihov4amp", 4, false, 0, false, 0, true, true},
                                  PaceAmpLoop{"f16v4hihov4amp", 4, false, 2, true, 0, true, false, true},
                                  PaceAmpLoop{"f32sisov2amp", 8, true, 0, false, 0, true, false, true}}) {
    SCOPED_TRACE(loop.form + " from phase " + std::to_string(loop.p0));
    // Inputs (element 5), partials (element 6) and results (element 7) apart: no conflicts. With
    // the results in the partials' element (0x64400) every bundle's store meets its partial load:
    // one more turn a bundle (tile.timing.memory_conflict_stall = 6): 12 iterations x S turns.
    TileRun apart = loop.run(0x68000, 12), together = loop.run(0x64400, 12);
    EXPECT_EQ(together.stats.cycles, apart.stats.cycles + 12 * loop.phases * 6);
    EXPECT_EQ(together.stats.stallCycles[1], apart.stats.stallCycles[1] + 12 * loop.phases);
    EXPECT_EQ(apart.stats.bundles[1], together.stats.bundles[1]);
    // The addresses after the loop: the input 6 atoms and the store 5 atoms on for every four
    // bundles, the partials back at 0x64100; packed as tapack does.
    const uint32_t quarters = 12 * loop.phases / 4;
    const arch::PackedAddresses after = arch::PackedAddresses::pack(0x60000 + quarters * 48, 0x64100, 0x68000 + quarters * 40);
    EXPECT_EQ(apart.word(0x70040), after.lo);
    EXPECT_EQ(apart.word(0x70044), after.hi);
    // The NaN reached the results: some stored result is a NaN.
    bool nan = false;
    for (uint32_t i = 0; i < quarters * 8; ++i) {
      const uint32_t w = apart.word(0x68000 + 4 * i);
      nan |= loop.form == "f16v4hihov4amp" ? ((w & 0x7FFF) > 0x7C00 || (w >> 16 & 0x7FFF) > 0x7C00) : (w & 0x7FFFFFFF) > 0x7F800000;
    }
    EXPECT_TRUE(nan);
    // The executor ran every bundle (12 iterations of S); its vector form ran them up to the
    // issue that reads the NaN (iteration 8's second bundle: 8 S + 1), and none where the pair
    // does not match the first phase (f16v4sisoamp from phase 2 with no issues before the loop)
    // or the registers are not poplin's.
    const bool vector = !(loop.p0 && !loop.prelude) && !loop.onePair;
    EXPECT_EQ(apart.tile->paceLoopBundles(), 12u * loop.phases);
    if (apart.tile->vectorLoopBundles() || sim::hostVectorUnits())
      EXPECT_EQ(apart.tile->vectorLoopBundles(), vector ? 8u * loop.phases + 1 : 0u);
    // Without the NaN the vector form runs the whole loop, and the issues after it continue.
    PaceAmpLoop clean = loop;
    clean.nan = false;
    TileRun whole = clean.run(0x68000, 12);
    EXPECT_EQ(whole.tile->paceLoopBundles(), 12u * loop.phases);
    if (sim::hostVectorUnits()) EXPECT_EQ(whole.tile->vectorLoopBundles(), vector ? 12u * loop.phases : 0u);
  }
  // Both paths raise the same exception (runAsm compares them); `what` is part of its message.
  auto raises = [](const PaceAmpLoop &loop, uint32_t out, const std::string &what) {
    try {
      loop.run(out, 12);
      ADD_FAILURE() << "no exception: " << what;
    } catch (const sim::SimException &e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  // A store that leaves tile memory in iteration 2 (its last bundle: 0xE7F90 + 2 x 40 + 32 =
  // 0xE8000): the loop runs on the general path, which raises at that bundle.
  PaceAmpLoop half{"f16v4hihov4amp", 4, false};
  raises(half, 0xE7F90, "8-byte access at 0xe8000 is outside tile memory");
  // An AMP issue that raises inside the loop (flags 20: phase 4 of four engines' four).
  half.lastFlags = 20;
  raises(half, 0x68000, "AMP phase 4 does not exist with 4 engine(s)");
}

} // namespace

namespace {

TEST(TileTiming, PaceAmpLoopsCountConflictsAsTheirAddressesMove) {
  // The vector executor counts a run of iterations' memory-element conflicts from its first two
  // (AmpForms.inc, forwardedLoop); these loops' conflicts change within the loop. f16v4hihov4amp,
  // 12 iterations of 4 bundles; the store moves 1, 1, 2, 1 atoms in an iteration's bundles, so
  // bundle 4m + r stores at out + 8 (5m + (0, 1, 2, 4)[r]); the partials are read at P, P + 1,
  // P + 4, P - 1 atoms (P = the partials' address), the input moves 1, 1, 1, 3 atoms. Each case
  // with the NaN of iteration 8 (the vector form stops there, Tile::runPaceLoop runs the rest)
  // and without, and with one result pair (Tile::runPaceLoop runs it all); runAsm compares each
  // with the cycle-by-cycle model.
  for (const auto &[nan, onePair] : {std::pair{true, false}, std::pair{false, false}, std::pair{true, true}}) {
    PaceAmpLoop loop{"f16v4hihov4amp", 4, false};
    loop.nan = nan;
    loop.onePair = onePair;
    SCOPED_TRACE(std::string(nan ? "with the NaN" : "without") + (onePair ? ", one result pair" : ""));
    const TileRun apart = loop.run(0x68000, 12);
    // Plain memory, the store from 0x67F00 into the next element at 0x68000: bundles 0-25 store
    // below it (5m + 4 < 32 up to m = 5, then 30 and 31), in the partials' element (0x64000-
    // 0x68000): 26 conflicts, one turn each.
    const TileRun crossing = loop.run(0x67F00, 12);
    EXPECT_EQ(crossing.stats.cycles, apart.stats.cycles + 26 * 6);
    EXPECT_EQ(crossing.stats.stallCycles[1], apart.stats.stallCycles[1] + 26);
    // Interleaved memory (from 0x80000; pairs of 16 KB elements, a word's element its pair and
    // bit 3): the input in pair 1 (0x88000), the partials and the store in pair 2 (0x94100,
    // 0x94400; both bit 3 clear). The partials' word parities are 0, 1, 0, 1 every iteration; the
    // store's 0, 1, 0, 0 in even iterations and 1, 0, 1, 1 in odd ones: 3 and 1 conflicts, 6 x 3 +
    // 6 x 1 = 24. In pair 3 (0x98000) none.
    loop.in = 0x88000;
    loop.partials = 0x94100;
    const TileRun far = loop.run(0x98000, 12), near = loop.run(0x94400, 12);
    EXPECT_EQ(near.stats.cycles, far.stats.cycles + 24 * 6);
    EXPECT_EQ(near.stats.stallCycles[1], far.stats.stallCycles[1] + 24);
    if (sim::hostVectorUnits()) EXPECT_EQ(near.tile->vectorLoopBundles(), onePair ? 0u : nan ? 33u : 48u);
    // A store that moves down (field 2 -7 atoms: 1, 1, -7, 1, so bundle 4m + r stores at out + 8
    // (-4m + (0, 1, 2, -5)[r])) across the partials' element's top edge: from 0x68008, iteration
    // 0 stores once below 0x68000 (0x67FE0), every later iteration four times: 1 + 11 x 4 = 45
    // conflicts with the partials (0x64100). From 0x6C008, none.
    loop.in = 0x60000;
    loop.partials = 0x64100;
    loop.storeStride = -7;
    const TileRun above = loop.run(0x6C008, 12), down = loop.run(0x68008, 12);
    EXPECT_EQ(down.stats.cycles, above.stats.cycles + 45 * 6);
    EXPECT_EQ(down.stats.stallCycles[1], above.stats.stallCycles[1] + 45);
  }
}

TEST(TileTiming, PaceLoopsTakeAnyAuxPipeInstruction) {
  // The two-stream element-wise loop's shape (graph_compiler/sdk/Asm.hpp): bundle k loads vector
  // k of a and b, adds vector k-1 (loaded by the bundle before: its loads wait for the add's
  // reads) into $a4:5 and stores that pair as it was, vector k-2's sum. Tile::runPaceLoop runs it
  // as it runs the AMP loop; runAsm compares it with the stepped path. One worker issues every
  // sixth cycle from 18: seven set-up instructions, the first two loads, rpt at 72, the body's N
  // bundles from 78, two stores and exitz at 78 + 6N + 12, its sync and the supervisor's br:
  // 102 + 6N cycles.
  const std::string program = R"(w:
  ld32 $m0, $mvertex_base, 0
  ld32 $m1, $mvertex_base, 1
  ld32 $m3, $mvertex_base, 2
  tapack $m4:5, $m0, $m1, $m3
  ld32 $m6, $mvertex_base, 3
  ld32 $a6, $mvertex_base, 4
  uput $FP_CTL, $a6
  ld2x64pace $a0:1, $a2:3, $m4:5+=, $mzero, 0b0000
  { ld2x64pace $a0:1, $a2:3, $m4:5+=, $mzero, 0b0000 ; f32v2add $a4:5, $a0:1, $a2:3 }
  .align 8
  { rpt $m6, 0 ; fnop }
  { ld2xst64pace $a0:3, $a4:5, $m4:5+=, $mzero, 0b000000 ; f32v2add $a4:5, $a0:1, $a2:3 }
  st32 $m4, $mvertex_base, 5
  st32 $m5, $mvertex_base, 6
  exitz $mzero
)";
  const uint32_t n = 20;
  auto run = [&](uint32_t out, uint32_t fpCtl, float big) {
    return runAsm(program, "w", Mode::Worker, 0x70000, [&](sim::Tile &t) {
      putWords(t, 0x70000, {0x60000, 0x64000, out, n, fpCtl});
      for (uint32_t i = 0; i < 2 * (n + 2); ++i) {
        t.memory().write<float>(0x60000 + 4 * i, i == 14 ? big : float(i) + 0.25f);
        t.memory().write<float>(0x64000 + 4 * i, i == 14 ? big : float(2 * i));
      }
    });
  };
  // The output apart from both inputs, and in a's memory element, where every body bundle's store
  // meets its load of a (one more turn each: memory_conflict_stall = 6).
  TileRun apart = run(0x68000, 0, 1.0f), together = run(0x60800, 0, 1.0f);
  EXPECT_EQ(apart.stats.cycles, 102u + 6 * n);
  EXPECT_EQ(together.stats.cycles, 102u + 6 * n + 6 * n);
  EXPECT_EQ(together.stats.stallCycles[1], apart.stats.stallCycles[1] + n);
  EXPECT_EQ(apart.tile->paceLoopBundles(), n);
  EXPECT_EQ(apart.tile->vectorLoopBundles(), 0u); // the vector executor is the AMP's alone
  for (uint32_t i = 0; i < 2 * n; ++i)
    EXPECT_EQ(apart.f32(0x68000 + 4 * i), i == 14 ? 2.0f : float(i) + 0.25f + float(2 * i)) << i;
  // The addresses after the loop: a and b N + 2 vectors on, the output N.
  const arch::PackedAddresses after = arch::PackedAddresses::pack(0x60000 + 8 * (n + 2), 0x64000 + 8 * (n + 2), 0x68000 + 8 * n);
  EXPECT_EQ(apart.word(0x70014), after.lo);
  EXPECT_EQ(apart.word(0x70018), after.hi);
  // With overflow trapping ($FP_CTL bit 2), vector 7's add (body bundle 8) raises on both paths
  // with the same message (runAsm compares them).
  try {
    run(0x68000, 4, 3e38f);
    ADD_FAILURE() << "no trap";
  } catch (const sim::SimException &e) {
    EXPECT_EQ(e.reason, "floating-point exception: overflow");
    EXPECT_EQ(e.instruction, "{ ld2xst64pace $a0:3, $a4:5, $m4:5+=, $mzero, 0 ; f32v2add $a4:5, $a0:1, $a2:3 }");
  }
  // And at that bundle's issue (bundle 8 above, the body's seventh), with the bundles before it
  // and their turns counted: at 78 + 6 x 6 = 114 with the output apart (issues 7 + 2 + 1 + 6 =
  // 16; one stall, the slot at 12), at 78 + 12 x 6 = 150 with every bundle's conflict (7 stalls:
  // the faulting bundle's conflict does not count). The executor (Tile::runPaceLoop) had raised
  // at the rpt's issue, 72.
  for (const auto &[out, cycles, stalls] : {std::tuple{0x68000u, 114u, 1u}, std::tuple{0x60800u, 150u, 7u}}) {
    const sim::TileStats s = raisingStats(program, "w", Mode::Worker, "floating-point exception: overflow", 1ull << 34,
                                          [&, out = out](sim::Tile &t) {
                                            putWords(t, 0x70000, {0x60000, 0x64000, out, n, 4});
                                            for (uint32_t i = 0; i < 2 * (n + 2); ++i) {
                                              t.memory().write<float>(0x60000 + 4 * i, i == 14 ? 3e38f : float(i));
                                              t.memory().write<float>(0x64000 + 4 * i, i == 14 ? 3e38f : float(i));
                                            }
                                          });
    EXPECT_EQ(s.cycles, cycles) << std::hex << out;
    EXPECT_EQ(s.bundles[1], 16u) << std::hex << out;
    EXPECT_EQ(s.stallCycles[1], stalls) << std::hex << out;
  }
}

TEST(TileTiming, RunningAheadSeesAStoreIntoItsOwnCode) {
  // A worker running ahead (Tile::runAhead) must run the word memory holds when it gets there.
  // This loop's body stores a word from a table over its own `add $m5, $m5, 10` two words on: the
  // same word in passes 1 and 2, then `add $m5, $m5, 100` in pass 3. Cycle by cycle the new word
  // runs at once: 11 + 11 + 101 + 101 = 224. (The loop's body is one of runAhead's blocks, which
  // checks memory's words again after a store into code; run to the block's end, the old word
  // would add 11 in pass 3: 134.) runAsm compares the fast path with the cycle-by-cycle one.
  const uint32_t oldWord = test::words(assemble(" add $m5, $m5, 10\n"))[0];
  const uint32_t newWord = test::words(assemble(" add $m5, $m5, 100\n"))[0];
  // The same loop for a worker (vertex base in $mvertex_base) and the supervisor (in $m0).
  for (const bool supervisor : {false, true}) {
    const std::string base = supervisor ? "$m0" : "$mvertex_base";
    auto r = runAsm(std::string(supervisor ? "  .supervisor\n" : "") + "f:\n  add $m2, " + base + R"(, 0
  setzi $m1, patch
  setzi $m4, 3
  setzi $m5, 0
1:
  add $m5, $m5, 1
  ld32step $m3, $mzero, $m2+=, 1
  st32 $m3, $m1, 0
patch:
  add $m5, $m5, 10
  brnzdec $m4, 1b
  st32 $m5, )" + base + ", 4\n" + (supervisor ? "  br $lr\n" : "  exitz $mzero\n"),
                    "f", supervisor ? Mode::Supervisor : Mode::Worker, 0x70000,
                    [&](sim::Tile &t) { putWords(t, 0x70000, {oldWord, oldWord, newWord, newWord}); });
    EXPECT_EQ(r.word(0x70010), 224u) << (supervisor ? "supervisor" : "worker");
  }
}

TEST(TileTiming, AFaultInARunAheadBlockCountsTheBundlesBeforeIt) {
  // runAhead runs a loop's body as one block from its second arrival there (Tile::aheadBlock):
  // passes 1 and 2 a bundle at a time, pass 3 as the block. The worker issues at 18, 24, 30 (the
  // setzis: OneWorkerIssuesOnceEverySixCycles), then a pass is add 1 turn, f32div 5 (f32div = 5
  // in mk2.toml), tapack 1, ld2x64pace 2 (its two loads share a memory element: a conflict's
  // turn), add, add, brnzdec 1 each: 12 turns, 72 cycles, passes from 36 and 108. Pass 3: add at
  // 180, f32div 186, tapack 216, and ld2x64pace at 222, whose first address is now misaligned
  // (0x60000, 0x60008, 0x6000C): it raises at its issue, 222, its conflict (noted before its
  // loads) and turn not counted. Issues 3 + 7 + 7 + 3 = 20; stalls 15: the worker's slot at
  // cycle 12, before it may start (run at 7 + 6), 4 + 1 a pass, and pass 3's f32div's 4. (A
  // block that counted the faulting bundle's conflict turn would give the fast path 228 and 16.)
  const sim::TileStats s = raisingStats(R"(
w:
  setzi $m1, 0x60000
  setzi $m3, 2
  setzi $m6, 8
1:
  add $m2, $m1, 8
  f32div $a0, $a1, $a1
  tapack $m4:5, $m1, $m2, $m2
  ld2x64pace $a2:3, $a4:5, $m4:5+=, $mzero, 0
  add $m1, $m1, $m6
  add $m6, $m6, -4
  brnzdec $m3, 1b
  exitz $mzero
)",
                                        "w", Mode::Worker, "misaligned 8-byte access at 0x6000c");
  EXPECT_EQ(s.cycles, 222u);
  EXPECT_EQ(s.bundles[1], 20u);
  EXPECT_EQ(s.stallCycles[1], 15u);
}

TEST(TileTiming, AFaultInABatchedRptLoopIsRaisedAtItsBundle) {
  // runRepeatBatch runs the whole loop when the rpt issues; a bundle that raises must still raise
  // at its own issue cycle, with the bundles before it and their turns counted (it had raised at
  // the rpt's). The worker issues at 18, 24, 30, 36 (three setzis and a nop, which puts the rpt
  // bundle at an 8-byte boundary), the rpt at 42, the body from 48. A pass is { add ; f32div } 5
  // turns (f32div = 5 in mk2.toml), tapack 1, ld2x64pace 2 (its two loads share a memory element:
  // a conflict's turn), two adds 1 each: 10 turns, 60 cycles, passes from 48 and 108. Pass 3: the
  // f32div bundle at 168, tapack 198, and ld2x64pace at 204, whose first address is now
  // misaligned (0x6000c): it raises at 204, its conflict (noted before its loads) not counted.
  // Issues 5 + 5 + 5 + 2 = 17; stalls 15: the slot at 12 (before the worker may start, 7 + 6), 4
  // + 1 a pass, and pass 3's f32div's 4.
  const sim::TileStats s = raisingStats(R"(
  .align 8
w:
  setzi $m1, 0x60000
  setzi $m6, 8
  setzi $m3, 5
  nop
  { rpt $m3, 4 ; fnop }
  { add $m2, $m1, 8 ; f32div $a0, $a1, $a1 }
  { tapack $m4:5, $m1, $m2, $m2 ; fnop }
  { ld2x64pace $a2:3, $a4:5, $m4:5+=, $mzero, 0 ; fnop }
  { add $m1, $m1, $m6 ; fnop }
  { add $m6, $m6, -4 ; fnop }
  exitz $mzero
)",
                                        "w", Mode::Worker, "misaligned 8-byte access at 0x6000c");
  EXPECT_EQ(s.cycles, 204u);
  EXPECT_EQ(s.bundles[1], 17u);
  EXPECT_EQ(s.stallCycles[1], 15u);

  // Bodies whose bundles add no turns take the loops without a per-step note: a load that steps
  // past the end of tile memory (0xe8000) raises in pass 5, four passes of 4 bytes from 0xe7ff0.
  // The worker issues at 18, 24, 30, 36 (three setzis and a nop) and the rpt at 42, the body from
  // 48; one stall (the slot at 12). A body of one pair (one bundle a pass): pass 5's load at 48 +
  // 6 x 4 = 72, 5 + 4 issues. Two bundles (two pairs, two single calls, or one of each): pass 5's
  // load at 48 + 12 x 4 = 96, 5 + 8 issues; with the load second, it issues 6 cycles later,
  // after pass 5's first bundle: 102, 5 + 9 issues. (Each of the four forms of loop.)
  const std::string head = R"(
  .align 8
w:
  setzi $m1, 0xe7ff0
  setzi $m3, 9
  setzi $m5, 0
  nop
  { rpt $m3, )";
  const std::string load = "{ ld32step $a0, $mzero, $m1+=, 1 ; f32add $a1, $a1, $a2 }\n";
  const std::string add = "{ add $m5, $m5, 1 ; fnop }\n";
  const std::string loadAlone = "{ ld32step $a0, $mzero, $m1+=, 1 ; fnop }\n";
  const std::string addPair = "{ add $m5, $m5, 1 ; f32add $a3, $a3, $a2 }\n";
  const std::string reason = "4-byte access at 0xe8000 is outside tile memory 0x4c000..0xe8000";
  for (const auto &[body, cycles, bundles] :
       {std::tuple{"0 ; fnop }\n" + load, 72u, 9u}, std::tuple{"1 ; fnop }\n" + load + add, 96u, 13u},
        std::tuple{"1 ; fnop }\n" + add + load, 102u, 14u}, std::tuple{"1 ; fnop }\n" + load + addPair, 96u, 13u},
        std::tuple{"1 ; fnop }\n" + loadAlone + add, 96u, 13u}}) {
    const sim::TileStats r = raisingStats(head + body + "  exitz $mzero\n", "w", Mode::Worker, reason);
    EXPECT_EQ(r.cycles, cycles) << body;
    EXPECT_EQ(r.bundles[1], bundles) << body;
    EXPECT_EQ(r.stallCycles[1], 1u) << body;
  }
}

TEST(TileTiming, ARunAheadBlockStopsAtTheRunsCycleLimit) {
  // A worker's loop of eight adds and a branch, run ahead as one block: with a
  // limit of 200 cycles the run stops at the last issue before it. The worker issues at 18, 24,
  // ... (6 apart): 31 issues, the last at 198; the tile raises at 200. The same with every limit
  // from 190 to 260, whether or not the block's end fits before it.
  const std::string source = R"(
w:
  setzi $m1, 0
1:
  add $m1, $m1, 1
  add $m1, $m1, 1
  add $m1, $m1, 1
  add $m1, $m1, 1
  add $m1, $m1, 1
  add $m1, $m1, 1
  add $m1, $m1, 1
  add $m1, $m1, 1
  bri 1b
)";
  const sim::TileStats s =
      raisingStats(source, "w", Mode::Worker, "still running after 200 cycles (the run's limit): a worker that never exits?", 200);
  EXPECT_EQ(s.bundles[1], 31u);
  for (uint64_t limit = 190; limit <= 260; ++limit)
    raisingStats(source, "w", Mode::Worker,
                 "still running after " + std::to_string(limit) + " cycles (the run's limit): a worker that never exits?", limit);
}

TEST(TileTiming, ARunAheadBranchToAMisalignedAddressRaisesOnBothPaths) {
  // Found by the differential fuzzer (tests/fuzz/fuzz_sim.cpp): a taken branch starts a block,
  // and an odd target matched the empty block slots' mark (1), so the fast path read a block that
  // was not there: an empty one, which ran no bundle and left the pc at 1, again and again. The
  // loop makes a block first (its body's on the second pass, in slot 1: 0x4c00c / 8 % 16), then
  // `br` goes to address 1 (slot 0, empty), whose fetch raises on both paths (runAsm compares).
  try {
    runAsm(R"(
w:
  setzi $m2, 2
  setzi $m4, 0
  setzi $m5, 0
1:
  add $m3, $m3, 1
  brnzdec $m2, 1b
  setzi $m1, 1
  br $m1
)",
           "w", Mode::Worker);
    ADD_FAILURE() << "no exception";
  } catch (const sim::SimException &e) {
    EXPECT_EQ(e.reason, "misaligned instruction fetch");
  }
}

TEST(DecodeCache, PastTheProcessTablesBoundACacheKeepsItsOwnForms) {
  // The process keeps each word's decoded form once, up to 2^21 forms (Tile.cpp, OpTable); past
  // that bound a cache keeps the forms of new words itself (`own`), and a tile's private copy of a
  // shared cache copies them rather than pointing into the other cache. Rounds of new words
  // (setzi's encodings, one after another) through the executable region (53,248 words) fill it.
  sim::Tile filler(mk2Config().tile);
  const uint32_t from = 0x4C000, to = 0x80000; // region 0 (mk2.toml)
  uint32_t word = 0x19000000;
  for (unsigned round = 0; round < (1u << 21) / ((to - from) / 4) + 2; ++round) {
    for (uint32_t a = from; a < to; a += 4) filler.memory().write<uint32_t>(a, word++);
    filler.predecode(from, to);
  }
  const uint32_t last = (to - 4 - from) / 4; // the last word decoded: past the bound
  ASSERT_FALSE(filler.decodeCache()->own.empty());
  sim::Tile b(mk2Config().tile);
  for (uint32_t a = from; a < to; a += 4) b.memory().write<uint32_t>(a, filler.memory().read<uint32_t>(a));
  b.shareDecodeCache(filler.decodeCache());
  b.memory().write<uint32_t>(from, 0x19000000); // a word of b's own: b decodes into a private copy
  b.predecode(from, from + 4);
  ASSERT_NE(b.decodeCache(), filler.decodeCache());
  const sim::Op *mine = b.decodeCache()->find(last), *theirs = filler.decodeCache()->find(last);
  ASSERT_TRUE(mine && theirs);
  EXPECT_NE(mine, theirs);
  EXPECT_EQ(mine->word, theirs->word);
  EXPECT_EQ(mine->word, word - 1);
  bool own = false;
  for (const sim::Op &op : b.decodeCache()->own) own |= &op == mine;
  EXPECT_TRUE(own);
}

TEST(DecodeCache, SharedBetweenTilesAndCopiedOnAStoreIntoCode) {
  // Two tiles with one image share decoded instructions; the first tile rewrites its own
  // `setzi $m0, 1` into `setzi $m0, 2` (the word at `patch`) and gets a private cache, so it
  // runs the new instruction while the second tile still runs the old one.
  cc::ObjectFile img = cc::link({{"t.o", assemble(R"(
  .supervisor
f:
  ld32 $m1, $m0, 0
  setzi $m2, patch
  st32 $m1, $m2, 0
  nop
  nop
  nop
  nop
  nop
patch:
  setzi $m3, 1
  st32 $m3, $m0, 1
  br $lr
)")}},
                                mk2Config().tile);
  uint32_t newWord = test::words(assemble(".supervisor\n setzi $m3, 2\n"))[0];
  sim::Tile a(mk2Config().tile), b(mk2Config().tile);
  sim::loadImage(a, img, "t.elf");
  sim::loadImage(b, img, "t.elf");
  b.shareDecodeCache(a.decodeCache());
  EXPECT_EQ(a.decodeCache(), b.decodeCache());
  uint32_t f = img.symbols[size_t(img.findSymbol("f"))].value;
  uint32_t patch = img.symbols[size_t(img.findSymbol("patch"))].value;
  a.memory().write<uint32_t>(0x70000, newWord);
  auto shared = a.decodeCache();
  b.runSupervisor(patch, 0x70000); // no store into code: decodes into the shared cache
  EXPECT_EQ(b.decodeCache(), shared);
  a.runSupervisor(f, 0x70000); // patches its code: a private copy of the cache
  EXPECT_NE(a.decodeCache(), shared);
  EXPECT_EQ(b.decodeCache(), shared);
  EXPECT_EQ(a.memory().read<uint32_t>(0x70004), 2u);
  EXPECT_EQ(b.memory().read<uint32_t>(0x70004), 1u);
  b.runSupervisor(patch, 0x70000);
  EXPECT_EQ(b.memory().read<uint32_t>(0x70004), 1u);
}

} // namespace
