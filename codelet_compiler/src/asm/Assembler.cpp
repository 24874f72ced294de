// The assembler for the Colossus tile dialect (asm-dialect §2): statements, directives, macros,
// conditionals, bundles and the rpt checks, producing an ObjectFile.
#include "ipusim/cc/Assembler.h"

#include "Expr.h"
#include "ipusim/arch/Isa.h"
#include "ipusim/arch/Registers.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace ipusim::cc {
namespace {

using namespace ipusim::arch;
using as::Expr;
using as::ExprError;
using as::ExprValue;

constexpr unsigned kMaxErrors = 50;
constexpr unsigned kMaxMacroDepth = 100;
constexpr uint32_t kMaxSectionSize = 1u << 24; ///< far above any tile's memory: catches runaway .space
constexpr uint64_t kMaxTotalBytes = 1u << 26;   ///< all sections together
constexpr uint64_t kMaxLines = 1000000;        ///< lines after macro and .rept expansion

struct Loc {
  uint32_t file = 0, line = 0, col = 1;
};

/// A diagnostic raised while handling one statement; the statement is abandoned.
struct Failure {
  Loc loc;
  std::string message;
};

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }

/// A piece of a line with the column of its first character.
struct Piece {
  std::string text;
  unsigned col;
};

/// Splits `s` at top-level occurrences of `sep` (outside quotes and parentheses).
std::vector<Piece> splitTopLevel(const std::string &s, unsigned baseCol, char sep) {
  std::vector<Piece> out;
  int depth = 0;
  bool quote = false;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    char c = i < s.size() ? s[i] : sep;
    if (quote) {
      if (c == '\\') ++i;
      else if (c == '"') quote = false;
      if (i < s.size()) continue;
    }
    if (c == '"') quote = true;
    else if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if ((c == sep && depth <= 0) || i == s.size()) {
      std::string piece = s.substr(start, i - start);
      size_t lead = piece.find_first_not_of(" \t");
      out.push_back({trim(piece), baseCol + unsigned(start + (lead == std::string::npos ? 0 : lead))});
      start = i + 1;
    }
  }
  return out;
}

std::optional<std::string> unquote(const std::string &s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return std::nullopt;
  std::string out;
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    char c = s[i];
    if (c == '\\' && i + 2 < s.size()) {
      char n = s[++i];
      switch (n) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '0': out += '\0'; break;
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      default: out += n;
      }
    } else {
      out += c;
    }
  }
  return out;
}

struct MacroParam {
  std::string name, defaultValue;
  bool required = false, vararg = false;
};

struct Macro {
  std::string name;
  std::vector<MacroParam> params;
  std::vector<std::pair<std::string, Loc>> body;
};

struct SymbolInfo {
  bool defined = false; ///< a label
  int section = -1;
  uint32_t offset = 0;
  bool isEqu = false;
  Expr equ;
  bool evaluating = false;
  bool global = false, weak = false, referenced = false;
  SymbolType type = SymbolType::NoType;
  Expr sizeExpr;
  Loc sizeLoc;
  Loc firstRef;
  Loc defLoc;
};

/// One emitted instruction or bundle.
struct InsnRecord {
  uint32_t offset;
  const InsnDesc *slots[2];
  unsigned count; ///< 1 (single) or 2 (bundle)
  Loc loc;
  Loc slotLoc[2];
  bool supervisor;
  bool allowInvalidRepeat;
};

enum class FixupKind { Field, Data8, Data16, Data32, ScaledPtr32, ScaledPtr64, ScaledPtr128, Low20, High12 };

struct Fixup {
  int section;
  uint32_t offset;
  Expr expr;
  FixupKind kind;
  OperandDesc op; ///< for Field
  Loc loc;
};

struct SectionState {
  Section sec;
  std::vector<InsnRecord> insns;
  uint32_t size() const { return sec.isNobits() ? sec.size : uint32_t(sec.data.size()); }
};

/// An instruction encoded but not yet placed: its fixups are relative to the word.
struct EncodedInsn {
  const InsnDesc *desc;
  uint32_t word;
  std::vector<Fixup> fixups; ///< section/offset filled in on placement
  Loc loc;
};

struct Operand {
  std::string text;
  unsigned col;
  bool isReg = false;
  RegisterRef reg{};
  std::string suffix;     ///< "", "+=", "++", "@", ">>", ":B", ":BL", ":BU"
  std::string dollarName; ///< a `$NAME` that is not a register (CSR, $CWEI_n_m)
  Expr expr;              ///< the parsed expression (neither a register nor a $-name)
};

struct CondFrame {
  bool parentActive, active, taken, sawElse;
  Loc loc;
};

class Assembler {
public:
  explicit Assembler(const std::string &mainFile) { fileIndex(mainFile); }

  ObjectFile run(const std::string &text);

private:
  // ---- state ----
  std::vector<std::string> files_;
  std::map<std::string, uint32_t> fileIds_;
  std::vector<std::string> errors_;
  std::vector<SectionState> sections_;
  int current_ = -1;
  std::vector<int> sectionStack_;
  int previous_ = -1;
  std::map<std::string, SymbolInfo> symbols_;
  std::vector<std::string> symbolOrder_;
  std::vector<Fixup> fixups_;
  std::map<std::string, Macro> macros_;
  std::vector<CondFrame> conds_;
  std::map<std::string, unsigned> localLabelCount_;
  unsigned dotCount_ = 0;
  unsigned macroCounter_ = 0;
  unsigned macroDepth_ = 0;
  std::vector<std::pair<std::string, Loc>> expansions_; ///< the macros being expanded: name, invocation
  bool exitMacro_ = false;
  bool ended_ = false;
  ModeMask mode_ = kWorker;
  bool allowInvalidRepeat_ = false;
  bool inBlockComment_ = false;
  uint64_t linesFed_ = 0;
  uint64_t totalBytes_ = 0;

  // collecting a .macro / .rept body
  enum class Collect { None, Macro, Rept } collect_ = Collect::None;
  int collectDepth_ = 0;
  Macro collecting_;
  int64_t reptCount_ = 0;
  Loc collectLoc_;

  // an open bundle
  bool inBundle_ = false;
  bool bundleFailed_ = false; ///< an instruction of the open bundle had an error (already reported)
  Loc bundleLoc_;
  std::vector<EncodedInsn> bundle_;

  // ---- helpers ----
  uint32_t fileIndex(const std::string &name) {
    auto it = fileIds_.find(name);
    if (it != fileIds_.end()) return it->second;
    files_.push_back(name);
    return fileIds_[name] = uint32_t(files_.size() - 1);
  }
  std::string where(const Loc &l) const {
    return files_[l.file] + ":" + std::to_string(l.line) + ":" + std::to_string(l.col);
  }
  void error(const Loc &l, const std::string &msg) {
    if (errors_.size() < kMaxErrors) {
      // Inside a macro: name each expansion, innermost first, at the line that invoked it.
      std::string text = where(l) + ": error: " + msg;
      for (auto it = expansions_.rbegin(); it != expansions_.rend(); ++it)
        text += "\n" + where(it->second) + ": note: in expansion of macro '" + it->first + "'";
      errors_.push_back(text);
    }
    else if (errors_.size() == kMaxErrors) {
      errors_.push_back(where(l) + ": error: too many errors, stopping");
      ended_ = true;
    }
  }
  [[noreturn]] static void fail(const Loc &l, const std::string &msg) { throw Failure{l, msg}; }
  static Loc at(Loc l, unsigned col) {
    l.col = col;
    return l;
  }
  bool active() const { return conds_.empty() || conds_.back().active; }

  SectionState &cur(const Loc &loc) {
    if (current_ < 0) switchSection(".text", "", "", loc);
    return sections_[size_t(current_)];
  }
  void switchSection(const std::string &name, const std::string &flags, const std::string &type,
                     const Loc &loc);
  void emitBytes(const uint8_t *p, size_t n, const Loc &loc);
  void emitZeros(uint64_t n, const Loc &loc);
  void alignTo(uint32_t alignment, const Loc &loc, std::optional<uint8_t> fill);
  uint32_t here(const Loc &loc) { return cur(loc).size(); }

  // ---- lines and statements ----
  void feed(const std::string &line, const Loc &loc);
  void collectLine(const std::string &line, const Loc &loc);
  void statement(const Piece &stmt, const Loc &lineLoc);
  bool conditional(const std::string &word, const std::string &rest, const Loc &loc, unsigned restCol);
  void directive(const std::string &word, const std::string &rest, const Loc &loc, unsigned restCol);
  void expandMacro(Macro m, const std::string &args, const Loc &loc, unsigned argsCol);
  void defineLabel(const std::string &name, const Loc &loc);

  // ---- expressions and symbols ----
  Expr parse(const std::string &text, const Loc &loc, unsigned col);
  std::string renameIdent(const std::string &name, const Loc &loc, unsigned col);
  std::optional<ExprValue> tryEvaluate(const Expr &e, const Loc &loc, bool final);
  int64_t constant(const std::string &text, const Loc &loc, unsigned col, const char *what);
  SymbolInfo &symbol(const std::string &name) {
    auto it = symbols_.find(name);
    if (it == symbols_.end()) {
      symbolOrder_.push_back(name);
      it = symbols_.emplace(name, SymbolInfo{}).first;
    }
    return it->second;
  }
  static std::string displayName(const std::string &internal);

  // ---- instructions ----
  void instruction(const std::string &mnemonic, const std::string &rest, const Loc &loc,
                   unsigned mnemonicCol, unsigned restCol);
  std::vector<Operand> parseOperands(const std::string &rest, const Loc &loc, unsigned restCol);
  EncodedInsn select(const std::string &mnemonic, std::vector<Operand> &ops, const Loc &loc);
  EncodedInsn encodeRow(const char *mnemonic, const char *spec, std::vector<int64_t> values, const Loc &loc);
  std::vector<EncodedInsn> pseudo(const std::string &mnemonic, std::vector<Operand> &ops, const Loc &loc);
  static bool isSubOfImmediate(const std::string &mnemonic, const std::vector<Operand> &ops);
  static bool isArfCsrAccess(const std::string &mnemonic, const std::vector<Operand> &ops);
  EncodedInsn subOfImmediate(std::vector<Operand> ops, const Loc &loc);
  void place(std::vector<EncodedInsn> insns, const Loc &loc);
  void closeBundle(const Loc &loc);
  void emitInsn(EncodedInsn e, bool coissue);

  // ---- data ----
  void data(unsigned size, const std::string &rest, const Loc &loc, unsigned restCol, FixupKind kind);

  // ---- finishing ----
  void checkRepeats();
  ObjectFile finish();
};

// =====================================================================================
// Sections and bytes

void Assembler::switchSection(const std::string &name, const std::string &flags,
                              const std::string &type, const Loc &loc) {
  if (inBundle_) fail(loc, "section change inside a bundle");
  for (size_t i = 0; i < sections_.size(); ++i)
    if (sections_[i].sec.name == name) {
      previous_ = current_;
      current_ = int(i);
      return;
    }
  SectionState s;
  s.sec.name = name;
  s.sec.align = 4; // instructions and words are 4-byte aligned
  auto starts = [&](const char *p) { return name.compare(0, std::char_traits<char>::length(p), p) == 0; };
  std::string f = flags;
  if (f.empty()) {
    if (starts(".text")) f = "ax";
    else if (starts(".data") || starts(".bss")) f = "aw";
    else if (starts(".rodata")) f = "a";
  }
  for (char c : f) {
    if (c == 'a') s.sec.flags |= 2;
    else if (c == 'w') s.sec.flags |= 1;
    else if (c == 'x') s.sec.flags |= 4;
    else fail(loc, std::string("unknown section flag '") + c + "'");
  }
  if (type == "@nobits" || type == "%nobits" || (type.empty() && starts(".bss"))) s.sec.type = 8;
  else if (!type.empty() && type != "@progbits" && type != "%progbits")
    fail(loc, "unknown section type '" + type + "'");
  sections_.push_back(std::move(s));
  previous_ = current_;
  current_ = int(sections_.size() - 1);
}

void Assembler::emitBytes(const uint8_t *p, size_t n, const Loc &loc) {
  SectionState &s = cur(loc);
  if (inBundle_) fail(loc, "data inside a bundle");
  if (s.sec.isNobits()) fail(loc, "cannot emit data into NOBITS section '" + s.sec.name + "'");
  if (s.sec.data.size() + n > kMaxSectionSize || (totalBytes_ += n) > kMaxTotalBytes)
    fail(loc, "section '" + s.sec.name + "' is too large");
  s.sec.data.insert(s.sec.data.end(), p, p + n);
}

void Assembler::emitZeros(uint64_t n, const Loc &loc) {
  SectionState &s = cur(loc);
  if (inBundle_) fail(loc, "data inside a bundle");
  if (uint64_t(s.size()) + n > kMaxSectionSize || (totalBytes_ += n) > kMaxTotalBytes)
    fail(loc, "section '" + s.sec.name + "' is too large");
  if (s.sec.isNobits()) s.sec.size += uint32_t(n);
  else s.sec.data.resize(s.sec.data.size() + n, 0);
}

void Assembler::alignTo(uint32_t alignment, const Loc &loc, std::optional<uint8_t> fill) {
  if (alignment == 0 || (alignment & (alignment - 1)) || alignment > 4096)
    fail(loc, "alignment must be a power of two up to 4096, not " + std::to_string(alignment));
  SectionState &s = cur(loc);
  if (inBundle_) fail(loc, "alignment inside a bundle");
  s.sec.align = std::max(s.sec.align, alignment);
  uint32_t pad = (alignment - s.size() % alignment) % alignment;
  if (pad == 0) return;
  if (s.sec.isCode() && !fill && pad % 4 == 0 && s.size() % 4 == 0) {
    // Code is padded with `nop` so that execution may fall through the padding.
    while (pad) {
      place({encodeRow("or", "mw:B, m:A, z12@0", {15, 15, 0}, loc)}, loc);
      pad -= 4;
    }
    return;
  }
  if (s.sec.isNobits()) {
    s.sec.size += pad;
    return;
  }
  s.sec.data.insert(s.sec.data.end(), pad, fill.value_or(0));
}

// =====================================================================================
// Expressions and symbols

std::string Assembler::displayName(const std::string &internal) {
  // Local numeric labels are stored as ".L<digits>\x02<n>"; show them as written.
  auto p = internal.find('\x02');
  if (p == std::string::npos) return internal;
  if (internal.compare(0, 5, ".Ldot") == 0) return ".";
  return internal.substr(2, p - 2);
}

std::string Assembler::renameIdent(const std::string &name, const Loc &loc, unsigned col) {
  if (name == ".") {
    std::string n = ".Ldot\x02" + std::to_string(dotCount_++);
    defineLabel(n, at(loc, col));
    return n;
  }
  if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) {
    std::string digits = name.substr(0, name.size() - 1);
    unsigned count = localLabelCount_[digits];
    if (name.back() == 'b') {
      if (count == 0) throw ExprError{"no earlier definition of local label '" + digits + "'", col};
      return ".L" + digits + "\x02" + std::to_string(count);
    }
    return ".L" + digits + "\x02" + std::to_string(count + 1);
  }
  SymbolInfo &s = symbol(name);
  if (!s.referenced) {
    s.referenced = true;
    s.firstRef = at(loc, col);
  }
  return name;
}

Expr Assembler::parse(const std::string &text, const Loc &loc, unsigned col) {
  try {
    return as::parseExpr(text, col, [&](const std::string &n, unsigned c) { return renameIdent(n, loc, c); });
  } catch (const ExprError &e) {
    fail(at(loc, e.column), e.message);
  }
}

std::optional<ExprValue> Assembler::tryEvaluate(const Expr &e, const Loc &loc, bool final) {
  std::function<std::optional<ExprValue>(const std::string &, unsigned)> lookup;
  lookup = [&](const std::string &name, unsigned col) -> std::optional<ExprValue> {
    auto it = symbols_.find(name);
    if (it == symbols_.end() || (!it->second.defined && !it->second.isEqu)) {
      if (!final) return std::nullopt;
      if (name.find('\x02') != std::string::npos)
        throw ExprError{"local label '" + displayName(name) + "' is never defined after this point", col};
      return ExprValue{0, -1, name};
    }
    SymbolInfo &s = it->second;
    if (s.defined) return ExprValue{int64_t(s.offset), s.section, {}};
    if (s.evaluating) throw ExprError{"symbol '" + name + "' is defined in terms of itself", col};
    s.evaluating = true;
    std::optional<ExprValue> v;
    try {
      v = as::evaluate(s.equ, lookup);
    } catch (...) {
      s.evaluating = false;
      throw;
    }
    s.evaluating = false;
    return v;
  };
  try {
    return as::evaluate(e, lookup);
  } catch (const ExprError &err) {
    fail(at(loc, err.column), err.message);
  }
}

int64_t Assembler::constant(const std::string &text, const Loc &loc, unsigned col, const char *what) {
  if (trim(text).empty()) fail(at(loc, col), std::string("expected ") + what);
  Expr e = parse(text, loc, col);
  auto v = tryEvaluate(e, loc, false);
  if (!v) fail(at(loc, col), std::string(what) + " must be known at this point");
  if (!v->isConstant()) fail(at(loc, col), std::string(what) + " must be a constant, not an address");
  return v->constant;
}

void Assembler::defineLabel(const std::string &name, const Loc &loc) {
  if (inBundle_ && name.find('\x02') == std::string::npos) fail(loc, "label inside a bundle");
  SymbolInfo &s = symbol(name);
  if (s.defined || s.isEqu) fail(loc, "symbol '" + displayName(name) + "' is already defined");
  SectionState &sec = cur(loc);
  s.defined = true;
  s.section = current_;
  s.offset = sec.size();
  s.defLoc = loc;
}

// =====================================================================================
// Lines

ObjectFile Assembler::run(const std::string &text) {
  Loc loc{0, 0, 1};
  size_t pos = 0;
  while (pos <= text.size() && !ended_ && errors_.size() <= kMaxErrors) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
    ++loc.line;
    // A preprocessor line marker: `# 12 "file.S" 1`.
    std::string t = trim(line);
    if (!t.empty() && t[0] == '#') {
      std::istringstream is(t.substr(1));
      uint32_t n;
      std::string file;
      if (is >> n >> file && file.size() >= 2 && file.front() == '"') {
        loc.file = fileIndex(file.substr(1, file.size() - 2));
        loc.line = n - 1;
      }
      continue; // other `#` lines are comments
    }
    feed(line, loc);
  }
  Loc end = loc;
  if (collect_ != Collect::None)
    error(collectLoc_, collect_ == Collect::Macro ? "'.macro' without '.endm'" : "'.rept' without '.endr'");
  for (const CondFrame &c : conds_) error(c.loc, "'.if' without '.endif'");
  if (inBundle_) error(bundleLoc_, "'{' without '}'");
  (void)end;
  if (errors_.empty()) {
    ObjectFile obj = finish();
    if (errors_.empty()) return obj;
  }
  std::string all;
  for (const std::string &e : errors_) all += e + "\n";
  throw AssemblyError(all);
}

void Assembler::feed(const std::string &rawLine, const Loc &lineLoc) {
  if (ended_ || exitMacro_) return;
  if (++linesFed_ > kMaxLines) {
    // Bounds macro and .rept explosions: the input would take too long to assemble.
    if (linesFed_ == kMaxLines + 1)
      error(lineLoc, "more than " + std::to_string(kMaxLines) + " lines after macro and .rept expansion");
    ended_ = true;
    return;
  }
  if (collect_ != Collect::None) {
    collectLine(rawLine, lineLoc);
    return;
  }
  // Strip comments: `//` and `#` to the end of the line (the SDK's assembler takes both: poplibs'
  // inline assembly writes `ld64step ... # Load first rhs`), and `/* ... */` (which may span lines).
  std::string line;
  bool quote = false;
  for (size_t i = 0; i < rawLine.size(); ++i) {
    char c = rawLine[i];
    if (inBlockComment_) {
      if (c == '*' && i + 1 < rawLine.size() && rawLine[i + 1] == '/') {
        inBlockComment_ = false;
        ++i;
      }
      line += ' ';
      continue;
    }
    if (quote) {
      line += c;
      if (c == '\\' && i + 1 < rawLine.size()) line += rawLine[++i];
      else if (c == '"') quote = false;
      continue;
    }
    if (c == '"') quote = true;
    if (c == '/' && i + 1 < rawLine.size() && rawLine[i + 1] == '/') break;
    if (c == '#') break;
    if (c == '/' && i + 1 < rawLine.size() && rawLine[i + 1] == '*') {
      inBlockComment_ = true;
      line += "  ";
      ++i;
      continue;
    }
    line += c == '\t' ? ' ' : c;
  }
  // Split into statements at `;`, `{` and `}` (outside quotes). Inside a bundle `;` separates the
  // two instructions; outside one it separates statements: either way a new statement starts.
  std::vector<Piece> stmts;
  size_t start = 0;
  quote = false;
  for (size_t i = 0; i <= line.size(); ++i) {
    char c = i < line.size() ? line[i] : ';';
    if (quote) {
      if (c == '\\') ++i;
      else if (c == '"') quote = false;
      if (i < line.size()) continue;
      c = ';';
    }
    if (c == '"') {
      quote = true;
      continue;
    }
    if (c == ';' || c == '{' || c == '}') {
      std::string piece = line.substr(start, i - start);
      size_t lead = piece.find_first_not_of(' ');
      if (lead != std::string::npos) stmts.push_back({trim(piece), unsigned(start + lead + 1)});
      if (c != ';') stmts.push_back({std::string(1, c), unsigned(i + 1)});
      start = i + 1;
    }
  }
  for (const Piece &p : stmts) {
    if (ended_ || exitMacro_) break;
    if (collect_ != Collect::None) { // a `.macro` or `.rept` began on this line: the rest is its body
      collectLine(line.substr(p.col - 1), lineLoc);
      break;
    }
    try {
      statement(p, lineLoc);
    } catch (const Failure &f) {
      error(f.loc, f.message);
      if (inBundle_) bundleFailed_ = true;
    }
  }
}

void Assembler::collectLine(const std::string &line, const Loc &loc) {
  // `.endm` (or a nested `.macro`) may follow other statements after a `;`, as the SDK's assembler
  // reads statements: poplibs' inline assembly defines one-line macros
  // (`.macro instruction OPS:vararg; f32exp \OPS; .endm;`). Such a line is taken a statement at a time.
  const char *open = collect_ == Collect::Macro ? ".macro" : ".rept";
  const char *close = collect_ == Collect::Macro ? ".endm" : ".endr";
  std::vector<Piece> parts = splitTopLevel(line, 1, ';');
  if (parts.size() > 1) {
    bool marks = false;
    for (const Piece &p : parts) {
      std::string w = p.text.substr(0, p.text.find_first_of(" \t"));
      marks |= w == open || w == close;
    }
    if (marks) {
      for (size_t i = 0; i < parts.size(); ++i) {
        if (collect_ == Collect::None) { // closed: the rest of the line is ordinary statements
          std::string rest;
          for (size_t k = i; k < parts.size(); ++k) rest += parts[k].text + (k + 1 < parts.size() ? " ; " : "");
          feed(rest, loc);
          return;
        }
        if (!parts[i].text.empty()) collectLine(parts[i].text, loc);
      }
      return;
    }
  }
  std::string t = trim(line);
  std::string word = t.substr(0, t.find_first_of(" \t"));
  if (word == open) ++collectDepth_;
  if (word == close && --collectDepth_ == 0) {
    Collect kind = collect_;
    collect_ = Collect::None;
    if (kind == Collect::Macro) {
      macros_[collecting_.name] = collecting_;
    } else {
      Macro body = collecting_;
      for (int64_t i = 0; i < reptCount_ && !ended_; ++i)
        for (auto &[text, l] : body.body) feed(text, l);
    }
    return;
  }
  collecting_.body.emplace_back(line, loc);
}

void Assembler::statement(const Piece &stmt, const Loc &lineLoc) {
  std::string text = stmt.text;
  unsigned col = stmt.col;
  Loc loc = at(lineLoc, col);
  auto wordEnd = [&](const std::string &s) {
    size_t i = 0;
    while (i < s.size() && isIdentChar(s[i])) ++i;
    return i;
  };
  size_t we = wordEnd(text);
  std::string word = text.substr(0, we);
  auto restOf = [&](size_t from, unsigned &restCol) {
    size_t b = text.find_first_not_of(' ', from);
    restCol = col + unsigned(b == std::string::npos ? text.size() : b);
    return b == std::string::npos ? std::string() : trim(text.substr(b));
  };
  unsigned restCol;
  std::string rest = restOf(we, restCol);
  if (!word.empty() && word[0] == '.' && conditional(word, rest, loc, restCol)) return;
  if (!active()) return;

  // Labels: `name:` or `1:` at the start of a statement (not `$a0:1`).
  while (!text.empty() && text[0] != '$') {
    size_t e = 0;
    if (std::isdigit(static_cast<unsigned char>(text[0]))) {
      while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) ++e;
    } else if (isIdentStart(text[0])) {
      e = wordEnd(text);
    }
    size_t c = text.find_first_not_of(' ', e);
    if (e == 0 || c == std::string::npos || text[c] != ':') break;
    std::string name = text.substr(0, e);
    Loc l = at(lineLoc, col);
    if (std::isdigit(static_cast<unsigned char>(name[0])))
      name = ".L" + name + "\x02" + std::to_string(++localLabelCount_[name]);
    defineLabel(name, l);
    size_t next = text.find_first_not_of(' ', c + 1);
    if (next == std::string::npos) return;
    col += unsigned(next);
    text = text.substr(next);
  }
  loc = at(lineLoc, col);
  we = wordEnd(text);
  word = text.substr(0, we);
  rest = restOf(we, restCol);

  if (text == "{") {
    if (inBundle_) fail(loc, "'{' inside a bundle");
    inBundle_ = true;
    bundleFailed_ = false;
    bundleLoc_ = loc;
    bundle_.clear();
    return;
  }
  if (text == "}") {
    if (!inBundle_) fail(loc, "'}' without '{'");
    if (bundleFailed_) { // its error is reported; do not add follow-on errors about its size
      inBundle_ = false;
      bundle_.clear();
      return;
    }
    closeBundle(loc);
    return;
  }
  if (word.empty()) fail(loc, "expected an instruction, directive or label");
  // `name = expr` defines a symbol like .set.
  if (!rest.empty() && rest[0] == '=' && (rest.size() == 1 || rest[1] != '=')) {
    directive(".set", word + ", " + trim(rest.substr(1)), loc, restCol);
    return;
  }
  if (auto m = macros_.find(word); m != macros_.end()) {
    expandMacro(m->second, rest, loc, restCol);
    return;
  }
  if (word[0] == '.') {
    directive(word, rest, loc, restCol);
    return;
  }
  instruction(word, rest, loc, col, restCol);
}

// =====================================================================================
// Conditionals

bool Assembler::conditional(const std::string &word, const std::string &rest, const Loc &loc,
                            unsigned restCol) {
  static const std::set<std::string> kOpeners = {".if",   ".ifdef", ".ifndef", ".ifc",  ".ifnc",
                                                 ".ifeq", ".ifne",  ".ifeqs",  ".ifnes", ".ifgt",
                                                 ".ifge", ".iflt",  ".ifle",   ".ifnotdef"};
  if (kOpeners.count(word)) {
    bool parent = active();
    bool value = false;
    // A condition that cannot be evaluated still opens a (skipped) block, so that its .endif matches.
    conds_.push_back({parent, false, true, false, loc});
    if (parent) {
      Loc rl = at(loc, restCol);
      if (word == ".ifdef" || word == ".ifndef" || word == ".ifnotdef") {
        auto it = symbols_.find(rest);
        bool defined = it != symbols_.end() && (it->second.defined || it->second.isEqu);
        if (rest.empty()) fail(rl, "expected a symbol name");
        value = word == ".ifdef" ? defined : !defined;
      } else if (word == ".ifc" || word == ".ifnc" || word == ".ifeqs" || word == ".ifnes") {
        auto parts = splitTopLevel(rest, restCol, ',');
        if (parts.size() < 2) fail(rl, "'" + word + "' needs two comma-separated strings");
        if ((word == ".ifc" || word == ".ifnc") && parts.size() > 2) {
          // As GNU as and LLVM: the first string ends at the first comma, the second is the rest
          // of the statement (poplibs writes `.ifnc, \NANOO, true`: "" against "true, true").
          parts = {parts[0], Piece{trim(rest.substr(parts[1].col - restCol)), parts[1].col}};
        }
        if (parts.size() != 2) fail(rl, "'" + word + "' needs two comma-separated strings");
        std::string a = parts[0].text, b = parts[1].text;
        if (word == ".ifeqs" || word == ".ifnes") {
          auto qa = unquote(a), qb = unquote(b);
          if (!qa) fail(at(loc, parts[0].col), "expected a quoted string");
          if (!qb) fail(at(loc, parts[1].col), "expected a quoted string");
          a = *qa, b = *qb;
        } else {
          if (auto q = unquote(a)) a = *q;
          if (auto q = unquote(b)) b = *q;
        }
        value = (a == b) == (word == ".ifc" || word == ".ifeqs");
      } else {
        int64_t v = constant(rest, loc, restCol, "the condition");
        if (word == ".if" || word == ".ifne") value = v != 0;
        else if (word == ".ifeq") value = v == 0;
        else if (word == ".ifgt") value = v > 0;
        else if (word == ".ifge") value = v >= 0;
        else if (word == ".iflt") value = v < 0;
        else value = v <= 0;
      }
    }
    conds_.back() = {parent, parent && value, parent && value, false, loc};
    return true;
  }
  if (word == ".elseif") {
    if (conds_.empty()) fail(loc, "'.elseif' without '.if'");
    CondFrame &f = conds_.back();
    if (f.sawElse) fail(loc, "'.elseif' after '.else'");
    bool v = false;
    if (f.parentActive && !f.taken) v = constant(rest, loc, restCol, "the condition") != 0;
    f.active = f.parentActive && !f.taken && v;
    f.taken = f.taken || f.active;
    return true;
  }
  if (word == ".else") {
    if (conds_.empty()) fail(loc, "'.else' without '.if'");
    CondFrame &f = conds_.back();
    if (f.sawElse) fail(loc, "second '.else' for one '.if'");
    f.sawElse = true;
    f.active = f.parentActive && !f.taken;
    f.taken = true;
    return true;
  }
  if (word == ".endif") {
    if (conds_.empty()) fail(loc, "'.endif' without '.if'");
    conds_.pop_back();
    return true;
  }
  return false;
}

// =====================================================================================
// Directives

void Assembler::directive(const std::string &word, const std::string &rest, const Loc &loc,
                          unsigned restCol) {
  Loc rl = at(loc, restCol);
  auto args = [&]() { return rest.empty() ? std::vector<Piece>{} : splitTopLevel(rest, restCol, ','); };
  auto needArgs = [&](size_t lo, size_t hi) {
    auto a = args();
    if (a.size() < lo || a.size() > hi)
      fail(rl, "'" + word + "' takes " +
                   (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                   " argument" + (hi == 1 ? "" : "s"));
    for (const Piece &p : a)
      if (p.text.empty()) fail(at(loc, p.col), "empty argument to '" + word + "'");
    return a;
  };
  auto symbolName = [&](const Piece &p) {
    if (p.text.empty() || !isIdentStart(p.text[0]) || p.text[0] == '$' ||
        !std::all_of(p.text.begin(), p.text.end(), isIdentChar))
      fail(at(loc, p.col), "expected a symbol name, not '" + p.text + "'");
    return p.text;
  };

  if (word == ".section" || word == ".pushsection") {
    auto a = needArgs(1, 4);
    std::string flags, type;
    if (a.size() >= 2) {
      auto q = unquote(a[1].text);
      if (!q) fail(at(loc, a[1].col), "expected section flags in quotes");
      flags = *q;
    }
    if (a.size() >= 3) type = a[2].text;
    if (word == ".pushsection") sectionStack_.push_back(current_);
    // An unquoted name is any text up to the comma, as the SDK's assembler reads it: poplibs'
    // macros make names such as `.text.__runCodelet_..._stride2)` (a parenthesis included).
    auto quoted = unquote(a[0].text);
    if (!quoted && a[0].text.find_first_of(" \t") != std::string::npos)
      fail(at(loc, a[0].col), "expected a section name, not '" + a[0].text + "'");
    switchSection(quoted ? *quoted : a[0].text, flags, type, loc);
    return;
  }
  if (word == ".text" || word == ".data" || word == ".bss" || word == ".rodata") {
    needArgs(0, 0);
    switchSection(word, "", "", loc);
    return;
  }
  if (word == ".popsection") {
    if (sectionStack_.empty()) fail(loc, "'.popsection' without '.pushsection'");
    previous_ = current_;
    current_ = sectionStack_.back();
    sectionStack_.pop_back();
    return;
  }
  if (word == ".previous") {
    if (previous_ < 0) fail(loc, "'.previous' without an earlier section");
    std::swap(previous_, current_);
    return;
  }
  if (word == ".globl" || word == ".global" || word == ".weak" || word == ".local") {
    for (const Piece &p : needArgs(1, 1000)) {
      // `@name` is a symbol name to the SDK's (LLVM) assembler: poplibs writes
      // `.globl SYMBOL, @function`, which declares a second global, `@function`, never defined.
      if (p.text.size() > 1 && p.text[0] == '@') {
        symbolName(Piece{p.text.substr(1), p.col + 1});
        continue; // nothing refers to it and nothing defines it: it has no effect on the object
      }
      SymbolInfo &s = symbol(symbolName(p));
      s.global = word != ".local";
      s.weak = word == ".weak";
    }
    return;
  }
  if (word == ".extern") {
    for (const Piece &p : needArgs(1, 1000)) symbolName(p);
    return;
  }
  if (word == ".type") {
    // The comma is optional (LLVM's ELF parser; poplibs writes `.type \symbol @function`).
    auto a = args();
    if (a.size() == 1 && a[0].text.find_first_of(" \t") != std::string::npos) {
      size_t blank = a[0].text.find_first_of(" \t");
      std::string second = trim(a[0].text.substr(blank));
      a = {Piece{a[0].text.substr(0, blank), a[0].col},
           Piece{second, a[0].col + unsigned(a[0].text.find(second, blank))}};
    }
    if (a.size() != 2) needArgs(2, 2);
    SymbolInfo &s = symbol(symbolName(a[0]));
    std::string t = a[1].text;
    if (auto q = unquote(t)) t = *q;
    if (!t.empty() && (t[0] == '@' || t[0] == '%')) t = t.substr(1);
    if (t == "function" || t == "STT_FUNC") s.type = SymbolType::Func;
    else if (t == "object" || t == "STT_OBJECT") s.type = SymbolType::Object;
    else if (t == "notype" || t == "STT_NOTYPE") s.type = SymbolType::NoType;
    else fail(at(loc, a[1].col), "unknown symbol type '" + a[1].text + "'");
    return;
  }
  if (word == ".size") {
    auto a = needArgs(2, 2);
    SymbolInfo &s = symbol(symbolName(a[0]));
    s.sizeExpr = parse(a[1].text, loc, a[1].col);
    s.sizeLoc = at(loc, a[1].col);
    return;
  }
  if (word == ".equ" || word == ".set" || word == ".equiv") {
    auto a = needArgs(2, 2);
    std::string name = symbolName(a[0]);
    Expr e = parse(a[1].text, loc, a[1].col);
    SymbolInfo &s = symbol(name);
    if (s.defined || (s.isEqu && word == ".equiv"))
      fail(at(loc, a[0].col), "symbol '" + name + "' is already defined");
    // Fold the value now where possible, so that `.set x, x + 1` refers to the old x.
    auto v = tryEvaluate(e, loc, false);
    if (v && v->isConstant()) {
      auto n = std::make_shared<as::ExprNode>();
      n->kind = as::ExprNode::Number;
      n->number = v->constant;
      e = n;
    }
    s.isEqu = true;
    s.equ = e;
    s.defLoc = loc;
    return;
  }
  if (word == ".byte") return data(1, rest, loc, restCol, FixupKind::Data8);
  if (word == ".short" || word == ".hword" || word == ".half" || word == ".2byte")
    return data(2, rest, loc, restCol, FixupKind::Data16);
  if (word == ".int" || word == ".word" || word == ".long" || word == ".4byte")
    return data(4, rest, loc, restCol, FixupKind::Data32);
  if (word == ".scaled_ptr32") return data(2, rest, loc, restCol, FixupKind::ScaledPtr32);
  if (word == ".scaled_ptr64") return data(2, rest, loc, restCol, FixupKind::ScaledPtr64);
  if (word == ".scaled_ptr128") return data(2, rest, loc, restCol, FixupKind::ScaledPtr128);
  if (word == ".quad" || word == ".8byte") {
    for (const Piece &p : needArgs(1, 1000)) {
      int64_t v = constant(p.text, loc, p.col, "the value");
      uint8_t b[8];
      for (int i = 0; i < 8; ++i) b[i] = uint8_t(uint64_t(v) >> (8 * i));
      emitBytes(b, 8, loc);
    }
    return;
  }
  if (word == ".space" || word == ".skip" || word == ".zero") {
    auto a = needArgs(1, word == ".zero" ? 1 : 2);
    int64_t n = constant(a[0].text, loc, a[0].col, "the size");
    if (n < 0 || n > kMaxSectionSize) fail(at(loc, a[0].col), "size " + std::to_string(n) + " is out of range");
    int64_t fill = a.size() > 1 ? constant(a[1].text, loc, a[1].col, "the fill value") : 0;
    if (fill < -128 || fill > 255) fail(at(loc, a[1].col), "fill value must be a byte");
    if (fill == 0) emitZeros(uint64_t(n), loc);
    else {
      std::vector<uint8_t> bytes(static_cast<size_t>(n), static_cast<uint8_t>(fill));
      emitBytes(bytes.data(), bytes.size(), loc);
    }
    return;
  }
  if (word == ".ascii" || word == ".asciz" || word == ".string") {
    for (const Piece &p : needArgs(1, 1000)) {
      auto s = unquote(p.text);
      if (!s) fail(at(loc, p.col), "expected a quoted string");
      if (word != ".ascii") s->push_back('\0');
      emitBytes(reinterpret_cast<const uint8_t *>(s->data()), s->size(), loc);
    }
    return;
  }
  if (word == ".align" || word == ".balign" || word == ".p2align") {
    auto a = needArgs(1, 2);
    int64_t v = constant(a[0].text, loc, a[0].col, "the alignment");
    if (word == ".p2align") {
      if (v < 0 || v > 12) fail(at(loc, a[0].col), "alignment must be between 0 and 12");
      v = int64_t(1) << v;
    }
    std::optional<uint8_t> fill;
    if (a.size() > 1) {
      int64_t f = constant(a[1].text, loc, a[1].col, "the fill value");
      if (f < -128 || f > 255) fail(at(loc, a[1].col), "fill value must be a byte");
      fill = uint8_t(f);
    }
    if (v < 1 || v > 4096) fail(at(loc, a[0].col), "alignment must be a power of two up to 4096");
    alignTo(uint32_t(v), at(loc, a[0].col), fill);
    return;
  }
  if (word == ".worker" || word == ".supervisor") {
    needArgs(0, 0);
    if (inBundle_) fail(loc, "mode change inside a bundle");
    mode_ = word == ".worker" ? kWorker : kSupervisor;
    return;
  }
  if (word == ".allow_optimizations" || word == ".file" || word == ".ident" || word == ".loc" ||
      word == ".warn_on_invalid_bundles" || word == ".error_on_invalid_bundles")
    return; // accepted; they change nothing in this assembler
  if (word == ".allow_invalid_repeat") {
    allowInvalidRepeat_ = true;
    return;
  }
  if (word == ".error" || word == ".warning" || word == ".print") {
    std::string msg = rest;
    if (auto q = unquote(rest)) msg = *q;
    if (word == ".error") fail(loc, msg.empty() ? "'.error' directive" : msg);
    if (word == ".warning") std::fprintf(stderr, "%s: warning: %s\n", where(loc).c_str(), msg.c_str());
    else std::printf("%s\n", msg.c_str());
    return;
  }
  if (word == ".macro") {
    auto words = splitTopLevel(rest, restCol, ' ');
    std::vector<Piece> parts;
    // Parameters may be separated by spaces or commas.
    for (const Piece &w : words)
      for (const Piece &p : splitTopLevel(w.text, w.col, ','))
        if (!p.text.empty()) parts.push_back(p);
    if (parts.empty()) fail(rl, "'.macro' needs a name");
    Macro m;
    m.name = symbolName(parts[0]);
    for (size_t i = 1; i < parts.size(); ++i) {
      MacroParam p;
      std::string t = parts[i].text;
      if (auto eq = t.find('='); eq != std::string::npos) {
        p.defaultValue = trim(t.substr(eq + 1));
        t = trim(t.substr(0, eq));
      }
      if (auto c = t.find(':'); c != std::string::npos) {
        std::string q = t.substr(c + 1);
        t = t.substr(0, c);
        if (q == "req") p.required = true;
        else if (q == "vararg") p.vararg = true;
        else fail(at(loc, parts[i].col), "unknown macro parameter qualifier ':" + q + "'");
      }
      if (t.empty() || !std::all_of(t.begin(), t.end(), isIdentChar))
        fail(at(loc, parts[i].col), "bad macro parameter '" + parts[i].text + "'");
      p.name = t;
      m.params.push_back(p);
    }
    collect_ = Collect::Macro;
    collectDepth_ = 1;
    collecting_ = m;
    collectLoc_ = loc;
    return;
  }
  if (word == ".rept") {
    int64_t n = constant(rest, loc, restCol, "the repeat count");
    if (n < 0 || n > 100000) fail(rl, "repeat count out of range");
    collect_ = Collect::Rept;
    collectDepth_ = 1;
    collecting_ = Macro{};
    reptCount_ = n;
    collectLoc_ = loc;
    return;
  }
  if (word == ".endm" || word == ".endr") fail(loc, "'" + word + "' without an opening directive");
  if (word == ".exitm") {
    if (macroDepth_ == 0) fail(loc, "'.exitm' outside a macro");
    exitMacro_ = true;
    return;
  }
  if (word == ".purgem") {
    if (!macros_.erase(rest)) fail(rl, "no macro named '" + rest + "'");
    return;
  }
  if (word == ".end") {
    ended_ = true;
    return;
  }
  fail(loc, "unknown directive '" + word + "'");
}

void Assembler::data(unsigned size, const std::string &rest, const Loc &loc, unsigned restCol,
                     FixupKind kind) {
  if (trim(rest).empty()) fail(loc, "expected at least one value");
  for (const Piece &p : splitTopLevel(rest, restCol, ',')) {
    Loc pl = at(loc, p.col);
    if (p.text.empty()) fail(pl, "empty value");
    Expr e = parse(p.text, loc, p.col);
    SectionState &s = cur(loc);
    if (s.sec.isNobits()) fail(loc, "cannot emit data into NOBITS section '" + s.sec.name + "'");
    uint32_t off = s.size();
    uint8_t zero[4] = {0, 0, 0, 0};
    emitBytes(zero, size, loc);
    fixups_.push_back({current_, off, e, kind, {}, pl});
  }
}

// `m` is a copy: the body may redefine or purge the macro while it runs.
void Assembler::expandMacro(Macro m, const std::string &argText, const Loc &loc,
                            unsigned argsCol) {
  if (macroDepth_ >= kMaxMacroDepth)
    fail(loc, "macros nested more than " + std::to_string(kMaxMacroDepth) + " deep (recursive macro?)");
  // Arguments: comma-separated if there is a top-level comma, else blank-separated.
  std::vector<Piece> args;
  if (!trim(argText).empty()) {
    auto commas = splitTopLevel(argText, argsCol, ',');
    args = commas.size() > 1 ? commas : splitTopLevel(argText, argsCol, ' ');
    args.erase(std::remove_if(args.begin(), args.end(), [&](const Piece &p) { return p.text.empty() && commas.size() == 1; }),
               args.end());
  }
  std::map<std::string, std::string> values;
  size_t positional = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const Piece &a = args[i];
    auto eq = a.text.find('=');
    if (eq != std::string::npos && eq > 0 &&
        std::all_of(a.text.begin(), a.text.begin() + long(eq), isIdentChar) &&
        (eq + 1 >= a.text.size() || a.text[eq + 1] != '=')) {
      std::string name = a.text.substr(0, eq);
      auto it = std::find_if(m.params.begin(), m.params.end(), [&](const MacroParam &p) { return p.name == name; });
      if (it == m.params.end()) fail(at(loc, a.col), "macro '" + m.name + "' has no parameter '" + name + "'");
      values[name] = trim(a.text.substr(eq + 1));
      continue;
    }
    if (positional >= m.params.size())
      fail(at(loc, a.col), "too many arguments to macro '" + m.name + "'");
    const MacroParam &p = m.params[positional++];
    if (p.vararg) {
      std::string all;
      for (size_t j = i; j < args.size(); ++j) all += (j > i ? ", " : "") + args[j].text;
      values[p.name] = all;
      break;
    }
    values[p.name] = a.text;
  }
  for (const MacroParam &p : m.params) {
    if (values.count(p.name)) continue;
    if (p.required) fail(loc, "missing value for required parameter '" + p.name + "' of macro '" + m.name + "'");
    values[p.name] = p.defaultValue;
  }
  // As GNU as: a value written as one quoted string ("", "nop", "a b") is substituted without
  // its quotes (the quotes only delimit it; poplibs passes OPTIONAL_NOP="" this way).
  for (auto &[name, v] : values)
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"' && v.find('"', 1) == v.size() - 1) v = v.substr(1, v.size() - 2);
  unsigned counter = macroCounter_++;
  ++macroDepth_;
  expansions_.push_back({m.name, loc});
  const size_t condDepth = conds_.size();
  for (auto &[line, bodyLoc] : m.body) {
    std::string out;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] != '\\' || i + 1 >= line.size()) {
        out += line[i];
        continue;
      }
      char n = line[i + 1];
      if (n == '@') {
        out += std::to_string(counter);
        ++i;
      } else if (n == '(' && i + 2 < line.size() && line[i + 2] == ')') {
        i += 2;
      } else if (isIdentChar(n) && n != '.' && n != '$') {
        size_t e = i + 1;
        while (e < line.size() && isIdentChar(line[e]) && line[e] != '.' && line[e] != '$') ++e;
        std::string name = line.substr(i + 1, e - i - 1);
        auto it = values.find(name);
        if (it != values.end()) {
          out += it->second;
          i = e - 1;
        } else {
          out += line[i];
        }
      } else {
        out += line[i];
      }
    }
    Loc l = bodyLoc;
    try {
      feed(out, l);
    } catch (...) {
      --macroDepth_;
      expansions_.pop_back();
      throw;
    }
    if (exitMacro_ || ended_) break;
  }
  if (exitMacro_) conds_.resize(std::min(conds_.size(), condDepth)); // .exitm leaves open .ifs
  else if (conds_.size() > condDepth) {
    CondFrame open = conds_.back();
    conds_.resize(condDepth);
    error(open.loc, "'.if' without '.endif' in macro '" + m.name + "'");
  }
  exitMacro_ = false;
  --macroDepth_;
  expansions_.pop_back();
}

// =====================================================================================
// Instructions

std::vector<Operand> Assembler::parseOperands(const std::string &rest, const Loc &loc, unsigned restCol) {
  std::vector<Operand> ops;
  if (trim(rest).empty()) return ops;
  for (const Piece &p : splitTopLevel(rest, restCol, ',')) {
    Operand op;
    op.text = p.text;
    op.col = p.col;
    if (p.text.empty()) fail(at(loc, p.col), "empty operand");
    if (p.text[0] == '$') {
      size_t e = 1;
      while (e < p.text.size() && (std::isalnum(static_cast<unsigned char>(p.text[e])) || p.text[e] == '_')) ++e;
      std::string name = p.text.substr(0, e);
      std::string tail = p.text.substr(e);
      // poplibs' headers define register groups over two lines (`#define X a4: \ 5`), so after
      // preprocessing a group or a broadcast suffix may have blanks around its ':' (`$a4 : 5`).
      if (size_t t = tail.find_first_not_of(" \t"); t != std::string::npos && tail[t] == ':') {
        size_t u = tail.find_first_not_of(" \t", t + 1);
        tail = ":" + (u == std::string::npos ? std::string() : tail.substr(u));
      }
      // A register group `:N`.
      if (tail.size() >= 2 && tail[0] == ':' && std::isdigit(static_cast<unsigned char>(tail[1]))) {
        size_t d = 1;
        while (d < tail.size() && std::isdigit(static_cast<unsigned char>(tail[d]))) ++d;
        name += tail.substr(0, d);
        tail = tail.substr(d);
      }
      tail = trim(tail);
      static const std::set<std::string> kSuffixes = {"", "+=", "++", "@", ">>", ":B", ":BL", ":BU"};
      if (auto r = parseRegister(name)) {
        if (!kSuffixes.count(tail)) fail(at(loc, p.col + unsigned(name.size())), "unexpected '" + tail + "' after register " + name);
        op.isReg = true;
        op.reg = *r;
        op.suffix = tail;
      } else if (name.size() > 2 && (name[1] == 'm' || name[1] == 'a') &&
                 std::isdigit(static_cast<unsigned char>(name[2]))) {
        fail(at(loc, p.col), "unknown register '" + name + "'");
      } else if (tail.empty()) {
        op.dollarName = name;
      } else {
        fail(at(loc, p.col), "unknown register '" + name + "'");
      }
    } else {
      // Parsed once for all variants: parsing `.` defines a label at the current position.
      op.expr = parse(op.text, loc, op.col);
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

const char *registerKindName(const OperandDesc &d) {
  switch (d.kind) {
  case OperandKind::MReg: return "an MRF register ($m0-$m15)";
  case OperandKind::AReg: return "an ARF register ($a0-$a7, $a14, $a15)";
  case OperandKind::MPair: return "an aligned MRF register pair ($mN:N+1)";
  case OperandKind::APair: return "an aligned ARF register pair ($aN:N+1)";
  case OperandKind::AQuad: return "an aligned ARF register quad ($aN:N+3)";
  case OperandKind::MPostInc: return "a post-incremented MRF register ($mN+=)";
  case OperandKind::MPairPostInc: return "a post-incremented MRF register pair ($mN:N+1+=)";
  case OperandKind::MAutoInc: return "an auto-incremented MRF register ($mN++)";
  case OperandKind::MAt: return "an MRF register with '@' ($mN@)";
  case OperandKind::MShift: return "an MRF register with '>>' ($mN>>)";
  case OperandKind::ABroadcast: return "a broadcast ARF register ($aN:B)";
  case OperandKind::ABroadcastLo: return "a broadcast ARF register ($aN:BL)";
  case OperandKind::ABroadcastHi: return "a broadcast ARF register ($aN:BU)";
  default: return "a register";
  }
}

/// Why operand `op` does not fit `d`, or "" if it does (registers and $-names only).
std::string registerMismatch(const OperandDesc &d, const Operand &op, ModeMask mode) {
  if (!d.isRegister()) {
    if (op.isReg) return "expected an immediate or expression, not register " + op.text;
    if (!op.dollarName.empty()) {
      if (d.kind == OperandKind::Csr || d.kind == OperandKind::UpperCsr) {
        CsrSpace space = d.kind == OperandKind::UpperCsr ? CsrSpace::WorkerAux
                         : mode == kSupervisor           ? CsrSpace::Supervisor
                                                         : CsrSpace::WorkerMain;
        if (findCsr(op.dollarName, space)) return "";
        if (const CsrInfo *c = findCsrAnySpace(op.dollarName)) {
          if (c->space == CsrSpace::Supervisor) return "CSR " + op.dollarName + " is only available in supervisor mode";
          if (mode == kSupervisor) return "CSR " + op.dollarName + " is only available in worker mode";
          return "CSR " + op.dollarName + (c->space == CsrSpace::WorkerAux ? " is accessed with uget/uput"
                                                                           : " is accessed with get/put");
        }
        return "unknown CSR " + op.dollarName;
      }
      if (d.kind == OperandKind::CommonConfig) {
        if (parseCommonConfig(op.dollarName)) return "";
        return "expected $CWEI_n_m (n 0-15, m 0-3), not " + op.dollarName;
      }
      return "'" + op.dollarName + "' is not a register or valid here";
    }
    return "";
  }
  if (!op.isReg) return std::string("expected ") + registerKindName(d) + ", not '" + op.text + "'";
  // $azero read where an MRF register goes is $mzero: both are register 15, always zero, and the
  // SDK's assembler takes it so (poplibs: `ld32 $a0, $m1, $azero, 0`). [I] docs/poplibs-compat.md
  if (d.kind == OperandKind::MReg && !d.written && op.reg.file == RegFile::A && op.reg.index == 15 &&
      op.reg.count == 1 && op.suffix.empty())
    return "";
  RegFile file = d.isArf() ? RegFile::A : RegFile::M;
  std::string suffix;
  switch (d.kind) {
  case OperandKind::MPostInc: case OperandKind::MPairPostInc: suffix = "+="; break;
  case OperandKind::MAutoInc: suffix = "++"; break;
  case OperandKind::MAt: suffix = "@"; break;
  case OperandKind::MShift: suffix = ">>"; break;
  case OperandKind::ABroadcast: suffix = ":B"; break;
  case OperandKind::ABroadcastLo: suffix = ":BL"; break;
  case OperandKind::ABroadcastHi: suffix = ":BU"; break;
  default: break;
  }
  // `:B` where the instruction broadcasts a half is `:BL`, and `:BL` where it broadcasts a 32-bit
  // register is `:B`: both name the broadcast-low form (Graphcore's generated encodings set the same
  // bits, Inst{19-18} = 0b10; no instruction has both), and poplibs writes
  // `f16v4mul $a2:3, $a0:B, $a4:5` and `f32v2mul $a0:1, $a4:BL, $a0:1`. [I] docs/poplibs-compat.md
  const bool broadcastLow = (suffix == ":B" || suffix == ":BL") && (op.suffix == ":B" || op.suffix == ":BL");
  if (op.reg.file != file || op.reg.count != d.registerCount() || (op.suffix != suffix && !broadcastLow))
    return std::string("expected ") + registerKindName(d) + ", not " + op.text;
  if (op.reg.index % op.reg.count)
    return "register group " + op.text + " is not aligned (a pair starts at an even register, a quad at a multiple of 4)";
  // $a8-$a13 do not exist on Mk2, yet the SDK's assembler takes them as destinations: poplibs
  // names $a10:11 `NULL2` and writes AMP results it discards there. Writes are accepted (the ISS
  // stores them; no assembled instruction reads them); reads are an error.
  if (file == RegFile::A && !d.written) {
    for (unsigned r = op.reg.index; r < op.reg.index + op.reg.count; ++r)
      if (isReservedArf(r)) return "register " + op.text + " does not exist on Mk2 (ARF general registers are $a0-$a7)";
  }
  return "";
}

EncodedInsn Assembler::encodeRow(const char *mnemonic, const char *spec, std::vector<int64_t> values,
                                 const Loc &loc) {
  for (const InsnDesc *d : variantsOf(mnemonic))
    if (std::string(d->spec) == spec) {
      if (!d->allowedIn(mode_))
        fail(loc, std::string("'") + mnemonic + "' requires " + (mode_ == kSupervisor ? "worker" : "supervisor") + " mode");
      return {d, encode(*d, values.data()), {}, loc};
    }
  fail(loc, std::string("internal error: no row ") + mnemonic + " " + spec);
}

EncodedInsn Assembler::select(const std::string &mnemonic, std::vector<Operand> &ops, const Loc &loc) {
  std::vector<const InsnDesc *> variants = variantsOf(mnemonic);
  int bestRank = -1;
  Failure best{loc, ""};
  // Rank failures by how many operands matched; at equal rank prefer the message about an
  // operand of the kind the user wrote (a register where a register was expected).
  auto note = [&](int rank, Loc l, const std::string &msg, bool sameClass = false) {
    rank = rank * 2 + (sameClass ? 1 : 0);
    if (rank > bestRank) {
      bestRank = rank;
      best = {l, msg};
    }
  };
  for (const InsnDesc *d : variants) {
    std::vector<Operand> use = ops;
    // 3-operand memory shorthand: `ld32 $d, $base, off` = `ld32 $d, $base, $mzero, off`.
    if (use.size() == 3 && d->numOperands == 4 && (mnemonic.rfind("ld", 0) == 0 || mnemonic.rfind("st", 0) == 0) &&
        d->operands[1].kind == OperandKind::MReg && d->operands[2].kind == OperandKind::MReg &&
        !d->operands[2].written) {
      Operand z;
      z.text = "$mzero";
      z.col = use[2].col;
      z.isReg = true;
      z.reg = RegisterRef{RegFile::M, 15, 1};
      use.insert(use.begin() + 2, z);
    }
    if (use.size() != d->numOperands) {
      note(0, loc, "'" + mnemonic + "' takes " + std::to_string(d->numOperands) + " operand" +
                       (d->numOperands == 1 ? "" : "s") + ", not " + std::to_string(ops.size()));
      continue;
    }
    std::vector<int64_t> values(d->numOperands, 0);
    std::vector<Fixup> pending;
    bool ok = true;
    for (unsigned i = 0; i < d->numOperands && ok; ++i) {
      const OperandDesc &od = d->operands[i];
      Operand &op = use[i];
      Loc ol = at(loc, op.col);
      std::string why = registerMismatch(od, op, mode_);
      if (!why.empty()) {
        note(1 + int(i), ol, why, od.isRegister() == op.isReg);
        ok = false;
        break;
      }
      if (od.isRegister()) {
        values[i] = op.reg.index;
        continue;
      }
      if (!op.dollarName.empty()) {
        if (od.kind == OperandKind::CommonConfig) values[i] = *parseCommonConfig(op.dollarName);
        else {
          CsrSpace space = od.kind == OperandKind::UpperCsr ? CsrSpace::WorkerAux
                           : mode_ == kSupervisor           ? CsrSpace::Supervisor
                                                            : CsrSpace::WorkerMain;
          values[i] = findCsr(op.dollarName, space)->index;
        }
        continue;
      }
      auto v = tryEvaluate(op.expr, loc, false);
      if (v && v->isConstant()) {
        if (!operandFits(od, v->constant, &why)) {
          // An immediate where an immediate goes, only too large: that is the message, not
          // another form's "expected a register" (issue 14: `ld32 $m0, $m1, $m2, 4096`).
          note(1 + int(i), ol, why + " for operand " + std::to_string(i + 1) + " of '" + mnemonic + "'", true);
          ok = false;
          break;
        }
        values[i] = od.kind == OperandKind::UpperCsr ? (v->constant & 0xFF) : v->constant;
      } else {
        pending.push_back({-1, 0, op.expr, FixupKind::Field, od, ol});
      }
    }
    if (!ok) continue;
    if (!d->allowedIn(mode_)) {
      note(int(d->numOperands) + 1, loc,
           "'" + mnemonic + "' with these operands requires " + (mode_ == kSupervisor ? "worker" : "supervisor") +
               " mode (this code is in " + (mode_ == kSupervisor ? ".supervisor" : ".worker") + " mode)");
      continue;
    }
    return {d, encode(*d, values.data()), pending, loc};
  }
  throw best;
}

std::vector<EncodedInsn> Assembler::pseudo(const std::string &mn, std::vector<Operand> &ops, const Loc &loc) {
  auto needOps = [&](size_t n) {
    if (ops.size() != n)
      fail(loc, "'" + mn + "' takes " + std::to_string(n) + " operand" + (n == 1 ? "" : "s") + ", not " +
                    std::to_string(ops.size()));
  };
  auto reg = [&](size_t i) -> const RegisterRef & {
    if (!ops[i].isReg || !ops[i].suffix.empty())
      fail(at(loc, ops[i].col), "expected a register, not '" + ops[i].text + "'");
    const RegisterRef &r = ops[i].reg;
    if (r.file == RegFile::A && mode_ == kSupervisor)
      fail(at(loc, ops[i].col), "ARF registers are not available in supervisor mode");
    if (r.index % r.count) fail(at(loc, ops[i].col), "register group " + ops[i].text + " is not aligned");
    if (r.file == RegFile::A && isReservedArf(r.index))
      fail(at(loc, ops[i].col), "register " + ops[i].text + " does not exist on Mk2 (ARF general registers are $a0-$a7)");
    return r;
  };
  if (mn == "nop") {
    needOps(0);
    return {encodeRow("or", "mw:B, m:A, z12@0", {15, 15, 0}, loc)};
  }
  if (mn == "fnop") {
    needOps(0);
    return {encodeRow("or", "aw:B, a:A, z12@0", {15, 15, 0}, loc)};
  }
  if (mn == "zero") {
    needOps(1);
    const RegisterRef &r = reg(0);
    if (r.count == 1)
      return {encodeRow("or", r.file == RegFile::M ? "mw:B, m:A, z12@0" : "aw:B, a:A, z12@0", {r.index, 15, 0}, loc)};
    if (r.file == RegFile::A && r.count == 2) return {encodeRow("or64", "apw:D, ap:A, ap:C", {r.index, 14, 14}, loc)};
    fail(at(loc, ops[0].col), "'zero' takes a register or an ARF pair");
  }
  bool isMov = mn == "mov";
  needOps(2);
  const RegisterRef &d = reg(0);
  if (isMov && ops[1].isReg) {
    const RegisterRef &s = reg(1);
    if (d.count != s.count) fail(at(loc, ops[1].col), "'mov' needs registers of the same size");
    if (d.file == RegFile::M && s.file == RegFile::M && d.count == 1)
      return {encodeRow("or", "mw:D, m:A, m:C", {d.index, s.index, 15}, loc)};
    if (d.file == RegFile::A && s.file == RegFile::A && d.count == 1)
      return {encodeRow("or", "aw:D, a:A, a:C", {d.index, s.index, 15}, loc)};
    if (d.file == RegFile::A && s.file == RegFile::A && d.count == 2)
      return {encodeRow("or64", "apw:D, ap:A, ap:C", {d.index, s.index, 14}, loc)};
    if (d.file == RegFile::M && s.file == RegFile::A && d.count == 1)
      return {encodeRow("atom", "mw:B, a:A", {d.index, s.index}, loc)};
    fail(at(loc, ops[1].col), "'mov' cannot copy " + ops[1].text + " to " + ops[0].text);
  }
  // ldconst / mov of a constant: setzi for the low 20 bits, `or` for the top 12 (asm-dialect §2.1).
  if (d.count != 1) fail(at(loc, ops[0].col), "'" + mn + "' needs a single register");
  if (!ops[1].dollarName.empty()) fail(at(loc, ops[1].col), "expected a constant, not " + ops[1].dollarName);
  bool m = d.file == RegFile::M;
  const char *setzi = m ? "mw:A, z20@0" : "aw:A, z20@0";
  const char *orHigh = m ? "mw:B, m:A, hi12@0" : "aw:B, a:A, hi12@0";
  Expr e = parse(ops[1].text, loc, ops[1].col);
  auto v = tryEvaluate(e, loc, false);
  if (v && v->isConstant()) {
    int64_t x = v->constant;
    if (x < INT32_MIN || x > int64_t(UINT32_MAX))
      fail(at(loc, ops[1].col), "constant " + std::to_string(x) + " does not fit in 32 bits");
    uint32_t u = uint32_t(x), lo = u & 0xFFFFF, hi = u & 0xFFF00000u;
    if (hi == 0) return {encodeRow("setzi", setzi, {d.index, lo}, loc)};
    if (lo == 0) return {encodeRow("or", orHigh, {d.index, 15, hi}, loc)};
    return {encodeRow("setzi", setzi, {d.index, lo}, loc), encodeRow("or", orHigh, {d.index, d.index, hi}, loc)};
  }
  EncodedInsn a = encodeRow("setzi", setzi, {d.index, 0}, loc);
  EncodedInsn b = encodeRow("or", orHigh, {d.index, d.index, 0}, loc);
  a.fixups.push_back({-1, 0, e, FixupKind::Low20, {}, at(loc, ops[1].col)});
  b.fixups.push_back({-1, 0, e, FixupKind::High12, {}, at(loc, ops[1].col)});
  return {a, b};
}

// `sub $mA, $mB, imm`: the SDK's assembler takes it as `add $mA, $mB, -imm` (poplibs writes
// `sub $mcount, $mcount, 1` in 17 files); the ISA's own `sub` forms take the immediate first.
// `get $aN, $CSR` / `put $CSR, $aN`: an ARF register with get/put is uget/uput, the ARF's CSR
// access (poplibs: `get $a6, $TAS`). [I] docs/poplibs-compat.md
bool Assembler::isArfCsrAccess(const std::string &mnemonic, const std::vector<Operand> &ops) {
  if (ops.size() != 2) return false;
  const Operand &r = mnemonic == "get" ? ops[0] : mnemonic == "put" ? ops[1] : ops[0];
  return (mnemonic == "get" || mnemonic == "put") && r.isReg && r.reg.file == RegFile::A;
}

bool Assembler::isSubOfImmediate(const std::string &mnemonic, const std::vector<Operand> &ops) {
  return mnemonic == "sub" && ops.size() == 3 && ops[0].isReg && ops[1].isReg && ops[1].reg.file == RegFile::M &&
         !ops[2].isReg && ops[2].dollarName.empty();
}

EncodedInsn Assembler::subOfImmediate(std::vector<Operand> ops, const Loc &loc) {
  Loc il = at(loc, ops[2].col);
  auto v = tryEvaluate(ops[2].expr, loc, false);
  if (v && v->isConstant() && (v->constant < -32767 || v->constant > 32768))
    fail(il, "immediate " + std::to_string(v->constant) +
                 " is out of range [-32767, 32768] for operand 3 of 'sub' (assembled as 'add' of its negation)");
  auto neg = std::make_shared<as::ExprNode>();
  neg->kind = as::ExprNode::Unary;
  neg->name = "-";
  neg->lhs = ops[2].expr;
  neg->column = ops[2].col;
  neg->depth = ops[2].expr->depth + 1;
  ops[2].expr = neg;
  return select("add", ops, loc);
}

void Assembler::instruction(const std::string &mnemonic, const std::string &rest, const Loc &loc,
                            unsigned mnemonicCol, unsigned restCol) {
  Loc ml = at(loc, mnemonicCol);
  auto variants = variantsOf(mnemonic);
  if (variants.empty()) fail(ml, "unknown instruction '" + mnemonic + "'");
  std::vector<Operand> ops = parseOperands(rest, loc, restCol);
  std::vector<EncodedInsn> insns;
  if (variants[0]->has(kPseudo)) insns = pseudo(mnemonic, ops, ml);
  else if (isSubOfImmediate(mnemonic, ops)) insns.push_back(subOfImmediate(ops, ml));
  else if (isArfCsrAccess(mnemonic, ops)) insns.push_back(select(mnemonic == "get" ? "uget" : "uput", ops, ml));
  else insns.push_back(select(mnemonic, ops, ml));
  place(std::move(insns), ml);
}

void Assembler::place(std::vector<EncodedInsn> insns, const Loc &loc) {
  if (inBundle_) {
    if (insns.size() != 1) fail(loc, "this instruction expands to two instructions and cannot be bundled");
    bundle_.push_back(std::move(insns[0]));
    return;
  }
  SectionState &s = cur(loc);
  if (s.sec.isNobits()) fail(loc, "instruction in NOBITS section '" + s.sec.name + "'");
  if (!s.sec.isCode()) fail(loc, "instruction in section '" + s.sec.name + "', which is not executable");
  if (s.size() % 4) fail(loc, "instruction is not 4-byte aligned (use .align 4)");
  for (EncodedInsn &e : insns) {
    s.insns.push_back({s.size(), {e.desc, nullptr}, 1, e.loc, {e.loc, e.loc}, mode_ == kSupervisor, allowInvalidRepeat_});
    emitInsn(std::move(e), false);
  }
}

void Assembler::emitInsn(EncodedInsn e, bool coissue) {
  SectionState &s = sections_[size_t(current_)];
  uint32_t off = s.size();
  uint32_t w = e.word | (coissue ? kCoissueBit : 0);
  uint8_t b[4] = {uint8_t(w), uint8_t(w >> 8), uint8_t(w >> 16), uint8_t(w >> 24)};
  s.sec.data.insert(s.sec.data.end(), b, b + 4);
  for (Fixup &f : e.fixups) {
    f.section = current_;
    f.offset = off;
    fixups_.push_back(std::move(f));
  }
}

struct WrittenReg {
  RegFile file;
  unsigned index;
};

std::vector<WrittenReg> writtenRegisters(const InsnDesc &d, uint32_t word) {
  std::vector<WrittenReg> out;
  for (unsigned i = 0; i < d.numOperands; ++i) {
    const OperandDesc &op = d.operands[i];
    if (!op.isRegister() || !op.written) continue;
    RegFile file = op.isArf() ? RegFile::A : RegFile::M;
    unsigned base = unsigned(decodeOperand(op, word));
    for (unsigned r = base; r < base + op.registerCount(); ++r) {
      // Writes to the zero registers are discarded, so two of them never clash.
      if ((file == RegFile::M && r == 15) || (file == RegFile::A && r >= 14)) continue;
      out.push_back({file, r});
    }
  }
  return out;
}

void Assembler::closeBundle(const Loc &loc) {
  inBundle_ = false;
  std::vector<EncodedInsn> b = std::move(bundle_);
  bundle_.clear();
  if (b.size() < 2) fail(bundleLoc_, "too few instructions in bundle (a bundle is one main and one aux instruction)");
  if (b.size() > 2) fail(b[2].loc, "too many instructions in bundle (a bundle is one main and one aux instruction)");
  for (const EncodedInsn &e : b)
    if (e.desc->has(kSolo)) fail(e.loc, std::string("'") + e.desc->mnemonic + "' cannot be bundled");
  if (b[0].desc->pipe == Pipe::Aux && b[1].desc->pipe == Pipe::Aux)
    fail(b[0].loc, std::string("invalid instruction in bundle: '") + b[0].desc->mnemonic + "' and '" +
                       b[1].desc->mnemonic + "' both issue on the aux pipeline");
  if (b[0].desc->pipe == Pipe::Main && b[1].desc->pipe == Pipe::Main)
    fail(b[1].loc, std::string("invalid instruction in bundle: '") + b[0].desc->mnemonic + "' and '" +
                       b[1].desc->mnemonic + "' both issue on the main pipeline");
  if (b[0].desc->pipe == Pipe::Aux)
    fail(b[0].loc, std::string("invalid instruction in bundle: the main-pipeline instruction '") +
                       b[1].desc->mnemonic + "' must come first");
  for (const WrittenReg &x : writtenRegisters(*b[0].desc, b[0].word))
    for (const WrittenReg &y : writtenRegisters(*b[1].desc, b[1].word))
      if (x.file == y.file && x.index == y.index)
        fail(b[1].loc, "bundle instructions cannot write to the same register (" +
                           registerName(x.file, x.index) + ")");
  SectionState &s = cur(loc);
  if (s.sec.isNobits() || !s.sec.isCode())
    fail(bundleLoc_, "bundle in section '" + s.sec.name + "', which is not executable");
  if (s.size() % 4) fail(bundleLoc_, "bundle is not 4-byte aligned");
  // A bundle goes where it is, at any word: only a repeat body must start on 8 bytes
  // (checkRepeats). poplibs places its alignment nops counting on this: with a nop before every
  // bundle at 4 mod 8, 25 of its files put their repeat bodies at 4 mod 8 (issue 13).
  s.sec.align = std::max<uint32_t>(s.sec.align, 8);
  uint32_t off = s.size();
  s.insns.push_back({off, {b[0].desc, b[1].desc}, 2, bundleLoc_, {b[0].loc, b[1].loc}, mode_ == kSupervisor,
                     allowInvalidRepeat_});
  emitInsn(std::move(b[0]), true);
  emitInsn(std::move(b[1]), true);
}

// =====================================================================================
// Finishing: symbols, fixups, relocations, rpt checks

void Assembler::checkRepeats() {
  for (size_t si = 0; si < sections_.size(); ++si) {
    SectionState &s = sections_[si];
    std::map<uint32_t, const InsnRecord *> byOffset;
    for (const InsnRecord &r : s.insns) byOffset[r.offset] = &r;
    for (const InsnRecord &r : s.insns) {
      const InsnDesc *rpt = r.slots[0]->timing == TimingClass::Repeat ? r.slots[0] : nullptr;
      if (!rpt || r.allowInvalidRepeat) continue;
      uint32_t word;
      std::memcpy(&word, s.sec.data.data() + r.offset, 4);
      unsigned bundles = unsigned(decodeOperand(rpt->operands[rpt->numOperands - 1], word)) + 1;
      uint32_t start = r.offset + 4 * r.count;
      Loc l = r.slotLoc[0];
      if (start % 8) {
        error(l, "repeat body must start on an 8-byte boundary: the instruction after 'rpt' is at offset " +
                     std::to_string(start) + " of '" + s.sec.name + "' (bundle the rpt with an fnop or put a nop before it)");
        continue;
      }
      uint32_t end = start + 8 * bundles;
      if (end > s.size()) {
        error(l, "repeat body of " + std::to_string(bundles) + " bundles runs past the end of section '" +
                     s.sec.name + "'");
        continue;
      }
      for (uint32_t pos = start; pos < end; pos += 8) {
        auto it = byOffset.find(pos);
        if (it == byOffset.end()) {
          error(l, "repeat body holds bytes that are not instructions at offset " + std::to_string(pos));
          break;
        }
        const InsnRecord &b = *it->second;
        if (b.count != 2) {
          error(b.loc, std::string("'") + b.slots[0]->mnemonic +
                           "' in a repeat body must be bundled (a repeat body is counted in bundles)");
          break;
        }
        for (unsigned k = 0; k < 2; ++k)
          if (b.slots[k]->flags & (kControl | kSystem | kSolo))
            error(b.slotLoc[k], std::string("'") + b.slots[k]->mnemonic +
                                     "' is not allowed in a repeat body (control, system and solo instructions)");
      }
    }
  }
}

ObjectFile Assembler::finish() {
  ObjectFile obj;
  obj.files = files_;
  for (SectionState &s : sections_) {
    obj.sections.push_back(s.sec);
    obj.sections.back().size = s.size();
  }
  // Symbols: one section symbol per section, then named labels, then undefined references.
  for (size_t i = 0; i < sections_.size(); ++i)
    obj.symbols.push_back({sections_[i].sec.name, int(i), 0, 0, SymbolBinding::Local, SymbolType::Section});
  std::map<std::string, uint32_t> index;
  auto isTemp = [](const std::string &n) { return n.compare(0, 2, ".L") == 0 || n.find('\x02') != std::string::npos; };
  for (const std::string &name : symbolOrder_) {
    SymbolInfo &s = symbols_[name];
    // Constants defined with .set/.equ are symbols of the object, local unless declared global
    // (as GNU as keeps them): ipu-cc's NAME.stack_size_own of a static function is one, which
    // ipu-ld reads to size a stack across objects.
    if (!s.defined && s.isEqu && (s.global || !isTemp(name))) {
      auto v = [&]() -> std::optional<ExprValue> {
        try {
          return tryEvaluate(s.equ, s.defLoc, true);
        } catch (const Failure &f) {
          if (s.global) error(f.loc, f.message); // a local constant that is not one is simply not kept
          return std::nullopt;
        }
      }();
      if (v && v->isConstant()) {
        index[name] = uint32_t(obj.symbols.size());
        obj.symbols.push_back({name, kAbsoluteSection, uint32_t(v->constant), 0,
                               s.weak     ? SymbolBinding::Weak
                               : s.global ? SymbolBinding::Global
                                          : SymbolBinding::Local,
                               s.type});
      } else if (v && s.global) {
        error(s.defLoc, "global symbol '" + name + "' must be a constant");
      }
      continue;
    }
    if (!s.defined || isTemp(name)) continue;
    uint32_t size = 0;
    if (s.sizeExpr) {
      try {
        auto v = tryEvaluate(s.sizeExpr, s.sizeLoc, true);
        if (!v || !v->isConstant() || v->constant < 0 || v->constant > UINT32_MAX)
          error(s.sizeLoc, "the size of '" + name + "' must be a non-negative constant");
        else size = uint32_t(v->constant);
      } catch (const Failure &f) {
        error(f.loc, f.message);
      }
    }
    index[name] = uint32_t(obj.symbols.size());
    obj.symbols.push_back({name, s.section, s.offset, size,
                           s.weak ? SymbolBinding::Weak : s.global ? SymbolBinding::Global : SymbolBinding::Local,
                           s.type});
  }
  auto externIndex = [&](const std::string &name) {
    auto it = index.find(name);
    if (it != index.end()) return it->second;
    SymbolInfo &s = symbols_[name];
    index[name] = uint32_t(obj.symbols.size());
    obj.symbols.push_back({name, kUndefinedSection, 0, 0, s.weak ? SymbolBinding::Weak : SymbolBinding::Global,
                           s.type});
    return index[name];
  };
  for (const std::string &name : symbolOrder_) {
    SymbolInfo &s = symbols_[name];
    if (s.global && !s.defined && !s.isEqu) externIndex(name);
  }

  for (const Fixup &f : fixups_) {
    std::optional<ExprValue> v;
    try {
      v = tryEvaluate(f.expr, f.loc, true);
    } catch (const Failure &fl) {
      error(fl.loc, fl.message);
      continue;
    }
    Section &sec = obj.sections[size_t(f.section)];
    uint8_t *p = sec.data.data() + f.offset;
    auto put = [&](uint64_t x, unsigned n) {
      for (unsigned i = 0; i < n; ++i) p[i] = uint8_t(x >> (8 * i));
    };
    uint32_t word = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    if (v->isConstant()) {
      int64_t x = v->constant;
      std::string why;
      switch (f.kind) {
      case FixupKind::Field: {
        if (!operandFits(f.op, x, &why)) {
          error(f.loc, why);
          continue;
        }
        put(word | encodeOperand(f.op, f.op.kind == OperandKind::UpperCsr ? (x & 0xFF) : x), 4);
        break;
      }
      case FixupKind::Low20: put(word | (uint32_t(x) & 0xFFFFF), 4); break;
      case FixupKind::High12: put(word | ((uint32_t(x) >> 20) & 0xFFF), 4); break;
      case FixupKind::Data8:
      case FixupKind::Data16:
      case FixupKind::Data32: {
        unsigned n = f.kind == FixupKind::Data8 ? 1 : f.kind == FixupKind::Data16 ? 2 : 4;
        int64_t lo = -(int64_t(1) << (8 * n - 1)), hi = (int64_t(1) << (8 * n)) - 1;
        if (x < lo || x > hi) {
          error(f.loc, "value " + std::to_string(x) + " does not fit in " + std::to_string(n) + " byte" + (n > 1 ? "s" : ""));
          continue;
        }
        put(uint64_t(x), n);
        break;
      }
      default: {
        // A scaled pointer to a constant address (asm-dialect §3.2).
        unsigned shift = f.kind == FixupKind::ScaledPtr32 ? 2 : f.kind == FixupKind::ScaledPtr64 ? 3 : 4;
        int64_t base = f.kind == FixupKind::ScaledPtr32 ? 0x4C000 : 0; // [F] S6 TMEM_REGION0_BASE_ADDR
        int64_t y = x - base;
        if (y < 0 || (y & ((1 << shift) - 1)) || (y >> shift) > 0xFFFF) {
          error(f.loc, "address " + std::to_string(x) + " cannot be a scaled pointer here");
          continue;
        }
        put(uint64_t(y >> shift), 2);
      }
      }
      continue;
    }
    uint32_t type = R_IPU_NONE;
    switch (f.kind) {
    case FixupKind::Data8: type = R_IPU_8; break;
    case FixupKind::Data16: type = R_IPU_16; break;
    case FixupKind::Data32: type = R_IPU_32; break;
    case FixupKind::ScaledPtr32: type = R_IPU_SCALED_PTR32; break;
    case FixupKind::ScaledPtr64: type = R_IPU_SCALED_PTR64; break;
    case FixupKind::ScaledPtr128: type = R_IPU_SCALED_PTR128; break;
    case FixupKind::Low20: type = R_IPU_LOW20; break;
    case FixupKind::High12: type = R_IPU_HIGH12; break;
    case FixupKind::Field:
      if (f.op.lo != 0) break;
      if (f.op.kind == OperandKind::Target) type = f.op.width == 19 ? R_IPU_TARGET19 : R_IPU_TARGET20;
      else if (f.op.kind == OperandKind::HighImm) type = R_IPU_HIGH12;
      else if (f.op.kind == OperandKind::UImm && f.op.width == 20) type = R_IPU_ZIMM20;
      else if (f.op.kind == OperandKind::UImm && f.op.width == 16) type = R_IPU_ZIMM16;
      else if (f.op.kind == OperandKind::SImm && f.op.width == 16) type = R_IPU_SIMM16;
      else if (f.op.kind == OperandKind::UImm && f.op.width == 12) type = R_IPU_ZIMM12;
      break;
    }
    std::string what = v->external.empty() ? "an address in '" + obj.sections[size_t(v->section)].name + "'"
                                            : "symbol '" + v->external + "'";
    if (type == R_IPU_NONE) {
      error(f.loc, "this operand must be a constant, but it refers to " + what);
      continue;
    }
    if (v->constant < INT32_MIN || v->constant > INT32_MAX) {
      error(f.loc, "offset from " + what + " is too large");
      continue;
    }
    uint32_t sym = v->external.empty() ? uint32_t(v->section) : externIndex(v->external);
    sec.relocs.push_back({f.offset, type, sym, int32_t(v->constant)});
  }
  for (Section &s : obj.sections)
    std::stable_sort(s.relocs.begin(), s.relocs.end(),
                     [](const Relocation &a, const Relocation &b) { return a.offset < b.offset; });
  // rpt checks read the final words.
  for (size_t i = 0; i < sections_.size(); ++i) sections_[i].sec.data = obj.sections[i].data;
  if (errors_.empty()) checkRepeats(); // after a failed fixup the words are not final
  for (size_t si = 0; si < sections_.size(); ++si)
    for (const InsnRecord &r : sections_[si].insns)
      obj.lines.push_back({uint32_t(si), r.offset, r.loc.file, r.loc.line, uint16_t(std::min<uint32_t>(r.loc.col, 0xFFFF)),
                           uint8_t((r.supervisor ? kLineSupervisor : 0) | (r.count == 2 ? kLineBundle : 0))});
  return obj;
}

} // namespace

ObjectFile assembleText(const std::string &text, const std::string &name) {
  Assembler a(name);
  return a.run(text);
}

} // namespace ipusim::cc
