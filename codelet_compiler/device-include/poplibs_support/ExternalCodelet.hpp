// ipusim's stand-in for poplibs' "poplibs_support/ExternalCodelet.hpp" (a poplibs header, supplied
// here so poplibs codelets compile unchanged).
//
// IS_EXTERNAL_CODELET(pred) declares `static const bool isExternalCodelet = pred;` in a vertex
// class. When it is true on the IPU target the vertex has an assembly implementation: ipu-cc
// records the vertex as external and links the `__runCodelet_...` symbol of the assembly instead
// of compiling compute(). Defining POPLIBS_DISABLE_ASM_CODELETS (poplibs' "ipu2:cpp" variant) or
// compiling for a host makes every vertex a C++ vertex.
#ifndef IPUSIM_POPLIBS_SUPPORT_EXTERNAL_CODELET_HPP
#define IPUSIM_POPLIBS_SUPPORT_EXTERNAL_CODELET_HPP

#if defined(POPLIBS_DISABLE_ASM_CODELETS)
#define ASM_CODELETS_ENABLED false
#else
#define ASM_CODELETS_ENABLED true
#endif

#if defined(__IPU__) && !defined(POPLIBS_DISABLE_ASM_CODELETS)
#define EXTERNAL_CODELET true
#define IS_EXTERNAL_CODELET(pred) static const bool isExternalCodelet = (pred)
#else
#define EXTERNAL_CODELET false
#define IS_EXTERNAL_CODELET(pred) static const bool isExternalCodelet = false
#endif

#endif // IPUSIM_POPLIBS_SUPPORT_EXTERNAL_CODELET_HPP
