// popops' dynamic slices: the offset is a tensor the host writes between runs. Slices of a
// [5][3][4] tensor whose rows lie on different tiles, along dimension 0 (with wrap-around past
// the end) and along dimension 1; an update of two rows; each checked against the host's
// indexing, and errors.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/DynamicSlice.hpp>

#include <functional>
#include <iostream>
#include <vector>

using namespace poplar;
using namespace poplar::program;

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  Device device = ipuModel.createDevice();
  Graph graph(device.getTarget());
  const std::size_t D0 = 5, D1 = 3, D2 = 4, N = D0 * D1 * D2;
  std::vector<float> tv(N);
  for (std::size_t i = 0; i < N; ++i) tv[i] = float(i);
  Tensor t = graph.addVariable(FLOAT, {D0, D1, D2}, "t");
  for (unsigned r = 0; r < D0; ++r) graph.setTileMapping(t[r], r % 4);
  Tensor offset = graph.addVariable(UNSIGNED_INT, {}, "offset");
  graph.setTileMapping(offset, 3);
  Tensor s = graph.addVariable(FLOAT, {2, D1, D2}, "s");
  graph.setTileMapping(s, 2);

  Sequence slice0, slice1, update;
  Tensor rows = popops::dynamicSlice(graph, t, offset, {0}, {2}, slice0);
  Tensor cols = popops::dynamicSlice(graph, t, offset, {1}, {2}, slice1);
  popops::dynamicUpdate(graph, t, s, offset, {0}, {2}, update);
  graph.createHostWrite("t", t);
  graph.createHostRead("t", t);
  graph.createHostWrite("offset", offset);
  graph.createHostWrite("s", s);
  graph.createHostRead("rows", rows);
  graph.createHostRead("cols", cols);
  Engine engine(graph, {slice0, slice1, update});
  engine.load(device);
  engine.writeTensor("t", tv.data(), tv.data() + N);
  unsigned bad = 0;
  for (unsigned off : {1u, 4u}) {
    engine.writeTensor("offset", &off, &off + 1);
    engine.run(0);
    engine.run(1);
    std::vector<float> r(2 * D1 * D2), c(D0 * 2 * D2);
    engine.readTensor("rows", r.data(), r.data() + r.size());
    engine.readTensor("cols", c.data(), c.data() + c.size());
    unsigned wrong = 0;
    for (std::size_t j = 0; j < 2; ++j)
      for (std::size_t k = 0; k < D1 * D2; ++k) wrong += r[j * D1 * D2 + k] != tv[((off + j) % D0) * D1 * D2 + k];
    std::cout << "rows at offset " << off << ": " << (wrong ? std::to_string(wrong) + " wrong" : "ok") << "\n";
    bad += wrong;
    wrong = 0;
    for (std::size_t a = 0; a < D0; ++a)
      for (std::size_t j = 0; j < 2; ++j)
        for (std::size_t k = 0; k < D2; ++k)
          wrong += c[(a * 2 + j) * D2 + k] != tv[(a * D1 + (off + j) % D1) * D2 + k];
    std::cout << "columns at offset " << off << ": " << (wrong ? std::to_string(wrong) + " wrong" : "ok") << "\n";
    bad += wrong;
  }
  // Rows 4 and 0 (offset 4 wraps) set to -1 and -2.
  std::vector<float> sv(2 * D1 * D2);
  for (std::size_t i = 0; i < sv.size(); ++i) sv[i] = i < D1 * D2 ? -1.0f : -2.0f;
  engine.writeTensor("s", sv.data(), sv.data() + sv.size());
  engine.run(2);
  std::vector<float> after(N);
  engine.readTensor("t", after.data(), after.data() + N);
  unsigned wrong = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const std::size_t row = i / (D1 * D2);
    wrong += after[i] != (row == 4 ? -1.0f : row == 0 ? -2.0f : tv[i]);
  }
  std::cout << "update at offset 4: " << (wrong ? std::to_string(wrong) + " wrong" : "ok") << "\n";
  bad += wrong;

  Sequence p;
  auto error = [&](const std::function<void()> &f) {
    try {
      f();
      std::cout << "no error\n";
    } catch (const poplar_error &e) {
      std::cout << "error: " << e.what() << "\n";
    }
  };
  error([&] { popops::dynamicSlice(graph, t, offset, {3}, {1}, p); });
  error([&] { popops::dynamicSlice(graph, t, offset, {0}, {6}, p); });
  error([&] { popops::dynamicSlice(graph, t, t, {0}, {1}, p); });
  error([&] { popops::dynamicUpdate(graph, t, t, offset, {0}, {2}, p); });
  return bad ? 1 : 0;
}
