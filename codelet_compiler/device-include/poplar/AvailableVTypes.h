// ipusim's stand-in for <poplar/AvailableVTypes.h> (not public): the compressed vector layouts the
// target supports. Mk2 supports all of them (asm-dialect §3.2).
#ifndef IPUSIM_POPLAR_AVAILABLE_VTYPES_H
#define IPUSIM_POPLAR_AVAILABLE_VTYPES_H
#define VECTOR_AVAIL_SCALED_PTR32 1
#define VECTOR_AVAIL_SCALED_PTR64 1
#define VECTOR_AVAIL_SCALED_PTR128 1
#define VECTOR_AVAIL_SHORT_SPAN 1
#define VECTORLIST_AVAIL_DELTAN 1
#endif
