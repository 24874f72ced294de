// ipusim's <string.h> for codelets: memcpy / memmove / memset / memcmp / strlen as inline
// wrappers of clang's builtins (LLVM's memcpy/memset intrinsics, which the backend expands or
// calls). On a host, the host's <string.h>.
#ifndef __IPU__
#include_next <string.h>
#else
#ifndef IPUSIM_STRING_H
#define IPUSIM_STRING_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
static inline __attribute__((always_inline)) void *memcpy(void *__restrict d, const void *__restrict s, size_t n) {
  return __builtin_memcpy(d, s, n);
}
static inline __attribute__((always_inline)) void *memmove(void *d, const void *s, size_t n) {
  return __builtin_memmove(d, s, n);
}
static inline __attribute__((always_inline)) void *memset(void *d, int c, size_t n) {
  return __builtin_memset(d, c, n);
}
static inline int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
  for (size_t i = 0; i != n; ++i)
    if (p[i] != q[i])
      return p[i] < q[i] ? -1 : 1;
  return 0;
}
static inline size_t strlen(const char *s) {
  size_t n = 0;
  while (s[n])
    ++n;
  return n;
}
#ifdef __cplusplus
}
#endif
#endif
#endif
