// <StackSizeDefs.hpp> without the poplar/ prefix: poplibs' ConvPartialnx1.cpp includes it so, and
// builds with no include path of its own that holds it, so the SDK's include path makes it
// visible at the top level too. It is <poplar/StackSizeDefs.hpp>.
#include <poplar/StackSizeDefs.hpp>
