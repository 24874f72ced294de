// A Copy whose source and destination overlap copies as if through a temporary (dst = src), on
// one tile and across tiles, for words and for bytes (helper review of issue 10: the on-tile and
// exchange parts used to overwrite elements before reading them).
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <iostream>
#include <vector>

using namespace poplar;
using namespace poplar::program;

template <class T> void show(const char *name, const std::vector<T> &v) {
  std::cout << "  " << name << ":";
  for (T x : v) std::cout << " " << int(x);
  std::cout << "\n";
}

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  Device device = ipuModel.createDevice();
  Graph g(device.getTarget());
  Tensor x = g.addVariable(INT, {8}, "x"); // x[0..3] on tile 0, x[4..7] on tile 1
  g.setTileMapping(x.slice(0, 4), 0);
  g.setTileMapping(x.slice(4, 8), 1);
  Tensor h = g.addVariable(CHAR, {9}, "h"); // bytes sharing words, on tile 2
  g.setTileMapping(h, 2);
  g.createHostWrite("x", x);
  g.createHostRead("x", x);
  g.createHostWrite("h", h);
  g.createHostRead("h", h);
  const std::vector<std::pair<const char *, Program>> programs = {
      {"x[1:8] = x[0:7] (shift right, across the tile boundary)", Copy(x.slice(0, 7), x.slice(1, 8))},
      {"x[0:7] = x[1:8] (shift left)", Copy(x.slice(1, 8), x.slice(0, 7))},
      {"x = reverse(x)", Copy(x, x.reverse(0))},
      {"x = concat(x[4:8], x[0:4]) (swap the tiles' halves)", Copy(concat(x.slice(4, 8), x.slice(0, 4)), x)},
      {"h[1:9] = h[0:8] (bytes)", Copy(h.slice(0, 8), h.slice(1, 9))},
      {"h[0:8] = h[1:9] (bytes)", Copy(h.slice(1, 9), h.slice(0, 8))},
      {"h[0:9:2] = h[0:9:2] reversed (strided bytes)", Copy(h.subSample(2, 0), h.subSample(2, 0).reverse(0))},
  };
  std::vector<Program> progs;
  for (const auto &p : programs) progs.push_back(p.second);
  Engine engine(g, progs);
  engine.load(device);
  for (unsigned i = 0; i < progs.size(); ++i) {
    std::vector<int> xv = {1, 2, 3, 4, 5, 6, 7, 8};
    std::vector<signed char> hv = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    engine.writeTensor("x", xv.data(), xv.data() + xv.size());
    engine.writeTensor("h", hv.data(), hv.data() + hv.size());
    engine.run(i);
    engine.readTensor("x", xv.data(), xv.data() + xv.size());
    engine.readTensor("h", hv.data(), hv.data() + hv.size());
    std::cout << programs[i].first << "\n";
    show("x", xv);
    show("h", hv);
  }
  return 0;
}
