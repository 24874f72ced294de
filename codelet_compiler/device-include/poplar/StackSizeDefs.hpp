// ipusim's stand-in for <poplar/StackSizeDefs.hpp> (not public).
// In assembly, DEF_STACK_USAGE / DEF_STACK_SIZE_OWN record a function's stack needs as global
// absolute symbols NAME.stack_usage / NAME.stack_size_own, which the graph compiler reads.
#ifndef IPUSIM_POPLAR_STACK_SIZE_DEFS_HPP
#define IPUSIM_POPLAR_STACK_SIZE_DEFS_HPP

// Section flags of a worker entry point: `.section .text.NAME, FUNCTION_IS_WORKER`.
#define FUNCTION_IS_WORKER "ax"

#ifdef __ASSEMBLER__
.macro DEF_STACK_USAGE size:req, name:req
  .globl \name\().stack_usage
  .set \name\().stack_usage, \size
.endm
.macro DEF_STACK_SIZE_OWN size:req, name:req
  .globl \name\().stack_size_own
  .set \name\().stack_size_own, \size
.endm
#endif

#endif
