// A 1x1 convolution partial on the AMP: 16 input channels to 8 output channels (f16), one
// worker, positions in sequence, with the partial sums added (ipu-facts §3.2; the AMP model of
// docs/tile-timing.md). The supervisor vertex loads the weights into $CWEI with ld128putcs and
// starts the worker.
//   supervisor state: weights (interleaved memory, 32 entries of 64 bits: entry 4k+p holds the
//                     weights of output k for input channels 4p..4p+3), then the worker state:
//                     in, partials, out, positions N (N >= 3).
// The AMP takes each position's partials one set before its inputs and returns its results one
// set after, so set r (four issues) feeds the partials of position r, the inputs of position
// r-1, and stores the results of position r-2.
#include "poplar/TileConstants.hpp"

#define ZAACC_BITMASK (CSR_W_FP_CLR__ZAACC__MASK << CSR_W_FP_CLR__ZAACC__SHIFT)

// One AMP issue. (The flags are C macros, so they are passed in: the preprocessor runs before
// .macro expansion.)
.macro PHASE flags, input, partials, store
  .if \input
  ld64step $a0:1, $mzero, $m1+=, 1
  .endif
  .if \partials
  ld32step $a2, $mzero, $m2+=, 1
  .endif
  .if \input && \partials
  f16v4hihoamp $a4, $a0:1, $a2, \flags
  .elseif \input
  f16v4hihoamp $a4, $a0:1, $azero, \flags
  .elseif \partials
  f16v4hihoamp $a4, $azeros, $a2, \flags
  .else
  f16v4hihoamp $a4, $azeros, $azero, \flags
  .endif
  .if \store
  st32step $a4, $mzero, $m3+=, 1
  .endif
.endm
.macro SET input, partials, store
  PHASE TAMP_F16V4_E4_P0, \input, \partials, \store
  PHASE TAMP_F16V4_E4_P1, \input, \partials, \store
  PHASE TAMP_F16V4_E4_P2, \input, \partials, \store
  PHASE TAMP_F16V4_E4_P3, \input, \partials, \store
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
  SET 0, 1, 0                        // warm-up: partials of position 0
  SET 1, 1, 0                        // inputs 0, partials 1
  add $m4, $m4, -3                   // brnzdec runs the loop N-2 times
1:
  SET 1, 1, 1                        // inputs r-1, partials r, results r-2
  brnzdec $m4, 1b
  SET 1, 0, 1                        // inputs N-1, results N-2
  SET 0, 0, 1                        // results N-1
  exitz $mzero

  .section .text.conv1x1, "ax"
  .globl conv1x1
  .supervisor
conv1x1:
  ld32 $m1, $m0, 0
  put $CCCSLOAD, $m1
  ld128putcs 0                       // each writes two 64-bit $CWEI entries
  ld128putcs 2
  ld128putcs 4
  ld128putcs 6
  ld128putcs 8
  ld128putcs 10
  ld128putcs 12
  ld128putcs 14
  ld128putcs 16
  ld128putcs 18
  ld128putcs 20
  ld128putcs 22
  ld128putcs 24
  ld128putcs 26
  ld128putcs 28
  ld128putcs 30
  setzi $m2, conv1x1_worker
  add $m3, $m0, 4                    // the worker's state follows the weights pointer
  setzi $m4, TMEM_REGION0_BASE_ADDR
  sub $m3, $m3, $m4                  // run takes its vertex base relative to region 0
  run $m2, $m3, 0
  sync TEXCH_SYNCZONE_LOCAL
  br $lr
