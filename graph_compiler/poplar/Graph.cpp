// poplar::Graph over the graph compiler's GraphData (ipusim/gc/Graph.h).
#include "Internal.h"

#include "ipusim/gc/Codelets.h"

#include <algorithm>
#include <poplar/Graph.hpp>
#include <poplar/exceptions.hpp>

#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;

namespace poplar {

using namespace ipusim::gc;
namespace cc = ipusim::cc;

// ---- free functions ----

CodeletFileType getCodeletFileType(const char *path) {
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".S") return CodeletFileType::PreprocessedAsmSource;
  if (ext == ".s") return CodeletFileType::AsmSource;
  if (ext == ".c") return CodeletFileType::CSource;
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".C") return CodeletFileType::CppSource;
  if (ext == ".ll" || ext == ".bc") return CodeletFileType::IrSource;
  if (ext == ".gp" || ext == ".o") return CodeletFileType::Object;
  throw poplar_error(std::string("getCodeletFileType: unknown codelet file type of '") + path + "'");
}

std::string toString(const VariableMappingMethod &m) { return m == VariableMappingMethod::LINEAR ? "LINEAR" : "NONE"; }

StringRef versionString() { return StringRef("3.3.0 (ipusim 0.1)"); }
StringRef packageHash() { return StringRef("ipusim"); }

// ---- vertices and fields ----

FieldRef VertexRef::operator[](StringRef fieldName) const {
  if (!graph_) throw poplar_error("VertexRef::operator[]: the vertex reference is empty");
  const Vertex &v = graph_->vertices.at(id_);
  const cc::VertexLayout &l = graph_->codelets.codelet(v.codelet).layout;
  const std::string name = fieldName.cloneAsString();
  for (size_t i = 0; i < l.fields.size(); ++i)
    if (l.fields[i].name == name) {
      FieldRef f;
      f.vertex = *this;
      f.fieldId = unsigned(i);
      return f;
    }
  throw unknown_field(name, l.className);
}

// ---- Graph ----

Graph::Graph(const Target &target, replication_factor r)
    : data_(std::make_shared<GraphData>()), target_(target), tileOffset_(0), numTiles_(target.getNumTiles()) {
  if (r.value != 1)
    throw graph_replication_error("replicated graphs (replication factor " + std::to_string(r.value) +
                                  ") arrive with ipusim's system model");
  data_->target = target.info();
}
Graph::Graph(const Device &device, replication_factor r) : Graph(device.getTarget(), r) {}
Graph::Graph(std::shared_ptr<GraphData> data, Target target, unsigned offset, unsigned tiles)
    : data_(std::move(data)), target_(std::move(target)), tileOffset_(offset), numTiles_(tiles) {}
Graph::Graph(Graph &&) noexcept = default;
Graph &Graph::operator=(Graph &&) noexcept = default;
Graph::~Graph() = default;

const Target &Graph::getTarget() const { return target_; }

unsigned Graph::physicalTile(unsigned tile, const char *what) const {
  if (tile >= numTiles_)
    throw invalid_tile_mapping(std::string(what) + ": tile " + std::to_string(tile) + " does not exist (the graph has " +
                               std::to_string(numTiles_) + " tiles)");
  return tileOffset_ + tile;
}

// ---- codelets ----

bool Graph::addCodelets(StringRef src, CodeletFileType, StringRef compileFlags, StringRef) {
  const std::string path = src.cloneAsString();
  std::error_code ec;
  const std::string key = fs::weakly_canonical(path, ec).string() + "|" + compileFlags.cloneAsString();
  if (!data_->codeletFiles.insert(key).second) return false;
  try {
    data_->codelets.addArchive(compileCodeletFiles({path}, {compileFlags.cloneAsString()}));
  } catch (...) {
    data_->codeletFiles.erase(key);
    throw;
  }
  return true;
}

bool Graph::addCodelets(StringRef src, CodeletFileType type, StringRef compileFlags, std::ostream &compileOutput,
                        StringRef targetName) {
  try {
    return addCodelets(src, type, compileFlags, targetName);
  } catch (const poplar_error &e) {
    compileOutput << e.what() << '\n';
    throw;
  }
}

bool Graph::addCodelets(ArrayRef<std::string> xs, StringRef compileFlags, StringRef targetName) {
  bool any = false;
  for (const std::string &x : xs) any |= addCodelets(StringRef(x), CodeletFileType::Auto, compileFlags, targetName);
  return any;
}

namespace {
/// A codelet source given as a stream goes to a file named after its content, so the compile
/// cache applies.
std::string streamToFile(std::stringstream &stream, CodeletFileType type) {
  const std::string text = stream.str();
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  char name[48];
  const char *ext = type == CodeletFileType::AsmSource ? ".s" : type == CodeletFileType::PreprocessedAsmSource ? ".S" : ".cpp";
  std::snprintf(name, sizeof name, "codelet-%016llx%s", static_cast<unsigned long long>(h), ext);
  fs::path dir = fs::temp_directory_path() / "ipusim-codelets";
  fs::create_directories(dir);
  fs::path file = dir / name;
  if (!fs::exists(file)) std::ofstream(file) << text;
  return file.string();
}
} // namespace

void Graph::addCodelets(std::stringstream &stream, StringRef compileFlags, CodeletFileType type, StringRef targetName) {
  addCodelets(StringRef(streamToFile(stream, type)), type, compileFlags, targetName);
}

void Graph::addCodelets(std::stringstream &stream, StringRef compileFlags, std::ostream &compileOutput,
                        CodeletFileType type, StringRef targetName) {
  addCodelets(StringRef(streamToFile(stream, type)), type, compileFlags, compileOutput, targetName);
}

bool Graph::hasCodelet(StringRef name) const { return data_->codelets.find(name.cloneAsString()) >= 0; }

// ---- variables and constants ----

namespace {
std::vector<size_t> shapeOf(ArrayRef<std::size_t> s) { return std::vector<size_t>(s.begin(), s.end()); }

/// poputil's linear mapping: whole grains spread evenly over the tiles, at least
/// minElementsPerTile on each tile used.
void mapLinearly(GraphData &g, const TensorImpl &t, unsigned offset, unsigned tiles, unsigned grain, unsigned minElements) {
  const uint64_t n = t.numElements();
  if (n == 0) return;
  for (const LinearPart &p : linearMapping(n, tiles, grain, minElements))
    g.setTileMapping(*view::make(t.type, {size_t(p.end - p.begin)}, t.range(p.begin, p.end), t.graph), offset + p.tile);
}
} // namespace

Tensor Graph::addVariable(const Type &type, ArrayRef<std::size_t> shape, const DebugContext &dc) {
  return Tensor(data_->addVariable(core::typeId(type), shapeOf(shape), dc.getPathName()));
}

Tensor Graph::addVariable(const Type &type, ArrayRef<std::size_t> shape, VariableMappingMethod m, const DebugContext &dc) {
  Tensor t = addVariable(type, shape, dc);
  if (m == VariableMappingMethod::LINEAR) {
    const unsigned size = unsigned(target_.getTypeSize(type));
    mapLinearly(*data_, t.impl(), tileOffset_, numTiles_, target_.getVectorWidth(type), (128 + size - 1) / size);
  }
  return t;
}

void Graph::checkValueCount(ArrayRef<std::size_t> shape, std::size_t n, const char *what) const {
  uint64_t want = 1;
  for (std::size_t d : shape) want *= d;
  if (want != n)
    throw tensor_creation_error(std::string(what) + ": " + std::to_string(n) + " values given for shape " +
                                shapeString(shapeOf(shape)) + " (" + std::to_string(want) + " elements)");
}

Tensor Graph::addConstant(const Type &type, ArrayRef<std::size_t> shape, const void *data, const TypeTraits &traits,
                          bool broadcast, const DebugContext &dc) {
  const TypeId t = core::typeId(type);
  const std::vector<size_t> s = shapeOf(shape);
  const uint64_t n = product(s);
  std::vector<uint8_t> bytes;
  if (broadcast) {
    std::vector<uint8_t> one = core::toDevice(t, data, traits, 1);
    for (uint64_t i = 0; i < n; ++i) bytes.insert(bytes.end(), one.begin(), one.end());
  } else {
    bytes = core::toDevice(t, data, traits, size_t(n));
  }
  return Tensor(data_->addConstant(t, s, std::move(bytes), dc.getPathName().empty() ? "<const>" : dc.getPathName()));
}

Tensor Graph::addConstantHalf(const Type &type, ArrayRef<std::size_t> shape, uint16_t val, const DebugContext &dc) {
  if (core::typeId(type) != TypeId::Half) throw type_error("addConstantHalf: the type must be HALF");
  const uint64_t n = product(shapeOf(shape));
  std::vector<uint8_t> bytes;
  for (uint64_t i = 0; i < n; ++i) bytes.push_back(uint8_t(val)), bytes.push_back(uint8_t(val >> 8));
  return Tensor(data_->addConstant(TypeId::Half, shapeOf(shape), std::move(bytes), dc.getPathName()));
}

Tensor Graph::addConstantHalf(const Type &type, ArrayRef<std::size_t> shape, const uint16_t *val, const DebugContext &dc) {
  if (core::typeId(type) != TypeId::Half) throw type_error("addConstantHalf: the type must be HALF");
  const uint64_t n = product(shapeOf(shape));
  std::vector<uint8_t> bytes;
  for (uint64_t i = 0; i < n; ++i) bytes.push_back(uint8_t(val[i])), bytes.push_back(uint8_t(val[i] >> 8));
  return Tensor(data_->addConstant(TypeId::Half, shapeOf(shape), std::move(bytes), dc.getPathName()));
}

Tensor Graph::clone(const Type &type, const Tensor &t, const DebugContext &dc, TensorCloneMethod method) {
  Tensor c = addVariable(type, t.shape(), dc);
  // The clone's elements lie in memory in the order of t's (what Poplar's PRESERVE_ORDER
  // methods promise, unless t names an element twice): a clone of a transposed or channels-last
  // view is the same view of a new variable, so an element-wise operation over the pair visits
  // long runs. Its regions in t's memory order take consecutive runs of the new variable.
  if (method != TensorCloneMethod::CREATE_NEW_ORDER && t.numElements() && !t.containsAliases()) {
    const std::vector<VariableInterval> regions = t.getVarRegions();
    std::vector<std::size_t> order(regions.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const VariableInterval &x = regions[a], &y = regions[b];
      return x.var != y.var ? x.var < y.var : x.interval.begin() < y.interval.begin();
    });
    std::vector<std::size_t> at(regions.size());
    for (std::size_t i = 0, next = 0; i < order.size(); ++i) at[order[i]] = next, next += regions[order[i]].interval.size();
    if (!std::is_sorted(at.begin(), at.end())) {
      const Tensor flat = c.flatten();
      std::vector<Tensor> parts;
      for (std::size_t i = 0; i < regions.size(); ++i) parts.push_back(flat.slice(at[i], at[i] + regions[i].interval.size()));
      c = concat(parts).reshape(t.shape());
    }
  }
  // The same mapping, element for element.
  const auto mapping = data_->tileMapping(t.impl(), true);
  for (size_t tile = 0; tile < mapping.size(); ++tile)
    for (auto [b, e] : mapping[tile])
      data_->setTileMapping(*view::make(c.impl().type, {size_t(e - b)}, c.impl().range(b, e), c.impl().graph), unsigned(tile));
  return c;
}
Tensor Graph::clone(const Tensor &t, const DebugContext &dc, TensorCloneMethod m) { return clone(t.elementType(), t, dc, m); }

Tensor Graph::cloneN(const Type &type, const Tensor &t, std::size_t N, const DebugContext &dc, TensorCloneMethod m,
                     TensorCloneDuplicationMethod) {
  std::vector<Tensor> parts;
  for (std::size_t i = 0; i < N; ++i) parts.push_back(clone(type, t, dc, m).expand({0}));
  if (parts.empty()) {
    std::vector<std::size_t> s = t.shape();
    s.insert(s.begin(), 0);
    return addVariable(type, s, dc);
  }
  return concat(parts, 0);
}
Tensor Graph::cloneN(const Tensor &t, std::size_t N, const DebugContext &dc, TensorCloneMethod m,
                     TensorCloneDuplicationMethod d) {
  return cloneN(t.elementType(), t, N, dc, m, d);
}

// ---- compute sets, vertices, fields ----

ComputeSet Graph::addComputeSet(const DebugContext &dc) { return ComputeSet(data_->addComputeSet(dc.getPathName())); }

VertexRef Graph::addVertex(ComputeSet cs, StringRef vertexType) {
  return VertexRef(data_.get(), data_->addVertex(cs.getId(), vertexType.cloneAsString()));
}

VertexRef Graph::addVertex(ComputeSet cs, StringRef vertexType, ArrayRef<ConnectionDesc> connections) {
  VertexRef v = addVertex(cs, vertexType);
  for (const ConnectionDesc &c : connections) {
    FieldRef f = v[c.field_];
    if (c.kind_ == 0) connect(f, c.tensor_);
    else if (c.kind_ == 1) connect(f, ArrayRef<Tensor>(c.tensors_));
    else setFieldValue(f, c.value_.data(), c.traits_, 1);
  }
  return v;
}

namespace {
FieldBinding &binding(GraphData &g, const FieldRef &f, const char *what) {
  if (f.vertex.graph() != &g) throw graph_connection_error(std::string(what) + ": the vertex belongs to another graph");
  return g.vertices.at(f.vertex.getId()).fields.at(f.fieldId);
}
const cc::VertexField &fieldOf(GraphData &g, const FieldRef &f) {
  return g.codelets.codelet(g.vertices.at(f.vertex.getId()).codelet).layout.fields.at(f.fieldId);
}
std::string fieldName(GraphData &g, const FieldRef &f) {
  return "field '" + fieldOf(g, f).name + "' of vertex " + std::to_string(f.vertex.getId()) + " (" +
         g.codelets.codelet(g.vertices.at(f.vertex.getId()).codelet).layout.className + ")";
}
bool isVectorOfEdges(const cc::VertexField &f) {
  return f.kind == "VectorList" || f.layout == "DELTAN" || f.layout == "DELTANELEMENTS" || f.layout == "COMPACT_DELTAN" ||
         (!f.innerLayout.empty() && f.kind != "Value");
}
} // namespace

namespace {
/// An Output or InOut edge may not be connected to a constant (its value is fixed for every run).
void checkEdgeWritable(const GraphData &g, const cc::VertexField &f, const std::string &fieldName, const Tensor &t) {
  const std::string &direction = f.innerKind.empty() ? f.kind : f.innerKind;
  if (!t.valid()) return;
  g.checkOwned(*t.ptr(), "connect");
  if (direction != "Output" && direction != "InOut") return;
  if (const std::string c = g.constantIn(*t.ptr()); !c.empty())
    throw graph_connection_error("connect: " + fieldName + " is an " + direction + " edge but the tensor includes constant '" +
                                 c + "', which a vertex cannot write");
}
} // namespace

void Graph::connect(FieldRef field, const Tensor &tensor) {
  FieldBinding &b = binding(*data_, field, "connect");
  const cc::VertexField &f = fieldOf(*data_, field);
  checkEdgeWritable(*data_, f, fieldName(*data_, field), tensor);
  if (f.kind == "Value" || (f.kind == "Vector" && f.innerLayout.empty()))
    throw graph_connection_error("connect: " + fieldName(*data_, field) + " holds values, not an edge (use setInitialValue)");
  if (field.isIndexed()) {
    if (!isVectorOfEdges(f))
      throw graph_connection_error("connect: " + fieldName(*data_, field) + " is not a vector of edges; it cannot be indexed");
    if (b.sized && field.getIndex() >= b.size)
      throw index_error("connect: index " + std::to_string(field.getIndex()) + " of " + fieldName(*data_, field) +
                        ", whose size is " + std::to_string(b.size));
    if (tensor.valid()) data_->checkOwned(*tensor.ptr(), "connect");
    if (b.elements.size() <= field.getIndex()) b.elements.resize(field.getIndex() + 1);
    b.elements[field.getIndex()] = tensor.ptr();
    return;
  }
  if (!tensor.valid()) throw graph_connection_error("connect: " + fieldName(*data_, field) + ": the tensor is empty");
  data_->checkOwned(*tensor.ptr(), "connect");
  b.connected = true;
  b.tensor = tensor.ptr();
  if (isVectorOfEdges(f)) b.elements.clear();
}

void Graph::connect(FieldRef field, ArrayRef<Tensor> tensors) {
  FieldBinding &b = binding(*data_, field, "connect");
  if (!isVectorOfEdges(fieldOf(*data_, field)))
    throw graph_connection_error("connect: " + fieldName(*data_, field) + " is not a vector of edges");
  b.connected = false;
  b.tensor = nullptr;
  b.elements.clear();
  for (const Tensor &t : tensors) {
    if (t.valid()) data_->checkOwned(*t.ptr(), "connect");
    checkEdgeWritable(*data_, fieldOf(*data_, field), fieldName(*data_, field), t);
    b.elements.push_back(t.ptr());
  }
  b.sized = true;
  b.size = tensors.size();
}

void Graph::setFieldSize(FieldRef field, std::size_t size) {
  FieldBinding &b = binding(*data_, field, "setFieldSize");
  if (!isVectorOfEdges(fieldOf(*data_, field)))
    throw graph_connection_error("setFieldSize: " + fieldName(*data_, field) + " is not a vector of edges");
  b.sized = true;
  b.size = size;
  if (b.elements.size() > size) b.elements.resize(size);
}

std::size_t Graph::getFieldSize(FieldRef field) const {
  FieldBinding &b = binding(*data_, field, "getFieldSize");
  if (b.sized) return b.size;
  if (b.tensor) return b.tensor->numElements();
  return b.elements.size();
}

void Graph::setFieldValue(FieldRef field, const void *data, const TypeTraits &traits, std::size_t n, bool vector) {
  FieldBinding &b = binding(*data_, field, "setInitialValue");
  const cc::VertexField &f = fieldOf(*data_, field);
  const bool plainVector = f.kind == "Vector" && f.innerLayout.empty();
  if (f.kind != "Value" && !plainVector)
    throw graph_connection_error("setInitialValue: " + fieldName(*data_, field) + " is an edge: connect a tensor to it");
  if (vector && !plainVector)
    throw graph_connection_error("setInitialValue: " + fieldName(*data_, field) + " holds one value, not a vector");
  TypeId t = typeFromName(f.elementType);
  if (t == TypeId::Count) {
    // An enum or other integer-like member: the value as an integer of the field's size.
    if (plainVector || (f.size != 1 && f.size != 2 && f.size != 4 && f.size != 8))
      throw graph_connection_error("setInitialValue: " + fieldName(*data_, field) + " has type " + f.elementType +
                                   ", which ipusim cannot set from a host value");
    t = f.size == 1 ? TypeId::UnsignedChar : f.size == 2 ? TypeId::UnsignedShort : f.size == 4 ? TypeId::UnsignedInt
                                                                                         : TypeId::UnsignedLongLong;
  }
  b.value = core::toDevice(t, data, traits, n);
  b.hasValue = true;
}

void Graph::setInitialValueHalf(FieldRef field, uint16_t val) { setInitialValueHalf(field, ArrayRef<uint16_t>(&val, 1)); }
void Graph::setInitialValueHalf(FieldRef field, ArrayRef<uint16_t> vals) {
  FieldBinding &b = binding(*data_, field, "setInitialValueHalf");
  const cc::VertexField &f = fieldOf(*data_, field);
  if (f.elementType != "half") throw type_error("setInitialValueHalf: " + fieldName(*data_, field) + " is not half");
  b.value.clear();
  for (uint16_t v : vals) b.value.push_back(uint8_t(v)), b.value.push_back(uint8_t(v >> 8));
  b.hasValue = true;
}

void Graph::setTensorValue(const Tensor &t, const void *data, const TypeTraits &traits, std::size_t n, bool broadcast) {
  const TensorImpl &ti = t.impl();
  const uint64_t count = ti.numElements();
  if (!broadcast && n != count)
    throw poplar_error("setInitialValue: " + std::to_string(n) + " values for a tensor of " + std::to_string(count) + " elements");
  std::vector<uint8_t> bytes;
  if (broadcast) {
    std::vector<uint8_t> one = core::toDevice(ti.type, data, traits, 1);
    for (uint64_t i = 0; i < count; ++i) bytes.insert(bytes.end(), one.begin(), one.end());
  } else {
    bytes = core::toDevice(ti.type, data, traits, n);
  }
  data_->setInitialValue(ti, bytes.data(), typeSize(ti.type));
}

void Graph::setInitialValueHalf(const Tensor &t, uint16_t val) {
  std::vector<uint16_t> v(t.numElements(), val);
  setInitialValueHalf(t, ArrayRef<uint16_t>(v));
}
void Graph::setInitialValueHalf(const Tensor &t, ArrayRef<uint16_t> values) {
  if (t.impl().type != TypeId::Half) throw type_error("setInitialValueHalf: the tensor is not HALF");
  if (values.size() != t.numElements())
    throw poplar_error("setInitialValueHalf: " + std::to_string(values.size()) + " values for a tensor of " +
                       std::to_string(t.numElements()) + " elements");
  data_->setInitialValue(t.impl(), values.data(), 2);
}

void Graph::setPerfEstimate(const VertexRef &, std::uint64_t, std::uint64_t) {}
void Graph::setCycleEstimate(const VertexRef &, std::uint64_t) {}
unsigned Graph::getNumVertices() const { return unsigned(data_->vertices.size()); }

// ---- host I/O ----

void Graph::createHostWrite(StringRef handle, const Tensor &t, bool) {
  const std::string h = handle.cloneAsString();
  data_->checkOwned(t.impl(), "createHostWrite");
  data_->addStream(h, t.impl().type, t.impl().numElements(), true, true);
  data_->hostWrites[h] = t.ptr();
}
void Graph::createHostRead(StringRef handle, const Tensor &t, bool) {
  const std::string h = handle.cloneAsString();
  data_->checkOwned(t.impl(), "createHostRead");
  data_->addStream(h, t.impl().type, t.impl().numElements(), false, true);
  data_->hostReads[h] = t.ptr();
}
DataStream Graph::addHostToDeviceFIFO(StringRef handle, const Type &type, std::size_t n, ReplicatedStreamMode,
                                      const OptionFlags &) {
  const unsigned id = data_->addStream(handle.cloneAsString(), core::typeId(type), n, true, false);
  return DataStream(id, handle.cloneAsString(), type, n, DataStreamType::HostToDeviceFIFO);
}
DataStream Graph::addDeviceToHostFIFO(StringRef handle, const Type &type, std::size_t n, const OptionFlags &) {
  const unsigned id = data_->addStream(handle.cloneAsString(), core::typeId(type), n, false, false);
  return DataStream(id, handle.cloneAsString(), type, n, DataStreamType::DeviceToHostFIFO);
}

RemoteBuffer Graph::addRemoteBuffer(StringRef handle, const Type &type, std::size_t n, std::size_t repeats, bool rearrangeOnHost,
                                    bool optimisedForMemory) {
  const std::string h = handle.cloneAsString();
  const unsigned id = data_->addRemoteBuffer({h, core::typeId(type), n, repeats, rearrangeOnHost, optimisedForMemory});
  return RemoteBuffer(id, h, type, n, repeats, rearrangeOnHost, optimisedForMemory);
}

// ---- tile mapping ----

void Graph::setTileMapping(VertexRef v, unsigned tile) {
  if (v.graph() != data_.get()) throw invalid_tile_mapping("setTileMapping: the vertex belongs to another graph");
  data_->vertices.at(v.getId()).tile = int(physicalTile(tile, "setTileMapping"));
}
void Graph::setTileMapping(const Tensor &t, unsigned tile) { data_->setTileMapping(t.impl(), physicalTile(tile, "setTileMapping")); }
void Graph::setTileMapping(const Tensor &t, const TileToTensorMapping &mapping) {
  const Tensor flat = t.flatten();
  if (mapping.size() > numTiles_)
    throw invalid_tile_mapping("setTileMapping: the mapping names " + std::to_string(mapping.size()) + " tiles; the graph has " +
                               std::to_string(numTiles_));
  for (size_t tile = 0; tile < mapping.size(); ++tile)
    for (const Interval &i : mapping[tile]) {
      if (i.end() > flat.numElements() || i.begin() > i.end())
        throw invalid_tile_mapping("setTileMapping: interval [" + std::to_string(i.begin()) + ", " + std::to_string(i.end()) +
                                   ") is outside the tensor's " + std::to_string(flat.numElements()) + " elements");
      setTileMapping(flat.slice(i.begin(), i.end()), unsigned(tile));
    }
}
Graph::TileToTensorMapping Graph::getTileMapping(const Tensor &t, bool requireComplete) const {
  bool complete = true;
  TileToTensorMapping m = getTileMapping(t, &complete);
  if (requireComplete && !complete)
    throw invalid_tile_mapping("getTileMapping: some elements of the tensor (shape " + shapeString(t.impl().shape) +
                               ") are not mapped to a tile");
  return m;
}
Graph::TileToTensorMapping Graph::getTileMapping(const Tensor &t, bool *isComplete) const {
  const auto m = data_->tileMapping(t.impl(), true);
  TileToTensorMapping out(numTiles_);
  uint64_t mapped = 0;
  for (unsigned tile = 0; tile < numTiles_; ++tile)
    for (auto [b, e] : m[tileOffset_ + tile]) {
      out[tile].push_back(Interval(b, e));
      mapped += e - b;
    }
  if (isComplete) *isComplete = mapped == t.impl().numElements();
  return out;
}
Graph::TileToTensorMapping Graph::getVariableTileMapping(const Tensor &t) const { return getTileMapping(t, false); }
bool Graph::isConstant(VariableRef v) const { return data_->variables.at(v.getId()).constant; }
Tensor Graph::getVariable(VariableRef v) const {
  if (v.getId() >= data_->variables.size())
    throw poplar_error("Graph::getVariable: the graph has no variable " + std::to_string(v.getId()));
  const Variable &var = data_->variables[v.getId()];
  return Tensor(view::make(var.type, var.shape, {{v.getId(), 0, var.elements}}, data_->id));
}

// ---- sub-graphs and functions ----

Graph Graph::createVirtualGraph(unsigned numTilesPerIPU) {
  if (target_.getNumIPUs() != 1)
    throw poplar_error("createVirtualGraph(tilesPerIPU) on several IPUs arrives with ipusim's system model");
  return createVirtualGraph(0, numTilesPerIPU);
}
Graph Graph::createVirtualGraph(unsigned lowerTile, unsigned upperTile) {
  if (lowerTile >= upperTile || upperTile > numTiles_)
    throw poplar_error("createVirtualGraph: [" + std::to_string(lowerTile) + ", " + std::to_string(upperTile) +
                       ") is not a range of the graph's " + std::to_string(numTiles_) + " tiles");
  Target t = target_.createVirtualTarget(1, upperTile - lowerTile);
  return Graph(data_, t, tileOffset_ + lowerTile, upperTile - lowerTile);
}
Graph Graph::getTopLevelGraph() {
  return Graph(data_, Target(std::make_shared<TargetInfo>(data_->target)), 0, data_->target.numTiles());
}
unsigned Graph::convertVirtualTileToPhysicalTile(unsigned t) const { return physicalTile(t, "convertVirtualTileToPhysicalTile"); }
unsigned Graph::convertPhysicalTileToVirtualTile(unsigned t) const {
  if (t < tileOffset_ || t >= tileOffset_ + numTiles_)
    throw poplar_error("convertPhysicalTileToVirtualTile: tile " + std::to_string(t) + " is not in this graph");
  return t - tileOffset_;
}

Function Graph::addFunction(const program::Program &program) {
  auto node = program.node();
  if (!node) {
    auto empty = std::make_shared<ProgramNode>();
    empty->kind = ProgramNode::Sequence;
    node = empty;
  }
  data_->functions.push_back(node);
  return Function(unsigned(data_->functions.size() - 1));
}

// ---- graphviz ----

void Graph::outputVertexGraph(std::ostream &os, ArrayRef<program::Program>) const {
  os << "digraph vertices {\n";
  for (size_t v = 0; v < data_->vertices.size(); ++v) {
    const Vertex &vx = data_->vertices[v];
    const cc::VertexLayout &l = data_->codelets.codelet(vx.codelet).layout;
    os << "  v" << v << " [shape=box, label=\"" << l.className << "\\ntile " << vx.tile << "\"];\n";
    for (size_t f = 0; f < vx.fields.size(); ++f) {
      std::vector<TensorPtr> ts = vx.fields[f].elements;
      if (vx.fields[f].tensor) ts.push_back(vx.fields[f].tensor);
      for (const TensorPtr &t : ts) {
        if (!t) continue;
        for (const Region &r : t->regions()) {
          const bool out = l.fields[f].kind == "Output" || l.fields[f].kind == "InOut" || l.fields[f].innerKind == "Output";
          os << "  var" << r.var << " [label=\"" << data_->variables[r.var].name << "\"];\n";
          if (out) os << "  v" << v << " -> var" << r.var << " [label=\"" << l.fields[f].name << "\"];\n";
          else os << "  var" << r.var << " -> v" << v << " [label=\"" << l.fields[f].name << "\"];\n";
        }
      }
    }
  }
  os << "}\n";
}

void Graph::outputComputeGraph(std::ostream &os, ArrayRef<program::Program>) const {
  os << "digraph compute {\n";
  for (size_t c = 0; c < data_->computeSets.size(); ++c)
    os << "  cs" << c << " [shape=box, label=\"" << data_->computeSets[c].name << "\\n"
       << data_->computeSets[c].vertices.size() << " vertices\"];\n";
  os << "}\n";
}

} // namespace poplar
