// poplin::ConvParams: sizes under the transforms, validation, canonical form, and the input
// gradient's parameters.
#include <poplin/ConvParams.hpp>
#include <poplin/ConvUtil.hpp>

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <tuple>
#include <utility>

namespace poplin {

using poplar::poplar_error;

ConvParams::InputTransform::InputTransform(std::size_t n)
    : truncationLower(n, 0), truncationUpper(n, 0), dilation(n, 1), paddingLower(n, 0), paddingUpper(n, 0),
      flip(n, false) {}
ConvParams::InputTransform::InputTransform(std::vector<unsigned> tl, std::vector<unsigned> tu,
                                           std::vector<unsigned> d, std::vector<unsigned> pl,
                                           std::vector<unsigned> pu, std::vector<bool> f)
    : truncationLower(std::move(tl)), truncationUpper(std::move(tu)), dilation(std::move(d)),
      paddingLower(std::move(pl)), paddingUpper(std::move(pu)), flip(std::move(f)) {}
bool operator==(const ConvParams::InputTransform &a, const ConvParams::InputTransform &b) {
  return std::tie(a.truncationLower, a.truncationUpper, a.dilation, a.paddingLower, a.paddingUpper, a.flip) ==
         std::tie(b.truncationLower, b.truncationUpper, b.dilation, b.paddingLower, b.paddingUpper, b.flip);
}
bool operator<(const ConvParams::InputTransform &a, const ConvParams::InputTransform &b) {
  return std::tie(a.truncationLower, a.truncationUpper, a.dilation, a.paddingLower, a.paddingUpper, a.flip) <
         std::tie(b.truncationLower, b.truncationUpper, b.dilation, b.paddingLower, b.paddingUpper, b.flip);
}

ConvParams::OutputTransform::OutputTransform(std::size_t n)
    : truncationLower(n, 0), truncationUpper(n, 0), stride(n, 1), paddingLower(n, 0), paddingUpper(n, 0) {}
ConvParams::OutputTransform::OutputTransform(std::vector<unsigned> tl, std::vector<unsigned> tu,
                                             std::vector<unsigned> s, std::vector<unsigned> pl,
                                             std::vector<unsigned> pu)
    : truncationLower(std::move(tl)), truncationUpper(std::move(tu)), stride(std::move(s)),
      paddingLower(std::move(pl)), paddingUpper(std::move(pu)) {}
bool operator==(const ConvParams::OutputTransform &a, const ConvParams::OutputTransform &b) {
  return std::tie(a.truncationLower, a.truncationUpper, a.stride, a.paddingLower, a.paddingUpper) ==
         std::tie(b.truncationLower, b.truncationUpper, b.stride, b.paddingLower, b.paddingUpper);
}
bool operator<(const ConvParams::OutputTransform &a, const ConvParams::OutputTransform &b) {
  return std::tie(a.truncationLower, a.truncationUpper, a.stride, a.paddingLower, a.paddingUpper) <
         std::tie(b.truncationLower, b.truncationUpper, b.stride, b.paddingLower, b.paddingUpper);
}

ConvParams::ConvParams(poplar::Type dataType, std::size_t batch, std::vector<std::size_t> field,
                       std::vector<std::size_t> kernel, std::size_t inChans, std::size_t outChans, std::size_t groups)
    : ConvParams(dataType, dataType, batch, field, kernel, inChans, outChans, groups) {}
ConvParams::ConvParams(poplar::Type inType, poplar::Type outType, std::size_t batch, std::vector<std::size_t> field,
                       std::vector<std::size_t> kernel, std::size_t inChans, std::size_t outChans, std::size_t groups)
    : ConvParams(inType, outType, batch, field, kernel, inChans, outChans, groups, InputTransform(field.size()),
                 InputTransform(field.size()), OutputTransform(field.size())) {}
ConvParams::ConvParams(poplar::Type inType, poplar::Type outType, std::size_t batch, std::vector<std::size_t> field,
                       std::vector<std::size_t> kernel, std::size_t inChans, std::size_t outChans, std::size_t groups,
                       InputTransform in, InputTransform k, OutputTransform out)
    : inputType(inType), outputType(outType), batchSize(batch), inputFieldShape(std::move(field)),
      kernelShape(std::move(kernel)), inputChannelsPerConvGroup(inChans), outputChannelsPerConvGroup(outChans),
      numConvGroups(groups), inputTransform(std::move(in)), kernelTransform(std::move(k)),
      outputTransform(std::move(out)) {}

namespace {

// Truncated, dilated and padded (flipping keeps the size).
unsigned transformedSize(std::size_t size, const ConvParams::InputTransform &t, unsigned dim) {
  const std::size_t cut = t.truncationLower[dim] + t.truncationUpper[dim];
  const std::size_t truncated = size > cut ? size - cut : 0;
  const std::size_t dilated = truncated ? (truncated - 1) * t.dilation[dim] + 1 : 0;
  return unsigned(dilated + t.paddingLower[dim] + t.paddingUpper[dim]);
}

} // namespace

unsigned ConvParams::getTruncatedInputSize(unsigned dim) const {
  const std::size_t cut = inputTransform.truncationLower[dim] + inputTransform.truncationUpper[dim];
  return unsigned(inputFieldShape[dim] > cut ? inputFieldShape[dim] - cut : 0);
}
unsigned ConvParams::getTruncatedKernelSize(unsigned dim) const {
  const std::size_t cut = kernelTransform.truncationLower[dim] + kernelTransform.truncationUpper[dim];
  return unsigned(kernelShape[dim] > cut ? kernelShape[dim] - cut : 0);
}
unsigned ConvParams::getTransformedInputSize(unsigned dim) const {
  return transformedSize(inputFieldShape[dim], inputTransform, dim);
}
unsigned ConvParams::getTransformedKernelSize(unsigned dim) const {
  return transformedSize(kernelShape[dim], kernelTransform, dim);
}
std::size_t ConvParams::getUntransformedOutputSize(unsigned dim) const {
  const std::size_t in = getTransformedInputSize(dim), k = getTransformedKernelSize(dim);
  return in + 1 >= k ? in + 1 - k : 0;
}
std::size_t ConvParams::getOutputSize(unsigned dim) const {
  const std::size_t u = getUntransformedOutputSize(dim);
  const std::size_t cut = outputTransform.truncationLower[dim] + outputTransform.truncationUpper[dim];
  const std::size_t truncated = u > cut ? u - cut : 0;
  const std::size_t strided = truncated ? (truncated - 1) / outputTransform.stride[dim] + 1 : 0;
  return strided + outputTransform.paddingLower[dim] + outputTransform.paddingUpper[dim];
}
std::vector<std::size_t> ConvParams::getOutputFieldShape() const {
  std::vector<std::size_t> s;
  for (unsigned d = 0; d < inputFieldShape.size(); ++d) s.push_back(getOutputSize(d));
  return s;
}

void ConvParams::validate() const {
  const std::size_t n = inputFieldShape.size();
  auto need = [&](std::size_t size, const char *what) {
    if (size != n)
      throw poplar_error("poplin::ConvParams: " + std::string(what) + " has " + std::to_string(size) +
                         " dimensions; the input field has " + std::to_string(n));
  };
  need(kernelShape.size(), "the kernel shape");
  for (const InputTransform *t : {&inputTransform, &kernelTransform}) {
    const char *what = t == &inputTransform ? "the input transform" : "the kernel transform";
    need(t->truncationLower.size(), what), need(t->truncationUpper.size(), what), need(t->dilation.size(), what);
    need(t->paddingLower.size(), what), need(t->paddingUpper.size(), what), need(t->flip.size(), what);
    for (unsigned d : t->dilation)
      if (d == 0) throw poplar_error("poplin::ConvParams: a dilation of 0 in " + std::string(what));
  }
  need(outputTransform.truncationLower.size(), "the output transform");
  need(outputTransform.truncationUpper.size(), "the output transform");
  need(outputTransform.stride.size(), "the output transform");
  need(outputTransform.paddingLower.size(), "the output transform");
  need(outputTransform.paddingUpper.size(), "the output transform");
  for (unsigned s : outputTransform.stride)
    if (s == 0) throw poplar_error("poplin::ConvParams: a stride of 0");
  for (unsigned d = 0; d < n; ++d) {
    if (getTransformedKernelSize(d) > getTransformedInputSize(d))
      throw poplar_error("poplin::ConvParams: in dimension " + std::to_string(d) + " the transformed kernel (" +
                         std::to_string(getTransformedKernelSize(d)) + ") is larger than the transformed input (" +
                         std::to_string(getTransformedInputSize(d)) + ")");
    if (outputTransform.truncationLower[d] + outputTransform.truncationUpper[d] > getUntransformedOutputSize(d))
      throw poplar_error("poplin::ConvParams: in dimension " + std::to_string(d) +
                         " the output truncation is larger than the output (" +
                         std::to_string(getUntransformedOutputSize(d)) + ")");
  }
}

ConvParams ConvParams::canonicalize() const {
  ConvParams p = *this;
  for (unsigned d = 0; d < inputFieldShape.size(); ++d) {
    // Outputs truncated before the stride against input padding on the same side: dropping t
    // outputs at an end moves every window t positions, as t positions less padding there do
    // (the input gradient's parameters pad by the kernel less one and truncate by the forward
    // padding: a 3x3 layer with padding 1 has its own parameters for its gradient).
    for (auto [pad, cut] : {std::pair(&p.inputTransform.paddingLower[d], &p.outputTransform.truncationLower[d]),
                            std::pair(&p.inputTransform.paddingUpper[d], &p.outputTransform.truncationUpper[d])}) {
      const unsigned m = std::min(*pad, *cut);
      *pad -= m;
      *cut -= m;
    }
    // Outputs past the last one a stride keeps are truncated.
    const std::size_t u = p.getUntransformedOutputSize(d);
    const std::size_t cut = p.outputTransform.truncationLower[d] + p.outputTransform.truncationUpper[d];
    if (u > cut) p.outputTransform.truncationUpper[d] += unsigned((u - cut - 1) % p.outputTransform.stride[d]);
  }
  return p;
}

bool operator==(const ConvParams &a, const ConvParams &b) {
  return std::tie(a.inputType, a.outputType, a.batchSize, a.inputFieldShape, a.kernelShape, a.inputChannelsPerConvGroup,
                  a.outputChannelsPerConvGroup, a.numConvGroups, a.inputTransform, a.kernelTransform,
                  a.outputTransform) ==
         std::tie(b.inputType, b.outputType, b.batchSize, b.inputFieldShape, b.kernelShape, b.inputChannelsPerConvGroup,
                  b.outputChannelsPerConvGroup, b.numConvGroups, b.inputTransform, b.kernelTransform,
                  b.outputTransform);
}
bool operator<(const ConvParams &a, const ConvParams &b) {
  return std::tie(a.inputType, a.outputType, a.batchSize, a.inputFieldShape, a.kernelShape, a.inputChannelsPerConvGroup,
                  a.outputChannelsPerConvGroup, a.numConvGroups, a.inputTransform, a.kernelTransform,
                  a.outputTransform) <
         std::tie(b.inputType, b.outputType, b.batchSize, b.inputFieldShape, b.kernelShape, b.inputChannelsPerConvGroup,
                  b.outputChannelsPerConvGroup, b.numConvGroups, b.inputTransform, b.kernelTransform,
                  b.outputTransform);
}

namespace {
template <class T> void list(std::ostream &os, const char *name, const std::vector<T> &v) {
  os << "        " << name << " {";
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  os << "}\n";
}
} // namespace

std::ostream &operator<<(std::ostream &os, const ConvParams &p) {
  os << "Params: inputType " << p.inputType << ", outputType " << p.outputType << "\n"
     << "        batchSize " << p.batchSize << ", numConvGroups " << p.numConvGroups << "\n";
  list(os, "inputFieldShape", p.inputFieldShape);
  list(os, "kernelShape", p.kernelShape);
  os << "        inputChannelsPerConvGroup " << p.inputChannelsPerConvGroup << ", outputChannelsPerConvGroup "
     << p.outputChannelsPerConvGroup << "\n";
  list(os, "inputPadding lower", p.inputTransform.paddingLower);
  list(os, "inputPadding upper", p.inputTransform.paddingUpper);
  list(os, "inputDilation", p.inputTransform.dilation);
  list(os, "kernelDilation", p.kernelTransform.dilation);
  list(os, "stride", p.outputTransform.stride);
  list(os, "outputFieldShape", p.getOutputFieldShape());
  return os;
}

ConvParams getGradientParams(const ConvParams &fwd) {
  fwd.validate();
  const ConvParams p = fwd.canonicalize();
  const std::size_t n = p.getNumFieldDims();
  for (unsigned d = 0; d < n; ++d) {
    if (p.inputTransform.truncationLower[d] || p.inputTransform.truncationUpper[d] || p.inputTransform.flip[d] ||
        p.inputTransform.dilation[d] != 1 || p.kernelTransform.truncationLower[d] ||
        p.kernelTransform.truncationUpper[d] || p.kernelTransform.flip[d] || p.kernelTransform.paddingLower[d] ||
        p.kernelTransform.paddingUpper[d] || p.outputTransform.truncationLower[d] ||
        p.outputTransform.paddingLower[d] || p.outputTransform.paddingUpper[d])
      throw poplar_error("poplin::getGradientParams: only input padding, kernel dilation and output stride are "
                         "supported in ipusim's gradient parameters (dimension " + std::to_string(d) + ")");
  }
  // The output gradient, dilated by the stride and padded by the kernel's size less one (plus
  // the outputs the stride dropped at the end), correlated with the flipped kernel: a "full"
  // convolution whose output, truncated by the forward padding, is the input's size.
  ConvParams::InputTransform in(n), kernel(n);
  ConvParams::OutputTransform out(n);
  for (unsigned d = 0; d < n; ++d) {
    const unsigned k = p.getTransformedKernelSize(d);
    in.dilation[d] = p.outputTransform.stride[d];
    in.paddingLower[d] = k - 1;
    in.paddingUpper[d] = k - 1 + p.outputTransform.truncationUpper[d];
    kernel.dilation[d] = p.kernelTransform.dilation[d];
    out.truncationLower[d] = p.inputTransform.paddingLower[d];
    out.truncationUpper[d] = p.inputTransform.paddingUpper[d];
  }
  return ConvParams(p.outputType, p.inputType, p.batchSize, p.getOutputFieldShape(), p.kernelShape,
                    p.outputChannelsPerConvGroup, p.inputChannelsPerConvGroup, p.numConvGroups, in, kernel, out);
}

} // namespace poplin
