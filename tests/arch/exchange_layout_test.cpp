// The exchange layout: the logical-to-physical tile map and the flight times, checked against
// values computed by hand from [RE] S9's closed form (ipu-facts §4.3, §4.4).
#include "TestUtil.h"

#include "ipusim/arch/ExchangeLayout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

using namespace ipusim;

namespace {

const arch::SystemConfig &mk2() {
  static arch::SystemConfig c = arch::loadNamedConfig("mk2");
  return c;
}

TEST(ExchangeLayout, LogicalTilesSnakeThroughPairsOfPhysicalTiles) {
  arch::ExchangeLayout l(mk2());
  // Pairs go up block 0 (column 0, side 0): logical 0..5 -> 0, 2, 64, 66, 128, 130; block 1
  // (column 0, side 1) comes down from row 22: logical 46 is pair 23, row 22 - 0, side 1 ->
  // 64 * 22 + 1 = 1409.
  EXPECT_EQ(l.physical(0), 0u);
  EXPECT_EQ(l.physical(1), 2u);
  EXPECT_EQ(l.physical(2), 64u);
  EXPECT_EQ(l.physical(3), 66u);
  EXPECT_EQ(l.physical(5), 130u);
  EXPECT_EQ(l.physical(46), 1409u);
  EXPECT_EQ(l.physical(1471), 64u * 0 + 4 * 15 + 1 + 2); // last block (31) ends at row 0, column 15, side 1
  std::set<unsigned> seen;
  for (unsigned t = 0; t < 1472; ++t) seen.insert(l.physical(t));
  EXPECT_EQ(seen.size(), 1472u); // one-to-one
  EXPECT_EQ(*seen.rbegin(), 64u * 22 + 63);
  EXPECT_EQ(l.partner(6), 7u);
  EXPECT_EQ(l.row(46), 22u);
  EXPECT_EQ(l.column(1471), 15u);
}

TEST(ExchangeLayout, FlightTimesFollowTheFittedFormula) {
  arch::ExchangeLayout l(mk2());
  std::map<unsigned, unsigned> logical; // physical -> logical
  for (unsigned t = 0; t < 1472; ++t) logical[l.physical(t)] = t;
  // time_to_mux (ttm) by hand for physical pairs; muxOffset = ttm + 1 (mux_lead_cycles 33 = 34 - 1).
  // 0 -> 2: smux 0, displacement 0 + 2 (pair member, same side) = 2, east; crossing 3, turn 1,
  //   ttm = 3 + 0 + 1 - 0 + 0 + 2 - 34 = -28.
  // 0 -> 64: displacement 1, crossing 3, turn 1, rows 2 x (0 - 1) = -2: ttm = 3 + 1 - 2 + 1 - 34 = -31.
  // 4 -> 0 (column 1 to 0): smux 1, displacement 6 x (0 - 1) + 1 = -5 (west); crossing 3, turn 2,
  //   edge 4 x 1: ttm = 3 + 4 + 2 + 5 - 34 = -20.
  // 32 -> 0 (column 8, far side, to column 0): smux 7 + 1 = 8, displacement -48 + 1 = -47 (west);
  //   crossing 8 + 3 = 11, turn 16 - 0 = 16, edge 4 x 7 = 28: ttm = 11 + 28 + 16 + 47 - 34 = 68.
  // 1440 -> 0 (row 22, column 8): as 32 -> 0 plus 2 x 22 rows: ttm = 112, the largest of all pairs.
  struct Case { unsigned ps, pd; int64_t ttm; arch::ExchangeLayout::Direction dir; };
  for (Case c : {Case{0, 2, -28, arch::ExchangeLayout::East}, Case{0, 64, -31, arch::ExchangeLayout::East},
                 Case{4, 0, -20, arch::ExchangeLayout::West}, Case{32, 0, 68, arch::ExchangeLayout::West},
                 Case{1440, 0, 112, arch::ExchangeLayout::West}, Case{0, 32, -4, arch::ExchangeLayout::East},
                 Case{700, 1300, -34, arch::ExchangeLayout::East}, Case{1300, 700, 30, arch::ExchangeLayout::West}}) {
    unsigned s = logical.at(c.ps), d = logical.at(c.pd);
    EXPECT_EQ(l.muxOffset(s, d), c.ttm + 1) << c.ps << " -> " << c.pd;
    EXPECT_EQ(l.direction(s, d), c.dir) << c.ps << " -> " << c.pd;
  }
  // The write into memory: 52 + 2 x the receiver's row after the mux; 0 -> 64 (row 1): -30 + 54.
  EXPECT_EQ(l.writeOffset(logical.at(0), logical.at(64)), 24);
  // Over all pairs the write lands 19 to 165 cycles after the send.
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (unsigned s = 0; s < 1472; ++s)
    for (unsigned d = 0; d < 1472; ++d)
      if (s != d) {
        lo = std::min(lo, l.writeOffset(s, d));
        hi = std::max(hi, l.writeOffset(s, d));
      }
  EXPECT_EQ(lo, 19);
  EXPECT_EQ(hi, 165);
}

} // namespace
