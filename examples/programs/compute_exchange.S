// A compute-bound BSP program over the IPUs of a system (the MPI scale-out benchmark,
// docs/systems.md "Several processes"): STEPS times, every tile runs a compute phase (a
// dependent chain of COUNT multiply-adds on the supervisor, 6 cycles each: no forwarding) and
// sends its running value to the same tile of the next IPU as a one-word packet, then all IPUs
// meet in an external sync (GS1); the value received joins the next step's chain.
// The vertex state ($m0): the next IPU, COUNT, STEPS, then the seed.
#include "poplar/TileConstants.hpp"

#define PACKET 0x70100        // header, address, the value
#define INBOX 0x70200         // the value from the previous IPU

  .section .text.compute_exchange, "ax"
  .globl compute_exchange
  .supervisor
compute_exchange:
  ld32 $m1, $m0, 0                         // the next IPU
  ld32 $m3, $m0, 2                         // steps
  ld32 $m4, $m0, 3                         // the running value: the seed
  get $m2, $TILE_ID
  shl $m5, $m2, 18                         // header: tile write | tile << 18 | IPU << 8 | 1 word
  shl $m1, $m1, 8
  or $m5, $m5, $m1
  or $m5, $m5, 0x40000000
  setzi $m6, PACKET
  st32 $m5, $m6, 0
  setzi $m5, INBOX
  st32 $m5, $m6, 1
  st32 $mzero, $m5, 0
  put $OUTGOING_BASE, $mzero
  add $m3, $m3, -1
  sync TEXCH_SYNCZONE_INTERNAL
1:
  ld32 $m7, $m0, 1                         // COUNT
  ld32 $m8, $m5, 0                         // what the previous IPU sent
  add $m4, $m4, $m8
2:
  mul $m4, $m4, 5                          // x = 5 x + tile id: a chain no two tiles share
  add $m4, $m4, $m2
  brnzdec $m7, 2b
  st32 $m4, $m6, 2
  sendoff $m6, 3, 0                        // header, address, value: to the external exchange
  sync TEXCH_SYNCZONE_GS1
  brnzdec $m3, 1b
  st32 $m4, $m0, 4                         // the result, after the vertex state
  br $lr
