// Device iterations (docs/systems.md "The host"): the tile runs N iterations of a loop with two
// host syncs each, and the manifest's host steps repeat with them ('every = 2'): the host streams
// the next W words of its input file to IN, the tile turns each x into 2 x + 1 at OUT, and the
// host appends OUT to its output file and stashes it in the next W words of a remote buffer. A
// last host sync brings the whole stash back to the tile.
//   host sync 2k + 1: iteration k's input;  host sync 2k + 2: its output;  host sync 2N + 1: the stash.
// The vertex state ($m0): N, W.
#include "poplar/TileConstants.hpp"

#define IN 0x71000
#define OUT 0x72000

  .section .text.device_iterations, "ax"
  .globl device_iterations
  .supervisor
device_iterations:
  ld32 $m4, $m0, 0                         // N
  ld32 $m5, $m0, 1                         // W
  setzi $m1, IN
  setzi $m6, OUT
  add $m4, $m4, -1
2:
  sync TEXCH_SYNCZONE_GS1_HOST             // the host writes the iteration's input
  add $m2, $m5, -1
1:
  ld32 $m3, $m1, $mzero, $m2
  shl $m3, $m3, 1
  add $m3, $m3, 1
  st32 $m3, $m6, $mzero, $m2
  brnzdec $m2, 1b
  sync TEXCH_SYNCZONE_GS1_HOST             // the host reads the output
  brnzdec $m4, 2b
  sync TEXCH_SYNCZONE_GS1_HOST             // the stash comes back
  br $lr
