// Where an IPU's tiles sit on the die and how long the exchange takes between them (ipu-facts
// §4.3, §4.4). The shape is the closed form that third-party work fitted to SDK-generated exchange
// programs on IPU21, whose tile array the GC200 shares ([RE] S9 topology.rs: logical-to-physical
// map and time_to_mux); its constants are parameters in [exchange] of arch/configs, documented
// in docs/config-reference.md. The simulator's exchange fabric and the graph compiler's exchange
// scheduler both use it, so a schedule and its execution agree by construction.
#pragma once

#include "ipusim/arch/Config.h"

#include <cstdint>

namespace ipusim::arch {

class ExchangeLayout {
public:
  explicit ExchangeLayout(const SystemConfig &config);

  /// The physical tile id of logical tile `t`: 64 * row + 4 * column + 2 * pair member + side.
  /// Logical tiles run up one column side and down the next (a serpentine); logical tiles 2k and
  /// 2k+1 are the two members of one tile pair ([RE] S9).
  unsigned physical(unsigned logical) const;
  unsigned row(unsigned logical) const { return physical(logical) >> 6; }
  unsigned column(unsigned logical) const { return (physical(logical) >> 2) & 15; }
  /// The other member of a tile's pair, which shares its exchange resources for 64-bit
  /// exchange ([F] S5 getTilesPerSharedExchangeBus() == 2; [RE] S9 pairs differ in physical bit 1).
  static unsigned partner(unsigned logical) { return logical ^ 1; }

  /// The two directions a word can travel from its sender (the `send` sctl bits: 1 east, 2 west).
  enum Direction : unsigned { East = 1, West = 2 };
  Direction direction(unsigned src, unsigned dst) const;

  /// Cycles from the cycle a word leaves `src` (a send's issue, plus one per earlier word) to the
  /// cycle `dst`'s $INCOMING_MUX must select `src` to take it. Negative when the receiver must
  /// select the source before the sender sends: both count from the same sync release.
  int64_t muxOffset(unsigned src, unsigned dst) const;
  /// Cycles from the word leaving `src` to its write into `dst`'s memory (always positive).
  int64_t writeOffset(unsigned src, unsigned dst) const;

private:
  unsigned rows_;
  ExchangeConfig exchange_;
  /// time_to_mux of [RE] S9 without its constant term, on physical ids.
  int64_t flight(unsigned ps, unsigned pd) const;
  int64_t displacement(unsigned ps, unsigned pd) const;
};

} // namespace ipusim::arch
