// ipusim's Poplar SDK: poprand's codelets.
#ifndef IPUSIM_POPRAND_CODELETS_HPP
#define IPUSIM_POPRAND_CODELETS_HPP

#include <poplar/Graph.hpp>

namespace poprand {
/// poprand's vertices are generated per distribution and type: nothing to load.
void addCodelets(poplar::Graph &graph);
} // namespace poprand

#endif
