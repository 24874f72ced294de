// ipusim's Poplar SDK: popops::fill.
#ifndef IPUSIM_POPOPS_FILL_HPP
#define IPUSIM_POPOPS_FILL_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include <type_traits>

namespace popops {
namespace detail {
void fill(poplar::Graph &graph, const poplar::Tensor &t, double value, poplar::program::Sequence &prog,
          const poplar::DebugContext &debugContext);
void fill(poplar::Graph &graph, const poplar::Tensor &t, double value, poplar::ComputeSet cs);
} // namespace detail

/// Every element of t set to fillValue (converted to t's type), by vertices on t's tiles.
template <typename FillValueType,
          typename = typename std::enable_if<poplar::TypeTraits::isSimpleType<FillValueType>()>::type>
void fill(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &prog, FillValueType fillValue,
          const poplar::DebugContext &debugContext = {}) {
  detail::fill(graph, t, static_cast<double>(fillValue), prog, debugContext);
}
/// The same, as vertices added to the compute set fillCS.
template <typename FillValueType,
          typename = typename std::enable_if<poplar::TypeTraits::isSimpleType<FillValueType>()>::type>
void fill(poplar::Graph &graph, const poplar::Tensor &t, poplar::ComputeSet fillCS, FillValueType fillValue) {
  detail::fill(graph, t, static_cast<double>(fillValue), fillCS);
}
} // namespace popops

#endif
