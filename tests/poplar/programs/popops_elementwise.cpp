// popops' element-wise operations as a user calls them: named unary, binary and ternary ops,
// host constants as operands, numpy broadcasting, a fused popops::map expression, in-place and
// with-output forms, casts, fills and scaled additions, on float, half, int and bool, with
// operands on other tiles than the result. Every result is read back and checked against a host
// reference computed here (exact where IEEE arithmetic is exact, else within the stated
// relative tolerance); bad calls print their poplar_error.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/Cast.hpp>
#include <popops/ElementWise.hpp>
#include <popops/Fill.hpp>
#include <popops/ScaledAdd.hpp>
#include <popops/Zero.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <cmath>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

using namespace poplar;
using namespace poplar::program;
namespace pe = popops::expr;

namespace {

const unsigned kRows = 3, kCols = 10, kN = kRows * kCols;

// The operands: a and b never zero, p positive, all short binary fractions.
float aAt(unsigned i) { return float(int(i % 7) - 3) * 0.75f + 0.25f; }
float bAt(unsigned i) { return float(int((i * 5) % 11) - 5) * 0.5f + 0.125f; }
float pAt(unsigned i) { return 0.5f + 0.25f * float(i); }
int iAt(unsigned i) { return int(i * 37) - 500; }

struct Check {
  std::string name;
  Tensor t;
  std::function<double(unsigned)> want;
  double tolerance; // relative; 0: exact
};

std::vector<Check> checks;

void check(Graph &graph, const std::string &name, Tensor t, std::function<double(unsigned)> want,
           double tolerance = 0) {
  graph.createHostRead(name, t);
  checks.push_back({name, t, want, tolerance});
}

std::vector<double> readBack(Engine &engine, const Target &target, const Check &c) {
  const unsigned n = unsigned(c.t.numElements());
  std::vector<double> out(n);
  const Type type = c.t.elementType();
  if (type == FLOAT) {
    std::vector<float> v(n);
    engine.readTensor(c.name, v.data(), v.data() + n);
    for (unsigned i = 0; i < n; ++i) out[i] = v[i];
  } else if (type == HALF) {
    std::vector<uint16_t> h(n);
    std::vector<float> v(n);
    engine.readTensor(c.name, h.data(), h.data() + n);
    copyDeviceHalfToFloat(target, h.data(), v.data(), n);
    for (unsigned i = 0; i < n; ++i) out[i] = v[i];
  } else if (type == INT) {
    std::vector<int> v(n);
    engine.readTensor(c.name, v.data(), v.data() + n);
    for (unsigned i = 0; i < n; ++i) out[i] = v[i];
  } else if (type == BOOL) {
    std::vector<unsigned char> v(n);
    engine.readTensor(c.name, v.data(), v.data() + n);
    for (unsigned i = 0; i < n; ++i) out[i] = v[i];
  }
  return out;
}

// The value a float takes as a half (round to nearest even), through Poplar's host conversion.
float asHalf(const Target &target, float x) {
  uint16_t h;
  float back;
  copyFloatToDeviceHalf(target, &x, &h, 1);
  copyDeviceHalfToFloat(target, &h, &back, 1);
  return back;
}

void printError(const std::function<void()> &f) {
  try {
    f();
    std::cout << "no error\n";
  } catch (const poplar_error &e) {
    std::cout << "error (" << e.type << "): " << e.what() << "\n";
  }
}

} // namespace

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  Device device = ipuModel.createDevice();
  const Target &target = device.getTarget();
  Graph graph(target);
  popops::addCodelets(graph);

  std::vector<float> av(kN), bv(kN), pv(kN);
  std::vector<int> iv(kN);
  for (unsigned i = 0; i < kN; ++i) av[i] = aAt(i), bv[i] = bAt(i), pv[i] = pAt(i), iv[i] = iAt(i);
  // a, b, p and ints: rows on tiles 0..2; the broadcast row, scalars and limits on tile 3.
  Tensor a = graph.addConstant<float>(FLOAT, {kRows, kCols}, av.data(), "a");
  Tensor b = graph.addConstant<float>(FLOAT, {kRows, kCols}, bv.data(), "b");
  Tensor p = graph.addConstant<float>(FLOAT, {kRows, kCols}, pv.data(), "p");
  Tensor ints = graph.addConstant<int>(INT, {kRows, kCols}, iv.data(), "ints");
  for (unsigned r = 0; r < kRows; ++r) {
    graph.setTileMapping(a[r], r);
    graph.setTileMapping(b[r], (r + 1) % kRows); // b's rows sit on other tiles than a's
    graph.setTileMapping(p[r], r);
    graph.setTileMapping(ints[r], r);
  }
  std::vector<float> rowv(kCols);
  for (unsigned j = 0; j < kCols; ++j) rowv[j] = 0.5f * float(j) - 2;
  Tensor row = graph.addConstant<float>(FLOAT, {kCols}, rowv.data(), "row");
  Tensor s = graph.addConstant<float>(FLOAT, {}, 2.5f, "s");
  Tensor lo = graph.addConstant<float>(FLOAT, {}, -1.0f, "lo");
  Tensor hi = graph.addConstant<float>(FLOAT, {1}, 1.5f, "hi");
  graph.setTileMapping(row, 3);
  graph.setTileMapping(s, 3);
  graph.setTileMapping(lo, 3);
  graph.setTileMapping(hi, 3);

  Sequence prog;
  auto A = [](unsigned i) { return double(aAt(i)); };
  auto B = [](unsigned i) { return double(bAt(i)); };
  auto P = [](unsigned i) { return double(pAt(i)); };

  // Arithmetic that IEEE single precision rounds once: the host's float arithmetic is the reference.
  check(graph, "add", popops::add(graph, a, b, prog), [](unsigned i) { return double(aAt(i) + bAt(i)); });
  check(graph, "sub", popops::sub(graph, a, b, prog), [](unsigned i) { return double(aAt(i) - bAt(i)); });
  check(graph, "mul", popops::mul(graph, a, b, prog), [](unsigned i) { return double(aAt(i) * bAt(i)); });
  check(graph, "div", popops::div(graph, a, b, prog), [](unsigned i) { return double(aAt(i) / bAt(i)); }, 1.2e-7);
  check(graph, "max", popops::max(graph, a, b, prog), [=](unsigned i) { return std::max(A(i), B(i)); });
  check(graph, "min", popops::min(graph, a, b, prog), [=](unsigned i) { return std::min(A(i), B(i)); });
  check(graph, "neg", popops::neg(graph, a, prog), [=](unsigned i) { return -A(i); });
  check(graph, "abs", popops::abs(graph, a, prog), [=](unsigned i) { return std::fabs(A(i)); });
  check(graph, "square", popops::square(graph, a, prog), [=](unsigned i) { return A(i) * A(i); });
  check(graph, "floor", popops::floor(graph, a, prog), [=](unsigned i) { return std::floor(A(i)); });
  check(graph, "signum", popops::signum(graph, a, prog), [=](unsigned i) { return double((A(i) > 0) - (A(i) < 0)); });
  check(graph, "relu", popops::relu(graph, a, prog), [=](unsigned i) { return A(i) > 0 ? A(i) : 0.0; });
  // The tile's math library against the host's, within a few units in the last place.
  check(graph, "exp", popops::exp(graph, a, prog), [=](unsigned i) { return std::exp(A(i)); }, 1e-6);
  check(graph, "log", popops::log(graph, p, prog), [=](unsigned i) { return std::log(P(i)); }, 1e-6);
  check(graph, "sqrt", popops::sqrt(graph, p, prog), [=](unsigned i) { return std::sqrt(P(i)); }, 1.2e-7);
  check(graph, "rsqrt", popops::rsqrt(graph, p, prog), [=](unsigned i) { return 1 / std::sqrt(P(i)); }, 1e-6);
  check(graph, "tanh", popops::tanh(graph, a, prog), [=](unsigned i) { return std::tanh(A(i)); }, 1e-6);
  check(graph, "sigmoid", popops::sigmoid(graph, a, prog), [=](unsigned i) { return 1 / (1 + std::exp(-A(i))); }, 1e-6);
  // Host constants as operands, on either side.
  check(graph, "mul const", popops::mul(graph, a, 3.0f, prog), [=](unsigned i) { return double(aAt(i) * 3.0f); });
  check(graph, "const sub", popops::sub(graph, 10.0f, a, prog), [=](unsigned i) { return double(10.0f - aAt(i)); });
  // Broadcasting: a row over every row, a scalar tensor over everything.
  check(graph, "add row", popops::add(graph, a, row, prog),
        [&](unsigned i) { return double(aAt(i) + rowv[i % kCols]); });
  // One fused vertex for a whole expression: (a + b) * s - 1.5, with s a scalar tensor.
  Tensor fused = popops::map(graph, (pe::_1 + pe::_2) * pe::_3 - 1.5f, {a, b, s}, prog);
  check(graph, "fused", fused, [](unsigned i) { return double((aAt(i) + bAt(i)) * 2.5f - 1.5f); }, 1.2e-7);
  // Comparisons give bool; select and clamp.
  Tensor greater = popops::gt(graph, a, b, prog);
  check(graph, "gt", greater, [=](unsigned i) { return double(A(i) > B(i)); });
  check(graph, "select", popops::select(graph, a, b, greater, prog), [=](unsigned i) { return std::max(A(i), B(i)); });
  check(graph, "clamp", popops::clamp(graph, a, lo, hi, prog),
        [=](unsigned i) { return std::min(std::max(A(i), -1.0), 1.5); });
  check(graph, "not", popops::logicalNot(graph, greater, prog), [=](unsigned i) { return double(!(A(i) > B(i))); });
  // In place and with an output tensor.
  Tensor x = graph.clone(a, "x");
  prog.add(Copy(a, x));
  popops::addInPlace(graph, x, b, prog);
  popops::mulInPlace(graph, x, 2.0f, prog);
  check(graph, "in place", x, [](unsigned i) { return double((aAt(i) + bAt(i)) * 2.0f); });
  Tensor w = graph.clone(a, "w");
  popops::subWithOutput(graph, a, b, w, prog);
  check(graph, "with output", w, [](unsigned i) { return double(aAt(i) - bAt(i)); });
  // Scaled additions: y = (a - b) + 0.5 b, then minus s * a.
  Tensor y = graph.clone(a, "y");
  prog.add(Copy(w, y));
  popops::scaledAddTo(graph, y, b, 0.5f, prog);
  popops::scaledSubtractFrom(graph, y, a, s, prog);
  check(graph, "scaled add", y, [](unsigned i) { return double(((aAt(i) - bAt(i)) + 0.5f * bAt(i)) - 2.5f * aAt(i)); },
        1.2e-7);
  // Casts: float -> half (nearest even) -> float, float -> int (towards zero), int -> float.
  Tensor third = popops::map(graph, pe::_1 / 3.0f, {a}, prog);
  Tensor h = popops::cast(graph, third, HALF, prog);
  check(graph, "cast half", h, [&](unsigned i) { return double(asHalf(target, aAt(i) / 3.0f)); });
  check(graph, "cast int", popops::cast(graph, popops::mul(graph, a, 3.0f, prog), INT, prog),
        [](unsigned i) { return double(int(aAt(i) * 3.0f)); });
  check(graph, "int to float", popops::cast(graph, ints, FLOAT, prog), [](unsigned i) { return double(iAt(i)); });
  // half arithmetic rounds once to half.
  check(graph, "half add", popops::add(graph, h, h, prog), [&](unsigned i) {
    return double(asHalf(target, 2 * asHalf(target, aAt(i) / 3.0f)));
  });
  // Long runs through the assembly paths (add, sub and mul of whole float or half tensors, and the
  // float-to-half cast): 97, 98 and 99 elements on one tile leave the last worker 1, 2 and 3
  // elements past its whole 64-bit vectors (a lone half is written by read-modify-write) and the
  // others enough vectors for the pipelined loop; 10 leave the first worker 8 and the second 2,
  // so two half vectors, and one float vector, take the short loop (the pipelined one needs
  // three); the second operand starts on another tile.
  for (unsigned n : {97u, 98u, 99u, 10u}) {
    std::vector<float> xv(n), yv(n);
    for (unsigned i = 0; i < n; ++i) xv[i] = aAt(i), yv[i] = bAt(i);
    for (const Type &t : {FLOAT, HALF}) {
      const std::string tag = std::string(t == HALF ? "half" : "float") + " run " + std::to_string(n);
      Tensor x = graph.addConstant<float>(FLOAT, {n}, xv.data(), tag + " x");
      Tensor y = graph.addConstant<float>(FLOAT, {n}, yv.data(), tag + " y");
      graph.setTileMapping(x, 0);
      graph.setTileMapping(y, 1);
      if (t == HALF) {
        x = popops::cast(graph, x, HALF, prog);
        y = popops::cast(graph, y, HALF, prog);
      }
      const bool half = t == HALF;
      auto round = [&, half](float v) { return half ? double(asHalf(target, v)) : double(v); };
      if (half) check(graph, tag + " cast", y, [=](unsigned i) { return round(bAt(i)); });
      check(graph, tag + " add", popops::add(graph, x, y, prog), [=](unsigned i) { return round(aAt(i) + bAt(i)); });
      check(graph, tag + " sub", popops::sub(graph, x, y, prog), [=](unsigned i) { return round(aAt(i) - bAt(i)); });
      check(graph, tag + " mul", popops::mul(graph, x, y, prog), [=](unsigned i) { return round(aAt(i) * bAt(i)); });
      Tensor z = popops::sub(graph, x, y, prog);
      popops::mulInPlace(graph, z, y, prog);
      check(graph, tag + " mulInPlace", z, [=](unsigned i) { return round(round(aAt(i) - bAt(i)) * bAt(i)); });
      // Scaled additions with constant scales (the f16v4mix and f32v2axpy vertices where the
      // scales allow, else the generated one): x + b y, x - b y and (half) a x + b y. For half
      // data with half scales each product is exact in float, so the float sum rounded to half
      // is the reference; b = 0.33325195 is the half 0x3555, whose products need the rounding.
      // Each product is stored before the add (volatile), so that the host rounds it as the tile
      // does even where the compiler would fuse the two.
      auto scaled = [&](const std::string &what, float sa, float sb, bool subtract, bool withA,
                        std::function<double(float, float)> want) {
        Tensor t = graph.clone(x, tag + " " + what);
        prog.add(Copy(x, t));
        if (subtract) popops::scaledSubtractFrom(graph, t, y, sb, prog);
        else if (withA) popops::scaledAddTo(graph, t, sa, y, sb, prog);
        else popops::scaledAddTo(graph, t, y, sb, prog);
        check(graph, tag + " " + what, t, [=](unsigned i) { return want(float(round(aAt(i))), float(round(bAt(i)))); });
      };
      const float third = 0.33325195f; // the half 0x3555
      scaled("scaledAddTo", 1, third, false, false, [=](float xv, float yv) {
        volatile float p = third * yv;
        return round(xv + p);
      });
      scaled("scaledSubtractFrom", 1, third, true, false, [=](float xv, float yv) {
        volatile float p = third * yv;
        return round(xv - p);
      });
      scaled("scaledAddTo a, b", -1.5f, third, false, true, [=](float xv, float yv) {
        volatile float p = -1.5f * xv, q = third * yv;
        return round(p + q);
      });
      scaled("scaledAddTo 0.1", 1, 0.1f, false, false, [=](float xv, float yv) { // not a half
        volatile float p = 0.1f * yv;
        return round(xv + p);
      });
      // The scale as a one-element tensor of the data's type, on another tile (read when the
      // vertex runs).
      {
        Tensor scale = graph.addConstant(t, {}, third, tag + " scale");
        graph.setTileMapping(scale, 2);
        Tensor u = graph.clone(x, tag + " scaledAddTo tensor");
        prog.add(Copy(x, u));
        popops::scaledAddTo(graph, u, y, scale, prog);
        check(graph, tag + " scaledAddTo tensor", u, [=](unsigned i) {
          volatile float p = third * float(round(bAt(i)));
          return round(float(round(aAt(i))) + p);
        });
        Tensor v = graph.clone(x, tag + " scaledSubtractFrom tensor");
        prog.add(Copy(x, v));
        popops::scaledSubtractFrom(graph, v, y, scale, prog);
        check(graph, tag + " scaledSubtractFrom tensor", v, [=](unsigned i) {
          volatile float p = third * float(round(bAt(i)));
          return round(float(round(aAt(i))) - p);
        });
      }
    }
  }
  // Integers: bitwise, shifts (logical and arithmetic), remainder, counts.
  check(graph, "int and", popops::bitwiseAnd(graph, ints, 0xF0, prog), [](unsigned i) { return double(iAt(i) & 0xF0); });
  check(graph, "int shr", popops::shiftRight(graph, ints, 4, prog),
        [](unsigned i) { return double(int(unsigned(iAt(i)) >> 4)); });
  check(graph, "int shrse", popops::shiftRightSignExtend(graph, ints, 4, prog),
        [](unsigned i) { return double(iAt(i) >> 4); });
  check(graph, "int rem", popops::rem(graph, ints, 7, prog), [](unsigned i) { return double(iAt(i) % 7); });
  check(graph, "int div", popops::div(graph, ints, 9, prog), [](unsigned i) { return double(iAt(i) / 9); });
  check(graph, "popcount", popops::popcount(graph, ints, prog),
        [](unsigned i) { return double(__builtin_popcount(unsigned(iAt(i)))); });
  check(graph, "clz", popops::countLeadingZeros(graph, ints, prog),
        [](unsigned i) { return double(iAt(i) == 0 ? 32 : __builtin_clz(unsigned(iAt(i)))); });
  check(graph, "int abs", popops::abs(graph, ints, prog), [](unsigned i) { return double(std::abs(iAt(i))); });
  // Fill and zero.
  Tensor filled = graph.addVariable(HALF, {kRows, kCols}, "filled");
  poputil::mapTensorLinearly(graph, filled);
  popops::fill(graph, filled, prog, 1.5f);
  check(graph, "fill half", filled, [](unsigned) { return 1.5; });
  Tensor zeroed = graph.clone(ints, "zeroed");
  prog.add(Copy(ints, zeroed));
  popops::zero(graph, zeroed.slice(1, 3), prog);
  check(graph, "zero part", zeroed, [](unsigned i) { return i / kCols >= 1 ? 0.0 : double(iAt(i)); });
  // Column strips: a [12][10] tensor whose columns 0-4 are on tile 1 and 5-9 on tile 2, so each
  // tile holds 12 regions of 5 (more than a vertex takes one by one: the tile's regions are
  // gathered into one vertex). An in-place add of a row-major operand, a fill, and a
  // two-operand map into a new tensor laid out the same way.
  {
    const unsigned R = 12;
    std::vector<float> sv(R * kCols), tv(R * kCols);
    for (unsigned i = 0; i < R * kCols; ++i) sv[i] = aAt(i), tv[i] = bAt(i);
    Tensor strips = graph.addVariable(FLOAT, {R, kCols}, "strips");
    graph.setTileMapping(strips.slice(0, 5, 1), 1);
    graph.setTileMapping(strips.slice(5, kCols, 1), 2);
    Tensor filledStrips = graph.clone(strips, "filled strips");
    Tensor plain = graph.addConstant<float>(FLOAT, {R, kCols}, tv.data(), "plain");
    graph.setTileMapping(plain, 3);
    Tensor stripsIn = graph.addConstant<float>(FLOAT, {R, kCols}, sv.data(), "strips in");
    graph.setTileMapping(stripsIn, 0);
    prog.add(Copy(stripsIn, strips));
    popops::addInPlace(graph, strips, plain, prog);
    check(graph, "add in place, column strips", strips, [](unsigned i) { return double(aAt(i)) + double(bAt(i)); });
    popops::fill(graph, filledStrips, prog, 2.5f);
    check(graph, "fill, column strips", filledStrips, [](unsigned) { return 2.5; });
    check(graph, "map, column strips", popops::map(graph, pe::_1 * pe::_2 - pe::_1, {filledStrips, plain}, prog),
          [](unsigned i) { return 2.5 * double(bAt(i)) - 2.5; });
  }

  Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  unsigned bad = 0;
  for (const Check &c : checks) {
    const std::vector<double> got = readBack(engine, target, c);
    unsigned wrong = 0;
    std::string first;
    for (unsigned i = 0; i < got.size(); ++i) {
      const double want = c.want(i);
      const bool ok = c.tolerance == 0 ? got[i] == want : std::fabs(got[i] - want) <= c.tolerance * std::fabs(want);
      if (!ok && wrong++ == 0)
        first = " (first at " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", want " +
                std::to_string(want) + ")";
    }
    std::cout << c.name << ": " << (wrong ? std::to_string(wrong) + " of " + std::to_string(got.size()) + " wrong" + first
                                          : "ok (" + std::to_string(got.size()) + ")")
              << "\n";
    bad += wrong;
  }

  // Bad calls.
  Sequence bad1;
  printError([&] { popops::add(graph, a, graph.addVariable(FLOAT, {4}, "v4"), bad1); });
  printError([&] { popops::add(graph, a, ints, bad1); });
  printError([&] { popops::map(graph, pe::_1 + pe::_3, {a, b}, bad1); });
  printError([&] { popops::exp(graph, ints, bad1); });
  printError([&] { popops::addInPlace(graph, row, a, bad1); });
  printError([&] { popops::add(graph, a, b, bad1, {}, {{"enableGenerateCodelet", "maybe"}}); });
  printError([&] { popops::add(graph, a, b, bad1, {}, {{"noSuchOption", "true"}}); });
  printError([&] { popops::select(graph, a, b, a, bad1); });
  return bad ? 1 : 0;
}
