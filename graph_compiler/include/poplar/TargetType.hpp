// ipusim's Poplar SDK: the kinds of target.
#ifndef IPUSIM_POPLAR_TARGETTYPE_HPP
#define IPUSIM_POPLAR_TARGETTYPE_HPP

#include <string>

namespace poplar {

enum class TargetType { IPU, IPU_MODEL, CPU };
std::string toString(TargetType t);

} // namespace poplar

#endif
