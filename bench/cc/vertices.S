// The hand-written side of the compiled-vs-assembly comparison: the four vertices of
// bench/cc/vertices.cpp, with the same vertex-state layouts (`ipu-cc --print-vertex-layout`) and
// the same arithmetic, written for one worker the way poplibs writes its inner loops: triple-packed
// pointers and one ld2xst64pace per 64-bit atom (two loads and a store in one issue), software
// pipelined so the FP op of the previous atom shares the bundle, then the odd tail.
//
// The pace instructions make three accesses in one issue: they cost one more turn when two of them
// hit one 16 KiB memory element (docs/tile-timing.md). Poplibs chooses a slower path then; these
// vertices assume a, b and out in different elements, which the test and the benchmark arrange.
//
// Every instruction is written as a bundle, so every bundle and rpt body stays 8-byte aligned;
// a bundle and a lone instruction take one issue each. Counts of issued bundles, with n the number
// of elements, are derived in tests/cc_bench/compiled_vs_asm_test.cpp.

// ---------------------------------------------------------------------------------------------
// VectorAddF32: +0 a.ptr, +4 a.size (SPAN), +8 b (ONE_PTR), +12 out (ONE_PTR); out[i] = a[i] + b[i].
// The pipelined part takes 2 * (n / 4) atoms (at least two), the tail the rest: an atom if n & 2,
// a float if n & 1.
  .section .text.VectorAddF32_asm, "ax"
  .globl VectorAddF32_asm
  .type VectorAddF32_asm, @function
  .align 8
  .worker
VectorAddF32_asm:
  { ld32 $m0, $mvertex_base, $mzero, 0 ; fnop }       // a
  { ld32 $m3, $mvertex_base, $mzero, 1 ; fnop }       // n
  { ld32 $m1, $mvertex_base, $mzero, 2 ; fnop }       // b
  { ld32 $m2, $mvertex_base, $mzero, 3 ; fnop }       // out
  { shr $m4, $m3, 2 ; fnop }                          // pairs of atoms
  { brz $m4, .Lf32_tail ; fnop }
  { tapack $m6:7, $m0, $m1, $m2 ; fnop }
  { shl $m4, $m4, 1 ; fnop }                          // atoms M >= 2
  { add $m4, $m4, -2 ; fnop }
  { ld2x64pace $a0:1, $a2:3, $m6:7+=, $mzero, 0b0000 ; fnop }                  // load 0
  { ld2x64pace $a0:1, $a2:3, $m6:7+=, $mzero, 0b0000 ; f32v2add $a4:5, $a0:1, $a2:3 } // load 1, add 0
  { rpt $m4, (2f - 1f) / 8 - 1 ; fnop }
1:
  // load atom i, add atom i-1, store atom i-2 (the store reads $a4:5 before the add writes it)
  { ld2xst64pace $a0:3, $a4:5, $m6:7+=, $mzero, 0b000000 ; f32v2add $a4:5, $a0:1, $a2:3 }
2:
  { st64pace $a4:5, $m6:7+=, $mzero, 0b00 ; f32v2add $a4:5, $a0:1, $a2:3 }   // store M-2, add M-1
  { st64pace $a4:5, $m6:7+=, $mzero, 0b00 ; fnop }                           // store M-1
  { and $m5, $m3, 3 ; fnop }
  { brz $m5, .Lf32_exit ; fnop }
  { andc $m5, $m3, 3 ; fnop }                          // the tail's pointers: + 4 (n & ~3) bytes
  { shl $m5, $m5, 2 ; fnop }
  { add $m0, $m0, $m5 ; fnop }
  { add $m1, $m1, $m5 ; fnop }
  { add $m2, $m2, $m5 ; fnop }
.Lf32_tail:
  { and $m5, $m3, 2 ; fnop }
  { brz $m5, 3f ; fnop }
  { ld64step $a0:1, $mzero, $m0+=, 1 ; fnop }
  { ld64step $a2:3, $mzero, $m1+=, 1 ; fnop }
  { and $m5, $m3, 1 ; f32v2add $a0:1, $a0:1, $a2:3 }
  { st64step $a0:1, $mzero, $m2+=, 1 ; fnop }
  { brz $m5, .Lf32_exit ; fnop }
  { bri 4f ; fnop }
3:
  { and $m5, $m3, 1 ; fnop }
  { brz $m5, .Lf32_exit ; fnop }
4:
  { ld32 $a0, $m0, $mzero, 0 ; fnop }
  { ld32 $a1, $m1, $mzero, 0 ; fnop }
  { nop ; f32add $a0, $a0, $a1 }
  { st32 $a0, $m2, $mzero, 0 ; fnop }
.Lf32_exit:
  { exitz $mzero ; fnop }
.size VectorAddF32_asm, . - VectorAddF32_asm

// ---------------------------------------------------------------------------------------------
// VectorAddF16: the same layout with halves, four per atom. Pipelined part: 2 * (n / 8) atoms;
// tail: an atom if n & 4, a pair if n & 2, a half if n & 1 (read-modify-write of its 32-bit word,
// which is 4-byte aligned since n - 1 is even).
  .section .text.VectorAddF16_asm, "ax"
  .globl VectorAddF16_asm
  .type VectorAddF16_asm, @function
  .align 8
  .worker
VectorAddF16_asm:
  { ld32 $m0, $mvertex_base, $mzero, 0 ; fnop }
  { ld32 $m3, $mvertex_base, $mzero, 1 ; fnop }
  { ld32 $m1, $mvertex_base, $mzero, 2 ; fnop }
  { ld32 $m2, $mvertex_base, $mzero, 3 ; fnop }
  { shr $m4, $m3, 3 ; fnop }
  { brz $m4, .Lf16_tail ; fnop }
  { tapack $m6:7, $m0, $m1, $m2 ; fnop }
  { shl $m4, $m4, 1 ; fnop }
  { add $m4, $m4, -2 ; fnop }
  { ld2x64pace $a0:1, $a2:3, $m6:7+=, $mzero, 0b0000 ; fnop }
  { ld2x64pace $a0:1, $a2:3, $m6:7+=, $mzero, 0b0000 ; f16v4add $a4:5, $a0:1, $a2:3 }
  { rpt $m4, (2f - 1f) / 8 - 1 ; fnop }
1:
  { ld2xst64pace $a0:3, $a4:5, $m6:7+=, $mzero, 0b000000 ; f16v4add $a4:5, $a0:1, $a2:3 }
2:
  { st64pace $a4:5, $m6:7+=, $mzero, 0b00 ; f16v4add $a4:5, $a0:1, $a2:3 }
  { st64pace $a4:5, $m6:7+=, $mzero, 0b00 ; fnop }
  { and $m5, $m3, 7 ; fnop }
  { brz $m5, .Lf16_exit ; fnop }
  { andc $m5, $m3, 7 ; fnop }                          // + 2 (n & ~7) bytes
  { shl $m5, $m5, 1 ; fnop }
  { add $m0, $m0, $m5 ; fnop }
  { add $m1, $m1, $m5 ; fnop }
  { add $m2, $m2, $m5 ; fnop }
.Lf16_tail:
  { and $m5, $m3, 4 ; fnop }
  { brz $m5, 3f ; fnop }
  { ld64step $a0:1, $mzero, $m0+=, 1 ; fnop }
  { ld64step $a2:3, $mzero, $m1+=, 1 ; fnop }
  { and $m5, $m3, 2 ; f16v4add $a0:1, $a0:1, $a2:3 }
  { st64step $a0:1, $mzero, $m2+=, 1 ; fnop }
  { bri 5f ; fnop }
3:
  { and $m5, $m3, 2 ; fnop }
5:
  { brz $m5, 6f ; fnop }
  { ld32step $a0, $mzero, $m0+=, 1 ; fnop }
  { ld32step $a1, $mzero, $m1+=, 1 ; fnop }
  { and $m5, $m3, 1 ; f16v2add $a0, $a0, $a1 }
  { st32step $a0, $mzero, $m2+=, 1 ; fnop }
  { bri 7f ; fnop }
6:
  { and $m5, $m3, 1 ; fnop }
7:
  { brz $m5, .Lf16_exit ; fnop }
  { ldb16 $a0, $m0, $mzero, 0 ; fnop }                 // a[n-1] in both halves
  { ldb16 $a1, $m1, $mzero, 0 ; fnop }
  { ld32 $a2, $m2, $mzero, 0 ; f16v2add $a0, $a0, $a1 } // the word holding out[n-1]
  { nop ; sort4x16hi $a0, $a0, $a2 }                   // low: the sum; high: kept
  { st32 $a0, $m2, $mzero, 0 ; fnop }
.Lf16_exit:
  { exitz $mzero ; fnop }
.size VectorAddF16_asm, . - VectorAddF16_asm

// ---------------------------------------------------------------------------------------------
// SumF32: +0 a.ptr, +4 a.size (SPAN), +8 result (pointer); *result = ((0 + a[0]) + a[1]) + ...
// One f32add per element in program order (the aux pipe is the limit: one add per bundle), the
// elements loaded two at a time; the load of pair k shares a bundle with the add of a[2k-1].
  .section .text.SumF32_asm, "ax"
  .globl SumF32_asm
  .type SumF32_asm, @function
  .align 8
  .worker
SumF32_asm:
  { ld32 $m0, $mvertex_base, $mzero, 0 ; fnop }        // a
  { ld32 $m1, $mvertex_base, $mzero, 1 ; fnop }        // n
  { ld32 $m3, $mvertex_base, $mzero, 2 ; fnop }        // result
  { shr $m2, $m1, 1 ; mov $a4, $azero }                // pairs P; s = +0
  { and $m1, $m1, 1 ; fnop }
  { brz $m2, .Lsum_odd ; fnop }
  { add $m2, $m2, -1 ; fnop }
  { ld64step $a0:1, $mzero, $m0+=, 1 ; fnop }          // pair 0
  { rpt $m2, (2f - 1f) / 8 - 1 ; f32add $a4, $a4, $a0 }  // s += a[0] (once, beside the rpt)
1:
  { ld64step $a0:1, $mzero, $m0+=, 1 ; f32add $a4, $a4, $a1 } // s += a[2k-1]; load pair k
  { nop ; f32add $a4, $a4, $a0 }                              // s += a[2k]
2:
  { brz $m1, .Lsum_store ; f32add $a4, $a4, $a1 }      // s += a[2P-1]
.Lsum_last:
  { ld32 $a0, $m0, $mzero, 0 ; fnop }
  { nop ; f32add $a4, $a4, $a0 }                        // s += a[n-1]
.Lsum_store:
  { st32 $a4, $m3, $mzero, 0 ; fnop }
  { exitz $mzero ; fnop }
.Lsum_odd:                                              // n < 2
  { brz $m1, .Lsum_store ; fnop }
  { bri .Lsum_last ; fnop }
.size SumF32_asm, . - SumF32_asm

// ---------------------------------------------------------------------------------------------
// ScaledAddF16: +0 a.ptr, +4 a.size (SPAN), +8 b, +12 out (ONE_PTR), +16 k (half, inline);
// out[i] = a[i] + k * b[i] in f16: the product rounded to half, then the sum (as the C++ is
// compiled: f16v4mul then f16v4add). Two aux ops per atom, so two bundles per atom:
//   B1: load atom i, add atom i-1, store atom i-2;  B2: multiply atom i (in place: b's registers).
// Eight ARF registers: a in $a0:1, b and the product in $a2:3, k in $a4:5, the sum in $a6:7.
// Pipelined part: 2 * (n / 8) atoms; tail as in VectorAddF16.
  .section .text.ScaledAddF16_asm, "ax"
  .globl ScaledAddF16_asm
  .type ScaledAddF16_asm, @function
  .align 8
  .worker
ScaledAddF16_asm:
  { ld32 $m0, $mvertex_base, $mzero, 0 ; fnop }
  { ld32 $m3, $mvertex_base, $mzero, 1 ; fnop }
  { ld32 $m1, $mvertex_base, $mzero, 2 ; fnop }
  { ld32 $m2, $mvertex_base, $mzero, 3 ; fnop }
  { ldb16 $a4, $mvertex_base, $mzero, 8 ; fnop }      // k in both halves
  { shr $m4, $m3, 3 ; mov $a5, $a4 }                 // k in all four
  { brz $m4, .Lsa_tail ; fnop }
  { tapack $m6:7, $m0, $m1, $m2 ; fnop }
  { ld2x64pace $a0:1, $a2:3, $m6:7+=, $mzero, 0b0000 ; fnop }                     // load 0
  { shl $m4, $m4, 1 ; f16v4mul $a2:3, $a4:5, $a2:3 }                            // mul 0
  { ld2x64pace $a0:1, $a2:3, $m6:7+=, $mzero, 0b0000 ; f16v4add $a6:7, $a0:1, $a2:3 } // load 1, add 0
  { add $m4, $m4, -2 ; f16v4mul $a2:3, $a4:5, $a2:3 }                           // mul 1
  { rpt $m4, (2f - 1f) / 8 - 1 ; fnop }
1:
  { ld2xst64pace $a0:3, $a6:7, $m6:7+=, $mzero, 0b000000 ; f16v4add $a6:7, $a0:1, $a2:3 }
  { nop ; f16v4mul $a2:3, $a4:5, $a2:3 }
2:
  { st64pace $a6:7, $m6:7+=, $mzero, 0b00 ; f16v4add $a6:7, $a0:1, $a2:3 }
  { st64pace $a6:7, $m6:7+=, $mzero, 0b00 ; fnop }
  { and $m5, $m3, 7 ; fnop }
  { brz $m5, .Lsa_exit ; fnop }
  { andc $m5, $m3, 7 ; fnop }
  { shl $m5, $m5, 1 ; fnop }
  { add $m0, $m0, $m5 ; fnop }
  { add $m1, $m1, $m5 ; fnop }
  { add $m2, $m2, $m5 ; fnop }
.Lsa_tail:
  { and $m5, $m3, 4 ; fnop }
  { brz $m5, 3f ; fnop }
  { ld64step $a0:1, $mzero, $m0+=, 1 ; fnop }
  { ld64step $a2:3, $mzero, $m1+=, 1 ; fnop }
  { and $m5, $m3, 2 ; f16v4mul $a2:3, $a4:5, $a2:3 }
  { nop ; f16v4add $a0:1, $a0:1, $a2:3 }
  { st64step $a0:1, $mzero, $m2+=, 1 ; fnop }
  { bri 5f ; fnop }
3:
  { and $m5, $m3, 2 ; fnop }
5:
  { brz $m5, 6f ; fnop }
  { ld32step $a0, $mzero, $m0+=, 1 ; fnop }
  { ld32step $a1, $mzero, $m1+=, 1 ; fnop }
  { and $m5, $m3, 1 ; f16v2mul $a1, $a4, $a1 }
  { nop ; f16v2add $a0, $a0, $a1 }
  { st32step $a0, $mzero, $m2+=, 1 ; fnop }
  { bri 7f ; fnop }
6:
  { and $m5, $m3, 1 ; fnop }
7:
  { brz $m5, .Lsa_exit ; fnop }
  { ldb16 $a0, $m0, $mzero, 0 ; fnop }
  { ldb16 $a1, $m1, $mzero, 0 ; fnop }
  { ld32 $a2, $m2, $mzero, 0 ; f16v2mul $a1, $a4, $a1 }
  { nop ; f16v2add $a0, $a0, $a1 }
  { nop ; sort4x16hi $a0, $a0, $a2 }
  { st32 $a0, $m2, $mzero, 0 ; fnop }
.Lsa_exit:
  { exitz $mzero ; fnop }
.size ScaledAddF16_asm, . - ScaledAddF16_asm
