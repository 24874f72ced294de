// Lowering: variables to per-tile blocks, vertices to states whose fields point at local data
// (or at temporaries filled by exchange), programs to a tree of control nodes over BSP steps.
#include "Build.h"

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <array>
#include <tuple>

namespace ipusim::gc::build {

namespace {

uint32_t roundUp(uint64_t v, uint32_t a) { return uint32_t((v + a - 1) / a * a); }

/// Bytes of a tensor that live in one item of one tile, at byte `at` of the tensor.
struct Piece {
  unsigned tile;
  Ref ref;
  uint32_t bytes;
  uint64_t at;
};

/// Whether two lists of regions share an element (`a` with itself when `b` is null: an element
/// named twice).
bool overlap(const std::vector<Region> &a, const std::vector<Region> *b) {
  struct End {
    uint32_t var;
    uint64_t begin, end;
    int side;
  };
  std::vector<End> all;
  for (const Region &r : a) all.push_back({r.var, r.begin, r.end, 0});
  if (b)
    for (const Region &r : *b) all.push_back({r.var, r.begin, r.end, 1});
  std::sort(all.begin(), all.end(), [](const End &x, const End &y) {
    return x.var != y.var ? x.var < y.var : x.begin < y.begin;
  });
  // Sweep each variable's intervals in order, keeping the furthest end seen on each side.
  uint64_t reach[2] = {0, 0};
  for (size_t i = 0; i < all.size(); ++i) {
    if (i == 0 || all[i].var != all[i - 1].var) reach[0] = reach[1] = 0;
    const End &e = all[i];
    if (e.begin == e.end) continue;
    if (b ? e.begin < reach[1 - e.side] : e.begin < reach[0]) return true;
    reach[e.side] = std::max(reach[e.side], e.end);
  }
  return false;
}

const char *directionOf(const std::string &kind) { return kind.empty() ? "Input" : kind.c_str(); }

class Lowering {
public:
  explicit Lowering(Build &b) : b_(b), g_(b.graph) {}

  void run() {
    setup();
    for (size_t v = 0; v < g_.vertices.size(); ++v) placeVertexState(unsigned(v));
    b_.fieldPlaces.resize(g_.vertices.size());
    for (const ProgramPtr &p : programs_) b_.programs.push_back(lower(*p));
    // Hidden programs: Engine::writeTensor / readTensor run a stream copy of the tensor.
    for (const auto &[handle, t] : g_.hostWrites) {
      b_.programIndex["write:" + handle] = unsigned(b_.programs.size());
      b_.programs.push_back(streamCopy(g_.streamByHandle.at("write:" + handle), *t, true));
    }
    for (const auto &[handle, t] : g_.hostReads) {
      b_.programIndex["read:" + handle] = unsigned(b_.programs.size());
      b_.programs.push_back(streamCopy(g_.streamByHandle.at("read:" + handle), *t, false));
    }
    // Compute sets never executed still have vertices whose states must be complete.
    for (size_t cs = 0; cs < g_.computeSets.size(); ++cs) computeSetSteps(unsigned(cs));
    for (unsigned t : b_.participating) b_.tiles[t].items[b_.tiles[t].control].bytes = roundUp(b_.slots * 4, 8);
  }

  std::vector<ProgramPtr> programs_;

private:
  Build &b_;
  const GraphData &g_;
  unsigned group_ = 0;                         ///< temporaries of one group share no memory
  std::map<unsigned, std::vector<unsigned>> csSteps_; ///< compute set -> its steps
  std::map<unsigned, unsigned> functionSlot_;

  // ---- setup ----

  void setup() {
    const unsigned tiles = g_.target.numTiles();
    b_.tiles.resize(tiles);
    b_.codelets = g_.codelets;
    b_.codelets.addArchive(runtimeCodelets());
    b_.copyCodelet = b_.codelets.find("ipusim_rt::CopyList");
    b_.copyWordsCodelet = b_.codelets.find("ipusim_rt::CopyWordList");
    if (b_.copyCodelet < 0 || b_.copyWordsCodelet < 0)
      throw poplar::graph_object_load_error("ipusim: error: the runtime has no ipusim_rt::CopyList or CopyWordList");
    b_.blocks.resize(g_.variables.size());
    for (size_t vi = 0; vi < g_.variables.size(); ++vi) {
      const Variable &v = g_.variables[vi];
      const unsigned size = typeSize(v.type);
      for (const TileMap::Segment &s : v.mapping.segments(0, v.elements)) {
        if (s.tile < 0)
          throw poplar::invalid_tile_mapping("tensor '" + v.name + "' (shape " + shapeString(v.shape) + ", elements " +
                                             std::to_string(s.begin) + ".." + std::to_string(s.end - 1) +
                                             ") is not mapped to a tile; map it with Graph::setTileMapping");
        Item it;
        it.kind = v.constant ? Item::Constant : Item::Variable;
        it.bytes = roundUp((s.end - s.begin) * size, 8);
        it.name = v.name;
        it.var = uint32_t(vi);
        it.begin = s.begin;
        b_.blocks[vi].push_back({s.begin, s.end, unsigned(s.tile), b_.addItem(unsigned(s.tile), it)});
        b_.participating.insert(unsigned(s.tile));
      }
    }
    for (size_t v = 0; v < g_.vertices.size(); ++v) {
      const Vertex &vx = g_.vertices[v];
      if (vx.tile < 0)
        throw poplar::invalid_tile_mapping("vertex " + std::to_string(v) + " (" + className(vx) + ") in compute set '" +
                                           g_.computeSets[vx.computeSet].name +
                                           "' is not mapped to a tile; map it with Graph::setTileMapping");
      b_.participating.insert(unsigned(vx.tile));
    }
    if (b_.participating.empty()) b_.participating.insert(0);
    for (unsigned t : b_.participating) {
      Item c;
      c.kind = Item::Control;
      c.name = "control";
      b_.tiles[t].control = b_.addItem(t, c);
    }
  }

  std::string className(const Vertex &v) const { return b_.codelets.codelet(v.codelet).layout.className; }
  std::string vertexName(unsigned v) const {
    return "vertex " + std::to_string(v) + " (" + className(g_.vertices[v]) + ")";
  }

  void placeVertexState(unsigned v) {
    const Vertex &vx = g_.vertices[v];
    const cc::VertexLayout &l = b_.codelets.codelet(vx.codelet).layout;
    Item it;
    it.kind = Item::VertexState;
    it.bytes = roundUp(std::max<uint32_t>(l.size, 4), 4);
    it.align = std::max<uint32_t>(l.align, 4);
    it.name = "vertex state of " + l.className;
    it.vertexType = l.className;
    b_.stateItem.push_back(b_.addItem(unsigned(vx.tile), it));
  }

  // ---- tensors in memory ----

  std::vector<Piece> pieces(const TensorImpl &t) const {
    std::vector<Piece> out;
    uint64_t at = 0;
    for (const Region &r : t.regions()) {
      const unsigned size = typeSize(g_.variables[r.var].type);
      const std::vector<Block> &blocks = b_.blocks[r.var];
      auto it = std::upper_bound(blocks.begin(), blocks.end(), r.begin,
                                 [](uint64_t e, const Block &bl) { return e < bl.begin; });
      if (it != blocks.begin()) --it;
      for (uint64_t e = r.begin; e < r.end; ++it) {
        const Block &bl = *it;
        const uint64_t end = std::min(r.end, bl.end);
        const uint32_t bytes = uint32_t((end - e) * size), off = uint32_t((e - bl.begin) * size);
        Piece p{bl.tile, Ref{bl.item, off}, bytes, at};
        if (!out.empty() && out.back().tile == p.tile && out.back().ref.item == p.ref.item &&
            out.back().ref.offset + out.back().bytes == off)
          out.back().bytes += bytes;
        else
          out.push_back(p);
        at += bytes;
        e = end;
      }
    }
    return out;
  }

  uint32_t temporary(unsigned tile, uint32_t bytes, uint32_t align, const std::string &name) {
    Item it;
    it.kind = Item::Temporary;
    it.bytes = roundUp(std::max<uint32_t>(bytes, 4), 8);
    it.align = std::max<uint32_t>(align, 8);
    it.temporary = true;
    it.firstStep = it.lastStep = group_;
    it.name = name;
    return b_.addItem(tile, it);
  }

  /// Where a transfer's words go; transfers of the same source words merge into a multicast.
  struct ExchangePlan {
    std::vector<Transfer> transfers;
    std::map<std::tuple<unsigned, uint32_t, uint32_t, uint32_t>, std::vector<size_t>> bySource;
    void add(unsigned src, Ref from, uint32_t words, unsigned dst, Ref to) {
      // One send reaches a tile once: the same words to two places of one tile take two sends.
      std::vector<size_t> &same = bySource[std::make_tuple(src, from.item, from.offset, words)];
      for (size_t i : same) {
        Transfer &x = transfers[i];
        bool has = false;
        for (const auto &[t, r] : x.to) {
          if (t == dst && r.item == to.item && r.offset == to.offset) return; // the same words again
          has |= t == dst;
        }
        if (!has) {
          x.to.push_back({dst, to});
          return;
        }
      }
      same.push_back(transfers.size());
      transfers.push_back({src, from, words, {{dst, to}}});
    }
    bool empty() const { return transfers.empty(); }
  };

  /// `bytes` to go from (srcTile, src) to (dstTile, dst).
  struct Move {
    unsigned srcTile;
    Ref src;
    unsigned dstTile;
    Ref dst;
    uint32_t bytes;
  };
  /// The moves of a copy with those that continue one another on both sides joined, each where
  /// the first of its parts was; the others in their order. A copy's views may take its elements
  /// in an order that is contiguous on neither side (a convolution's expansion copies tap by tap,
  /// so that a tap's elements lie a row apart in the expanded matrix, where a kernel row's taps
  /// are side by side in both): joined, they are one exchange transfer (or one on-tile copy)
  /// instead of one a tap.
  static std::vector<Move> joinMoves(std::vector<Move> moves) {
    std::vector<size_t> order(moves.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    auto key = [&](size_t k) {
      const Move &m = moves[k];
      return std::make_tuple(m.srcTile, m.dstTile, m.dst.item, m.src.item, m.dst.offset);
    };
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
    std::vector<bool> joined(moves.size(), false);
    bool any = false;
    for (size_t k = 0; k < order.size();) {
      Move &first = moves[order[k]];
      size_t next = k + 1;
      for (; next < order.size(); ++next) {
        const Move &m = moves[order[next]];
        if (m.srcTile != first.srcTile || m.dstTile != first.dstTile || m.dst.item != first.dst.item ||
            m.src.item != first.src.item || m.dst.offset != first.dst.offset + first.bytes ||
            m.src.offset != first.src.offset + first.bytes)
          break;
        first.bytes += m.bytes;
        joined[order[next]] = true;
        any = true;
      }
      k = next;
    }
    if (!any) return moves;
    std::vector<Move> out;
    for (size_t k = 0; k < moves.size(); ++k)
      if (!joined[k]) out.push_back(moves[k]);
    return out;
  }

  /// Moves `bytes` from (srcTile, src) to (dstTile, dst): on-tile into `local`, between tiles by
  /// exchange (whole aligned words straight into place, anything else into a word-aligned
  /// scratch area on the receiver and then copied into place by `fixup`).
  void move(unsigned srcTile, Ref src, unsigned dstTile, Ref dst, uint32_t bytes, ExchangePlan &x,
            std::map<unsigned, TileWork> &local, std::map<unsigned, TileWork> &fixup, bool localPre) {
    if (bytes == 0) return;
    if (srcTile == dstTile) {
      (localPre ? local[dstTile].pre : local[dstTile].post).push_back({dst, src, bytes});
      return;
    }
    if (src.offset % 4 == 0 && dst.offset % 4 == 0 && bytes % 4 == 0) {
      x.add(srcTile, src, bytes / 4, dstTile, dst);
      return;
    }
    // Both sides the same bytes into a word: the whole words between go straight into place,
    // only the partial words at the ends through scratch.
    if (const uint32_t head = (4 - dst.offset % 4) % 4; src.offset % 4 == dst.offset % 4 && bytes >= head + 4) {
      const uint32_t words = (bytes - head) / 4, tail = bytes - head - 4 * words;
      move(srcTile, src, dstTile, dst, head, x, local, fixup, localPre);
      x.add(srcTile, Ref{src.item, src.offset + head}, words, dstTile, Ref{dst.item, dst.offset + head});
      move(srcTile, Ref{src.item, src.offset + head + 4 * words}, dstTile, Ref{dst.item, dst.offset + head + 4 * words}, tail,
           x, local, fixup, localPre);
      return;
    }
    const uint32_t from = src.offset & ~3u, to = roundUp(src.offset + bytes, 4);
    uint32_t scratch = temporary(dstTile, to - from, 8, "exchange scratch");
    x.add(srcTile, Ref{src.item, from}, (to - from) / 4, dstTile, Ref{scratch, 0});
    fixup[dstTile].pre.push_back({dst, Ref{scratch, src.offset - from}, bytes});
  }

  // ---- compute sets ----

  struct CsBuild {
    ExchangePlan in, out;
    std::map<unsigned, TileWork> work, outFixup, inFixupUnused;
    std::map<std::string, Ref> inputTemps; ///< deduplicated gathered inputs
  };

  /// Where an edge's data is for vertex v on its tile: the tensor's own memory when it is there,
  /// contiguous and aligned; else a temporary gathered before (inputs) and scattered after
  /// (outputs) the compute set.
  Ref edge(unsigned v, const cc::VertexField &f, const std::string &direction, const std::string &layout,
           uint32_t elemAlign, bool interleaved, const TensorImpl &t, const std::string &what, CsBuild &cs) {
    const Vertex &vx = g_.vertices[v];
    const unsigned tile = unsigned(vx.tile);
    const TypeId want = typeFromName(f.elementType);
    if (want != TypeId::Count && typeSize(want) != typeSize(t.type))
      throw poplar::graph_connection_error(vertexName(v) + ": " + what + " is " + f.elementType + " but the tensor connected to it is " +
                                           typeName(t.type));
    const unsigned size = typeSize(t.type);
    // Scaled pointers hold addresses in units of 4, 8 or 16 bytes.
    const uint32_t layoutAlign = layout == "SCALED_PTR32" ? 4 : layout == "SCALED_PTR64" ? 8 : layout == "SCALED_PTR128" ? 16 : 1;
    const uint32_t align = std::max<uint32_t>({elemAlign, size, layoutAlign});
    // The highest start address the field's encoding can hold (asm-dialect §3.2).
    uint32_t maxAddr = 0;
    if (layout == "SCALED_PTR32") maxAddr = b_.graph.target.config.tile.memoryBase + 0x3FFFC;
    else if (layout == "SCALED_PTR64") maxAddr = 0x7FFF8;
    else if (layout == "SCALED_PTR128") maxAddr = 0xFFFF0;
    else if (layout == "SHORT_SPAN") maxAddr = 0xFFFFF;
    if (layout == "SHORT_SPAN" && t.numElements() > 0xFFF)
      throw poplar::graph_connection_error(vertexName(v) + ": " + what + " (SHORT_SPAN) holds at most 4095 elements, not " +
                                           std::to_string(t.numElements()));
    const uint64_t bytes = t.numElements() * size;
    if (bytes == 0) return Ref{b_.stateItem[v], 0};
    std::vector<Piece> ps = pieces(t);
    if (ps.size() == 1 && ps[0].tile == tile && ps[0].ref.offset % align == 0) {
      Item &item = b_.tiles[tile].items[ps[0].ref.item];
      // Interleaved memory starts at 0x80000, so it cannot also satisfy a SCALED_PTR32/64 range.
      const uint32_t limit = maxAddr ? maxAddr - ps[0].ref.offset : 0;
      const uint32_t newMax = !limit ? item.maxAddr : item.maxAddr ? std::min(item.maxAddr, limit) : limit;
      const bool wantsInterleaved = interleaved || item.interleaved;
      if (!(wantsInterleaved && newMax && newMax < 0x80000)) {
        item.interleaved = wantsInterleaved;
        item.maxAddr = newMax;
        item.align = std::max(item.align, align);
        return ps[0].ref;
      }
    }
    const bool reads = direction != "Output", writes = direction != "Input";
    std::string key;
    if (!writes) {
      key = std::to_string(tile) + "/" + std::to_string(align) + "/" + std::to_string(interleaved) + "/" + std::to_string(maxAddr);
      for (const Region &r : t.regions()) key += ";" + std::to_string(r.var) + ":" + std::to_string(r.begin) + "-" + std::to_string(r.end);
      if (auto it = cs.inputTemps.find(key); it != cs.inputTemps.end()) return it->second;
    }
    uint32_t temp = temporary(tile, uint32_t(bytes), align, what + " of " + className(vx));
    Item &ti = b_.tiles[tile].items[temp];
    ti.interleaved = interleaved;
    if (maxAddr) ti.maxAddr = maxAddr;
    for (const Piece &p : ps) {
      const Ref place{temp, uint32_t(p.at)};
      if (reads) move(p.tile, p.ref, tile, place, p.bytes, cs.in, cs.work, cs.work, true);
      if (writes) move(tile, place, p.tile, p.ref, p.bytes, cs.out, cs.work, cs.outFixup, false);
    }
    if (!writes) cs.inputTemps[key] = Ref{temp, 0};
    return Ref{temp, 0};
  }

  void placeFields(unsigned v, CsBuild &cs) {
    const Vertex &vx = g_.vertices[v];
    const cc::VertexLayout &l = b_.codelets.codelet(vx.codelet).layout;
    std::vector<FieldPlace> &places = b_.fieldPlaces[v];
    places.assign(l.fields.size(), {});
    for (size_t fi = 0; fi < l.fields.size(); ++fi) {
      const cc::VertexField &f = l.fields[fi];
      const FieldBinding &fb = vx.fields[fi];
      FieldPlace &fp = places[fi];
      const std::string what = "field '" + f.name + "'";
      if (f.kind == "Value") {
        if (!fb.hasValue)
          throw poplar::graph_connection_error(vertexName(v) + ": " + what + " has no value (set it with Graph::setInitialValue)");
        continue;
      }
      const bool list = isVectorList(f);
      const bool vectorOfEdges = list || (f.kind == "Vector" && !f.innerLayout.empty()) ||
                                 (f.kind != "Vector" && f.kind != "Value" && !f.innerLayout.empty());
      if (f.kind == "Vector" && f.innerLayout.empty()) {
        // A plain vector member: its values live with the vertex (VertexData).
        if (!fb.hasValue)
          throw poplar::graph_connection_error(vertexName(v) + ": " + what + " has no values (set them with Graph::setInitialValue)");
        Item it;
        it.kind = Item::VertexData;
        it.bytes = roundUp(std::max<size_t>(fb.value.size(), 4), 8);
        it.name = "field data of " + l.className;
        it.vertexType = l.className;
        fp.data = Ref{b_.addItem(unsigned(vx.tile), it), 0};
        const TypeId et = typeFromName(f.elementType);
        fp.elements = et == TypeId::Count ? fb.value.size() : fb.value.size() / typeSize(et);
        continue;
      }
      if (vectorOfEdges) {
        std::vector<TensorPtr> elems = fb.elements;
        if (fb.connected && fb.tensor) {
          if (fb.tensor->shape.size() < 1)
            throw poplar::graph_connection_error(vertexName(v) + ": " + what + " is a vector of vectors; connect a 2-D tensor or its rows");
          for (size_t i = 0; i < fb.tensor->shape[0]; ++i) elems.push_back(view::index(*fb.tensor, i));
        }
        if (fb.sized && elems.size() != fb.size)
          throw poplar::graph_connection_error(vertexName(v) + ": " + what + " has size " + std::to_string(fb.size) + " but " +
                                               std::to_string(elems.size()) + " elements are connected");
        for (size_t i = 0; i < elems.size(); ++i)
          if (!elems[i])
            throw poplar::graph_connection_error(vertexName(v) + ": element " + std::to_string(i) + " of " + what +
                                                 " is not connected");
        if (!fb.connected && !fb.sized && elems.empty())
          throw poplar::graph_connection_error(vertexName(v) + ": " + what + " is not connected");
        const std::string inner = list ? "SPAN" : f.innerLayout;
        const std::string dir = f.kind == "Input" || f.kind == "Output" || f.kind == "InOut" ? f.kind : directionOf(f.innerKind);
        for (size_t i = 0; i < elems.size(); ++i) {
          if (!list && f.innerLayout == "PTR" && elems[i]->numElements() != 1)
            throw poplar::graph_connection_error(vertexName(v) + ": element " + std::to_string(i) + " of " + what +
                                                 " is a scalar edge but the tensor has " + std::to_string(elems[i]->numElements()) + " elements");
          Ref r = edge(v, f, dir, inner, f.elementAlign, f.interleaved, *elems[i], what + "[" + std::to_string(i) + "]", cs);
          fp.inner.push_back({r, elems[i]->numElements()});
          fp.elementBytes = typeSize(elems[i]->type);
        }
        fp.reads = dir != "Output";
        fp.writes = dir == "Output" || dir == "InOut";
        Item it;
        it.kind = Item::VertexData;
        // A vector list's table is one word a vector, reached through a SCALED_PTR32.
        const uint32_t each = list ? 4 : inner == "SPAN" ? 8 : 4;
        it.bytes = roundUp(std::max<size_t>(each * elems.size(), 4), 8);
        if (list) it.maxAddr = b_.graph.target.config.tile.memoryBase + 0x3FFFC;
        it.name = "field descriptors of " + l.className;
        it.vertexType = l.className;
        fp.table = Ref{b_.addItem(unsigned(vx.tile), it), 0};
        fp.elements = elems.size();
        continue;
      }
      // An edge: Input / Output / InOut of a scalar or a vector.
      if (!fb.connected || !fb.tensor)
        throw poplar::graph_connection_error(vertexName(v) + ": " + what + " is not connected");
      if (f.layout == "PTR" && fb.tensor->numElements() != 1)
        throw poplar::graph_connection_error(vertexName(v) + ": " + what + " is a scalar edge but the tensor connected to it has " +
                                             std::to_string(fb.tensor->numElements()) + " elements");
      fp.data = edge(v, f, f.kind, f.layout, f.elementAlign, f.interleaved, *fb.tensor, what, cs);
      fp.elements = fb.tensor->numElements();
      fp.elementBytes = typeSize(fb.tensor->type);
      fp.reads = f.kind != "Output";
      fp.writes = f.kind == "Output" || f.kind == "InOut";
    }
    // Element constraints: the items holding the two fields' data are kept apart.
    auto itemsOf = [&](const std::string &field) {
      std::vector<uint32_t> items;
      for (size_t fi = 0; fi < l.fields.size(); ++fi) {
        if (l.fields[fi].name != field) continue;
        if (places[fi].data.valid()) items.push_back(places[fi].data.item);
        for (const auto &[r, n] : places[fi].inner)
          if (r.valid()) items.push_back(r.item);
      }
      return items;
    };
    std::vector<Item> &tileItems = b_.tiles[unsigned(vx.tile)].items;
    for (const auto &[a, c] : l.elemApart)
      for (uint32_t x : itemsOf(a))
        for (uint32_t y : itemsOf(c))
          if (x != y && tileItems[x].kind != Item::VertexState && tileItems[y].kind != Item::VertexState &&
              std::find(tileItems[x].apart.begin(), tileItems[x].apart.end(), y) == tileItems[x].apart.end()) {
            tileItems[x].apart.push_back(y);
            tileItems[y].apart.push_back(x);
          }
  }

  std::vector<unsigned> computeSetSteps(unsigned cs) {
    if (auto it = csSteps_.find(cs); it != csSteps_.end()) return it->second;
    ++group_;
    const ComputeSet &c = g_.computeSets[cs];
    CsBuild build;
    for (unsigned v : c.vertices) {
      placeFields(v, build);
      build.work[unsigned(g_.vertices[v].tile)].vertices.push_back(v);
    }
    std::vector<unsigned> steps;
    if (!build.in.empty()) steps.push_back(exchangeStep(c.name + " (inputs)", std::move(build.in.transfers)));
    if (!build.work.empty()) steps.push_back(computeStep(c.name, std::move(build.work)));
    if (!build.out.empty()) steps.push_back(exchangeStep(c.name + " (outputs)", std::move(build.out.transfers)));
    if (!build.outFixup.empty()) steps.push_back(computeStep(c.name + " (outputs)", std::move(build.outFixup)));
    return csSteps_[cs] = steps;
  }

  /// Long transfers between 8-byte aligned places go as 64-bit items, twice the words a cycle
  /// (an odd last word goes on its own).
  static constexpr uint32_t kWideWords = 8;
  std::vector<Transfer> widen(std::vector<Transfer> transfers) {
    std::vector<Transfer> out;
    for (Transfer &x : transfers) {
      bool aligned = x.words >= kWideWords && x.from.offset % 8 == 0;
      for (const auto &[t, r] : x.to) aligned &= r.offset % 8 == 0;
      if (!aligned) {
        out.push_back(std::move(x));
        continue;
      }
      if (x.words % 2) {
        Transfer tail = x;
        tail.from.offset += 4 * (x.words - 1);
        tail.words = 1;
        for (auto &[t, r] : tail.to) r.offset += 4 * (x.words - 1);
        out.push_back(std::move(tail));
        x.words -= 1;
      }
      x.wide = true;
      out.push_back(std::move(x));
    }
    return out;
  }

  unsigned exchangeStep(const std::string &name, std::vector<Transfer> transfers) {
    transfers = widen(std::move(transfers));
    Step s;
    s.kind = Step::Exchange;
    s.name = name;
    s.type = "DoExchange";
    for (const Transfer &x : transfers) s.bytes += uint64_t(x.words) * 4 * x.to.size();
    s.transfers = std::move(transfers);
    s.group = group_;
    return b_.addStep(std::move(s));
  }

  unsigned computeStep(const std::string &name, std::map<unsigned, TileWork> work) {
    Step s;
    s.kind = Step::Compute;
    s.name = name;
    s.type = "OnTileExecute";
    // Long copies are split so that the six workers share them (CopyList runs descriptor i on
    // worker i mod 6); each piece keeps the alignment of the whole.
    for (auto &[tile, w] : work)
      for (std::vector<TileCopy> *list : {&w.pre, &w.post}) {
        std::vector<TileCopy> split;
        for (const TileCopy &c : *list) {
          s.bytes += c.bytes;
          if (c.bytes < 768) {
            split.push_back(c);
            continue;
          }
          const uint32_t chunk = roundUp((c.bytes + 5) / 6, 8);
          for (uint32_t at = 0; at < c.bytes; at += chunk)
            split.push_back({Ref{c.dst.item, c.dst.offset + at}, Ref{c.src.item, c.src.offset + at}, std::min(chunk, c.bytes - at)});
        }
        // A copy that does not cover whole words writes its partial words by read-modify-write
        // (tile memory stores 32 or 64 bits), so two copies sharing a word must not run on two
        // workers at once. Each such copy is cut into its whole words, which any worker may
        // copy, and a piece for each partial word; all pieces of one word go to the worker its
        // address picks (descriptor positions i with i mod 6 that worker, the gaps filled by the
        // other copies or by empty ones), so that partial words spread over the six workers.
        // Items are 8-byte aligned, so offsets tell the addresses' alignment. Many one-word
        // copies go first, for CopyWordList's loop of five bundles a word where CopyList's
        // general path takes fourteen (a convolution's expansion and a rearrangement into the
        // AMP's weight order are mostly such words).
        std::vector<TileCopy> whole;
        std::array<std::vector<TileCopy>, 6> pieces; // partial words, by worker
        for (const TileCopy &c : split) {
          const uint32_t begin = c.dst.offset, end = begin + c.bytes;
          auto piece = [&](uint32_t from, uint32_t to) {
            return TileCopy{Ref{c.dst.item, from}, Ref{c.src.item, c.src.offset + (from - begin)}, to - from};
          };
          if (c.bytes == 0 || (begin % 4 == 0 && c.bytes % 4 == 0)) {
            whole.push_back(c);
            continue;
          }
          const uint32_t first = roundUp(begin, 4), last = end / 4 * 4; // its whole words [first, last)
          for (uint32_t at = begin; at < end;) {
            if (at == first && first < last) {
              whole.push_back(piece(first, last));
              at = last;
              continue;
            }
            const uint32_t to = std::min(end, at / 4 * 4 + 4);
            pieces[(c.dst.item * 7u + at / 4) % 6].push_back(piece(at, to));
            at = to;
          }
        }
        if (size_t(std::count_if(whole.begin(), whole.end(), [](const TileCopy &c) { return c.oneWord(); })) >= kWordListMin)
          std::stable_partition(whole.begin(), whole.end(), [](const TileCopy &c) { return c.oneWord(); });
        const size_t lead = std::min(leadingOneWordCopies(whole), uint32_t(whole.size()));
        std::vector<TileCopy> merged(whole.begin(), whole.begin() + std::ptrdiff_t(lead));
        std::array<size_t, 6> taken{};
        size_t pending = 0;
        for (const auto &p : pieces) pending += p.size();
        for (size_t next = lead; next < whole.size() || pending;) {
          const size_t w = merged.size() % 6;
          if (taken[w] < pieces[w].size()) {
            merged.push_back(pieces[w][taken[w]++]);
            --pending;
          } else if (next < whole.size()) {
            merged.push_back(whole[next++]);
          } else {
            const TileCopy &any = *std::find_if(pieces.begin(), pieces.end(), [](const auto &p) { return !p.empty(); })->begin();
            merged.push_back({any.dst, any.src, 0});
          }
        }
        *list = std::move(merged);
      }
    s.work = std::move(work);
    s.group = group_;
    return b_.addStep(std::move(s));
  }

  // ---- programs ----

  Node seq(std::vector<Node> children = {}) {
    Node n;
    n.kind = Node::Seq;
    n.children = std::move(children);
    return n;
  }
  Node run(unsigned step) {
    Node n;
    n.kind = Node::Run;
    n.step = step;
    return n;
  }

  Node streamCopy(unsigned stream, const TensorImpl &t, bool toDevice) {
    const Stream &s = g_.streams[stream];
    if (t.type != s.type)
      throw poplar::type_error("Copy: stream '" + s.handle + "' carries " + typeName(s.type) + " but the tensor is " + typeName(t.type));
    if (t.numElements() != s.elements)
      throw poplar::poplar_error("Copy: stream '" + s.handle + "' carries " + std::to_string(s.elements) +
                                 " elements but the tensor has " + std::to_string(t.numElements()));
    HostStep h;
    h.kind = toDevice ? HostStep::StreamIn : HostStep::StreamOut;
    h.stream = stream;
    h.bytes = s.elements * typeSize(s.type);
    return hostStep(std::move(h), t, (toDevice ? "host -> " : "host <- ") + s.handle);
  }

  /// A copy between tensor `t` and rows of remote buffer `buffer` (docs/poplar.md "Remote
  /// buffers"): without `offset`, `t` is row 0; with it, `t` holds offset.numElements() rows, row
  /// i going to (or coming from) the row offset[i] holds when the copy runs.
  Node remoteCopy(unsigned buffer, const TensorImpl &t, const TensorImpl *offset, bool toDevice) {
    const RemoteBufferInfo &r = g_.remoteBuffers[buffer];
    const char *what = toDevice ? "Copy (remote buffer -> tensor)" : "Copy (tensor -> remote buffer)";
    if (t.type != r.type)
      throw poplar::type_error(std::string(what) + ": remote buffer '" + r.handle + "' holds " + typeName(r.type) +
                               " but the tensor is " + typeName(t.type));
    uint64_t rows = 1;
    if (offset) {
      if (offset->type != TypeId::UnsignedInt && offset->type != TypeId::Int)
        throw poplar::type_error(std::string(what) + ": the offset tensor of remote buffer '" + r.handle +
                                 "' must be unsigned int or int, not " + typeName(offset->type));
      rows = offset->numElements();
      if (rows == 0) throw poplar::poplar_error(std::string(what) + ": the offset tensor of remote buffer '" + r.handle + "' is empty");
    }
    if (t.numElements() != rows * r.elements)
      throw poplar::poplar_error(std::string(what) + ": remote buffer '" + r.handle + "' has rows of " +
                                 std::to_string(r.elements) + " elements, so the tensor must have " + std::to_string(rows) +
                                 " x " + std::to_string(r.elements) + " = " + std::to_string(rows * r.elements) +
                                 " elements, not " + std::to_string(t.numElements()));
    HostStep h;
    h.kind = toDevice ? HostStep::RemoteIn : HostStep::RemoteOut;
    h.stream = buffer;
    h.bytes = rows * r.rowBytes();
    std::vector<Ref> offsetRefs;
    h.signedOffsets = offset && offset->type == TypeId::Int;
    if (offset)
      for (const Piece &p : pieces(*offset)) {
        h.offsets.push_back({p.tile, 0, p.bytes, p.at});
        offsetRefs.push_back(p.ref);
      }
    return hostStep(std::move(h), t, (toDevice ? "remote -> " : "remote <- ") + r.handle, std::move(offsetRefs));
  }

  /// A host step moving tensor `t` (`extraRefs`: the refs of h.offsets).
  Node hostStep(HostStep h, const TensorImpl &t, const std::string &name, std::vector<Ref> extraRefs = {}) {
    std::vector<Ref> refs;
    for (const Piece &p : pieces(t)) {
      h.pieces.push_back({p.tile, 0, p.bytes, p.at});
      refs.push_back(p.ref);
    }
    refs.insert(refs.end(), extraRefs.begin(), extraRefs.end());
    Step s;
    s.kind = Step::Host;
    s.name = name;
    s.type = "StreamCopy";
    s.bytes = h.bytes;
    s.hostStep = unsigned(b_.hostSteps.size());
    b_.hostSteps.push_back(std::move(h));
    b_.hostRefs.push_back(std::move(refs));
    return run(b_.addStep(std::move(s)));
  }

  Predicate predicate(const TensorImpl &t, const char *program) {
    if (t.numElements() != 1)
      throw poplar::control_program_error(std::string(program) + ": the predicate must be a scalar tensor (one element), not shape " +
                                          shapeString(t.shape));
    std::vector<Piece> ps = pieces(t);
    Predicate p;
    p.tile = ps[0].tile;
    p.ref = ps[0].ref;
    p.type = t.type;
    std::vector<Transfer> xs;
    Transfer x{p.tile, Ref{p.ref.item, p.ref.offset & ~3u}, 1, {}};
    for (unsigned tile : b_.participating)
      if (tile != p.tile) x.to.push_back({tile, Ref{b_.tiles[tile].control, kControlPredicate * 4}});
    if (!x.to.empty()) {
      xs.push_back(std::move(x));
      ++group_;
      p.broadcast = int(exchangeStep(std::string(program) + " predicate", std::move(xs)));
      b_.steps[unsigned(p.broadcast)].type = "DoExchange";
    }
    return p;
  }

  Node lower(const ProgramNode &p) {
    static const char *const kProgramNames[] = {"Sequence", "Execute", "Copy", "Copy", "Copy", "Repeat",
                                                 "RepeatWhileTrue", "RepeatWhileFalse", "If", "Switch", "Call",
                                                 "Sync", "WriteUndef", "PrintTensor", "Sequence", "ErrorProgram"};
    for (const TensorPtr &t : {p.src, p.dst, p.tensor})
      if (t) g_.checkOwned(*t, kProgramNames[p.kind]);
    // Constants keep their value for every run: no program writes them.
    if (p.dst)
      if (const std::string c = g_.constantIn(*p.dst); !c.empty())
        throw poplar::poplar_error(std::string(kProgramNames[p.kind]) + ": the destination includes constant '" + c +
                                   "', which a program cannot write");
    switch (p.kind) {
    case ProgramNode::Sequence: {
      Node n = seq();
      for (const ProgramPtr &c : p.children) n.children.push_back(lower(*c));
      return n;
    }
    case ProgramNode::Execute: {
      if (p.tensor)
        throw poplar::poplar_error("Execute(cs, tensor): ipusim does not model how vertex results reach a tensor; "
                                   "use Execute(cs) with a vertex that writes the result (docs/poplar.md)");
      Node n = seq();
      for (unsigned s : computeSetSteps(p.index)) n.children.push_back(run(s));
      return n;
    }
    case ProgramNode::Copy: return copy(*p.src, *p.dst, p.name);
    case ProgramNode::StreamToTensor: return streamCopy(p.index, *p.dst, true);
    case ProgramNode::TensorToStream: return streamCopy(p.index, *p.src, false);
    case ProgramNode::RemoteToTensor: return remoteCopy(p.index, *p.dst, p.tensor.get(), true);
    case ProgramNode::TensorToRemote: return remoteCopy(p.index, *p.src, p.tensor.get(), false);
    case ProgramNode::Repeat: {
      if (p.count == 0) return seq();
      Node n;
      n.kind = Node::Repeat;
      n.count = p.count;
      n.slot = b_.slots++;
      n.children.push_back(lower(*p.children[0]));
      return n;
    }
    case ProgramNode::RepeatWhileTrue:
    case ProgramNode::RepeatWhileFalse: {
      Node n;
      n.kind = Node::While;
      n.whileTrue = p.kind == ProgramNode::RepeatWhileTrue;
      n.children.push_back(lower(*p.children[0]));
      n.pred = predicate(*p.tensor, n.whileTrue ? "RepeatWhileTrue" : "RepeatWhileFalse");
      n.children.push_back(lower(*p.children[1]));
      return n;
    }
    case ProgramNode::If: {
      Node n;
      n.kind = Node::If;
      n.pred = predicate(*p.tensor, "If");
      n.children.push_back(lower(*p.children[0]));
      n.children.push_back(lower(*p.children[1]));
      return n;
    }
    case ProgramNode::Switch: {
      TypeId ct = p.tensor->type;
      if (typeInfo(ct).isFloat || typeSize(ct) > 4)
        throw poplar::control_program_error(std::string("Switch: the control tensor must be a scalar integer, not ") + typeName(ct));
      Node n;
      n.kind = Node::Switch;
      n.pred = predicate(*p.tensor, "Switch");
      n.cases = p.caseValues;
      for (const ProgramPtr &c : p.children) n.children.push_back(lower(*c));
      return n;
    }
    case ProgramNode::Call: {
      if (p.index >= g_.functions.size()) throw poplar::control_program_error("Call: the function does not belong to this graph");
      while (b_.functions.size() < g_.functions.size()) b_.functions.push_back(seq());
      if (!functionSlot_.count(p.index)) {
        functionSlot_[p.index] = b_.slots++;
        b_.functions[p.index] = lower(*g_.functions[p.index]);
        b_.functions[p.index].slot = functionSlot_[p.index];
      }
      Node n;
      n.kind = Node::Call;
      n.function = p.index;
      return n;
    }
    case ProgramNode::Sync: {
      Node n;
      n.kind = Node::Sync;
      n.zone = p.syncType == 0 ? 3 : p.syncType == 1 ? 4 : 5;
      return n;
    }
    case ProgramNode::Print: {
      HostStep h;
      h.kind = HostStep::Print;
      h.stream = unsigned(b_.prints.size());
      h.bytes = p.tensor->numElements() * typeSize(p.tensor->type);
      b_.prints.push_back({p.name, p.tensor->type, p.tensor->shape});
      return hostStep(std::move(h), *p.tensor, "print " + p.name);
    }
    case ProgramNode::WriteUndef: {
      // No code: it tells liveness (Liveness.cpp) that the elements' values are dead here.
      Node n;
      n.kind = Node::Undef;
      for (const Piece &piece : pieces(*p.tensor)) n.undef.push_back({piece.tile, piece.ref, piece.bytes});
      return n;
    }
    case ProgramNode::Nop:
    case ProgramNode::Error:
      return seq();
    }
    return seq();
  }

  Node copy(const TensorImpl &src, const TensorImpl &dst, const std::string &name) {
    if (src.type != dst.type)
      throw poplar::type_error(std::string("Copy: the source is ") + typeName(src.type) + " but the destination is " + typeName(dst.type));
    if (src.numElements() != dst.numElements())
      throw poplar::poplar_error("Copy: the source has shape " + shapeString(src.shape) + " (" + std::to_string(src.numElements()) +
                                 " elements) but the destination has shape " + shapeString(dst.shape) + " (" +
                                 std::to_string(dst.numElements()) + ")");
    if (overlap(dst.regions(), nullptr))
      throw poplar::poplar_error("Copy: the destination names some elements more than once (a broadcast or "
                                 "repeated view), so what they would hold is ambiguous");
    ++group_;
    std::vector<Piece> s = pieces(src), d = pieces(dst);
    ExchangePlan x;
    std::map<unsigned, TileWork> work;
    // Overlapping source and destination copy as if through a temporary (what `dst = src` means):
    // the source goes to temporaries beside the destination (exchange, then the on-tile part
    // first), and from there, on each tile, to the destination.
    std::vector<Piece> final;
    if (overlap(src.regions(), &dst.regions())) {
      final = std::move(d);
      d.clear();
      for (const Piece &p : final) { // each at the same offset in a double word as its destination
        const uint32_t skew = p.ref.offset % 8;
        d.push_back(Piece{p.tile, Ref{temporary(p.tile, p.bytes + skew, 8, "copy temporary"), skew}, p.bytes, p.at});
      }
    }
    // The element pairs in the views' order, as moves of the longest runs contiguous on both sides.
    std::vector<Move> moves;
    size_t i = 0, j = 0;
    uint32_t si = 0, dj = 0; // bytes of s[i], d[j] already done
    while (i < s.size() && j < d.size()) {
      const uint32_t n = std::min(s[i].bytes - si, d[j].bytes - dj);
      moves.push_back({s[i].tile, Ref{s[i].ref.item, s[i].ref.offset + si}, d[j].tile, Ref{d[j].ref.item, d[j].ref.offset + dj}, n});
      si += n;
      dj += n;
      if (si == s[i].bytes) ++i, si = 0;
      if (dj == d[j].bytes) ++j, dj = 0;
    }
    for (const Move &m : joinMoves(std::move(moves))) move(m.srcTile, m.src, m.dstTile, m.dst, m.bytes, x, work, work, true);
    for (size_t k = 0; k < final.size(); ++k)
      work[final[k].tile].post.push_back({final[k].ref, d[k].ref, final[k].bytes});
    Node out = seq();
    const std::string label = name.empty() ? "copy" : name;
    if (!x.empty()) out.children.push_back(run(exchangeStep(label, std::move(x.transfers))));
    if (!work.empty()) out.children.push_back(run(computeStep(label + " (on-tile)", std::move(work))));
    return out;
  }
};

} // namespace

void lower(Build &b, const std::vector<ProgramPtr> &programs) {
  Lowering l(b);
  l.programs_ = programs;
  l.run();
}

} // namespace ipusim::gc::build
