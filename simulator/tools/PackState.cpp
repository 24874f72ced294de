#include "PackState.h"
#include "CliChecks.h"

#include "ipusim/arch/Config.h"
#include "ipusim/arch/Files.h"
#include "ipusim/arch/ToolError.h"
#include "ipusim/cc/Object.h"
#include "ipusim/cc/VertexLayout.h"

#include "ipusim/arch/Half.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

namespace ipusim::tools {

namespace {

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A number as the user wrote it for a value of `type` (an integer type, float or half): its bytes.
std::vector<uint8_t> valueBytes(const std::string &text, const std::string &type, const std::string &what) {
  const unsigned size = cc::elementTypeBytes(type);
  std::vector<uint8_t> out(size ? size : 4, 0);
  if (type == "float" || type == "half") {
    char *end = nullptr;
    const float f = std::strtof(text.c_str(), &end);
    if (text.empty() || *end) throw BadInput("ipusim pack-state: error: " + what + ": '" + text + "' is not a number");
    if (type == "float") std::memcpy(out.data(), &f, 4);
    else {
      const uint16_t h = arch::floatToHalf(f); // round to nearest even, as the tile converts
      std::memcpy(out.data(), &h, 2);
    }
    return out;
  }
  if (!size) throw BadInput("ipusim pack-state: error: " + what + ": values of type '" + type + "' are not supported");
  const bool negative = !text.empty() && text[0] == '-';
  uint64_t v = 0;
  const uint64_t max = size == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * size)) - 1;
  if (std::string why = parseNumber(negative ? text.substr(1) : text, max, v); !why.empty())
    throw BadInput("ipusim pack-state: error: " + what + ": " + why);
  if (negative) v = uint64_t(-int64_t(v));
  for (unsigned b = 0; b < size; ++b) out[b] = uint8_t(v >> (8 * b));
  return out;
}

uint32_t address(const std::string &text, const std::string &what) {
  uint64_t v = 0;
  if (std::string why = parseNumber(text, 0xFFFFFFFFu, v); !why.empty())
    throw BadInput("ipusim pack-state: error: " + what + ": the address " + why);
  return uint32_t(v);
}

const cc::VertexLayout &findVertex(const std::vector<cc::VertexLayout> &layouts, const std::string &name,
                                   const std::string &file) {
  for (const cc::VertexLayout &l : layouts)
    if (l.className == name || l.entrySymbol == name) return l;
  std::string known;
  for (const cc::VertexLayout &l : layouts) known += (known.empty() ? "" : ", ") + l.className;
  throw BadInput(file + ": error: no vertex '" + name + "' (it has: " + (known.empty() ? "none" : known) + ")");
}

/// The state of `v` from FIELD=VALUE items.
std::vector<uint8_t> packFields(const cc::VertexLayout &v, const std::vector<std::string> &items, uint32_t memoryBase) {
  std::vector<uint8_t> state(v.size, 0);
  std::map<std::string, std::string> given;
  for (const std::string &item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw BadInput("ipusim pack-state: error: '" + item + "': with --vertex, give FIELD=VALUE");
    if (!given.emplace(item.substr(0, eq), item.substr(eq + 1)).second)
      throw BadInput("ipusim pack-state: error: field '" + item.substr(0, eq) + "' is given twice");
  }
  std::string missing;
  for (const cc::VertexField &f : v.fields) {
    auto it = given.find(f.name);
    if (it == given.end()) {
      missing += (missing.empty() ? "" : ", ") + f.name;
      continue;
    }
    const std::string value = it->second, what = "field '" + f.name + "' (" + f.kind + " " + f.layout + " of " + f.elementType + ")";
    given.erase(it);
    if (f.kind == "Value") {
      const std::vector<uint8_t> b = valueBytes(value, f.elementType, what);
      if (b.size() > f.size) throw BadInput("ipusim pack-state: error: " + what + ": the value does not fit its " + std::to_string(f.size) + " bytes");
      std::copy(b.begin(), b.end(), state.begin() + f.offset);
      continue;
    }
    if (!f.innerLayout.empty() || f.kind == "Vector" || f.kind == "VectorList")
      throw BadInput("ipusim pack-state: error: " + what + ": vectors of vectors and plain vector members are not supported "
                     "(lay them out by hand, or build the vertex with the Poplar API)");
    // An edge: ADDR[:COUNT] or FILE@ADDR (the count is the file's size in elements).
    uint32_t addr = 0;
    uint64_t count = 0;
    if (const size_t at = value.rfind('@'); at != std::string::npos) {
      const std::string file = value.substr(0, at);
      if (const std::string bad = arch::unreadableFile(file, "a data file"); !bad.empty()) throw BadInput(bad);
      const unsigned each = cc::elementTypeBytes(f.elementType);
      if (!each) throw BadInput("ipusim pack-state: error: " + what + ": give ADDR:COUNT (elements of an unknown size)");
      const uint64_t bytes = std::filesystem::file_size(file);
      if (bytes % each)
        throw BadInput("ipusim pack-state: error: " + what + ": " + file + " holds " + std::to_string(bytes) +
                       " bytes, not a whole number of " + std::to_string(each) + "-byte elements");
      addr = address(value.substr(at + 1), what);
      count = bytes / each;
    } else if (const size_t colon = value.find(':'); colon != std::string::npos) {
      addr = address(value.substr(0, colon), what);
      if (std::string why = parseNumber(value.substr(colon + 1), 0xFFFFFFFFu, count); !why.empty())
        throw BadInput("ipusim pack-state: error: " + what + ": the count " + why);
    } else {
      addr = address(value, what);
      if (f.layout == "SPAN" || f.layout == "SHORT_SPAN")
        throw BadInput("ipusim pack-state: error: " + what + ": a " + f.layout + " field needs a count: ADDR:COUNT or FILE@ADDR");
    }
    if (f.elementAlign > 1 && addr % f.elementAlign)
      throw BadInput("ipusim pack-state: error: " + what + ": the data must be " + std::to_string(f.elementAlign) +
                     "-byte aligned, not at " + value);
    try {
      cc::writeVectorDescriptor(state, f.offset, f.layout, addr, count, memoryBase);
    } catch (const std::invalid_argument &e) {
      throw BadInput("ipusim pack-state: error: " + what + ": " + e.what());
    }
  }
  if (!given.empty()) throw BadInput("ipusim pack-state: error: " + v.className + " has no field '" + given.begin()->first + "'");
  if (!missing.empty()) throw BadInput("ipusim pack-state: error: " + v.className + ": no value for " + missing);
  return state;
}

/// Raw words: integers, or floats written with a decimal point or exponent ("2.5", "1e-3").
std::vector<uint8_t> packWords(const std::vector<std::string> &items) {
  std::vector<uint8_t> out;
  for (const std::string &item : items) {
    const bool isFloat = item.find_first_of(".eE") != std::string::npos && item.rfind("0x", 0) != 0;
    const std::vector<uint8_t> b = valueBytes(item, isFloat ? "float" : item[0] == '-' ? "int" : "unsigned int", "'" + item + "'");
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

} // namespace

int packState(const PackStateOptions &o) {
  try {
    std::vector<uint8_t> state;
    if (o.layout.empty() != o.vertex.empty())
      throw BadInput("ipusim pack-state: error: give --layout and --vertex together (or neither, for raw words)");
    if (!o.layout.empty()) {
      const cc::ObjectFile obj = cc::readElfFile(o.layout);
      std::vector<cc::VertexLayout> layouts;
      try {
        layouts = cc::readVertexLayouts(obj);
      } catch (const std::exception &e) {
        throw BadInput(o.layout + ": error: its vertex layouts are malformed");
      }
      if (layouts.empty())
        throw BadInput(o.layout + ": error: no vertex layouts (an object or image from ipu-cc has them; assembly "
                                  "vertices do not: give their state as raw words)");
      const arch::SystemConfig cfg = arch::loadNamedConfig(o.config);
      state = packFields(findVertex(layouts, o.vertex, o.layout), o.items, cfg.tile.memoryBase);
    } else {
      state = packWords(o.items);
    }
    std::ofstream out(o.output, std::ios::binary);
    out.write(reinterpret_cast<const char *>(state.data()), std::streamsize(state.size()));
    if (!out) throw BadInput(o.output + ": error: cannot write file");
    return 0;
  } catch (const std::exception &e) {
    arch::printToolError("ipusim pack-state", e.what());
    return 1;
  }
}

} // namespace ipusim::tools
