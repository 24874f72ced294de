// The callee in assembly without stack records (no DEF_STACK_USAGE): ipu-ld cannot size the
// caller's stack.
.section .text._ZN5xfile8weightedEPKij, "ax"
.worker
.align 8
.globl _ZN5xfile8weightedEPKij
.type _ZN5xfile8weightedEPKij, @function
_ZN5xfile8weightedEPKij:
  setzi $m0, 7
  br $m10
