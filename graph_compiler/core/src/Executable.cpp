// Executable::serialize / deserialize: the compiled program as CBOR (via nlohmann::json), with
// each tile image as the ELF bytes of docs/object-format.md.
#include "ipusim/gc/Compiler.h"

#include <poplar/exceptions.hpp>

#include <nlohmann/json.hpp>

namespace ipusim::gc {

namespace {
constexpr int kFormatVersion = 2; // 2: remote buffers
using json = nlohmann::json;

json usageToJson(const TileMemoryUsage &u) {
  return json{{"vertexCode", u.vertexCode}, {"controlCode", u.controlCode}, {"variables", u.variables},
              {"notAlwaysLive", u.notAlwaysLive},
              {"constants", u.constants},   {"vertexState", u.vertexState}, {"vertexData", u.vertexData},
              {"copyDescriptors", u.copyDescriptors}, {"temporaries", u.temporaries}, {"stack", u.stack},
              {"controlData", u.controlData}, {"used", u.used}, {"interleaved", u.interleaved}, {"extent", u.extent}, {"byVertexType", u.byVertexType}};
}
TileMemoryUsage usageFromJson(const json &j) {
  TileMemoryUsage u;
  u.vertexCode = j.at("vertexCode");
  u.controlCode = j.at("controlCode");
  u.variables = j.at("variables");
  u.notAlwaysLive = j.value("notAlwaysLive", uint64_t(0));
  u.constants = j.at("constants");
  u.vertexState = j.at("vertexState");
  u.vertexData = j.at("vertexData");
  u.copyDescriptors = j.at("copyDescriptors");
  u.temporaries = j.at("temporaries");
  u.stack = j.at("stack");
  u.controlData = j.at("controlData");
  u.used = j.at("used");
  u.interleaved = j.value("interleaved", uint64_t(0));
  u.extent = j.at("extent");
  u.byVertexType = j.at("byVertexType").get<std::map<std::string, uint64_t>>();
  return u;
}
} // namespace

std::vector<uint8_t> Executable::serialize() const {
  json j;
  j["format"] = "ipusim-executable";
  j["version"] = kFormatVersion;
  j["config"] = configName;
  j["numIpus"] = numIpus;
  j["tilesPerIpu"] = tilesPerIpu;
  j["numPrograms"] = numPrograms;
  j["hostWritePrograms"] = hostWritePrograms;
  j["hostReadPrograms"] = hostReadPrograms;
  for (const Stream &s : streams)
    j["streams"].push_back({s.handle, int(s.type), s.elements, s.toDevice, s.hostHandle});
  for (const RemoteBufferInfo &r : remoteBuffers)
    j["remoteBuffers"].push_back({r.handle, int(r.type), r.elements, r.repeats, r.rearrangeOnHost, r.optimisedForMemory});
  auto transfers = [](const std::vector<HostTransfer> &ts) {
    json p = json::array();
    for (const HostTransfer &t : ts) p.push_back({t.tile, t.addr, t.bytes, t.offset});
    return p;
  };
  for (const HostStep &h : hostSteps)
    j["hostSteps"].push_back({{"kind", int(h.kind)}, {"stream", h.stream}, {"bytes", h.bytes}, {"pieces", transfers(h.pieces)},
                              {"offsets", transfers(h.offsets)}, {"signedOffsets", h.signedOffsets}});
  for (const PrintStep &p : prints) j["prints"].push_back({p.title, int(p.type), p.shape});
  for (const StepInfo &s : steps) j["steps"].push_back({s.type, s.name, s.bytes, s.tiles});
  j["graph"] = {numVertices, numEdges, numVariables, numComputeSets};
  j["vertexTypes"] = vertexTypes;
  for (const TileProgram &t : tiles) {
    json tj;
    tj["tile"] = t.tile;
    tj["image"] = json::binary(cc::writeElf(t.image));
    tj["entries"] = t.entries;
    for (auto &[a, s] : t.syncSteps) tj["syncSteps"].push_back({a, s});
    for (auto &[a, h] : t.hostSyncs) tj["hostSyncs"].push_back({a, h});
    tj["memory"] = usageToJson(t.memory);
    j["tiles"].push_back(std::move(tj));
  }
  return json::to_cbor(j);
}

Executable Executable::deserialize(const std::vector<uint8_t> &bytes) {
  json j = json::from_cbor(bytes, true, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "ipusim-executable")
    throw poplar::poplar_error("Executable::deserialize: the data is not an executable written by ipusim's Executable::serialize");
  if (j.value("version", 0) != kFormatVersion)
    throw poplar::poplar_error("Executable::deserialize: format version " + std::to_string(j.value("version", 0)) +
                               " (this ipusim reads version " + std::to_string(kFormatVersion) + ")");
  try {
    Executable e;
    e.configName = j.at("config");
    e.numIpus = j.at("numIpus");
    e.tilesPerIpu = j.at("tilesPerIpu");
    e.numPrograms = j.at("numPrograms");
    e.hostWritePrograms = j.at("hostWritePrograms").get<std::map<std::string, unsigned>>();
    e.hostReadPrograms = j.at("hostReadPrograms").get<std::map<std::string, unsigned>>();
    for (const json &s : j.value("streams", json::array()))
      e.streams.push_back({s[0], TypeId(int(s[1])), s[2], s[3], s[4]});
    for (const json &r : j.value("remoteBuffers", json::array()))
      e.remoteBuffers.push_back({r[0], TypeId(int(r[1])), r[2], r[3], r[4], r[5]});
    for (const json &h : j.value("hostSteps", json::array())) {
      HostStep hs;
      hs.kind = HostStep::Kind(int(h.at("kind")));
      hs.stream = h.at("stream");
      hs.bytes = h.at("bytes");
      for (const json &p : h.at("pieces")) hs.pieces.push_back({p[0], p[1], p[2], p[3]});
      for (const json &p : h.at("offsets")) hs.offsets.push_back({p[0], p[1], p[2], p[3]});
      hs.signedOffsets = h.at("signedOffsets");
      e.hostSteps.push_back(std::move(hs));
    }
    for (const json &p : j.value("prints", json::array()))
      e.prints.push_back({p[0], TypeId(int(p[1])), p[2].get<std::vector<size_t>>()});
    for (const json &s : j.value("steps", json::array())) e.steps.push_back({s[0], s[1], s[2], s[3]});
    const json &g = j.at("graph");
    e.numVertices = g[0];
    e.numEdges = g[1];
    e.numVariables = g[2];
    e.numComputeSets = g[3];
    e.vertexTypes = j.at("vertexTypes").get<std::map<std::string, uint64_t>>();
    for (const json &tj : j.at("tiles")) {
      TileProgram t;
      t.tile = tj.at("tile");
      t.image = cc::readElf(tj.at("image").get_binary(), "tile " + std::to_string(t.tile));
      t.entries = tj.at("entries").get<std::vector<uint32_t>>();
      for (const json &p : tj.value("syncSteps", json::array())) t.syncSteps[p[0]] = p[1];
      for (const json &p : tj.value("hostSyncs", json::array())) t.hostSyncs[p[0]] = p[1];
      t.memory = usageFromJson(tj.at("memory"));
      e.tiles.push_back(std::move(t));
    }
    return e;
  } catch (const json::exception &x) {
    throw poplar::poplar_error(std::string("Executable::deserialize: malformed executable (") + x.what() + ")");
  } catch (const cc::ObjectError &x) {
    throw poplar::poplar_error(std::string("Executable::deserialize: malformed tile image (") + x.what() + ")");
  }
}

} // namespace ipusim::gc
