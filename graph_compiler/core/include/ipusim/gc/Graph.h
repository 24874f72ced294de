// The graph: variables and constants with their tile mapping, vertices with their field
// connections, compute sets, data streams, functions and programs. poplar::Graph and the program
// classes are thin handles onto these; the compiler (Compiler.h) turns them into tile programs.
#pragma once

#include "ipusim/arch/Config.h"
#include "ipusim/gc/Codelets.h"
#include "ipusim/gc/Tensor.h"

#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

namespace ipusim::gc {

/// What each element of a variable is mapped to: segments [begin, end) -> tile; -1 = unmapped.
class TileMap {
public:
  struct Segment {
    uint64_t begin, end;
    int tile;
  };
  void assign(uint64_t begin, uint64_t end, int tile);
  /// The segments covering [begin, end), unmapped gaps included (tile -1), in order.
  std::vector<Segment> segments(uint64_t begin, uint64_t end) const;
  int tileOf(uint64_t element) const;

private:
  std::map<uint64_t, std::pair<uint64_t, int>> map_; ///< begin -> (end, tile); disjoint, mapped only
};

struct Variable {
  std::string name;
  TypeId type;
  uint64_t elements = 0;
  std::vector<size_t> shape;
  bool constant = false;
  std::vector<uint8_t> initial; ///< bytes on the device; empty unless given
  TileMap mapping;
};

/// One field of a vertex as the program connects it.
struct FieldBinding {
  bool connected = false;
  TensorPtr tensor;                  ///< edge fields: the data
  std::vector<TensorPtr> elements;   ///< vector-of-vector fields: one tensor per element
  bool sized = false;                ///< setFieldSize was called
  size_t size = 0;
  std::vector<uint8_t> value;        ///< value fields (and plain Vector members): the bytes
  bool hasValue = false;
};

struct Vertex {
  unsigned codelet;
  unsigned computeSet;
  int tile = -1;
  std::vector<FieldBinding> fields; ///< in the codelet's field order
};

struct ComputeSet {
  std::string name;
  std::vector<unsigned> vertices;
};

struct Stream {
  std::string handle;
  TypeId type;
  uint64_t elements = 0;
  bool toDevice = true;
  bool hostHandle = false; ///< made by createHostWrite/createHostRead (engine.writeTensor/readTensor)
};

/// A remote buffer (Graph::addRemoteBuffer): `repeats` rows of `elements` elements in Streaming
/// Memory (docs/poplar.md "Remote buffers").
struct RemoteBufferInfo {
  std::string handle;
  TypeId type;
  uint64_t elements = 0, repeats = 1;
  bool rearrangeOnHost = false, optimisedForMemory = false;
  uint64_t rowBytes() const;
};

struct ProgramNode;
using ProgramPtr = std::shared_ptr<const ProgramNode>;

struct ProgramNode {
  enum Kind {
    Sequence, Execute, Copy, StreamToTensor, TensorToStream, RemoteToTensor, TensorToRemote, Repeat, RepeatWhileTrue, RepeatWhileFalse,
    If, Switch, Call, Sync, WriteUndef, Print, Nop, Error
  } kind = Nop;
  std::vector<ProgramPtr> children; ///< Sequence: the steps; Repeat: body; RepeatWhile*: cond, body;
                                    ///< If: then, else; Switch: default, then one per case
  std::vector<int64_t> caseValues;  ///< Switch: the value of each case
  unsigned index = 0;               ///< Execute: compute set; stream copies: stream; remote copies:
                                    ///< remote buffer; Call: function
  uint64_t count = 0;               ///< Repeat: iterations
  TensorPtr src, dst;               ///< Copy (and stream copies: the tensor in dst or src)
  TensorPtr tensor;                 ///< If / RepeatWhile predicate, Switch control, Print / WriteUndef
                                    ///< tensor, remote copies' row offsets (null: row 0)
  unsigned syncType = 0;            ///< Sync: 0 internal, 1 external, 2 global
  std::string name;                 ///< debug name; Print: the title; Error: the message
};

/// The machine a graph is made for.
struct TargetInfo {
  arch::SystemConfig config;
  unsigned numIpus = 1;
  unsigned tilesPerIpu = 1472;
  std::string ipuVersion = "ipu2";
  unsigned numTiles() const { return numIpus * tilesPerIpu; }
};

/// poputil's linear tile mapping: `n` elements in whole grains spread evenly over at most
/// `tiles` tiles, each used tile getting at least `minElements` (parts in element order).
struct LinearPart {
  uint64_t begin, end;
  unsigned tile;
};
std::vector<LinearPart> linearMapping(uint64_t n, unsigned tiles, unsigned grain, unsigned minElements);

struct GraphData {
  const uint64_t id = nextId(); ///< names the graph in its tensors (TensorImpl::graph)
  TargetInfo target;
  CodeletRegistry codelets;
  std::vector<Variable> variables;
  std::vector<Vertex> vertices;
  std::vector<ComputeSet> computeSets;
  std::vector<Stream> streams;
  std::vector<RemoteBufferInfo> remoteBuffers;
  std::vector<ProgramPtr> functions;
  std::map<std::string, unsigned> streamByHandle;
  std::map<std::string, TensorPtr> hostWrites, hostReads; ///< createHostWrite/Read handles
  std::set<std::string> codeletFiles;                     ///< addCodelets: the files (and flags) added

  /// A new variable of `shape`, unmapped, as a view.
  TensorPtr addVariable(TypeId type, const std::vector<size_t> &shape, const std::string &name);
  /// The variable element bytes of a constant (given, or the fill value repeated).
  TensorPtr addConstant(TypeId type, const std::vector<size_t> &shape, std::vector<uint8_t> bytes, const std::string &name);
  void setTileMapping(const TensorImpl &t, unsigned tile);
  /// For each tile, the intervals of `t`'s flat elements mapped to it (unmapped elements: error
  /// unless `allowUnmapped`).
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> tileMapping(const TensorImpl &t, bool allowUnmapped) const;
  /// Writes element bytes into the variables' initial values.
  void setInitialValue(const TensorImpl &t, const void *bytes, size_t elementSize);
  unsigned addComputeSet(const std::string &name);
  unsigned addVertex(unsigned computeSet, const std::string &codeletName);
  unsigned addStream(const std::string &handle, TypeId type, uint64_t elements, bool toDevice, bool hostHandle);
  /// Remote buffers share the data streams' namespace of handles.
  unsigned addRemoteBuffer(RemoteBufferInfo info);
  /// Throws poplar_error "WHAT: the tensor belongs to another graph" unless `t` is this graph's.
  void checkOwned(const TensorImpl &t, const char *what) const;
  /// The name of a constant among `t`'s variables ("" if none): what a program must not write.
  std::string constantIn(const TensorImpl &t) const;

private:
  static uint64_t nextId();
};

} // namespace ipusim::gc
