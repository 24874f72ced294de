// The in-memory form of ipusim's ELF32 objects and linked tile images, and their file format.
//
// Format (docs/object-format.md): ELF32, little-endian, e_machine = kMachineIpu. Relocatable objects
// (ET_REL) carry SHT_RELA sections; linked tile images (ET_EXEC) carry section addresses, one
// PT_LOAD per allocated section and no relocations. Both carry `.ipu.lines`, a table of where each
// instruction came from (file, line, column) and in which mode (worker / supervisor) it was
// assembled, which the disassembler, the linker's diagnostics and the simulator's exception reports use.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ipusim::cc {

constexpr uint16_t kMachineIpu = 0x4950; ///< ours ("IP"); Graphcore's value is not public

/// Relocation types. S = symbol address, A = addend. Fields are little-endian.
enum RelocType : uint32_t {
  R_IPU_NONE = 0,
  R_IPU_32 = 1,            ///< word = S + A
  R_IPU_16 = 2,            ///< half = S + A
  R_IPU_8 = 3,             ///< byte = S + A
  R_IPU_TARGET19 = 4,      ///< insn[18:0] = (S + A) >> 2: branch target (word address)
  R_IPU_TARGET20 = 5,      ///< insn[19:0] = (S + A) >> 2: call target
  R_IPU_ZIMM20 = 6,        ///< insn[19:0] = S + A (setzi)
  R_IPU_ZIMM16 = 7,        ///< insn[15:0] = S + A
  R_IPU_SIMM16 = 8,        ///< insn[15:0] = S + A, signed
  R_IPU_ZIMM12 = 9,        ///< insn[11:0] = S + A
  R_IPU_HIGH12 = 10,       ///< insn[11:0] = (S + A) >> 20 (upper bits of ldconst)
  R_IPU_SCALED_PTR32 = 11, ///< half = (S + A - TMEM_REGION0_BASE_ADDR) >> 2 (asm-dialect §3.2)
  R_IPU_SCALED_PTR64 = 12, ///< half = (S + A) >> 3
  R_IPU_SCALED_PTR128 = 13,///< half = (S + A) >> 4
  R_IPU_LOW20 = 14,        ///< insn[19:0] = (S + A) & 0xFFFFF (lower bits of ldconst)
  R_IPU_COUNT
};
const char *relocTypeName(uint32_t type);
/// Bytes a relocation of `type` patches (4 for instruction fields).
unsigned relocationBytes(uint32_t type);

/// Section flag of ours (in SHF_MASKPROC): the section holds worker code (FUNCTION_IS_WORKER).
constexpr uint32_t SHF_IPU_WORKER = 0x10000000;

struct Relocation {
  uint32_t offset; ///< in the section
  uint32_t type;
  uint32_t symbol; ///< index into ObjectFile::symbols
  int32_t addend;
};

struct Section {
  std::string name;
  uint32_t type = 1;   ///< SHT_PROGBITS (1) or SHT_NOBITS (8)
  uint32_t flags = 0;  ///< SHF_* (ALLOC 2, WRITE 1, EXECINSTR 4, SHF_IPU_WORKER)
  uint32_t align = 1;
  uint32_t addr = 0;   ///< linked images only
  uint32_t size = 0;   ///< == data.size() unless NOBITS
  std::vector<uint8_t> data;
  std::vector<Relocation> relocs;

  bool isCode() const { return flags & 4; }
  bool isNobits() const { return type == 8; }
};

enum class SymbolBinding : uint8_t { Local = 0, Global = 1, Weak = 2 };
enum class SymbolType : uint8_t { NoType = 0, Object = 1, Func = 2, Section = 3 };

constexpr int kUndefinedSection = -1;
constexpr int kAbsoluteSection = -2;

struct Symbol {
  std::string name;
  int section = kUndefinedSection; ///< index into ObjectFile::sections, or the constants above
  uint32_t value = 0;              ///< offset in the section (objects) or address (images)
  uint32_t size = 0;
  SymbolBinding binding = SymbolBinding::Local;
  SymbolType type = SymbolType::NoType;
};

/// One instruction (or bundle) and where it came from.
struct LineEntry {
  uint32_t section;
  uint32_t offset;
  uint32_t file; ///< index into ObjectFile::files
  uint32_t line;
  uint16_t column;
  uint8_t flags; ///< kLineSupervisor | kLineBundle
};
constexpr uint8_t kLineSupervisor = 1; ///< assembled in supervisor mode
constexpr uint8_t kLineBundle = 2;     ///< the entry covers an 8-byte bundle

struct ObjectFile {
  bool linked = false; ///< ET_EXEC tile image
  uint32_t entry = 0;
  std::vector<Section> sections;
  std::vector<Symbol> symbols;
  std::vector<std::string> files;
  std::vector<LineEntry> lines; ///< sorted by (section, offset)

  int findSection(const std::string &name) const;
  int findSymbol(const std::string &name) const;
  /// The line entry covering `offset` in `section`, or nullptr.
  const LineEntry *lineAt(uint32_t section, uint32_t offset) const;
  /// "file:line:col" of a line entry.
  std::string location(const LineEntry &e) const;
  /// The mode the code at symbol `s` was assembled in, from the line table: 1 supervisor,
  /// 0 worker, -1 unknown (no line entry there).
  int codeModeOf(const Symbol &s) const;
};

/// Malformed input, formatted as "NAME: error: ...".
class ObjectError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

std::vector<uint8_t> writeElf(const ObjectFile &obj);
/// Parses an ELF produced by writeElf (or any ELF32 LE file of machine kMachineIpu); `name` is
/// used in error messages. Throws ObjectError on anything malformed.
ObjectFile readElf(const std::vector<uint8_t> &bytes, const std::string &name);

ObjectFile readElfFile(const std::string &path);
void writeElfFile(const ObjectFile &obj, const std::string &path);

} // namespace ipusim::cc
