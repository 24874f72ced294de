#include "ipusim/gc/Graph.h"

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace ipusim::gc {

void TileMap::assign(uint64_t begin, uint64_t end, int tile) {
  if (begin >= end) return;
  // Cut the segments overlapping [begin, end), keep their parts outside it.
  auto it = map_.lower_bound(begin);
  if (it != map_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.first > begin) it = prev;
  }
  std::vector<std::pair<uint64_t, std::pair<uint64_t, int>>> keep;
  while (it != map_.end() && it->first < end) {
    if (it->first < begin) keep.push_back({it->first, {begin, it->second.second}});
    if (it->second.first > end) keep.push_back({end, {it->second.first, it->second.second}});
    it = map_.erase(it);
  }
  for (auto &k : keep) map_.insert(k);
  if (tile < 0) return;
  // Merge with neighbours of the same tile.
  uint64_t b = begin, e = end;
  auto next = map_.lower_bound(end);
  if (next != map_.end() && next->first == end && next->second.second == tile) {
    e = next->second.first;
    map_.erase(next);
  }
  auto at = map_.lower_bound(begin);
  if (at != map_.begin()) {
    auto prev = std::prev(at);
    if (prev->second.first == begin && prev->second.second == tile) {
      b = prev->first;
      map_.erase(prev);
    }
  }
  map_[b] = {e, tile};
}

std::vector<TileMap::Segment> TileMap::segments(uint64_t begin, uint64_t end) const {
  std::vector<Segment> out;
  uint64_t at = begin;
  auto it = map_.upper_bound(begin);
  if (it != map_.begin()) --it;
  for (; it != map_.end() && it->first < end; ++it) {
    uint64_t b = std::max(it->first, begin), e = std::min(it->second.first, end);
    if (e <= at) continue;
    if (b > at) out.push_back({at, b, -1});
    out.push_back({b, e, it->second.second});
    at = e;
  }
  if (at < end) out.push_back({at, end, -1});
  return out;
}

int TileMap::tileOf(uint64_t element) const {
  auto it = map_.upper_bound(element);
  if (it == map_.begin()) return -1;
  --it;
  return element < it->second.first ? it->second.second : -1;
}

TensorPtr GraphData::addVariable(TypeId type, const std::vector<size_t> &shape, const std::string &name) {
  Variable v;
  v.name = name.empty() ? "variable " + std::to_string(variables.size()) : name;
  v.type = type;
  v.shape = shape;
  v.elements = product(shape);
  variables.push_back(std::move(v));
  std::vector<Region> regions;
  appendRegion(regions, {uint32_t(variables.size() - 1), 0, variables.back().elements});
  return view::make(type, shape, std::move(regions), id);
}

TensorPtr GraphData::addConstant(TypeId type, const std::vector<size_t> &shape, std::vector<uint8_t> bytes,
                                 const std::string &name) {
  TensorPtr t = addVariable(type, shape, name);
  Variable &v = variables.back();
  v.constant = true;
  const size_t want = size_t(v.elements) * typeSize(type);
  if (bytes.size() != want)
    throw poplar::tensor_creation_error("addConstant: " + std::to_string(bytes.size() / typeSize(type)) +
                                        " values given for a constant of shape " + shapeString(shape) + " (" +
                                        std::to_string(v.elements) + " elements)");
  v.initial = std::move(bytes);
  return t;
}

uint64_t GraphData::nextId() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

void GraphData::checkOwned(const TensorImpl &t, const char *what) const {
  // Tensors name variables by index: another graph's would silently mean this graph's variable
  // of the same index.
  if (t.graph != id && !t.regions().empty())
    throw poplar::poplar_error(std::string(what) + ": the tensor belongs to another graph");
}

std::string GraphData::constantIn(const TensorImpl &t) const {
  for (const Region &r : t.regions())
    if (r.begin != r.end && variables[r.var].constant) return variables[r.var].name;
  return "";
}

void GraphData::setTileMapping(const TensorImpl &t, unsigned tile) {
  checkOwned(t, "setTileMapping");
  if (tile >= target.numTiles())
    throw poplar::invalid_tile_mapping("setTileMapping: tile " + std::to_string(tile) + " does not exist (the target has " +
                                       std::to_string(target.numTiles()) + " tiles)");
  for (const Region &r : t.regions()) variables[r.var].mapping.assign(r.begin, r.end, int(tile));
}

std::vector<std::vector<std::pair<uint64_t, uint64_t>>> GraphData::tileMapping(const TensorImpl &t, bool allowUnmapped) const {
  checkOwned(t, "getTileMapping");
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> out(target.numTiles());
  uint64_t flat = 0;
  for (const Region &r : t.regions()) {
    const Variable &v = variables[r.var];
    for (const TileMap::Segment &s : v.mapping.segments(r.begin, r.end)) {
      const uint64_t b = flat + (s.begin - r.begin), e = flat + (s.end - r.begin);
      if (s.tile < 0) {
        if (!allowUnmapped)
          throw poplar::invalid_tile_mapping("getTileMapping: elements " + std::to_string(s.begin) + ".." +
                                             std::to_string(s.end - 1) + " of '" + v.name + "' are not mapped to a tile");
        continue;
      }
      auto &list = out[size_t(s.tile)];
      if (!list.empty() && list.back().second == b) list.back().second = e;
      else list.push_back({b, e});
    }
    flat += r.size();
  }
  return out;
}

void GraphData::setInitialValue(const TensorImpl &t, const void *bytes, size_t elementSize) {
  checkOwned(t, "setInitialValue");
  const uint8_t *src = static_cast<const uint8_t *>(bytes);
  for (const Region &r : t.regions()) {
    Variable &v = variables[r.var];
    const size_t size = typeSize(v.type);
    if (elementSize != size)
      throw poplar::type_error(std::string("setInitialValue: values of ") + std::to_string(elementSize) +
                               " bytes for a tensor of " + typeName(v.type));
    if (v.initial.empty()) v.initial.assign(size_t(v.elements) * size, 0);
    std::memcpy(v.initial.data() + r.begin * size, src, r.size() * size);
    src += r.size() * size;
  }
}

std::vector<LinearPart> linearMapping(uint64_t n, unsigned tiles, unsigned grain, unsigned minElements) {
  std::vector<LinearPart> out;
  if (n == 0 || tiles == 0) return out;
  grain = std::max(1u, grain);
  const uint64_t grains = (n + grain - 1) / grain;
  const uint64_t minGrains = std::max<uint64_t>(1, (minElements + grain - 1) / grain);
  const uint64_t usable = std::max<uint64_t>(1, std::min<uint64_t>(tiles, grains / minGrains));
  const uint64_t perTile = (grains + usable - 1) / usable;
  const uint64_t parts = (grains + perTile - 1) / perTile;
  for (uint64_t p = 0; p < parts; ++p) {
    const uint64_t b = p * grains / parts * grain, e = std::min(n, (p + 1) * grains / parts * grain);
    if (b < e) out.push_back({b, e, unsigned(p)});
  }
  return out;
}

unsigned GraphData::addComputeSet(const std::string &name) {
  computeSets.push_back({name.empty() ? "cs" + std::to_string(computeSets.size()) : name, {}});
  return unsigned(computeSets.size() - 1);
}

unsigned GraphData::addVertex(unsigned computeSet, const std::string &codeletName) {
  int c = codelets.find(codeletName);
  if (c < 0)
    throw poplar::unknown_vertex_type("addVertex: no vertex class '" + codeletName +
                                      "' (add the codelets that define it with Graph::addCodelets)");
  if (computeSet >= computeSets.size()) throw poplar::poplar_error("addVertex: the compute set does not belong to this graph");
  Vertex v;
  v.codelet = unsigned(c);
  v.computeSet = computeSet;
  v.fields.resize(codelets.codelet(unsigned(c)).layout.fields.size());
  vertices.push_back(std::move(v));
  computeSets[computeSet].vertices.push_back(unsigned(vertices.size() - 1));
  return unsigned(vertices.size() - 1);
}

unsigned GraphData::addStream(const std::string &handle, TypeId type, uint64_t elements, bool toDevice, bool hostHandle) {
  // Host read and write handles have names of their own (a tensor may be both written and read
  // as "x"); data streams share one namespace.
  const std::string key = hostHandle ? (toDevice ? "write:" : "read:") + handle : handle;
  if (streamByHandle.count(key))
    throw poplar::poplar_error(std::string(hostHandle ? (toDevice ? "a host write" : "a host read") : "a data stream") +
                               " named '" + handle + "' already exists in this graph");
  streams.push_back({handle, type, elements, toDevice, hostHandle});
  streamByHandle[key] = unsigned(streams.size() - 1);
  return unsigned(streams.size() - 1);
}

uint64_t RemoteBufferInfo::rowBytes() const { return elements * typeSize(type); }

unsigned GraphData::addRemoteBuffer(RemoteBufferInfo info) {
  if (streamByHandle.count(info.handle))
    throw poplar::poplar_error("addRemoteBuffer: a data stream named '" + info.handle + "' already exists in this graph");
  for (const RemoteBufferInfo &r : remoteBuffers)
    if (r.handle == info.handle)
      throw poplar::poplar_error("addRemoteBuffer: a remote buffer named '" + info.handle + "' already exists in this graph");
  if (info.elements == 0 || info.repeats == 0)
    throw poplar::poplar_error("addRemoteBuffer: remote buffer '" + info.handle + "' needs at least one element and one repeat");
  remoteBuffers.push_back(std::move(info));
  return unsigned(remoteBuffers.size() - 1);
}

} // namespace ipusim::gc
