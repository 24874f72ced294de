// The compiler's working state (internal to graph_compiler/core): what each tile holds, the
// program as a tree of control nodes over BSP steps, and the steps themselves. Lower.cpp builds
// it from the graph, ExchangeSchedule.cpp times the exchanges, Memory.cpp places every item, and
// Emit.cpp writes each tile's supervisor program and data.
#pragma once

#include "ipusim/arch/ExchangeLayout.h"
#include "ipusim/gc/Compiler.h"
#include "ipusim/gc/ExchangeSchedule.h"
#include "ipusim/gc/Graph.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace ipusim::gc::build {

/// A place in one tile's memory before addresses are known: an item of that tile and an offset.
struct Ref {
  uint32_t item = UINT32_MAX;
  uint32_t offset = 0;
  bool valid() const { return item != UINT32_MAX; }
};

/// Something the memory planner places on a tile.
struct Item {
  enum Kind : uint8_t { Variable, Constant, VertexState, VertexData, CopyDescriptors, Temporary, Control } kind = Variable;
  uint32_t bytes = 0, align = 8;
  bool interleaved = false;  ///< must be in the interleaved region (a Vector<..., Interleaved> field)
  uint32_t maxAddr = 0;      ///< if non-zero, the highest address the item may start at (scaled pointers)
  bool temporary = false;    ///< a compiler temporary of step group `firstStep`
  uint32_t firstStep = 0, lastStep = 0;
  /// Liveness.cpp: the item holds a value only at program points [liveFirst, liveLast] (in the
  /// order of Liveness.cpp's flow graph); items without a range are always live.
  bool ranged = false;
  uint32_t liveFirst = 0, liveLast = 0;
  std::string name;          ///< for out-of-memory reports and the profile
  std::string vertexType;    ///< vertex state / data: the vertex class (the profile's By Type)
  uint32_t var = UINT32_MAX; ///< Variable, Constant: the variable and its first element
  uint64_t begin = 0;
  uint32_t addr = 0;         ///< the planner's result
  /// Items on the same tile this one must share no memory element with (a vertex's
  /// `elem(*a) != elem(*b)` constraint); the planner keeps to it where the tile has room.
  std::vector<uint32_t> apart;
};

/// Elements [begin, end) of a variable live on `tile` in item `item`.
struct Block {
  uint64_t begin, end;
  unsigned tile;
  uint32_t item;
};

/// `bytes` from src to dst on one tile, done by the runtime's CopyList vertex.
struct TileCopy {
  Ref dst, src;
  uint32_t bytes;
  /// One aligned word (items are 8-byte aligned, so the offsets tell): CopyWordList takes these
  /// first, in a loop of their own (graph_compiler/runtime/CopyList.S).
  bool oneWord() const { return bytes == 4 && dst.offset % 4 == 0 && src.offset % 4 == 0; }
};
/// At most this many of a list's descriptors are its leading one-word copies (CopyList.S divides
/// their count by 6 as x * 0xAAAB >> 18, exact below 98,304).
constexpr size_t kMaxOneWordCopies = 90000;
/// The one-word copies at the start of a list, as CopyWordList's `words` field counts them.
inline uint32_t leadingOneWordCopies(const std::vector<TileCopy> &list) {
  size_t k = 0;
  while (k < list.size() && k < kMaxOneWordCopies && list[k].oneWord()) ++k;
  return uint32_t(k);
}
/// A list runs as CopyWordList where it starts with this many one-word copies (two a worker: its
/// set-up costs six bundles, each word nine fewer than CopyList's), else as CopyList.
constexpr uint32_t kWordListMin = 12;
inline bool wordList(const std::vector<TileCopy> &list) { return leadingOneWordCopies(list) >= kWordListMin; }

/// Whole words from one tile to others (a multicast when several receivers).
struct Transfer {
  unsigned src;
  Ref from;       ///< word aligned
  uint32_t words;
  std::vector<std::pair<unsigned, Ref>> to; ///< receiver, word-aligned destination
  bool wide = false; ///< 64-bit items (even words, 8-byte aligned addresses)
};

/// What one tile does in a compute step: copies before its vertices, the vertices, copies after.
struct TileWork {
  std::vector<TileCopy> pre, post;
  std::vector<unsigned> vertices;
  uint32_t preState = UINT32_MAX, postState = UINT32_MAX; ///< the CopyList vertex states (items)
};

struct Step {
  enum Kind : uint8_t { Compute, Exchange, Host } kind = Compute;
  std::string name;               ///< for the profile: the compute set, the copy, the stream
  std::string type;               ///< OnTileExecute, DoExchange, StreamCopy ...
  std::map<unsigned, TileWork> work;  ///< Compute
  std::vector<Transfer> transfers;    ///< Exchange
  ExchangeSchedule schedule;          ///< Exchange (filled by the scheduler)
  unsigned hostStep = 0;              ///< Host: index into Executable::hostSteps
  uint64_t bytes = 0;                 ///< data moved (exchange, copies, host)
  unsigned group = 0;                 ///< the step group (one Execute or Copy) whose temporaries it uses
};

/// `bytes` at `ref` on `tile`.
struct Span {
  unsigned tile;
  Ref ref;
  uint32_t bytes;
};

/// Where a predicate or switch control value is: on tile `tile` at `ref`; every other tile reads
/// the copy the broadcast step put in its control block.
struct Predicate {
  unsigned tile = 0;
  Ref ref;              ///< the element (byte offset inside its item)
  TypeId type = TypeId::Int;
  int broadcast = -1;   ///< the exchange step that sends its word to the other tiles, or -1
};

/// The program as control flow over steps. Every tile runs the same tree; only the content of a
/// step differs between tiles.
struct Node {
  enum Kind : uint8_t { Seq, Run, Repeat, While, If, Switch, Call, Sync, Undef } kind = Seq;
  std::vector<Node> children; ///< Seq: in order; Repeat: body; While: cond, body; If: then, else;
                              ///< Switch: default, cases
  unsigned step = 0;          ///< Run
  uint64_t count = 0;         ///< Repeat
  unsigned slot = 0;          ///< Repeat: its counter's word in the control block
  Predicate pred;             ///< While, If, Switch
  bool whileTrue = true;      ///< While: loop while the predicate is non-zero (else while zero)
  std::vector<int64_t> cases; ///< Switch
  unsigned function = 0;      ///< Call
  unsigned zone = 3;          ///< Sync: the sync zone
  std::vector<Span> undef;    ///< Undef (WriteUndef): elements whose value ends here (no code)
};

/// Words of each tile's control block ([0] the saved $lr, [1] the broadcast predicate word, then
/// one counter per Repeat and a saved $lr per function).
constexpr uint32_t kControlLr = 0, kControlPredicate = 1, kControlFirstSlot = 2;

struct TileState {
  std::vector<Item> items;
  uint32_t control = UINT32_MAX;  ///< the control block item
  std::vector<uint32_t> vertexState; ///< per vertex placed here: its state item (by vertex id, see Build)
};

/// A vertex's state, built once its data has addresses: per field, where it points.
struct FieldPlace {
  Ref data;                       ///< edge / vector data
  uint64_t elements = 0;          ///< its length
  Ref table;                      ///< vector of vectors: the descriptor table (VertexData item)
  std::vector<std::pair<Ref, uint64_t>> inner; ///< vector of vectors: each element's data and length
  uint32_t elementBytes = 0;      ///< edges: bytes of one element
  bool reads = false, writes = false; ///< edges: Input / Output / InOut
};

struct Build {
  const GraphData &graph;
  const CompileOptions &options;
  arch::ExchangeLayout layout;
  std::vector<TileState> tiles;             ///< by tile id
  std::vector<std::vector<Block>> blocks;   ///< by variable, sorted by begin
  std::vector<Step> steps;
  std::vector<Node> programs;               ///< engine programs, then the hidden host read/write ones
  std::vector<Node> functions;
  std::vector<HostStep> hostSteps;
  std::vector<std::vector<Ref>> hostRefs;   ///< per host step, where each piece is
  std::vector<PrintStep> prints;
  unsigned slots = kControlFirstSlot;       ///< control block words in use
  std::vector<uint32_t> stateItem;          ///< by vertex: its state item on its tile
  std::vector<std::vector<FieldPlace>> fieldPlaces; ///< by vertex, by field
  std::set<unsigned> participating;         ///< tiles that run the program
  std::map<std::string, unsigned> programIndex; ///< hidden programs: "write:HANDLE", "read:HANDLE"
  int copyCodelet = -1;                     ///< the runtime's CopyList in `codelets`
  int copyWordsCodelet = -1;                ///< and its CopyWordList
  /// The codelet that runs a list of on-tile copies.
  unsigned copyCodeletFor(const std::vector<TileCopy> &list) const {
    return unsigned(wordList(list) ? copyWordsCodelet : copyCodelet);
  }
  CodeletRegistry codelets;                 ///< the graph's codelets and the runtime's

  Build(const GraphData &g, const CompileOptions &o) : graph(g), options(o), layout(g.target.config) {}

  uint32_t addItem(unsigned tile, Item item) {
    tiles[tile].items.push_back(std::move(item));
    return uint32_t(tiles[tile].items.size() - 1);
  }
  unsigned addStep(Step s) {
    steps.push_back(std::move(s));
    return unsigned(steps.size() - 1);
  }
};

void lower(Build &b, const std::vector<ProgramPtr> &programs); // Lower.cpp
/// Gives every variable that is not always live, and every temporary, the range of program
/// points where it holds a value (Item::ranged), so that memory planning can share their bytes.
void computeLiveness(Build &b); // Liveness.cpp

/// A VectorList field (Input<VectorList<T, DELTAN>> and the rest of the DeltaN family).
inline bool isVectorList(const cc::VertexField &f) {
  return f.kind == "VectorList" || f.layout == "DELTAN" || f.layout == "DELTANELEMENTS" || f.layout == "COMPACT_DELTAN";
}

struct TilePlanInput {
  std::vector<std::pair<uint32_t, uint32_t>> occupied; ///< the codelets' linked sections [begin, end)
  uint32_t controlBytes = 0;                           ///< the supervisor program
  uint32_t workerStack = 0, supervisorStack = 0;       ///< bytes of each
};
struct TilePlanOutput {
  uint32_t controlBase = 0; ///< where the supervisor program goes
  uint32_t stackBase = 0;   ///< the lowest stack address
  TileMemoryUsage usage;
};
/// Places every item of `tile` (Memory.cpp); throws graph_memory_allocation_error if it cannot.
void planTile(Build &b, unsigned tile, const TilePlanInput &in, TilePlanOutput &out);

} // namespace ipusim::gc::build
