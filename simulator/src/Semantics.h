// Shared helpers of the instruction semantics (src/semantics/*.cpp): one handler per mnemonic,
// registered by name, in the manner of Spike's insns/ (DESIGN "Models to learn from").
#pragma once

#include "ipusim/sim/Tile.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

namespace ipusim::sim {

/// The handler of each mnemonic; filled by the registration objects of the semantics files.
std::map<std::string, Handler> &handlerRegistry();

struct RegisterHandler {
  RegisterHandler(const char *mnemonic, Handler h) { handlerRegistry()[mnemonic] = h; }
};

/// Handlers specialised for one operand form, chosen at decode over the mnemonic's own (faster:
/// no operand-kind tests when they run). Keyed "MNEMONIC FORM", a letter an operand: m an MRF
/// register, a an ARF register, i an immediate (see specialisedKey in Tile.cpp).
std::map<std::string, Handler> &specialisedRegistry();
struct RegisterSpecialised {
  RegisterSpecialised(const char *key, Handler h) { specialisedRegistry()[key] = h; }
};

/// Handlers that use the host's vector units (AVX2 and F16C on x86-64), keyed by mnemonic: the
/// tile's fast path takes them over the mnemonic's own where the host has those units; its stepped
/// path keeps the portable ones, so that every ISS test compares the two (Tile::decodeWord).
std::map<std::string, Handler> &hostVectorRegistry();
struct RegisterHostVector {
  RegisterHostVector(const char *mnemonic, Handler h) { hostVectorRegistry()[mnemonic] = h; }
};
// hostVectorUnits(): ipusim/sim/Tile.h.

/// Handlers for one operand form that the fast path takes over the mnemonic's own, keyed as
/// specialisedRegistry's: the common case alone, handing anything else to the general handler.
/// Like the host-vector handlers they are the fast path's only (the stepped path keeps the general
/// ones, so that every ISS test compares the two) and follow the same switch (IPUSIM_HOST_VECTOR).
std::map<std::string, Handler> &fastFormRegistry();
struct RegisterFastForm {
  RegisterFastForm(const char *key, Handler h) { fastFormRegistry()[key] = h; }
};

#define IPU_SEMANTICS(name)                                                                     \
  static void sem_##name(Tile &t, Context &c, const Op &op);                                    \
  static RegisterHandler reg_##name(#name, sem_##name);                                         \
  static void sem_##name([[maybe_unused]] Tile &t, [[maybe_unused]] Context &c,                 \
                         [[maybe_unused]] const Op &op)

/// The next 64 bits of the context's hardware PRNG (src/semantics/Random.cpp).
uint64_t nextRandom(Context &c);
inline uint32_t nextRandom32(Context &c) { return uint32_t(nextRandom(c)); }

/// Registers `name` with the semantics of `same` (e.g. f32v2add with f32add: lanes follow the
/// destination's size).
#define IPU_SAME_SEMANTICS(name, same) static RegisterHandler reg_##name(#name, sem_##same);

inline bool isReg(const Op &op, unsigned i) { return op.kind[i] < arch::OperandKind::UImm; }
inline bool isArf(const Op &op, unsigned i) { return op.arf >> i & 1; }

/// Operand i as a 32-bit value: the register's contents, or the immediate.
inline uint32_t src(const Context &c, const Op &op, unsigned i) {
  if (!isReg(op, i)) return uint32_t(op.v[i]);
  return isArf(op, i) ? c.a[op.v[i]] : c.m[op.v[i]];
}
inline uint64_t pairA(const Context &c, unsigned r) { return uint64_t(c.a[r]) | uint64_t(c.a[r + 1]) << 32; }
inline void setPairA(Context &c, unsigned r, uint64_t v) {
  if (r >= 14) return; // $azeros: the write is discarded
  if (c.deferArf) {
    c.setA(r, uint32_t(v));
    c.setA(r + 1, uint32_t(v >> 32));
    return;
  }
  // One 64-bit store: a pair's 64-bit readers (the f32v2 fast forms) are then forwarded it, and
  // 32-bit readers of either half are too.
  std::memcpy(&c.a[r], &v, sizeof v);
}
/// Writes operand 0 (the destination) in its register file.
inline void setDst(Context &c, const Op &op, uint32_t v) {
  if (isArf(op, 0)) c.setA(unsigned(op.v[0]), v);
  else c.setM(unsigned(op.v[0]), v);
}

inline float asFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t asBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// A batched rpt loop of `{ ld2xst64pace ; aux }` bundles (poplin's matmul and convolution loop,
/// an AMP form beside each; popops' and poplin's two-stream element-wise loops, a vector operation)
/// laid out by Tile::runPaceLoop, which has checked that no access of the loop can fault:
/// each bundle's register operands and address steps, the three addresses, and tile memory.
struct PaceLoop {
  static constexpr unsigned kMaxBundles = 16;
  struct Step {
    const Op *aux;        ///< the bundle's aux instruction (an AMP form in poplin's kernels)
    uint32_t pc;
    unsigned load, store; ///< ld2xst64pace's load quad and stored pair (first registers)
    int32_t inc[3];       ///< each address's step after the access, in bytes
  } steps[kMaxBundles];
  unsigned bundles = 0;
  uint64_t iterations = 0;
  uint32_t addr[3] = {};       ///< the input, partials and store addresses
  uint8_t *bytes = nullptr;    ///< host pointer of tile address `base`
  uint32_t base = 0;
  TileMemory::Elements elements{};
  uint64_t conflicts = 0;      ///< accesses that met an earlier one's memory element in their bundle

  /// A bundle's main instruction on the addresses `at` (the loop's own, or an executor's copy in
  /// host registers, which tile memory's byte stores cannot alias): notes the three accesses'
  /// memory elements (`element` gives an address's) as Tile::noteAccess does, loads the input and
  /// partials, stores `stored`, steps the addresses by `inc`. With `Count` false the caller
  /// counts the conflicts itself (the vector executor, a run of iterations at a time).
  template <bool Count = true, class ElementOf>
  [[gnu::always_inline]] static void mainInstruction(uint32_t (&at)[3], const int32_t (&inc)[3], uint8_t *bytes,
                                                     uint32_t base, ElementOf element, uint64_t &conflicts,
                                                     uint64_t stored, uint64_t &in, uint64_t &partials) {
    if constexpr (Count) {
      const uint32_t e0 = element(at[0]), e1 = element(at[1]), e2 = element(at[2]);
      conflicts += unsigned(e0 == e1) + unsigned(e0 == e2) + unsigned(e1 == e2);
    }
    std::memcpy(&in, bytes + (at[0] - base), 8);
    std::memcpy(&partials, bytes + (at[1] - base), 8);
    std::memcpy(bytes + (at[2] - base), &stored, 8);
    for (unsigned k = 0; k < 3; ++k) at[k] += uint32_t(inc[k]);
  }
  /// Step s's main instruction on the loop's addresses (`Count`: as mainInstruction's).
  template <bool Count = true>
  [[gnu::always_inline]] void access(const Step &s, const Context &c, uint64_t &in, uint64_t &partials) {
    mainInstruction<Count>(addr, s.inc, bytes, base, [this](uint32_t a) { return elements.of(a); }, conflicts,
                           pairA(c, s.store), in, partials);
  }

  /// The loop's memory-element conflicts a run of iterations at a time, which both executors count
  /// this way rather than finding each access's element. An iteration moves each address by the
  /// same whole number of 64-bit words (`move`), bundle k's access `offset[k]` from the
  /// iteration's start. While no address leaves its element or, in interleaved memory, its pair of
  /// elements (whose 64-bit words alternate between the two), an address's element changes only
  /// with its word's parity, which an iteration's move changes every time or never: every other
  /// iteration meets the same elements, so a run's first two iterations, counted bundle by bundle,
  /// give its count. (docs/tile-timing.md, "Batched rpt loops".)
  struct Runs {
    unsigned bundles;
    int64_t offset[kMaxBundles][3], move[3], lowest[3], highest[3];
    TileMemory::Elements elements;

    [[gnu::always_inline]] explicit Runs(const PaceLoop &loop) : bundles(loop.bundles), elements(loop.elements) {
      for (unsigned j = 0; j < 3; ++j) {
        int64_t o = 0;
        lowest[j] = highest[j] = 0;
        for (unsigned k = 0; k < bundles; ++k) {
          offset[k][j] = o;
          lowest[j] = std::min(lowest[j], o);
          highest[j] = std::max(highest[j], o);
          o += loop.steps[k].inc[j];
        }
        move[j] = o;
      }
    }
    /// The iterations from `at` (an iteration's start) on in which every address stays in its
    /// element or pair: 0 where an iteration's accesses straddle an edge.
    [[gnu::always_inline]] uint64_t length(const uint32_t (&at)[3]) const {
      const TileMemory::Elements &el = elements;
      uint64_t n = UINT64_MAX;
      for (unsigned j = 0; j < 3; ++j) {
        const int64_t lo = int64_t(at[j]) + lowest[j], hi = int64_t(at[j]) + highest[j];
        const bool paired = el.interleaved(uint32_t(lo));
        if (paired != el.interleaved(uint32_t(hi))) return 0;
        const int64_t origin = paired ? el.interleavedBase : el.base, size = int64_t(el.size) * (paired ? 2 : 1);
        // (the element size a power of two on Mk2: a mask rather than a division)
        const int64_t edgeLo = origin + (el.shift ? (lo - origin) & -size : (lo - origin) / size * size);
        const int64_t edgeHi = std::min(edgeLo + size, int64_t(paired ? el.end : el.interleavedBase));
        if (hi >= edgeHi) return 0;
        if (move[j] > 0) n = std::min(n, uint64_t(1 + (edgeHi - 1 - hi) / move[j]));
        else if (move[j] < 0) n = std::min(n, uint64_t(1 + (lo - edgeLo) / -move[j]));
      }
      return n;
    }
    /// Bundle k's conflicts in the run's even (q 0) and odd (q 1) iterations from `at`, and an
    /// even and an odd iteration's.
    [[gnu::always_inline]] void count(const uint32_t (&at)[3], unsigned (&perBundle)[2][kMaxBundles],
                                      unsigned (&perIteration)[2]) const {
      // In a run each address keeps its element, or its pair, whose two elements are its words'
      // parities: the element of the first access, with the parity left out in a pair, and then
      // each access's parity.
      uint32_t element[3], parity[3];
      for (unsigned j = 0; j < 3; ++j) {
        const bool paired = elements.interleaved(at[j]);
        element[j] = elements.of(at[j]) & (paired ? ~1u : ~0u);
        parity[j] = paired ? 1 : 0; // whether the word's parity chooses the element
      }
      for (unsigned q = 0; q < 2; ++q) {
        perIteration[q] = 0;
        for (unsigned k = 0; k < bundles; ++k) {
          uint32_t e[3];
          for (unsigned j = 0; j < 3; ++j)
            e[j] = element[j] | (uint32_t(int64_t(at[j]) + int64_t(q) * move[j] + offset[k][j]) >> 3 & parity[j]);
          perBundle[q][k] = unsigned(e[0] == e[1]) + unsigned(e[0] == e[2]) + unsigned(e[1] == e[2]);
          perIteration[q] += perBundle[q][k];
        }
      }
    }
    /// The conflicts of a run's first `m` whole iterations and then `b` bundles.
    static uint64_t upTo(const unsigned (&perBundle)[2][kMaxBundles], const unsigned (&perIteration)[2], uint64_t m,
                         unsigned b) {
      uint64_t n = (m + 1) / 2 * perIteration[0] + m / 2 * perIteration[1];
      for (unsigned k = 0; k < b; ++k) n += perBundle[m % 2][k];
      return n;
    }
  };
};

/// Runs a PaceLoop's bundles from the first on the host's vector units, with the AMP's state in
/// host registers, while they are a form it takes (poplin's f16v4hihov4amp, f16v4sisoamp and
/// f32sisov2amp, one whole set an iteration) and no NaN comes in; returns how many bundles it ran
/// (their loads written, the AMP's state stored back), which may be none (src/semantics/Amp.cpp).
uint64_t vectorPaceAmpLoop(Tile &t, Context &c, PaceLoop &loop);

} // namespace ipusim::sim
