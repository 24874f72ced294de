// Macro-heavy code in the poplibs manner: one macro instantiated per type with .ifc dispatch,
// \@ labels, \() concatenation, defaults, nested macros, .rept and .equ arithmetic.
#include "poplar/TileConstants.hpp"

.equ ATOM_BYTES, 8
.equ UNROLL, 2

.macro FN_WORKER name
  .section .text.\name, "ax"
  .globl \name
  .type \name, @function
  .align 8
  .worker
\name:
.endm

.macro ADD_PAIR type, dst, a, b
.ifc \type, float
  f32v2add \dst, \a, \b
.else
  f16v4add \dst, \a, \b
.endif
.endm

.macro SCALE_KERNEL type, stride=1
FN_WORKER scale_\type\()_kernel
  ld32 $m0, $mvertex_base, 0
  ld32 $m1, $mvertex_base, 1
  ld32 $m2, $mvertex_base, 2
  mov $m3, $m0
  { rpt $m2, (.Lend\@ - .Lstart\@) / ATOM_BYTES - 1 ; fnop }
.Lstart\@:
  .rept UNROLL
  { ld64step $a0:1, $mzero, $m0+=, \stride ; fnop }
  { nop ; ADD_PAIR \type, $a2:3, $a0:1, $a2:3 }
  .endr
  { st64step $a2:3, $mzero, $m1+=, \stride ; fnop }
.Lend\@:
  exitz $mzero
  .size scale_\type\()_kernel, . - scale_\type\()_kernel
.endm

SCALE_KERNEL float
SCALE_KERNEL half, stride=CTXT_WORKERS
