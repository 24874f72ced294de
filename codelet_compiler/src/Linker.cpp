#include "ipusim/cc/Linker.h"

#include "ipusim/arch/Isa.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

namespace ipusim::cc {

namespace {

std::string hex(int64_t v) {
  std::ostringstream os;
  if (v < 0) os << '-', v = -v;
  os << "0x" << std::hex << v;
  return os.str();
}

} // namespace

std::string applyRelocation(uint32_t type, uint8_t *p, int64_t v) {
  auto get32 = [&] { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; };
  auto put = [&](uint64_t x, unsigned n) {
    for (unsigned i = 0; i < n; ++i) p[i] = uint8_t(x >> (8 * i));
  };
  auto field = [&](uint32_t bits, unsigned width) {
    uint32_t mask = (1u << width) - 1;
    put((get32() & ~mask) | (bits & mask), 4);
  };
  auto range = [&](int64_t x, int64_t lo, int64_t hi) -> std::string {
    if (x >= lo && x <= hi) return "";
    return "value " + hex(x) + " is out of range [" + hex(lo) + ", " + hex(hi) + "]";
  };
  std::string why;
  switch (type) {
  case R_IPU_32:
    if (!(why = range(v, INT32_MIN, UINT32_MAX)).empty()) return why;
    put(uint64_t(v), 4);
    return "";
  case R_IPU_16:
    if (!(why = range(v, INT16_MIN, UINT16_MAX)).empty()) return why;
    put(uint64_t(v), 2);
    return "";
  case R_IPU_8:
    if (!(why = range(v, INT8_MIN, UINT8_MAX)).empty()) return why;
    put(uint64_t(v), 1);
    return "";
  case R_IPU_TARGET19:
  case R_IPU_TARGET20: {
    unsigned width = type == R_IPU_TARGET19 ? 19 : 20;
    if (v & 3) return "target " + hex(v) + " is not 4-byte aligned";
    if (!(why = range(v, 0, ((int64_t(1) << width) - 1) * 4)).empty()) return why;
    field(uint32_t(v >> 2), width);
    return "";
  }
  case R_IPU_ZIMM20:
    if (!(why = range(v, 0, 0xFFFFF)).empty()) return why;
    field(uint32_t(v), 20);
    return "";
  case R_IPU_ZIMM16:
    if (!(why = range(v, 0, 0xFFFF)).empty()) return why;
    field(uint32_t(v), 16);
    return "";
  case R_IPU_SIMM16:
    if (!(why = range(v, INT16_MIN, INT16_MAX)).empty()) return why;
    field(uint32_t(v), 16);
    return "";
  case R_IPU_ZIMM12:
    if (!(why = range(v, 0, 0xFFF)).empty()) return why;
    field(uint32_t(v), 12);
    return "";
  case R_IPU_LOW20:
    field(uint32_t(v) & 0xFFFFF, 20);
    return "";
  case R_IPU_HIGH12:
    if (!(why = range(v, INT32_MIN, UINT32_MAX)).empty()) return why;
    field((uint32_t(v) >> 20) & 0xFFF, 12);
    return "";
  case R_IPU_SCALED_PTR32:
  case R_IPU_SCALED_PTR64:
  case R_IPU_SCALED_PTR128: {
    // asm-dialect §3.2: SCALED_PTR32 is relative to TMEM_REGION0_BASE_ADDR ([F] S6), the others absolute.
    unsigned shift = type == R_IPU_SCALED_PTR32 ? 2 : type == R_IPU_SCALED_PTR64 ? 3 : 4;
    int64_t x = v - (type == R_IPU_SCALED_PTR32 ? 0x4C000 : 0);
    if (x & ((1 << shift) - 1)) return "address " + hex(v) + " is not " + std::to_string(1 << shift) + "-byte aligned";
    if (!(why = range(x >> shift, 0, 0xFFFF)).empty()) return "address " + hex(v) + ": scaled " + why;
    put(uint64_t(x >> shift), 2);
    return "";
  }
  default:
    return "unknown relocation type " + std::to_string(type);
  }
}

namespace {

enum Category { Code, ReadOnly, Data, Bss, InterleavedData, InterleavedBss, NumCategories };
const char *kOutputName[] = {".text", ".rodata", ".data", ".bss", ".data.interleaved", ".bss.interleaved"};

Category categoryOf(const Section &s) {
  bool interleaved = s.name.find(".interleaved") != std::string::npos;
  if (s.isCode()) return Code;
  if (s.isNobits()) return interleaved ? InterleavedBss : Bss;
  if (interleaved) return InterleavedData;
  return (s.flags & 1) ? Data : ReadOnly;
}

struct Placement {
  int outSection = -1;
  uint32_t offset = 0; ///< in the output section
};

} // namespace

ObjectFile link(const std::vector<LinkInput> &inputs, const arch::TileConfig &tile,
                const LinkOptions &options) {
  std::vector<std::string> errors;
  auto describe = [&](size_t in, uint32_t sec, uint32_t off) {
    const ObjectFile &o = inputs[in].object;
    if (const LineEntry *e = o.lineAt(sec, off)) return o.location(*e);
    return inputs[in].name + ":(" + o.sections[sec].name + "+" + hex(off) + ")";
  };

  // 1. Global symbols.
  struct Def { size_t input; uint32_t symbol; };
  std::map<std::string, Def> globals;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ObjectFile &o = inputs[i].object;
    if (o.linked) errors.push_back(inputs[i].name + ": error: is a linked tile image, not an object");
    for (uint32_t s = 0; s < o.symbols.size(); ++s) {
      const Symbol &sym = o.symbols[s];
      if (sym.binding == SymbolBinding::Local || sym.section == kUndefinedSection) continue;
      auto [it, inserted] = globals.emplace(sym.name, Def{i, s});
      if (inserted) continue;
      const Symbol &old = inputs[it->second.input].object.symbols[it->second.symbol];
      if (old.binding == SymbolBinding::Weak && sym.binding != SymbolBinding::Weak) it->second = {i, s};
      else if (sym.binding != SymbolBinding::Weak)
        errors.push_back(inputs[i].name + ": error: duplicate symbol '" + sym.name + "' (also defined in " +
                         inputs[it->second.input].name + ")");
    }
  }

  // 1b. With roots, only the sections reachable from them.
  std::vector<std::vector<bool>> keep(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) keep[i].assign(inputs[i].object.sections.size(), options.roots.empty());
  if (!options.roots.empty()) {
    std::vector<std::pair<size_t, uint32_t>> work;
    auto reach = [&](size_t i, const Symbol &sym) {
      if (sym.section >= 0 && sym.binding == SymbolBinding::Local) {
        if (!keep[i][size_t(sym.section)]) keep[i][size_t(sym.section)] = true, work.push_back({i, uint32_t(sym.section)});
        return;
      }
      auto g = globals.find(sym.name);
      if (g == globals.end()) return; // undefined: reported below if a kept section needs it
      const Symbol &def = inputs[g->second.input].object.symbols[g->second.symbol];
      if (def.section < 0) return;
      if (!keep[g->second.input][size_t(def.section)])
        keep[g->second.input][size_t(def.section)] = true, work.push_back({g->second.input, uint32_t(def.section)});
    };
    for (const std::string &r : options.roots) {
      auto g = globals.find(r);
      if (g == globals.end()) {
        errors.push_back("ipu-ld: error: symbol '" + r + "' is not defined");
        continue;
      }
      reach(g->second.input, inputs[g->second.input].object.symbols[g->second.symbol]);
    }
    while (!work.empty()) {
      auto [i, sec] = work.back();
      work.pop_back();
      for (const Relocation &r : inputs[i].object.sections[sec].relocs) reach(i, inputs[i].object.symbols.at(r.symbol));
    }
  }

  // 2. Layout: each category's input sections in command-line order, in region 0 (code only there).
  ObjectFile out;
  out.linked = true;
  std::vector<std::vector<Placement>> place(inputs.size());
  std::vector<int> categoryOut(NumCategories, -1);
  for (size_t i = 0; i < inputs.size(); ++i) place[i].resize(inputs[i].object.sections.size());
  for (int c = 0; c < NumCategories; ++c) {
    Section os;
    os.name = kOutputName[c];
    os.type = (c == Bss || c == InterleavedBss) ? 8 : 1;
    os.flags = c == Code ? 2 | 4 : c == ReadOnly ? 2 : 2 | 1;
    bool any = false;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ObjectFile &o = inputs[i].object;
      for (size_t s = 0; s < o.sections.size(); ++s) {
        const Section &is = o.sections[s];
        if (!(is.flags & 2) || categoryOf(is) != c || !keep[i][s]) continue; // non-allocated sections are dropped
        any = true;
        os.align = std::max(os.align, is.align);
        uint32_t off = (os.size + is.align - 1) / is.align * is.align;
        if (!os.isNobits()) {
          // Code is padded with nop (or $mzero, $mzero, 0) words so that listings stay instructions.
          while (c == Code && os.data.size() % 4 == 0 && os.data.size() + 4 <= off) {
            for (int b = 0; b < 4; ++b) os.data.push_back(uint8_t(arch::nopWord() >> (8 * b)));
          }
          os.data.resize(off, 0);
          os.data.insert(os.data.end(), is.data.begin(), is.data.end());
        }
        os.size = off + is.size;
        place[i][s] = {int(out.sections.size()), off};
      }
    }
    if (!any) continue;
    categoryOut[c] = int(out.sections.size());
    out.sections.push_back(std::move(os));
  }
  // Addresses: code, read-only data, data and bss fill region 0 from its base; interleaved data
  // goes to region 1; what does not fit in region 0 (other than code) moves to region 1 too.
  const arch::MemoryRegion *exec = nullptr, *inter = nullptr;
  for (const arch::MemoryRegion &r : tile.regions) {
    if (r.executable && !exec) exec = &r;
    if (r.interleave > 1 && !inter) inter = &r;
  }
  if (!exec || !inter) throw LinkError("ipu-ld: error: the machine config has no executable or interleaved region\n");
  uint32_t next0 = exec->base, next1 = inter->base;
  for (int c = 0; c < NumCategories; ++c) {
    if (categoryOut[c] < 0) continue;
    Section &s = out.sections[size_t(categoryOut[c])];
    uint32_t a0 = (next0 + s.align - 1) / s.align * s.align;
    bool inRegion0 = c != InterleavedData && c != InterleavedBss && uint64_t(a0) + s.size <= exec->end;
    if (c == Code && !inRegion0) {
      errors.push_back("ipu-ld: error: code (" + std::to_string(s.size) + " bytes) does not fit in the executable region " +
                       hex(exec->base) + ".." + hex(exec->end));
      continue;
    }
    if (inRegion0) {
      s.addr = a0;
      next0 = a0 + s.size;
    } else {
      uint32_t a1 = (next1 + s.align - 1) / s.align * s.align;
      if (uint64_t(a1) + s.size > inter->end) {
        errors.push_back("ipu-ld: error: section " + s.name + " (" + std::to_string(s.size) +
                         " bytes) does not fit in tile memory");
        continue;
      }
      s.addr = a1;
      next1 = a1 + s.size;
    }
  }

  // 3. Symbols of the image, and each input symbol's address.
  std::vector<std::vector<int64_t>> address(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ObjectFile &o = inputs[i].object;
    address[i].assign(o.symbols.size(), -1);
    for (uint32_t s = 0; s < o.symbols.size(); ++s) {
      const Symbol &sym = o.symbols[s];
      if (sym.section == kAbsoluteSection) address[i][s] = sym.value;
      if (sym.section < 0) continue;
      const Placement &p = place[i][size_t(sym.section)];
      if (p.outSection < 0) continue;
      address[i][s] = int64_t(out.sections[size_t(p.outSection)].addr) + p.offset + sym.value;
    }
  }
  std::map<std::string, int> outIndex;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ObjectFile &o = inputs[i].object;
    for (uint32_t s = 0; s < o.symbols.size(); ++s) {
      const Symbol &sym = o.symbols[s];
      if (sym.type == SymbolType::Section || sym.section == kUndefinedSection) continue;
      bool global = sym.binding != SymbolBinding::Local;
      if (global && (globals[sym.name].input != i || globals[sym.name].symbol != s)) continue;
      Symbol os = sym;
      os.value = uint32_t(address[i][s]);
      os.section = sym.section == kAbsoluteSection ? kAbsoluteSection : place[i][size_t(sym.section)].outSection;
      if (sym.section >= 0 && os.section < 0) continue;
      if (global) outIndex[sym.name] = int(out.symbols.size());
      out.symbols.push_back(os);
    }
  }

  // 3b. Stack use across objects. A function ipu-cc compiled records its own frame
  // (NAME.stack_size_own); where its calls reach another object, ipu-cc cannot add up the chain
  // and leaves NAME.stack_usage to the link: the frame plus the deepest stack_usage among the
  // functions its section calls. Assembly records stack_usage itself (DEF_STACK_USAGE).
  {
    using Ref = std::pair<size_t, uint32_t>; // (input, symbol)
    // Per object, read once: its constants by name, and its functions by (section, offset).
    std::vector<std::map<std::string, uint32_t>> constants(inputs.size());
    std::vector<std::map<std::pair<int, uint32_t>, uint32_t>> functionAt(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i)
      for (uint32_t k = 0; k < inputs[i].object.symbols.size(); ++k) {
        const Symbol &sym = inputs[i].object.symbols[k];
        if (sym.section == kAbsoluteSection) constants[i].emplace(sym.name, sym.value);
        if (sym.type == SymbolType::Func && sym.section >= 0) functionAt[i].emplace(std::make_pair(sym.section, sym.value), k);
      }
    // A record of the function `name` defined in input i: that object's own symbol first (a
    // local function's records are local), then the global one.
    auto record = [&](size_t i, const std::string &name) -> std::optional<uint32_t> {
      if (auto c = constants[i].find(name); c != constants[i].end()) return c->second;
      auto g = globals.find(name);
      if (g == globals.end()) return std::nullopt;
      const Symbol &def = inputs[g->second.input].object.symbols[g->second.symbol];
      if (def.section != kAbsoluteSection) return std::nullopt;
      return def.value;
    };
    // The function a call relocation reaches: the assembler writes a call within an object as
    // its section's symbol plus the offset.
    auto definition = [&](size_t i, const Relocation &r) -> std::optional<Ref> {
      const Symbol &sym = inputs[i].object.symbols[r.symbol];
      if (sym.type == SymbolType::Section) {
        auto f = functionAt[i].find({sym.section, uint32_t(int64_t(sym.value) + r.addend)});
        if (f == functionAt[i].end()) return std::nullopt;
        return Ref{i, f->second};
      }
      if (sym.section >= 0) return Ref{i, r.symbol};
      auto g = globals.find(sym.name);
      if (g == globals.end()) return std::nullopt;
      return Ref{g->second.input, g->second.symbol};
    };
    std::map<Ref, int64_t> usage; // -1 while being computed, -2 if it cannot be
    std::function<std::optional<uint32_t>(Ref, const std::string &)> stackUse = [&](Ref f, const std::string &caller)
        -> std::optional<uint32_t> {
      const Symbol &sym = inputs[f.first].object.symbols[f.second];
      if (auto u = record(f.first, sym.name + ".stack_usage")) return u;
      const auto own = record(f.first, sym.name + ".stack_size_own");
      if (!own) {
        if (sym.name.rfind("__ipucc_", 0) == 0) return 0u; // ipu-cc's runtime routines use no stack
        errors.push_back("ipu-ld: error: cannot size the stack of '" + caller + "': it calls '" + sym.name +
                         "', which records no stack use (NAME.stack_usage or NAME.stack_size_own)");
        return std::nullopt;
      }
      if (auto it = usage.find(f); it != usage.end()) {
        if (it->second >= 0) return uint32_t(it->second);
        if (it->second == -2) return std::nullopt; // reported already
        errors.push_back("ipu-ld: error: '" + sym.name + "' calls itself through other objects: recursion needs a stack "
                         "of unbounded size");
        return std::nullopt;
      }
      usage[f] = -1;
      uint32_t deepest = 0;
      for (const Relocation &r : inputs[f.first].object.sections[size_t(sym.section)].relocs) {
        if (r.type != R_IPU_TARGET20) continue;
        auto callee = definition(f.first, r);
        if (!callee) continue; // undefined: reported with the relocations
        if (*callee == f) continue;
        auto u = stackUse(*callee, sym.name);
        if (!u) {
          usage[f] = -2;
          return std::nullopt;
        }
        deepest = std::max(deepest, *u);
      }
      usage[f] = int64_t(*own) + deepest;
      return uint32_t(usage[f]);
    };
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ObjectFile &o = inputs[i].object;
      for (uint32_t s = 0; s < o.symbols.size(); ++s) {
        const Symbol &sym = o.symbols[s];
        if (sym.type != SymbolType::Func || sym.section < 0 || sym.binding == SymbolBinding::Local ||
            place[i][size_t(sym.section)].outSection < 0 || globals[sym.name].input != i ||
            globals[sym.name].symbol != s || record(i, sym.name + ".stack_usage") ||
            !record(i, sym.name + ".stack_size_own"))
          continue;
        if (auto u = stackUse({i, s}, sym.name)) {
          Symbol use;
          use.name = sym.name + ".stack_usage";
          use.section = kAbsoluteSection;
          use.value = *u;
          use.binding = SymbolBinding::Global;
          out.symbols.push_back(use);
        }
      }
    }
  }

  // 4. Relocations.
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ObjectFile &o = inputs[i].object;
    for (size_t s = 0; s < o.sections.size(); ++s) {
      const Placement &p = place[i][s];
      if (p.outSection < 0) continue;
      Section &os = out.sections[size_t(p.outSection)];
      for (const Relocation &r : o.sections[s].relocs) {
        const Symbol &sym = o.symbols.at(r.symbol);
        int64_t S = address[i][r.symbol];
        if (sym.section == kUndefinedSection) {
          auto g = globals.find(sym.name);
          if (g == globals.end()) {
            if (sym.binding == SymbolBinding::Weak) S = 0;
            else {
              errors.push_back(describe(i, uint32_t(s), r.offset) + ": error: undefined symbol '" + sym.name + "'");
              continue;
            }
          } else {
            S = address[g->second.input][g->second.symbol];
          }
        }
        std::string why = applyRelocation(r.type, os.data.data() + p.offset + r.offset, S + r.addend);
        if (!why.empty())
          errors.push_back(describe(i, uint32_t(s), r.offset) + ": error: relocation " + relocTypeName(r.type) +
                           " against '" + sym.name + "' out of range: " + why);
      }
    }
  }

  // 5. Source lines, with files renumbered.
  std::map<std::string, uint32_t> fileIds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ObjectFile &o = inputs[i].object;
    for (const LineEntry &e : o.lines) {
      const Placement &p = place[i][e.section];
      if (p.outSection < 0) continue;
      auto [it, inserted] = fileIds.emplace(o.files[e.file], uint32_t(out.files.size()));
      if (inserted) out.files.push_back(o.files[e.file]);
      out.lines.push_back({uint32_t(p.outSection), p.offset + e.offset, it->second, e.line, e.column, e.flags});
    }
  }
  std::sort(out.lines.begin(), out.lines.end(), [](const LineEntry &a, const LineEntry &b) {
    return std::make_pair(a.section, a.offset) < std::make_pair(b.section, b.offset);
  });

  // 6. The vertex layouts ipu-cc records (".ipu.vertices", a JSON array per object) carry over,
  // joined into one array, so that `ipu-cc --print-vertex-layout` reads a tile image too.
  {
    std::string joined;
    for (const LinkInput &in : inputs) {
      const int s = in.object.findSection(".ipu.vertices");
      if (s < 0) continue;
      const std::vector<uint8_t> &d = in.object.sections[size_t(s)].data;
      std::string text(d.begin(), d.end());
      const size_t open = text.find('['), close = text.rfind(']');
      if (open == std::string::npos || close == std::string::npos || close <= open) continue;
      std::string inner = text.substr(open + 1, close - open - 1);
      if (inner.find_first_not_of(" \t\r\n") == std::string::npos) continue;
      joined += (joined.empty() ? "" : ",") + inner;
    }
    if (!joined.empty()) {
      Section meta;
      meta.name = ".ipu.vertices";
      meta.type = 1;
      meta.flags = 0;
      const std::string json = "[" + joined + "]";
      meta.data.assign(json.begin(), json.end());
      meta.size = uint32_t(meta.data.size());
      out.sections.push_back(std::move(meta));
    }
  }

  if (!options.entry.empty()) {
    auto it = outIndex.find(options.entry);
    if (it == outIndex.end()) errors.push_back("ipu-ld: error: entry symbol '" + options.entry + "' is not defined");
    else out.entry = out.symbols[size_t(it->second)].value;
  }
  if (!errors.empty()) {
    std::string all;
    for (const std::string &e : errors) all += e + "\n";
    throw LinkError(all);
  }
  return out;
}

} // namespace ipusim::cc
