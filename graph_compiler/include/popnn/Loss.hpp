// ipusim's Poplar SDK: popnn's losses and accuracy (docs/popnn.md).
#ifndef IPUSIM_POPNN_LOSS_HPP
#define IPUSIM_POPNN_LOSS_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include <utility>

#ifndef MASKED_LABEL_CODE
/// A label that takes no part in the loss or the accuracy.
#define MASKED_LABEL_CODE 0xFFFFFFFFU
#endif

namespace popnn {

enum LossType { SUM_SQUARED_LOSS, CROSS_ENTROPY_LOSS };

/// For modelOutputs [batch, classes] and expected labels [batch] (int or unsigned int): loss
/// [batch] and deltas [batch, classes] (the gradient of the loss at modelOutputs). Cross
/// entropy expects probabilities (a softmax's outputs, scaled by modelOutputScaling) and scales
/// deltas by deltasScale / modelOutputScaling; numCorrect [1 element, unsigned int] is
/// increased by the rows whose largest output is at the label.
poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                  const poplar::Tensor &expected, const poplar::Tensor &loss,
                                  const poplar::Tensor &deltas, const poplar::Tensor &deltasScale,
                                  const poplar::Tensor &modelOutputScaling, LossType lossType,
                                  const poplar::DebugContext &debugContext = {});
poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                  const poplar::Tensor &expected, const poplar::Tensor &loss,
                                  const poplar::Tensor &deltas, LossType lossType,
                                  const poplar::DebugContext &debugContext = {});
poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                  const poplar::Tensor &expected, const poplar::Tensor &loss,
                                  const poplar::Tensor &deltas, const poplar::Tensor &deltasScale,
                                  const poplar::Tensor &modelOutputScaling, const poplar::Tensor &numCorrect,
                                  LossType lossType, const poplar::DebugContext &debugContext = {});
poplar::program::Program calcLoss(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                  const poplar::Tensor &expected, const poplar::Tensor &loss,
                                  const poplar::Tensor &deltas, const poplar::Tensor &numCorrect,
                                  LossType lossType, const poplar::DebugContext &debugContext = {});
poplar::program::Program calcAccuracy(poplar::Graph &graph, const poplar::Tensor &modelOutputs,
                                      const poplar::Tensor &expected, const poplar::Tensor &numCorrect,
                                      const poplar::DebugContext &debugContext = {});

/// For input [rows, columns]: the column of each row's largest (smallest) element, the first
/// such column on ties, as unsigned int [rows].
poplar::Tensor argMax(poplar::Graph &graph, const poplar::Tensor &input, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {});
poplar::Tensor argMin(poplar::Graph &graph, const poplar::Tensor &input, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {});
std::pair<poplar::Tensor, poplar::Tensor> maxAndArgMax(poplar::Graph &graph, const poplar::Tensor &input,
                                                       poplar::program::Sequence &prog,
                                                       const poplar::DebugContext &debugContext = {});
std::pair<poplar::Tensor, poplar::Tensor> minAndArgMin(poplar::Graph &graph, const poplar::Tensor &input,
                                                       poplar::program::Sequence &prog,
                                                       const poplar::DebugContext &debugContext = {});

} // namespace popnn

#endif
