// ipusim's Poplar SDK: poplin's codelets.
#ifndef IPUSIM_POPLIN_CODELETS_HPP
#define IPUSIM_POPLIN_CODELETS_HPP

#include <poplar/Graph.hpp>

namespace poplin {
/// Adds poplin's vertices: generated per operation and types when an operation is added
/// (docs/poplin.md), so there is nothing to load here.
void addCodelets(poplar::Graph &graph);
} // namespace poplin

#endif
