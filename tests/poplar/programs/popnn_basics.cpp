// popnn as a user calls it: every non-linearity forward (against the host's formula) and its
// input gradient (against a central-difference derivative of that formula, computed here), the
// softmax family over rows, cross-entropy and sum-squared losses with a masked label, the
// accuracy count accumulating over two runs, argMax/argMin with ties, and errors.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popnn/BatchNorm.hpp>
#include <popnn/GroupNorm.hpp>
#include <popnn/LayerNorm.hpp>
#include <popnn/Loss.hpp>
#include <popnn/NonLinearity.hpp>
#include <popnn/Pooling.hpp>
#include <popnn/codelets.hpp>
#include <popops/codelets.hpp>

#include <cmath>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;
using popnn::NonLinearityType;

namespace {

const std::size_t R = 4, C = 6, N = R * C;

float xAt(std::size_t i) { return float(int((i * 7) % 17) - 8) * 0.25f + 0.125f; }
float gAt(std::size_t i) { return float(int((i * 5) % 9) - 4) * 0.5f + 0.25f; }

double host(NonLinearityType t, double x) {
  switch (t) {
  case NonLinearityType::SIGMOID: return 1 / (1 + std::exp(-x));
  case NonLinearityType::HARD_SIGMOID: return std::max(0.0, std::min(1.0, 0.2 * x + 0.5));
  case NonLinearityType::RELU: return x > 0 ? x : 0;
  case NonLinearityType::TANH: return std::tanh(x);
  case NonLinearityType::GELU: return 0.5 * x * (1 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x)));
  case NonLinearityType::GELU_ERF: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  case NonLinearityType::SWISH: return x / (1 + std::exp(-x));
  default: return 0;
  }
}

// Softmax of row r of x (with x[r][j] moved by d at column k).
std::vector<double> hostSoftmax(std::size_t r, std::size_t k = 0, double d = 0) {
  std::vector<double> e(C);
  double sum = 0;
  for (std::size_t j = 0; j < C; ++j) e[j] = std::exp(double(xAt(r * C + j)) + (j == k ? d : 0)), sum += e[j];
  for (double &v : e) v /= sum;
  return e;
}

struct Check {
  std::string name;
  Tensor t;
  std::vector<double> want;
  double tolerance; // absolute + relative
};
std::vector<Check> checks;

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
  ipuModel.tilesPerIPU = 4;
  Device device = ipuModel.createDevice();
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  popnn::addCodelets(graph);
  std::vector<float> xv(N), gv(N);
  for (std::size_t i = 0; i < N; ++i) xv[i] = xAt(i), gv[i] = gAt(i);
  Tensor x = graph.addConstant<float>(FLOAT, {R, C}, xv.data(), "x");
  Tensor g = graph.addConstant<float>(FLOAT, {R, C}, gv.data(), "g");
  for (unsigned r = 0; r < R; ++r) graph.setTileMapping(x[r], r), graph.setTileMapping(g[r], 3 - r);
  Sequence prog;

  const std::pair<NonLinearityType, const char *> elementwise[] = {
      {NonLinearityType::SIGMOID, "sigmoid"}, {NonLinearityType::HARD_SIGMOID, "hard sigmoid"},
      {NonLinearityType::RELU, "relu"},       {NonLinearityType::TANH, "tanh"},
      {NonLinearityType::GELU, "gelu"},       {NonLinearityType::GELU_ERF, "gelu erf"},
      {NonLinearityType::SWISH, "swish"}};
  for (const auto &nl : elementwise) {
    const NonLinearityType t = nl.first;
    Tensor y = popnn::nonLinearity(graph, t, x, prog);
    std::vector<double> want(N), grad(N);
    for (std::size_t i = 0; i < N; ++i) {
      const double h = 1e-4, xi = xAt(i);
      want[i] = host(t, xi);
      grad[i] = gAt(i) * (host(t, xi + h) - host(t, xi - h)) / (2 * h);
    }
    checks.push_back({std::string(nl.second), y, want, 2e-6});
    // The gradient takes the output, except GELU, GELU_ERF and SWISH, which take the input.
    const bool fromInput = t == NonLinearityType::GELU || t == NonLinearityType::GELU_ERF || t == NonLinearityType::SWISH;
    checks.push_back({std::string(nl.second) + " gradient",
                      popnn::nonLinearityInputGradient(graph, t, fromInput ? x : y, g, prog), grad, 2e-4});
  }
  // In place, and the named forms.
  Tensor z = graph.clone(x, "z");
  prog.add(Copy(x, z));
  popnn::reluInPlace(graph, z, prog);
  std::vector<double> relu(N);
  for (std::size_t i = 0; i < N; ++i) relu[i] = xAt(i) > 0 ? xAt(i) : 0;
  checks.push_back({"relu in place", z, relu, 0});

  // Softmax over rows: plain, stable and scaled (with the scaling it reports).
  std::vector<double> sm(N), smGrad(N);
  for (std::size_t r = 0; r < R; ++r) {
    const std::vector<double> y = hostSoftmax(r);
    for (std::size_t j = 0; j < C; ++j) {
      sm[r * C + j] = y[j];
      // d/dx_j of sum_k g_k y_k, by central differences.
      const double h = 1e-5;
      const std::vector<double> up = hostSoftmax(r, j, h), down = hostSoftmax(r, j, -h);
      double d = 0;
      for (std::size_t k = 0; k < C; ++k) d += gAt(r * C + k) * (up[k] - down[k]) / (2 * h);
      smGrad[r * C + j] = d;
    }
  }
  Tensor soft = popnn::softmax(graph, x, prog);
  checks.push_back({"softmax", soft, sm, 2e-6});
  checks.push_back({"softmax stable", popnn::softmaxStable(graph, x, prog), sm, 2e-6});
  float scaling = 0;
  Tensor scaled = popnn::nonLinearity(graph, NonLinearityType::SOFTMAX_SCALED, x, scaling, prog);
  std::cout << "SOFTMAX_SCALED scaling " << scaling << "\n";
  std::vector<double> smScaled(sm);
  for (double &v : smScaled) v *= scaling;
  checks.push_back({"softmax scaled", scaled, smScaled, 2e-6});
  checks.push_back({"softmax gradient", popnn::nonLinearityInputGradient(graph, NonLinearityType::SOFTMAX, soft, g, prog),
                    smGrad, 2e-4});

  // Losses on the softmax outputs; row 2's label is masked (its largest output is at 0, so a
  // count that forgot the mask would be 3); rows 0 and 1 are right, row 3 is wrong.
  const unsigned labels[R] = {2, 1, MASKED_LABEL_CODE, 3};
  Tensor expected = graph.addConstant<unsigned>(UNSIGNED_INT, {R}, labels, "labels");
  graph.setTileMapping(expected, 2);
  Tensor loss = graph.addVariable(FLOAT, {R}, "loss"), deltas = graph.clone(x, "deltas");
  Tensor sqLoss = graph.addVariable(FLOAT, {R}, "sqLoss"), sqDeltas = graph.clone(x, "sqDeltas");
  Tensor numCorrect = graph.addVariable(UNSIGNED_INT, {}, "numCorrect");
  graph.setTileMapping(loss, 0);
  graph.setTileMapping(sqLoss, 1);
  graph.setTileMapping(numCorrect, 3);
  prog.add(popnn::calcLoss(graph, soft, expected, loss, deltas, numCorrect, popnn::CROSS_ENTROPY_LOSS));
  prog.add(popnn::calcLoss(graph, soft, expected, sqLoss, sqDeltas, popnn::SUM_SQUARED_LOSS));
  std::vector<double> ceLoss(R), ceDeltas(N), ssLoss(R), ssDeltas(N);
  unsigned correct = 0;
  for (std::size_t r = 0; r < R; ++r) {
    if (labels[r] == MASKED_LABEL_CODE) continue;
    std::size_t best = 0;
    for (std::size_t j = 0; j < C; ++j) {
      const double p = sm[r * C + j], t = j == labels[r] ? 1 : 0;
      ceDeltas[r * C + j] = p - t;
      ssDeltas[r * C + j] = p - t;
      ceLoss[r] += -t * std::log(p);
      ssLoss[r] += 0.5 * (p - t) * (p - t);
      if (xAt(r * C + j) > xAt(r * C + best)) best = j;
    }
    correct += best == labels[r];
  }
  checks.push_back({"cross entropy loss", loss, ceLoss, 2e-6});
  checks.push_back({"cross entropy deltas", deltas, ceDeltas, 2e-6});
  checks.push_back({"sum squared loss", sqLoss, ssLoss, 2e-6});
  checks.push_back({"sum squared deltas", sqDeltas, ssDeltas, 2e-6});

  // argMax and argMin with ties: the first column wins.
  const float tiedv[] = {1, 3, 3, 0, -2, -2, 5, 5, 5};
  Tensor tied = graph.addConstant<float>(FLOAT, {3, 3}, tiedv, "tied");
  graph.setTileMapping(tied, 1);
  Tensor am = popnn::argMax(graph, tied, prog), an = popnn::argMin(graph, tied, prog);

  // Pooling of a [2][2][4][6] input with distinct values: MAX 2x2 stride 2; AVG 3x3 stride 1
  // padded by 1 (the average over the window's elements inside the input); SUM 2x3 stride (1, 3)
  // truncated by 1 at the top. Then a [2][6][6][7] input (three channel pairs, which the
  // channels-last float max pooling of whole windows takes a pair at a time): MAX 2x2 stride 2
  // and MAX 3x3 stride 2 (overlapping windows). Gradients against central differences of the
  // host's pooling.
  using popnn::pooling::PoolParams;
  using popnn::PoolingType;
  for (const std::size_t PC : {std::size_t(2), std::size_t(6)}) {
    const std::size_t PN = 2, PH = PC == 2 ? 4 : 6, PW = PC == 2 ? 6 : 7, PN4 = PN * PC * PH * PW;
    // Distinct within a window (all distinct for six channels), so that every maximum is unique.
    auto pv = [&](std::size_t i) { return PC == 2 ? double((i * 7) % 48) * 0.25 - 6 : double((i * 11) % PN4) * 0.25 - 50; };
    std::vector<float> pin(PN4);
    for (std::size_t i = 0; i < PN4; ++i) pin[i] = float(pv(i));
    Tensor pt = graph.addConstant<float>(FLOAT, {PN, PC, PH, PW}, pin.data(), "pool in");
    graph.setTileMapping(pt, 0);
    std::vector<PoolParams> kinds;
    if (PC == 2) {
      kinds = {PoolParams(PoolingType::MAX, {PH, PW}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, PC, PN, FLOAT),
               PoolParams(PoolingType::AVG, {PH, PW}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, PC, PN, FLOAT),
               PoolParams(PoolingType::SUM, {PH, PW}, {2, 3}, {1, 3}, {-1, 0}, {0, 0}, PC, PN, FLOAT)};
    } else {
      kinds = {PoolParams(PoolingType::MAX, {PH, PW}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, PC, PN, FLOAT),
               PoolParams(PoolingType::MAX, {PH, PW}, {3, 3}, {2, 2}, {0, 0}, {0, 0}, PC, PN, FLOAT)};
    }
    for (const PoolParams &pp : kinds) {
      const auto of = pp.getOutputFieldShape();
      // The host's pooling of x (flattened [n][c][h][w]).
      auto hostPool = [&](const std::vector<double> &x) {
        std::vector<double> out;
        for (std::size_t pl = 0; pl < PN * PC; ++pl)
          for (std::size_t oy = 0; oy < of[0]; ++oy)
            for (std::size_t ox = 0; ox < of[1]; ++ox) {
              double acc = pp.poolingType == PoolingType::MAX ? -INFINITY : 0;
              unsigned count = 0;
              for (std::size_t ky = 0; ky < pp.kernelShape[0]; ++ky)
                for (std::size_t kx = 0; kx < pp.kernelShape[1]; ++kx) {
                  const long iy = long(oy * pp.stride[0] + ky) - pp.inputTruncationOrPaddingLower[0];
                  const long ix = long(ox * pp.stride[1] + kx) - pp.inputTruncationOrPaddingLower[1];
                  if (iy < 0 || iy >= long(PH) || ix < 0 || ix >= long(PW)) continue;
                  const double v = x[(pl * PH + iy) * PW + ix];
                  acc = pp.poolingType == PoolingType::MAX ? std::max(acc, v) : acc + v;
                  ++count;
                }
              out.push_back(pp.poolingType == PoolingType::AVG ? acc / count : acc);
            }
        return out;
      };
      std::vector<double> x(PN4);
      for (std::size_t i = 0; i < PN4; ++i) x[i] = pv(i);
      const std::vector<double> y = hostPool(x);
      std::vector<float> pgv(y.size());
      for (std::size_t i = 0; i < y.size(); ++i) pgv[i] = float(int(i % 5) - 2) * 0.5f;
      std::vector<double> grad(PN4);
      for (std::size_t i = 0; i < PN4; ++i) {
        std::vector<double> up = x, down = x;
        up[i] += 1e-3, down[i] -= 1e-3;
        const std::vector<double> yu = hostPool(up), yd = hostPool(down);
        for (std::size_t o = 0; o < y.size(); ++o) grad[i] += pgv[o] * (yu[o] - yd[o]) / 2e-3;
      }
      // Each as given [n][c][h][w] and channels-last (stored [n][h][w][c], as poplin's products
      // write a convolution's output), which popnn pools in that order.
      for (const bool last : {false, true}) {
        const std::string kind = std::string(popnn::pooling::asString(pp.poolingType)) +
                                 (PC == 2 ? "" : " " + std::to_string(pp.kernelShape[0]) + "x" + std::to_string(pp.kernelShape[1]) + " of 6 channels") +
                                 (last ? " (channels last)" : "");
        // v ([n][c][h][w] values) as a constant of `shape` on `tile`, stored channels-last if `last`.
        auto constant = [&](const std::vector<float> &v, std::vector<std::size_t> shape, unsigned tile) {
          Tensor t;
          if (!last) {
            t = graph.addConstant<float>(FLOAT, shape, v.data(), "pool data");
          } else {
            const std::size_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
            std::vector<float> stored(v.size());
            for (std::size_t i = 0; i < v.size(); ++i) {
              const std::size_t b = i / (c * h * w), ch = i / (h * w) % c, yx = i % (h * w);
              stored[((b * h * w) + yx) * c + ch] = v[i];
            }
            t = graph.addConstant<float>(FLOAT, {n, h, w, c}, stored.data(), "pool data").dimShuffle({0, 3, 1, 2});
          }
          graph.setTileMapping(t, tile);
          return t;
        };
        Tensor in = last ? constant(pin, {PN, PC, PH, PW}, 0) : pt;
        Tensor pooled = popnn::pooling::pool(graph, pp, in, prog);
        checks.push_back({"pool " + kind, pooled, y, 2e-6});
        Tensor pg = constant(pgv, pooled.shape(), 1);
        checks.push_back({"pool " + kind + " gradient",
                          pp.poolingType == PoolingType::MAX
                              ? popnn::pooling::poolInputGradient(graph, pp, in, pooled, pg, false, prog)
                              : popnn::pooling::poolInputGradient(graph, pp, 1, pg, prog),
                          grad, 2e-4});
      }
    }
  }

  // Batch normalisation of [4][3][2][5] activations: statistics, normalise, and the gradients
  // (through the batch statistics) against central differences of a host batch norm.
  {
    const std::size_t BN = 4, BC = 3, BF = 10, BT = BN * BC * BF;
    auto av = [](std::size_t i) { return double(int((i * 11) % 23) - 11) * 0.25 + 0.1 * double(i % 3); };
    std::vector<float> actsv(BT), gradv(BT);
    for (std::size_t i = 0; i < BT; ++i) actsv[i] = float(av(i)), gradv[i] = float(int((i * 5) % 7) - 3) * 0.5f;
    const float gammav[BC] = {1.5f, -0.5f, 2.0f}, betav[BC] = {0.25f, 1.0f, -1.0f};
    const float eps = 1e-5f;
    Tensor acts = graph.addConstant<float>(FLOAT, {BN, BC, 2, 5}, actsv.data(), "bn acts");
    Tensor grads = graph.addConstant<float>(FLOAT, {BN, BC, 2, 5}, gradv.data(), "bn grads");
    Tensor gamma = graph.addConstant<float>(FLOAT, {BC}, gammav, "gamma"), beta = graph.addConstant<float>(FLOAT, {BC}, betav, "beta");
    graph.setTileMapping(acts, 0), graph.setTileMapping(grads, 1), graph.setTileMapping(gamma, 2), graph.setTileMapping(beta, 3);
    // The host's batch norm of x: y = gamma (x - mean) / sqrt(var + eps) + beta per channel.
    auto hostBn = [&](const std::vector<double> &x, std::vector<double> *mean, std::vector<double> *inv) {
      std::vector<double> m(BC), v(BC), y(BT);
      for (std::size_t i = 0; i < BT; ++i) m[(i / BF) % BC] += x[i] / (BN * BF);
      for (std::size_t i = 0; i < BT; ++i) v[(i / BF) % BC] += (x[i] - m[(i / BF) % BC]) * (x[i] - m[(i / BF) % BC]) / (BN * BF);
      for (std::size_t i = 0; i < BT; ++i) {
        const std::size_t c = (i / BF) % BC;
        y[i] = gammav[c] * (x[i] - m[c]) / std::sqrt(v[c] + eps) + betav[c];
      }
      if (mean) *mean = m;
      if (inv) for (std::size_t c = 0; c < BC; ++c) inv->push_back(1 / std::sqrt(v[c] + eps));
      return y;
    };
    std::vector<double> x(actsv.begin(), actsv.end()), mean, inv;
    const std::vector<double> y = hostBn(x, &mean, &inv);
    std::vector<double> dx(BT), dgamma(BC), dbeta(BC);
    for (std::size_t i = 0; i < BT; ++i) {
      std::vector<double> up = x, down = x;
      up[i] += 1e-4, down[i] -= 1e-4;
      const std::vector<double> yu = hostBn(up, nullptr, nullptr), yd = hostBn(down, nullptr, nullptr);
      for (std::size_t j = 0; j < BT; ++j) dx[i] += gradv[j] * (yu[j] - yd[j]) / 2e-4;
      const std::size_t c = (i / BF) % BC;
      dgamma[c] += gradv[i] * (y[i] - betav[c]) / gammav[c];
      dbeta[c] += gradv[i];
    }
    auto stats = popnn::bn::batchNormStatistics(graph, acts, eps, prog, false);
    checks.push_back({"bn mean", stats.first, mean, 2e-6});
    checks.push_back({"bn invStdDev", stats.second, inv, 2e-5});
    auto norm = popnn::bn::batchNormalise(graph, acts, gamma, beta, stats.first, stats.second, prog);
    checks.push_back({"bn normalise", norm.first, y, 2e-5});
    auto pg = popnn::bn::batchNormParamGradients(graph, norm.second, grads, prog);
    checks.push_back({"bn gamma gradient", pg.first, dgamma, 2e-5});
    checks.push_back({"bn beta gradient", pg.second, dbeta, 2e-6});
    checks.push_back({"bn input gradient",
                      popnn::bn::batchNormGradients(graph, norm.second, grads, stats.second, gamma, prog), dx, 2e-4});
  }

  // Group normalisation of [2][6][4] in 3 groups, and layer normalisation of [4][8] (the
  // statistics per row): output and input gradient against a host version and its central
  // differences.
  for (unsigned kind = 0; kind < 2; ++kind) {
    const std::size_t GN = kind ? 4 : 2, GC = kind ? 8 : 6, GF = kind ? 1 : 4, GG = kind ? 1 : 3, GT = GN * GC * GF;
    const std::size_t per = GC / GG * GF;
    std::vector<float> xv(GT), gv2(GT), gam(GC), bet(GC);
    for (std::size_t i = 0; i < GT; ++i) xv[i] = float(int((i * 13) % 17) - 8) * 0.25f + 0.05f * float(i % 5);
    for (std::size_t i = 0; i < GT; ++i) gv2[i] = float(int((i * 3) % 7) - 3) * 0.5f;
    for (std::size_t c = 0; c < GC; ++c) gam[c] = 0.5f + 0.25f * float(c), bet[c] = float(c % 3) - 1.0f;
    std::vector<std::size_t> shape{GN, GC};
    if (!kind) shape.push_back(GF);
    Tensor a = graph.addConstant<float>(FLOAT, shape, xv.data(), "gn acts");
    Tensor g2 = graph.addConstant<float>(FLOAT, shape, gv2.data(), "gn grads");
    Tensor ga = graph.addConstant<float>(FLOAT, {GC}, gam.data(), "gn gamma"), be = graph.addConstant<float>(FLOAT, {GC}, bet.data(), "gn beta");
    graph.setTileMapping(a, 1), graph.setTileMapping(g2, 2), graph.setTileMapping(ga, 3), graph.setTileMapping(be, 0);
    auto host = [&](const std::vector<double> &x) {
      std::vector<double> y(GT);
      for (std::size_t n = 0; n < GN; ++n)
        for (std::size_t g = 0; g < GG; ++g) {
          const std::size_t base = (n * GG + g) * per;
          double m = 0, v = 0;
          for (std::size_t k = 0; k < per; ++k) m += x[base + k] / per;
          for (std::size_t k = 0; k < per; ++k) v += (x[base + k] - m) * (x[base + k] - m) / per;
          for (std::size_t k = 0; k < per; ++k) {
            const std::size_t c = (base + k) / GF % GC;
            y[base + k] = gam[c] * (x[base + k] - m) / std::sqrt(v + 1e-5) + bet[c];
          }
        }
      return y;
    };
    std::vector<double> x(xv.begin(), xv.end()), dx(GT);
    const std::vector<double> y = host(x);
    for (std::size_t i = 0; i < GT; ++i) {
      std::vector<double> up = x, down = x;
      up[i] += 1e-4, down[i] -= 1e-4;
      const std::vector<double> yu = host(up), yd = host(down);
      for (std::size_t j = 0; j < GT; ++j) dx[i] += gv2[j] * (yu[j] - yd[j]) / 2e-4;
    }
    const std::string what = kind ? "ln" : "gn";
    auto st = kind ? popnn::ln::layerNormStatistics(graph, a, 1e-5f, prog, false)
                   : popnn::gn::groupNormStatistics(graph, a, 1e-5f, prog, unsigned(GG), false);
    auto nm = kind ? popnn::ln::layerNormalise(graph, a, ga, be, st.first, st.second, prog)
                   : popnn::gn::groupNormalise(graph, a, ga, be, st.first, st.second, prog);
    checks.push_back({what + " normalise", nm.first, y, 2e-5});
    checks.push_back({what + " input gradient",
                      kind ? popnn::ln::layerNormGradients(graph, nm.second, g2, st.second, ga, prog)
                           : popnn::gn::groupNormGradients(graph, nm.second, g2, st.second, ga, prog),
                      dx, 2e-4});
  }

  for (const Check &c : checks) graph.createHostRead(c.name, c.t);
  graph.createHostRead("numCorrect", numCorrect);
  graph.createHostWrite("numCorrect-write", numCorrect);
  graph.createHostRead("argMax", am);
  graph.createHostRead("argMin", an);
  Engine engine(graph, prog);
  engine.load(device);
  const unsigned zero = 0;
  engine.writeTensor("numCorrect-write", &zero, &zero + 1);
  engine.run(0);
  engine.run(0);
  unsigned bad = 0;
  for (const Check &c : checks) {
    std::vector<float> got(c.t.numElements());
    engine.readTensor(c.name, got.data(), got.data() + got.size());
    unsigned wrong = 0;
    std::string first;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const bool ok = std::fabs(got[i] - c.want[i]) <= c.tolerance * (1 + std::fabs(c.want[i]));
      if (!ok && wrong++ == 0)
        first = " (first at " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", want " + std::to_string(c.want[i]) + ")";
    }
    std::cout << c.name << ": " << (wrong ? std::to_string(wrong) + " wrong" + first : "ok") << "\n";
    bad += wrong;
  }
  unsigned nc = 0, amv[3], anv[3];
  engine.readTensor("numCorrect", &nc, &nc + 1);
  engine.readTensor("argMax", amv, amv + 3);
  engine.readTensor("argMin", anv, anv + 3);
  std::cout << "numCorrect after two runs: " << nc << " (" << correct << " correct a run)\n";
  std::cout << "argMax " << amv[0] << " " << amv[1] << " " << amv[2] << ", argMin " << anv[0] << " " << anv[1] << " "
            << anv[2] << "\n";
  bad += nc != 2 * correct;

  Sequence bad1;
  printError([&] { popnn::calcLoss(graph, x, expected.slice(0, 3), loss, deltas, popnn::CROSS_ENTROPY_LOSS); });
  printError([&] { popnn::calcLoss(graph, x, x[0], loss, deltas, popnn::CROSS_ENTROPY_LOSS); });
  printError([&] { popnn::nonLinearityInputGradient(graph, NonLinearityType::RELU, x, g[0], bad1); });
  printError([&] { popnn::argMax(graph, x[0], bad1); });
  return bad ? 1 : 0;
}
