// ipusim's Poplar SDK: poplin::ConvParams, a convolution's shapes and the transforms of its
// input, kernel and output (names and meaning as poplibs': docs/poplin.md).
#ifndef IPUSIM_POPLIN_CONVPARAMS_HPP
#define IPUSIM_POPLIN_CONVPARAMS_HPP

#include <poplar/Type.hpp>

#include <cstddef>
#include <ostream>
#include <vector>

namespace poplin {

struct ConvParams {
  /// Per spatial dimension, in this order: truncate the ends, dilate (insert dilation-1 zeros
  /// between elements), pad the ends with zeros, flip.
  struct InputTransform {
    std::vector<unsigned> truncationLower, truncationUpper, dilation, paddingLower, paddingUpper;
    std::vector<bool> flip;
    InputTransform() = default;
    explicit InputTransform(std::size_t size);
    InputTransform(std::vector<unsigned> truncationLower, std::vector<unsigned> truncationUpper,
                   std::vector<unsigned> dilation, std::vector<unsigned> paddingLower,
                   std::vector<unsigned> paddingUpper, std::vector<bool> flip);
    friend bool operator==(const InputTransform &a, const InputTransform &b);
    friend bool operator!=(const InputTransform &a, const InputTransform &b) { return !(a == b); }
    friend bool operator<(const InputTransform &a, const InputTransform &b);
  };
  /// Per spatial dimension, in this order: truncate the ends, keep every stride-th element, pad.
  struct OutputTransform {
    std::vector<unsigned> truncationLower, truncationUpper, stride, paddingLower, paddingUpper;
    OutputTransform() = default;
    explicit OutputTransform(std::size_t size);
    OutputTransform(std::vector<unsigned> truncationLower, std::vector<unsigned> truncationUpper,
                    std::vector<unsigned> stride, std::vector<unsigned> paddingLower,
                    std::vector<unsigned> paddingUpper);
    friend bool operator==(const OutputTransform &a, const OutputTransform &b);
    friend bool operator!=(const OutputTransform &a, const OutputTransform &b) { return !(a == b); }
    friend bool operator<(const OutputTransform &a, const OutputTransform &b);
  };

  poplar::Type inputType;
  poplar::Type outputType;
  std::size_t batchSize = 0;
  std::vector<std::size_t> inputFieldShape;
  std::vector<std::size_t> kernelShape;
  std::size_t inputChannelsPerConvGroup = 0;
  std::size_t outputChannelsPerConvGroup = 0;
  std::size_t numConvGroups = 1;
  InputTransform inputTransform;
  InputTransform kernelTransform;
  OutputTransform outputTransform;

  ConvParams() = default;
  ConvParams(poplar::Type dataType, std::size_t batchSize, std::vector<std::size_t> inputFieldShape,
             std::vector<std::size_t> kernelShape, std::size_t inputChannels, std::size_t outputChannels,
             std::size_t numConvGroups);
  ConvParams(poplar::Type inputType, poplar::Type outputType, std::size_t batchSize,
             std::vector<std::size_t> inputFieldShape, std::vector<std::size_t> kernelShape,
             std::size_t inputChannels, std::size_t outputChannels, std::size_t numConvGroups);
  ConvParams(poplar::Type inputType, poplar::Type outputType, std::size_t batchSize,
             std::vector<std::size_t> inputFieldShape, std::vector<std::size_t> kernelShape,
             std::size_t inputChannels, std::size_t outputChannels, std::size_t numConvGroups,
             InputTransform inputTransform, InputTransform kernelTransform, OutputTransform outputTransform);

  std::size_t getUntransformedOutputSize(unsigned dim) const;
  std::size_t getOutputSize(unsigned dim) const;
  std::size_t getNumOutputChansPerConvGroup() const { return outputChannelsPerConvGroup; }
  std::size_t getNumOutputChans() const { return outputChannelsPerConvGroup * numConvGroups; }
  std::size_t getInputSize(unsigned dim) const { return inputFieldShape[dim]; }
  std::size_t getNumInputChansPerConvGroup() const { return inputChannelsPerConvGroup; }
  std::size_t getNumInputChans() const { return inputChannelsPerConvGroup * numConvGroups; }
  std::size_t getNumConvGroups() const { return numConvGroups; }
  std::size_t getNumFieldDims() const { return inputFieldShape.size(); }
  std::vector<std::size_t> getInputFieldShape() const { return inputFieldShape; }
  std::vector<std::size_t> getKernelShape() const { return kernelShape; }
  std::size_t getBatchSize() const { return batchSize; }
  unsigned getTruncatedInputSize(unsigned dim) const;
  unsigned getTruncatedKernelSize(unsigned dim) const;
  unsigned getTransformedInputSize(unsigned dim) const;
  unsigned getTransformedKernelSize(unsigned dim) const;
  std::vector<std::size_t> getOutputFieldShape() const;
  /// Throws poplar_error naming what is inconsistent.
  void validate() const;
  /// The same convolution with the output elements a stride skips at the end truncated.
  ConvParams canonicalize() const;
  friend bool operator==(const ConvParams &a, const ConvParams &b);
  friend bool operator!=(const ConvParams &a, const ConvParams &b) { return !(a == b); }
  friend bool operator<(const ConvParams &a, const ConvParams &b);
};

std::ostream &operator<<(std::ostream &os, const ConvParams &p);

} // namespace poplin

#endif
