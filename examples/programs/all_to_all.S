// All-to-all over the exchange: the n tiles of the program each send one word to every other.
// The vertex state ($m0) holds n and the program's tile ids in ring order: ids[0..n-1] at $m0 + 4
// (n >= 2; the ids need not be consecutive). The tile at ring position p sends 1000 p + q to the
// tile at position q, which stores it at IN_BUF + 4 p; each tile also stores its own word
// (1000 p + p) there, so every tile ends with the full column IN_BUF[s] = 1000 s + (its position).
//
// The exchange runs in n - 1 steps of 260 cycles: in step k = 1..n-1 the tile at position p sends
// to (p + k) mod n and receives from (p - k) mod n, so every receiver hears one sender per step.
// Every tile runs the same instructions with the same timing (the modular arithmetic is
// branch-free: no tile takes a branch that another does not), so the steps line up on all tiles.
// In a step (cycles from its first instruction; docs/tile-timing.md: the supervisor has no
// forwarding, so a dependent instruction waits 6 cycles, and a taken branch costs 6):
//   31  put $INCOMING_MUX (the source's tile id); 32 put $INCOMING_DELTA (4 x its position).
//   113 sendoff: the word leaves. Its receiver's mux must select this tile at 113 + ttm + 1, which
//       is 36 to 226 (the mux time is 77 cycles before to 113 after the send over all tile pairs):
//       after this step's put (31) and before the next step's (291). The source's words of the
//       steps before and after, meant for other tiles, meet this receiver's mux by 226 - 260 < 31
//       and from 36 + 260 > 291: outside the step, so the receiver takes only its own word.
//       The word is written 19 to 165 cycles after the send (132..278), after this step's delta
//       put (32) and before the next step's (292).
//   254 brnzdec, taken: the next step starts at 260. After the last step, brnzdec falls through
//       (255) and the final sync comes at 285, after the last write (278).
#include "poplar/TileConstants.hpp"

#define OUT_BUF 0x72000       // the word for position q at OUT_BUF + 4 q
#define IN_BUF  0x74000       // the word from position s at IN_BUF + 4 s
#define STEP_SEND_DELAY 80    // from the delta put's next cycle (33) to the send (113)
#define STEP_TAIL_DELAY 140   // from the send's next cycle (114) to the brnzdec (254)

  .section .text.all_to_all, "ax"
  .globl all_to_all
  .supervisor
all_to_all:
  ld32 $m2, $m0, 0                         // n
  get $m1, $TILE_ID
  add $m4, $m0, 4                          // &ids[0]
  // This tile's ring position p = sum over j of j x (ids[j] == $TILE_ID), without branching on it.
  setzi $m6, 0                             // p
  add $m3, $m2, -1                         // j = n - 1 .. 0
1:
  ld32 $m5, $m4, $mzero, $m3               // ids[j]
  cmpeq $m5, $m5, $m1
  mul $m5, $m5, $m3
  add $m6, $m6, $m5
  brnzdec $m3, 1b
  // The words to send: OUT_BUF[q] = 1000 p + q; and this tile's own, IN_BUF[p] = 1000 p + p.
  mul $m7, $m6, 1000
  setzi $m8, OUT_BUF
  add $m3, $m2, -1
2:
  add $m5, $m7, $m3
  st32 $m5, $m8, $mzero, $m3
  brnzdec $m3, 2b
  setzi $m9, IN_BUF
  add $m5, $m7, $m6
  st32 $m5, $m9, $mzero, $m6
  put $INCOMING_BASE, $m9
  put $OUTGOING_BASE, $m8
  mov $m7, $m6                             // the source position, counted down mod n
  add $m3, $m2, -2                         // n - 1 steps
  sync TEXCH_SYNCZONE_INTERNAL             // the steps start together on every tile

step:
  add $m6, $m6, 1                          // 0: destination position + 1
  add $m7, $m7, -1                         // 1: source position - 1
  cmpeq $m8, $m6, $m2                      // 6: wrapped past n - 1?
  cmpeq $m9, $m7, -1                       // 7: wrapped below 0?
  mul $m8, $m8, $m2                        // 12
  mul $m9, $m9, $m2                        // 13
  sub $m6, $m6, $m8                        // 18: (p + k) mod n
  add $m7, $m7, $m9                        // 19: (p - k) mod n
  ld32 $m8, $m4, $mzero, $m7               // 25: the source's tile id
  shl $m9, $m7, 2                          // 26
  shl $m5, $m6, 2                          // 27: the offset of the word for the destination
  put $INCOMING_MUX, $m8                   // 31
  put $INCOMING_DELTA, $m9                 // 32
  delay STEP_SEND_DELAY                    // 33
  sendoff $m5, 1, 3                        // 113: east and west, whichever reaches the destination
  delay STEP_TAIL_DELAY                    // 114
  brnzdec $m3, step                        // 254; taken: the next step at 260

  delay 30                                 // 255: the last words are written by 278
  sync TEXCH_SYNCZONE_INTERNAL             // 285
  br $lr
