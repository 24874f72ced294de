// ipusim's Poplar SDK: popnn's pooling, forward and input gradient, by generated vertices over
// whole planes of (batch, channel) (docs/popnn.md).
#ifndef IPUSIM_POPNN_POOLING_HPP
#define IPUSIM_POPNN_POOLING_HPP

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <popnn/PoolingDef.hpp>

#include <cstdint>
#include <ostream>
#include <vector>

namespace popnn {
namespace pooling {

struct PoolParams {
  PoolingType poolingType;
  /// The field's shape (without batch and channels).
  std::vector<std::size_t> inputFieldShape;
  std::vector<std::size_t> kernelShape;
  std::vector<unsigned> stride;
  /// Padding (> 0) or truncation (< 0) of each field dimension's ends.
  std::vector<int> inputTruncationOrPaddingLower;
  std::vector<int> inputTruncationOrPaddingUpper;
  std::size_t numChannels;
  std::size_t batchSize;
  poplar::Type dType;
  PoolParams(PoolingType poolingType, std::vector<std::size_t> inputFieldShape, std::vector<std::size_t> kernelShape,
             std::vector<unsigned> stride, std::vector<int> inputTruncationOrPaddingLower,
             std::vector<int> inputTruncationOrPaddingUpper, std::size_t numChannels, std::size_t batchSize,
             poplar::Type dType)
      : poolingType(poolingType), inputFieldShape(std::move(inputFieldShape)), kernelShape(std::move(kernelShape)),
        stride(std::move(stride)), inputTruncationOrPaddingLower(std::move(inputTruncationOrPaddingLower)),
        inputTruncationOrPaddingUpper(std::move(inputTruncationOrPaddingUpper)), numChannels(numChannels),
        batchSize(batchSize), dType(dType) {}
  std::size_t getNumFieldDims() const { return inputFieldShape.size(); }
  std::vector<std::size_t> getOutputFieldShape() const;
};

std::ostream &operator<<(std::ostream &o, const PoolParams &params);
const char *asString(const PoolingType &method);
std::vector<std::size_t> getOutputFieldShape(const PoolParams &params);

/// in [batch][channels][field...] pooled: MAX, SUM, or AVG (the sum over the window's elements
/// that lie in the input, divided by their number).
poplar::Tensor pool(poplar::Graph &graph, const PoolParams &params, const poplar::Tensor &in,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext = {},
                    const poplar::OptionFlags &options = {});
/// The input gradient: MAX sends each window's gradient to every element equal to the window's
/// maximum (`pooled`); AVG and SUM spread it as the forward pass gathered.
poplar::Tensor poolInputGradient(poplar::Graph &graph, const PoolParams &params, const poplar::Tensor &in,
                                 const poplar::Tensor &pooled, const poplar::Tensor &pooledGradient,
                                 bool useScaledGradient, poplar::program::Sequence &prog,
                                 const poplar::DebugContext &debugContext = {},
                                 const poplar::OptionFlags &options = {});
/// AVG and SUM, which need no forward values.
poplar::Tensor poolInputGradient(poplar::Graph &graph, const PoolParams &params, const unsigned fwdChansPerGroup,
                                 const poplar::Tensor &pooledGradient, poplar::program::Sequence &prog,
                                 const poplar::DebugContext &debugContext = {},
                                 const poplar::OptionFlags &options = {});

} // namespace pooling
} // namespace popnn

#endif
