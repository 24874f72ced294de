#include "Internal.h"

#include "ipusim/gc/Types.h"

#include <poplar/OptionFlags.hpp>
#include <poplar/TargetType.hpp>
#include <poplar/exceptions.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace poplar {

using ipusim::gc::TypeId;

Type BOOL{int(TypeId::Bool)}, CHAR{int(TypeId::Char)}, UNSIGNED_CHAR{int(TypeId::UnsignedChar)},
    SIGNED_CHAR{int(TypeId::SignedChar)}, UNSIGNED_SHORT{int(TypeId::UnsignedShort)}, SHORT{int(TypeId::Short)},
    UNSIGNED_INT{int(TypeId::UnsignedInt)}, INT{int(TypeId::Int)}, UNSIGNED_LONG{int(TypeId::UnsignedLong)},
    LONG{int(TypeId::Long)}, UNSIGNED_LONGLONG{int(TypeId::UnsignedLongLong)}, LONGLONG{int(TypeId::LongLong)},
    HALF{int(TypeId::Half)}, FLOAT{int(TypeId::Float)}, QUARTER{int(TypeId::Quarter)};

StringRef Type::toString() const {
  if (id_ < 0 || id_ >= int(TypeId::Count)) return StringRef("<invalid type>");
  return StringRef(ipusim::gc::typeName(TypeId(id_)));
}

bool Type::isFloatingPoint() const { return id_ >= 0 && id_ < int(TypeId::Count) && ipusim::gc::typeInfo(TypeId(id_)).isFloat; }

std::string toString(TargetType t) {
  switch (t) {
  case TargetType::IPU: return "IPU";
  case TargetType::IPU_MODEL: return "IPU_MODEL";
  case TargetType::CPU: return "CPU";
  }
  throw poplar_error("toString: not a TargetType");
}

StringRef OptionFlags::at(StringRef option) const {
  const std::string *v = find(option);
  if (!v) throw invalid_option("option '" + option.cloneAsString() + "' is not set");
  return StringRef(*v);
}

void readJSON(StringRef string, OptionFlags &flags) {
  nlohmann::json j = nlohmann::json::parse(string.cloneAsString(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw parse_error("readJSON: not a JSON object of option names and values: " + string.cloneAsString());
  for (auto &[k, v] : j.items()) flags.set(k, v.is_string() ? v.get<std::string>() : v.dump());
}

void readJSON(std::istream &stream, OptionFlags &flags) {
  std::stringstream ss;
  ss << stream.rdbuf();
  readJSON(StringRef(ss.str()), flags);
}

void readJSONFromEnv(StringRef envVarName, OptionFlags &flags) {
  if (const char *v = std::getenv(envVarName.cloneAsString().c_str()); v && *v) readJSON(StringRef(v), flags);
}

namespace core {

TypeId typeId(const Type &t) {
  if (t.id() < 0 || t.id() >= int(TypeId::Count)) throw type_error("not a valid poplar::Type");
  if (TypeId(t.id()) == TypeId::Quarter) throw type_error("QUARTER (fp8) tensors are not supported by ipusim (an ipu21 type)");
  return TypeId(t.id());
}

Type typeOf(TypeId t) { return Type(int(t)); }

std::vector<uint8_t> toDevice(TypeId type, const void *data, const TypeTraits &traits, size_t n) {
  const unsigned size = ipusim::gc::typeSize(type);
  const ipusim::gc::TypeInfo &info = ipusim::gc::typeInfo(type);
  std::vector<uint8_t> out(n * size);
  const uint8_t *p = static_cast<const uint8_t *>(data);
  for (size_t i = 0; i < n; ++i, p += traits.size) {
    // Read the host value exactly (integers as 64-bit, floats as double).
    long double v = 0;
    int64_t iv = 0;
    uint64_t uv = 0;
    if (traits.isFloat) {
      if (traits.size == 4) { float f; std::memcpy(&f, p, 4); v = f; }
      else if (traits.size == 8) { double d; std::memcpy(&d, p, 8); v = d; }
      else { long double d; std::memcpy(&d, p, sizeof d); v = d; }
      iv = int64_t(v);
      uv = uint64_t(iv);
    } else {
      uint64_t raw = 0;
      std::memcpy(&raw, p, traits.size);
      if (traits.isSigned && traits.size < 8) {
        const unsigned shift = 64 - 8 * unsigned(traits.size);
        iv = int64_t(raw << shift) >> shift;
      } else {
        iv = int64_t(raw);
      }
      uv = traits.isSigned ? uint64_t(iv) : raw;
      v = traits.isSigned ? (long double)iv : (long double)raw;
    }
    uint8_t *o = out.data() + i * size;
    if (type == TypeId::Float) {
      float f = float(v);
      std::memcpy(o, &f, 4);
    } else if (type == TypeId::Half) {
      uint16_t h = ipusim::gc::floatToHalf(float(v));
      std::memcpy(o, &h, 2);
    } else if (type == TypeId::Bool) {
      o[0] = traits.isFloat ? v != 0 : uv != 0;
    } else {
      (void)info;
      const uint64_t bits = traits.isFloat ? uint64_t(iv) : uv;
      std::memcpy(o, &bits, size); // little-endian truncation, as C++ converts integers
    }
  }
  return out;
}

} // namespace core

} // namespace poplar
