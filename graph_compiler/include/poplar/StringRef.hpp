// ipusim's Poplar SDK: poplar::StringRef, a non-owning string view.
#ifndef IPUSIM_POPLAR_STRINGREF_HPP
#define IPUSIM_POPLAR_STRINGREF_HPP

#include <poplar/ArrayRef.hpp>

#include <ostream>
#include <string>

namespace poplar {

struct StringRef : ArrayRef<char> {
  StringRef() : ArrayRef<char>() {}
  StringRef(std::nullptr_t) = delete;
  StringRef(const std::string &s) : ArrayRef<char>(s.data(), s.size()) {}
  StringRef(const char *s) : ArrayRef<char>(s, std::strlen(s)) {}
  StringRef(const char *s, std::size_t n) : ArrayRef<char>(s, n) {}
  std::string cloneAsString() const { return std::string(data(), size()); }
  operator std::string() const { return cloneAsString(); }
};

inline bool operator==(StringRef a, StringRef b) { return a.cloneAsString() == b.cloneAsString(); }
inline bool operator!=(StringRef a, StringRef b) { return !(a == b); }
inline bool operator<(StringRef a, StringRef b) { return a.cloneAsString() < b.cloneAsString(); }
inline std::string operator+(StringRef a, const std::string &b) { return a.cloneAsString() + b; }
inline std::string operator+(const std::string &a, StringRef b) { return a + b.cloneAsString(); }
inline std::string &operator+=(std::string &a, StringRef b) { return a += b.cloneAsString(); }
inline std::ostream &operator<<(std::ostream &os, StringRef s) { return os.write(s.data(), std::streamsize(s.size())); }

} // namespace poplar

#endif
