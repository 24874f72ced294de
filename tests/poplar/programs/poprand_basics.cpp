// poprand as a user calls it, on the tiles' PRNG: uniform (float and int), bernoulli, normal,
// truncated normal and dropout from a seed; the same seed and modifier give the same tensor, a
// different modifier another; runs repeat exactly; and errors. Each distribution's sample
// statistics are checked against its definition (4,096 draws: the bounds below are several
// standard errors wide) and printed.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <poprand/RandomGen.hpp>
#include <poprand/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;

namespace {

struct Stats {
  double mean = 0, sd = 0, lo = 1e30, hi = -1e30;
};

Stats stats(const std::vector<float> &v) {
  Stats s;
  for (float x : v) s.mean += x / v.size(), s.lo = std::min<double>(s.lo, x), s.hi = std::max<double>(s.hi, x);
  for (float x : v) s.sd += (x - s.mean) * (x - s.mean) / v.size();
  s.sd = std::sqrt(s.sd);
  return s;
}

unsigned bad = 0;
void expect(bool ok, const std::string &what) {
  std::cout << what << ": " << (ok ? "ok" : "FAILED") << "\n";
  bad += !ok;
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
  ipuModel.tilesPerIPU = 4;
  Device device = ipuModel.createDevice();
  Graph graph(device.getTarget());
  poprand::addCodelets(graph);
  const std::size_t N = 4096;
  Tensor ref = graph.addVariable(FLOAT, {N}, "reference");
  poputil::mapTensorLinearly(graph, ref);
  const unsigned seedValues[2] = {12345, 678};
  Tensor seed = graph.addConstant<unsigned>(UNSIGNED_INT, {2}, seedValues, "seed");
  graph.setTileMapping(seed, 0);
  std::vector<float> onesv(N, 1.0f);
  Tensor ones = graph.addConstant<float>(FLOAT, {N}, onesv.data(), "ones");
  poputil::mapTensorLinearly(graph, ones);

  Sequence prog;
  Tensor u = poprand::uniform(graph, &seed, 1, ref, FLOAT, -2, 3, prog);
  Tensor uAgain = poprand::uniform(graph, &seed, 1, ref, FLOAT, -2, 3, prog);
  Tensor uOther = poprand::uniform(graph, &seed, 2, ref, FLOAT, -2, 3, prog);
  Tensor ui = poprand::uniform(graph, &seed, 3, ref, INT, 0, 9, prog);
  Tensor b = poprand::bernoulli(graph, &seed, 4, ref, FLOAT, 0.3, prog);
  Tensor n = poprand::normal(graph, &seed, 5, ref, FLOAT, 1.0, 2.0, prog);
  Tensor t = poprand::truncatedNormal(graph, &seed, 6, ref, FLOAT, 1.0, 2.0, 1.5, prog);
  Tensor d = poprand::dropout(graph, &seed, 7, ones, ref, 0.75, 4.0 / 3.0, prog);
  Tensor free1 = poprand::uniform(graph, nullptr, 0, ref, FLOAT, 0, 1, prog);
  Tensor free2 = poprand::uniform(graph, nullptr, 0, ref, FLOAT, 0, 1, prog);
  const std::pair<const char *, Tensor> outs[] = {{"u", u}, {"uAgain", uAgain}, {"uOther", uOther}, {"b", b}, {"n", n},
                                                  {"t", t}, {"d", d}, {"free1", free1}, {"free2", free2}};
  for (const auto &o : outs) graph.createHostRead(o.first, o.second);
  graph.createHostRead("ui", ui);

  Engine engine(graph, prog);
  engine.load(device);
  auto read = [&](const char *name) {
    std::vector<float> v(N);
    engine.readTensor(name, v.data(), v.data() + N);
    return v;
  };
  engine.run(0);
  const std::vector<float> uv = read("u"), bv = read("b"), nv = read("n"), tv = read("t"), dv = read("d");
  std::vector<int> iv(N);
  engine.readTensor("ui", iv.data(), iv.data() + N);

  const Stats su = stats(uv), sn = stats(nv), st = stats(tv), sb = stats(bv);
  char line[160];
  std::snprintf(line, sizeof line, "uniform [-2, 3): mean %.3f, sd %.3f, min %.3f, max %.3f", su.mean, su.sd, su.lo, su.hi);
  std::cout << line << "\n";
  expect(su.lo >= -2 && su.hi < 3 && std::fabs(su.mean - 0.5) < 0.1 && std::fabs(su.sd - 5 / std::sqrt(12.0)) < 0.05,
         "uniform: bounds, mean 0.5, sd 1.443");
  expect(read("uAgain") == uv, "the same seed and modifier give the same tensor");
  expect(read("uOther") != uv, "another modifier gives another tensor");
  std::vector<unsigned> counts(10);
  bool inRange = true;
  for (int x : iv) inRange &= x >= 0 && x <= 9, counts[std::size_t(std::min(std::max(x, 0), 9))]++;
  bool everyValue = true;
  for (unsigned c : counts) everyValue &= c > N / 10 / 2;
  expect(inRange && everyValue, "uniform int [0, 9]: in range, every value drawn");
  bool binary = true;
  for (float x : bv) binary &= x == 0 || x == 1;
  std::snprintf(line, sizeof line, "bernoulli 0.3: fraction %.3f", sb.mean);
  std::cout << line << "\n";
  expect(binary && std::fabs(sb.mean - 0.3) < 0.03, "bernoulli: 0 or 1, fraction 0.3");
  std::snprintf(line, sizeof line, "normal (1, 2): mean %.3f, sd %.3f", sn.mean, sn.sd);
  std::cout << line << "\n";
  expect(std::fabs(sn.mean - 1) < 0.15 && std::fabs(sn.sd - 2) < 0.1, "normal: mean 1, sd 2");
  std::snprintf(line, sizeof line, "truncated normal (1, 2, 1.5): mean %.3f, sd %.3f, min %.3f, max %.3f", st.mean, st.sd,
                st.lo, st.hi);
  std::cout << line << "\n";
  // A normal truncated at 1.5 sd has sd 0.7375 of the normal's (the moments of the truncated normal).
  expect(st.lo >= 1 - 3.0001 && st.hi <= 1 + 3.0001 && std::fabs(st.mean - 1) < 0.1 && std::fabs(st.sd - 2 * 0.7375) < 0.1,
         "truncated normal: within 1.5 sd, sd 1.475");
  unsigned kept = 0;
  bool twoValues = true;
  for (float x : dv) kept += x != 0, twoValues &= x == 0 || x == float(1.0f * float(4.0 / 3.0));
  std::snprintf(line, sizeof line, "dropout keep 0.75: kept %.3f", double(kept) / N);
  std::cout << line << "\n";
  expect(twoValues && std::fabs(double(kept) / N - 0.75) < 0.03, "dropout: 0 or 4/3, three quarters kept");
  expect(read("free1") != read("free2"), "without a seed each call continues the PRNG");
  engine.run(0);
  expect(read("u") == uv && read("n") == nv && read("d") == dv, "a second run repeats the seeded tensors");

  Sequence bad1;
  Tensor floatSeed = graph.addVariable(FLOAT, {2}, "floatSeed");
  printError([&] { poprand::uniform(graph, &floatSeed, 0, ref, FLOAT, 0, 1, bad1); });
  printError([&] { poprand::bernoulli(graph, &seed, 0, ref, FLOAT, 1.5, bad1); });
  printError([&] { poprand::normal(graph, &seed, 0, ref, INT, 0, 1, bad1); });
  return bad ? 1 : 0;
}
