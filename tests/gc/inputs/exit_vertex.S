// ExitVertex: ends at once (one issue).
#include "poplar/StackSizeDefs.hpp"
  .section .text.__runCodelet_ExitVertex, FUNCTION_IS_WORKER
  .globl __runCodelet_ExitVertex
  .type __runCodelet_ExitVertex, @function
  .worker
  .align 8
__runCodelet_ExitVertex:
  exitz $mzero
  .size __runCodelet_ExitVertex, . - __runCodelet_ExitVertex
