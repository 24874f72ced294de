// f32 vector add as a MultiVertex: out[i] = in0[i] + in1[i], written in the Colossus dialect.
// A supervisor vertex starts the worker entry on all six contexts with runall and waits with sync.
//
// Vertex state (32-bit words): in0, in1, out (8-byte aligned pointers), n (number of float pairs).
// Worker w handles pairs w, w+6, w+12, ... (the interleaved split of asm-dialect §3.1).
#include "poplar/TileConstants.hpp"
#include "poplar/StackSizeDefs.hpp"

#define VOFF_IN0 0
#define VOFF_IN1 1
#define VOFF_OUT 2
#define VOFF_N   3

// Puts each entry point in its own section, as poplibs does.
.macro ENTRY_POINT name:req, mode:req
  .section .text.\name, "ax"
  .globl \name
  .type \name, @function
  .align 8
  \mode
\name:
.endm

ENTRY_POINT VectorAdd_f32_worker, .worker
  get $m0, $WSR
  and $m0, $m0, CSR_W_WSR__CTXTID_M1__MASK   // worker id, 0..5
  ld32 $m1, $mvertex_base, VOFF_IN0
  ld32 $m2, $mvertex_base, VOFF_IN1
  ld32 $m3, $mvertex_base, VOFF_OUT
  ld32 $m4, $mvertex_base, VOFF_N
  // This worker's pairs: (n - id + 5) / 6, dividing by 6 as x * 0xAAAB >> 18.
  sub $m4, $m4, $m0
  add $m4, $m4, CTXT_WORKERS - 1
  ldconst $m5, 0xAAAB
  mul $m4, $m4, $m5
  shr $m4, $m4, 18
  shl $m0, $m0, 3                            // first pair of this worker, in bytes
  add $m1, $m1, $m0
  add $m2, $m2, $m0
  add $m3, $m3, $m0
  setzi $m6, CTXT_WORKERS                    // stride: six 64-bit atoms
  { rpt $m4, (2f - 1f) / 8 - 1 ; fnop }
1:
  { ld64step $a0:1, $mzero, $m1+=, $m6 ; fnop }
  { ld64step $a2:3, $mzero, $m2+=, $m6 ; fnop }
  { nop ; f32v2add $a4:5, $a0:1, $a2:3 }
  { st64step $a4:5, $mzero, $m3+=, $m6 ; fnop }
2:
  exitz $mzero
.size VectorAdd_f32_worker, . - VectorAdd_f32_worker
DEF_STACK_USAGE 0 VectorAdd_f32_worker

// The supervisor vertex: vertex state pointer in $m0, returns with br $lr (asm-dialect §3.1).
ENTRY_POINT VectorAdd_f32, .supervisor
  setzi $m1, VectorAdd_f32_worker
  runall $m1, $m0, 0
  sync TEXCH_SYNCZONE_LOCAL
  br $lr
.size VectorAdd_f32, . - VectorAdd_f32
