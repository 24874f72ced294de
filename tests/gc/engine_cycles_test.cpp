// Cycles of small Poplar programs, derived by hand from the supervisor program the graph compiler
// writes (graph_compiler/core/src/Emit.cpp) and the timing rules of docs/tile-timing.md:
// the supervisor issues one instruction a cycle, an instruction reading an MRF register waits
// until 6 cycles after its producer issued (no forwarding), a taken branch and run/runall cost 6,
// a worker started at cycle c first issues in its own slot at or after c + 6, sync LOCAL waits for
// the last exit and then 6 cycles, sync INTERNAL releases 126 cycles (sync.internal_latency_cycles)
// after the last tile arrives.
#include "TestUtil.h"

#include <cmath>
#include <functional>

#include "ipusim/arch/Config.h"
#include "ipusim/arch/ExchangeLayout.h"

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <popops/ScaledAdd.hpp>
#include <popops/codelets.hpp>

#include <gtest/gtest.h>

using namespace poplar;
using namespace poplar::program;

namespace {

Device oneTile(unsigned tiles = 1) {
  IPUModel m;
  m.tilesPerIPU = tiles;
  return m.createDevice();
}

uint64_t runCycles(Graph &graph, const Program &prog, const Device &device) {
  Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  return engine.getLastRunCycles();
}

// Every program entry begins (cycles from 0):
//   0  setzi $m1, control          6  st32 $m10, $m1, 0 (waits for $m1)   7, 8  put $INCOMING_BASE / $OUTGOING_BASE
//   9  setzi $sp                  10..15  setzi $m2..$m7 (worker stack tops)
//   16..21  put $WORKERn_BASE, $m2..$m7 (the first waits for $m2, set at 10)
// and ends, from cycle E:
//   E  setzi $m1, control   E+6  ld32 $m10 (waits for $m1)   E+12  br $m10 (waits for $m10)
//   and the run ends when the branch's 6 cycles are over: E + 18.
constexpr uint64_t kEntry = 22, kExit = 18;

/// A program that copies four words from tile 0 to tile 1 (ExchangeBetweenTwoTiles derives it):
/// 148 + the exchange's end + the exit.
uint64_t fourWordCopyCycles() {
  const ipusim::arch::SystemConfig config = ipusim::arch::loadNamedConfig("mk2");
  const ipusim::arch::ExchangeLayout layout(config);
  const int64_t mux = layout.muxOffset(0, 1), write = layout.writeOffset(0, 1);
  const uint64_t T = uint64_t(std::max<int64_t>(0, -mux));
  const uint64_t end = std::max<uint64_t>(T + 4, uint64_t(int64_t(T) + write + 4));
  return 148 + end + kExit;
}

} // namespace

TEST(EngineCycles, EmptyProgram) {
  Device d = oneTile();
  Graph g(d.getTarget());
  Tensor t = g.addVariable(INT, {1}, "t"); // the graph needs a tile to run on
  g.setTileMapping(t, 0);
  // E = 22: 22 + 18 = 40.
  EXPECT_EQ(runCycles(g, Sequence(), d), kEntry + kExit);
  EXPECT_EQ(runCycles(g, Sequence(), d), 40u);
}

TEST(EngineCycles, InternalSync) {
  Device d = oneTile();
  Graph g(d.getTarget());
  Tensor t = g.addVariable(INT, {1}, "t");
  g.setTileMapping(t, 0);
  // sync 3 at 22; the only tile is the last to arrive, released at 22 + 126 = 148 = E.
  EXPECT_EQ(runCycles(g, Sync(SyncType::INTERNAL), d), 148u + kExit);
}

TEST(EngineCycles, OneVertex) {
  Device d = oneTile();
  Graph g(d.getTarget());
  g.addCodelets(IPUSIM_TEST_DIR "/gc/inputs/exit_vertex.cpp");
  g.addCodelets(IPUSIM_TEST_DIR "/gc/inputs/exit_vertex.S");
  Tensor t = g.addVariable(UNSIGNED_INT, {}, "t");
  g.setTileMapping(t, 0);
  ComputeSet cs = g.addComputeSet("exit");
  VertexRef v = g.addVertex(cs, "ExitVertex", {{"unused", t}});
  g.setTileMapping(v, 0);
  // The compute step: sync 3 at 22, released at 148; setzi $m6 (entry) 148, setzi $m4 (state) 149,
  // run $m6, $m4 at 155 (waits for $m4); the supervisor's next issue is 6 later: sync 2 at 161.
  // Worker 0 (slot 0: cycles divisible by 6) first issues at or after 155 + 6 = 161: exitz at 162.
  // sync 2 lets the supervisor go 6 cycles after the later of itself (161) and the exit (162):
  // E = 168, and the run ends at 168 + 18 = 186.
  EXPECT_EQ(runCycles(g, Execute(cs), d), 186u);
}

namespace {

/// Copies four floats from tile 0 to tile 1 of a two-tile device, the views taking the elements
/// in order or (`shuffled`) as 0, 2, 1, 3 on both sides; checks they arrived; returns the cycles.
uint64_t copyFourFloats(bool shuffled) {
  Device d = oneTile(2);
  Graph g(d.getTarget());
  Tensor a = g.addConstant<float>(FLOAT, {4}, {1, 2, 3, 4});
  Tensor b = g.addVariable(FLOAT, {4}, "b");
  g.setTileMapping(a, 0);
  g.setTileMapping(b, 1);
  auto order = [&](const Tensor &t) { return shuffled ? concat({t.slice(0, 1), t.slice(2, 3), t.slice(1, 2), t.slice(3, 4)}) : t; };
  Sequence prog{Copy(order(a), order(b))};
  g.createHostRead("b", b);
  Engine e(g, prog);
  e.load(d);
  e.run(0);
  float out[4] = {};
  e.readTensor("b", out, out + 4);
  for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(out[i], float(i + 1)) << (shuffled ? "shuffled, " : "") << "element " << i;
  return e.getLastRunCycles();
}

} // namespace

TEST(EngineCycles, ExchangeBetweenTwoTiles) {
  // The exchange step: both tiles sync at 22 and are released at 148 (phase cycle 0). Tile 0 sends
  // the four words at phase cycle T, the earliest at which tile 1 can select it: T + mux >= 0.
  // Tile 1 selects tile 0 at T + mux, moves its receive pointer at the first write T + write,
  // deselects at T + mux + 4; the last word is written at T + write + 3, so its exchange ends
  // at T + write + 4 and tile 0's at T + 4. The program then ends (no sync): E = 148 + end.
  // The values arrive (copyFourFloats checks them).
  EXPECT_EQ(copyFourFloats(false), fourWordCopyCycles());
}

TEST(EngineCycles, ACopyInAnyElementOrderIsOneTransferWhereBothSidesAreContiguous) {
  // The views take the elements as 0, 2, 1, 3 on both sides: four one-word pieces, which the
  // lowering joins into the one four-word transfer of a plain Copy (graph_compiler Lower.cpp,
  // joinMoves), so the cycles are ExchangeBetweenTwoTiles' (four sends would each take the
  // supervisor's send, its receiver's controls and their flights).
  EXPECT_EQ(copyFourFloats(false), fourWordCopyCycles());
  EXPECT_EQ(copyFourFloats(true), fourWordCopyCycles());
}

TEST(EngineCycles, OnTileCopiesOfSingleWordsTakeTheWordLoop) {
  // K one-word copies on one tile (every other float of a into every other float of b) are a
  // compute step of the runtime's copy vertex on six workers, worker w taking copies w, w + 6, ...
  // (graph_compiler/runtime/CopyList.S). CopyList: 8 bundles of set-up, 14 a copy, 3 to find the
  // end and exit; with K = 11 workers 0-4 take two copies (39 bundles) and worker 5 one. From 12,
  // CopyWordList: 17 bundles of set-up, 5 a copy, 1 to leave the loop and the 3: 31 bundles for
  // each worker's two. The step ends with the last worker's exit: worker 4's 39th bundle for 11,
  // worker 5's 31st for 12, one slot later: 8 x 6 - 1 = 47 cycles fewer for one more copy.
  Device d = oneTile();
  auto cycles = [&](std::size_t k) {
    Graph g(d.getTarget());
    std::vector<float> init(2 * k);
    for (std::size_t i = 0; i < init.size(); ++i) init[i] = float(i + 1);
    Tensor a = g.addConstant<float>(FLOAT, {2 * k}, init);
    Tensor b = g.addVariable(FLOAT, {2 * k}, "b");
    g.setTileMapping(a, 0);
    g.setTileMapping(b, 0);
    Sequence prog{Copy(a.subSample(2, 0), b.subSample(2, 0))};
    g.createHostRead("b", b);
    Engine e(g, prog);
    e.load(d);
    e.run(0);
    std::vector<float> out(2 * k);
    e.readTensor("b", out.data(), out.data() + out.size());
    for (std::size_t i = 0; i < k; ++i) EXPECT_EQ(out[2 * i], float(2 * i + 1)) << k << " copies, element " << 2 * i;
    return e.getLastRunCycles();
  };
  EXPECT_EQ(cycles(12) + 47, cycles(11));
}

/// A copy on one tile of `from` into `to` (views of a, b: n elements of T, a holding 1, 2, ...):
/// the elements of b after it, and the run's cycles.
/// With bTile, b lies on that tile and the copy crosses the exchange.
template <typename T>
std::pair<std::vector<T>, uint64_t> copyOnTile(const Device &d, const Type &type, std::size_t n,
                                               const std::function<Tensor(const Tensor &)> &from,
                                               const std::function<Tensor(const Tensor &)> &to, unsigned bTile = 0) {
  Graph g(d.getTarget());
  std::vector<T> init(n), zeros(n);
  for (std::size_t i = 0; i < n; ++i) init[i] = T(i + 1);
  Tensor a = g.addVariable(type, {n}, "a"), b = g.addVariable(type, {n}, "b");
  g.setTileMapping(a, 0);
  g.setTileMapping(b, bTile);
  g.setInitialValue(a, ArrayRef<T>(init));
  g.setInitialValue(b, ArrayRef<T>(zeros));
  g.createHostRead("b", b);
  Engine e(g, Sequence{Copy(from(a), to(b))});
  e.load(d);
  e.run(0);
  std::vector<T> out(n);
  e.readTensor("b", out.data(), out.data() + n);
  return {out, e.getLastRunCycles()};
}

TEST(EngineCycles, OnTileCopiesOfHalvesMovedByOneTakeThreeBundlesAWord) {
  // b[0, n) = a[1, n + 1) of 16-bit elements: b starts a word, the source two bytes past one:
  // one descriptor, which CopyList (graph_compiler/runtime/CopyList.S) copies on worker 0 in its
  // shifted loop, two words (four elements) a turn of six bundles, each stored word the high
  // half of one source word and the low half of the next. Four elements more: one more turn,
  // 6 bundles x 6 cycles = 36 cycles.
  Device d = oneTile();
  auto run = [&](std::size_t n) {
    const auto [b, cycles] = copyOnTile<unsigned short>(
        d, UNSIGNED_SHORT, n + 2, [&](const Tensor &a) { return a.slice(1, n + 1); },
        [&](const Tensor &t) { return t.slice(0, n); });
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(b[i], i + 2) << n << " elements, element " << i;
    EXPECT_EQ(b[n], 0) << "past the copy, " << n << " elements";
    return cycles;
  };
  EXPECT_EQ(run(24) + 36, run(28));
  EXPECT_EQ(run(40) + 36, run(44));
}

TEST(EngineCycles, OnTileCopiesOfPartWordsKeepTheRestOfTheirWords) {
  // Copies of 16- and 8-bit elements at every alignment of source and destination, and reversed
  // (every element a copy of its own, two or four of them writing one word): the graph compiler
  // cuts each copy into whole words and pieces of one word, the pieces of one word on one worker
  // (their read-modify-writes must not interleave); every element lands and the others keep
  // their values.
  Device d = oneTile();
  for (std::size_t n = 1; n <= 21; ++n)
    for (std::size_t s = 0; s < 4; ++s)
      for (std::size_t t = 0; t < 4; ++t) {
        auto check = [&](auto zero, const Type &type) {
          using T = decltype(zero);
          const auto [b, cycles] = copyOnTile<T>(
              d, type, n + 4, [&](const Tensor &a) { return a.slice(s, s + n); },
              [&](const Tensor &x) { return x.slice(t, t + n); });
          for (std::size_t i = 0; i < n + 4; ++i)
            EXPECT_EQ(b[i], i >= t && i < t + n ? T(i - t + s + 1) : T(0))
                << type.toString() << " n " << n << " from " << s << " to " << t << ", element " << i;
        };
        check((unsigned short)0, UNSIGNED_SHORT);
        check((unsigned char)0, UNSIGNED_CHAR);
      }
  // The same between two tiles: the exchange moves whole words straight into place where both
  // sides sit alike in their words (the rest through scratch and an on-tile copy, Lower.cpp
  // move()).
  Device two = oneTile(2);
  for (std::size_t n : {1, 2, 3, 7, 16, 33})
    for (std::size_t s = 0; s < 4; ++s)
      for (std::size_t t = 0; t < 4; ++t) {
        const auto [b, cycles] = copyOnTile<unsigned short>(
            two, UNSIGNED_SHORT, n + 4, [&](const Tensor &a) { return a.slice(s, s + n); },
            [&](const Tensor &x) { return x.slice(t, t + n); }, 1);
        for (std::size_t i = 0; i < n + 4; ++i)
          EXPECT_EQ(b[i], i >= t && i < t + n ? i - t + s + 1 : 0) << "exchanged, n " << n << " from " << s << " to " << t << ", element " << i;
      }
  for (std::size_t n : {5, 12, 31, 64}) {
    auto reversed = [&](auto zero, const Type &type) {
      using T = decltype(zero);
      const auto [b, cycles] = copyOnTile<T>(
          d, type, n, [](const Tensor &a) { return a.reverse(0); }, [](const Tensor &x) { return x; });
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(b[i], T(n - i)) << type.toString() << " reversed, n " << n << ", element " << i;
    };
    reversed((unsigned short)0, UNSIGNED_SHORT);
    reversed((unsigned char)0, UNSIGNED_CHAR);
  }
}

TEST(EngineCycles, AMapSharesAShortTensorAmongTheSixWorkers) {
  // popops' map vertex gives each worker a run of whole 64-bit groups (two floats): 12 floats are
  // two for each of the six workers, which run the same instructions in their own slots, so the
  // compute set ends with worker 5's exit, 5 cycles after worker 0's; 2 floats are worker 0's
  // two, the others finding no work. (Runs of 8 elements had given worker 0 eight of the 12.)
  Device d = oneTile();
  auto cycles = [&](std::size_t n) {
    Graph g(d.getTarget());
    popops::addCodelets(g);
    std::vector<float> init(n);
    for (std::size_t i = 0; i < n; ++i) init[i] = float(i + 1);
    Tensor x = g.addVariable(FLOAT, {n}, "x");
    g.setTileMapping(x, 0);
    Tensor c = g.addConstant<float>(FLOAT, {n}, init.data(), "init");
    g.setTileMapping(c, 0);
    Sequence prog{Copy(c, x)}, update;
    popops::mapInPlace(g, popops::expr::Sqrt(popops::expr::_1), {x}, update, "sqrt");
    g.createHostRead("x", x);
    Engine e(g, {prog, update});
    e.load(d);
    e.run(0);
    e.run(1);
    std::vector<float> out(n);
    e.readTensor("x", out.data(), out.data() + n);
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(out[i], std::sqrt(float(i + 1))) << n << " floats, element " << i;
    return e.getLastRunCycles();
  };
  EXPECT_EQ(cycles(12), cycles(2) + 5);
}

TEST(EngineCycles, AScaledAddTakesOneBundleAVectorOfItsOperands) {
  // popops' scaled add with constant scales runs poplibs' way (graph_compiler/popops/
  // ElementWise.cpp, scaledAddAsmVertex): each worker a run of whole groups of 8 elements,
  // ceil(n / 48) groups, and in its loop one bundle a 64-bit vector of both operands
  // (ld2xst64pace beside f16v4mix or f32v2axpy; the operands in different memory elements and the
  // store three vectors behind the load of the same output, so no bundle waits). 48 elements more
  // give each of the six workers one group more: two half vectors (2 bundles in its own slot, 12
  // cycles) or four float vectors (24 cycles) on the step's critical path, its last worker's.
  // The same with the scale a one-element tensor (read into $TAS when the vertex runs).
  Device d = oneTile();
  auto cycles = [&](const Type &type, std::size_t n, bool tensorScale = false) {
    Graph g(d.getTarget());
    popops::addCodelets(g);
    std::vector<float> xv(n), yv(n);
    for (std::size_t i = 0; i < n; ++i) xv[i] = float(i % 13) - 6, yv[i] = 0.5f * float(i % 7);
    Tensor x = g.addVariable(type, {n}, "x"), y = g.addVariable(type, {n}, "y");
    g.setTileMapping(x, 0);
    g.setTileMapping(y, 0);
    g.createHostWrite("x", x);
    g.createHostWrite("y", y);
    g.createHostRead("x", x);
    Sequence update;
    if (tensorScale) {
      Tensor scale = g.addConstant(type, {}, 0.25f, "scale");
      g.setTileMapping(scale, 0);
      popops::scaledAddTo(g, x, y, scale, update);
    } else {
      popops::scaledAddTo(g, x, y, 0.25f, update);
    }
    Engine e(g, update);
    e.load(d);
    if (type == HALF) {
      std::vector<uint16_t> xh(n), yh(n);
      copyFloatToDeviceHalf(d.getTarget(), xv.data(), xh.data(), n);
      copyFloatToDeviceHalf(d.getTarget(), yv.data(), yh.data(), n);
      e.writeTensor("x", xh.data(), xh.data() + n);
      e.writeTensor("y", yh.data(), yh.data() + n);
    } else {
      e.writeTensor("x", xv.data(), xv.data() + n);
      e.writeTensor("y", yv.data(), yv.data() + n);
    }
    e.run(0);
    std::vector<float> out(n);
    if (type == HALF) {
      std::vector<uint16_t> h(n);
      e.readTensor("x", h.data(), h.data() + n);
      copyDeviceHalfToFloat(d.getTarget(), h.data(), out.data(), n);
    } else {
      e.readTensor("x", out.data(), out.data() + n);
    }
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(out[i], xv[i] + 0.25f * yv[i]) << n << " elements, element " << i; // exact
    return e.getLastRunCycles();
  };
  EXPECT_EQ(cycles(HALF, 144), cycles(HALF, 96) + 12);
  EXPECT_EQ(cycles(FLOAT, 144), cycles(FLOAT, 96) + 24);
  EXPECT_EQ(cycles(HALF, 144, true), cycles(HALF, 96, true) + 12);
  EXPECT_EQ(cycles(FLOAT, 144, true), cycles(FLOAT, 96, true) + 24);
}

TEST(EngineCycles, AnAllToAllOfEqualPiecesKeepsEveryLaneBusy) {
  // Eight tiles (four pairs, each pair's two tiles sharing one transmit lane for 64-bit sends)
  // each send a piece of 64 floats (32 items) to each of the other seven: the depth split's
  // partial sums in small. Every pair's lane carries 14 pieces, 448 cycles, and every tile
  // receives 7, so the exchange cannot be shorter than the busiest pair's 14 sends alone (668
  // cycles with the program's entry, exit and flights). The scheduler ranks such transfers by
  // rounds, no lane sending twice and no tile receiving twice in a round (ExchangeSchedule.cpp,
  // inRounds), and its lanes then idle for less than one piece in all: 689 cycles, 21 over. (By
  // sender, the order before, tiles waited for the same receivers: 713, 45 over.)
  constexpr unsigned kTiles = 8, kPiece = 64;
  Device d = oneTile(kTiles);
  auto program = [&](Graph &g, unsigned onlyPair) {
    std::vector<Tensor> from, to;
    std::vector<Tensor> in(kTiles), out(kTiles);
    for (unsigned t = 0; t < kTiles; ++t) {
      std::vector<float> values(kTiles * kPiece);
      for (unsigned i = 0; i < values.size(); ++i) values[i] = float(t * 1000 + i);
      in[t] = g.addConstant<float>(FLOAT, {kTiles * kPiece}, values);
      out[t] = g.addVariable(FLOAT, {kTiles * kPiece}, "out" + std::to_string(t));
      g.setTileMapping(in[t], t);
      g.setTileMapping(out[t], t);
      g.createHostRead("out" + std::to_string(t), out[t]);
    }
    // Tile s's piece r goes to tile r's piece s.
    for (unsigned s = 0; s < kTiles; ++s)
      for (unsigned r = 0; r < kTiles; ++r)
        if (s != r && (onlyPair == kTiles || s / 2 == onlyPair)) {
          from.push_back(in[s].slice(r * kPiece, (r + 1) * kPiece));
          to.push_back(out[r].slice(s * kPiece, (s + 1) * kPiece));
        }
    Sequence seq;
    seq.add(Copy(concat(from), concat(to)));
    return seq;
  };
  uint64_t onePair = 0;
  for (unsigned p = 0; p < kTiles / 2; ++p) {
    Graph g(d.getTarget());
    onePair = std::max(onePair, runCycles(g, program(g, p), d));
  }
  Graph g(d.getTarget());
  Sequence all = program(g, kTiles);
  Engine e(g, all);
  e.load(d);
  e.run(0);
  EXPECT_GE(e.getLastRunCycles(), onePair);
  EXPECT_LT(e.getLastRunCycles(), onePair + kPiece / 2) << "one pair: " << onePair;
  for (unsigned r = 0; r < kTiles; ++r) {
    std::vector<float> got(kTiles * kPiece);
    e.readTensor("out" + std::to_string(r), got.data(), got.data() + got.size());
    for (unsigned s = 0; s < kTiles; ++s)
      if (s != r)
        for (unsigned i = 0; i < kPiece; ++i) ASSERT_EQ(got[s * kPiece + i], float(s * 1000 + r * kPiece + i)) << s << "->" << r;
  }
}

TEST(EngineCycles, TilesSwappingBlocksSendWhileTheyReceive) {
  // Tiles 0 and 2 (not a pair: each has its own transmit lane) swap 400 floats, 8-byte aligned, so
  // 200 64-bit items each way (longer than a flight across the die). Each tile's receive controls (select, the formats, the pointer,
  // deselect) fall inside its own send, where a sendpic carries them (ExchangeSchedule.h), so the
  // two sends overlap and the swap takes exactly as long as the longer of its two one-way copies
  // alone. (Were controls to wait for the tile's own send, the sends would go one after the other.)
  Device d = oneTile(4);
  auto program = [&](Graph &g, bool there, bool back) {
    std::vector<float> values(400);
    for (unsigned i = 0; i < 400; ++i) values[i] = float(i);
    Tensor a0 = g.addConstant<float>(FLOAT, {400}, values), b2 = g.addVariable(FLOAT, {400}, "b2");
    Tensor a2 = g.addConstant<float>(FLOAT, {400}, values), b0 = g.addVariable(FLOAT, {400}, "b0");
    g.setTileMapping(a0, 0);
    g.setTileMapping(b0, 0);
    g.setTileMapping(a2, 2);
    g.setTileMapping(b2, 2);
    g.createHostRead("b0", b0);
    g.createHostRead("b2", b2);
    Sequence s;
    if (there && back) s.add(Copy(concat(a0, a2), concat(b2, b0)));
    else if (there) s.add(Copy(a0, b2));
    else s.add(Copy(a2, b0));
    return s;
  };
  Graph there(d.getTarget()), back(d.getTarget()), both(d.getTarget());
  const uint64_t oneWay = std::max(runCycles(there, program(there, true, false), d), runCycles(back, program(back, false, true), d));
  Sequence swap = program(both, true, true);
  Engine e(both, swap);
  e.load(d);
  e.run(0);
  EXPECT_EQ(e.getLastRunCycles(), oneWay) << "one way: " << oneWay;
  std::vector<float> out0(400), out2(400);
  e.readTensor("b0", out0.data(), out0.data() + 400);
  e.readTensor("b2", out2.data(), out2.data() + 400);
  for (unsigned i = 0; i < 400; ++i) {
    EXPECT_EQ(out0[i], float(i));
    EXPECT_EQ(out2[i], float(i));
  }
}
