// Ring shift over the tiles of a program: each tile makes four words (100 * tile id + i), sends
// them to its right neighbour over the exchange and receives its left neighbour's at 0x71000.
// The vertex state ($m0) holds the number of tiles in the ring.
#include "poplar/TileConstants.hpp"

  .section .text.ring_shift, "ax"
  .globl ring_shift
  .supervisor
ring_shift:
  get $m1, $TILE_ID
  // The words to send: 100 * id + i, i = 0..3, at 0x70010.
  mul $m5, $m1, 100
  setzi $m6, 0x70010
  st32 $m5, $m6, 0
  add $m5, $m5, 1
  st32 $m5, $m6, 1
  add $m5, $m5, 1
  st32 $m5, $m6, 2
  add $m5, $m5, 1
  st32 $m5, $m6, 3
  sync TEXCH_SYNCZONE_INTERNAL             // the exchange phase starts together
  // Receive from the left neighbour: (id + n - 1) mod n, computed as id - 1, or n - 1 for tile 0.
  ld32 $m2, $m0, 0
  add $m3, $m1, -1
  brpos $m3, 1f
  add $m3, $m2, -1
1:
  put $INCOMING_MUX, $m3
  setzi $m4, 0x71000
  put $INCOMING_BASE, $m4
  put $INCOMING_DELTA, $mzero
  put $OUTGOING_BASE, $m6
  // The receiver's mux must select this tile up to 77 cycles before the word leaves (the earliest
  // mux time over all tile pairs, docs/tile-timing.md "Exchange"): wait until every tile has set it.
  delay 100
  send 0, 4, 3                             // east and west: the ring's wrap may go either way
  delay 170                                // the latest write lands 165 cycles after its send
  sync TEXCH_SYNCZONE_INTERNAL
  br $lr
