// Liveness of variables (graph_compiler/core/src/Liveness.cpp): variables that are not always
// live share memory when their live ranges do not overlap, values carried around loops stay
// live, WriteUndef ends a value. Checked through the values the programs compute and the memory
// figures of the engine's profile (autoReport's profile.json).
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>

using namespace poplar;
using namespace poplar::program;
namespace fs = std::filesystem;

namespace {

constexpr size_t kN = 1000; // ints: 4,000 bytes a variable

Device device(unsigned tiles = 1) {
  IPUModel m;
  m.tilesPerIPU = tiles;
  return m.createDevice();
}

/// Runs program 0 with `in` written to handle "in", returns what handle "out" reads, and tile 0's
/// memory figures from the profile.
std::vector<int> run(Graph &g, const Program &prog, const Device &d, nlohmann::json &tile0) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("liveness-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  fs::remove_all(dir);
  Engine engine(g, prog, {{"autoReport.outputGraphProfile", "true"}, {"autoReport.directory", dir.string()}});
  engine.load(d);
  std::vector<int> in(kN), out(kN, -1);
  std::iota(in.begin(), in.end(), 1);
  engine.writeTensor("in", in.data(), in.data() + kN);
  engine.run(0);
  engine.readTensor("out", out.data(), out.data() + kN);
  nlohmann::json profile = nlohmann::json::parse(std::ifstream(dir / "profile.json"));
  tile0 = profile.at("memory").at("tiles").at(0);
  return out;
}

/// Every category of the tile's memory that has its own bytes (all but the peaks of what shares).
uint64_t ownBytes(const nlohmann::json &t) {
  uint64_t n = 0;
  for (const char *k : {"variables", "constants", "stack", "vertexState", "vertexData", "copyDescriptors", "controlCode",
                        "vertexCode", "controlData"})
    n += t.at(k).get<uint64_t>();
  return n;
}

struct Io {
  Tensor in, out;
};
Io hostTensors(Graph &g) {
  Io io{g.addVariable(INT, {kN}, "in"), g.addVariable(INT, {kN}, "out")};
  g.setTileMapping(io.in, 0);
  g.setTileMapping(io.out, 0);
  g.createHostWrite("in", io.in);
  g.createHostRead("out", io.out);
  return io;
}

} // namespace

// in -> a -> b -> c -> out. `in` and `out` are read or written by the host: always live. a is
// live from its copy to b's, b from its copy to c's, c from its copy to out's: a and c never
// together, so c takes a's bytes. Peak not-always-live: a + b = b + c = 8,000 bytes; the tile's
// bytes in use are its own items plus those 8,000 (not 12,000).
TEST(Liveness, ChainOfCopiesSharesMemory) {
  Device d = device();
  Graph g(d.getTarget());
  Io io = hostTensors(g);
  Tensor a = g.addVariable(INT, {kN}, "a"), b = g.addVariable(INT, {kN}, "b"), c = g.addVariable(INT, {kN}, "c");
  for (Tensor t : {a, b, c}) g.setTileMapping(t, 0);
  nlohmann::json t0;
  std::vector<int> out = run(g, Sequence{Copy(io.in, a), Copy(a, b), Copy(b, c), Copy(c, io.out)}, d, t0);
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], int(i) + 1) << i;
  EXPECT_EQ(t0.at("variables").get<uint64_t>(), 2 * 4 * kN);
  EXPECT_EQ(t0.at("notAlwaysLive").get<uint64_t>(), 2 * 4 * kN);
  EXPECT_EQ(t0.at("temporaries").get<uint64_t>(), 0u);
  EXPECT_EQ(t0.at("used").get<uint64_t>(), ownBytes(t0) + 2 * 4 * kN);
}

// The same chain with `a` read again at the end: a now overlaps c, so nothing shares.
TEST(Liveness, OverlappingRangesDoNotShare) {
  Device d = device();
  Graph g(d.getTarget());
  Io io = hostTensors(g);
  Tensor a = g.addVariable(INT, {kN}, "a"), b = g.addVariable(INT, {kN}, "b"), c = g.addVariable(INT, {kN}, "c");
  for (Tensor t : {a, b, c}) g.setTileMapping(t, 0);
  nlohmann::json t0;
  // out = c, then out[0..499] = a[500..999]: out = 501..1000, then 501..1000 again.
  std::vector<int> out = run(
      g, Sequence{Copy(io.in, a), Copy(a, b), Copy(b, c), Copy(c, io.out), Copy(a.slice(500, kN), io.out.slice(0, 500))}, d, t0);
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], int(i < 500 ? i + 501 : i + 1)) << i;
  EXPECT_EQ(t0.at("notAlwaysLive").get<uint64_t>(), 3 * 4 * kN);
  EXPECT_EQ(t0.at("used").get<uint64_t>(), ownBytes(t0) + 3 * 4 * kN);
}

// A value carried around a loop stays live across the back edge. acc is rotated left by one
// element in each of 5 iterations through t (live only inside an iteration) and u (live only
// before the loop): if acc shared bytes with t or u, the rotations would read garbage.
// out = in rotated left by 5: out[i] = in[(i + 5) % N] = (i + 5) % N + 1.
TEST(Liveness, LoopCarriedValuesStayLive) {
  Device d = device();
  Graph g(d.getTarget());
  Io io = hostTensors(g);
  Tensor acc = g.addVariable(INT, {kN}, "acc"), t = g.addVariable(INT, {kN}, "t"), u = g.addVariable(INT, {kN}, "u");
  for (Tensor x : {acc, t, u}) g.setTileMapping(x, 0);
  Sequence body{Copy(acc, t), Copy(concat(t.slice(1, kN), t.slice(0, 1)), acc)};
  nlohmann::json t0;
  std::vector<int> out = run(g, Sequence{Copy(io.in, u), Copy(u, acc), Repeat(5, body), Copy(acc, io.out)}, d, t0);
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], int((i + 5) % kN) + 1) << i;
  // u and t are never live together (u dies as acc is written; t lives only in the loop): one
  // of them shares bytes. Peak: acc + u (before the loop) = acc + t (in it) = 8,000.
  EXPECT_EQ(t0.at("notAlwaysLive").get<uint64_t>(), 2 * 4 * kN);
  EXPECT_EQ(t0.at("used").get<uint64_t>(), ownBytes(t0) + 2 * 4 * kN);
}

// A variable partly written before it is read keeps its other elements from the last run: it is
// always live. WriteUndef at the start says they hold nothing, and it becomes not always live.
TEST(Liveness, WriteUndefEndsAValue) {
  for (bool undef : {false, true}) {
    Device d = device();
    Graph g(d.getTarget());
    Io io = hostTensors(g);
    Tensor v = g.addVariable(INT, {kN}, "v");
    g.setTileMapping(v, 0);
    Sequence prog;
    if (undef) prog.add(WriteUndef(v));
    prog.add(Copy(io.in.slice(0, 500), v.slice(0, 500)));
    prog.add(Copy(v.slice(0, 500), io.out.slice(500, kN)));
    prog.add(Copy(io.in.slice(500, kN), io.out.slice(0, 500)));
    nlohmann::json t0;
    std::vector<int> out = run(g, prog, d, t0);
    for (size_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], int(i < 500 ? i + 501 : i - 499)) << i;
    EXPECT_EQ(t0.at("variables").get<uint64_t>(), (undef ? 2 : 3) * 4 * kN) << "WriteUndef: " << undef;
    EXPECT_EQ(t0.at("notAlwaysLive").get<uint64_t>(), undef ? 4 * kN : 0) << "WriteUndef: " << undef;
  }
}

// A variable with an initial value keeps it for every run: always live. (Here `in` is written by
// the host but no program reads it: its value is never seen, so it is not always live.)
TEST(Liveness, InitialValuesAreAlwaysLive) {
  Device d = device();
  Graph g(d.getTarget());
  Io io = hostTensors(g);
  Tensor k = g.addVariable(INT, {kN}, "k");
  g.setTileMapping(k, 0);
  std::vector<int> seven(kN, 7);
  g.setInitialValue(k, ArrayRef<int>(seven));
  nlohmann::json t0;
  std::vector<int> out = run(g, Copy(k, io.out), d, t0);
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], 7) << i;
  EXPECT_EQ(t0.at("variables").get<uint64_t>(), 2 * 4 * kN); // k and out
  EXPECT_EQ(t0.at("notAlwaysLive").get<uint64_t>(), 4 * kN); // in
}
