// ipusim's Poplar SDK: popnn's codelets.
#ifndef IPUSIM_POPNN_CODELETS_HPP
#define IPUSIM_POPNN_CODELETS_HPP

#include <poplar/Graph.hpp>

namespace popnn {
/// popnn's operations are built from popops' generated vertices: nothing to load.
void addCodelets(poplar::Graph &graph);
} // namespace popnn

#endif
