// popops' gathers, sorts, top k and transposes, and popnn's compute-set non-linearities, on 16
// tiles, each against the host's own computation:
//  - gather on one axis of a float [5][4][3] (createGatherInput, maxElementsPerTile 2: the
//    axis's rows split), int indices [2][3] with -1 and 9 (clamped into the axis);
//  - XLA gathers: the header's example (elements [1,1] and [2,1] of a 3x3), and windows of 2x5x3
//    from a [4][5][6] at starts given for dimensions {2, 0} (one clamped), and scalar indices
//    [2][2] into dimension 1 (one clamped), the output's dimensions interleaved;
//  - sort along either dimension (float and half), sortInPlace, sortKeyValue with equal keys
//    (their order kept), sortKeyValueInPlace;
//  - topK largest/smallest in each order, topKWithPermutation with ties, topKKeyValue, half keys;
//  - partialTranspose (float and half, into one compute set; sides the assembly blocks take),
//    nonLinearityInPlace and
//    nonLinearityInputGradient into compute sets; then the errors.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/Gather.hpp>
#include <popops/Rearrange.hpp>
#include <popops/Sort.hpp>
#include <popops/TopK.hpp>
#include <poputil/TileMapping.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;

namespace {

void printError(const std::function<void()> &f) {
  try {
    f();
    std::cout << "no error\n";
  } catch (const poplar_error &e) {
    std::cout << "error: " << e.what() << "\n";
  }
}

std::size_t product(const std::vector<std::size_t> &s) {
  std::size_t p = 1;
  for (std::size_t d : s) p *= d;
  return p;
}

// Row-major flat index of `at` in `shape`.
std::size_t flatIndex(const std::vector<std::size_t> &shape, const std::vector<std::size_t> &at) {
  std::size_t i = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) i = i * shape[d] + at[d];
  return i;
}

std::vector<std::size_t> unflatten(const std::vector<std::size_t> &shape, std::size_t i) {
  std::vector<std::size_t> at(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) at[d] = i % shape[d], i /= shape[d];
  return at;
}

// XLA's gather on the host, written from its definition.
std::vector<float> hostGather(const std::vector<float> &in, const std::vector<std::size_t> &inShape,
                              const std::vector<int> &idx, const std::vector<std::size_t> &idxShape,
                              std::size_t indexVectorDim, const std::vector<std::size_t> &offsetDims,
                              const std::vector<std::size_t> &sliceSizes, const std::vector<std::size_t> &collapsed,
                              const std::vector<unsigned> &startIndexMap, std::vector<std::size_t> &outShape) {
  std::vector<std::size_t> batchShape;
  for (std::size_t d = 0; d < idxShape.size(); ++d)
    if (d != indexVectorDim) batchShape.push_back(idxShape[d]);
  std::vector<std::size_t> windowDims; // the slice dimensions not collapsed
  for (std::size_t d = 0; d < inShape.size(); ++d)
    if (std::find(collapsed.begin(), collapsed.end(), d) == collapsed.end()) windowDims.push_back(d);
  const std::size_t outRank = batchShape.size() + offsetDims.size();
  outShape.assign(outRank, 0);
  std::size_t b = 0, w = 0;
  for (std::size_t d = 0; d < outRank; ++d)
    outShape[d] = std::find(offsetDims.begin(), offsetDims.end(), d) != offsetDims.end() ? sliceSizes[windowDims[w++]]
                                                                                           : batchShape[b++];
  std::vector<float> out(product(outShape));
  for (std::size_t o = 0; o < out.size(); ++o) {
    const std::vector<std::size_t> at = unflatten(outShape, o);
    std::vector<std::size_t> batchAt, windowAt;
    for (std::size_t d = 0; d < outRank; ++d)
      (std::find(offsetDims.begin(), offsetDims.end(), d) != offsetDims.end() ? windowAt : batchAt).push_back(at[d]);
    std::vector<std::size_t> inAt(inShape.size(), 0);
    for (std::size_t j = 0; j < startIndexMap.size(); ++j) {
      std::vector<std::size_t> idxAt;
      for (std::size_t d = 0, bd = 0; d < idxShape.size(); ++d) idxAt.push_back(d == indexVectorDim ? j : batchAt[bd++]);
      if (indexVectorDim == idxShape.size()) idxAt = batchAt;
      const long hi = long(inShape[startIndexMap[j]] - sliceSizes[startIndexMap[j]]);
      inAt[startIndexMap[j]] = std::size_t(std::min(std::max(long(idx[flatIndex(idxShape, idxAt)]), 0L), hi));
    }
    for (std::size_t i = 0; i < windowDims.size(); ++i) inAt[windowDims[i]] += windowAt[i];
    out[o] = in[flatIndex(inShape, inAt)];
  }
  return out;
}

float valueAt(std::size_t i) { return float(int(i * 7 % 23) - 11) * 0.5f; }

} // namespace

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 16;
  Device device = ipuModel.createDevice();
  const Target &target = device.getTarget();
  Graph graph(target);
  Sequence prog;

  // Each result the host checks: its handle, type, and the host's values (set after the run).
  struct Check {
    std::string name;
    Type type;
    std::vector<float> want;
  };
  std::vector<Check> checks;
  // Inputs the host writes.
  struct Input {
    std::string name;
    Type type;
    std::vector<float> values;
  };
  std::vector<Input> inputs;
  auto input = [&](const std::string &name, const Type &type, const Tensor &t) {
    std::vector<float> v(t.numElements());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = valueAt(i + inputs.size() * 5);
    graph.createHostWrite(name, t);
    Input in = {name, type, v};
    inputs.push_back(in);
    return v;
  };
  auto check = [&](const std::string &name, const Tensor &t, const std::vector<float> &want) {
    graph.createHostRead(name, t);
    Check c = {name, t.elementType(), want};
    checks.push_back(c);
  };

  // Gather on axis 1 of [5][4][3], indices [2][3] (int): [5][6][3].
  {
    Tensor in = popops::createGatherInput(graph, FLOAT, {5, 4, 3}, 1, popops::GatherParams(2), "gather1 in");
    const std::vector<float> iv = input("gather1 in", FLOAT, in);
    const std::vector<int> idx = {2, -1, 3, 9, 0, 1};
    Tensor indices = graph.addConstant(INT, {2, 3}, idx.data(), "gather1 indices");
    graph.setTileMapping(indices, 3);
    Tensor out = popops::gather(graph, in, indices, 1, prog, popops::GatherParams(2), "gather1");
    std::cout << "gather axis 1 of {5,4,3} by {2,3}: " << out.shapeToString() << "\n";
    std::vector<float> want;
    for (std::size_t a = 0; a < 5; ++a)
      for (std::size_t i = 0; i < idx.size(); ++i)
        for (std::size_t c = 0; c < 3; ++c) want.push_back(iv[(a * 4 + std::size_t(std::min(std::max(idx[i], 0), 3))) * 3 + c]);
    check("gather1", out, want);
  }
  // XLA gathers.
  struct XlaCase {
    std::string name;
    std::vector<std::size_t> inShape, idxShape;
    std::vector<int> idx;
    std::size_t indexVectorDim;
    std::vector<std::size_t> offsetDims, sliceSizes, collapsed;
    std::vector<unsigned> startIndexMap;
    bool create;
  };
  const std::vector<XlaCase> xla = {
      {"xla elements", {3, 3}, {2, 2}, {1, 1, 2, 1}, 1, {}, {1, 1}, {0, 1}, {0, 1}, false},
      {"xla windows", {4, 5, 6}, {3, 2}, {1, 0, 5, 3, 2, 1}, 1, {1, 2, 3}, {2, 5, 3}, {}, {2, 0}, true},
      {"xla scalar indices", {4, 5, 6}, {2, 2}, {3, 0, 1, 7}, 2, {0, 3}, {4, 1, 6}, {1}, {1}, false},
  };
  for (std::size_t c = 0; c < xla.size(); ++c) {
    const XlaCase &x = xla[c];
    Tensor in;
    if (x.create) {
      in = popops::createGatherInput(graph, FLOAT, x.inShape, x.sliceSizes, x.startIndexMap, x.name + " in");
    } else {
      in = graph.addVariable(FLOAT, x.inShape, x.name + " in");
      poputil::mapTensorLinearly(graph, in);
    }
    std::vector<float> iv = input(x.name + " in", FLOAT, in);
    if (c == 0) {
      std::iota(iv.begin(), iv.end(), 1.0f);
      inputs.back().values = iv;
    }
    Tensor indices = graph.addConstant(INT, x.idxShape, x.idx.data(), x.name + " indices");
    graph.setTileMapping(indices, 7);
    Tensor out = popops::gather(graph, in, indices, x.indexVectorDim, x.offsetDims, x.sliceSizes, x.collapsed,
                                x.startIndexMap, prog, x.name);
    std::vector<std::size_t> shape;
    const std::vector<float> want =
        hostGather(iv, x.inShape, x.idx, x.idxShape, x.indexVectorDim, x.offsetDims, x.sliceSizes, x.collapsed, x.startIndexMap, shape);
    std::cout << x.name << ": " << out.shapeToString() << (out.shape() == shape ? " (as XLA's)" : " (not XLA's shape)") << "\n";
    check(x.name, out, want);
  }

  // Sorts. keys [3][7] float along 1, [6][5] half along 0, in place [4][9] float along 1;
  // key-value with equal keys.
  auto hostSortRows = [](std::vector<float> v, std::size_t rows, std::size_t n) {
    for (std::size_t r = 0; r < rows; ++r) std::stable_sort(v.begin() + r * n, v.begin() + (r + 1) * n);
    return v;
  };
  {
    Tensor a = graph.addVariable(FLOAT, {3, 7}, "sort a");
    poputil::mapTensorLinearly(graph, a);
    const std::vector<float> av = input("sort a", FLOAT, a);
    check("sort a", popops::sort(graph, a, 1, prog, "sort a"), hostSortRows(av, 3, 7));

    Tensor b = graph.addVariable(HALF, {6, 5}, "sort b");
    poputil::mapTensorLinearly(graph, b);
    const std::vector<float> bv = input("sort b", HALF, b);
    std::vector<float> bt(30); // b transposed: its columns as rows
    for (std::size_t i = 0; i < 6; ++i)
      for (std::size_t j = 0; j < 5; ++j) bt[j * 6 + i] = bv[i * 5 + j];
    bt = hostSortRows(bt, 5, 6);
    std::vector<float> bwant(30);
    for (std::size_t i = 0; i < 6; ++i)
      for (std::size_t j = 0; j < 5; ++j) bwant[i * 5 + j] = bt[j * 6 + i];
    check("sort b", popops::sort(graph, b, 0, prog, "sort b"), bwant);

    Tensor c = graph.addVariable(FLOAT, {4, 9}, "sort c");
    graph.setTileMapping(c, 2);
    const std::vector<float> cv = input("sort c", FLOAT, c);
    popops::sortInPlace(graph, c, 1, prog, "sort c");
    check("sort c in place", c, hostSortRows(cv, 4, 9));

    // Keys with repeats; values their places: equal keys keep their order.
    const std::vector<float> keys = {3, 1, 2, 1, 3, 0, 2, 1, 5, 5, 4, 5, 0, 4, 4, 1};
    Tensor k = graph.addVariable(FLOAT, {2, 8}, "kv keys");
    Tensor v = graph.addVariable(INT, {2, 8}, "kv values");
    poputil::mapTensorLinearly(graph, k);
    poputil::mapTensorLinearly(graph, v);
    input("kv keys", FLOAT, k);
    inputs.back().values = keys;
    input("kv values", INT, v);
    std::vector<float> places(16);
    std::iota(places.begin(), places.end(), 0.0f);
    inputs.back().values = places;
    std::vector<float> wantV, wantK;
    for (std::size_t r = 0; r < 2; ++r) {
      std::vector<std::size_t> order(8);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return keys[r * 8 + x] < keys[r * 8 + y]; });
      for (std::size_t i : order) wantV.push_back(float(r * 8 + i)), wantK.push_back(keys[r * 8 + i]);
    }
    check("sortKeyValue", popops::sortKeyValue(graph, k, v, 1, prog, "kv"), wantV);
    Tensor k2 = graph.clone(k, "kv2 keys"), v2 = graph.clone(v, "kv2 values");
    prog.add(Copy(k, k2));
    prog.add(Copy(v, v2));
    popops::sortKeyValueInPlace(graph, k2, v2, 1, prog, "kv2");
    check("sortKeyValueInPlace keys", k2, wantK);
    check("sortKeyValueInPlace values", v2, wantV);
  }

  // Top k of [4][10] (ties among the values), half [3][8].
  struct TopKCase {
    std::string name;
    Type type;
    std::size_t rows, n;
    popops::TopKParams params;
  };
  const std::vector<TopKCase> topks = {
      {"topK largest descending", FLOAT, 4, 10, popops::TopKParams(3, true, popops::SortOrder::DESCENDING)},
      {"topK smallest ascending", FLOAT, 4, 10, popops::TopKParams(4, false, popops::SortOrder::ASCENDING)},
      {"topK largest ascending", FLOAT, 4, 10, popops::TopKParams(5, true, popops::SortOrder::ASCENDING, true)},
      {"topK smallest descending", FLOAT, 4, 10, popops::TopKParams(2, false, popops::SortOrder::DESCENDING)},
      {"topK half largest", HALF, 3, 8, popops::TopKParams(8, true, popops::SortOrder::NONE)},
  };
  for (std::size_t c = 0; c < topks.size(); ++c) {
    const TopKCase &t = topks[c];
    std::cout << t.name << ": " << t.params << "\n";
    Tensor in = popops::createTopKInput(graph, t.type, {t.rows, t.n}, t.params, t.name + " in");
    std::vector<float> iv = input(t.name + " in", t.type, in);
    for (float &x : iv) x = std::floor(x / 2); // ties
    inputs.back().values = iv;
    std::pair<Tensor, Tensor> r = popops::topKWithPermutation(graph, prog, in, t.params, t.name);
    // The host: places ordered by the selection (stable), the first k, then the order asked.
    std::vector<float> wantK, wantP;
    for (std::size_t row = 0; row < t.rows; ++row) {
      const float *x = &iv[row * t.n];
      std::vector<std::size_t> order(t.n);
      std::iota(order.begin(), order.end(), 0);
      const bool largest = t.params.largest;
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return largest ? x[b] < x[a] : x[a] < x[b]; });
      order.resize(t.params.k);
      const bool descending = t.params.sortOrder == popops::SortOrder::NONE ? largest
                                                                             : t.params.sortOrder == popops::SortOrder::DESCENDING;
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return x[a] != x[b] ? (descending ? x[b] < x[a] : x[a] < x[b]) : a < b;
      });
      for (std::size_t i : order) wantK.push_back(x[i]), wantP.push_back(float(i));
    }
    check(t.name + " values", r.first, wantK);
    check(t.name + " places", r.second, wantP);
    if (c == 0) {
      // The same selection carrying values: the places as floats.
      Tensor values = graph.addVariable(FLOAT, {t.rows, t.n}, "topK values");
      poputil::mapTensorLinearly(graph, values);
      input("topK values", FLOAT, values);
      for (std::size_t i = 0; i < t.rows * t.n; ++i) inputs.back().values[i] = float(i % t.n);
      std::pair<Tensor, Tensor> kv = popops::topKKeyValue(graph, prog, in, values, t.params, "topKKeyValue");
      check("topKKeyValue keys", kv.first, wantK);
      check("topKKeyValue values", kv.second, wantP);
      check("topK alone", popops::topK(graph, prog, in, t.params, "topK"), wantK);
    }
  }

  // Transposes of [3][4][5] float and [2][3][6] half in one compute set; the compute-set forms
  // of popnn's non-linearities in another.
  {
    ComputeSet cs = graph.addComputeSet("transposes");
    Tensor f = graph.addVariable(FLOAT, {3, 4, 5}, "transpose f");
    Tensor h = graph.addVariable(HALF, {2, 3, 6}, "transpose h");
    poputil::mapTensorLinearly(graph, f);
    poputil::mapTensorLinearly(graph, h);
    const std::vector<float> fv = input("transpose f", FLOAT, f), hv = input("transpose h", HALF, h);
    Tensor ft = popops::rearrange::partialTranspose(graph, f, cs, "transpose f");
    Tensor ht = popops::rearrange::partialTranspose(graph, h, cs, "transpose h");
    prog.add(Execute(cs));
    std::cout << "partialTranspose: " << ft.shapeToString() << " " << ht.shapeToString() << "\n";
    auto hostTranspose = [](const std::vector<float> &v, std::size_t m, std::size_t rows, std::size_t cols) {
      std::vector<float> o(v.size());
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t r = 0; r < rows; ++r)
          for (std::size_t c = 0; c < cols; ++c) o[(i * cols + c) * rows + r] = v[(i * rows + r) * cols + c];
      return o;
    };
    check("transpose f", ft, hostTranspose(fv, 3, 4, 5));
    check("transpose h", ht, hostTranspose(hv, 2, 3, 6));
    // Sides that take the assembly blocks (half multiples of 4, float even), on one tile: float
    // [7][6][4] is 21 bands of two 2 x 2 blocks (three a matrix, so the workers' bands cross
    // from matrix to matrix), half [5][8][12] 10 bands of three 4 x 4 blocks.
    Tensor fb = graph.addVariable(FLOAT, {7, 6, 4}, "transpose f blocks");
    Tensor hb = graph.addVariable(HALF, {5, 8, 12}, "transpose h blocks");
    graph.setTileMapping(fb, 3);
    graph.setTileMapping(hb, 4);
    const std::vector<float> fbv = input("transpose f blocks", FLOAT, fb), hbv = input("transpose h blocks", HALF, hb);
    ComputeSet blocks = graph.addComputeSet("transposes in blocks");
    check("transpose f blocks", popops::rearrange::partialTranspose(graph, fb, blocks, "transpose f blocks"),
          hostTranspose(fbv, 7, 6, 4));
    check("transpose h blocks", popops::rearrange::partialTranspose(graph, hb, blocks, "transpose h blocks"),
          hostTranspose(hbv, 5, 8, 12));
    prog.add(Execute(blocks));

    ComputeSet nl = graph.addComputeSet("non-linearities");
    Tensor x = graph.addVariable(FLOAT, {3, 10}, "relu x");
    Tensor act = graph.addVariable(FLOAT, {3, 10}, "tanh act");
    Tensor g = graph.addVariable(FLOAT, {3, 10}, "tanh grad");
    for (Tensor *t : {&x, &act, &g}) poputil::mapTensorLinearly(graph, *t);
    const std::vector<float> xv = input("relu x", FLOAT, x);
    std::vector<float> av = input("tanh act", FLOAT, act);
    for (float &a : av) a = a / 8;
    inputs.back().values = av;
    const std::vector<float> gv = input("tanh grad", FLOAT, g);
    popnn::nonLinearityInPlace(graph, popnn::NonLinearityType::RELU, x, nl, "relu");
    Tensor dx = popnn::nonLinearityInputGradient(graph, popnn::NonLinearityType::TANH, act, g, nl, "tanh grad");
    prog.add(Execute(nl));
    std::vector<float> relu(30), grad(30);
    for (std::size_t i = 0; i < 30; ++i) relu[i] = std::max(xv[i], 0.0f), grad[i] = gv[i] * (1.0f - av[i] * av[i]);
    check("relu in a compute set", x, relu);
    check("tanh gradient in a compute set", dx, grad);
  }

  Engine engine(graph, prog);
  engine.load(device);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Input &in = inputs[i];
    if (in.type == HALF) {
      std::vector<char> raw(in.values.size() * 2);
      copyFloatToDeviceHalf(target, in.values.data(), raw.data(), in.values.size());
      engine.writeTensor(in.name, raw.data(), raw.data() + raw.size());
    } else if (in.type == INT) {
      std::vector<int> v(in.values.begin(), in.values.end());
      engine.writeTensor(in.name, v.data(), v.data() + v.size());
    } else {
      engine.writeTensor(in.name, in.values.data(), in.values.data() + in.values.size());
    }
  }
  engine.run(0);
  std::cout << "run: " << engine.getLastRunCycles() << " cycles\n";
  unsigned bad = 0;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const Check &c = checks[i];
    std::vector<float> got(c.want.size());
    if (c.type == HALF) {
      std::vector<char> raw(got.size() * 2);
      engine.readTensor(c.name, raw.data(), raw.data() + raw.size());
      copyDeviceHalfToFloat(target, raw.data(), got.data(), got.size());
    } else if (c.type == INT || c.type == UNSIGNED_INT) {
      std::vector<int> v(got.size());
      engine.readTensor(c.name, v.data(), v.data() + v.size());
      got.assign(v.begin(), v.end());
    } else {
      engine.readTensor(c.name, got.data(), got.data() + got.size());
    }
    unsigned wrong = 0;
    for (std::size_t j = 0; j < got.size(); ++j) wrong += std::fabs(got[j] - c.want[j]) > 1e-6f * (1 + std::fabs(c.want[j]));
    std::cout << c.name << ": " << (wrong ? std::to_string(wrong) + " of " + std::to_string(got.size()) + " wrong" : "ok") << "\n";
    if (wrong) {
      for (std::size_t j = 0; j < got.size(); ++j) std::cout << " " << got[j] << "/" << c.want[j];
      std::cout << "\n";
    }
    bad += wrong;
  }

  // Errors.
  Sequence more;
  Tensor t = graph.addVariable(FLOAT, {4, 6}, "t");
  graph.setTileMapping(t, 0);
  Tensor fidx = graph.addVariable(FLOAT, {2}, "fidx");
  graph.setTileMapping(fidx, 0);
  Tensor uidx = graph.addVariable(UNSIGNED_INT, {2, 2}, "uidx");
  graph.setTileMapping(uidx, 0);
  printError([&] { popops::gather(graph, t, uidx, 2, more, popops::GatherParams()); });
  printError([&] { popops::gather(graph, t, fidx, 0, more, popops::GatherParams()); });
  printError([&] { popops::gather(graph, t, uidx, 1, {1}, {1, 7}, {0}, {0, 1}, more); });
  printError([&] { popops::gather(graph, t, uidx, 1, {1}, {1, 3}, {0}, {0}, more); });
  printError([&] { popops::gather(graph, t, uidx, 1, {1}, {2, 3}, {0}, {0, 1}, more); });
  printError([&] { popops::sort(graph, t, 2, more); });
  printError([&] { popops::sortKeyValue(graph, t, t.transpose(), 0, more); });
  printError([&] { popops::topK(graph, more, t, popops::TopKParams(7, true, popops::SortOrder::NONE)); });
  printError([&] { popops::rearrange::partialTranspose(graph, t.flatten(), graph.addComputeSet("x")); });
  printError([&] {
    ComputeSet cs = graph.addComputeSet("softmax");
    popnn::nonLinearityInPlace(graph, popnn::NonLinearityType::SOFTMAX, t, cs);
  });
  return bad ? 1 : 0;
}
