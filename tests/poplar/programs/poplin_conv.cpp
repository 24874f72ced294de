// poplin's convolutions as a user calls them: forward with strides, padding, kernel dilation and
// groups, a 1-D convolution with every input, kernel and output transform, the input gradient as
// poplibs computes it (getGradientParams and transposed, flipped weights), weight deltas, a
// weight update, bias add and update, and errors. The host reference applies each transform
// literally (truncate, dilate, pad, flip; correlate; truncate, stride, pad); gradients are
// checked by finite differences of that reference (exact: the convolution is linear and every
// value is a small multiple of 1/4).
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/ConvUtil.hpp>
#include <poplin/Convolution.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <algorithm>

#include <functional>
#include <iostream>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;
using poplin::ConvParams;

namespace {

// One dimension of an input transform applied to a vector.
std::vector<double> transform(const std::vector<double> &v, unsigned tl, unsigned tu, unsigned dil, unsigned pl,
                              unsigned pu, bool flip) {
  std::vector<double> t(v.begin() + tl, v.end() - tu), d, r;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (i) d.insert(d.end(), dil - 1, 0.0);
    d.push_back(t[i]);
  }
  r.assign(pl, 0.0);
  r.insert(r.end(), d.begin(), d.end());
  r.insert(r.end(), pu, 0.0);
  if (flip) std::reverse(r.begin(), r.end());
  return r;
}

// A 2-D array (h x w) transformed in both dimensions.
std::vector<std::vector<double>> transform2(std::vector<std::vector<double>> a, const ConvParams::InputTransform &t,
                                            bool twoD) {
  for (auto &row : a)
    row = transform(row, t.truncationLower.back(), t.truncationUpper.back(), t.dilation.back(), t.paddingLower.back(),
                    t.paddingUpper.back(), t.flip.back());
  if (!twoD) return a;
  std::vector<std::vector<double>> cols(a[0].size(), std::vector<double>(a.size()));
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a[0].size(); ++j) cols[j][i] = a[i][j];
  for (auto &c : cols)
    c = transform(c, t.truncationLower[0], t.truncationUpper[0], t.dilation[0], t.paddingLower[0], t.paddingUpper[0], t.flip[0]);
  std::vector<std::vector<double>> r(cols[0].size(), std::vector<double>(cols.size()));
  for (std::size_t i = 0; i < r.size(); ++i)
    for (std::size_t j = 0; j < cols.size(); ++j) r[i][j] = cols[j][i];
  return r;
}

// One output dimension: truncate, stride, pad.
std::vector<double> outTransform(const std::vector<double> &v, unsigned tl, unsigned tu, unsigned s, unsigned pl,
                                 unsigned pu) {
  std::vector<double> r(pl, 0.0);
  for (std::size_t i = tl; i + tu < v.size(); i += s) r.push_back(v[i]);
  r.insert(r.end(), pu, 0.0);
  return r;
}

// The reference: in [N][G Cin][field], w [G][Cout][Cin][kernel] (flattened), field of 1 or 2 dims.
std::vector<double> hostConv(const ConvParams &p, const std::vector<double> &in, const std::vector<double> &w) {
  const bool twoD = p.inputFieldShape.size() == 2;
  const std::size_t H = twoD ? p.inputFieldShape[0] : 1, W = p.inputFieldShape.back();
  const std::size_t KH = twoD ? p.kernelShape[0] : 1, KW = p.kernelShape.back();
  const std::size_t G = p.numConvGroups, CI = p.inputChannelsPerConvGroup, CO = p.outputChannelsPerConvGroup;
  std::vector<double> out;
  for (std::size_t n = 0; n < p.batchSize; ++n)
    for (std::size_t g = 0; g < G; ++g)
      for (std::size_t co = 0; co < CO; ++co) {
        std::vector<std::vector<double>> acc;
        for (std::size_t ci = 0; ci < CI; ++ci) {
          std::vector<std::vector<double>> x(H, std::vector<double>(W)), k(KH, std::vector<double>(KW));
          for (std::size_t i = 0; i < H; ++i)
            for (std::size_t j = 0; j < W; ++j) x[i][j] = in[((n * G * CI + g * CI + ci) * H + i) * W + j];
          for (std::size_t i = 0; i < KH; ++i)
            for (std::size_t j = 0; j < KW; ++j) k[i][j] = w[(((g * CO + co) * CI + ci) * KH + i) * KW + j];
          x = transform2(x, p.inputTransform, twoD);
          k = transform2(k, p.kernelTransform, twoD);
          const std::size_t uh = x.size() - k.size() + 1, uw = x[0].size() - k[0].size() + 1;
          if (acc.empty()) acc.assign(uh, std::vector<double>(uw, 0.0));
          for (std::size_t i = 0; i < uh; ++i)
            for (std::size_t j = 0; j < uw; ++j)
              for (std::size_t a = 0; a < k.size(); ++a)
                for (std::size_t b = 0; b < k[0].size(); ++b) acc[i][j] += x[i + a][j + b] * k[a][b];
        }
        const auto &ot = p.outputTransform;
        for (auto &row : acc)
          row = outTransform(row, ot.truncationLower.back(), ot.truncationUpper.back(), ot.stride.back(),
                             ot.paddingLower.back(), ot.paddingUpper.back());
        if (twoD) {
          std::vector<std::vector<double>> cols(acc[0].size(), std::vector<double>(acc.size()));
          for (std::size_t i = 0; i < acc.size(); ++i)
            for (std::size_t j = 0; j < acc[0].size(); ++j) cols[j][i] = acc[i][j];
          for (auto &c : cols)
            c = outTransform(c, ot.truncationLower[0], ot.truncationUpper[0], ot.stride[0], ot.paddingLower[0], ot.paddingUpper[0]);
          acc.assign(cols[0].size(), std::vector<double>(cols.size()));
          for (std::size_t i = 0; i < acc.size(); ++i)
            for (std::size_t j = 0; j < cols.size(); ++j) acc[i][j] = cols[j][i];
        }
        for (const auto &row : acc) out.insert(out.end(), row.begin(), row.end());
      }
  return out;
}

std::vector<double> values(std::size_t n, unsigned seed) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = double(int((i * 7 + seed * 13) % 11) - 5) * 0.25;
  return v;
}

double dot(const std::vector<double> &a, const std::vector<double> &b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

struct Check {
  std::string name;
  Tensor t;
  std::vector<double> want;
};
std::vector<Check> checks;
std::vector<std::pair<std::string, std::vector<float>>> writes;

Tensor constant(Graph &graph, const std::vector<std::size_t> &shape, const std::vector<double> &v, const std::string &name) {
  std::vector<float> f(v.begin(), v.end());
  Tensor t = graph.addVariable(FLOAT, shape, name);
  poputil::mapTensorLinearly(graph, t);
  graph.createHostWrite(name, t);
  writes.push_back({name, f});
  return t;
}

// Forward, input gradient and weight deltas of p, all against the reference.
void convCase(Graph &graph, Sequence &prog, const std::string &name, const ConvParams &p, bool gradients) {
  std::vector<std::size_t> inShape{p.batchSize, p.getNumInputChans()}, wShape{p.numConvGroups, p.outputChannelsPerConvGroup,
                                                                              p.inputChannelsPerConvGroup};
  inShape.insert(inShape.end(), p.inputFieldShape.begin(), p.inputFieldShape.end());
  wShape.insert(wShape.end(), p.kernelShape.begin(), p.kernelShape.end());
  std::size_t inN = 1, wN = 1;
  for (std::size_t d : inShape) inN *= d;
  for (std::size_t d : wShape) wN *= d;
  const std::vector<double> x = values(inN, 1), w = values(wN, 2), y = hostConv(p, x, w);
  Tensor in = constant(graph, inShape, x, name + " x"), weights = constant(graph, wShape, w, name + " w");
  Tensor out = poplin::convolution(graph, in, weights, p, false, prog, name);
  checks.push_back({name + " forward", out, y});
  if (!gradients) return;
  const std::vector<double> dy = values(y.size(), 3);
  Tensor dyT = constant(graph, out.shape(), dy, name + " dy");
  // d<dy, conv(x, w)>/dx and /dw by unit steps: exact, the convolution being linear.
  std::vector<double> dx(inN), dw(wN);
  const double base = dot(dy, y);
  for (std::size_t i = 0; i < inN; ++i) {
    std::vector<double> x1 = x;
    x1[i] += 1;
    dx[i] = dot(dy, hostConv(p, x1, w)) - base;
  }
  for (std::size_t i = 0; i < wN; ++i) {
    std::vector<double> w1 = w;
    w1[i] += 1;
    dw[i] = dot(dy, hostConv(p, x, w1)) - base;
  }
  checks.push_back({name + " input gradient", poplin::convolution(graph, dyT, weights, poplin::getGradientParams(p), true, prog, name + "/bwd"), dx});
  checks.push_back({name + " weight deltas", poplin::calculateWeightDeltas(graph, dyT, in, p, prog, name + "/wu"), dw});
}

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
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  Sequence prog;

  // The MNIST network's first layer, small: 1 -> 3 channels, 5x5 kernel on 12x12, batch 2.
  convCase(graph, prog, "5x5", ConvParams(FLOAT, 2, {12, 12}, {5, 5}, 1, 3, 1), true);
  // Stride 2, padding 1 and 2, kernel dilation 2 in x, two groups of 2 -> 3 channels.
  ConvParams strided(FLOAT, 1, {9, 10}, {3, 3}, 2, 3, 2);
  strided.inputTransform.paddingLower = {1, 2};
  strided.inputTransform.paddingUpper = {1, 2};
  strided.kernelTransform.dilation = {1, 2};
  strided.outputTransform.stride = {2, 2};
  convCase(graph, prog, "strided", strided, true);
  // 1-D with every transform: input truncated, dilated, padded, flipped; kernel truncated,
  // padded, flipped; output truncated, strided, padded.
  ConvParams all(FLOAT, 2, {11}, {4}, 2, 2, 1);
  all.inputTransform = ConvParams::InputTransform({1}, {2}, {2}, {3}, {1}, {true});
  all.kernelTransform = ConvParams::InputTransform({1}, {0}, {1}, {1}, {0}, {true});
  all.outputTransform = ConvParams::OutputTransform({1}, {2}, {3}, {2}, {1});
  std::cout << all;
  convCase(graph, prog, "1-D transforms", all, false);

  // A weight update and biases on the 5x5 layer's shapes.
  const ConvParams p(FLOAT, 2, {12, 12}, {5, 5}, 1, 3, 1);
  Tensor wu = poplin::createWeights(graph, p, "wu");
  Tensor act = poplin::createInput(graph, p, "act");
  Tensor dy = poplin::createConvOutput(graph, p, "dyU");
  graph.createHostWrite("wu", wu);
  graph.createHostWrite("act", act);
  graph.createHostWrite("dyU", dy);
  poplin::convolutionWeightUpdate(graph, dy, wu, act, p, -0.5f, prog, "update");
  Tensor bias = poplin::createBiases(graph, dy, "bias");
  graph.createHostWrite("bias", bias);
  Tensor outB = graph.clone(dy, "outB");
  prog.add(Copy(dy, outB));
  poplin::addBias(graph, outB, bias, prog);
  poplin::convolutionBiasUpdate(graph, dy, bias, 0.25f, {}, prog, "biasUpdate");
  const std::vector<double> w0 = values(wu.numElements(), 4), a0 = values(act.numElements(), 5),
                            d0 = values(dy.numElements(), 6), b0 = {0.5, -1, 2};
  {
    std::vector<double> y0 = hostConv(p, a0, w0), want(w0);
    const double base = dot(d0, y0);
    for (std::size_t i = 0; i < w0.size(); ++i) {
      std::vector<double> w1 = w0;
      w1[i] += 1;
      want[i] = w0[i] - 0.5 * (dot(d0, hostConv(p, a0, w1)) - base);
    }
    checks.push_back({"weight update", wu, want});
    std::vector<double> withBias(d0), biasWant(b0);
    for (std::size_t i = 0; i < d0.size(); ++i) withBias[i] += b0[(i / 64) % 3];
    for (std::size_t i = 0; i < d0.size(); ++i) biasWant[(i / 64) % 3] += 0.25 * d0[i];
    checks.push_back({"add bias", outB, withBias});
    checks.push_back({"bias update", bias, biasWant});
  }

  for (const Check &c : checks) graph.createHostRead(c.name, c.t);
  Engine engine(graph, prog);
  engine.load(device);
  for (const auto &w : writes) engine.writeTensor(w.first, w.second.data(), w.second.data() + w.second.size());
  auto write = [&](const char *n, const std::vector<double> &v) {
    std::vector<float> f(v.begin(), v.end());
    engine.writeTensor(n, f.data(), f.data() + f.size());
  };
  write("wu", w0);
  write("act", a0);
  write("dyU", d0);
  write("bias", b0);
  engine.run(0);
  unsigned bad = 0;
  for (const Check &c : checks) {
    std::vector<float> got(c.t.numElements());
    engine.readTensor(c.name, got.data(), got.data() + got.size());
    unsigned wrong = 0;
    std::string first;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != c.want[i] && wrong++ == 0)
        first = " (first at " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", want " + std::to_string(c.want[i]) + ")";
    std::cout << c.name << " " << c.t.shapeToString() << ": " << (wrong ? std::to_string(wrong) + " wrong" + first : "ok") << "\n";
    bad += wrong;
  }

  Sequence bad1;
  Tensor x5 = graph.addVariable(FLOAT, {2, 1, 12, 11}, "x5");
  printError([&] { poplin::convolution(graph, x5, wu, p, false, bad1); });
  printError([&] { poplin::convolution(graph, act, wu.slice(0, 1, 3), p, false, bad1); });
  printError([&] { poplin::getGradientParams(all); });
  printError([&] { ConvParams(FLOAT, 1, {4, 4}, {5, 5}, 1, 1, 1).validate(); });
  return bad ? 1 : 0;
}
