// The assembly implementation of ext::Triple (external.cpp): state +0 in (pointer), +4 out.
  .section .text.__runCodelet_ext__Triple, "ax"
  .globl __runCodelet_ext__Triple
  .type __runCodelet_ext__Triple, @function
  .align 8
  .worker
__runCodelet_ext__Triple:
  ld32 $m0, $mvertex_base, $mzero, 0
  ld32 $m1, $mvertex_base, $mzero, 1
  ld32 $m2, $m0, $mzero, 0
  mul $m2, $m2, 3
  st32 $m2, $m1, $mzero, 0
  exitz $mzero
.size __runCodelet_ext__Triple, . - __runCodelet_ext__Triple
