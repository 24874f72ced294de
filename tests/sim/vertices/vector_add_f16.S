// f16 vector add as a MultiVertex (all six workers, started with runall): out = in0 + in1,
// four halves per 64-bit atom, worker w taking atoms w, w+6, ...
// Vertex state: in0, in1, out (8-byte aligned), n (atoms).
#include "poplar/TileConstants.hpp"

  .section .text.VectorAdd_f16, "ax"
  .globl VectorAdd_f16
  .align 8
  .worker
VectorAdd_f16:
  get $m0, $WSR
  and $m0, $m0, CSR_W_WSR__CTXTID_M1__MASK
  ld32 $m1, $mvertex_base, 0
  ld32 $m2, $mvertex_base, 1
  ld32 $m3, $mvertex_base, 2
  ld32 $m4, $mvertex_base, 3
  sub $m4, $m4, $m0                 // atoms of this worker: (n - id + 5) / 6
  add $m4, $m4, CTXT_WORKERS - 1
  setzi $m5, 0xAAAB
  mul $m4, $m4, $m5
  shr $m4, $m4, 18
  shl $m0, $m0, 3
  add $m1, $m1, $m0
  add $m2, $m2, $m0
  add $m3, $m3, $m0
  setzi $m6, CTXT_WORKERS
  { rpt $m4, (2f - 1f) / 8 - 1 ; fnop }
1:
  { ld64step $a0:1, $mzero, $m1+=, $m6 ; fnop }
  { ld64step $a2:3, $mzero, $m2+=, $m6 ; fnop }
  { nop ; f16v4add $a4:5, $a0:1, $a2:3 }
  { st64step $a4:5, $mzero, $m3+=, $m6 ; fnop }
2:
  exitz $mzero
