// ipusim's Poplar SDK: popnn's group normalisation: statistics per (example, group of channels)
// of activations [batch][channels][field...] (channels in numGroups contiguous groups), gamma and
// beta per channel (docs/popnn.md). mean and invStdDev are [batch x numGroups], example-major.
#ifndef IPUSIM_POPNN_GROUPNORM_HPP
#define IPUSIM_POPNN_GROUPNORM_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include <utility>

namespace popnn {
namespace gn {

std::pair<poplar::Tensor, poplar::Tensor>
groupNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps, poplar::program::Sequence &prog,
                    unsigned numGroups, bool unbiasedVarEstimate, bool stableAlgo = false,
                    const poplar::Type &partialsType = poplar::FLOAT, const poplar::DebugContext &debugContext = {},
                    const poplar::OptionFlags &options = {});
poplar::Tensor groupNormWhiten(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &mean,
                               const poplar::Tensor &invStdDev, poplar::program::Sequence &prog,
                               const poplar::DebugContext &debugContext = {},
                               const poplar::OptionFlags &options = {});
std::pair<poplar::Tensor, poplar::Tensor>
groupNormalise(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gamma,
               const poplar::Tensor &beta, const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
               poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
               const poplar::OptionFlags &options = {});
std::pair<poplar::Tensor, poplar::Tensor>
groupNormParamGradients(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
                        const poplar::Tensor &mean, const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
                        const poplar::Type &partialsType = poplar::FLOAT,
                        const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
std::pair<poplar::Tensor, poplar::Tensor>
groupNormParamGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened, const poplar::Tensor &gradsIn,
                        poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
                        const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
poplar::Tensor groupNormGradients(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
                                  const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                                  const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                  const poplar::Type &partialsType = poplar::FLOAT,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});
poplar::Tensor groupNormGradients(poplar::Graph &graph, const poplar::Tensor &actsWhitened,
                                  const poplar::Tensor &gradsIn, const poplar::Tensor &invStdDev,
                                  const poplar::Tensor &gamma, poplar::program::Sequence &prog,
                                  const poplar::Type &partialsType = poplar::FLOAT,
                                  const poplar::DebugContext &debugContext = {},
                                  const poplar::OptionFlags &options = {});
void groupNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta, const poplar::Tensor &betaDelta,
                          float scale, poplar::Tensor &gamma, poplar::Tensor &beta, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {});
void groupNormParamUpdate(poplar::Graph &graph, const poplar::Tensor &gammaDelta, const poplar::Tensor &betaDelta,
                          const poplar::Tensor &scale, poplar::Tensor &gamma, poplar::Tensor &beta,
                          poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                          const poplar::OptionFlags &options = {});

} // namespace gn
} // namespace popnn

#endif
