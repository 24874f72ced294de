// ipusim's Poplar SDK: poprand's random tensors from the tiles' hardware PRNG (docs/poprand.md).
// With a seed tensor (two unsigned ints) and a seed modifier the numbers are a function of
// them, the element's tile, vertex and worker: the same seed gives the same tensor, run after
// run. Without a seed each worker continues its PRNG's current state.
#ifndef IPUSIM_POPRAND_RANDOMGEN_HPP
#define IPUSIM_POPRAND_RANDOMGEN_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include <cstdint>

namespace poprand {

/// input where a uniform draw is below keepProbability, times scale; else 0. The result is
/// laid out like `reference`.
poplar::Tensor dropout(poplar::Graph &graph, const poplar::Tensor *seed, const uint32_t seedModifier,
                       const poplar::Tensor &input, const poplar::Tensor &reference, double keepProbability,
                       double scale, poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
poplar::Tensor dropout(poplar::Graph &graph, const poplar::Tensor *seed, const uint32_t seedModifier,
                       const poplar::Tensor &input, const poplar::Tensor &reference, double keepProbability,
                       double scale, bool outputClonesRef, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debugContext = {});
/// Uniform in [minVal, maxVal) (integer types: [minVal, maxVal]).
poplar::Tensor uniform(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                       const poplar::Tensor &reference, const poplar::Type &outType, double minVal, double maxVal,
                       poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
/// 1 with probability prob, else 0.
poplar::Tensor bernoulli(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                         const poplar::Tensor &reference, const poplar::Type &outType, double prob,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
/// Normal (Box-Muller over the PRNG's uniforms).
poplar::Tensor normal(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                      const poplar::Tensor &reference, const poplar::Type &outType, double mean, double stdDev,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
/// Normal, redrawn until within alpha standard deviations of the mean.
poplar::Tensor truncatedNormal(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier,
                               const poplar::Tensor &reference, const poplar::Type &outType, double mean,
                               double stdDev, double alpha, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {});
/// Seeds every worker's PRNG from masterSeed (two unsigned ints) and seedModifier.
void setSeed(poplar::Graph &graph, const poplar::Tensor &masterSeed, uint32_t seedModifier,
             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});

} // namespace poprand

#endif
