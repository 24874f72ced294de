// ipusim's Poplar SDK: poputil's tile mapping helpers.
#ifndef IPUSIM_POPUTIL_TILEMAPPING_HPP
#define IPUSIM_POPUTIL_TILEMAPPING_HPP

#include <poplar/Graph.hpp>
#include <poplar/Tensor.hpp>

#include <vector>

namespace poputil {

/// Whole grains of `grainSize` elements spread evenly over the graph's tiles, each tile used
/// getting at least `minElementsPerTile`; tile order shifted by `offset` (reversed unless ascending).
std::vector<std::vector<poplar::Interval>> calcLinearTileMapping(const poplar::Graph &graph, std::vector<std::size_t> shape,
                                                                 unsigned minElementsPerTile, unsigned grainSize,
                                                                 unsigned offset = 0, bool ascendingOrder = true);
std::vector<std::vector<poplar::Interval>> calcLinearTileMapping(const poplar::Target &target, std::vector<std::size_t> shape,
                                                                 unsigned minElementsPerTile, unsigned grainSize,
                                                                 unsigned offset = 0, bool ascendingOrder = true);
/// The defaults: grains of the vector width of the tensor's type, at least 128 bytes a tile.
std::vector<std::vector<poplar::Interval>> calcLinearTileMapping(const poplar::Graph &graph, const poplar::Tensor &t,
                                                                 unsigned offset = 0, bool ascendingOrder = true);
void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile, unsigned grainSize);
void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t);
void mapTensorLinearlyWithOffset(poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile,
                                 unsigned grainSize, unsigned offset, bool ascendingOrder = true);
void mapTensorLinearlyWithOffset(poplar::Graph &graph, const poplar::Tensor &t, unsigned offset = 0,
                                 bool ascendingOrder = true);
/// The largest number of elements on one tile above the balanced share (0 = balanced).
unsigned getTileImbalance(const poplar::Graph::TileToTensorMapping &mapping, unsigned minElementsPerTile = 0,
                          unsigned grainSize = 1);
unsigned getTileImbalance(const poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile = 0,
                          unsigned grainSize = 1);
unsigned transformTileIndex(unsigned tile, unsigned numTiles, unsigned offset, bool ascending);
unsigned invTransformTileIndex(unsigned tile, unsigned numTiles, unsigned offset, bool ascending);

} // namespace poputil

#endif
