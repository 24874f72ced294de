// Element types of graph tensors, as Poplar names them (FLOAT, HALF, INT ...), with their sizes on
// the IPU. The public poplar::Type is a handle to one of these.
#pragma once

#include <cstdint>
#include <string>

namespace ipusim::gc {

enum class TypeId : uint8_t {
  Bool, Char, UnsignedChar, SignedChar, Short, UnsignedShort, Int, UnsignedInt, Long, UnsignedLong,
  LongLong, UnsignedLongLong, Half, Float, Quarter, Count
};

struct TypeInfo {
  const char *name;      ///< as Poplar prints it and as codelet templates spell it ("float", "unsigned int")
  unsigned size;         ///< bytes on the IPU (long is 4: the tile is a 32-bit machine)
  bool isFloat, isSigned;
};

const TypeInfo &typeInfo(TypeId t);
inline unsigned typeSize(TypeId t) { return typeInfo(t).size; }
inline const char *typeName(TypeId t) { return typeInfo(t).name; }
/// The type whose C++ spelling is `name` ("float", "unsigned int", "half" ...), or TypeId::Count.
TypeId typeFromName(const std::string &name);

/// IEEE binary16 <-> binary32, round to nearest even (the host side of HALF tensors).
uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);

} // namespace ipusim::gc
