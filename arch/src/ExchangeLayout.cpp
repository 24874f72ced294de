#include "ipusim/arch/ExchangeLayout.h"

#include <cstdlib>
#include <stdexcept>

namespace ipusim::arch {

namespace {
// A physical id's fields ([RE] S9; the same split as S8's BNET_TILEID): bit 0 the side of the
// column, bit 1 the pair member, bits 5:2 the column, bits 10:6 the row. Columns 8-15 sit on the
// far side of the exchange spine and mirror 0-7 ("fold").
unsigned columnOf(unsigned p) { return (p >> 2) & 15; }
unsigned rowOf(unsigned p) { return p >> 6; }
unsigned halfOf(unsigned p) { return columnOf(p) >> 3; }
int fold(unsigned column) { return column <= 7 ? int(column) : 15 - int(column); }
} // namespace

ExchangeLayout::ExchangeLayout(const SystemConfig &config)
    : exchange_(config.exchange) {
  const unsigned perRow = config.ipu.columns * config.ipu.tilesPerSupertile;
  if (config.ipu.columns != 16 || config.ipu.tilesPerSupertile != 4 || config.ipu.tiles % perRow)
    throw std::invalid_argument("the exchange layout needs 16 columns of 4-tile supertiles in whole rows");
  rows_ = config.ipu.tiles / perRow;
}

unsigned ExchangeLayout::physical(unsigned logical) const {
  // [RE] S9: pairs fill a block of `rows_` supertile rows, up the even blocks and down the odd
  // ones; block b is column b / 2, side b & 1.
  const unsigned pair = logical / 2, member = logical & 1, block = pair / rows_;
  unsigned row = pair % rows_;
  if (block & 1) row = rows_ - 1 - row;
  return 64 * row + 4 * (block / 2) + (block & 1) + 2 * member;
}

int64_t ExchangeLayout::displacement(unsigned ps, unsigned pd) const {
  // [RE] S9 route_displacement: folded columns between the sender's mux column and the
  // receiver's, `column_pitch_cycles` each, plus a term for the receiver's side and pair member.
  const int smux = fold(columnOf(ps)) + int(halfOf(ps) ^ (ps & 1));
  const int64_t base = int64_t(exchange_.columnPitchCycles) * (fold(columnOf(pd)) - smux);
  const bool sameSide = halfOf(pd) == (pd & 1);
  return base + ((pd & 2) ? (sameSide ? 2 : 4) : (sameSide ? 1 : 5));
}

ExchangeLayout::Direction ExchangeLayout::direction(unsigned src, unsigned dst) const {
  return displacement(physical(src), physical(dst)) < 1 ? West : East;
}

int64_t ExchangeLayout::flight(unsigned ps, unsigned pd) const {
  // [RE] S9 time_to_mux without its constant: crossing the spine, the edge terms of both
  // columns (`edge_cycles_per_column` per folded column), the turn at the sender's column,
  // `row_cycles` per row and the displacement.
  const int64_t crossing = 8 * int64_t(halfOf(ps)) + 3 - int64_t(columnOf(pd));
  const int64_t turn = halfOf(ps) == halfOf(pd) ? int64_t(columnOf(ps) & 7) + 1 : 16 - int64_t(columnOf(ps) & 7);
  const int64_t edge = int64_t(exchange_.edgeCyclesPerColumn) * (fold(columnOf(ps)) - fold(columnOf(pd)));
  const int64_t rows = int64_t(exchange_.rowCycles) * (int64_t(rowOf(ps)) - int64_t(rowOf(pd)));
  return crossing + edge + turn + rows + std::llabs(displacement(ps, pd));
}

int64_t ExchangeLayout::muxOffset(unsigned src, unsigned dst) const {
  return flight(physical(src), physical(dst)) - int64_t(exchange_.muxLeadCycles);
}

int64_t ExchangeLayout::writeOffset(unsigned src, unsigned dst) const {
  // [RE] S9: the receive pointer takes the word write_delay_cycles + row_cycles per row of the
  // receiver after the mux selected it.
  return muxOffset(src, dst) + int64_t(exchange_.writeDelayCycles) +
         int64_t(exchange_.writeCyclesPerRow) * int64_t(rowOf(physical(dst)));
}

} // namespace ipusim::arch
