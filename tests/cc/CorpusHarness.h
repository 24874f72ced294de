// The corpus harness: compiles a codelet file with ipu-cc (once per file and test process), finds a
// vertex's layout by class name, lays out its fields' data in tile memory from that layout
// (asm-dialect §3.2), runs the vertex on the tile ISS the way its kind is started (§3.1) and reads
// the outputs back.
//
// Tile memory used (Mk2, 624 KiB at 0x4C000): code and the compiler's own data at the bottom of
// region 0 (the linker places them), the vertex state at kStateAddr, field data from kDataAddr
// upwards, worker stacks around 0xC4000 + 0x4000 * w and the supervisor stack below kSupStackTop.
#pragma once

#include "SimUtil.h"

#include "ipusim/arch/Half.h"
#include "ipusim/cc/Compiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace ipusim::corpus {

using test::Mode;

constexpr uint32_t kRegion0 = 0x4C000;
constexpr uint32_t kStateAddr = 0x60000;
constexpr uint32_t kDataAddr = 0x60800;
constexpr uint32_t kDataEnd = 0xC0000;
constexpr uint32_t kSupStackTop = 0xDF000;
/// $mworker_base of worker context w (1..6), set by the harness (the ISS's default is the top of
/// tile memory minus 2 KiB per worker): compiled vertices take their frame below it (asm-dialect
/// §3.1); each worker has 8 KiB below and above it.
constexpr uint32_t workerBase(unsigned w) { return 0xC2000 + 0x4000 * (w - 1) + 0x2000; }
/// Bytes checked after every buffer: a vertex must not write past its data.
constexpr uint32_t kGuard = 8;
constexpr uint8_t kGuardByte = 0xA5, kUnwrittenByte = 0xCD;

/// The corpus file `name`: tests/cc/corpus, or the folder in $IPUSIM_CORPUS_OVERRIDE_DIR (to run
/// the tests on edited copies while bisecting a compiler failure).
inline std::string corpusFile(const std::string &name) {
  if (const char *dir = std::getenv("IPUSIM_CORPUS_OVERRIDE_DIR"); dir && *dir) return std::string(dir) + "/" + name;
  return std::string(IPUSIM_CORPUS_DIR) + "/corpus/" + name;
}

struct Compiled {
  bool ok = false;
  cc::CompileResult result;
  std::string error; ///< the CompileError's (or other exception's) message
};

inline std::map<std::string, std::unique_ptr<Compiled>> &compileCache() {
  static std::map<std::string, std::unique_ptr<Compiled>> cache;
  return cache;
}

/// The optimisation level the corpus is compiled at: 2, or $IPUSIM_CORPUS_OPT_LEVEL (CTest runs
/// the whole corpus again at -O0, -O1 and -O3: results must not depend on it).
inline int corpusOptLevel() {
  const char *l = std::getenv("IPUSIM_CORPUS_OPT_LEVEL");
  return l && *l ? std::atoi(l) : 2;
}

/// compileCodelet, cached per file for the whole test process.
inline const Compiled &compiled(const std::string &path) {
  auto &slot = compileCache()[path];
  if (!slot) {
    slot = std::make_unique<Compiled>();
    try {
      cc::CompileOptions options;
      options.optLevel = corpusOptLevel();
      slot->result = cc::compileCodelet(path, options);
      slot->ok = true;
      // $IPUSIM_CORPUS_DUMP_ASM_DIR: keep the generated assembly (for a failure's report).
      if (const char *dir = std::getenv("IPUSIM_CORPUS_DUMP_ASM_DIR"); dir && *dir) {
        std::string base = path.substr(path.find_last_of('/') + 1);
        std::ofstream(std::string(dir) + "/" + base + ".s") << slot->result.assembly;
      }
    } catch (const cc::CompileError &e) {
      slot->error = std::string("CompileError: ") + e.what();
    } catch (const std::exception &e) {
      slot->error = std::string("compileCodelet threw (not a CompileError): ") + e.what();
    }
  }
  return *slot;
}

/// Elements of one buffer, as raw little-endian bytes.
struct Data {
  std::vector<uint8_t> bytes;
  uint32_t count = 0, elemSize = 0;
};

template <class T> Data buf(const std::vector<T> &v) {
  Data d;
  d.count = uint32_t(v.size());
  d.elemSize = sizeof(T);
  d.bytes.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(d.bytes.data(), v.data(), d.bytes.size());
  return d;
}
/// binary16 data from floats, each rounded once to nearest even.
inline std::vector<uint16_t> toHalves(const std::vector<float> &v) {
  std::vector<uint16_t> h;
  for (float f : v) h.push_back(arch::doubleToHalf(f));
  return h;
}
inline Data halves(const std::vector<float> &v) { return buf(toHalves(v)); }
/// An output buffer of `count` elements, filled with kUnwrittenByte.
inline Data out(uint32_t count, uint32_t elemSize) {
  Data d;
  d.count = count;
  d.elemSize = elemSize;
  d.bytes.assign(size_t(count) * elemSize, kUnwrittenByte);
  return d;
}

/// Bytes per element of a C++ element type as ipu-cc spells it (0 if unknown).
inline uint32_t typeSize(std::string t) {
  for (const char *q : {"const ", "volatile "})
    if (t.rfind(q, 0) == 0) t = t.substr(strlen(q));
  static const std::map<std::string, uint32_t> sizes = {
      {"float", 4},         {"half", 2},          {"poplar::half", 2},   {"int", 4},
      {"unsigned int", 4},  {"unsigned", 4},      {"short", 2},          {"unsigned short", 2},
      {"char", 1},          {"signed char", 1},   {"unsigned char", 1},  {"bool", 1},
      {"long long", 8},     {"unsigned long long", 8}, {"long", 4},      {"unsigned long", 4},
      {"quarter", 1},       {"poplar::quarter", 1}};
  auto it = sizes.find(t);
  return it == sizes.end() ? 0 : it->second;
}

inline std::string describe(const cc::VertexLayout &v) {
  std::ostringstream s;
  s << v.className << " (" << v.vertexKind << ", " << v.entrySymbol << ", size " << v.size << ", align " << v.align
    << "):";
  for (const auto &f : v.fields)
    s << "\n  " << f.name << " @" << f.offset << " size " << f.size << " " << f.kind << " " << f.layout << " "
      << f.elementType << (f.innerLayout.empty() ? "" : " inner " + f.innerLayout) << " align " << f.elementAlign;
  return s.str();
}

/// Finds a vertex of a compiled file by class name (spaces ignored), or by entry symbol when
/// `name` starts with "__runCodelet_".
inline const cc::VertexLayout *findVertex(const cc::CompileResult &r, const std::string &name) {
  auto squash = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    for (size_t p; (p = s.find("poplar::half")) != std::string::npos;) s.replace(p, 12, "half");
    return s;
  };
  bool bySymbol = name.rfind("__runCodelet_", 0) == 0;
  for (const auto &v : r.vertices)
    if (bySymbol ? v.entrySymbol == name : squash(v.className) == squash(name)) return &v;
  return nullptr;
}

inline std::string vertexNames(const cc::CompileResult &r) {
  std::string s;
  for (const auto &v : r.vertices) s += "\n  " + v.className + " -> " + v.entrySymbol;
  return s;
}

/// The supervisor trampoline: Poplar's runtime gives the supervisor a stack; the ISS's
/// runSupervisor does not set $sp, so the harness starts supervisor vertices through this, which
/// sets $sp and jumps to the vertex with $m0 (vertex state) and $lr (the halt address) untouched.
inline cc::ObjectFile supervisorTrampoline(const std::string &entry) {
  std::ostringstream s;
  s << "  .section .text.__corpus_supervisor_start, \"ax\"\n"
    << "  .globl __corpus_supervisor_start\n"
    << "  .type __corpus_supervisor_start, @function\n"
    << "  .align 8\n"
    << "  .supervisor\n"
    << "__corpus_supervisor_start:\n"
    << "  setzi $sp, " << kSupStackTop << "\n"
    << "  setzi $m1, " << entry << "\n"
    << "  br $m1\n";
  return cc::assembleText(s.str(), "corpus_trampoline.s");
}

struct Run {
  std::unique_ptr<cc::ObjectFile> image;
  std::unique_ptr<sim::Tile> tile;
  sim::TileStats stats;
};

/// As test::runOnce, but links several objects.
inline Run runOnce(const std::vector<cc::LinkInput> &inputs, const std::string &entry, Mode mode, uint32_t vertexBase,
                   const std::function<void(sim::Tile &)> &setup, bool fast) {
  Run r;
  r.image = std::make_unique<cc::ObjectFile>(cc::link(inputs, test::mk2Config().tile));
  r.tile = std::make_unique<sim::Tile>(test::mk2Config().tile);
  r.tile->setFastPaths(fast);
  sim::loadImage(*r.tile, *r.image, "corpus.elf");
  if (setup) setup(*r.tile);
  int sym = r.image->findSymbol(entry);
  if (sym < 0) throw std::runtime_error("no symbol " + entry + " in the linked image");
  uint32_t pc = r.image->symbols[size_t(sym)].value;
  if (mode == Mode::Supervisor) r.stats = r.tile->runSupervisor(pc, vertexBase, 1ull << 28);
  else r.stats = r.tile->runSupervisor(r.tile->installWorkerLauncher(pc, vertexBase, mode == Mode::Multi), 0, 1ull << 28);
  return r;
}

/// Runs with the fast paths and again cycle by cycle, and checks both agree (as test::runTile).
inline Run runBoth(const std::vector<cc::LinkInput> &inputs, const std::string &entry, Mode mode, uint32_t vertexBase,
                   const std::function<void(sim::Tile &)> &setup) {
  Run fast;
  try {
    fast = runOnce(inputs, entry, mode, vertexBase, setup, true);
  } catch (const sim::SimException &e) {
    try {
      runOnce(inputs, entry, mode, vertexBase, setup, false);
      ADD_FAILURE() << "only the fast path raised: " << e.what();
    } catch (const sim::SimException &slow) {
      EXPECT_EQ(std::string(slow.what()), std::string(e.what()));
    }
    throw;
  }
  Run slow = runOnce(inputs, entry, mode, vertexBase, setup, false);
  EXPECT_EQ(fast.stats.cycles, slow.stats.cycles) << "fast and cycle-by-cycle paths differ";
  const sim::TileMemory &a = fast.tile->memory(), &b = slow.tile->memory();
  EXPECT_EQ(std::memcmp(a.at(a.base()), b.at(b.base()), a.end() - a.base()), 0) << "memory differs";
  return fast;
}

/// One vertex run: fields are set by name, then run() lays out the state and starts the vertex.
/// Any problem (compile error, missing field, simulated exception) is a test failure whose
/// message says which; `ok` is false then and the readers return zeros.
class VertexRun {
public:
  VertexRun(const std::string &file, const std::string &className) : file_(file), className_(className) {
    const Compiled &c = compiled(corpusFile(file));
    if (!c.ok) {
      fail("compile error: " + c.error);
      return;
    }
    result_ = &c.result;
    vertex_ = findVertex(c.result, className);
    if (!vertex_) fail("no vertex class '" + className + "' in " + file + "; it defines:" + vertexNames(c.result));
  }

  const cc::VertexLayout *layout() const { return vertex_; }
  bool ok() const { return ok_; }
  /// What compute() must return (the worker's exit status); checked by run() for Vertex and
  /// MultiVertex (every worker).
  VertexRun &expectReturn(bool value) {
    expectedExit_ = value ? 1 : 0;
    return *this;
  }

  /// A vector field (edge or Vector member) or a scalar edge (layout PTR): `d` is its data. A
  /// plain member (kind Value): `d` holds exactly its bytes.
  VertexRun &set(const std::string &field, const Data &d) {
    const cc::VertexField *f = findField(field);
    if (!f) return *this;
    if (uint32_t es = typeSize(f->elementType); es && d.elemSize && es != d.elemSize && f->kind != "Value")
      fail("field " + field + ": element type " + f->elementType + " is " + std::to_string(es) +
           " bytes, the test gives " + std::to_string(d.elemSize));
    sets_.push_back({f, {d}, false});
    return *this;
  }
  template <class T> VertexRun &value(const std::string &field, T v) { return set(field, buf(std::vector<T>{v})); }
  /// A vector of vectors: one Data per inner vector.
  VertexRun &set2d(const std::string &field, const std::vector<Data> &rows) {
    const cc::VertexField *f = findField(field);
    if (!f) return *this;
    if (f->innerLayout.empty()) fail("field " + field + " is not a vector of vectors (layout " + f->layout + ")");
    sets_.push_back({f, rows, true});
    return *this;
  }

  /// The metadata byte of a field of quarter vectors: placed in memory, its address in the
  /// pointer the field's state ends with (poplar/QuarterFloat.hpp).
  VertexRun &metadata(const std::string &field, uint8_t byte) {
    if (const cc::VertexField *f = findField(field)) metadata_.push_back({f, byte});
    return *this;
  }

  /// Lays out, runs, reads. Returns false (after recording a failure) if it could not run.
  bool run() {
    if (!ok_) return false;
    // Fields the test did not set are an error in the test.
    for (const auto &f : vertex_->fields)
      if (std::none_of(sets_.begin(), sets_.end(), [&](const Set &s) { return s.field == &f; }))
        return fail("the test does not set field " + f.name);
    state_.assign(vertex_->size, 0);
    next_ = kDataAddr;
    writes_.clear();
    for (const Set &s : sets_)
      if (!layoutField(s)) return false;
    for (const auto &[f, byte] : metadata_) {
      if (f->size < 8) return fail("field " + f->name + " has no metadata pointer (size " + std::to_string(f->size) + ")");
      put32(state_, f->offset + f->size - 4, place({byte}, 1));
    }
    Mode mode = vertex_->vertexKind == "MultiVertex"        ? Mode::Multi
                : vertex_->vertexKind == "SupervisorVertex" ? Mode::Supervisor
                                                            : Mode::Worker;
    if (vertex_->vertexKind != "Vertex" && vertex_->vertexKind != "MultiVertex" &&
        vertex_->vertexKind != "SupervisorVertex")
      return fail("unknown vertexKind '" + vertex_->vertexKind + "'");
    std::vector<cc::LinkInput> inputs{{file_ + ".o", result_->object}};
    std::string entry = vertex_->entrySymbol;
    if (mode == Mode::Supervisor) {
      inputs.push_back({"corpus_trampoline.o", supervisorTrampoline(vertex_->entrySymbol)});
      entry = "__corpus_supervisor_start";
    }
    auto setup = [this](sim::Tile &t) {
      for (unsigned w = 1; w <= 6; ++w) t.context(w).workerBase = workerBase(w);
      for (const auto &[addr, bytes] : writes_) std::memcpy(t.memory().at(addr), bytes.data(), bytes.size());
      std::memcpy(t.memory().at(kStateAddr), state_.data(), state_.size());
    };
    try {
      run_ = runBoth(inputs, entry, mode, kStateAddr, setup);
    } catch (const sim::SimException &e) {
      return fail(std::string("simulated exception: ") + e.what());
    } catch (const cc::LinkError &e) {
      return fail(std::string("link error: ") + e.what());
    } catch (const std::exception &e) {
      return fail(std::string("run failed: ") + e.what());
    }
    ran_ = true;
    // Exit statuses (the ISS's Context::exitStatus and the trace's vertex.end: 1 = true, after
    // `exitz $mzero`; 0 = false, after `exitnz $mzero`; -1 = never exited): context 1 for a
    // Vertex; every one of 1..6 for a MultiVertex.
    if (mode == Mode::Worker) exitStatus_ = run_.tile->context(1).exitStatus;
    if (mode == Mode::Multi)
      for (unsigned w = 1; w <= 6; ++w) {
        int s = run_.tile->context(w).exitStatus;
        EXPECT_EQ(s, expectedExit_) << where() << "worker " << w - 1 << " exit status (1: true, 0: false)";
        if (w == 1 || s != expectedExit_) exitStatus_ = s;
      }
    if (mode == Mode::Worker)
      EXPECT_EQ(exitStatus_, expectedExit_) << where() << "exit status (1: true / exitz, 0: false / exitnz)";
    // Nothing may be written past a buffer.
    for (const auto &[addr, len] : guards_)
      for (uint32_t i = 0; i < kGuard; ++i)
        if (run_.tile->memory().read<uint8_t>(addr + len + i) != kGuardByte) {
          ADD_FAILURE() << where() << "a byte after the buffer at 0x" << std::hex << addr << " (+" << std::dec
                        << len << ") was overwritten";
          break;
        }
    return true;
  }

  /// 1 = true (exitz $mzero), 0 = false (exitnz $mzero), -1 = never exited (or a supervisor vertex).
  int exitStatus() const { return exitStatus_; }
  const sim::TileStats &stats() const { return run_.stats; }

  /// The current contents of a field's data (of a vector of vectors: row `row`).
  template <class T> std::vector<T> get(const std::string &field, size_t row = 0) const {
    auto it = bufs_.find(field);
    if (!ran_ || it == bufs_.end() || row >= it->second.size()) {
      if (ran_) ADD_FAILURE() << where() << "no data for field " << field;
      return {};
    }
    const auto &[addr, count] = it->second[row];
    std::vector<T> v(count);
    for (uint32_t i = 0; i < count; ++i) v[i] = run_.tile->memory().read<T>(addr + i * sizeof(T));
    return v;
  }
  /// Where a field's data was placed (of a vector of vectors: row `row`).
  uint32_t address(const std::string &field, size_t row = 0) const {
    auto it = bufs_.find(field);
    return it == bufs_.end() || row >= it->second.size() ? 0 : it->second[row].first;
  }
  template <class T> T get1(const std::string &field) const {
    auto v = get<T>(field);
    return v.empty() ? T{} : v[0];
  }
  /// The bytes of the vertex state after the run (a Value field's current contents).
  template <class T> T stateValue(const std::string &field) const {
    const cc::VertexField *f = vertex_ ? findFieldQuiet(field) : nullptr;
    if (!ran_ || !f) return T{};
    return run_.tile->memory().read<T>(kStateAddr + f->offset);
  }
  std::string where() const { return file_ + " " + className_ + ": "; }

private:
  struct Set {
    const cc::VertexField *field;
    std::vector<Data> rows;
    bool twoD;
  };

  bool fail(const std::string &why) {
    ADD_FAILURE() << where() << why;
    ok_ = false;
    return false;
  }
  const cc::VertexField *findFieldQuiet(const std::string &name) const {
    for (const auto &f : vertex_->fields)
      if (f.name == name) return &f;
    return nullptr;
  }
  const cc::VertexField *findField(const std::string &name) {
    if (!ok_) return nullptr;
    if (const auto *f = findFieldQuiet(name)) return f;
    fail("no field '" + name + "' in the layout: " + describe(*vertex_));
    return nullptr;
  }

  /// Places `bytes` (aligned to `align`) followed by guard bytes; returns the address.
  uint32_t place(const std::vector<uint8_t> &bytes, uint32_t align) {
    align = std::max<uint32_t>(align, 8);
    next_ = (next_ + align - 1) / align * align;
    uint32_t addr = next_;
    std::vector<uint8_t> b = bytes;
    b.insert(b.end(), kGuard, kGuardByte);
    writes_.push_back({addr, b});
    guards_.push_back({addr, uint32_t(bytes.size())});
    next_ += uint32_t(b.size());
    return addr;
  }
  void put16(std::vector<uint8_t> &to, uint32_t off, uint32_t v) {
    to[off] = uint8_t(v);
    to[off + 1] = uint8_t(v >> 8);
  }
  void put32(std::vector<uint8_t> &to, uint32_t off, uint32_t v) {
    for (int i = 0; i < 4; ++i) to[off + i] = uint8_t(v >> (8 * i));
  }
  /// Writes the descriptor of a vector at `addr` with `count` elements in encoding `layout` into
  /// `to` at `off` (`room` bytes there).
  bool descriptor(const std::string &what, const std::string &layout, uint32_t addr, uint32_t count,
                  std::vector<uint8_t> &to, uint32_t off, uint32_t room) {
    auto need = [&](uint32_t n) {
      if (room < n) fail(what + ": layout " + layout + " needs " + std::to_string(n) + " bytes, the field has " +
                         std::to_string(room));
      return room >= n;
    };
    if (layout == "SPAN") {
      if (!need(8)) return false;
      put32(to, off, addr);
      put32(to, off + 4, count);
    } else if (layout == "ONE_PTR" || layout == "PTR") {
      if (!need(4)) return false;
      put32(to, off, addr);
    } else if (layout == "SHORT_SPAN") {
      if (!need(4)) return false;
      if (count >= 4096 || addr >= (1u << 20)) return fail(what + ": does not fit SHORT_SPAN");
      put32(to, off, addr | count << 20);
    } else if (layout == "SCALED_PTR32") {
      if (!need(2)) return false;
      if (addr % 4 || ((addr - kRegion0) >> 2) > 0xFFFF) return fail(what + ": does not fit SCALED_PTR32");
      put16(to, off, (addr - kRegion0) >> 2);
    } else if (layout == "SCALED_PTR64") {
      if (!need(2)) return false;
      if (addr % 8 || (addr >> 3) > 0xFFFF) return fail(what + ": does not fit SCALED_PTR64");
      put16(to, off, addr >> 3);
    } else if (layout == "SCALED_PTR128") {
      if (!need(2)) return false;
      if (addr % 16 || (addr >> 4) > 0xFFFF) return fail(what + ": does not fit SCALED_PTR128");
      put16(to, off, addr >> 4);
    } else {
      return fail(what + ": the harness does not support layout '" + layout + "'");
    }
    return true;
  }
  static uint32_t descriptorSize(const std::string &layout) {
    if (layout == "SPAN") return 8;
    if (layout.rfind("SCALED_PTR", 0) == 0) return 2;
    return 4;
  }

  bool layoutField(const Set &s) {
    const cc::VertexField &f = *s.field;
    if (f.offset + f.size > state_.size()) return fail("field " + f.name + " lies outside the vertex state");
    uint32_t align = std::max<uint32_t>(f.elementAlign, 1);
    if (f.layout.rfind("SCALED_PTR128", 0) == 0) align = std::max<uint32_t>(align, 16);
    if (f.kind == "Value") {
      const Data &d = s.rows[0];
      if (d.bytes.size() != f.size)
        return fail("field " + f.name + " is a " + std::to_string(f.size) + "-byte value, the test gives " +
                    std::to_string(d.bytes.size()) + " bytes");
      std::copy(d.bytes.begin(), d.bytes.end(), state_.begin() + f.offset);
      return true;
    }
    if (!s.twoD) {
      if (!f.innerLayout.empty()) return fail("field " + f.name + " is a vector of vectors: use set2d");
      uint32_t addr = place(s.rows[0].bytes, align);
      bufs_[f.name] = {{addr, s.rows[0].count}};
      return descriptor("field " + f.name, f.layout, addr, s.rows[0].count, state_, f.offset, f.size);
    }
    // Vector of vectors: the rows, then the array of inner descriptors the outer one points to.
    std::vector<std::pair<uint32_t, uint32_t>> rows;
    uint32_t each = descriptorSize(f.innerLayout);
    std::vector<uint8_t> table(each * s.rows.size(), 0);
    for (size_t i = 0; i < s.rows.size(); ++i) {
      uint32_t addr = place(s.rows[i].bytes, align);
      rows.push_back({addr, s.rows[i].count});
      if (!descriptor("field " + f.name + " row " + std::to_string(i), f.innerLayout, addr, s.rows[i].count, table,
                      uint32_t(i * each), each))
        return false;
    }
    bufs_[f.name] = rows;
    uint32_t tableAddr = place(table, 8);
    return descriptor("field " + f.name, f.layout, tableAddr, uint32_t(s.rows.size()), state_, f.offset, f.size);
  }

  std::string file_, className_;
  bool ok_ = true, ran_ = false;
  const cc::CompileResult *result_ = nullptr;
  const cc::VertexLayout *vertex_ = nullptr;
  std::vector<Set> sets_;
  std::vector<std::pair<const cc::VertexField *, uint8_t>> metadata_;
  std::vector<uint8_t> state_;
  uint32_t next_ = kDataAddr;
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> writes_;
  std::vector<std::pair<uint32_t, uint32_t>> guards_;
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> bufs_;
  Run run_;
  int exitStatus_ = -1, expectedExit_ = 1;
};

// ---- comparisons ----

inline uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
/// Distance in units in the last place between two finite floats (0 for identical bits).
inline uint64_t ulpDistance(float a, float b) {
  if (bitsOf(a) == bitsOf(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return ~0ull;
  auto ordered = [](float f) {
    int64_t i = int32_t(bitsOf(f));
    return i < 0 ? int64_t(INT32_MIN) - i : i; // monotone in f, +0 and -0 adjacent
  };
  int64_t d = ordered(a) - ordered(b);
  return uint64_t(d < 0 ? -d : d);
}
inline uint64_t ulpDistanceHalf(uint16_t a, uint16_t b) {
  if (a == b) return 0;
  auto ordered = [](uint16_t h) { return (h & 0x8000) ? -int32_t(h & 0x7FFF) : int32_t(h); };
  int32_t d = ordered(a) - ordered(b);
  return uint64_t(d < 0 ? -d : d);
}

/// Every element within `maxUlp` (0: the same bits). Reports the first few mismatches.
inline void expectF32(const VertexRun &r, const std::vector<float> &got, const std::vector<float> &want,
                      uint64_t maxUlp = 0) {
  if (!r.ok()) return;
  ASSERT_EQ(got.size(), want.size()) << r.where();
  int bad = 0;
  for (size_t i = 0; i < want.size() && bad < 8; ++i)
    if (ulpDistance(got[i], want[i]) > maxUlp) {
      ++bad;
      ADD_FAILURE() << r.where() << "[" << i << "] got " << std::hexfloat << got[i] << " want " << want[i]
                    << std::defaultfloat << " (" << got[i] << " vs " << want[i] << ", " << ulpDistance(got[i], want[i])
                    << " ulp, allowed " << maxUlp << ")";
    }
}
/// Each element equal (same bits) to one of the acceptable results (e.g. with and without a
/// fused multiply-add, which C++'s default -ffp-contract=on allows).
inline void expectF32OneOf(const VertexRun &r, const std::vector<float> &got,
                           const std::vector<std::vector<float>> &wants) {
  if (!r.ok()) return;
  int bad = 0;
  for (const auto &w : wants) ASSERT_EQ(got.size(), w.size()) << r.where();
  for (size_t i = 0; i < got.size() && bad < 8; ++i) {
    bool any = false;
    for (const auto &w : wants) any |= bitsOf(got[i]) == bitsOf(w[i]);
    if (!any) {
      ++bad;
      std::ostringstream s;
      for (const auto &w : wants) s << " " << std::hexfloat << w[i];
      ADD_FAILURE() << r.where() << "[" << i << "] got " << std::hexfloat << got[i] << ", want one of" << s.str();
    }
  }
}
inline void expectHalf(const VertexRun &r, const std::vector<uint16_t> &got, const std::vector<uint16_t> &want,
                       uint64_t maxUlp = 0) {
  if (!r.ok()) return;
  ASSERT_EQ(got.size(), want.size()) << r.where();
  int bad = 0;
  for (size_t i = 0; i < want.size() && bad < 8; ++i)
    if (ulpDistanceHalf(got[i], want[i]) > maxUlp) {
      ++bad;
      ADD_FAILURE() << r.where() << "[" << i << "] got half 0x" << std::hex << got[i] << " (" << std::dec
                    << arch::halfToFloat(got[i]) << ") want 0x" << std::hex << want[i] << " (" << std::dec
                    << arch::halfToFloat(want[i]) << "), allowed " << maxUlp << " ulp";
    }
}
/// |got - want| <= tol[i] for every element (for results whose rounding errors are bounded
/// analytically, e.g. sums whose order the compiler may change).
inline void expectNear(const VertexRun &r, const std::vector<float> &got, const std::vector<double> &want,
                       const std::vector<double> &tol) {
  if (!r.ok()) return;
  ASSERT_EQ(got.size(), want.size()) << r.where();
  int bad = 0;
  for (size_t i = 0; i < want.size() && bad < 8; ++i)
    if (!(std::fabs(double(got[i]) - want[i]) <= tol[i])) {
      ++bad;
      ADD_FAILURE() << r.where() << "[" << i << "] got " << got[i] << " want " << want[i] << " +- " << tol[i];
    }
}
template <class T> void expectEq(const VertexRun &r, const std::vector<T> &got, const std::vector<T> &want) {
  if (!r.ok()) return;
  ASSERT_EQ(got.size(), want.size()) << r.where();
  int bad = 0;
  for (size_t i = 0; i < want.size() && bad < 8; ++i)
    if (!(got[i] == want[i])) {
      ++bad;
      ADD_FAILURE() << r.where() << "[" << i << "] got " << +got[i] << " want " << +want[i];
    }
}

// ---- deterministic inputs ----

/// A small LCG: the same inputs on every run and host.
class Rng {
public:
  explicit Rng(uint32_t seed) : s_(seed * 2654435761u + 12345) {}
  uint32_t next() {
    s_ = s_ * 1664525u + 1013904223u;
    return s_ >> 8 ^ s_ << 13;
  }
  /// Uniform in [lo, hi), on a grid of 2^-16 of the range.
  float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() & 0xFFFF) / 65536.0f; }
  std::vector<float> floats(size_t n, float lo, float hi) {
    std::vector<float> v(n);
    for (auto &x : v) x = uniform(lo, hi);
    return v;
  }

private:
  uint32_t s_;
};

inline float h2f(uint16_t h) { return arch::halfToFloat(h); }
inline uint16_t f2h(double d) { return arch::doubleToHalf(d); }

} // namespace ipusim::corpus
