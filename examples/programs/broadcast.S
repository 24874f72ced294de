// Broadcast over the exchange: tile 0 sends the 16 words of its vertex state (at $m0) east and
// west in one send; every other tile of the program selects tile 0 with $INCOMING_MUX and receives
// them at 0x71000. Two entry points: broadcast_send on tile 0, broadcast_receive on the others.
//
// Timing (docs/tile-timing.md; every tile reaches the first sync at cycle 0 and is released at
// 126): a receiver's mux must select tile 0 when each word meets it, send + ttm + 1, which is at
// most 77 cycles before the send; the receivers select it at 126 and tile 0 sends at 234, so every
// receiver is ready (234 - 77 = 157). The last word leaves at 249 and is written at most 165 cycles
// later (414), before every tile's second sync at 450. Both entry points reach it at cycle 450.
#include "poplar/TileConstants.hpp"

#define WORDS 16

  .section .text.broadcast_send, "ax"
  .globl broadcast_send
  .supervisor
broadcast_send:
  sync TEXCH_SYNCZONE_INTERNAL             // 0; released at 126
  setzi $m1, 0x7FF
  put $INCOMING_MUX, $m1                   // 132 (waits for $m1): tile 0 receives from no tile
  put $OUTGOING_BASE, $m0                  // 133: the words are the vertex state
  delay 100                                // 134: wait for every receiver's mux
  send 0, WORDS, 3                         // 234: words leave at 234..249, east and west
  delay 200                                // 250
  sync TEXCH_SYNCZONE_INTERNAL             // 450; released at 576
  br $lr                                   // 576: the run ends at 582

  .section .text.broadcast_receive, "ax"
  .globl broadcast_receive
  .supervisor
broadcast_receive:
  sync TEXCH_SYNCZONE_INTERNAL             // 0; released at 126
  put $INCOMING_MUX, $mzero                // 126: select tile 0
  setzi $m1, 0x71000
  put $INCOMING_BASE, $m1                  // 133 (waits for $m1)
  put $INCOMING_DELTA, $mzero              // 134
  delay 315                                // 135
  sync TEXCH_SYNCZONE_INTERNAL             // 450; released at 576
  br $lr                                   // 576: the run ends at 582
