// The four vertex pairs of bench/cc/vertices.cpp (compiled by ipu-cc) and bench/cc/vertices.S
// (hand-written): their inputs, vertex state, host reference and the issued-bundle count of the
// assembly version. Shared by tests/cc_bench/compiled_vs_asm_test.cpp and bench/cc/compiled_vs_asm.cpp.
#pragma once

#include "ipusim/arch/Half.h"
#include "ipusim/sim/Tile.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ipusim::ccbench {

// a, b and out in three different 16 KiB memory elements (the pace instructions of the assembly
// make one access to each in one issue: no conflict turn); the vertex state after them.
constexpr uint32_t kA = 0x60000, kB = 0x64000, kOut = 0x68000, kState = 0x70000;
constexpr uint32_t kGuard = 16;                // bytes past the output checked to be untouched
constexpr uint8_t kSentinel = 0xA5;            // the output area's bytes before the run

enum class Kind { AddF32, AddF16, SumF32, ScaledAddF16 };

struct Pair {
  Kind kind;
  const char *name;     ///< the C++ class
  const char *compiled; ///< ipu-cc's entry symbol
  const char *hand;     ///< the assembly's entry symbol
  bool elementwise;     ///< the 1.5x target applies
};

inline const std::vector<Pair> &pairs() {
  static const std::vector<Pair> p = {
      {Kind::AddF32, "VectorAddF32", "__runCodelet_VectorAddF32", "VectorAddF32_asm", true},
      {Kind::AddF16, "VectorAddF16", "__runCodelet_VectorAddF16", "VectorAddF16_asm", true},
      {Kind::SumF32, "SumF32", "__runCodelet_SumF32", "SumF32_asm", false},
      {Kind::ScaledAddF16, "ScaledAddF16", "__runCodelet_ScaledAddF16", "ScaledAddF16_asm", true},
  };
  return p;
}

inline bool isHalf(Kind k) { return k == Kind::AddF16 || k == Kind::ScaledAddF16; }
inline uint32_t elementBytes(Kind k) { return isHalf(k) ? 2 : 4; }
/// Bytes the vertex writes: n elements, or the one float of the sum.
inline uint32_t outputBytes(Kind k, uint32_t n) { return k == Kind::SumF32 ? 4 : n * elementBytes(k); }

/// Deterministic inputs: floats of both signs with varied exponents; halves in a range where
/// sums and products stay finite.
inline float inputValue(uint32_t stream, uint32_t i) {
  uint32_t x = (i + 1) * 2654435761u ^ (stream + 1) * 0x9E3779B9u;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  float f = float(int32_t(x % 20001) - 10000) / 1000.0f; // -10 .. 10, steps of 0.001
  return f;
}
inline uint16_t inputHalf(uint32_t stream, uint32_t i) { return arch::floatToHalf(inputValue(stream, i)); }
inline uint16_t scaleK() { return arch::floatToHalf(-0.3125f); }

/// Writes the inputs, the vertex state and the sentinel output area into a tile.
inline void setup(sim::Tile &t, Kind k, uint32_t n) {
  auto &m = t.memory();
  for (uint32_t i = 0; i < outputBytes(k, n) + kGuard; ++i) m.write<uint8_t>(kOut + i, kSentinel);
  for (uint32_t i = 0; i < n; ++i) {
    if (isHalf(k)) {
      m.write<uint16_t>(kA + 2 * i, inputHalf(0, i));
      m.write<uint16_t>(kB + 2 * i, inputHalf(1, i));
    } else {
      m.write<float>(kA + 4 * i, inputValue(0, i));
      m.write<float>(kB + 4 * i, inputValue(1, i));
    }
  }
  // Vertex state, as `ipu-cc --print-vertex-layout` gives it: a (SPAN: ptr, size) at 0, then
  // b (ONE_PTR) at 8 and out (ONE_PTR) at 12; SumF32: result (pointer) at 8; ScaledAddF16: k (half)
  // at 16.
  m.write<uint32_t>(kState + 0, kA);
  m.write<uint32_t>(kState + 4, n);
  if (k == Kind::SumF32) {
    m.write<uint32_t>(kState + 8, kOut);
    return;
  }
  m.write<uint32_t>(kState + 8, kB);
  m.write<uint32_t>(kState + 12, kOut);
  if (k == Kind::ScaledAddF16) {
    m.write<uint16_t>(kState + 16, scaleK());
    m.write<uint16_t>(kState + 18, 0);
  }
}

/// The output area after a run: the vertex's output and kGuard bytes after it.
inline std::vector<uint8_t> output(sim::Tile &t, Kind k, uint32_t n) {
  std::vector<uint8_t> v(outputBytes(k, n) + kGuard);
  for (uint32_t i = 0; i < v.size(); ++i) v[i] = t.memory().read<uint8_t>(kOut + i);
  return v;
}

/// What the output area must hold: the C++ semantics computed on the host (IEEE f32; f16 ops
/// rounded once each, the product then the sum for ScaledAddF16), then the untouched guard.
inline std::vector<uint8_t> reference(Kind k, uint32_t n) {
  std::vector<uint8_t> v(outputBytes(k, n) + kGuard, kSentinel);
  auto put16 = [&](uint32_t i, uint16_t h) { std::memcpy(&v[2 * i], &h, 2); };
  switch (k) {
  case Kind::AddF32:
    for (uint32_t i = 0; i < n; ++i) {
      float r = inputValue(0, i) + inputValue(1, i);
      std::memcpy(&v[4 * i], &r, 4);
    }
    break;
  case Kind::AddF16:
    for (uint32_t i = 0; i < n; ++i)
      put16(i, arch::doubleToHalf(double(arch::halfToFloat(inputHalf(0, i))) + arch::halfToFloat(inputHalf(1, i))));
    break;
  case Kind::SumF32: {
    float s = 0;
    for (uint32_t i = 0; i < n; ++i) s += inputValue(0, i);
    std::memcpy(&v[0], &s, 4);
    break;
  }
  case Kind::ScaledAddF16: {
    double kk = arch::halfToFloat(scaleK());
    for (uint32_t i = 0; i < n; ++i) {
      uint16_t p = arch::doubleToHalf(kk * arch::halfToFloat(inputHalf(1, i)));
      put16(i, arch::doubleToHalf(double(arch::halfToFloat(inputHalf(0, i))) + arch::halfToFloat(p)));
    }
    break;
  }
  }
  return v;
}

/// Bundles the assembly version issues for n elements, counted from bench/cc/vertices.S (every
/// instruction there is a bundle; the rpt bundle is one issue and its body issues count times).
///
/// Elementwise, the pipelined part takes the first 2q atoms (q = n / (2 x elements per atom)):
/// a header (4 ld32, the shift and the branch; ScaledAddF16 also ldb16 k), the set-up and the
/// two-bundle prologue, the rpt bundle, 2q - 2 body issues of 1 bundle (2 for ScaledAddF16), a
/// two-bundle epilogue and the tail test (and, brz). Without a tail: exitz. With one: five bundles
/// of tail pointer arithmetic, then the tail stages, each either run or skipped (see the .S).
inline uint64_t asmBundles(Kind k, uint32_t n) {
  switch (k) {
  case Kind::AddF32: {
    uint32_t q = n / 4, r = n % 4;
    // tail from .Lf32_tail: an atom (and, brz, 2 ld64step, and+f32v2add, st64step) then brz to the
    // exit (r = 2) or brz, bri, the float (ld32, ld32, f32add, st32); without the atom: and, brz,
    // and, brz, the float if any; exitz.
    uint64_t tail = (r & 2) ? ((r & 1) ? 6 + 2 + 4 : 6 + 1) : ((r & 1) ? 4 + 4 : 4);
    tail += 1; // exitz
    if (q == 0) return 6 + tail;
    uint64_t main = 6 + 3 + 2 + 1 + (2 * q - 2) + 2 + 2;
    return r == 0 ? main + 1 : main + 5 + tail;
  }
  case Kind::AddF16:
  case Kind::ScaledAddF16: {
    bool scaled = k == Kind::ScaledAddF16;
    uint32_t q = n / 8, r = n % 8;
    // tail stages: atom (and, brz, 2 ld64step, [mul], add, st64step, bri) or (and, brz, and);
    // pair (brz, 2 ld32step, [mul], add, st32step, bri) or (brz, and); half (brz, 2 ldb16,
    // ld32 of the word, [mul], add, sort4x16hi, st32, exitz) or (brz, exitz).
    uint64_t s = scaled ? 1 : 0;
    uint64_t tail = ((r & 4) ? 7 + s : 3) + ((r & 2) ? 6 + s : 2) + ((r & 1) ? 7 + s : 2);
    uint64_t header = scaled ? 7 : 6;
    if (q == 0) return header + tail;
    uint64_t main = scaled ? header + 5 + 1 + 2 * (2 * q - 2) + 2 + 2 : header + 3 + 2 + 1 + (2 * q - 2) + 2 + 2;
    return r == 0 ? main + 1 : main + 5 + tail;
  }
  case Kind::SumF32: {
    uint32_t p = n / 2, r = n % 2;
    // 3 ld32, shr+mov, and, brz; with pairs: add, ld64step, rpt (+ the first f32add), 2p - 2 body
    // issues, brz + the last pair's second f32add; then the odd element (ld32, f32add) and st32,
    // exitz. Without pairs: brz, then bri to the odd element or straight to the store.
    if (p == 0) return 6 + 1 + (r ? 1 + 2 : 0) + 2;
    return 6 + 3 + (2 * p - 2) + 1 + (r ? 2 : 0) + 2;
  }
  }
  return 0;
}

/// A worker started alone by the launcher (docs/tile-timing.md "Runs and statistics") that issues
/// b bundles first issues at cycle 18 and exits at 18 + 6 (b - 1); the run ends 12 cycles later.
inline uint64_t workerRunCycles(uint64_t bundles) { return 18 + 6 * (bundles - 1) + 12; }

} // namespace ipusim::ccbench
