// ipusim's Poplar SDK: popops::zero.
#ifndef IPUSIM_POPOPS_ZERO_HPP
#define IPUSIM_POPOPS_ZERO_HPP

#include <popops/Fill.hpp>

namespace popops {
/// Every element of t set to zero.
inline void zero(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &prog,
                 const poplar::DebugContext &debugContext = {}) {
  fill(graph, t, prog, 0, debugContext);
}
inline void zero(poplar::Graph &graph, const poplar::Tensor &t, poplar::ComputeSet zeroCS) { fill(graph, t, zeroCS, 0); }
} // namespace popops

#endif
