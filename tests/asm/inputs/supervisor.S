// Supervisor code: a counted loop over vertices with brnzdec, CSR traffic, run with a relative
// vertex base, exchange sends with delays and mux settings, and the sync zones.
#include "poplar/TileConstants.hpp"

  .section .text.dispatch, "ax"
  .globl dispatch
  .supervisor
dispatch:
  get $m9, $TILE_ID
  setzi $m1, worker_a
  setzi $m2, 5                               // six vertices, counted down to zero
  ld32 $m3, $m0, 0                           // first vertex state
.Lnext:
  run $m1, $m3, 0
  add $m3, $m3, 16
  brnzdec $m2, .Lnext
  sync TEXCH_SYNCZONE_LOCAL
  // Exchange phase: receive four words from tile 3 while sending eight to the east.
  sync TEXCH_SYNCZONE_INTERNAL
  setzi $m4, 3
  put $INCOMING_MUX, $m4
  ld32 $m5, $m0, 1
  put $INCOMING_BASE, $m5
  put $INCOMING_DELTA, $mzero
  ld32 $m6, $m0, 2
  put $OUTGOING_BASE, $m6
  send 0, 8, 1
  delay 24
  sendoff $m6, 4, 3
  delaypic 2, 0, 0x18000
  delayxpic 2, 1, 5
  sendpic 4, 2, 0x18040
  sans 0
  sync TEXCH_SYNCZONE_GS1
  get $m7, $SCOUNT_L
  put $FP_ICTL, $mzero
  br $lr

  .section .text.worker_a, "ax"
  .worker
worker_a:
  get $m0, $WSR
  and $m0, $m0, CSR_W_WSR__CTXTID_M1__MASK
  brz $m0, 1f
  urand32 $a0
  f32v2grand $a0:1
  uget $a1, $PRNG_SEED
1:
  exitnz $mzero
