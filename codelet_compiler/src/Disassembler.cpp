#include "ipusim/cc/Disassembler.h"

#include "ipusim/arch/InsnText.h"
#include "ipusim/arch/Registers.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace ipusim::cc {

using namespace ipusim::arch;

namespace {

std::string hex(uint64_t v, int width = 0) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*llx", width, static_cast<unsigned long long>(v));
  return buf;
}

uint32_t read32(const std::vector<uint8_t> &d, size_t off) {
  return uint32_t(d[off]) | uint32_t(d[off + 1]) << 8 | uint32_t(d[off + 2]) << 16 | uint32_t(d[off + 3]) << 24;
}

} // namespace

namespace {

/// One decoded item of a code section: an instruction, a bundle, or a data word.
struct Item {
  uint32_t offset;
  unsigned size; ///< 4 or 8
  bool isCode, bundle, supervisor;
};

std::vector<Item> items(const ObjectFile &obj, uint32_t si) {
  const Section &s = obj.sections[si];
  std::vector<Item> out;
  if (!s.isCode() || s.isNobits()) return out;
  bool haveLines = std::any_of(obj.lines.begin(), obj.lines.end(), [&](const LineEntry &e) { return e.section == si; });
  uint32_t off = 0;
  while (off < s.data.size()) {
    if (off + 4 > s.data.size() || off % 4) {
      out.push_back({off, 1, false, false, false});
      off += 1;
      continue;
    }
    const LineEntry *e = obj.lineAt(si, off);
    bool bundle, supervisor = false, code = true;
    if (haveLines) {
      if ((!e || e->offset != off) && read32(s.data, off) == nopWord()) {
        out.push_back({off, 4, true, false, false}); // alignment padding from the assembler or linker
        off += 4;
        continue;
      }
      if (!e || e->offset != off) {
        out.push_back({off, 4, false, false, false});
        off += 4;
        continue;
      }
      bundle = e->flags & kLineBundle;
      supervisor = e->flags & kLineSupervisor;
    } else {
      // No line table (a foreign file): a word with the co-issue bit at an 8-byte boundary starts a bundle.
      bundle = off + 8 <= s.data.size() && (read32(s.data, off) & kCoissueBit); // at any word (Assembler.cpp)
    }
    if (!decode(read32(s.data, off)) || (bundle && !decode(read32(s.data, off + 4)))) code = false;
    out.push_back({off, bundle ? 8u : 4u, code, bundle && code, supervisor});
    off += code && bundle ? 8 : 4;
  }
  return out;
}

/// Relocations of a section by offset.
std::map<uint32_t, const Relocation *> relocsByOffset(const Section &s) {
  std::map<uint32_t, const Relocation *> m;
  for (const Relocation &r : s.relocs) m[r.offset] = &r;
  return m;
}

/// Which operand of `d` a relocation of `type` patches.
int relocatedOperand(const InsnDesc &d, uint32_t type) {
  for (unsigned i = 0; i < d.numOperands; ++i) {
    const OperandDesc &op = d.operands[i];
    if (op.lo != 0) continue;
    switch (type) {
    case R_IPU_TARGET19: case R_IPU_TARGET20: if (op.kind == OperandKind::Target) return int(i); break;
    case R_IPU_HIGH12: if (op.kind == OperandKind::HighImm) return int(i); break;
    case R_IPU_ZIMM20: case R_IPU_LOW20: if (op.kind == OperandKind::UImm && op.width == 20) return int(i); break;
    case R_IPU_ZIMM16: if (op.kind == OperandKind::UImm && op.width == 16) return int(i); break;
    case R_IPU_SIMM16: if (op.kind == OperandKind::SImm && op.width == 16) return int(i); break;
    case R_IPU_ZIMM12: if (op.kind == OperandKind::UImm && op.width == 12) return int(i); break;
    }
  }
  return -1;
}

/// Names for relocation targets: real symbols where one sits at the target, else a made-up local label.
class Labels {
public:
  explicit Labels(const ObjectFile &obj) : obj_(obj) {
    for (const Symbol &s : obj.symbols)
      if (s.type != SymbolType::Section && s.section >= 0 && !s.name.empty())
        at_.emplace(std::make_pair(s.section, s.value), s.name);
    for (const Section &sec : obj.sections)
      for (const Relocation &r : sec.relocs) {
        const Symbol &s = obj.symbols.at(r.symbol);
        if (s.type == SymbolType::Section && !at_.count({s.section, uint32_t(r.addend)}))
          synthetic_.insert({s.section, uint32_t(r.addend)});
      }
  }
  /// The expression naming symbol + addend; in a listing (not source) an offset into a section
  /// without a symbol prints as SECTION+0xOFF.
  std::string expr(const Relocation &r, bool source = true) const {
    const Symbol &s = obj_.symbols.at(r.symbol);
    if (s.type == SymbolType::Section) {
      if (!source && !at_.count({s.section, uint32_t(r.addend)}))
        return obj_.sections.at(size_t(s.section)).name + "+0x" + hex(uint32_t(r.addend));
      return name(s.section, uint32_t(r.addend));
    }
    if (r.addend == 0) return s.name;
    return s.name + (r.addend < 0 ? " - " + std::to_string(-int64_t(r.addend)) : " + " + std::to_string(r.addend));
  }
  std::string name(int section, uint32_t offset) const {
    auto it = at_.find({section, offset});
    if (it != at_.end()) return it->second;
    return ".Lsec" + std::to_string(section) + "_" + std::to_string(offset);
  }
  /// Synthetic labels to define in `section` (offset order).
  std::vector<uint32_t> syntheticIn(int section) const {
    std::vector<uint32_t> v;
    for (auto &[sec, off] : synthetic_)
      if (sec == section) v.push_back(off);
    return v;
  }

private:
  const ObjectFile &obj_;
  std::multimap<std::pair<int, uint32_t>, std::string> at_;
  std::set<std::pair<int, uint32_t>> synthetic_;
};

std::string instructionText(const ObjectFile &obj, const Labels &labels, const Section &s,
                            const std::map<uint32_t, const Relocation *> &relocs, uint32_t off, bool supervisor,
                            bool source) {
  uint32_t word = read32(s.data, off);
  const InsnDesc *d = decode(word);
  auto it = relocs.find(off);
  const Relocation *r = it == relocs.end() ? nullptr : it->second;
  int relocated = r ? relocatedOperand(*d, r->type) : -1;
  (void)obj;
  return formatInstruction(*d, word, supervisor, [&](unsigned i) -> std::optional<std::string> {
    if (int(i) != relocated) return std::nullopt;
    std::string e = labels.expr(*r, source);
    if (r->type == R_IPU_LOW20 || r->type == R_IPU_HIGH12)
      return std::nullopt; // ldconst halves have no operand syntax: the field's value is printed
    return e;
  });
}

/// For a tile image: `<symbol>` for each branch target or setzi value that is a symbol's address.
std::string targetComment(const ObjectFile &obj, const std::multimap<uint32_t, std::string> &byAddress,
                          uint32_t word) {
  if (!obj.linked) return "";
  const InsnDesc *d = decode(word);
  std::string out;
  for (unsigned i = 0; d && i < d->numOperands; ++i) {
    const OperandDesc &op = d->operands[i];
    bool address = op.kind == OperandKind::Target ||
                   (op.kind == OperandKind::UImm && op.width == 20 && std::string(d->mnemonic) == "setzi");
    if (!address) continue;
    auto it = byAddress.find(uint32_t(decodeOperand(op, word)));
    if (it != byAddress.end()) out += " <" + it->second + ">";
  }
  return out;
}

std::string sectionFlags(const Section &s) {
  std::string f;
  if (s.flags & 2) f += 'a';
  if (s.flags & 1) f += 'w';
  if (s.flags & 4) f += 'x';
  return f;
}

} // namespace

std::string disassemble(const ObjectFile &obj, const std::string &name) {
  std::ostringstream os;
  Labels labels(obj);
  os << name << ":\tfile format elf32-ipu (" << (obj.linked ? "linked tile image" : "relocatable object") << ")\n";
  std::multimap<uint32_t, std::string> byAddress;
  for (const Symbol &sym : obj.symbols)
    if (sym.type != SymbolType::Section && sym.section >= 0) byAddress.emplace(sym.value, sym.name);
  for (uint32_t si = 0; si < obj.sections.size(); ++si) {
    const Section &s = obj.sections[si];
    if (!s.isCode()) continue;
    os << "\nDisassembly of section " << s.name << ":\n";
    std::multimap<uint32_t, std::string> syms;
    for (const Symbol &sym : obj.symbols)
      if (sym.section == int(si) && sym.type != SymbolType::Section)
        syms.emplace(obj.linked ? sym.value - s.addr : sym.value, sym.name);
    auto relocs = relocsByOffset(s);
    for (const Item &it : items(obj, si)) {
      for (auto [a, b] = syms.equal_range(it.offset); a != b; ++a)
        os << "\n" << hex(s.addr + it.offset, 8) << " <" << a->second << ">:\n";
      os << "  " << hex(s.addr + it.offset, 5) << ":\t";
      if (!it.isCode) {
        if (it.size == 1) os << hex(s.data[it.offset], 2) << "\t\t\t.byte 0x" << hex(s.data[it.offset], 2) << "\n";
        else os << hex(read32(s.data, it.offset), 8) << "\t\t\t.word 0x" << hex(read32(s.data, it.offset), 8) << "\n";
        continue;
      }
      os << hex(read32(s.data, it.offset), 8) << " " << (it.bundle ? hex(read32(s.data, it.offset + 4), 8) : "        ")
         << "\t";
      if (it.bundle)
        os << "{ " << instructionText(obj, labels, s, relocs, it.offset, it.supervisor, false) << " ; "
           << instructionText(obj, labels, s, relocs, it.offset + 4, it.supervisor, false) << " }";
      else
        os << instructionText(obj, labels, s, relocs, it.offset, it.supervisor, false);
      for (uint32_t o = it.offset; o < it.offset + it.size; o += 4) os << targetComment(obj, byAddress, read32(s.data, o));
      os << "\n";
      for (uint32_t o = it.offset; o < it.offset + it.size; o += 4)
        if (auto r = relocs.find(o); r != relocs.end())
          os << "\t\t\t\t" << hex(s.addr + o, 5) << ": " << relocTypeName(r->second->type) << "\t"
             << labels.expr(*r->second, false) << "\n";
    }
  }
  return os.str();
}

std::string disassembleToSource(const ObjectFile &obj, const std::string &name) {
  std::ostringstream os;
  Labels labels(obj);
  os << "// Disassembled from " << name << " by ipu-objdump --asm; ipu-as reassembles it to the same bytes.\n";
  // The source was checked when it was first assembled; foreign or linked code may hold anything.
  os << "  .allow_invalid_repeat\n";
  for (const Symbol &sym : obj.symbols)
    if (sym.section == kAbsoluteSection) {
      if (sym.binding != SymbolBinding::Local) os << "  .globl " << sym.name << "\n";
      os << "  .set " << sym.name << ", " << sym.value << "\n";
    }
  bool supervisor = false; // the assembler's mode carries across sections
  for (uint32_t si = 0; si < obj.sections.size(); ++si) {
    const Section &s = obj.sections[si];
    os << "\n  .section " << s.name << ", \"" << sectionFlags(s) << "\"" << (s.isNobits() ? ", @nobits" : "") << "\n";
    os << "  .align " << s.align << "\n";
    // Labels at each offset: symbols and synthetic targets.
    std::multimap<uint32_t, std::string> marks;
    for (const Symbol &sym : obj.symbols) {
      if (sym.section != int(si) || sym.type == SymbolType::Section) continue;
      uint32_t off = obj.linked ? sym.value - s.addr : sym.value;
      std::string pre;
      if (sym.binding == SymbolBinding::Global) pre += "  .globl " + sym.name + "\n";
      if (sym.binding == SymbolBinding::Weak) pre += "  .weak " + sym.name + "\n";
      if (sym.type == SymbolType::Func) pre += "  .type " + sym.name + ", @function\n";
      if (sym.type == SymbolType::Object) pre += "  .type " + sym.name + ", @object\n";
      if (sym.size) pre += "  .size " + sym.name + ", " + std::to_string(sym.size) + "\n";
      marks.emplace(off, pre + sym.name + ":");
    }
    for (uint32_t off : labels.syntheticIn(int(si))) marks.emplace(off, labels.name(int(si), off) + ":");
    auto emitMarks = [&](uint32_t from, uint32_t to) { // labels in [from, to)
      for (auto it = marks.lower_bound(from); it != marks.end() && it->first < to; ++it) os << it->second << "\n";
    };
    auto relocs = relocsByOffset(s);
    if (s.isNobits()) {
      uint32_t pos = 0;
      std::set<uint32_t> stops;
      for (auto &[off, text] : marks) stops.insert(off);
      stops.insert(s.size);
      for (uint32_t stop : stops) {
        if (stop > pos) os << "  .space " << (stop - pos) << "\n";
        if (stop > pos) pos = stop;
        emitMarks(stop, stop + 1);
      }
      continue;
    }
    auto dataBytes = [&](uint32_t from, uint32_t to) {
      uint32_t pos = from;
      while (pos < to) {
        emitMarks(pos, pos + 1);
        if (auto r = relocs.find(pos); r != relocs.end()) {
          const char *dir = "  .int ";
          switch (r->second->type) {
          case R_IPU_8: dir = "  .byte "; break;
          case R_IPU_16: dir = "  .short "; break;
          case R_IPU_SCALED_PTR32: dir = "  .scaled_ptr32 "; break;
          case R_IPU_SCALED_PTR64: dir = "  .scaled_ptr64 "; break;
          case R_IPU_SCALED_PTR128: dir = "  .scaled_ptr128 "; break;
          }
          os << dir << labels.expr(*r->second) << "\n";
          pos += relocationBytes(r->second->type);
          continue;
        }
        // A run of plain bytes up to the next label or relocation.
        uint32_t end = std::min<uint32_t>(to, pos + 16);
        if (auto m = marks.upper_bound(pos); m != marks.end()) end = std::min(end, m->first);
        if (auto r = relocs.upper_bound(pos); r != relocs.end()) end = std::min(end, r->first);
        os << "  .byte ";
        for (uint32_t b = pos; b < end; ++b) os << (b > pos ? ", " : "") << "0x" << hex(s.data[b], 2);
        os << "\n";
        pos = end;
      }
    };
    if (!s.isCode()) {
      dataBytes(0, uint32_t(s.data.size()));
      emitMarks(uint32_t(s.data.size()), UINT32_MAX);
      continue;
    }
    for (const Item &it : items(obj, si)) {
      if (!it.isCode) {
        dataBytes(it.offset, it.offset + it.size);
        continue;
      }
      emitMarks(it.offset, it.offset + 1);
      if (it.supervisor != supervisor) {
        supervisor = it.supervisor;
        os << (supervisor ? "  .supervisor\n" : "  .worker\n");
      }
      auto text = [&](uint32_t off) { return instructionText(obj, labels, s, relocs, off, supervisor, true); };
      auto r = relocs.find(it.offset);
      if (!it.bundle && r != relocs.end() && r->second->type == R_IPU_LOW20) {
        // The setzi + or pair of `ldconst $x, sym`: one line names the register and the symbol.
        uint32_t word = read32(s.data, it.offset);
        const OperandDesc &dst = decode(word)->operands[0];
        os << "  ldconst " << registerName(dst.isArf() ? RegFile::A : RegFile::M, unsigned(decodeOperand(dst, word)))
           << ", " << labels.expr(*r->second) << "\n";
        continue;
      }
      if (!it.bundle && r != relocs.end() && r->second->type == R_IPU_HIGH12) continue; // second half of ldconst
      if (it.bundle) os << "  { " << text(it.offset) << " ; " << text(it.offset + 4) << " }\n";
      else os << "  " << text(it.offset) << "\n";
    }
    emitMarks(uint32_t(s.data.size()), UINT32_MAX);
  }
  return os.str();
}

} // namespace ipusim::cc
