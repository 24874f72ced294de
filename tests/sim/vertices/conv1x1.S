// A 1x1 convolution partial on the AMP: 16 input channels to 8 output channels (f16), one
// worker, positions in sequence, with the partial sums added (asm-dialect §2.6; ipu-facts §3.2).
// The supervisor vertex loads the weights into $CWEI with ld128putcs and starts the worker.
//   supervisor state: weights (interleaved memory, 64 words: $CWEI_n_0..3 per input channel n),
//                     then the worker state: in, partials, out, positions N (N >= 2).
#include "poplar/TileConstants.hpp"

#define ZAACC_BITMASK (CSR_W_FP_CLR__ZAACC__MASK << CSR_W_FP_CLR__ZAACC__SHIFT)

// One AMP phase: four input channels in, the partials of two output channels in, and two
// results of the previous position out (stored when `store` is 1).
// (The flags are C macros, so they are passed in: the preprocessor runs before .macro expansion.)
.macro PHASE flags, store
  ld64step $a0:1, $mzero, $m1+=, 1
  ld32step $a2, $mzero, $m2+=, 1
  f16v4hihoamp $a4, $a0:1, $a2, \flags
  .if \store
  st32step $a4, $mzero, $m3+=, 1
  .endif
.endm
// A phase with no input, to drain the last position's results.
.macro DRAIN flags
  f16v4hihoamp $a4, $azeros, $azero, \flags
  st32step $a4, $mzero, $m3+=, 1
.endm

  .section .text.conv1x1_worker, "ax"
  .globl conv1x1_worker
  .worker
conv1x1_worker:
  ld32 $m1, $mvertex_base, 0
  ld32 $m2, $mvertex_base, 1
  ld32 $m3, $mvertex_base, 2
  ld32 $m4, $mvertex_base, 3
  setzi $a7, ZAACC_BITMASK
  uput $FP_CLR, $a7
  PHASE TAMP_F16V4_E4_P0, 0
  PHASE TAMP_F16V4_E4_P1, 0
  PHASE TAMP_F16V4_E4_P2, 0
  PHASE TAMP_F16V4_E4_P3, 0
  add $m4, $m4, -2                   // brnzdec runs the loop N-1 times
1:
  PHASE TAMP_F16V4_E4_P0, 1
  PHASE TAMP_F16V4_E4_P1, 1
  PHASE TAMP_F16V4_E4_P2, 1
  PHASE TAMP_F16V4_E4_P3, 1
  brnzdec $m4, 1b
  DRAIN TAMP_F16V4_E4_P0
  DRAIN TAMP_F16V4_E4_P1
  DRAIN TAMP_F16V4_E4_P2
  DRAIN TAMP_F16V4_E4_P3
  exitz $mzero

  .section .text.conv1x1, "ax"
  .globl conv1x1
  .supervisor
conv1x1:
  ld32 $m1, $m0, 0
  put $CCCSLOAD, $m1
  ld128putcs 0
  ld128putcs 4
  ld128putcs 8
  ld128putcs 12
  ld128putcs 16
  ld128putcs 20
  ld128putcs 24
  ld128putcs 28
  ld128putcs 32
  ld128putcs 36
  ld128putcs 40
  ld128putcs 44
  ld128putcs 48
  ld128putcs 52
  ld128putcs 56
  ld128putcs 60
  setzi $m2, conv1x1_worker
  add $m3, $m0, 4                    // the worker's state follows the weights pointer
  setzi $m4, TMEM_REGION0_BASE_ADDR
  sub $m3, $m3, $m4                  // run takes its vertex base relative to region 0
  run $m2, $m3, 0
  sync TEXCH_SYNCZONE_LOCAL
  br $lr
