// ipusim's <print.h>: printf in codelets. On the IPU printf is accepted and does nothing (the
// arguments are still evaluated): the simulator has no debug print channel yet. On a host, the
// host's printf.
#ifndef IPUSIM_PRINT_H
#define IPUSIM_PRINT_H
#ifdef __IPU__
#ifdef __cplusplus
extern "C" {
#endif
static inline __attribute__((always_inline, format(printf, 1, 2))) int printf(const char *fmt, ...) {
  (void)fmt;
  return 0;
}
#ifdef __cplusplus
}
#endif
#else
#include <stdio.h>
#endif
#endif // IPUSIM_PRINT_H
