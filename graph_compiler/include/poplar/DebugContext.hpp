// ipusim's Poplar SDK: debug names for graph objects and programs.
#ifndef IPUSIM_POPLAR_DEBUGCONTEXT_HPP
#define IPUSIM_POPLAR_DEBUGCONTEXT_HPP

#include <poplar/StringRef.hpp>

#include <cstdint>
#include <string>

namespace poplar {

class SourceLocation {
public:
  SourceLocation() : function_(""), file_(""), line_(0) {}
  SourceLocation(const char *functionName, const char *fileName, unsigned lineNumber)
      : function_(functionName), file_(fileName), line_(lineNumber) {}
  const char *getFunctionName() const { return function_; }
  const char *getFileName() const { return file_; }
  unsigned getLineNumber() const { return line_; }
  bool isValid() const { return line_ != 0; }
  static SourceLocation Current() { return SourceLocation(); }

private:
  const char *function_, *file_;
  unsigned line_;
};

typedef std::uint64_t DebugId;
class DebugContext;

class DebugNameAndId {
public:
  DebugNameAndId(std::string name = "", DebugId id = 0, std::string path = "") : name_(name), id_(id), path_(path) {}
  DebugNameAndId(const char *name) : name_(name), id_(0) {}
  DebugNameAndId(const DebugNameAndId &dnai, StringRef name) : name_(join(dnai.getPathName(), name)), id_(dnai.id_) {}
  DebugNameAndId(const DebugNameAndId &) = default;
  std::string getPathName() const { return path_.empty() ? name_ : join(path_, name_); }
  DebugId getId() const { return id_; }

private:
  static std::string join(const std::string &a, const std::string &b) { return a.empty() ? b : b.empty() ? a : a + "/" + b; }
  std::string name_;
  DebugId id_;
  std::string path_;
};

class DebugContext {
public:
  DebugContext(SourceLocation loc = SourceLocation::Current()) : loc_(loc) {}
  DebugContext(const char *name, SourceLocation loc = SourceLocation::Current()) : name_(name ? name : ""), loc_(loc) {}
  DebugContext(std::string name, SourceLocation loc = SourceLocation::Current()) : name_(name), loc_(loc) {}
  DebugContext(StringRef name, SourceLocation loc = SourceLocation::Current()) : name_(name.cloneAsString()), loc_(loc) {}
  DebugContext(const DebugNameAndId &dnai, std::string name = "", SourceLocation loc = SourceLocation::Current())
      : name_(join(dnai.getPathName(), name)), loc_(loc) {}
  DebugContext(const DebugContext &dc, std::string name, SourceLocation loc = SourceLocation::Current())
      : name_(join(dc.name_, name)), loc_(loc) {}
  DebugContext(const DebugContext &) = default;
  DebugContext(DebugContext &&) = default;
  std::string getPathName() const { return name_; }
  const SourceLocation &getSourceLocation() const { return loc_; }

private:
  static std::string join(const std::string &a, const std::string &b) { return a.empty() ? b : b.empty() ? a : a + "/" + b; }
  std::string name_;
  SourceLocation loc_;
};

} // namespace poplar

#endif
