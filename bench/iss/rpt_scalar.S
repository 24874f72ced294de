// iss_bench's rpt loop of scalar work (BM_RptScalar): each of N workers repeats one bundle of an
// integer add and an f32 add. Vertex state: iterations, the f32 increment, N.
#include "poplar/TileConstants.hpp"

  .section .text.rpt_scalar_worker, "ax"
  .globl rpt_scalar_worker
  .align 8
  .worker
rpt_scalar_worker:
  ld32 $m2, $mvertex_base, 0
  ld32 $a1, $mvertex_base, 1
  setzi $m1, 0
  setzi $m3, 0
  { rpt $m2, 0 ; fnop }
  { add $m1, $m1, 1 ; f32add $a0, $a0, $a1 }
  exitz $mzero

  .section .text.rpt_scalar, "ax"
  .globl rpt_scalar
  .supervisor
rpt_scalar:
  ld32 $m2, $m0, 2
  setzi $m1, rpt_scalar_worker
  setzi $m3, 0x24000                     // $m0 = 0x70000, relative to TMEM_REGION0_BASE_ADDR
1:
  run $m1, $m3, 0
  add $m2, $m2, -1
  brnz $m2, 1b
  sync TEXCH_SYNCZONE_LOCAL
  br $lr
