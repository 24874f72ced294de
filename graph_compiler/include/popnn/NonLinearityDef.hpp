// ipusim's Poplar SDK: popnn's non-linearities (names as poplibs').
#ifndef IPUSIM_POPNN_NONLINEARITYDEF_HPP
#define IPUSIM_POPNN_NONLINEARITYDEF_HPP

namespace popnn {
enum class NonLinearityType {
  SIGMOID,        ///< 1 / (1 + e^-x)
  HARD_SIGMOID,   ///< max(0, min(1, 0.2 x + 0.5))
  RELU,           ///< max(x, 0)
  TANH,           ///< tanh(x)
  GELU,           ///< x Phi(x), Phi by the tanh approximation
  GELU_ERF,       ///< x Phi(x), Phi by erf
  SWISH,          ///< x / (1 + e^-x)
  SOFTMAX,        ///< over the innermost dimension
  SOFTMAX_STABLE, ///< the same, with the row's maximum subtracted first
  SOFTMAX_SCALED  ///< SOFTMAX_STABLE times a scaling returned to the caller
};
} // namespace popnn

#endif
