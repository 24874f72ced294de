// An AMP 1x1 convolution partial in the style of poplibs' conv_partial_1x1 worker (asm-dialect
// §2.6): triple-packed pointers, ld2xst64pace feeding f16v4hihoamp in a rpt loop, and a
// supervisor that loads the weights into $CWEI with ld128putcs and starts six workers.
#include "poplar/TileConstants.hpp"
#include "poplar/StackSizeDefs.hpp"

#define WKR_IN_PTR        0
#define WKR_PARTIALS_PTR  1
#define WKR_OUT_PTR       2
#define WKR_COUNT         3
#define ZAACC_BITMASK (CSR_W_FP_CLR__ZAACC__MASK << CSR_W_FP_CLR__ZAACC__SHIFT)

  .section .text.conv1x1_worker, FUNCTION_IS_WORKER
  .globl conv1x1_worker
  .type conv1x1_worker, @function
  .align 8
  .worker
conv1x1_worker:
  ld32 $m0, $mvertex_base, WKR_IN_PTR
  ld32 $m1, $mvertex_base, WKR_PARTIALS_PTR
  ld32 $m2, $mvertex_base, WKR_OUT_PTR
  ld32 $m3, $mvertex_base, WKR_COUNT
  tapack $m4:5, $m0, $m1, $m2
  zero $m6                                   // all strides select the 64-bit atom
  setzi $a0, ZAACC_BITMASK
  uput $FP_CLR, $a0
  // Fill the AMP pipeline: four phases of zero input (ipu-facts §3.2).
  { ld2x64pace $a0:1, $a2:3, $m4:5+=, $m6, 0b0000 ; f16v4hihoamp $a6, $azeros, $azero, TAMP_F16V4_E4_P0 }
  { nop ; f16v4hihoamp $a6, $azeros, $azero, TAMP_F16V4_E4_P1 }
  { nop ; f16v4hihoamp $a6, $azeros, $azero, TAMP_F16V4_E4_P2 }
  { rpt $m3, (2f - 1f) / 8 - 1 ; f16v4hihoamp $a6, $azeros, $azero, TAMP_F16V4_E4_P3 }
1:
  { ld2xst64pace $a0:3, $a4:5, $m4:5+=, $m6, 0b000000 ; f16v4hihoamp $a4, $a0:1, $a2, TAMP_F16V4_E4_P0 }
  { nop ; f16v4hihoamp $a5, $a0:1, $a3, TAMP_F16V4_E4_P1 }
  { ldst64pace $a0:1, $a4:5, $m4:5+=, $m6, 0b0101 ; f16v4hihoamp $a4, $a0:1, $a2, TAMP_F16V4_E4_P2 }
  { st64pace $a4:5, $m4:5+=, $m6, 0b00 ; f16v4hihoamp $a5, $a0:1, $a3, TAMP_F16V4_E4_P3 }
2:
  f16v4stacc $a6:7, TSTACC_P0
  f32v2gina $a6:7, $azeros, 0
  exitz $mzero
  .size conv1x1_worker, . - conv1x1_worker
DEF_STACK_USAGE 0 conv1x1_worker

  .section .text.conv1x1_supervisor, "ax"
  .globl conv1x1_supervisor
  .type conv1x1_supervisor, @function
  .align 4
  .supervisor
conv1x1_supervisor:
  ld32 $m1, $m0, 0                           // weights
  put $CCCSLOAD, $m1
  ld128putcs $CWEI_0_0
  ld128putcs $CWEI_0_2
  ld128putcs $CWEI_1_0
  ld128putcs $CWEI_1_2
  ld64putcs 16
  ld64putcs 17
  add $sp, $sp, -16                          // worker state on the supervisor stack
  ld32 $m2, $m0, 1
  st32 $m2, $sp, WKR_IN_PTR
  ld32 $m2, $m0, 2
  st32 $m2, $sp, WKR_PARTIALS_PTR
  ld32 $m2, $m0, 3
  st32 $m2, $sp, WKR_OUT_PTR
  ld32 $m2, $m0, 4
  st32 $m2, $sp, WKR_COUNT
  setzi $m3, conv1x1_worker
  runall $m3, $sp, 0
  sync TEXCH_SYNCZONE_LOCAL
  add $sp, $sp, 16
  br $lr
  .size conv1x1_supervisor, . - conv1x1_supervisor
