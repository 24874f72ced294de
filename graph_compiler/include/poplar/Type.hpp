// ipusim's Poplar SDK: poplar::Type, the element types of tensors (FLOAT, HALF, INT ...).
#ifndef IPUSIM_POPLAR_TYPE_HPP
#define IPUSIM_POPLAR_TYPE_HPP

#include <poplar/StringRef.hpp>

#include <cstddef>
#include <ostream>
#include <string>
#include <type_traits>

namespace poplar {

class Type {
public:
  Type() : id_(-1) {}
  /// The C++ spelling ("float", "half", "unsigned int" ...), as codelet templates use it.
  StringRef toString() const;
  bool operator==(const Type &o) const { return id_ == o.id_; }
  bool operator!=(const Type &o) const { return id_ != o.id_; }
  bool operator<(const Type &o) const { return id_ < o.id_; }
  std::size_t hash() const { return std::size_t(id_); }
  bool isFloatingPoint() const;
  bool requiresMetadata() const { return false; }

  // ipusim: the index of the type (internal).
  explicit Type(int id) : id_(id) {}
  int id() const { return id_; }

private:
  int id_;
};

inline std::ostream &operator<<(std::ostream &os, const Type &t) { return os << t.toString(); }

extern Type BOOL, CHAR, UNSIGNED_CHAR, SIGNED_CHAR, UNSIGNED_SHORT, SHORT, UNSIGNED_INT, INT, UNSIGNED_LONG, LONG,
    UNSIGNED_LONGLONG, LONGLONG, HALF, FLOAT, QUARTER;

template <class T> struct equivalent_device_type {};
#define IPUSIM_POPLAR_EQUIV(HOST, DEVICE)                                                                                \
  template <> struct equivalent_device_type<HOST> {                                                                      \
    const Type &value = DEVICE;                                                                                          \
  };
IPUSIM_POPLAR_EQUIV(bool, BOOL)
IPUSIM_POPLAR_EQUIV(char, CHAR)
IPUSIM_POPLAR_EQUIV(unsigned char, UNSIGNED_CHAR)
IPUSIM_POPLAR_EQUIV(signed char, SIGNED_CHAR)
IPUSIM_POPLAR_EQUIV(unsigned short, UNSIGNED_SHORT)
IPUSIM_POPLAR_EQUIV(short, SHORT)
IPUSIM_POPLAR_EQUIV(unsigned, UNSIGNED_INT)
IPUSIM_POPLAR_EQUIV(int, INT)
IPUSIM_POPLAR_EQUIV(unsigned long, UNSIGNED_LONG)
IPUSIM_POPLAR_EQUIV(long, LONG)
IPUSIM_POPLAR_EQUIV(unsigned long long, UNSIGNED_LONGLONG)
IPUSIM_POPLAR_EQUIV(long long, LONGLONG)
IPUSIM_POPLAR_EQUIV(float, FLOAT)
#undef IPUSIM_POPLAR_EQUIV

/// What a host type is: its size and kind, for constants and initial values given as host data.
struct TypeTraits {
  std::size_t size;
  std::size_t align;
  bool isIntegral;
  bool isFloat;
  bool isSigned;
  template <typename T> static TypeTraits make() {
    TypeTraits t;
    t.size = sizeof(T);
    t.align = alignof(T);
    t.isIntegral = std::is_integral<T>::value;
    t.isFloat = std::is_floating_point<T>::value;
    t.isSigned = std::is_signed<T>::value;
    return t;
  }
  template <typename T> static constexpr bool isSimpleType() {
    return std::is_integral<T>::value || std::is_floating_point<T>::value;
  }
  bool isSimpleType() const { return isIntegral || isFloat; }
};

} // namespace poplar

#endif
