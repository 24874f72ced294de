// ipusim's Poplar SDK: popops' reductions. A reduction runs in two compute sets: each tile
// reduces the elements it holds into partials (up to six vertices a tile, one per worker), then
// the partials of each output meet on the output's tile, where the last vertex applies the scale
// and the update (docs/popops.md).
#ifndef IPUSIM_POPOPS_REDUCE_HPP
#define IPUSIM_POPOPS_REDUCE_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popops/Operation.hpp>

#include <vector>

namespace popops {

/// The operation, whether the result is added to the output (update), and an optional scale
/// (a single-element tensor) the result is multiplied by.
struct ReduceParams {
  ReduceParams() = default;
  ReduceParams(popops::Operation op, bool update = false) : op(op), update(update), useScale(false) {}
  ReduceParams(popops::Operation op, bool update, poplar::Tensor scale)
      : op(op), update(update), useScale(true), scale(scale) {}
  ReduceParams(popops::Operation op, float constantScale, bool update = false) = delete;

  popops::Operation op = popops::Operation::ADD;
  bool update = false;
  bool useScale = false;
  poplar::Tensor scale;
};

/// `in` reduced over the dimensions `dims`; the result has in's other dimensions, in order.
poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Type &outType,
                      const std::vector<std::size_t> &dims, ReduceParams params, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const std::vector<std::size_t> &dims,
                      ReduceParams params, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
/// The same into `out` (with params.update: added to out).
void reduceWithOutput(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &out,
                      const std::vector<std::size_t> &dims, ReduceParams params, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
/// The compute-set forms: the compute sets to run, in order, are appended to css.
poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Type &outType,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      std::vector<poplar::ComputeSet> &css, const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});
poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const std::vector<std::size_t> &dims,
                      ReduceParams params, std::vector<poplar::ComputeSet> &css,
                      const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
void reduceWithOutput(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &out,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      std::vector<poplar::ComputeSet> &css, const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {});

} // namespace popops

#endif
