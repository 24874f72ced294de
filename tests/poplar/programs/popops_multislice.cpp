// popops' multi-slices and multi-updates (embeddings) on 16 tiles, each against the host's
// indexing: a float [50][12] table (a column block a tile), a float [30][4] table whose plan
// splits the rows too (a small availableMemoryProportion: the slices are partials summed by
// popops::reduce), and a half [20][6] table (columns in pairs). Seven indices with a repeat and
// one past the table: multiSlice (zeros for it), multiUpdate (the last of a repeat wins),
// multiUpdateAdd with scale 0.5 (repeats accumulate), multiUpdateMax; then the errors.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/DynamicSlice.hpp>

#include <algorithm>
#include <functional>
#include <iostream>
#include <vector>

using namespace poplar;
using namespace poplar::program;

namespace {

const std::vector<unsigned> kIndices = {3, 0, 7, 3, 1000, 9, 2};

float tableAt(std::size_t i) { return float(int(i * 5 % 17) - 8) * 0.25f; }
float sliceAt(std::size_t i) { return float(int(i * 3 % 11) - 5) * 0.5f; }

void printError(const std::function<void()> &f) {
  try {
    f();
    std::cout << "no error\n";
  } catch (const poplar_error &e) {
    std::cout << "error: " << e.what() << "\n";
  }
}

} // namespace

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 16;
  Device device = ipuModel.createDevice();
  const Target &target = device.getTarget();
  Graph graph(target);
  struct Case {
    const char *name;
    Type type;
    std::size_t rows, cols;
    OptionFlags options;
  };
  const std::vector<Case> cases = {{"float [50][12]", FLOAT, 50, 12, {}},
                                   {"float [30][4], rows split", FLOAT, 30, 4, {{"availableMemoryProportion", "0.0001"}}},
                                   {"half [20][6]", HALF, 20, 6, {}}};
  const std::size_t n = kIndices.size();
  Sequence prog;
  for (const Case &c : cases) {
    const popops::SlicePlan plan = popops::embedding::plan(graph, c.type, c.rows, c.cols, {n}, c.options);
    std::cout << c.name << ": " << plan << "\n";
    const std::string k = c.name;
    // Four tables laid out by the plan, each written by the host: sliced, set, added, maxed.
    std::vector<Tensor> tables;
    for (const char *what : {" sliced", " set", " added", " maxed"}) {
      tables.push_back(popops::createSliceableTensor(graph, c.type, {c.rows, c.cols}, {0}, {1}, plan, c.options, k + what));
      graph.createHostWrite(k + what, tables.back());
      graph.createHostRead(k + what, tables.back());
    }
    Tensor indices = popops::createIndicesTensor(graph, {0}, n, plan, c.options, k + " indices");
    Tensor s = popops::createSliceTensor(graph, c.type, {c.rows, c.cols}, {0}, {1}, n, plan, c.options, k + " s");
    Tensor scale = graph.addConstant(c.type == HALF ? FLOAT : c.type, {}, 0.5, "scale");
    graph.setTileMapping(scale, 5);
    Tensor out = popops::multiSlice(graph, tables[0], indices, {0}, {1}, prog, plan, c.options, "slice");
    popops::multiUpdate(graph, tables[1], s, indices, {0}, {1}, prog, plan, c.options, "update");
    popops::multiUpdateAdd(graph, tables[2], s, indices, scale, {0}, {1}, prog, plan, c.options, "updateAdd");
    popops::multiUpdateMax(graph, tables[3], s, indices, {0}, {1}, prog, plan, c.options, "updateMax");
    graph.createHostWrite(k + " indices", indices);
    graph.createHostWrite(k + " s", s);
    graph.createHostRead(k + " out", out);
  }
  Engine engine(graph, prog);
  engine.load(device);
  // Host buffers in float; half through the device's conversion.
  auto write = [&](const std::string &h, const Type &type, const std::vector<float> &v) {
    if (type == HALF) {
      std::vector<char> raw(v.size() * 2);
      copyFloatToDeviceHalf(target, v.data(), raw.data(), v.size());
      engine.writeTensor(h, raw.data(), raw.data() + raw.size());
    } else {
      engine.writeTensor(h, v.data(), v.data() + v.size());
    }
  };
  auto read = [&](const std::string &h, const Type &type, std::size_t count) {
    std::vector<float> v(count);
    if (type == HALF) {
      std::vector<char> raw(count * 2);
      engine.readTensor(h, raw.data(), raw.data() + raw.size());
      copyDeviceHalfToFloat(target, raw.data(), v.data(), count);
    } else {
      engine.readTensor(h, v.data(), v.data() + count);
    }
    return v;
  };
  for (const Case &c : cases) {
    const std::string k = c.name;
    std::vector<float> tv(c.rows * c.cols), sv(n * c.cols);
    for (std::size_t i = 0; i < tv.size(); ++i) tv[i] = tableAt(i);
    for (std::size_t i = 0; i < sv.size(); ++i) sv[i] = sliceAt(i);
    for (const char *what : {" sliced", " set", " added", " maxed"}) write(k + what, c.type, tv);
    engine.writeTensor(k + " indices", kIndices.data(), kIndices.data() + n);
    write(k + " s", c.type, sv);
  }
  engine.run(0);
  unsigned bad = 0;
  for (const Case &c : cases) {
    const std::string k = c.name;
    std::vector<float> tv(c.rows * c.cols);
    for (std::size_t i = 0; i < tv.size(); ++i) tv[i] = tableAt(i);
    // The host's results: slices, and the three updates applied index by index.
    std::vector<float> slices(n * c.cols, 0), set = tv, added = tv, maxed = tv;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < c.cols; ++j) {
        const unsigned r = kIndices[i];
        if (r >= c.rows) continue;
        const float s = sliceAt(i * c.cols + j);
        slices[i * c.cols + j] = tv[r * c.cols + j];
        set[r * c.cols + j] = s;
        added[r * c.cols + j] += 0.5f * s;
        maxed[r * c.cols + j] = std::max(maxed[r * c.cols + j], s);
      }
    auto compare = [&](const char *what, const std::string &handle, const std::vector<float> &want) {
      const std::vector<float> got = read(handle, c.type, want.size());
      unsigned wrong = 0;
      for (std::size_t i = 0; i < want.size(); ++i) wrong += got[i] != want[i];
      std::cout << k << " " << what << ": " << (wrong ? std::to_string(wrong) + " wrong" : "ok") << "\n";
      bad += wrong;
    };
    compare("multiSlice", k + " out", slices);
    compare("multiUpdate", k + " set", set);
    compare("multiUpdateAdd", k + " added", added);
    compare("multiUpdateMax", k + " maxed", maxed);
  }

  // Errors.
  Tensor t = popops::createSliceableTensor(graph, FLOAT, {8, 4}, {0}, {1}, popops::SlicePlan(), {}, "t");
  Tensor ints = graph.addVariable(INT, {3, 1}, "ints");
  graph.setTileMapping(ints, 0);
  Tensor idx = popops::createIndicesTensor(graph, {0}, 3, popops::SlicePlan(), {}, "idx");
  Sequence more;
  printError([&] { popops::multiSlice(graph, t, idx, {1}, {1}, more, popops::SlicePlan(), {}); });
  printError([&] { popops::multiSlice(graph, t, ints, {0}, {1}, more, popops::SlicePlan(), {}); });
  printError([&] {
    popops::multiSlice(graph, t, idx, {0}, {1}, more, popops::embedding::plan(graph, FLOAT, 9, 4, {3}, {}), {});
  });
  printError([&] {
    Tensor s = graph.addVariable(FLOAT, {3, 1, 5}, "s");
    graph.setTileMapping(s, 0);
    popops::multiUpdate(graph, t, s, idx, {0}, {1}, more, popops::SlicePlan(), {});
  });
  printError([&] { popops::embedding::plan(graph, FLOAT, 8, 4, {3}, {{"operationForUpdate", "min"}}); });
  return bad ? 1 : 0;
}
