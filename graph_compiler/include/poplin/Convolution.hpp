// ipusim's Poplar SDK: poplin's convolutions: forward, input gradient (as a convolution with
// transposed, flipped weights) and weight update, computed by generated vertices on the tiles
// over a plan of batch, group, output-channel and output-row blocks (docs/poplin.md).
#ifndef IPUSIM_POPLIN_CONVOLUTION_HPP
#define IPUSIM_POPLIN_CONVOLUTION_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplin/ConvParams.hpp>
#include <poplin/MatMul.hpp>

namespace poplin {

/// Weights [groups][output channels][input channels][kernel dims...].
poplar::Tensor createWeights(poplar::Graph &graph, const ConvParams &params,
                             const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);
/// Input [batch][groups x input channels][field dims...].
poplar::Tensor createInput(poplar::Graph &graph, const ConvParams &params,
                           const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                           PlanningCache *cache = nullptr);
/// Output [batch][groups x output channels][output field dims...].
poplar::Tensor createConvOutput(poplar::Graph &graph, const ConvParams &params,
                                const poplar::DebugContext &debugContext = {},
                                const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// The convolution of `in` with `weights`. With transposeAndFlipWeights, weights are given as
/// [groups][params' input channels][params' output channels][kernel] and used with their
/// channel dimensions swapped and every spatial dimension reversed (the input gradient's form).
poplar::Tensor convolution(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &weights,
                           const ConvParams &params, bool transposeAndFlipWeights, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext = {}, const poplar::OptionFlags &options = {},
                           PlanningCache *cache = nullptr);
void convolutionWithOutput(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &weights,
                           const poplar::Tensor &out, const ConvParams &params, bool transposeAndFlipWeights,
                           poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                           const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

/// Copies weightsIn ([groups][output channels][input channels][kernel]) into weightsOut
/// ([groups][input channels][output channels][kernel]) with the two channel dimensions swapped
/// and every spatial dimension of the kernel reversed: the weights convolution() takes with
/// transposeAndFlipWeights, as forward weights of the gradient's parameters.
void weightsTransposeChansFlipXY(poplar::Graph &graph, const poplar::Tensor &weightsIn, const poplar::Tensor &weightsOut,
                                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                                 const poplar::OptionFlags &options = {});

/// The weights' gradient from the output gradient zDeltas and the forward input activations.
poplar::Tensor calculateWeightDeltas(poplar::Graph &graph, const poplar::Tensor &zDeltas,
                                     const poplar::Tensor &activations, const ConvParams &params,
                                     poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                                     const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
/// weights += scale x the weights' gradient.
void convolutionWeightUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas, const poplar::Tensor &weights,
                             const poplar::Tensor &activations, ConvParams params, const poplar::Tensor &scale,
                             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
void convolutionWeightUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas, const poplar::Tensor &weights,
                             const poplar::Tensor &activations, ConvParams params, float scale,
                             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
/// biases += scale x zDeltas summed over the batch and the field.
void convolutionBiasUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas, const poplar::Tensor &biases,
                           const poplar::Tensor &scale, const poplar::OptionFlags &options,
                           poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
void convolutionBiasUpdate(poplar::Graph &graph, const poplar::Tensor &zDeltas, const poplar::Tensor &biases,
                           float scale, const poplar::OptionFlags &options, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debugContext = {});
/// in[b][c][...] += biases[c].
void addBias(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &biases,
             poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
/// Biases [channels] for the output of a convolution.
poplar::Tensor createBiases(poplar::Graph &graph, const poplar::Tensor &activations,
                            const poplar::DebugContext &debugContext = {});

} // namespace poplin

#endif
