// Random copies between random tiles, of types from 1 to 4 bytes at random offsets, many at once:
// every one is lowered to exchange (whole aligned words straight into place, the rest through a
// scratch area and an on-tile copy) that must pass the simulator's strict checks (a word nobody
// takes, two words in one cycle, a late word) and deliver every byte exactly.
#include "TestUtil.h"

#include "ipusim/arch/Config.h"
#include "ipusim/arch/ExchangeLayout.h"

#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>

using namespace poplar;
using namespace poplar::program;

namespace {

void stress(unsigned seed, const Type &type, unsigned tiles, unsigned copies, unsigned maxLen = 9, unsigned n = 64,
            unsigned syncDelay = 126) {
  IPUModel m;
  m.tilesPerIPU = tiles;
  m.minIPUSyncDelay = syncDelay;
  Device d = m.createDevice();
  Graph g(d.getTarget());
  std::mt19937 rng(seed);
  Tensor src = g.addVariable(type, {tiles, n}, "src");
  Tensor dst = g.addVariable(type, {tiles, n}, "dst");
  for (unsigned t = 0; t < tiles; ++t) {
    g.setTileMapping(src[t], t);
    g.setTileMapping(dst[t], (t + 1) % tiles);
  }
  g.createHostWrite("src", src);
  g.createHostWrite("dst", dst);
  g.createHostRead("dst", dst);
  // Non-overlapping destination pieces: each copy takes a fresh slice of dst.
  Sequence prog;
  std::vector<std::vector<bool>> used(tiles, std::vector<bool>(n, false));
  std::vector<Tensor> from, to;
  std::vector<std::tuple<unsigned, unsigned, unsigned, unsigned, unsigned>> plan;
  for (unsigned c = 0; c < copies; ++c) {
    const unsigned len = 1 + rng() % maxLen, st = rng() % tiles, so = rng() % (n - len), dt = rng() % tiles;
    unsigned dof = rng() % (n - len);
    bool free = true;
    for (unsigned i = 0; i < len; ++i) free &= !used[dt][dof + i];
    if (!free) continue;
    for (unsigned i = 0; i < len; ++i) used[dt][dof + i] = true;
    from.push_back(src[st].slice(so, so + len));
    to.push_back(dst[dt].slice(dof, dof + len));
    plan.push_back({st, so, dt, dof, len});
  }
  EXPECT_GT(plan.size(), copies / 2) << "seed " << seed;
  // First an on-tile copy on tile 0 alone, so that tile 0 reaches the exchange's sync last.
  Tensor scratch = g.addVariable(type, {n}, "scratch");
  g.setTileMapping(scratch, 0);
  prog.add(Copy(src[0], scratch));
  // One Copy of everything: the pieces go in one exchange phase.
  prog.add(Copy(concat(from), concat(to)));
  Engine e(g, prog);
  e.load(d);
  const unsigned size = unsigned(g.getTarget().getTypeSize(type));
  std::vector<uint8_t> in(size_t(tiles) * n * size), zero(in.size(), 0xEE), out(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint8_t(rng());
  e.writeTensor("src", in.data(), in.data() + in.size());
  e.writeTensor("dst", zero.data(), zero.data() + zero.size());
  e.run(0);
  e.readTensor("dst", out.data(), out.data() + out.size());
  std::vector<uint8_t> want = zero;
  for (auto [st, so, dt, dof, len] : plan)
    for (unsigned i = 0; i < len * size; ++i) want[(dt * n + dof) * size + i] = in[(st * n + so) * size + i];
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(unsigned(out[i]), unsigned(want[i])) << "byte " << i << " (tile " << i / size / n << ", element "
                                                   << i / size % n << "), seed " << seed;
}

} // namespace

TEST(ExchangeStress, Floats) {
  for (unsigned seed = 1; seed <= 3; ++seed) stress(seed, FLOAT, 8, 40);
}
TEST(ExchangeStress, Halves) {
  for (unsigned seed = 4; seed <= 6; ++seed) stress(seed, HALF, 8, 40);
}
TEST(ExchangeStress, Bytes) {
  for (unsigned seed = 7; seed <= 9; ++seed) stress(seed, UNSIGNED_CHAR, 6, 40);
}
TEST(ExchangeStress, ManyTilesOfAnIpu) { stress(10, INT, 64, 300); }
// A sync latency of 0 (Graphcore's tutorial 6 sets IPUModel::minIPUSyncDelay = 0): tiles still
// leave a sync together, a cycle after the last arrives, so exchange timing holds.
TEST(ExchangeStress, NoSyncDelay) { stress(15, FLOAT, 16, 60, 24, 128, 0); }

// Long pieces: most go as 64-bit items on tile pairs (sends of both members of a pair must not
// overlap, receivers switch $INCOMING_FORMAT around them).
TEST(ExchangeStress, WideItems) {
  for (unsigned seed = 11; seed <= 13; ++seed) stress(seed, FLOAT, 8, 30, 48, 256);
}
TEST(ExchangeStress, WideHalves) { stress(14, HALF, 16, 60, 96, 512); }

// One piece to every tile (a multicast send), with wide and narrow pieces around it.
TEST(ExchangeStress, Broadcast) {
  IPUModel m;
  m.tilesPerIPU = 32;
  Device d = m.createDevice();
  Graph g(d.getTarget());
  Tensor src = g.addVariable(INT, {40}, "src");
  g.setTileMapping(src, 5);
  Tensor dst = g.addVariable(INT, {32, 40}, "dst");
  for (unsigned t = 0; t < 32; ++t) g.setTileMapping(dst[t], t);
  g.createHostWrite("src", src);
  g.createHostRead("dst", dst);
  // Every tile but 5 gets all of src; tile 5 keeps its own (an on-tile copy).
  const std::string dir = testing::TempDir() + "/broadcast_report";
  Engine e(g, Copy(src.expand({0}).broadcast(32, 0), dst), {{"autoReport.all", "true"}, {"autoReport.directory", dir}});
  e.load(d);
  std::vector<int> in(40), out(32 * 40);
  for (int i = 0; i < 40; ++i) in[i] = 1000 + i;
  e.writeTensor("src", in.data(), in.data() + in.size());
  e.run(0);
  e.readTensor("dst", out.data(), out.data() + out.size());
  for (unsigned t = 0; t < 32; ++t)
    for (unsigned i = 0; i < 40; ++i) ASSERT_EQ(out[t * 40 + i], 1000 + int(i)) << "tile " << t << ", element " << i;
  // The 40 words went as one multicast of 20 64-bit items (a send of at most 64 items), taken
  // by the 31 other tiles.
  std::ifstream trace(dir + "/execution.trace");
  std::string line;
  unsigned wide = 0;
  while (std::getline(trace, line))
    if (line.find("exchange.send") != std::string::npos && line.find("width=64") != std::string::npos) {
      ++wide;
      EXPECT_NE(line.find("words=20"), std::string::npos) << line;
      EXPECT_NE(line.find("receivers=31"), std::string::npos) << line;
    }
  EXPECT_EQ(wide, 1u);
}

// A receiver's select, deselect and receive-pointer controls each need a cycle of their own. When
// the first write comes exactly a transfer's length after the select (far tiles: d cycles), the
// deselect would meet the receive pointer: the scheduler widens the window by a quiet cycle.
// Found by the example matrix-vector product at 1,000 columns in 8 blocks (125 words).
TEST(ExchangeStress, DeselectMeetingTheFirstWrite) {
  const ipusim::arch::SystemConfig config = ipusim::arch::loadNamedConfig("mk2");
  const ipusim::arch::ExchangeLayout layout(config);
  unsigned far = 0;
  int64_t d = 0;
  for (unsigned t = 1; t < 1472 && !far; ++t) {
    d = layout.writeOffset(0, t) - layout.muxOffset(0, t);
    if (d >= 10 && d <= 60) far = t;
  }
  ASSERT_NE(far, 0u);
  IPUModel m;
  Device dev = m.createDevice();
  Graph g(dev.getTarget());
  const size_t n = size_t(2 * d + 2);
  Tensor src = g.addVariable(INT, {n}, "src"), dst = g.addVariable(INT, {n}, "dst");
  g.setTileMapping(src, 0);
  g.setTileMapping(dst, far);
  g.createHostWrite("src", src);
  g.createHostWrite("dst", dst);
  g.createHostRead("dst", dst);
  // d words from an odd word (32-bit items, n = d cycles), and 2d words from word 0 (d 64-bit items).
  Engine e(g, {Copy(src.slice(1, 1 + size_t(d)), dst.slice(1, 1 + size_t(d))), Copy(src.slice(0, 2 * size_t(d)), dst.slice(0, 2 * size_t(d)))});
  e.load(dev);
  for (unsigned prog = 0; prog < 2; ++prog) {
    std::vector<int> in(n), out(n), zero(n, -1);
    for (size_t i = 0; i < n; ++i) in[i] = int(1000 * prog + i);
    e.writeTensor("src", in.data(), in.data() + n);
    e.writeTensor("dst", zero.data(), zero.data() + n);
    e.run(prog);
    e.readTensor("dst", out.data(), out.data() + n);
    for (size_t i = 0; i < n; ++i) {
      const bool copied = prog == 0 ? i >= 1 && i < 1 + size_t(d) : i < 2 * size_t(d);
      ASSERT_EQ(out[i], copied ? in[i] : -1) << "program " << prog << ", word " << i << ", d " << d << ", tile " << far;
    }
  }
}
