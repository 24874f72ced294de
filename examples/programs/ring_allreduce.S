// Ring all-reduce over the IPUs of a system (docs/systems.md): every IPU's tile t holds P chunks of
// CHUNK 32-bit integers at DATA; afterwards every one holds the element-wise sum over the IPUs.
// The IPUs stand in a ring (the topology's ring-on-line for an M2000); each step sends one chunk
// to the same tile of the next IPU as an inter-IPU packet (a header, the destination address and
// the payload, sent with no exchange direction), and every IPU then meets the others in an
// external sync (GS1), which completes once the packets have landed.
//   reduce-scatter, steps s = 0 .. P-2: send chunk (p - s) mod P to the next IPU's RECV, then add
//     RECV into chunk (p - s - 1) mod P; after it, position p holds chunk (p + 1) mod P reduced.
//   all-gather, steps s = 0 .. P-2: send chunk (p + 1 - s) mod P straight to the same chunk of the
//     next IPU (packets carry their address, so no copy is needed).
// The vertex state ($m0): P (a power of two), this IPU's ring position p, the next IPU's id.
// Registers: $m0-$m9 only ($m10 is the link register).
#include "poplar/TileConstants.hpp"

#define CHUNK 16              // words per chunk (one send carries at most 64)
#define DATA 0x71000          // P chunks
#define RECV 0x72000          // one chunk from the previous IPU
#define HEADER 0x70100        // the packet's two header words
#define TILE_WRITE 0x40000000 // header format 2 (tile write) in bits 31-29

  .section .text.ring_allreduce, "ax"
  .globl ring_allreduce
  .supervisor
ring_allreduce:
  ld32 $m1, $m0, 0                         // P
  ld32 $m2, $m0, 1                         // p
  ld32 $m3, $m0, 2                         // the next IPU
  add $m1, $m1, -1                         // P - 1: the mask for mod P, and the step count
  // header word 0: format | destination tile (this tile's id) << 18 | IPU << 8 | CHUNK - 1
  get $m4, $TILE_ID
  shl $m4, $m4, 18
  shl $m3, $m3, 8
  or $m4, $m4, $m3
  or $m4, $m4, CHUNK - 1
  or $m4, $m4, TILE_WRITE
  setzi $m5, HEADER
  st32 $m4, $m5, 0
  put $OUTGOING_BASE, $mzero
  setzi $m0, DATA                          // the state is read: $m0 is free
  sync TEXCH_SYNCZONE_INTERNAL             // this IPU's tiles start together

  // Reduce-scatter.
  add $m6, $m1, -1                         // P - 1 steps, counted down by brnzdec
  mov $m7, $m2                             // the chunk to send: p - s
1:
  setzi $m3, RECV
  st32 $m3, $m5, 1                         // header word 1: the destination address
  sendoff $m5, 2, 0                        // the header, to the external exchange
  and $m7, $m7, $m1
  mul $m8, $m7, 4 * CHUNK
  add $m8, $m8, $m0
  sendoff $m8, CHUNK, 0                    // the payload
  sync TEXCH_SYNCZONE_GS1                  // completes once every IPU's packets have landed
  add $m7, $m7, -1                         // the chunk that arrived: p - s - 1
  and $m7, $m7, $m1
  mul $m8, $m7, 4 * CHUNK
  add $m8, $m8, $m0
  setzi $m9, CHUNK - 1
2:
  ld32 $m2, $m8, $mzero, $m9
  ld32 $m4, $m3, $mzero, $m9
  add $m2, $m2, $m4
  st32 $m2, $m8, $mzero, $m9
  brnzdec $m9, 2b
  brnzdec $m6, 1b

  // All-gather: the last chunk added, p - (P - 1) = p + 1 mod P, is complete here; pass it on,
  // then the one that arrives.
  add $m6, $m1, -1
3:
  and $m7, $m7, $m1
  mul $m8, $m7, 4 * CHUNK
  add $m8, $m8, $m0
  st32 $m8, $m5, 1                         // the same chunk of the next IPU
  sendoff $m5, 2, 0
  sendoff $m8, CHUNK, 0
  sync TEXCH_SYNCZONE_GS1
  add $m7, $m7, -1
  brnzdec $m6, 3b
  br $lr
