// Convolutions as matrix products on the AMP (docs/poplin.md "Convolutions as products").
#ifndef IPUSIM_POPLIN_CONVMATMUL_HPP
#define IPUSIM_POPLIN_CONVMATMUL_HPP

#include <poplin/ConvParams.hpp>

#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>

#include <string>

namespace poplin::detail {

/// The original index of transformed coordinate t (of `total`) in a dimension of `size` elements
/// under transform T, or -1 where t is padding or a dilation's hole.
long originalIndex(long t, std::size_t size, const ConvParams::InputTransform &T, unsigned d, long total);

/// Tile i of `total` pieces spread evenly over the IPU.
unsigned spreadTile(const poplar::Graph &graph, std::size_t i, std::size_t total);

/// Pieces 0..count-1, as pieces first.. of `total`, on their spreadTile: a mapping of intervals
/// of piece numbers, as popops' addTransposeVertices takes.
poplar::Graph::TileToTensorMapping spreadMapping(const poplar::Graph &graph, std::size_t count, std::size_t first,
                                                 std::size_t total);

/// Whether the convolution runs as a product (its transforms, types and memory allow it and its
/// output has enough rows for the AMP); `proportion` is the options' availableMemoryProportion.
bool convAsProduct(const poplar::Graph &graph, const ConvParams &p, const poplar::OptionFlags &options,
                   double proportion);

/// The output [N][G Co][field] laid out as the product writes it.
poplar::Tensor createProductConvOutput(poplar::Graph &graph, const ConvParams &p, const poplar::OptionFlags &options,
                                       double proportion, const std::string &name);

/// out = the convolution of in by weights (given [G][Ci][Co][kernel] transposed and flipped with
/// transposeAndFlipWeights), as a product.
void productConvolution(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &weights,
                        const poplar::Tensor &out, const ConvParams &p, bool transposeAndFlipWeights,
                        poplar::program::Sequence &prog, const poplar::OptionFlags &options, double proportion,
                        const std::string &name);

/// Writes the weight deltas [G][Co][Ci][kernel] (of the input type, laid out by the caller) of
/// the convolution: the expanded activations, transposed, by the output gradient.
void productWeightDeltas(poplar::Graph &graph, const poplar::Tensor &zDeltas, const poplar::Tensor &activations,
                         const poplar::Tensor &deltas, const ConvParams &p, poplar::program::Sequence &prog,
                         const poplar::OptionFlags &options, double proportion, const std::string &name);

} // namespace poplin::detail

#endif
