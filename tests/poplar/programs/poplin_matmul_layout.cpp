// Where createMatMulInputLHS/RHS put the operands of a large product (docs/poplin.md,
// "Operands"): each block of A and of B on one of the tiles that multiply it, its home, chosen so
// that no tile pair (tiles 2j and 2j+1, which share their transmit lanes for 64-bit sends) has
// two blocks to send. The 1024^3 half product's plan: rows in 9 blocks of 114, columns in 32 of
// 32, depth in 5 of 208, so 45 blocks of A (114 x 208 halves, 23,712) and 160 of B (208 x 32,
// 6,656), 205 blocks on 205 pairs. (With session 20's plan, 11 x 16 x 8, and every block on the
// first tile that multiplies it, pairs held up to four blocks.)
#include <poplar/IPUModel.hpp>
#include <poplin/MatMul.hpp>

#include <algorithm>
#include <iostream>
#include <map>
#include <vector>

using namespace poplar;

int main() {
  IPUModel ipuModel; // a full GC200: 1,472 tiles
  Device device = ipuModel.createDevice();
  Graph graph(device.getTarget());
  const OptionFlags options{{"partialsType", "half"}};
  const Tensor a = poplin::createMatMulInputLHS(graph, HALF, {1024, 1024}, {1024, 1024}, "A", options);
  const Tensor b = poplin::createMatMulInputRHS(graph, HALF, {1024, 1024}, {1024, 1024}, "B", options);
  std::map<unsigned, std::size_t> aTiles, bTiles, pairs; // elements on each
  auto count = [&](const Tensor &t, std::map<unsigned, std::size_t> &tiles) {
    const auto mapping = graph.getTileMapping(t);
    for (unsigned tile = 0; tile < mapping.size(); ++tile)
      for (const auto &interval : mapping[tile]) {
        tiles[tile] += interval.size();
        pairs[tile / 2] += interval.size();
      }
  };
  count(a, aTiles);
  count(b, bTiles);
  std::size_t aMax = 0, bMax = 0, pairMax = 0;
  for (const auto &t : aTiles) aMax = std::max(aMax, t.second);
  for (const auto &t : bTiles) bMax = std::max(bMax, t.second);
  for (const auto &p : pairs) pairMax = std::max(pairMax, p.second);
  std::cout << "A: " << aTiles.size() << " tiles, at most " << aMax << " elements a tile\n"
            << "B: " << bTiles.size() << " tiles, at most " << bMax << " elements a tile\n"
            << "tile pairs holding operands: " << pairs.size() << ", at most " << pairMax << " elements a pair\n";
  return 0;
}
