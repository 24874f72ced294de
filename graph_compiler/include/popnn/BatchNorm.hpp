// ipusim's Poplar SDK: popnn's batch normalisation over the channel dimension (1) of
// activations [batch][channels][field...], built from popops' reductions and fused element-wise
// steps (docs/popnn.md). Statistics are accumulated in float.
#ifndef IPUSIM_POPNN_BATCHNORM_HPP
#define IPUSIM_POPNN_BATCHNORM_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include <utility>

namespace popnn {
namespace bn {

/// Per channel: the mean and 1 / sqrt(variance + eps) (the variance unbiased with
/// unbiasedVarEstimate; stableAlgo takes it from the centred values rather than from the mean of
/// squares), in the activations' type.
std::pair<poplar::Tensor, poplar::Tensor>
batchNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps, poplar::program::Sequence &prog,
                    bool unbiasedVarEstimate, bool stableAlgo = false, const poplar::Type &partialsType = poplar::FLOAT,
                    const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
/// (acts - mean) x invStdDev.
poplar::Tensor batchNormWhiten(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &mean,
                               const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {},
                               const poplar::OptionFlags &options = {});
/// (whitened x gamma + beta, whitened).
std::pair<poplar::Tensor, poplar::Tensor>
batchNormalise(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gamma,
               const poplar::Tensor &beta, const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
               poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
               const poplar::OptionFlags &options = {});
/// acts x combinedMultiplicand + addend (per channel): inference.
poplar::Tensor batchNormalise(poplar::Graph &graph, const poplar::Tensor &acts,
                              const poplar::Tensor &combinedMultiplicand, const poplar::Tensor &addend,
                              poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                              const poplar::OptionFlags &options = {});
/// (gamma's gradient: sum of gradsIn x whitened, beta's: sum of gradsIn) per channel.
std::pair<poplar::Tensor, poplar::Tensor>
batchNormParamGradients(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
                        const poplar::Tensor &mean, const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
                        const poplar::Type &partialsType = poplar::FLOAT,
                        const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
std::pair<poplar::Tensor, poplar::Tensor>
batchNormParamGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened, const poplar::Tensor &gradsIn,
                        poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
                        const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
/// The activations' gradient.
poplar::Tensor batchNormGradients(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
                                  const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                                  const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                  const poplar::Type &partialsType = poplar::FLOAT,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});
poplar::Tensor batchNormGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                  const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                                  const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                  const poplar::Type &partialsType = poplar::FLOAT,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});
/// gamma += scale x gammaDelta, beta += scale x betaDelta.
void batchNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta, const poplar::Tensor &betaDelta,
                          float scale, poplar::Tensor &gamma, poplar::Tensor &beta, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
void batchNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta, const poplar::Tensor &betaDelta,
                          const poplar::Tensor &scale, poplar::Tensor &gamma, poplar::Tensor &beta,
                          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {});

} // namespace bn
} // namespace popnn

#endif
