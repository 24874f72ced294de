// Host <-> IPU round trips through the host link and Streaming Memory (docs/systems.md "The
// host"). The tile waits in three host syncs (sync 5: GS1 with the host); the manifest's host
// steps run at them:
//   host sync 1: the host writes N words to IN;
//   the tile turns each x into 2 x + 1;
//   host sync 2: the host reads them back, and they are copied to a remote buffer;
//   host sync 3: the remote buffer is copied back to the tile at OUT.
// The vertex state ($m0): N.
#include "poplar/TileConstants.hpp"

#define IN 0x71000
#define OUT 0x72000

  .section .text.host_round_trip, "ax"
  .globl host_round_trip
  .supervisor
host_round_trip:
  ld32 $m2, $m0, 0                         // N
  setzi $m1, IN
  add $m2, $m2, -1
  sync TEXCH_SYNCZONE_GS1_HOST             // host sync 1
1:
  ld32 $m3, $m1, $mzero, $m2
  shl $m3, $m3, 1
  add $m3, $m3, 1
  st32 $m3, $m1, $mzero, $m2
  brnzdec $m2, 1b
  sync TEXCH_SYNCZONE_GS1_HOST             // host sync 2
  sync TEXCH_SYNCZONE_GS1_HOST             // host sync 3
  br $lr
