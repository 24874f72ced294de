// ipusim's <assert.h> for codelets. On the IPU, assert(e) expands to nothing (the argument is not
// evaluated) unless IPUSIM_DEVICE_ASSERT is defined; then a failed assertion executes the worker
// `trap 0` instruction, which stops the simulation with an exception. The simulator has no
// message channel, so the text of the condition is not reported. NDEBUG always disables it.
// On a host, the host's <assert.h> is used.
// (No include guard: like the standard header, it may be re-included after changing NDEBUG.)
#ifndef __IPU__
#include_next <assert.h>
#else
#undef assert
#if defined(NDEBUG) || !defined(IPUSIM_DEVICE_ASSERT)
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __builtin_trap())
#endif
#ifndef __cplusplus
#define static_assert _Static_assert
#endif
#endif
