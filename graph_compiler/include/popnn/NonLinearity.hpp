// ipusim's Poplar SDK: popnn's non-linearities and their gradients, built from popops'
// element-wise operations and reductions (docs/popnn.md).
#ifndef IPUSIM_POPNN_NONLINEARITY_HPP
#define IPUSIM_POPNN_NONLINEARITY_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <popnn/NonLinearityDef.hpp>

namespace popnn {

void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
/// SOFTMAX_SCALED sets nonLinearityScaling to the factor its outputs carry (1 for the others).
void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                         float &nonLinearityScaling, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debugContext = {});
/// The element-wise non-linearities as vertices of the compute set cs (softmax needs
/// reductions: use a program form).
void nonLinearityInPlace(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                         poplar::ComputeSet &cs, const poplar::DebugContext &debugContext = {});
poplar::Tensor nonLinearity(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                            poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {});
poplar::Tensor nonLinearity(poplar::Graph &graph, NonLinearityType nonLinearityType, poplar::Tensor t,
                            float &nonLinearityScaling, poplar::program::Sequence &prog,
                            const poplar::DebugContext &debugContext = {});

#define IPUSIM_POPNN_NONLINEARITY(fn, type)                                                                  \
  inline poplar::Tensor fn(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,          \
                           const poplar::DebugContext &debugContext = {}) {                                  \
    return nonLinearity(graph, type, t, prog, debugContext);                                                 \
  }                                                                                                          \
  inline void fn##InPlace(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,           \
                          const poplar::DebugContext &debugContext = {}) {                                   \
    nonLinearityInPlace(graph, type, t, prog, debugContext);                                                 \
  }
IPUSIM_POPNN_NONLINEARITY(sigmoid, NonLinearityType::SIGMOID)
IPUSIM_POPNN_NONLINEARITY(relu, NonLinearityType::RELU)
IPUSIM_POPNN_NONLINEARITY(tanh, NonLinearityType::TANH)
IPUSIM_POPNN_NONLINEARITY(gelu, NonLinearityType::GELU)
IPUSIM_POPNN_NONLINEARITY(geluErf, NonLinearityType::GELU_ERF)
IPUSIM_POPNN_NONLINEARITY(swish, NonLinearityType::SWISH)
IPUSIM_POPNN_NONLINEARITY(softmax, NonLinearityType::SOFTMAX)
IPUSIM_POPNN_NONLINEARITY(softmaxStable, NonLinearityType::SOFTMAX_STABLE)
IPUSIM_POPNN_NONLINEARITY(scaledSoftmaxStable, NonLinearityType::SOFTMAX_SCALED)
#undef IPUSIM_POPNN_NONLINEARITY

/// The gradient at the input of the non-linearity from `act`, its output (for GELU,
/// GELU_ERF and SWISH: its input), and `outGradient`, the gradient at its output.
poplar::Tensor nonLinearityInputGradient(poplar::Graph &graph, NonLinearityType nonLinearityType,
                                         poplar::Tensor act, poplar::Tensor outGradient, poplar::ComputeSet &cs,
                                         const poplar::DebugContext &debugContext = {});
poplar::Tensor nonLinearityInputGradient(poplar::Graph &graph, NonLinearityType nonLinearityType,
                                         poplar::Tensor act, poplar::Tensor outGradient,
                                         poplar::program::Sequence &prog,
                                         const poplar::DebugContext &debugContext = {});

} // namespace popnn

#endif
