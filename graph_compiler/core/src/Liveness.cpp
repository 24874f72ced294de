// Liveness of variables (docs/poplar.md "Memory"). A variable that some program reads before it
// writes it, or that has an initial value, keeps its value between engine runs: it is always
// live. Any other variable holds a value only from a step that writes it to the steps that read
// it, and outside that range its bytes can hold other variables and the compiler's temporaries.
//
// The program becomes a flow graph: one point per step run (a step in a function or in an
// executed compute set is one point however often it runs), a point per branch that reads its
// predicate, and a host point H through which every engine program starts and ends (the host may
// run the programs in any order, any number of times). Each point reads and writes bytes of
// items; a point kills an item (ends its old value) when it writes all of the item's elements.
// Backward dataflow over each tile's items gives, per point, the items live in and out; an item
// live at H is always live, any other is given the range of points (in graph order) where it is
// live or written. Two items whose ranges do not overlap are never live together, whatever path
// the program takes, so the planner (Memory.cpp) may give them the same bytes.
#include "Build.h"

#include <algorithm>
#include <map>

namespace ipusim::gc::build {

namespace {

/// One access of a point to bytes of an item.
struct Access {
  uint32_t point;
  unsigned tile;
  uint32_t item, offset, bytes;
  bool write;
};

class FlowGraph {
public:
  explicit FlowGraph(const Build &b) : b_(b) {}

  /// Builds the graph of the engine programs (and the hidden host ones) and the functions.
  void build() {
    host_ = point();
    for (const Node &p : b_.programs) {
      auto [entry, exit] = region(p);
      edge(host_, entry);
      edge(exit, host_);
    }
    for (const Node &f : b_.functions) functionRegions_.push_back(region(f));
    for (auto [call, ret, f] : calls_) {
      edge(call, functionRegions_.at(f).first);
      edge(functionRegions_.at(f).second, ret);
    }
  }

  uint32_t host() const { return host_; }
  /// The points that run step s (none if no program runs it).
  const std::vector<uint32_t> &pointsOf(unsigned s) const {
    static const std::vector<uint32_t> none;
    auto it = stepPoints_.find(s);
    return it == stepPoints_.end() ? none : it->second;
  }
  size_t size() const { return succ_.size(); }
  const std::vector<uint32_t> &successors(uint32_t p) const { return succ_[p]; }
  std::vector<Access> &accesses() { return accesses_; }

private:
  const Build &b_;
  std::vector<std::vector<uint32_t>> succ_;
  std::vector<Access> accesses_;
  std::vector<std::tuple<uint32_t, uint32_t, unsigned>> calls_; ///< call point, return point, function
  std::vector<std::pair<uint32_t, uint32_t>> functionRegions_;
  std::map<unsigned, std::vector<uint32_t>> stepPoints_;
  uint32_t host_ = 0;

  uint32_t point() {
    succ_.emplace_back();
    return uint32_t(succ_.size() - 1);
  }
  void edge(uint32_t from, uint32_t to) { succ_[from].push_back(to); }
  void access(uint32_t p, unsigned tile, Ref r, uint32_t bytes, bool write) {
    if (r.valid() && bytes) accesses_.push_back({p, tile, r.item, r.offset, bytes, write});
  }

  /// The points of one step run.
  uint32_t stepPoint(unsigned s) {
    const uint32_t p = point();
    stepPoints_[s].push_back(p);
    const Step &st = b_.steps[s];
    switch (st.kind) {
    case Step::Compute:
      for (const auto &[tile, w] : st.work) {
        for (const std::vector<TileCopy> *list : {&w.pre, &w.post})
          for (const TileCopy &c : *list) {
            access(p, tile, c.src, c.bytes, false);
            access(p, tile, c.dst, c.bytes, true);
          }
        for (unsigned v : w.vertices)
          for (const FieldPlace &fp : b_.fieldPlaces[v]) {
            std::vector<std::pair<Ref, uint64_t>> edges = fp.inner;
            if (!fp.table.valid() && fp.data.valid()) edges.push_back({fp.data, fp.elements});
            for (const auto &[r, n] : edges) {
              if (fp.reads) access(p, tile, r, uint32_t(n * fp.elementBytes), false);
              if (fp.writes) access(p, tile, r, uint32_t(n * fp.elementBytes), true);
            }
          }
      }
      break;
    case Step::Exchange:
      for (const Transfer &x : st.transfers) {
        access(p, x.src, x.from, 4 * x.words, false);
        for (const auto &[tile, r] : x.to) access(p, tile, r, 4 * x.words, true);
      }
      break;
    case Step::Host: {
      const HostStep &h = b_.hostSteps[st.hostStep];
      for (size_t i = 0; i < h.pieces.size(); ++i)
        access(p, h.pieces[i].tile, b_.hostRefs[st.hostStep][i], h.pieces[i].bytes, h.toDevice());
      for (size_t i = 0; i < h.offsets.size(); ++i) // the host reads the row offsets
        access(p, h.offsets[i].tile, b_.hostRefs[st.hostStep][h.pieces.size() + i], h.offsets[i].bytes, false);
      break;
    }
    }
    return p;
  }

  /// A branch: the predicate's broadcast (if any), then every tile reads the value.
  uint32_t predicatePoint(const Predicate &pred, uint32_t &entry) {
    const uint32_t p = point();
    access(p, pred.tile, pred.ref, typeSize(pred.type), false);
    entry = p;
    if (pred.broadcast >= 0) {
      entry = stepPoint(unsigned(pred.broadcast));
      edge(entry, p);
    }
    return p;
  }

  /// The points of a node: its entry and exit.
  std::pair<uint32_t, uint32_t> region(const Node &n) {
    switch (n.kind) {
    case Node::Seq: {
      if (n.children.empty()) {
        const uint32_t p = point();
        return {p, p};
      }
      auto [entry, exit] = region(n.children[0]);
      for (size_t i = 1; i < n.children.size(); ++i) {
        auto [e, x] = region(n.children[i]);
        edge(exit, e);
        exit = x;
      }
      return {entry, exit};
    }
    case Node::Run: {
      const uint32_t p = stepPoint(n.step);
      return {p, p};
    }
    case Node::Repeat: {
      const uint32_t entry = point();
      auto [e, x] = region(n.children[0]);
      const uint32_t exit = point();
      edge(entry, e);
      edge(x, e);
      edge(x, exit);
      edge(entry, exit);
      return {entry, exit};
    }
    case Node::While: {
      auto [ce, cx] = region(n.children[0]);
      uint32_t pe = 0;
      const uint32_t p = predicatePoint(n.pred, pe);
      auto [be, bx] = region(n.children[1]);
      const uint32_t exit = point();
      edge(cx, pe);
      edge(p, be);
      edge(p, exit);
      edge(bx, ce);
      return {ce, exit};
    }
    case Node::If:
    case Node::Switch: {
      uint32_t entry = 0;
      const uint32_t p = predicatePoint(n.pred, entry);
      const uint32_t exit = point();
      for (const Node &c : n.children) {
        auto [e, x] = region(c);
        edge(p, e);
        edge(x, exit);
      }
      if (n.children.empty()) edge(p, exit);
      return {entry, exit};
    }
    case Node::Call: {
      const uint32_t call = point(), ret = point();
      calls_.push_back({call, ret, n.function});
      return {call, ret};
    }
    case Node::Sync: {
      const uint32_t p = point();
      return {p, p};
    }
    case Node::Undef: {
      // A write that leaves the value undefined: it kills what it covers and keeps nothing live.
      const uint32_t p = point();
      for (const Span &s : n.undef) access(p, s.tile, s.ref, s.bytes, true);
      return {p, p};
    }
    }
    return {0, 0};
  }
};

using Bits = std::vector<uint64_t>;

/// The backward dataflow of one tile's items (numbered 0..n-1).
struct TileFlow {
  size_t words = 0;
  std::vector<Bits> gen, kill, written; ///< by point; empty = none
  std::vector<Bits> liveIn, liveOut;
};

bool covers(std::vector<std::pair<uint32_t, uint32_t>> spans, uint32_t bytes) {
  std::sort(spans.begin(), spans.end());
  uint32_t reach = 0;
  for (auto [b, e] : spans) {
    if (b > reach) return false;
    reach = std::max(reach, e);
  }
  return reach >= bytes;
}

} // namespace

void computeLiveness(Build &b) {
  FlowGraph g(b);
  g.build();
  const size_t points = g.size();
  std::vector<std::vector<uint32_t>> pred(points);
  for (uint32_t p = 0; p < points; ++p)
    for (uint32_t s : g.successors(p)) pred[s].push_back(p);

  // A temporary holds a value while its group's steps run: the range of their points.
  std::map<unsigned, std::pair<uint32_t, uint32_t>> groupRange;
  for (unsigned s = 0; s < b.steps.size(); ++s)
    for (uint32_t p : g.pointsOf(s)) {
      auto [it, fresh] = groupRange.emplace(b.steps[s].group, std::make_pair(p, p));
      if (!fresh) it->second = {std::min(it->second.first, p), std::max(it->second.second, p)};
    }
  for (TileState &ts : b.tiles)
    for (Item &it : ts.items)
      if (it.temporary) {
        auto r = groupRange.find(it.firstStep);
        it.ranged = true;
        it.liveFirst = r == groupRange.end() ? g.host() : r->second.first;
        it.liveLast = r == groupRange.end() ? g.host() : r->second.second;
      }

  // Items whose liveness is tracked: variables without an initial value, by tile.
  std::vector<std::vector<uint32_t>> localIndex(b.tiles.size());
  std::vector<std::vector<uint32_t>> tracked(b.tiles.size());
  for (size_t t = 0; t < b.tiles.size(); ++t) {
    const std::vector<Item> &items = b.tiles[t].items;
    localIndex[t].assign(items.size(), UINT32_MAX);
    for (uint32_t i = 0; i < items.size(); ++i)
      if (items[i].kind == Item::Variable && b.graph.variables[items[i].var].initial.empty()) {
        localIndex[t][i] = uint32_t(tracked[t].size());
        tracked[t].push_back(i);
        // Until the dataflow says otherwise: touched by no point, it holds nothing (at H only).
        b.tiles[t].items[i].ranged = true;
        b.tiles[t].items[i].liveFirst = b.tiles[t].items[i].liveLast = g.host();
      }
  }
  // Bytes of each tracked item's elements (its Item::bytes is rounded up), by tile and local index.
  std::vector<std::vector<uint32_t>> dataBytes(b.tiles.size());
  for (size_t t = 0; t < b.tiles.size(); ++t) dataBytes[t].resize(tracked[t].size());
  for (size_t v = 0; v < b.blocks.size(); ++v)
    for (const Block &bl : b.blocks[v])
      if (const uint32_t li = localIndex[bl.tile][bl.item]; li != UINT32_MAX)
        dataBytes[bl.tile][li] = uint32_t((bl.end - bl.begin) * typeSize(b.graph.variables[v].type));

  // Accesses by tile, then by point.
  std::vector<Access> &acc = g.accesses();
  std::stable_sort(acc.begin(), acc.end(), [](const Access &x, const Access &y) {
    return x.tile != y.tile ? x.tile < y.tile : x.point < y.point;
  });
  for (size_t lo = 0; lo < acc.size();) {
    const unsigned tile = acc[lo].tile;
    size_t hi = lo;
    while (hi < acc.size() && acc[hi].tile == tile) ++hi;
    const size_t n = tracked[tile].size();
    if (n == 0) {
      lo = hi;
      continue;
    }
    TileFlow f;
    f.words = (n + 63) / 64;
    f.gen.resize(points);
    f.kill.resize(points);
    f.written.resize(points);
    auto set = [&](Bits &bits, uint32_t i) {
      if (bits.empty()) bits.assign(f.words, 0);
      bits[i / 64] |= uint64_t(1) << (i % 64);
    };
    for (size_t a = lo; a < hi;) {
      const uint32_t p = acc[a].point;
      std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> writes; // local item -> spans
      for (; a < hi && acc[a].point == p; ++a) {
        const uint32_t li = localIndex[tile][acc[a].item];
        if (li == UINT32_MAX) continue;
        if (acc[a].write) writes[li].push_back({acc[a].offset, acc[a].offset + acc[a].bytes});
        else set(f.gen[p], li); // reads of a point count as before its writes (conservative)
      }
      for (auto &[li, spans] : writes) {
        set(f.written[p], li);
        if (covers(spans, dataBytes[tile][li])) set(f.kill[p], li);
      }
    }
    // Backward dataflow to a fixed point: in = gen | (out & ~kill), out = union of successors' in.
    f.liveIn.assign(points, Bits(f.words, 0));
    f.liveOut.assign(points, Bits(f.words, 0));
    std::vector<uint32_t> work;
    std::vector<bool> queued(points, true);
    for (uint32_t p = 0; p < points; ++p) work.push_back(p);
    while (!work.empty()) {
      const uint32_t p = work.back();
      work.pop_back();
      queued[p] = false;
      Bits &out = f.liveOut[p];
      for (uint32_t s : g.successors(p))
        for (size_t w = 0; w < f.words; ++w) out[w] |= f.liveIn[s][w];
      bool changed = false;
      Bits &in = f.liveIn[p];
      for (size_t w = 0; w < f.words; ++w) {
        uint64_t v = out[w];
        if (!f.kill[p].empty()) v &= ~f.kill[p][w];
        if (!f.gen[p].empty()) v |= f.gen[p][w];
        if (v != in[w]) in[w] = v, changed = true;
      }
      if (changed)
        for (uint32_t q : pred[p])
          if (!queued[q]) queued[q] = true, work.push_back(q);
    }
    // Each item's range: the points where it is live or written; live at H: always live.
    std::vector<uint32_t> first(n, UINT32_MAX), last(n, 0);
    for (uint32_t p = 0; p < points; ++p)
      for (size_t w = 0; w < f.words; ++w) {
        uint64_t bits = f.liveIn[p][w] | f.liveOut[p][w] | (f.written[p].empty() ? 0 : f.written[p][w]);
        while (bits) {
          const uint32_t i = uint32_t(w * 64 + size_t(__builtin_ctzll(bits)));
          bits &= bits - 1;
          first[i] = std::min(first[i], p);
          last[i] = std::max(last[i], p);
        }
      }
    const Bits &atHost = f.liveIn[g.host()];
    for (uint32_t i = 0; i < n; ++i) {
      Item &it = b.tiles[tile].items[tracked[tile][i]];
      if (atHost[i / 64] >> (i % 64) & 1) {
        it.ranged = false; // kept between runs
      } else if (first[i] != UINT32_MAX) {
        it.liveFirst = first[i];
        it.liveLast = last[i];
      }
    }
    lo = hi;
  }
}

} // namespace ipusim::gc::build
