// ipusim's <stdlib.h> for codelets: abs / labs / llabs / div only. There is no heap (malloc,
// free, new), no exit/abort (a vertex ends by returning from compute()), no strtod etc.
// On a host, the host's <stdlib.h>.
#ifndef __IPU__
#include_next <stdlib.h>
#else
#ifndef IPUSIM_STDLIB_H
#define IPUSIM_STDLIB_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef struct { int quot, rem; } div_t;
static inline int abs(int x) { return x < 0 ? -x : x; }
static inline long labs(long x) { return x < 0 ? -x : x; }
static inline long long llabs(long long x) { return x < 0 ? -x : x; }
static inline div_t div(int a, int b) {
  div_t r;
  r.quot = a / b;
  r.rem = a % b;
  return r;
}
#ifdef __cplusplus
}
#endif
#endif
#endif
