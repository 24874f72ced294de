#include "ipusim/gc/Graph.h"

#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>

namespace poputil {

unsigned transformTileIndex(unsigned tile, unsigned numTiles, unsigned offset, bool ascending) {
  const unsigned t = (tile + offset) % numTiles;
  return ascending ? t : numTiles - 1 - t;
}
unsigned invTransformTileIndex(unsigned tile, unsigned numTiles, unsigned offset, bool ascending) {
  const unsigned t = ascending ? tile : numTiles - 1 - tile;
  return (t + numTiles - offset % numTiles) % numTiles;
}

std::vector<std::vector<poplar::Interval>> calcLinearTileMapping(const poplar::Target &target, std::vector<std::size_t> shape,
                                                                 unsigned minElementsPerTile, unsigned grainSize,
                                                                 unsigned offset, bool ascendingOrder) {
  const unsigned tiles = target.getNumTiles();
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  std::vector<std::vector<poplar::Interval>> out(tiles);
  for (const ipusim::gc::LinearPart &p : ipusim::gc::linearMapping(n, tiles, grainSize, minElementsPerTile))
    out[transformTileIndex(p.tile, tiles, offset, ascendingOrder)].push_back(poplar::Interval(p.begin, p.end));
  return out;
}
std::vector<std::vector<poplar::Interval>> calcLinearTileMapping(const poplar::Graph &graph, std::vector<std::size_t> shape,
                                                                 unsigned minElementsPerTile, unsigned grainSize,
                                                                 unsigned offset, bool ascendingOrder) {
  return calcLinearTileMapping(graph.getTarget(), shape, minElementsPerTile, grainSize, offset, ascendingOrder);
}
std::vector<std::vector<poplar::Interval>> calcLinearTileMapping(const poplar::Graph &graph, const poplar::Tensor &t,
                                                                 unsigned offset, bool ascendingOrder) {
  const poplar::Target &target = graph.getTarget();
  const unsigned size = unsigned(target.getTypeSize(t.elementType()));
  return calcLinearTileMapping(graph, t.shape(), (128 + size - 1) / size, target.getVectorWidth(t.elementType()), offset,
                               ascendingOrder);
}

void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile, unsigned grainSize) {
  mapTensorLinearlyWithOffset(graph, t, minElementsPerTile, grainSize, 0, true);
}
void mapTensorLinearly(poplar::Graph &graph, const poplar::Tensor &t) { mapTensorLinearlyWithOffset(graph, t, 0, true); }
void mapTensorLinearlyWithOffset(poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile,
                                 unsigned grainSize, unsigned offset, bool ascendingOrder) {
  graph.setTileMapping(t, calcLinearTileMapping(graph, t.shape(), minElementsPerTile, grainSize, offset, ascendingOrder));
}
void mapTensorLinearlyWithOffset(poplar::Graph &graph, const poplar::Tensor &t, unsigned offset, bool ascendingOrder) {
  graph.setTileMapping(t, calcLinearTileMapping(graph, t, offset, ascendingOrder));
}

unsigned getTileImbalance(const poplar::Graph::TileToTensorMapping &mapping, unsigned minElementsPerTile, unsigned grainSize) {
  std::size_t total = 0, most = 0;
  for (const auto &tile : mapping) {
    std::size_t n = 0;
    for (const poplar::Interval &i : tile) n += i.size();
    total += n;
    most = std::max(most, n);
  }
  if (mapping.empty()) return 0;
  grainSize = std::max(1u, grainSize);
  std::size_t balanced = (total + mapping.size() - 1) / mapping.size();
  balanced = std::max<std::size_t>((balanced + grainSize - 1) / grainSize * grainSize, minElementsPerTile);
  return most > balanced ? unsigned(most - balanced) : 0;
}
unsigned getTileImbalance(const poplar::Graph &graph, const poplar::Tensor &t, unsigned minElementsPerTile, unsigned grainSize) {
  return getTileImbalance(graph.getTileMapping(t), minElementsPerTile, grainSize);
}

} // namespace poputil
