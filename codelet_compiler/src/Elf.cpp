// ELF32 reading (through LLVM's Object library) and writing for ipusim objects and tile images.
#include "ipusim/cc/Object.h"

#include "ipusim/arch/Files.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELF.h>
#include <llvm/Support/Error.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

namespace ipusim::cc {

namespace ELF = llvm::ELF;

constexpr uint32_t SHT_IPU_LINES = 0x70000049; ///< ours: the `.ipu.lines` source table
constexpr uint32_t kLinesVersion = 1;
constexpr size_t kLineEntrySize = 20;

const char *relocTypeName(uint32_t type) {
  static const char *names[] = {
      "R_IPU_NONE",     "R_IPU_32",      "R_IPU_16",          "R_IPU_8",
      "R_IPU_TARGET19", "R_IPU_TARGET20", "R_IPU_ZIMM20",     "R_IPU_ZIMM16",
      "R_IPU_SIMM16",   "R_IPU_ZIMM12",  "R_IPU_HIGH12",      "R_IPU_SCALED_PTR32",
      "R_IPU_SCALED_PTR64", "R_IPU_SCALED_PTR128", "R_IPU_LOW20"};
  return type < R_IPU_COUNT ? names[type] : "R_IPU_<unknown>";
}

unsigned relocationBytes(uint32_t type) {
  switch (type) {
  case R_IPU_8: return 1;
  case R_IPU_16: case R_IPU_SCALED_PTR32: case R_IPU_SCALED_PTR64: case R_IPU_SCALED_PTR128: return 2;
  default: return 4;
  }
}

int ObjectFile::findSection(const std::string &name) const {
  for (size_t i = 0; i < sections.size(); ++i)
    if (sections[i].name == name) return int(i);
  return -1;
}

int ObjectFile::findSymbol(const std::string &name) const {
  for (size_t i = 0; i < symbols.size(); ++i)
    if (symbols[i].name == name && symbols[i].type != SymbolType::Section) return int(i);
  return -1;
}

const LineEntry *ObjectFile::lineAt(uint32_t section, uint32_t offset) const {
  auto it = std::upper_bound(lines.begin(), lines.end(), std::make_pair(section, offset),
                             [](const std::pair<uint32_t, uint32_t> &k, const LineEntry &e) {
                               return k < std::make_pair(e.section, e.offset);
                             });
  if (it == lines.begin()) return nullptr;
  --it;
  uint32_t size = (it->flags & kLineBundle) ? 8 : 4;
  return it->section == section && offset < it->offset + size ? &*it : nullptr;
}

int ObjectFile::codeModeOf(const Symbol &s) const {
  if (s.section < 0 || size_t(s.section) >= sections.size()) return -1;
  const uint32_t offset = linked ? s.value - sections[size_t(s.section)].addr : s.value;
  const LineEntry *e = lineAt(uint32_t(s.section), offset);
  return e ? ((e->flags & kLineSupervisor) ? 1 : 0) : -1;
}

std::string ObjectFile::location(const LineEntry &e) const {
  std::string file = e.file < files.size() ? files[e.file] : "<unknown>";
  return file + ":" + std::to_string(e.line) + ":" + std::to_string(e.column);
}

namespace {

class Writer {
public:
  std::vector<uint8_t> out;
  template <class T> void put(T v) {
    uint8_t b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.insert(out.end(), b, b + sizeof(T));
  }
  void align(size_t a) {
    while (out.size() % a) out.push_back(0);
  }
  void bytes(const std::vector<uint8_t> &b) { out.insert(out.end(), b.begin(), b.end()); }
};

struct StringTable {
  std::vector<uint8_t> data{0};
  std::map<std::string, uint32_t> index;
  uint32_t add(const std::string &s) {
    if (s.empty()) return 0;
    auto it = index.find(s);
    if (it != index.end()) return it->second;
    uint32_t off = uint32_t(data.size());
    data.insert(data.end(), s.begin(), s.end());
    data.push_back(0);
    index[s] = off;
    return off;
  }
};

struct OutSection {
  std::string name;
  uint32_t type, flags, addr, align, link = 0, info = 0, entsize = 0;
  std::vector<uint8_t> data;
  uint32_t size;
};

} // namespace

std::vector<uint8_t> writeElf(const ObjectFile &obj) {
  // ELF wants local symbols first: order them stably and remember where each went.
  std::vector<uint32_t> order(obj.symbols.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return (obj.symbols[a].binding == SymbolBinding::Local) >
           (obj.symbols[b].binding == SymbolBinding::Local);
  });
  std::vector<uint32_t> elfIndex(obj.symbols.size());
  uint32_t firstGlobal = 1;
  for (uint32_t i = 0; i < order.size(); ++i) {
    elfIndex[order[i]] = i + 1;
    if (obj.symbols[order[i]].binding == SymbolBinding::Local) firstGlobal = i + 2;
  }

  std::vector<OutSection> secs;
  secs.push_back({"", ELF::SHT_NULL, 0, 0, 0, 0, 0, 0, {}, 0});
  for (const Section &s : obj.sections)
    secs.push_back({s.name, s.type, s.flags, s.addr, s.align, 0, 0, 0,
                    s.isNobits() ? std::vector<uint8_t>{} : s.data,
                    s.isNobits() ? s.size : uint32_t(s.data.size())});
  const uint32_t symtabIndex = uint32_t(secs.size() + obj.sections.size() + 1);
  // Indices: user sections 1..N, then up to N .rela sections, then .ipu.lines, .symtab, .strtab,
  // .shstrtab. Count the .rela sections first so symtab's index is known.
  uint32_t numRela = 0;
  for (const Section &s : obj.sections) numRela += !s.relocs.empty();
  const uint32_t symtab = uint32_t(1 + obj.sections.size() + numRela + 1);
  (void)symtabIndex;
  for (size_t i = 0; i < obj.sections.size(); ++i) {
    const Section &s = obj.sections[i];
    if (s.relocs.empty()) continue;
    Writer w;
    for (const Relocation &r : s.relocs) {
      w.put<uint32_t>(r.offset);
      w.put<uint32_t>((elfIndex.at(r.symbol) << 8) | (r.type & 0xFF)); // ELF32_R_INFO
      w.put<int32_t>(r.addend);
    }
    secs.push_back({".rela" + s.name, ELF::SHT_RELA, ELF::SHF_INFO_LINK, 0, 4, symtab,
                    uint32_t(i + 1), 12, w.out, uint32_t(w.out.size())});
  }
  {
    Writer w;
    w.put<uint32_t>(kLinesVersion);
    w.put<uint32_t>(uint32_t(obj.files.size()));
    w.put<uint32_t>(uint32_t(obj.lines.size()));
    for (const std::string &f : obj.files) {
      w.out.insert(w.out.end(), f.begin(), f.end());
      w.out.push_back(0);
    }
    w.align(4);
    for (const LineEntry &e : obj.lines) {
      w.put<uint32_t>(e.section + 1);
      w.put<uint32_t>(e.offset);
      w.put<uint32_t>(e.file);
      w.put<uint32_t>(e.line);
      w.put<uint16_t>(e.column);
      w.put<uint8_t>(e.flags);
      w.put<uint8_t>(0);
    }
    secs.push_back({".ipu.lines", SHT_IPU_LINES, 0, 0, 4, 0, 0, 0, w.out, uint32_t(w.out.size())});
  }
  StringTable strtab;
  {
    Writer w;
    w.out.resize(16, 0); // the null symbol
    for (uint32_t i : order) {
      const Symbol &s = obj.symbols[i];
      w.put<uint32_t>(s.type == SymbolType::Section ? 0 : strtab.add(s.name));
      w.put<uint32_t>(s.value);
      w.put<uint32_t>(s.size);
      w.put<uint8_t>(uint8_t((uint8_t(s.binding) << 4) | uint8_t(s.type)));
      w.put<uint8_t>(0);
      uint16_t shndx = s.section == kUndefinedSection  ? ELF::SHN_UNDEF
                       : s.section == kAbsoluteSection ? ELF::SHN_ABS
                                                       : uint16_t(s.section + 1);
      w.put<uint16_t>(shndx);
    }
    secs.push_back({".symtab", ELF::SHT_SYMTAB, 0, 0, 4, symtab + 1, firstGlobal, 16, w.out,
                    uint32_t(w.out.size())});
  }
  secs.push_back({".strtab", ELF::SHT_STRTAB, 0, 0, 1, 0, 0, 0, strtab.data,
                  uint32_t(strtab.data.size())});
  StringTable shstr;
  for (OutSection &s : secs) shstr.add(s.name);
  shstr.add(".shstrtab");
  secs.push_back({".shstrtab", ELF::SHT_STRTAB, 0, 0, 1, 0, 0, 0, {}, 0});
  secs.back().data = shstr.data;
  secs.back().size = uint32_t(shstr.data.size());

  // Program headers: one PT_LOAD per allocated, non-empty section of a linked image.
  std::vector<size_t> loadable;
  if (obj.linked)
    for (size_t i = 1; i <= obj.sections.size(); ++i)
      if ((secs[i].flags & ELF::SHF_ALLOC) && secs[i].size) loadable.push_back(i);

  Writer w;
  const uint32_t phoff = loadable.empty() ? 0 : 52;
  uint32_t offset = 52 + uint32_t(loadable.size()) * 32;
  std::vector<uint32_t> fileOffset(secs.size(), 0);
  for (size_t i = 1; i < secs.size(); ++i) {
    uint32_t a = std::max<uint32_t>(secs[i].align, 1);
    offset = (offset + a - 1) / a * a;
    fileOffset[i] = offset;
    if (secs[i].type != ELF::SHT_NOBITS) offset += uint32_t(secs[i].data.size());
  }
  const uint32_t shoff = (offset + 3) / 4 * 4;

  // ELF header.
  const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', ELF::ELFCLASS32, ELF::ELFDATA2LSB, ELF::EV_CURRENT,
                             ELF::ELFOSABI_NONE};
  w.out.insert(w.out.end(), ident, ident + 16);
  w.put<uint16_t>(obj.linked ? ELF::ET_EXEC : ELF::ET_REL);
  w.put<uint16_t>(kMachineIpu);
  w.put<uint32_t>(ELF::EV_CURRENT);
  w.put<uint32_t>(obj.entry);
  w.put<uint32_t>(phoff);
  w.put<uint32_t>(shoff);
  w.put<uint32_t>(0);  // e_flags
  w.put<uint16_t>(52); // e_ehsize
  w.put<uint16_t>(32); // e_phentsize
  w.put<uint16_t>(uint16_t(loadable.size()));
  w.put<uint16_t>(40); // e_shentsize
  w.put<uint16_t>(uint16_t(secs.size()));
  w.put<uint16_t>(uint16_t(secs.size() - 1)); // e_shstrndx
  for (size_t i : loadable) {
    const OutSection &s = secs[i];
    bool nobits = s.type == ELF::SHT_NOBITS;
    w.put<uint32_t>(ELF::PT_LOAD);
    w.put<uint32_t>(fileOffset[i]);
    w.put<uint32_t>(s.addr);
    w.put<uint32_t>(s.addr);
    w.put<uint32_t>(nobits ? 0 : s.size);
    w.put<uint32_t>(s.size);
    w.put<uint32_t>(ELF::PF_R | ((s.flags & ELF::SHF_WRITE) ? ELF::PF_W : 0) |
                    ((s.flags & ELF::SHF_EXECINSTR) ? ELF::PF_X : 0));
    w.put<uint32_t>(std::max<uint32_t>(s.align, 1));
  }
  for (size_t i = 1; i < secs.size(); ++i) {
    w.out.resize(fileOffset[i], 0);
    if (secs[i].type != ELF::SHT_NOBITS) w.bytes(secs[i].data);
  }
  w.out.resize(shoff, 0);
  for (size_t i = 0; i < secs.size(); ++i) {
    const OutSection &s = secs[i];
    w.put<uint32_t>(i ? shstr.add(s.name) : 0);
    w.put<uint32_t>(s.type);
    w.put<uint32_t>(s.flags);
    w.put<uint32_t>(s.addr);
    w.put<uint32_t>(fileOffset[i]);
    w.put<uint32_t>(s.size);
    w.put<uint32_t>(s.link);
    w.put<uint32_t>(s.info);
    w.put<uint32_t>(i ? std::max<uint32_t>(s.align, 1) : 0);
    w.put<uint32_t>(s.entsize);
  }
  return w.out;
}

namespace {

template <class T> T unwrap(llvm::Expected<T> v, const std::string &name) {
  if (!v) throw ObjectError(name + ": error: malformed ELF: " + llvm::toString(v.takeError()));
  return std::move(*v);
}

uint32_t read32(llvm::ArrayRef<uint8_t> d, size_t off) {
  uint32_t v;
  std::memcpy(&v, d.data() + off, 4);
  return v;
}

} // namespace

ObjectFile readElf(const std::vector<uint8_t> &bytes, const std::string &name) {
  auto fail = [&](const std::string &msg) -> ObjectFile { throw ObjectError(name + ": error: " + msg); };
  if (bytes.size() < 16 || std::memcmp(bytes.data(), "\x7f" "ELF", 4) != 0)
    return fail("not an ELF file");
  if (bytes[ELF::EI_CLASS] != ELF::ELFCLASS32 || bytes[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return fail("not a 32-bit little-endian ELF file");
  llvm::StringRef buffer(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  auto file = unwrap(llvm::object::ELF32LEFile::create(buffer), name);
  const auto &hdr = file.getHeader();
  if (hdr.e_machine != kMachineIpu) return fail("not an IPU ELF file (e_machine is not 0x4950)");
  if (hdr.e_type != ELF::ET_REL && hdr.e_type != ELF::ET_EXEC)
    return fail("neither a relocatable object nor a tile image");

  ObjectFile obj;
  obj.linked = hdr.e_type == ELF::ET_EXEC;
  obj.entry = hdr.e_entry;
  auto sections = unwrap(file.sections(), name);
  // ELF section index -> ObjectFile section index, for PROGBITS/NOBITS sections.
  std::vector<int> map(sections.size(), -1);
  for (size_t i = 0; i < sections.size(); ++i) {
    const auto &sh = sections[i];
    if (sh.sh_type != ELF::SHT_PROGBITS && sh.sh_type != ELF::SHT_NOBITS) continue;
    Section s;
    s.name = std::string(unwrap(file.getSectionName(sh), name));
    s.type = sh.sh_type;
    s.flags = sh.sh_flags;
    s.align = std::max<uint32_t>(sh.sh_addralign, 1);
    if (s.align & (s.align - 1)) return fail("section '" + s.name + "' has a bad alignment");
    s.addr = sh.sh_addr;
    s.size = sh.sh_size;
    if (sh.sh_type == ELF::SHT_PROGBITS) {
      auto data = unwrap(file.getSectionContents(sh), name);
      s.data.assign(data.begin(), data.end());
    }
    map[i] = int(obj.sections.size());
    obj.sections.push_back(std::move(s));
  }
  auto sectionOf = [&](uint32_t elfIndex) -> int {
    if (elfIndex >= map.size() || map[elfIndex] < 0)
      throw ObjectError(name + ": error: malformed ELF: reference to section " +
                        std::to_string(elfIndex) + ", which holds no code or data");
    return map[elfIndex];
  };
  // Symbols.
  const typename llvm::object::ELF32LE::Shdr *symtab = nullptr;
  for (const auto &sh : sections)
    if (sh.sh_type == ELF::SHT_SYMTAB) symtab = &sh;
  size_t numSymbols = 0;
  if (symtab) {
    auto syms = unwrap(file.symbols(symtab), name);
    auto strtab = unwrap(file.getStringTableForSymtab(*symtab), name);
    numSymbols = syms.size();
    for (size_t i = 1; i < syms.size(); ++i) {
      const auto &es = syms[i];
      Symbol s;
      s.name = std::string(unwrap(es.getName(strtab), name));
      s.value = es.st_value;
      s.size = es.st_size;
      uint8_t bind = es.getBinding(), type = es.getType();
      if (bind > 2) return fail("symbol '" + s.name + "' has an unknown binding");
      if (type > 3) return fail("symbol '" + s.name + "' has an unknown type");
      s.binding = SymbolBinding(bind);
      s.type = SymbolType(type);
      if (es.st_shndx == ELF::SHN_UNDEF) s.section = kUndefinedSection;
      else if (es.st_shndx == ELF::SHN_ABS) s.section = kAbsoluteSection;
      else s.section = sectionOf(es.st_shndx);
      if (s.type == SymbolType::Section) {
        if (s.section < 0) return fail("section symbol without a section");
        s.name = obj.sections[s.section].name;
      }
      obj.symbols.push_back(std::move(s));
    }
  }
  // Relocations.
  for (const auto &sh : sections) {
    if (sh.sh_type == ELF::SHT_REL) return fail("SHT_REL sections are not used by IPU objects");
    if (sh.sh_type != ELF::SHT_RELA) continue;
    if (sh.sh_link >= sections.size() || &sections[sh.sh_link] != symtab)
      return fail("relocations refer to a missing symbol table");
    Section &target = obj.sections[sectionOf(sh.sh_info)];
    for (const auto &r : unwrap(file.relas(sh), name)) {
      Relocation rel;
      rel.offset = r.r_offset;
      rel.type = r.getType(false);
      uint32_t sym = r.getSymbol(false);
      if (sym == 0 || sym >= numSymbols)
        return fail("relocation in '" + target.name + "' refers to symbol " + std::to_string(sym) +
                    ", which does not exist");
      rel.symbol = sym - 1;
      rel.addend = r.r_addend;
      if (rel.type == R_IPU_NONE || rel.type >= R_IPU_COUNT)
        return fail("relocation in '" + target.name + "' has unknown type " + std::to_string(rel.type));
      uint32_t width = relocationBytes(rel.type);
      if (target.isNobits() || uint64_t(rel.offset) + width > target.data.size())
        return fail("relocation at offset " + std::to_string(rel.offset) + " is outside section '" +
                    target.name + "'");
      target.relocs.push_back(rel);
    }
  }
  // Source lines.
  for (const auto &sh : sections) {
    if (sh.sh_type != SHT_IPU_LINES) continue;
    auto d = unwrap(file.getSectionContents(sh), name);
    if (d.size() < 12 || read32(d, 0) != kLinesVersion) return fail("malformed .ipu.lines section");
    uint32_t nfiles = read32(d, 4), nlines = read32(d, 8);
    size_t pos = 12;
    for (uint32_t f = 0; f < nfiles; ++f) {
      auto end = std::find(d.begin() + pos, d.end(), 0);
      if (end == d.end()) return fail("malformed .ipu.lines section");
      obj.files.emplace_back(d.begin() + pos, end);
      pos = size_t(end - d.begin()) + 1;
    }
    pos = (pos + 3) / 4 * 4;
    if (d.size() < pos || (d.size() - pos) / kLineEntrySize < nlines)
      return fail("malformed .ipu.lines section");
    for (uint32_t i = 0; i < nlines; ++i, pos += kLineEntrySize) {
      LineEntry e;
      e.section = uint32_t(sectionOf(read32(d, pos)));
      e.offset = read32(d, pos + 4);
      e.file = read32(d, pos + 8);
      e.line = read32(d, pos + 12);
      std::memcpy(&e.column, d.data() + pos + 16, 2);
      e.flags = d[pos + 18];
      if (e.file >= obj.files.size()) return fail("malformed .ipu.lines section");
      const Section &s = obj.sections[e.section];
      if (uint64_t(e.offset) + ((e.flags & kLineBundle) ? 8 : 4) > s.data.size())
        return fail("malformed .ipu.lines section: entry outside section '" + s.name + "'");
      obj.lines.push_back(e);
    }
    std::sort(obj.lines.begin(), obj.lines.end(), [](const LineEntry &a, const LineEntry &b) {
      return std::make_pair(a.section, a.offset) < std::make_pair(b.section, b.offset);
    });
  }
  return obj;
}

ObjectFile readElfFile(const std::string &path) {
  if (const std::string bad = arch::unreadableFile(path, "an ELF file"); !bad.empty()) throw ObjectError(bad);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ObjectError(path + ": error: cannot open file");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return readElf(bytes, path);
}

void writeElfFile(const ObjectFile &obj, const std::string &path) {
  std::vector<uint8_t> bytes = writeElf(obj);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw ObjectError(path + ": error: cannot write file");
  out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) throw ObjectError(path + ": error: cannot write file");
}

} // namespace ipusim::cc
