// Sum of 2n floats on one worker: two running sums in an f32v2 accumulator, then their sum.
// Vertex state: in (8-byte aligned), n (pairs), then the result.
  .section .text.ReduceAdd, "ax"
  .globl ReduceAdd
  .align 8
  .worker
ReduceAdd:
  ld32 $m0, $mvertex_base, 0
  ld32 $m1, $mvertex_base, 1
  zero $a2:3
  nop
  { rpt $m1, (2f - 1f) / 8 - 1 ; fnop }
1:
  { ld64step $a0:1, $mzero, $m0+=, 1 ; fnop }
  { nop ; f32v2add $a2:3, $a2:3, $a0:1 }
2:
  f32add $a2, $a2, $a3
  st32 $a2, $mvertex_base, 2
  exitz $mzero
