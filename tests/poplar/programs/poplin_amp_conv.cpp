// poplin's convolutions on the AMP (docs/poplin.md "Convolutions on the AMP"): 2-D, one group,
// channels in the AMP's chunks, input padding only. Tensors made by createInput/createWeights
// (stored channels-last and as the AMP's weight chunks), with half (half partials, and float
// partials: 8 outputs a pass, summed in float and cast) and with float, symmetric and
// uneven padding, and tensors the caller laid out (gathered as they lie), each with its kernel
// rows on one vertex and, for layers of few output rows, on vertices of their own whose partials
// are summed (AmpPlan::parts; which cases split is noted below). Every element is a
// small multiple of 1/4 and every sum stays below 128, so every result is exact; the host
// reference is computed here.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/ConvUtil.hpp>
#include <poplin/Convolution.hpp>
#include <poplin/codelets.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <iostream>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;

namespace {

struct Case {
  std::string name;
  Type type;
  std::size_t n, ci, co, h, w, kh, kw;
  unsigned padTop, padBottom, padLeft, padRight;
  bool created; // by createInput/createWeights, else laid out by the caller
};

float inAt(std::size_t i) { return float(int((i * 7) % 9) - 4) * 0.25f; }
float wAt(std::size_t i) { return float(int((i * 5) % 7) - 3) * 0.25f; }

} // namespace

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 8;
  Device device = ipuModel.createDevice();
  const Target &target = device.getTarget();
  Graph graph(target);
  popops::addCodelets(graph);
  poplin::addCodelets(graph);
  Sequence prog;

  const std::vector<Case> cases = {
      {"half, 3x3, padding 1", HALF, 2, 16, 32, 20, 20, 3, 3, 1, 1, 1, 1, true},
      {"half, float partials, 3x3, padding 1", HALF, 1, 16, 16, 5, 20, 3, 3, 1, 1, 1, 1, true},
      {"half, float partials, 24 outputs in blocks of 16", HALF, 1, 16, 24, 5, 20, 3, 3, 1, 1, 1, 1, true},
      {"float, 3x3, uneven padding", FLOAT, 1, 8, 16, 6, 20, 3, 3, 0, 2, 2, 0, true},
      {"float, 1x3, laid out by the caller", FLOAT, 1, 8, 16, 4, 24, 1, 3, 0, 0, 0, 0, false},
      // Few output rows for the tiles and enough depth that it pays: the kernel rows go to
      // vertices of their own and their partials are summed afterwards (AmpPlan::parts: 3, 3,
      // 5, 3, 3, 3 in these six; above, 3 in the first, second and fourth, 1 in the 24
      // outputs in blocks of 16, which does not split, and in the 1x3). With more output rows
      // than the tiles take one a vertex, a vertex takes several as one AMP run whose window
      // rows end to end give junk partials that the sum skips (AmpPlan::rows: 1, 2, 3, 3, 2, 4
      // (4 and 3) here).
      {"half, 3x3, padding 1, kernel rows split", HALF, 1, 32, 16, 2, 20, 3, 3, 1, 1, 1, 1, true},
      {"float, 3x3, uneven padding, kernel rows split", FLOAT, 1, 32, 16, 3, 20, 3, 3, 0, 2, 2, 0, true},
      {"half, float partials, 5x3, kernel rows split, laid out by the caller", HALF, 1, 32, 8, 3, 20, 5, 3, 2, 2, 1, 1, false},
      {"half, 3x3, padding 1, kernel rows split, 3 rows a vertex", HALF, 1, 32, 16, 6, 20, 3, 3, 1, 1, 1, 1, true},
      {"float, 3x2, uneven padding, kernel rows split, 2 rows a vertex", FLOAT, 1, 32, 16, 4, 20, 3, 2, 2, 0, 0, 1, true},
      {"half, float partials, 3x3, kernel rows split, 4 rows a vertex", HALF, 1, 64, 8, 7, 20, 3, 3, 1, 1, 1, 1, true},
      // Weights given transposed and flipped ([1][ci][co][kh][kw], the input gradient's form):
      // copied into the AMP's chunks by weightsTransposeChansFlipXY first, in 16 x 16 blocks
      // where both channel counts allow (made by createWeights as the forward weights of the
      // layer whose gradient this is, or laid out by the caller), else element by element.
      {"half, 3x3, padding 1, weights transposed and flipped", HALF, 1, 32, 16, 6, 20, 3, 3, 1, 1, 1, 1, true},
      {"float, 3x3, weights transposed and flipped, laid out by the caller", FLOAT, 1, 16, 32, 4, 20, 3, 3, 1, 1, 1, 1, false},
      {"float, 3x2, uneven padding, weights transposed and flipped", FLOAT, 1, 8, 16, 4, 20, 3, 2, 2, 0, 0, 1, true},
  };
  struct Result {
    Tensor out;
    std::vector<double> want;
  };
  std::vector<Result> results;
  std::vector<std::vector<float>> inputs, kernels;
  for (const Case &c : cases) {
    poplin::ConvParams params(c.type, c.type, c.n, {c.h, c.w}, {c.kh, c.kw}, c.ci, c.co, 1,
                              {{0, 0}, {0, 0}, {1, 1}, {c.padTop, c.padLeft}, {c.padBottom, c.padRight}, {false, false}},
                              {{0, 0}, {0, 0}, {1, 1}, {0, 0}, {0, 0}, {false, false}},
                              {{0, 0}, {0, 0}, {1, 1}, {0, 0}, {0, 0}});
    const OptionFlags options{{"partialsType", c.type == HALF && c.name.find("float partials") == std::string::npos ? "half" : "float"}};
    const bool transposed = c.name.find("transposed and flipped") != std::string::npos;
    // The layer whose weights these are when they come transposed: channels the other way.
    poplin::ConvParams forward = params;
    std::swap(forward.inputChannelsPerConvGroup, forward.outputChannelsPerConvGroup);
    Tensor in, weights;
    if (c.created) {
      in = poplin::createInput(graph, params, c.name + "/in", options);
      weights = poplin::createWeights(graph, transposed ? forward : params, c.name + "/weights", options);
    } else {
      in = graph.addVariable(c.type, {c.n, c.ci, c.h, c.w}, c.name + "/in");
      weights = transposed ? graph.addVariable(c.type, {1, c.ci, c.co, c.kh, c.kw}, c.name + "/weights")
                           : graph.addVariable(c.type, {1, c.co, c.ci, c.kh, c.kw}, c.name + "/weights");
      poputil::mapTensorLinearly(graph, in);
      poputil::mapTensorLinearly(graph, weights);
    }
    graph.createHostWrite(c.name + "/in", in);
    graph.createHostWrite(c.name + "/weights", weights);
    Tensor out = poplin::convolution(graph, in, weights, params, transposed, prog, c.name, options);
    graph.createHostRead(c.name + "/out", out);
    std::cout << c.name << ": output " << out.shapeToString() << "\n";
    // The host reference, [n][co][oy][ox].
    std::vector<float> iv(in.numElements()), wv(weights.numElements());
    for (std::size_t i = 0; i < iv.size(); ++i) iv[i] = inAt(i);
    for (std::size_t i = 0; i < wv.size(); ++i) wv[i] = wAt(i);
    const std::size_t oh = c.h + c.padTop + c.padBottom - c.kh + 1, ow = c.w + c.padLeft + c.padRight - c.kw + 1;
    std::vector<double> want(c.n * c.co * oh * ow);
    for (std::size_t n = 0; n < c.n; ++n)
      for (std::size_t o = 0; o < c.co; ++o)
        for (std::size_t y = 0; y < oh; ++y)
          for (std::size_t x = 0; x < ow; ++x) {
            double s = 0;
            for (std::size_t i = 0; i < c.ci; ++i)
              for (std::size_t ky = 0; ky < c.kh; ++ky)
                for (std::size_t kx = 0; kx < c.kw; ++kx) {
                  const long iy = long(y + ky) - long(c.padTop), ix = long(x + kx) - long(c.padLeft);
                  if (iy < 0 || ix < 0 || iy >= long(c.h) || ix >= long(c.w)) continue;
                  // Transposed and flipped: output o's weight for input i at (ky, kx) is element
                  // [i][o][kh - 1 - ky][kw - 1 - kx].
                  const std::size_t wi = transposed ? ((i * c.co + o) * c.kh + (c.kh - 1 - ky)) * c.kw + (c.kw - 1 - kx)
                                                    : ((o * c.ci + i) * c.kh + ky) * c.kw + kx;
                  s += double(iv[((n * c.ci + i) * c.h + std::size_t(iy)) * c.w + std::size_t(ix)]) * wv[wi];
                }
            want[((n * c.co + o) * oh + y) * ow + x] = s;
          }
    results.push_back({out, want});
    inputs.push_back(iv);
    kernels.push_back(wv);
  }

  // Weight deltas (calculateWeightDeltas, 3x3 with padding 1 unless said) of layers whose activations and output
  // gradients come from createInput and createConvOutput: both lie channels last, and the
  // deltas' product, which takes the positions as its depth, first turns them row by row with
  // popops' transpose vertices (ConvMatMul.cpp turnedRows; rows of 18 halves are turned padded
  // to 20, whole 64-bit words). dw[o][i][ky][kx] = the sum over n, y, x of
  // dy[n][o][y][x] x in[n][i][y + ky - 1][x + kx - 1]: at most 108 products of at most 0.75, in
  // sixteenths, so exact with half partials too.
  // Also a 1x1 kernel with stride 2 (its tap's pixels turned on their own), and 128
  // input channels (turned in bands of 64) in rows of 14 (turned padded to 16).
  struct DeltaCase {
    std::string name;
    Type type;
    const char *partials;
    std::size_t n, ci, co, h, w;
    unsigned k, stride;
  };
  const std::vector<DeltaCase> deltaCases = {
      {"weight deltas, half, 3x3, padding 1", HALF, "half", 1, 16, 16, 5, 20, 3, 1},
      {"weight deltas, half, float partials, 24 outputs", HALF, "float", 1, 16, 24, 4, 20, 3, 1},
      {"weight deltas, half, rows of 18", HALF, "half", 2, 16, 16, 3, 18, 3, 1},
      {"weight deltas, float", FLOAT, "float", 1, 8, 16, 4, 20, 3, 1},
      {"weight deltas, half, 1x1, stride 2", HALF, "float", 2, 16, 32, 10, 10, 1, 2},
      {"weight deltas, half, 128 input channels, rows of 14", HALF, "half", 1, 128, 16, 3, 14, 3, 1},
  };
  struct Deltas {
    Tensor in, dy, dw;
    std::vector<float> iv, dv;
    std::vector<double> want;
  };
  std::vector<Deltas> deltas;
  for (const DeltaCase &c : deltaCases) {
    const unsigned pad = c.k / 2;
    poplin::ConvParams params(c.type, c.type, c.n, {c.h, c.w}, {c.k, c.k}, c.ci, c.co, 1,
                              {{0, 0}, {0, 0}, {1, 1}, {pad, pad}, {pad, pad}, {false, false}},
                              {{0, 0}, {0, 0}, {1, 1}, {0, 0}, {0, 0}, {false, false}},
                              {{0, 0}, {0, 0}, {c.stride, c.stride}, {0, 0}, {0, 0}});
    const std::size_t oh = params.getOutputSize(0), ow = params.getOutputSize(1);
    const OptionFlags options{{"partialsType", c.partials}};
    Deltas d;
    d.in = poplin::createInput(graph, params, c.name + "/in", options);
    d.dy = poplin::createConvOutput(graph, params, c.name + "/dy", options);
    d.dw = poplin::calculateWeightDeltas(graph, d.dy, d.in, params, prog, c.name, options);
    graph.createHostWrite(c.name + "/in", d.in);
    graph.createHostWrite(c.name + "/dy", d.dy);
    graph.createHostRead(c.name + "/dw", d.dw);
    d.iv.resize(d.in.numElements());
    d.dv.resize(d.dy.numElements());
    for (std::size_t i = 0; i < d.iv.size(); ++i) d.iv[i] = inAt(i);
    for (std::size_t i = 0; i < d.dv.size(); ++i) d.dv[i] = wAt(i);
    d.want.assign(c.co * c.ci * c.k * c.k, 0.0);
    for (std::size_t o = 0; o < c.co; ++o)
      for (std::size_t i = 0; i < c.ci; ++i)
        for (std::size_t ky = 0; ky < c.k; ++ky)
          for (std::size_t kx = 0; kx < c.k; ++kx) {
            double sum = 0;
            for (std::size_t n = 0; n < c.n; ++n)
              for (std::size_t y = 0; y < oh; ++y)
                for (std::size_t x = 0; x < ow; ++x) {
                  const long iy = long(y * c.stride + ky) - pad, ix = long(x * c.stride + kx) - pad;
                  if (iy < 0 || ix < 0 || iy >= long(c.h) || ix >= long(c.w)) continue;
                  sum += double(d.dv[((n * c.co + o) * oh + y) * ow + x]) *
                         d.iv[((n * c.ci + i) * c.h + std::size_t(iy)) * c.w + std::size_t(ix)];
                }
            d.want[((o * c.ci + i) * c.k + ky) * c.k + kx] = sum;
          }
    deltas.push_back(d);
  }

  // A layer with stride 2, which runs as a product (ConvMatMul.cpp), its input, weights and output
  // gradient made by createInput, createWeights and createInput of the gradient's parameters:
  // channels last, and the weights a kernel position at a time with input channels innermost
  // (16-channel blocks); forward, and input gradient from the weights transposed and flipped
  // (turned by weightsTransposeChansFlipXY first). Sums of at most 9 x 32 products: exact.
  const std::size_t sn = 1, sci = 16, sco = 32, sh = 9, sw = 12, soh = 5, sow = 6;
  const poplin::ConvParams sp(HALF, HALF, sn, {sh, sw}, {3, 3}, sci, sco, 1,
                              {{0, 0}, {0, 0}, {1, 1}, {1, 1}, {1, 1}, {false, false}},
                              {{0, 0}, {0, 0}, {1, 1}, {0, 0}, {0, 0}, {false, false}},
                              {{0, 0}, {0, 0}, {2, 2}, {0, 0}, {0, 0}});
  const OptionFlags floatPartials{{"partialsType", "float"}};
  Tensor sIn = poplin::createInput(graph, sp, "strided/in", floatPartials);
  Tensor sW = poplin::createWeights(graph, sp, "strided/weights", floatPartials);
  Tensor sDy = poplin::createInput(graph, poplin::getGradientParams(sp), "strided/dy", floatPartials);
  Tensor sOut = poplin::convolution(graph, sIn, sW, sp, false, prog, "strided", floatPartials);
  Tensor sDx = poplin::convolution(graph, sDy, sW, poplin::getGradientParams(sp), true, prog, "strided/bwd", floatPartials);
  graph.createHostWrite("strided/in", sIn);
  graph.createHostWrite("strided/weights", sW);
  graph.createHostWrite("strided/dy", sDy);
  graph.createHostRead("strided/out", sOut);
  graph.createHostRead("strided/dx", sDx);
  std::vector<float> sIv(sIn.numElements()), sWv(sW.numElements()), sDv(sDy.numElements());
  for (std::size_t i = 0; i < sIv.size(); ++i) sIv[i] = inAt(i);
  for (std::size_t i = 0; i < sWv.size(); ++i) sWv[i] = wAt(i);
  for (std::size_t i = 0; i < sDv.size(); ++i) sDv[i] = inAt(i + 3);
  std::vector<double> sOutWant(sn * sco * soh * sow), sDxWant(sn * sci * sh * sw);
  for (std::size_t o = 0; o < sco; ++o)
    for (std::size_t i = 0; i < sci; ++i)
      for (std::size_t y = 0; y < soh; ++y)
        for (std::size_t x = 0; x < sow; ++x)
          for (std::size_t ky = 0; ky < 3; ++ky)
            for (std::size_t kx = 0; kx < 3; ++kx) {
              const long iy = long(2 * y + ky) - 1, ix = long(2 * x + kx) - 1;
              if (iy < 0 || ix < 0 || iy >= long(sh) || ix >= long(sw)) continue;
              const double wv = sWv[((o * sci + i) * 3 + ky) * 3 + kx];
              const std::size_t at = (i * sh + std::size_t(iy)) * sw + std::size_t(ix), out = (o * soh + y) * sow + x;
              sOutWant[out] += double(sIv[at]) * wv;
              sDxWant[at] += double(sDv[out]) * wv;
            }

  Engine engine(graph, prog);
  engine.load(device);
  // Host values of `type` into a tensor, and back.
  auto write = [&](const std::string &name, const Type &type, const std::vector<float> &v) {
    if (type == HALF) {
      std::vector<uint16_t> h(v.size());
      copyFloatToDeviceHalf(target, v.data(), h.data(), h.size());
      engine.writeTensor(name, h.data(), h.data() + h.size());
    } else {
      engine.writeTensor(name, v.data(), v.data() + v.size());
    }
  };
  auto read = [&](const std::string &name, const Type &type, std::size_t count) {
    std::vector<float> got(count);
    if (type == HALF) {
      std::vector<uint16_t> raw(count);
      engine.readTensor(name, raw.data(), raw.data() + count);
      copyDeviceHalfToFloat(target, raw.data(), got.data(), count);
    } else {
      engine.readTensor(name, got.data(), got.data() + count);
    }
    return got;
  };
  write("strided/in", HALF, sIv);
  write("strided/weights", HALF, sWv);
  write("strided/dy", HALF, sDv);
  for (std::size_t k = 0; k < deltaCases.size(); ++k) {
    write(deltaCases[k].name + "/in", deltaCases[k].type, deltas[k].iv);
    write(deltaCases[k].name + "/dy", deltaCases[k].type, deltas[k].dv);
  }
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case &c = cases[k];
    if (c.type == HALF) {
      std::vector<uint16_t> ih(inputs[k].size()), wh(kernels[k].size());
      copyFloatToDeviceHalf(target, inputs[k].data(), ih.data(), ih.size());
      copyFloatToDeviceHalf(target, kernels[k].data(), wh.data(), wh.size());
      engine.writeTensor(c.name + "/in", ih.data(), ih.data() + ih.size());
      engine.writeTensor(c.name + "/weights", wh.data(), wh.data() + wh.size());
    } else {
      engine.writeTensor(c.name + "/in", inputs[k].data(), inputs[k].data() + inputs[k].size());
      engine.writeTensor(c.name + "/weights", kernels[k].data(), kernels[k].data() + kernels[k].size());
    }
  }
  engine.run(0);
  unsigned bad = 0;
  for (const auto &check : {std::make_pair(std::string("strided/out"), &sOutWant), std::make_pair(std::string("strided/dx"), &sDxWant)}) {
    const std::vector<float> got = read(check.first, HALF, check.second->size());
    unsigned wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) wrong += double(got[i]) != (*check.second)[i];
    std::cout << "half, 3x3, stride 2 (a product), " << (check.first == "strided/out" ? "forward" : "input gradient")
              << ": " << (wrong ? std::to_string(wrong) + " wrong" : "ok") << "\n";
    bad += wrong;
  }
  for (std::size_t k = 0; k < deltaCases.size(); ++k) {
    const std::vector<float> got = read(deltaCases[k].name + "/dw", deltaCases[k].type, deltas[k].want.size());
    unsigned wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) wrong += double(got[i]) != deltas[k].want[i];
    std::cout << deltaCases[k].name << ": " << (wrong ? std::to_string(wrong) + " wrong" : "ok") << "\n";
    bad += wrong;
  }
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case &c = cases[k];
    const std::size_t count = results[k].out.numElements();
    std::vector<float> got(count);
    if (c.type == HALF) {
      std::vector<uint16_t> raw(count);
      engine.readTensor(c.name + "/out", raw.data(), raw.data() + count);
      copyDeviceHalfToFloat(target, raw.data(), got.data(), count);
    } else {
      engine.readTensor(c.name + "/out", got.data(), got.data() + count);
    }
    unsigned wrong = 0;
    for (std::size_t i = 0; i < count; ++i) wrong += double(got[i]) != results[k].want[i];
    std::cout << c.name << ": " << (wrong ? std::to_string(wrong) + " wrong" : "ok") << "\n";
    bad += wrong;
  }
  return bad ? 1 : 0;
}
