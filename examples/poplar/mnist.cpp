// The seeds' MNIST network trained on Fashion-MNIST with Poplar and poplibs, as a user writes it:
// ConvLayer(1, 10, 5, 2), ConvLayer(10, 20, 5, 2) (a 5x5 convolution with bias, 2x2 max pooling,
// ReLU), Linear(320, 256) + ReLU, Linear(256, 10), softmax cross-entropy, AdamW (lr 0.001), batch
// 40. Images and labels arrive through host-to-device streams; every value is computed on the
// simulated IPU. Prints the loss as it trains, the test accuracy, and simulated cycles and time.
//
//   g++ --std=c++17 mnist.cpp -lpoplar -lpoputil -lpopops -lpoplin -lpopnn -lz -o mnist
//   ./mnist [--steps N | --epochs E] [--test-images N] [--tiles T] [--print-every K]
//           [--same-batch] [--data DIR (default /usr/share/datasets/fashion-mnist)]
// --same-batch trains on the first batch every step (a short run whose loss must fall: the test).
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/ConvUtil.hpp>
#include <poplin/Convolution.hpp>
#include <poplin/MatMul.hpp>
#include <popnn/Loss.hpp>
#include <popnn/NonLinearity.hpp>
#include <popnn/Pooling.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Reduce.hpp>
#include <popops/Zero.hpp>
#include <poputil/TileMapping.hpp>

#include <zlib.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;
namespace pe = popops::expr;

namespace {

const std::size_t kBatch = 40;

// An IDX file (gzip-compressed): the items after the header.
std::vector<uint8_t> readIdx(const std::string &path, std::size_t headerBytes) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error(path + ": cannot open (install Debian's dataset-fashion-mnist)");
  std::vector<uint8_t> data;
  uint8_t buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) data.insert(data.end(), buf, buf + n);
  gzclose(f);
  if (data.size() < headerBytes) throw std::runtime_error(path + ": truncated");
  return std::vector<uint8_t>(data.begin() + long(headerBytes), data.end());
}

struct Dataset {
  std::vector<uint8_t> images, labels;
  std::size_t size() const { return labels.size(); }
};

Dataset load(const std::string &dir, const std::string &prefix) {
  Dataset d{readIdx(dir + "/" + prefix + "-images-idx3-ubyte.gz", 16), readIdx(dir + "/" + prefix + "-labels-idx1-ubyte.gz", 8)};
  if (d.images.size() != d.size() * 784) throw std::runtime_error(prefix + ": images and labels disagree");
  return d;
}

// A parameter with its AdamW state.
struct Param {
  std::string name;
  Tensor w, m, v;
  std::vector<float> init;
};

} // namespace

int main(int argc, char **argv) {
  std::size_t steps = 20, testImages = 400, tiles = 1472, printEvery = 5;
  double epochs = 0;
  bool sameBatch = false;
  std::string dir = "/usr/share/datasets/fashion-mnist";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--steps") steps = std::stoul(next());
    else if (a == "--epochs") epochs = std::stod(next());
    else if (a == "--test-images") testImages = std::stoul(next());
    else if (a == "--tiles") tiles = std::stoul(next());
    else if (a == "--print-every") printEvery = std::stoul(next());
    else if (a == "--data") dir = next();
    else if (a == "--same-batch") sameBatch = true;
    else {
      std::cerr << "mnist: unknown option " << a << "\n";
      return 2;
    }
  }
  const Dataset train = load(dir, "train"), test = load(dir, "t10k");
  if (epochs > 0) steps = std::size_t(epochs * double(train.size()) / kBatch);
  testImages = std::min(testImages, test.size()) / kBatch * kBatch;

  IPUModel model;
  model.tilesPerIPU = unsigned(tiles);
  Device device = model.createDevice();
  Graph graph(device.getTarget());
  const std::size_t B = kBatch;

  // ---- the network ------------------------------------------------------------------------
  Tensor x = graph.addVariable(FLOAT, {B, 1, 28, 28}, "images");
  poputil::mapTensorLinearly(graph, x);
  Tensor labels = graph.addVariable(UNSIGNED_INT, {B}, "labels");
  poputil::mapTensorLinearly(graph, labels);
  DataStream imageStream = graph.addHostToDeviceFIFO("images", FLOAT, B * 784);
  DataStream labelStream = graph.addHostToDeviceFIFO("labels", UNSIGNED_INT, B);

  std::mt19937 rng(1234);
  std::vector<Param> params;
  auto param = [&](const std::string &name, Tensor w, std::size_t fanIn) {
    // Uniform in +-1/sqrt(fan in) (PyTorch's default for these layers); biases likewise.
    std::uniform_real_distribution<float> u(-1.0f / std::sqrt(float(fanIn)), 1.0f / std::sqrt(float(fanIn)));
    std::vector<float> init(w.numElements());
    for (float &f : init) f = u(rng);
    Tensor m = graph.clone(w, name + "/m"), v = graph.clone(w, name + "/v");
    params.push_back({name, w, m, v, init});
    graph.createHostWrite(name, w);
    return w;
  };
  const poplin::ConvParams p1(FLOAT, B, {28, 28}, {5, 5}, 1, 10, 1), p2(FLOAT, B, {12, 12}, {5, 5}, 10, 20, 1);
  Tensor w1 = param("conv1.w", poplin::createWeights(graph, p1, "conv1.w"), 25);
  Tensor b1 = param("conv1.b", poplin::createBiases(graph, poplin::createConvOutput(graph, p1, "c1shape"), "conv1.b"), 25);
  Tensor w2 = param("conv2.w", poplin::createWeights(graph, p2, "conv2.w"), 250);
  Tensor b2 = param("conv2.b", poplin::createBiases(graph, poplin::createConvOutput(graph, p2, "c2shape"), "conv2.b"), 250);
  Tensor w3 = param("fc1.w", poplin::createMatMulInputRHS(graph, FLOAT, {B, 320}, {320, 256}, "fc1.w"), 320);
  Tensor b3 = graph.addVariable(FLOAT, {256}, "fc1.b");
  poputil::mapTensorLinearly(graph, b3);
  param("fc1.b", b3, 320);
  Tensor w4 = param("fc2.w", poplin::createMatMulInputRHS(graph, FLOAT, {B, 256}, {256, 10}, "fc2.w"), 256);
  Tensor b4 = graph.addVariable(FLOAT, {10}, "fc2.b");
  poputil::mapTensorLinearly(graph, b4);
  param("fc2.b", b4, 256);

  using popnn::pooling::PoolParams;
  const PoolParams pool1(popnn::PoolingType::MAX, {24, 24}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, 10, B, FLOAT);
  const PoolParams pool2(popnn::PoolingType::MAX, {8, 8}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, 20, B, FLOAT);

  // Forward, shared by training and testing.
  struct Forward {
    Tensor c1, m1, a1, c2, m2, a2, h, z3, a3, z4, probs;
  };
  auto forward = [&](Sequence &prog) {
    Forward f;
    f.c1 = poplin::convolution(graph, x, w1, p1, false, prog, "conv1");
    poplin::addBias(graph, f.c1, b1, prog);
    f.m1 = popnn::pooling::pool(graph, pool1, f.c1, prog, "pool1");
    f.a1 = popnn::relu(graph, f.m1, prog, "relu1");
    f.c2 = poplin::convolution(graph, f.a1, w2, p2, false, prog, "conv2");
    poplin::addBias(graph, f.c2, b2, prog);
    f.m2 = popnn::pooling::pool(graph, pool2, f.c2, prog, "pool2");
    f.a2 = popnn::relu(graph, f.m2, prog, "relu2");
    f.h = f.a2.reshape({B, 320});
    f.z3 = poplin::matMul(graph, f.h, w3, prog, "fc1");
    popops::addInPlace(graph, f.z3, b3, prog);
    f.a3 = popnn::relu(graph, f.z3, prog, "relu3");
    f.z4 = poplin::matMul(graph, f.a3, w4, prog, "fc2");
    popops::addInPlace(graph, f.z4, b4, prog);
    f.probs = popnn::softmaxStable(graph, f.z4, prog, "softmax");
    return f;
  };

  // Training step.
  Sequence trainProg;
  trainProg.add(Copy(imageStream, x));
  trainProg.add(Copy(labelStream, labels));
  Forward f = forward(trainProg);
  Tensor loss = graph.addVariable(FLOAT, {B}, "loss"), deltas = graph.addVariable(FLOAT, {B, 10}, "deltas");
  poputil::mapTensorLinearly(graph, loss);
  poputil::mapTensorLinearly(graph, deltas);
  Tensor trainCorrect = graph.addVariable(UNSIGNED_INT, {}, "trainCorrect");
  graph.setTileMapping(trainCorrect, 0);
  trainProg.add(popnn::calcLoss(graph, f.probs, labels, loss, deltas, trainCorrect, popnn::CROSS_ENTROPY_LOSS));
  // The mean loss's gradient: 1/B of the per-image deltas (softmax and cross-entropy together).
  popops::mulInPlace(graph, deltas, 1.0f / float(B), trainProg);
  Sequence &bp = trainProg;
  Tensor gw4 = poplin::matMul(graph, f.a3.transpose(), deltas, bp, "fc2.gw");
  Tensor gb4 = popops::reduce(graph, deltas, {0}, popops::Operation::ADD, bp);
  Tensor d3 = poplin::matMul(graph, deltas, w4.transpose(), bp, "fc2.gx");
  d3 = popnn::nonLinearityInputGradient(graph, popnn::NonLinearityType::RELU, f.a3, d3, bp);
  Tensor gw3 = poplin::matMul(graph, f.h.transpose(), d3, bp, "fc1.gw");
  Tensor gb3 = popops::reduce(graph, d3, {0}, popops::Operation::ADD, bp);
  Tensor dh = poplin::matMul(graph, d3, w3.transpose(), bp, "fc1.gx").reshape({B, 20, 4, 4});
  Tensor dm2 = popnn::nonLinearityInputGradient(graph, popnn::NonLinearityType::RELU, f.a2, dh, bp);
  Tensor dc2 = popnn::pooling::poolInputGradient(graph, pool2, f.c2, f.m2, dm2, false, bp);
  Tensor gw2 = poplin::calculateWeightDeltas(graph, dc2, f.a1, p2, bp, "conv2.gw");
  Tensor gb2 = popops::reduce(graph, dc2, {0, 2, 3}, popops::Operation::ADD, bp);
  Tensor da1 = poplin::convolution(graph, dc2, w2, poplin::getGradientParams(p2), true, bp, "conv2.gx");
  Tensor dm1 = popnn::nonLinearityInputGradient(graph, popnn::NonLinearityType::RELU, f.a1, da1, bp);
  Tensor dc1 = popnn::pooling::poolInputGradient(graph, pool1, f.c1, f.m1, dm1, false, bp);
  Tensor gw1 = poplin::calculateWeightDeltas(graph, dc1, x, p1, bp, "conv1.gw");
  Tensor gb1 = popops::reduce(graph, dc1, {0, 2, 3}, popops::Operation::ADD, bp);
  const std::vector<Tensor> grads = {gw1, gb1, gw2, gb2, gw3, gb3, gw4, gb4};

  // AdamW (PyTorch's defaults: betas 0.9, 0.999, eps 1e-8, weight decay 0.01), the bias
  // corrections from a step counter kept on the IPU.
  const float lr = 0.001f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, decay = 0.01f;
  Tensor t = graph.addVariable(FLOAT, {}, "adam.t");
  graph.setTileMapping(t, 0);
  popops::addInPlace(graph, t, 1.0f, trainProg);
  Tensor c1 = popops::map(graph, 1.0f / (1.0f - pe::Pow(pe::Const(beta1), pe::_1)), {t}, trainProg);
  Tensor c2 = popops::map(graph, 1.0f / (1.0f - pe::Pow(pe::Const(beta2), pe::_1)), {t}, trainProg);
  for (std::size_t i = 0; i < params.size(); ++i) {
    Param &p = params[i];
    const Tensor g = grads[i].reshape(p.w.shape());
    popops::mapInPlace(graph, pe::_1 * beta1 + pe::_2 * (1 - beta1), {p.m, g}, trainProg);
    popops::mapInPlace(graph, pe::_1 * beta2 + pe::_2 * pe::_2 * (1 - beta2), {p.v, g}, trainProg);
    popops::mapInPlace(graph,
                       pe::_1 - (pe::_2 * pe::_4 / (pe::Sqrt(pe::_3 * pe::_5) + eps) + pe::_1 * decay) * lr,
                       {p.w, p.m, p.v, c1, c2}, trainProg);
  }
  graph.createHostRead("loss", loss);

  // Initialisation: the AdamW state and counters.
  Sequence initProg;
  for (Param &p : params) {
    popops::zero(graph, p.m, initProg);
    popops::zero(graph, p.v, initProg);
  }
  popops::zero(graph, t, initProg);

  // Testing: forward and the count of correct images.
  Sequence testProg;
  testProg.add(Copy(imageStream, x));
  testProg.add(Copy(labelStream, labels));
  Forward ft = forward(testProg);
  Tensor testCorrect = graph.addVariable(UNSIGNED_INT, {}, "testCorrect");
  graph.setTileMapping(testCorrect, 0);
  testProg.add(popnn::calcAccuracy(graph, ft.probs, labels, testCorrect));
  graph.createHostRead("testCorrect", testCorrect);
  graph.createHostWrite("testCorrect", testCorrect);

  const auto t0 = std::chrono::steady_clock::now();
  Engine engine(graph, {initProg, trainProg, testProg});
  engine.load(device);
  const auto t1 = std::chrono::steady_clock::now();
  std::cout << "graph compiled and loaded in " << std::chrono::duration<double>(t1 - t0).count() << " s on "
            << tiles << " tiles\n";
  for (Param &p : params) engine.writeTensor(p.name, p.init.data(), p.init.data() + p.init.size());

  // The streams read the current batch.
  const Dataset *data = &train;
  std::size_t batch = 0;
  std::vector<float> images(B * 784);
  std::vector<unsigned> batchLabels(B);
  engine.connectStreamToCallback("images", [&](void *dst) {
    for (std::size_t i = 0; i < B * 784; ++i)
      images[i] = float(data->images[(batch * B) % data->size() * 784 + i]) / 255.0f;
    std::memcpy(dst, images.data(), images.size() * sizeof(float));
  });
  engine.connectStreamToCallback("labels", [&](void *dst) {
    for (std::size_t i = 0; i < B; ++i) batchLabels[i] = data->labels[(batch * B + i) % data->size()];
    std::memcpy(dst, batchLabels.data(), batchLabels.size() * sizeof(unsigned));
  });

  engine.run(0);
  uint64_t trainCycles = 0;
  double trainHost = 0, first = 0, last = 0, window = 0;
  for (std::size_t s = 0; s < steps; ++s) {
    batch = sameBatch ? 0 : s;
    const auto a = std::chrono::steady_clock::now();
    engine.run(1);
    trainHost += std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
    trainCycles += engine.getLastRunCycles();
    std::vector<float> l(B);
    engine.readTensor("loss", l.data(), l.data() + B);
    double mean = 0;
    for (float v : l) mean += v / B;
    if (s == 0) first = mean;
    last = mean;
    window += mean;
    if ((s + 1) % printEvery == 0 || s + 1 == steps) {
      std::cout << "step " << s + 1 << ": mean loss " << window / double((s % printEvery) + 1) << "\n";
      window = 0;
    }
  }
  // Testing.
  data = &test;
  const unsigned zero = 0;
  engine.writeTensor("testCorrect", &zero, &zero + 1);
  uint64_t testCycles = 0;
  for (std::size_t b = 0; b < testImages / B; ++b) {
    batch = b;
    engine.run(2);
    testCycles += engine.getLastRunCycles();
  }
  unsigned correct = 0;
  engine.readTensor("testCorrect", &correct, &correct + 1);

  const double clock = device.getTarget().getTileClockFrequency();
  const double perStep = steps ? double(trainCycles) / double(steps) : 0;
  std::cout << "loss: first step " << first << ", last step " << last << "\n";
  std::cout << "test accuracy: " << correct << " of " << testImages << " ("
            << (testImages ? 100.0 * correct / double(testImages) : 0.0) << "%)\n";
  std::cout << "training: " << steps << " steps, " << std::size_t(perStep) << " simulated cycles a step ("
            << perStep / clock * 1e3 << " ms at " << clock / 1e9 << " GHz), "
            << (perStep ? double(B) * clock / perStep : 0) << " images/s of simulated time; host "
            << (steps ? trainHost / double(steps) : 0) << " s a step\n";
  std::cout << "testing: " << testCycles << " simulated cycles for " << testImages << " images\n";
  return 0;
}
