#include "ipusim/cc/VertexLayout.h"

#include <nlohmann/json.hpp>

namespace ipusim::cc {

std::string vertexLayoutsToJson(const std::vector<VertexLayout> &vertices) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const VertexLayout &v : vertices) {
    nlohmann::ordered_json fields = nlohmann::ordered_json::array();
    for (const VertexField &f : v.fields)
      fields.push_back({{"name", f.name}, {"offset", f.offset}, {"size", f.size}, {"kind", f.kind}, {"layout", f.layout},
                        {"elementType", f.elementType}, {"innerLayout", f.innerLayout}, {"innerKind", f.innerKind}, {"elementAlign", f.elementAlign},
                        {"interleaved", f.interleaved}});
    nlohmann::ordered_json vj = {{"class", v.className}, {"entry", v.entrySymbol}, {"vertexKind", v.vertexKind},
                                 {"external", v.external}, {"size", v.size}, {"align", v.align}, {"fields", fields}};
    if (!v.elemApart.empty()) {
      nlohmann::ordered_json apart = nlohmann::ordered_json::array();
      for (const auto &[a, b] : v.elemApart) apart.push_back({a, b});
      vj["elemApart"] = apart;
    }
    j.push_back(vj);
  }
  return j.dump(2) + "\n";
}

std::vector<VertexLayout> readVertexLayouts(const ObjectFile &object) {
  std::vector<VertexLayout> out;
  int s = object.findSection(".ipu.vertices");
  if (s < 0) return out;
  const Section &sec = object.sections[size_t(s)];
  nlohmann::json j = nlohmann::json::parse(std::string(sec.data.begin(), sec.data.end()), nullptr, false);
  if (!j.is_array()) throw std::runtime_error("error: malformed .ipu.vertices section");
  try {
    for (const auto &v : j) {
      VertexLayout l;
      l.className = v.value("class", "");
      l.entrySymbol = v.value("entry", "");
      l.vertexKind = v.value("vertexKind", "");
      l.external = v.value("external", false);
      l.size = v.value("size", 0u);
      l.align = v.value("align", 1u);
      for (const auto &f : v.at("fields")) {
        VertexField vf;
        vf.name = f.value("name", "");
        vf.offset = f.value("offset", 0u);
        vf.size = f.value("size", 0u);
        vf.kind = f.value("kind", "");
        vf.layout = f.value("layout", "");
        vf.elementType = f.value("elementType", "");
        vf.innerLayout = f.value("innerLayout", "");
        vf.innerKind = f.value("innerKind", "");
        vf.elementAlign = f.value("elementAlign", 0u);
        vf.interleaved = f.value("interleaved", false);
        l.fields.push_back(vf);
      }
      if (v.contains("elemApart"))
        for (const auto &pair : v.at("elemApart"))
          l.elemApart.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
      out.push_back(l);
    }
  } catch (const nlohmann::json::exception &) {
    // Any other shape than ipu-cc writes (not objects, wrong types): one error, not a json one.
    throw std::runtime_error("error: malformed .ipu.vertices section");
  }
  return out;
}

namespace {
void put32(std::vector<uint8_t> &s, uint32_t at, uint32_t v) {
  for (int b = 0; b < 4; ++b) s[at + unsigned(b)] = uint8_t(v >> (8 * b));
}
void put16(std::vector<uint8_t> &s, uint32_t at, uint32_t v) {
  s[at] = uint8_t(v);
  s[at + 1] = uint8_t(v >> 8);
}
} // namespace

void writeVectorDescriptor(std::vector<uint8_t> &out, uint32_t at, const std::string &layout, uint32_t addr,
                           uint64_t count, uint32_t memoryBase) {
  const uint32_t bytes = layout == "SPAN" ? 8 : layout.rfind("SCALED_PTR", 0) == 0 ? 2 : 4;
  if (out.size() < size_t(at) + bytes) throw std::invalid_argument("the descriptor does not fit the vertex state");
  if (layout == "PTR" || layout == "ONE_PTR") put32(out, at, addr);
  else if (layout == "SPAN") {
    put32(out, at, addr);
    put32(out, at + 4, uint32_t(count));
  } else if (layout == "SHORT_SPAN") {
    if (count > 0xFFF) throw std::invalid_argument("SHORT_SPAN holds at most 4095 elements");
    put32(out, at, (addr & 0xFFFFF) | uint32_t(count) << 20);
  } else if (layout == "SCALED_PTR32") {
    if (addr % 4 || addr < memoryBase || ((addr - memoryBase) >> 2) > 0xFFFF)
      throw std::invalid_argument("address not reachable as SCALED_PTR32");
    put16(out, at, (addr - memoryBase) >> 2);
  } else if (layout == "SCALED_PTR64") {
    if (addr % 8 || (addr >> 3) > 0xFFFF) throw std::invalid_argument("address not reachable as SCALED_PTR64");
    put16(out, at, addr >> 3);
  } else if (layout == "SCALED_PTR128") {
    if (addr % 16 || (addr >> 4) > 0xFFFF) throw std::invalid_argument("address not reachable as SCALED_PTR128");
    put16(out, at, addr >> 4);
  } else {
    throw std::invalid_argument("the vector layout " + layout + " is not supported here");
  }
}

unsigned elementTypeBytes(const std::string &t) {
  if (t == "float" || t == "int" || t == "unsigned int" || t == "unsigned" || t == "signed int") return 4;
  if (t == "half" || t == "short" || t == "unsigned short" || t == "signed short" || t == "short int" ||
      t == "unsigned short int")
    return 2;
  if (t == "char" || t == "signed char" || t == "unsigned char" || t == "bool") return 1;
  if (t == "long long" || t == "unsigned long long" || t == "long long int" || t == "unsigned long long int") return 8;
  return 0;
}

} // namespace ipusim::cc
