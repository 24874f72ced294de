// ipusim's Poplar SDK: poplin's convolution parameter utilities.
#ifndef IPUSIM_POPLIN_CONVUTIL_HPP
#define IPUSIM_POPLIN_CONVUTIL_HPP

#include <poplin/ConvParams.hpp>

namespace poplin {
/// The parameters of the convolution that gives the input gradient of `params`'s from its
/// output gradient, with the weights transposed and flipped (convolution's
/// transposeAndFlipWeights = true), as poplibs defines it. ipusim supports this for
/// convolutions whose input and kernel are neither truncated nor flipped and whose input is not
/// dilated, with no output truncation or padding: poplar_error otherwise.
ConvParams getGradientParams(const ConvParams &params);
} // namespace poplin

#endif
