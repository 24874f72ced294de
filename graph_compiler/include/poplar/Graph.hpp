// ipusim's Poplar SDK: poplar::Graph (docs/poplar.md). A graph holds variables and constants with
// their tile mapping, vertices of codelets with their field connections, compute sets, streams
// and functions; an Engine compiles it with programs into tile programs for ipusim's IPU.
#ifndef IPUSIM_POPLAR_GRAPH_HPP
#define IPUSIM_POPLAR_GRAPH_HPP

#include <poplar/ArrayRef.hpp>
#include <poplar/CodeletFileType.hpp>
#include <poplar/DataStream.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/Device.hpp>
#include <poplar/GraphElements.hpp>
#include <poplar/Interval.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/StringRef.hpp>
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poplar/exceptions.hpp>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace poplar {

struct replication_factor {
  unsigned value;
  explicit constexpr replication_factor(unsigned v) : value(v) {}
};

enum class VariableMappingMethod { NONE, LINEAR };
enum class TensorCloneMethod {
  PRESERVE_ORDER_AND_ALIASES, CREATE_NEW_ORDER, PRESERVE_ORDER_UNLESS_ALIASES, GATHER_AND_PRESERVE_TILE_ORDER_AND_ALIASES
};
enum class TensorCloneDuplicationMethod { DUPLICATE_BY_OUTER_DIMENSION, DUPLICATE_BY_TILE_CONTIGUOUS_REGION };
std::string toString(const VariableMappingMethod &method);
/// The SDK version ipusim's Poplar implements, and ipusim's own.
StringRef versionString();
StringRef packageHash();

class Graph {
public:
  typedef std::vector<std::vector<Interval>> TileToTensorMapping;

  /// One field's connection in addVertex's list: a tensor, tensors, or a value.
  class ConnectionDesc {
  public:
    ConnectionDesc(StringRef field, Tensor t) : field_(field.cloneAsString()), kind_(0), tensor_(t) {}
    ConnectionDesc(StringRef field, ArrayRef<Tensor> ts) : field_(field.cloneAsString()), kind_(1), tensors_(ts.cloneAsVector()) {}
    template <typename T>
    ConnectionDesc(StringRef field, T v, typename std::enable_if<TypeTraits::isSimpleType<T>()>::type * = nullptr)
        : field_(field.cloneAsString()), kind_(2), traits_(TypeTraits::make<T>()),
          value_(reinterpret_cast<const char *>(&v), reinterpret_cast<const char *>(&v) + sizeof v) {}

  private:
    friend class Graph;
    std::string field_;
    int kind_;
    Tensor tensor_;
    std::vector<Tensor> tensors_;
    TypeTraits traits_;
    std::string value_;
  };

  Graph(const Target &target, replication_factor r = replication_factor(1));
  Graph(const Device &device, replication_factor r = replication_factor(1));
  Graph(Graph &&) noexcept;
  Graph &operator=(Graph &&) noexcept;
  ~Graph();
  const Target &getTarget() const;

  // ---- codelets: C++ (.cpp), assembly (.S) or popc output (.gp); C++ is compiled once and cached.
  bool addCodelets(StringRef src, CodeletFileType type = CodeletFileType::Auto, StringRef compileFlags = "",
                   StringRef targetName = "");
  bool addCodelets(StringRef src, CodeletFileType type, StringRef compileFlags, std::ostream &compileOutput,
                   StringRef targetName = "");
  bool addCodelets(ArrayRef<std::string> xs, StringRef compileFlags = "", StringRef targetName = "");
  void addCodelets(std::stringstream &stream, StringRef compileFlags = "", CodeletFileType type = CodeletFileType::CppSource,
                   StringRef targetName = "");
  void addCodelets(std::stringstream &stream, StringRef compileFlags, std::ostream &compileOutput,
                   CodeletFileType type = CodeletFileType::CppSource, StringRef targetName = "");
  bool hasCodelet(StringRef codeletName) const;

  // ---- variables and constants
  Tensor addVariable(const Type &type, ArrayRef<std::size_t> shape, const DebugContext &debugContext = {});
  Tensor addVariable(const Type &type, ArrayRef<std::size_t> shape, VariableMappingMethod mappingMethod,
                     const DebugContext &debugContext = {});
  template <typename T>
  Tensor addConstant(const Type &type, ArrayRef<std::size_t> shape, T val, const DebugContext &debugContext = {"<const>"},
                     typename std::enable_if<TypeTraits::isSimpleType<T>()>::type * = nullptr) {
    return addConstant(type, shape, &val, TypeTraits::make<T>(), true, debugContext);
  }
  template <typename T>
  Tensor addConstant(const Type &type, ArrayRef<std::size_t> shape, ArrayRef<T> values,
                     const DebugContext &debugContext = {"<const>"}) {
    checkValueCount(shape, values.size(), "addConstant");
    return addConstant(type, shape, values.data(), TypeTraits::make<T>(), false, debugContext);
  }
  template <typename T>
  Tensor addConstant(const Type &type, ArrayRef<std::size_t> shape, const T *values,
                     const DebugContext &debugContext = {"<const>"},
                     typename std::enable_if<TypeTraits::isSimpleType<T>()>::type * = nullptr) {
    return addConstant(type, shape, static_cast<const void *>(values), TypeTraits::make<T>(), false, debugContext);
  }
  Tensor addConstant(const Type &type, ArrayRef<std::size_t> shape, const void *data, const TypeTraits &traits,
                     bool broadcast, const DebugContext &debugContext = {"<const>"});
  Tensor addConstantHalf(const Type &type, ArrayRef<std::size_t> shape, uint16_t val,
                         const DebugContext &debugContext = {"<const>"});
  Tensor addConstantHalf(const Type &type, ArrayRef<std::size_t> shape, const uint16_t *val,
                         const DebugContext &debugContext = {"<const>"});
  /// A new variable of t's shape and tile mapping (and type unless given).
  Tensor clone(const Type &type, const Tensor &t, const DebugContext &debugContext = {},
               TensorCloneMethod method = TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);
  Tensor clone(const Tensor &t, const DebugContext &debugContext = {},
               TensorCloneMethod method = TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);
  Tensor cloneN(const Type &type, const Tensor &t, std::size_t N, const DebugContext &debugContext = {},
                TensorCloneMethod method = TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES,
                TensorCloneDuplicationMethod duplicationMethod = TensorCloneDuplicationMethod::DUPLICATE_BY_OUTER_DIMENSION);
  Tensor cloneN(const Tensor &t, std::size_t N, const DebugContext &debugContext = {},
                TensorCloneMethod method = TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES,
                TensorCloneDuplicationMethod duplicationMethod = TensorCloneDuplicationMethod::DUPLICATE_BY_OUTER_DIMENSION);

  // ---- compute sets, vertices, fields
  ComputeSet addComputeSet(const DebugContext &debugContext = {});
  VertexRef addVertex(ComputeSet cs, StringRef vertexType);
  VertexRef addVertex(ComputeSet cs, StringRef vertexType, ArrayRef<ConnectionDesc> connections);
  void connect(FieldRef field, const Tensor &tensor);
  void connect(FieldRef field, ArrayRef<Tensor> tensors);
  template <typename T>
  void connect(FieldRef field, T v, typename std::enable_if<TypeTraits::isSimpleType<T>()>::type * = nullptr) {
    setFieldValue(field, &v, TypeTraits::make<T>(), 1);
  }
  void setFieldSize(FieldRef field, std::size_t size);
  std::size_t getFieldSize(FieldRef field) const;
  template <typename T>
  void setInitialValue(FieldRef field, T val, typename std::enable_if<TypeTraits::isSimpleType<T>()>::type * = nullptr) {
    setFieldValue(field, &val, TypeTraits::make<T>(), 1);
  }
  template <typename T> void setInitialValue(FieldRef field, ArrayRef<T> val) {
    setFieldValue(field, val.data(), TypeTraits::make<T>(), val.size(), true);
  }
  template <typename T> void setInitialValue(FieldRef field, const std::vector<T> &v) {
    setInitialValue(field, ArrayRef<T>(v));
  }
  template <typename T> void setInitialValue(FieldRef field, const std::initializer_list<T> &l) {
    setInitialValue(field, ArrayRef<T>(l));
  }
  void setInitialValueHalf(FieldRef field, uint16_t val);
  void setInitialValueHalf(FieldRef field, ArrayRef<uint16_t> val);
  template <typename T>
  void setInitialValue(const Tensor &t, T val, typename std::enable_if<TypeTraits::isSimpleType<T>()>::type * = nullptr) {
    setTensorValue(t, &val, TypeTraits::make<T>(), 1, true);
  }
  template <typename T> void setInitialValue(const Tensor &t, ArrayRef<T> values) {
    setTensorValue(t, values.data(), TypeTraits::make<T>(), values.size(), false);
  }
  void setInitialValueHalf(const Tensor &t, uint16_t val);
  void setInitialValueHalf(const Tensor &t, ArrayRef<uint16_t> values);
  /// Accepted for compatibility: ipusim simulates every cycle instead.
  void setPerfEstimate(const VertexRef &v, std::uint64_t cycles, std::uint64_t flops = 0);
  void setCycleEstimate(const VertexRef &v, std::uint64_t cycles);
  unsigned getNumVertices() const;

  // ---- host I/O
  void createHostWrite(StringRef handle, const Tensor &t, bool rearrangeOnHost = false);
  void createHostRead(StringRef handle, const Tensor &t, bool rearrangeOnHost = false);
  DataStream addHostToDeviceFIFO(StringRef handle, const Type &elementType, std::size_t numElements,
                                 ReplicatedStreamMode replicatedMode = ReplicatedStreamMode::REPLICATE,
                                 const OptionFlags &options = {});
  DataStream addDeviceToHostFIFO(StringRef handle, const Type &elementType, std::size_t numElements,
                                 const OptionFlags &options = {});
  /// `repeats` rows of `numElements` elements in Streaming Memory (docs/poplar.md "Remote buffers").
  RemoteBuffer addRemoteBuffer(StringRef handle, const Type &elementType, std::size_t numElements,
                               std::size_t repeats = 1, bool rearrangeOnHost = false, bool optimisedForMemory = false);

  // ---- tile mapping
  void setTileMapping(VertexRef v, unsigned tileNum);
  void setTileMapping(const Tensor &t, unsigned tileNum);
  void setTileMapping(const Tensor &t, const TileToTensorMapping &mapping);
  TileToTensorMapping getTileMapping(const Tensor &t, bool requireComplete = true) const;
  TileToTensorMapping getTileMapping(const Tensor &t, bool *isComplete) const;
  TileToTensorMapping getVariableTileMapping(const Tensor &t) const;
  bool isConstant(VariableRef v) const;
  /// The whole variable v, in the shape it was created with.
  Tensor getVariable(VariableRef v) const;

  // ---- sub-graphs and functions
  /// The first `numTilesPerIPU` tiles of each IPU, numbered from 0.
  Graph createVirtualGraph(unsigned numTilesPerIPU);
  /// Tiles [lowerTile, upperTile), numbered from 0.
  Graph createVirtualGraph(unsigned lowerTile, unsigned upperTile);
  Graph getTopLevelGraph();
  unsigned getReplicationFactor() const { return 1; }
  Function addFunction(const program::Program &program);
  unsigned convertVirtualTileToPhysicalTile(unsigned virtualTileId) const;
  unsigned convertPhysicalTileToVirtualTile(unsigned physicalTileId) const;

  /// Graphviz dot of the vertices and their connections / of the compute sets and tensors.
  void outputVertexGraph(std::ostream &outputStream, ArrayRef<program::Program> progs = {}) const;
  void outputComputeGraph(std::ostream &outputStream, ArrayRef<program::Program> progs = {}) const;

  // ipusim (internal).
  ipusim::gc::GraphData &data() const { return *data_; }
  const std::shared_ptr<ipusim::gc::GraphData> &shared() const { return data_; }
  unsigned tileOffset() const { return tileOffset_; }

private:
  Graph(std::shared_ptr<ipusim::gc::GraphData> data, Target target, unsigned offset, unsigned tiles);
  void checkValueCount(ArrayRef<std::size_t> shape, std::size_t n, const char *what) const;
  void setFieldValue(FieldRef field, const void *data, const TypeTraits &traits, std::size_t n, bool vector = false);
  void setTensorValue(const Tensor &t, const void *data, const TypeTraits &traits, std::size_t n, bool broadcast);
  unsigned physicalTile(unsigned tile, const char *what) const;

  std::shared_ptr<ipusim::gc::GraphData> data_;
  Target target_;
  unsigned tileOffset_, numTiles_;
};

} // namespace poplar

#endif
