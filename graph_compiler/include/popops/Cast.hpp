// ipusim's Poplar SDK: popops' casts (an element-wise map of expr::Cast).
#ifndef IPUSIM_POPOPS_CAST_HPP
#define IPUSIM_POPOPS_CAST_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

namespace popops {
/// src converted to dstType: float to half rounds to nearest even, floating point to integer
/// truncates towards zero, to bool is != 0.
poplar::Tensor cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Type &dstType,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
/// src converted into dst (same shape).
void cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst,
          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
/// The vertices of a cast of src into dst, added to the compute set cs.
void cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Tensor &dst, poplar::ComputeSet cs);
} // namespace popops

#endif
