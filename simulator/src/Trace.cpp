// The canonical trace format (docs/trace-format.md): writing events and headers, and a strict
// reader. The reader rejects anything the writer would not produce, naming the file, line and
// column, so a golden trace edited by hand cannot silently drift from the format.
#include <cctype>
#include "ipusim/sim/Trace.h"

#include "ipusim/arch/Files.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <istream>

namespace ipusim::sim {

namespace {

std::string hexByte(unsigned char b) {
  const char *digits = "0123456789ABCDEF";
  return std::string{digits[b >> 4], digits[b & 15]};
}

/// The characters of a bare (unquoted) value: letters, digits and `._:+-/`.
bool isBareChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == ':' || c == '+' || c == '-' || c == '/';
}

/// Keys are [a-z_][a-z0-9_]*: the format's `m0` needs the digit.
bool isKeyChar(char c, bool first) { return (c >= 'a' && c <= 'z') || c == '_' || (!first && c >= '0' && c <= '9'); }

bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

/// A character for an error message: itself if printable, else `\xNN`.
std::string showChar(char c) {
  if (c >= 0x20 && c < 0x7f) return std::string(1, c);
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(static_cast<unsigned char>(c)));
  return buf;
}

/// Parses one line of a trace, throwing TraceError at the column of the offending token.
class LineParser {
public:
  LineParser(const std::string &file, unsigned line, const std::string &text)
      : file_(file), line_(line), text_(text) {}

  [[noreturn]] void fail(size_t pos, const std::string &what) const {
    throw TraceError(file_ + ":" + std::to_string(line_) + ":" + std::to_string(pos + 1) + ": error: " + what);
  }
  size_t pos() const { return pos_; }
  size_t size() const { return text_.size(); }
  bool atEnd() const { return pos_ == text_.size(); }

  /// The text up to the next space or the end of the line.
  std::string token() {
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ' ') ++pos_;
    return text_.substr(start, pos_ - start);
  }

  /// After a token: true if another one follows one space; false at the end of the line. The
  /// format separates fields by exactly one space, so two spaces or a trailing one are errors.
  bool next() {
    if (atEnd()) return false;
    ++pos_; // the space
    if (atEnd()) fail(pos_ - 1, "trailing space at the end of the line");
    if (text_[pos_] == ' ') fail(pos_, "expected one space between fields, found two");
    return true;
  }

  /// A name (event or WHERE): a non-empty bare token. `what` names it in messages.
  std::string name(const char *what) {
    size_t start = pos_;
    std::string t = token();
    if (t.find('=') != std::string::npos) fail(start, std::string("expected ") + what + ", got the field '" + t + "'");
    for (size_t i = 0; i < t.size(); ++i)
      if (!isBareChar(t[i])) fail(start + i, "invalid character '" + showChar(t[i]) + "' in " + what);
    return t;
  }

  /// One KEY=VALUE field; `keyPos`/`valuePos` are where the key and the value begin.
  std::pair<std::string, std::string> field(size_t &keyPos, size_t &valuePos) {
    keyPos = pos_;
    while (pos_ < text_.size() && isKeyChar(text_[pos_], pos_ == keyPos)) ++pos_;
    std::string key = text_.substr(keyPos, pos_ - keyPos);
    if (atEnd() || text_[pos_] == ' ') {
      fail(keyPos, "expected KEY=VALUE, got '" + key + "'");
    } else if (text_[pos_] != '=') {
      fail(pos_, "invalid character '" + showChar(text_[pos_]) + "' in a key (keys are [a-z_][a-z0-9_]*)");
    } else if (key.empty()) {
      fail(keyPos, "expected a key before '='");
    }
    ++pos_; // '='
    valuePos = pos_;
    std::string value;
    if (pos_ < text_.size() && text_[pos_] == '"') {
      // Quoted: `\"`, `\\` and `\xNN` (any byte that is not printable ASCII) are the escapes.
      for (++pos_;; ++pos_) {
        if (atEnd()) fail(valuePos, "unterminated quoted value of '" + key + "'");
        char c = text_[pos_];
        if (c == '"') break;
        if (c == '\\') {
          if (pos_ + 1 < text_.size() && (text_[pos_ + 1] == '"' || text_[pos_ + 1] == '\\')) {
            value += text_[++pos_];
            continue;
          }
          if (pos_ + 3 < text_.size() && text_[pos_ + 1] == 'x' && std::isxdigit(static_cast<unsigned char>(text_[pos_ + 2])) &&
              std::isxdigit(static_cast<unsigned char>(text_[pos_ + 3]))) {
            value += char(std::stoi(text_.substr(pos_ + 2, 2), nullptr, 16));
            pos_ += 3;
            continue;
          }
          fail(pos_, "invalid escape in a quoted value (the escapes are \\\", \\\\ and \\xNN)");
        }
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E)
          fail(pos_, "byte 0x" + hexByte(static_cast<unsigned char>(c)) +
                         " in a quoted value: traces are printable ASCII (write the byte as \\x" +
                         hexByte(static_cast<unsigned char>(c)) + ")");
        value += c;
      }
      ++pos_; // the closing quote
      if (!atEnd() && text_[pos_] != ' ') fail(pos_, "expected a space after the quoted value of '" + key + "'");
    } else {
      value = token();
      if (value.empty()) fail(valuePos, "empty value of '" + key + "' (an empty value is written \"\")");
      for (size_t i = 0; i < value.size(); ++i)
        if (!isBareChar(value[i]))
          fail(valuePos + i, "invalid character '" + showChar(value[i]) + "' in the value of '" + key +
                                 "' (quote values other than letters, digits and ._:+-/)");
    }
    return {std::move(key), std::move(value)};
  }

  /// The remaining fields of the line, rejecting a key given twice.
  std::vector<std::pair<std::string, std::string>> fields(std::vector<size_t> *valuePositions = nullptr) {
    std::vector<std::pair<std::string, std::string>> out;
    while (next()) {
      size_t keyPos, valuePos;
      auto f = field(keyPos, valuePos);
      for (const auto &g : out)
        if (g.first == f.first) fail(keyPos, "duplicate key '" + f.first + "'");
      out.push_back(std::move(f));
      if (valuePositions) valuePositions->push_back(valuePos);
    }
    return out;
  }

private:
  const std::string &file_;
  unsigned line_;
  const std::string &text_;
  size_t pos_ = 0;
};

/// A decimal number without sign, or false (also on overflow).
bool parseUnsigned(const std::string &s, uint64_t &out) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

void parseConfig(LineParser &p, TraceHeader &h) {
  size_t start = p.pos();
  if (p.token() != "config")
    p.fail(start, "expected the config line 'config name=... clock_hz=... ipus=... tiles=...'");
  std::vector<size_t> positions;
  auto fields = p.fields(&positions);
  bool seen[4] = {};
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto &[key, value] = fields[i];
    if (key == "name") {
      if (value.empty()) p.fail(positions[i], "empty config name");
      h.config = value;
      seen[0] = true;
    } else if (key == "clock_hz") {
      // Only plain decimal numbers: from_chars alone would also take "inf" and "nan".
      double hz = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), hz);
      bool ok = ec == std::errc() && end == value.data() + value.size() && std::isfinite(hz) && hz > 0 &&
                value.find_first_not_of("0123456789.eE+-") == std::string::npos;
      if (!ok) p.fail(positions[i], "clock_hz must be a positive number of Hz, got '" + value + "'");
      h.clockHz = hz;
      seen[1] = true;
    } else if (key == "ipus" || key == "tiles") {
      uint64_t n = 0;
      if (!parseUnsigned(value, n) || n == 0 || n > 0xFFFFFFFFu)
        p.fail(positions[i], key + " must be a positive whole number, got '" + value + "'");
      (key == "ipus" ? h.ipus : h.tiles) = unsigned(n);
      seen[key == "ipus" ? 2 : 3] = true;
    }
    // Other keys: later versions may add them; readers ignore fields they do not know.
  }
  const char *names[4] = {"name", "clock_hz", "ipus", "tiles"};
  for (int i = 0; i < 4; ++i)
    if (!seen[i]) p.fail(p.size(), std::string("the config line has no '") + names[i] + "'");
}

TraceEvent parseEvent(LineParser &p) {
  TraceEvent e;
  std::string cycle = p.token();
  if (cycle.empty()) p.fail(0, "expected a cycle number at the start of the line");
  if (!parseUnsigned(cycle, e.cycle)) {
    if (cycle.find_first_not_of("0123456789") == std::string::npos) p.fail(0, "cycle '" + cycle + "' is too large");
    p.fail(0, "expected a cycle number, got '" + cycle + "'");
  }
  if (!p.next()) p.fail(p.size(), "expected an event name after the cycle");
  e.event = p.name("an event name");
  if (!p.next()) p.fail(p.size(), "expected WHERE (the part the event happened in) after the event name");
  e.where = p.name("WHERE");
  e.fields = p.fields();
  return e;
}

} // namespace

const std::string *TraceEvent::field(const std::string &key) const {
  for (const auto &[k, v] : fields)
    if (k == key) return &v;
  return nullptr;
}

TraceEvent &TraceEvent::addHex(std::string key, uint32_t value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", value);
  return add(std::move(key), std::string(buf));
}

bool isCycleField(const std::string &key) { return endsWith(key, "cycle") || endsWith(key, "cycles"); }

std::string formatTraceValue(const std::string &value) {
  bool bare = !value.empty();
  for (char c : value) bare = bare && isBareChar(c);
  if (bare) return value;
  std::string out = "\"";
  for (char c : value) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7E) { // e.g. a symbol name with byte 0xFF: traces stay ASCII
      out += "\\x" + hexByte(u);
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string formatTraceEvent(const TraceEvent &e) {
  std::string out = std::to_string(e.cycle) + " " + e.event + " " + e.where;
  for (const auto &[k, v] : e.fields) out += " " + k + "=" + formatTraceValue(v);
  return out;
}

std::string formatTraceHeader(const TraceHeader &h) {
  // The shortest decimal that reads back to the same double, never in exponent form, so a whole
  // clock such as 1325000000 is written as it is in the machine config.
  char hz[400];
  auto [end, ec] = std::to_chars(hz, hz + sizeof hz, h.clockHz, std::chars_format::fixed);
  if (ec != std::errc()) end = hz + std::snprintf(hz, sizeof hz, "%.17g", h.clockHz);
  return "ipusim-trace 1\nconfig name=" + formatTraceValue(h.config) + " clock_hz=" + std::string(hz, end) +
         " ipus=" + std::to_string(h.ipus) + " tiles=" + std::to_string(h.tiles) + "\n";
}

TraceFile readTrace(std::istream &in, const std::string &name) {
  TraceFile t;
  std::string text;
  unsigned line = 0;
  // Line 1: the magic and version.
  bool any = bool(std::getline(in, text));
  line = 1;
  if (!any || text != "ipusim-trace 1") {
    LineParser p(name, line, text);
    if (any && text.rfind("ipusim-trace ", 0) == 0)
      p.fail(13, "unsupported trace format version '" + text.substr(13) + "' (this reader knows version 1)");
    p.fail(0, "not an ipusim trace: the first line must be 'ipusim-trace 1'");
  }
  // Line 2: the config line.
  line = 2;
  if (!std::getline(in, text)) text.clear();
  {
    LineParser p(name, line, text);
    if (text.empty()) p.fail(0, "expected the config line 'config name=... clock_hz=... ipus=... tiles=...'");
    parseConfig(p, t.header);
  }
  // The events, in cycle order.
  while (std::getline(in, text)) {
    ++line;
    if (text.empty() || text[0] == '#') continue;
    LineParser p(name, line, text);
    TraceEvent e = parseEvent(p);
    if (!t.events.empty() && e.cycle < t.events.back().cycle)
      p.fail(0, "cycle " + std::to_string(e.cycle) + " is before the previous event's cycle " +
                    std::to_string(t.events.back().cycle) + " (line " + std::to_string(t.lines.back()) +
                    "): events must be in cycle order");
    t.events.push_back(std::move(e));
    t.lines.push_back(line);
  }
  return t;
}

TraceFile readTrace(const std::string &path) {
  if (const std::string bad = arch::unreadableFile(path, "a trace"); !bad.empty()) throw TraceError(bad);
  std::ifstream in(path);
  if (!in) throw TraceError(path + ": error: cannot open the trace (" + std::strerror(errno) + ")");
  return readTrace(in, path);
}

} // namespace ipusim::sim
