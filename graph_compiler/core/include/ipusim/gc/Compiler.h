// Graph compilation: a graph and its programs -> one image per tile (codelet code, a supervisor
// program with an entry per engine program, vertex states, tensors) plus what the host side of
// the engine needs (host transfers, print steps, the profile's step table). See docs/poplar.md.
#pragma once

#include "ipusim/cc/Object.h"
#include "ipusim/gc/Graph.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ipusim::gc {

struct CompileOptions {
  uint32_t workerStackBytes = 0;     ///< 0: from the codelets' recorded stack use (else 1 KiB)
  uint32_t supervisorStackBytes = 0; ///< 0: from the supervisor codelets (else 256 bytes)
  double availableMemoryProportion = 1.0; ///< (unused by the core; ops read it)
};

/// One piece of a host transfer: `bytes` at `addr` on `tile`, at `offset` in the stream's buffer.
struct HostTransfer {
  unsigned tile;
  uint32_t addr, bytes;
  uint64_t offset;
};

/// A host exchange: tiles wait in the host sync while the host link moves these.
struct HostStep {
  enum Kind : uint8_t { StreamIn, StreamOut, Print, RemoteIn, RemoteOut } kind = StreamIn;
  unsigned stream = 0;   ///< StreamIn/Out: the graph's stream; Print: index into prints;
                         ///< RemoteIn/Out: the remote buffer
  uint64_t bytes = 0;    ///< bytes of one execution (the stream's buffer size; remote: rows x row bytes)
  std::vector<HostTransfer> pieces;
  /// RemoteIn/Out with an offset tensor: where its elements are (unsigned or int, one per row of
  /// the transfer, `offset` counting bytes into the offsets); empty: row 0.
  std::vector<HostTransfer> offsets;
  bool signedOffsets = false; ///< the offsets are int (else unsigned int)
  bool isRemote() const { return kind == RemoteIn || kind == RemoteOut; }
  bool toDevice() const { return kind == StreamIn || kind == RemoteIn; }
};

struct PrintStep {
  std::string title;
  TypeId type;
  std::vector<size_t> shape;
};

/// Bytes on one tile by the profile's categories.
struct TileMemoryUsage {
  uint64_t vertexCode = 0, controlCode = 0, variables = 0, constants = 0, vertexState = 0, vertexData = 0,
           copyDescriptors = 0, temporaries = 0, stack = 0, controlData = 0;
  /// Variables that are not always live (Liveness.cpp): the most bytes of them live at one point.
  /// `variables` counts the always-live ones; `temporaries` is also a peak.
  uint64_t notAlwaysLive = 0;
  uint64_t used = 0;     ///< addresses in use, gaps excluded
  uint64_t interleaved = 0; ///< of those, in the interleaved region
  uint64_t extent = 0;   ///< highest address used - base (gaps included), stacks excluded
  std::map<std::string, uint64_t> byVertexType;
};

/// What one step of the program is, for the profile (docs/poplar.md "Profile").
struct StepInfo {
  std::string type;  ///< OnTileExecute, DoExchange, StreamCopy, Sync ...
  std::string name;
  uint64_t bytes = 0;
  unsigned tiles = 0;
};

struct TileProgram {
  unsigned tile;
  cc::ObjectFile image;            ///< a linked image: every section with its address
  std::vector<uint32_t> entries;   ///< per program (engine programs, then hidden ones)
  std::map<uint32_t, int> syncSteps; ///< the address after each sync instruction -> the step it begins (-1 none)
  std::map<uint32_t, unsigned> hostSyncs; ///< the address after each host sync -> index into hostSteps
  TileMemoryUsage memory;
};

struct Executable {
  std::string configName;
  unsigned numIpus = 1, tilesPerIpu = 0;
  std::vector<TileProgram> tiles;  ///< participating tiles, ascending
  unsigned numPrograms = 0;        ///< engine programs (hidden ones follow)
  std::map<std::string, unsigned> hostWritePrograms, hostReadPrograms; ///< handle -> program index
  std::vector<Stream> streams;
  std::vector<RemoteBufferInfo> remoteBuffers;
  std::vector<HostStep> hostSteps;
  std::vector<PrintStep> prints;
  std::vector<StepInfo> steps;
  // The graph summary.
  uint64_t numVertices = 0, numEdges = 0, numVariables = 0, numComputeSets = 0;
  std::map<std::string, uint64_t> vertexTypes; ///< class -> instances

  std::vector<uint8_t> serialize() const;
  /// Throws poplar::poplar_error on bytes that are not an executable of this ipusim.
  static Executable deserialize(const std::vector<uint8_t> &bytes);
};

/// Compiles `programs` (engine program i is programs[i]). Throws poplar::poplar_error subclasses:
/// graph_memory_allocation_error (a tile out of memory), graph_connection_error (a vertex field
/// not connected), invalid_tile_mapping (a tensor or vertex not mapped), link_error ...
Executable compile(const GraphData &graph, const std::vector<ProgramPtr> &programs, const CompileOptions &options);

} // namespace ipusim::gc
