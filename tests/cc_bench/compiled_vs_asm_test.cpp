// The vertices of bench/cc/vertices.cpp compiled by ipu-cc, beside the hand-written assembly of
// bench/cc/vertices.S: for several sizes, both give the host reference's output byte for byte
// (and leave the bytes after it alone), the assembly takes the cycles derived by hand from
// docs/tile-timing.md, and the compiled elementwise vertices stay within the target of 1.5x the
// assembly's cycles from 100 elements on.
#include "SimUtil.h"
#include "VertexPairs.h"

#include "ipusim/cc/Assembler.h"
#include "ipusim/cc/Compiler.h"

#include <gtest/gtest.h>

using namespace ipusim;
using namespace ipusim::test;
using namespace ipusim::ccbench;

namespace {

const cc::ObjectFile &compiledObject() {
  static const cc::ObjectFile o = cc::compileCodelet(std::string(IPUSIM_SOURCE_DIR) + "/bench/cc/vertices.cpp").object;
  return o;
}
const cc::ObjectFile &asmObject() {
  static const cc::ObjectFile o = cc::assembleFile(std::string(IPUSIM_SOURCE_DIR) + "/bench/cc/vertices.S", {});
  return o;
}

// The target for the elementwise vertices.
constexpr double kTargetRatio = 1.5;

// Sizes: the suggested 8, 100, 1000, plus small and odd ones that exercise every tail stage
// (n % 4 and n % 8 all non-zero somewhere) and the paths without a pipelined part.
const uint32_t kSizes[] = {0, 1, 3, 7, 8, 13, 100, 1000, 1003};

struct Param {
  Pair pair;
  uint32_t n;
};
std::string paramName(const testing::TestParamInfo<Param> &p) {
  return std::string(p.param.pair.name) + "_" + std::to_string(p.param.n);
}
std::vector<Param> allParams() {
  std::vector<Param> v;
  for (const Pair &p : pairs())
    for (uint32_t n : kSizes) v.push_back({p, n});
  return v;
}

class CompiledVsAsm : public testing::TestWithParam<Param> {};

TEST_P(CompiledVsAsm, SameOutputAsmCyclesAndRatio) {
  const Pair &p = GetParam().pair;
  const uint32_t n = GetParam().n;
  auto init = [&](sim::Tile &t) { setup(t, p.kind, n); };
  TileRun compiled = runTile(compiledObject(), p.compiled, Mode::Worker, kState, init);
  TileRun hand = runTile(asmObject(), p.hand, Mode::Worker, kState, init);

  const std::vector<uint8_t> want = reference(p.kind, n);
  EXPECT_EQ(output(*compiled.tile, p.kind, n), want) << "compiled output differs from the host reference";
  EXPECT_EQ(output(*hand.tile, p.kind, n), want) << "assembly output differs from the host reference";

  // The assembly's cycles: asmBundles (VertexPairs.h) counts the bundles bench/cc/vertices.S issues
  // for n, stage by stage. A worker alone issues one bundle every 6 cycles (its barrel slot),
  // loads are usable by the next bundle, rpt bodies repeat without overhead, taken branches cost
  // nothing extra, and a, b, out lie in different memory elements so the pace instructions take
  // one turn: b bundles -> first issue at 18 (launcher: setzi, setzi, run; the worker's first
  // turn 6 later), exit at 18 + 6 (b - 1), the launcher's sync and br $lr 12 more. E.g.
  // VectorAddF32, n = 1000: q = 250, 6 + 3 + 2 + 1 + 498 + 2 + 2 + 1 (exitz) = 515 bundles,
  // 30 + 6 x 514 = 3114 cycles.
  const uint64_t bundles = asmBundles(p.kind, n);
  EXPECT_EQ(hand.stats.bundles[1], bundles);
  EXPECT_EQ(hand.stats.cycles, workerRunCycles(bundles));
  // The compiled worker is timed by the same rules (no stalls: it makes one access per issue).
  EXPECT_EQ(compiled.stats.cycles, workerRunCycles(compiled.stats.bundles[1]));

  const double ratio = double(compiled.stats.cycles) / double(hand.stats.cycles);
  RecordProperty("cycles_compiled", std::to_string(compiled.stats.cycles));
  RecordProperty("cycles_asm", std::to_string(hand.stats.cycles));
  std::printf("%-14s n=%5u  compiled %6llu cycles (%5llu bundles)  asm %6llu cycles (%5llu bundles)  ratio %.2f\n",
              p.name, n, (unsigned long long)compiled.stats.cycles, (unsigned long long)compiled.stats.bundles[1],
              (unsigned long long)hand.stats.cycles, (unsigned long long)hand.stats.bundles[1], ratio);
  // The target holds from 100 elements on (steady state: a 1-bundle-per-atom software-pipelined
  // loop against the assembly's). Below that the compiled code's fixed costs (the vectoriser's
  // trip-count tests, the scalar remainder loop, f16 stores as read-merge-write) dominate; those
  // ratios are printed and reported in docs/performance.md, not asserted.
  if (p.elementwise && n >= 100)
    EXPECT_LE(ratio, kTargetRatio) << "TARGET MISSED: compiled " << p.name << " takes " << ratio
                                   << "x the cycles of the hand-written assembly for n = " << n
                                   << " (target: within 1.5x; see docs/performance.md)";
}

INSTANTIATE_TEST_SUITE_P(Vertices, CompiledVsAsm, testing::ValuesIn(allParams()), paramName);

} // namespace
