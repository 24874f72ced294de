// The static exchange schedule of one exchange phase (DESIGN decision 3, ipu-facts §4.1-4.3):
// when each tile sends which words, and when each receiver's $INCOMING_MUX selects the sender
// and its receive pointer moves. The fabric's timing comes from arch::ExchangeLayout, the same
// model the simulator executes, so a schedule that passes here passes the simulator's checks.
//
// Every cycle is counted from the phase's start, the release of the IPU-wide sync before it.
// A tile's supervisor issues one instruction a cycle: a `send` of n words holds it n cycles, each
// receive control one (delayxpic / delaypic with a count of 1 apply in their issue cycle). A
// receiver selects the sender exactly while the transfer's words meet its mux, and selects no
// tile (0x7FF) right after, so no word is ever taken by a tile it was not meant for.
#pragma once

#include "ipusim/arch/ExchangeLayout.h"

#include <cstdint>
#include <map>
#include <vector>

namespace ipusim::gc {

/// Words of one sender's memory to one or more receivers (a multicast when several). A wide
/// transfer moves 64-bit items, one a cycle, on the sender's and its pair partner's transmit
/// lanes ([RE] S9; [F] S5 getTilesPerSharedExchangeBus() == 2): its words are even and its
/// addresses 8-byte aligned, and each receiver's $INCOMING_FORMAT says 64-bit from the sender's
/// side while the items are written.
struct ExchangeTransfer {
  unsigned src;
  uint32_t words;
  std::vector<unsigned> dst;
  uint32_t id; ///< the caller's handle (addresses are filled in when the code is written)
  bool wide = false;
};

/// One timed supervisor instruction of the schedule.
struct ExchangeOp {
  enum Kind : uint8_t { Send, Mux, Delta, Format } kind;
  uint64_t cycle;     ///< issue cycle, from the phase start
  uint32_t transfer;  ///< Send, Delta: the transfer (index into the step's list)
  uint32_t word = 0;  ///< Send: first word of the transfer this send carries
  uint32_t count = 0; ///< Send: items (words, or 64-bit items when wide), one a cycle; the code
                      ///< cuts them into instructions of at most max_send_words, and where one
                      ///< of the tile's controls falls inside, a sendpic carrying it continues them
  uint32_t value = 0; ///< Mux: the tile selected (0x7FF none); Delta: receiver index in dst;
                      ///< Format: $INCOMING_FORMAT (0 32-bit, 1/2 64-bit from the east/west)
  uint8_t sctl = 0;   ///< Send: direction bits, and bit 2 for 64-bit items
};

struct TileExchange {
  std::vector<ExchangeOp> ops; ///< in cycle order, never two in one cycle (a control may fall
                               ///< within a send's cycles, never on its first)
  uint64_t end = 0;            ///< the first cycle the tile may sync: past its last op and incoming write
};

struct ExchangeSchedule {
  std::map<unsigned, TileExchange> tiles;
  uint64_t cycles = 0;           ///< the latest tile end
  uint64_t words = 0;            ///< words sent (a multicast once)
};

/// Schedules `transfers` greedily (largest first, each as early as every tile involved allows).
/// Tile t issues from its release skew (sync.release_skew_cycles per row).
ExchangeSchedule scheduleExchange(const std::vector<ExchangeTransfer> &transfers, const arch::ExchangeLayout &layout,
                                  const arch::SystemConfig &config);

constexpr uint32_t kMuxNone = 0x7FF; ///< an $INCOMING_MUX value that selects no tile ([RE] S8: 11 bits)

} // namespace ipusim::gc
