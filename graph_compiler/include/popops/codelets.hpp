// ipusim's Poplar SDK: popops' codelets.
#ifndef IPUSIM_POPOPS_CODELETS_HPP
#define IPUSIM_POPOPS_CODELETS_HPP

#include <poplar/Graph.hpp>

namespace popops {
/// Adds popops' fixed vertices to the graph; element-wise vertices are generated per expression
/// when an operation is added (docs/popops.md).
void addCodelets(poplar::Graph &graph);
} // namespace popops

#endif
