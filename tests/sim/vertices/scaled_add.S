// ScaledAdd on one worker: out = a + scale * b (f32), two floats a step, with the triple-packed
// pointers and pace instructions of poplibs' inner loops (asm-dialect §2.6).
// Vertex state: a, b, out (8-byte aligned), n (float pairs), scale (f32 bits).
  .section .text.ScaledAdd, "ax"
  .globl ScaledAdd
  .align 8
  .worker
ScaledAdd:
  ld32 $m0, $mvertex_base, 0
  ld32 $m1, $mvertex_base, 1
  ld32 $m2, $mvertex_base, 2
  ld32 $m3, $mvertex_base, 3
  ld32 $a6, $mvertex_base, 4
  tapack $m4:5, $m0, $m1, $m2
  { rpt $m3, (2f - 1f) / 8 - 1 ; fnop }
1:
  { ld2x64pace $a0:1, $a2:3, $m4:5+=, $mzero, 0b0000 ; fnop }
  { nop ; f32v2mul $a2:3, $a6:B, $a2:3 }
  { nop ; f32v2add $a4:5, $a0:1, $a2:3 }
  { st64pace $a4:5, $m4:5+=, $mzero, 0b00 ; fnop }
2:
  exitz $mzero
