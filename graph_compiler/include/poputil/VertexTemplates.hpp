// ipusim's Poplar SDK: poputil::templateVertex, the name of a templated vertex class:
// templateVertex("Foo", FLOAT, 2, true) == "Foo<float,2,true>".
#ifndef IPUSIM_POPUTIL_VERTEXTEMPLATES_HPP
#define IPUSIM_POPUTIL_VERTEXTEMPLATES_HPP

#include <poplar/Type.hpp>

#include <string>
#include <type_traits>

namespace poputil {

template <typename T, typename Enable = void> struct VertexTemplateToString {
  static std::string to_string(const T &x) { return std::to_string(x); }
};
template <> struct VertexTemplateToString<poplar::Type> {
  static std::string to_string(const poplar::Type &t) { return t.toString().cloneAsString(); }
};
template <> struct VertexTemplateToString<bool> {
  static std::string to_string(const bool &b) { return b ? "true" : "false"; }
};
template <> struct VertexTemplateToString<std::string> {
  static std::string to_string(const std::string &s) { return s; }
};
template <> struct VertexTemplateToString<const char *> {
  static std::string to_string(const char *const &s) { return s; }
};
template <> struct VertexTemplateToString<char *> {
  static std::string to_string(char *const &s) { return s; }
};
template <> struct VertexTemplateToString<poplar::StringRef> {
  static std::string to_string(const poplar::StringRef &s) { return s.cloneAsString(); }
};
template <std::size_t N> struct VertexTemplateToString<char[N]> {
  static std::string to_string(const char (&s)[N]) { return s; }
};

namespace detail {
inline std::string joinTemplateArgs() { return ""; }
template <typename T> std::string joinTemplateArgs(const T &x) {
  return VertexTemplateToString<typename std::decay<T>::type>::to_string(x);
}
template <typename T, typename... Rest> std::string joinTemplateArgs(const T &x, const Rest &...rest) {
  return joinTemplateArgs(x) + "," + joinTemplateArgs(rest...);
}
} // namespace detail

template <typename... Args> std::string templateVertex(const std::string &name, const Args &...args) {
  return name + "<" + detail::joinTemplateArgs(args...) + ">";
}

} // namespace poputil

#endif
