#include "ipusim/gc/ExchangeSchedule.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ipusim::gc {

namespace {

/// A set of cycles, as a bitmap (grown as cycles are added). The scheduler's questions are about
/// the runs of consecutive cycles in it, which the bitmap answers a 64-cycle word at a time: its
/// first-fit search moves its candidate past a run per step, and a phase of many small transfers
/// has many runs.
class Cycles {
public:
  bool has(uint64_t c) const { return c / 64 < w_.size() && (w_[c / 64] >> (c % 64) & 1); }
  void add(uint64_t a, uint64_t b) {
    if (b <= a) return;
    if ((b + 63) / 64 > w_.size()) w_.resize((b + 63) / 64);
    for (uint64_t c = a; c < b;) {
      const uint64_t i = c / 64, lo = c % 64, hi = std::min<uint64_t>(64, lo + (b - c));
      w_[i] |= (hi == 64 ? ~0ull : (1ull << hi) - 1) & ~((1ull << lo) - 1);
      c += hi - lo;
    }
  }
  void remove(uint64_t c) {
    if (c / 64 < w_.size()) w_[c / 64] &= ~(1ull << (c % 64));
  }
  /// One past the end of the run holding the first cycle of [a, b) in the set, or 0 if none is.
  uint64_t until(uint64_t a, uint64_t b) const {
    const uint64_t s = firstIn(a, b);
    return s == kNone ? 0 : firstOutFrom(s);
  }

private:
  static constexpr uint64_t kNone = UINT64_MAX;
  std::vector<uint64_t> w_;
  /// The first cycle of [a, b) in the set, or kNone.
  uint64_t firstIn(uint64_t a, uint64_t b) const {
    b = std::min<uint64_t>(b, w_.size() * 64);
    for (uint64_t c = a; c < b;) {
      const uint64_t bits = w_[c / 64] >> (c % 64);
      if (bits) {
        const uint64_t at = c + uint64_t(__builtin_ctzll(bits));
        return at < b ? at : kNone;
      }
      c = (c / 64 + 1) * 64;
    }
    return kNone;
  }
  /// The first cycle from c on not in the set.
  uint64_t firstOutFrom(uint64_t c) const {
    while (c / 64 < w_.size()) {
      const uint64_t holes = ~w_[c / 64] >> (c % 64);
      if (holes) return c + uint64_t(__builtin_ctzll(holes));
      c = (c / 64 + 1) * 64;
    }
    return c;
  }
};

/// What one tile's supervisor does in the phase, while it is being scheduled. Its sends hold it
/// for their length, and its receive controls (mux, receive pointer, format) take a cycle each;
/// a control may fall inside one of its own sends, where the send is cut and a `sendpic`
/// continues it carrying the control (its first word and the control in one cycle, [RE] S9), but
/// not on a send's first cycle, where the `send` itself issues.
struct Timeline {
  uint64_t first = 0;                     ///< the first cycle it issues in (release skew)
  Cycles sends;                           ///< cycles it spends in sends
  Cycles sendStarts;                      ///< each transfer's first send cycle
  Cycles pics;                            ///< receive-pointer and format controls
  struct Pin {
    uint32_t value;  ///< the tile selected from this cycle on (kMuxNone: none)
    bool start;      ///< starts a receive window (an end pin may be replaced by a start)
  };
  std::map<uint64_t, uint32_t> mux;       ///< $INCOMING_MUX controls by cycle: the value put
  Cycles controls;                        ///< the cycles of pics and of mux controls
  Cycles windows;                         ///< cycles the mux selects a sender for this tile
  Cycles lane;                            ///< cycles its transmit lane carries a word
  Cycles startPins, endPins;              ///< the cycles of mux's start and end pins
  Cycles wideStarts;                      ///< where its wide (64-bit) windows start
  uint64_t lastWrite = 0;                 ///< one past the last incoming write (0: none)

  bool windowEndsAt(uint64_t a) const { return a > 0 && windows.has(a - 1) && !windows.has(a); }
  /// Cycle c holds a receive-pointer or format control, or a send's first cycle.
  bool picOrStart(uint64_t c) const { return pics.has(c) || sendStarts.has(c); }
  /// Cycle c holds any control, or a send's first cycle.
  bool taken(uint64_t c) const { return controls.has(c) || sendStarts.has(c); }
  void setSend(uint64_t a, uint64_t b) {
    sends.add(a, b);
    sendStarts.add(a, a + 1);
  }
  void setPic(uint64_t c) {
    pics.add(c, c + 1);
    controls.add(c, c + 1);
  }
  void setPin(uint64_t cycle, Pin pin) {
    mux[cycle] = pin.value;
    if (pin.start) startPins.add(cycle, cycle + 1), endPins.remove(cycle);
    else endPins.add(cycle, cycle + 1), startPins.remove(cycle);
    controls.add(cycle, cycle + 1);
  }
  /// The end of a run of receive-window cycles overlapping [a, b), or 0.
  uint64_t windowUntil(uint64_t a, uint64_t b) const { return windows.until(a, b); }
};

/// A proper edge colouring of a bipartite multigraph with as many colours as its highest degree
/// (Koenig's theorem; the alternating-path construction): edge e joins left[e] and right[e], and
/// no two edges of one colour share a node. Returns each edge's colour.
std::vector<unsigned> colourEdges(const std::vector<unsigned> &left, const std::vector<unsigned> &right,
                                  unsigned leftNodes, unsigned rightNodes) {
  // at[node][c]: the edge of colour c at the node, or -1; left nodes first, then right ones.
  const unsigned nodes = leftNodes + rightNodes;
  std::vector<unsigned> edges(nodes, 0);
  for (size_t e = 0; e < left.size(); ++e) ++edges[left[e]], ++edges[leftNodes + right[e]];
  const unsigned degree = nodes ? *std::max_element(edges.begin(), edges.end()) : 0;
  std::vector<int> at(size_t(nodes) * degree, -1);
  auto slot = [&](unsigned node, unsigned c) -> int & { return at[size_t(node) * degree + c]; };
  auto freeAt = [&](unsigned node) {
    for (unsigned c = 0;; ++c)
      if (slot(node, c) < 0) return c;
  };
  std::vector<unsigned> colour(left.size(), 0);
  for (size_t e = 0; e < left.size(); ++e) {
    const unsigned u = left[e], v = leftNodes + right[e];
    const unsigned a = freeAt(u), b = freeAt(v);
    if (slot(v, a) >= 0) {
      // a is taken at v: swap a and b along the path from v whose edges alternate a, b, ... (it
      // cannot reach u, which lacks a), so that a is free at v.
      std::vector<int> path;
      unsigned node = v, c = a;
      for (int f; (f = slot(node, c)) >= 0; c = c == a ? b : a) {
        path.push_back(f);
        node = node == left[size_t(f)] ? leftNodes + right[size_t(f)] : left[size_t(f)];
      }
      for (int f : path) {
        slot(left[size_t(f)], colour[size_t(f)]) = -1, slot(leftNodes + right[size_t(f)], colour[size_t(f)]) = -1;
      }
      for (int f : path) {
        colour[size_t(f)] = colour[size_t(f)] == a ? b : a;
        slot(left[size_t(f)], colour[size_t(f)]) = f, slot(leftNodes + right[size_t(f)], colour[size_t(f)]) = f;
      }
    }
    colour[e] = a;
    slot(u, a) = int(e), slot(v, a) = int(e);
  }
  return colour;
}

} // namespace

ExchangeSchedule scheduleExchange(const std::vector<ExchangeTransfer> &transfers, const arch::ExchangeLayout &layout,
                                  const arch::SystemConfig &config) {
  std::map<unsigned, Timeline> tl;
  auto timeline = [&](unsigned t) -> Timeline & {
    auto [it, fresh] = tl.try_emplace(t);
    // A tile is released sync.release_skew_cycles later per row (sim::Ipu::release).
    if (fresh) it->second.first = uint64_t(config.sync.releaseSkewCycles) * layout.row(t);
    return it->second;
  };

  // Largest first, then by sender: a deterministic order that packs the long transfers early
  // (the list scheduling below refines it).
  std::vector<size_t> order(transfers.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const ExchangeTransfer &a = transfers[x], &b = transfers[y];
    if (a.words != b.words) return a.words > b.words;
    if (a.dst.size() != b.dst.size()) return a.dst.size() > b.dst.size();
    return a.src < b.src;
  });

  ExchangeSchedule out;
  std::vector<uint64_t> sendCycle(transfers.size(), 0);

  // What a transfer's placement needs, worked out once.
  struct Shape {
    uint64_t n = 0;                   ///< cycles on the sender's lane (64-bit items when wide)
    uint64_t lower = 0;               ///< the earliest send cycle every receiver's mux can meet
    unsigned earliest = 0, latest = 0; ///< the widest early/late of its receivers
    std::vector<int64_t> muxOff, writeOff;
    std::vector<unsigned> early, late;
    std::vector<Timeline *> receivers;
  };
  auto shape = [&](size_t k) {
    const ExchangeTransfer &x = transfers[k];
    for (unsigned d : x.dst)
      if (d == x.src) throw std::logic_error("exchange: a tile cannot send to itself (on-tile copies are compute)");
    if (x.wide && x.words % 2)
      throw std::logic_error("exchange: a 64-bit transfer of " + std::to_string(x.words) + " words (it needs pairs)");
    Shape sh;
    // A wide transfer takes one cycle per 64-bit item, on its pair partner's lane too.
    sh.n = x.wide ? x.words / 2 : x.words;
    timeline(arch::ExchangeLayout::partner(x.src)); // made here: fit and commit look it up
    // The earliest send cycle every receiver's mux can meet: mux offsets may be negative.
    int64_t lower = int64_t(timeline(x.src).first);
    sh.muxOff.resize(x.dst.size());
    sh.writeOff.resize(x.dst.size());
    // A receiver's controls for this transfer (select, deselect, receive pointer, and the two
    // format changes of a wide one) are instructions of its own and need cycles of their own.
    // Where the distance from select to first write makes two of them meet, the window opens
    // `early` cycles sooner or closes `late` cycles later; the sender keeps its lane quiet in
    // those cycles, so the receiver takes nothing else.
    sh.early.resize(x.dst.size());
    sh.late.resize(x.dst.size());
    for (size_t i = 0; i < x.dst.size(); ++i) {
      sh.muxOff[i] = layout.muxOffset(x.src, x.dst[i]);
      sh.writeOff[i] = layout.writeOffset(x.src, x.dst[i]);
      const int64_t d = sh.writeOff[i] - sh.muxOff[i], len = int64_t(sh.n);
      bool found = false;
      for (unsigned extra = 0; extra <= 4 && !found; ++extra)
        for (unsigned s0 = 0; s0 <= extra && !found; ++s0) {
          std::vector<int64_t> at = {-int64_t(s0), len + int64_t(extra - s0), d};
          if (x.wide) at.insert(at.end(), {d - 1, d + len});
          std::sort(at.begin(), at.end());
          if (std::adjacent_find(at.begin(), at.end()) == at.end())
            sh.early[i] = s0, sh.late[i] = extra - s0, found = true;
        }
      if (!found) throw std::logic_error("exchange: no cycles for a receiver's controls");
      sh.earliest = std::max(sh.earliest, sh.early[i]);
      sh.latest = std::max(sh.latest, sh.late[i]);
      lower = std::max(lower, int64_t(timeline(x.dst[i]).first) - sh.muxOff[i] + int64_t(sh.early[i]));
    }
    sh.lower = uint64_t(std::max<int64_t>(lower, sh.earliest));
    for (unsigned d : x.dst) sh.receivers.push_back(&tl.at(d));
    return sh;
  };

  // Receiver i's cycles for a send at T: select (a) and deselect (b) of its mux, first write (w).
  struct Points {
    uint64_t a, b, w;
  };
  auto points = [](const Shape &sh, size_t i, uint64_t T) {
    const int64_t mux = int64_t(T) + sh.muxOff[i];
    return Points{uint64_t(mux) - sh.early[i], uint64_t(mux) + sh.n + sh.late[i], uint64_t(int64_t(T) + sh.writeOff[i])};
  };

  // The first send cycle from T on at which the sender, its pair's lanes (when wide) and every
  // receiver can take transfer k.
  auto fit = [&](size_t k, const Shape &sh, uint64_t T) {
    const ExchangeTransfer &x = transfers[k];
    Timeline &s = tl.at(x.src), &partner = tl.at(arch::ExchangeLayout::partner(x.src));
    const uint64_t n = sh.n;
    for (;;) {
      // The sender: n cycles outside its other sends, the first without a control of its own
      // (controls later in the send ride on sendpics).
      if (uint64_t until = s.sends.until(T, T + n)) {
        T = until;
        continue;
      }
      if (s.controls.has(T)) {
        ++T;
        continue;
      }
      if (uint64_t until = s.lane.until(T - sh.earliest, T + n + sh.latest)) {
        T = until + sh.earliest;
        continue;
      }
      if (x.wide)
        if (uint64_t until = partner.lane.until(T - sh.earliest, T + n + sh.latest)) {
          T = until + sh.earliest;
          continue;
        }
      uint64_t next = 0; // the next candidate, if a receiver cannot take it at T
      for (size_t i = 0; i < x.dst.size() && !next; ++i) {
        Timeline &d = *sh.receivers[i];
        const auto [a, b, w] = points(sh, i, T);
        if (uint64_t until = d.windowUntil(a, b)) {
          next = T + (until - a);
          break;
        }
        // The three controls: select at a, deselect at b, move the receive pointer at the first
        // write w, each in a cycle of its own (inside one of the receiver's sends is fine, on a
        // send's first cycle is not). A deselect already at a (a window ending there) becomes the
        // select; a select already at b (a window starting there) is the deselect.
        if (d.picOrStart(a) || d.startPins.has(a) || d.picOrStart(b) || d.endPins.has(b) || d.taken(w)) next = T + 1;
        // Wide: $INCOMING_FORMAT says 64-bit from the cycle before the first write to the cycle
        // after the last, so no other window may write in the cycle before (one ending at a).
        else if (x.wide) {
          if (d.windowEndsAt(a) || d.taken(w - 1) || d.taken(w + n))
            next = T + 1;
        } else if (d.wideStarts.has(b)) {
          next = T + 1; // its last write would meet the wide window's format
        }
      }
      if (!next) return T;
      T = next;
    }
  };

  auto commit = [&](size_t k, const Shape &sh, uint64_t T) {
    const ExchangeTransfer &x = transfers[k];
    Timeline &s = tl.at(x.src), &partner = tl.at(arch::ExchangeLayout::partner(x.src));
    const uint64_t n = sh.n;
    sendCycle[k] = T;
    s.setSend(T, T + n);
    s.lane.add(T - sh.earliest, T + n + sh.latest);
    if (x.wide) partner.lane.add(T - sh.earliest, T + n + sh.latest);
    for (size_t i = 0; i < x.dst.size(); ++i) {
      Timeline &d = *sh.receivers[i];
      const auto [a, b, w] = points(sh, i, T);
      d.setPin(a, {x.src, true});
      if (!d.startPins.has(b) && !d.endPins.has(b)) d.setPin(b, {kMuxNone, false});
      d.windows.add(a, b);
      d.setPic(w);
      if (x.wide) {
        d.wideStarts.add(a, a + 1);
        d.setPic(w - 1);
        d.setPic(w + n);
      }
      d.lastWrite = std::max(d.lastWrite, w + n);
    }
    out.words += x.words;
  };

  // List scheduling: the largest first (by powers of two of the words), then those with the most
  // receivers (by powers of two), and among transfers of one such class those that can start
  // earliest: of the ones that can start within an eighth of their length of the earliest, the
  // first in `order`. Placing a transfer only takes cycles from the others, so each one's last
  // fit is a lower bound on its next: its class keeps those bounds, and a transfer is placed
  // when its fit is still within that tolerance of the earliest bound left. In an all-to-all,
  // such as a depth split's partial sums, the fixed order had every tile wait for the same
  // receivers (the 1024^3 half product's partials: 5,192 cycles, then 3,769); a broadcast to
  // hundreds of tiles goes before the short hops around it, which would otherwise leave it no
  // cycle that all its receivers have free. The tolerance
  // keeps the exchange's transit times (tens of cycles across the die) from deciding the order
  // among near-equals: ResNet-50's 3x3 layer's input rows, which two waves can deliver (row r
  // and row r+1 share receivers, so rows alternate), went in the order their receivers' muxes
  // allowed, which mixed the waves and needed a third; in `order` (by sender, the rows' homes
  // in row order) they alternate (3,649 -> 2,754 cycles). Transfers shorter than kListWords
  // are placed in `order` as they come: a convolution's expansion is 100,000-odd one-word
  // transfers, and re-placing them costs compile time (seconds to half a minute) for little.
  constexpr uint32_t kListWords = 32;
  // One-receiver transfers in rounds: an edge colouring of the graph of transmit lanes (a sender,
  // or a wide sender's pair, whose two tiles share the lane) and receivers, so that no lane sends
  // twice and no tile receives twice in a round; the transfers ranked by round, then as before.
  auto inRounds = [&](const std::vector<size_t> &ranks) {
    std::map<unsigned, unsigned> lanes, receivers; // tile -> node number
    std::vector<unsigned> left, right;
    for (size_t r : ranks) {
      const ExchangeTransfer &x = transfers[order[r]];
      const unsigned lane = x.wide ? x.src & ~1u : x.src;
      left.push_back(lanes.try_emplace(lane, unsigned(lanes.size())).first->second);
      right.push_back(receivers.try_emplace(x.dst[0], unsigned(receivers.size())).first->second);
    }
    const std::vector<unsigned> round = colourEdges(left, right, unsigned(lanes.size()), unsigned(receivers.size()));
    std::vector<size_t> at(ranks.size());
    std::iota(at.begin(), at.end(), size_t(0));
    std::stable_sort(at.begin(), at.end(), [&](size_t x, size_t y) { return round[x] < round[y]; });
    std::vector<size_t> out;
    for (size_t i : at) out.push_back(ranks[i]);
    return out;
  };
  std::vector<Shape> shapes(transfers.size());
  // The classes in order (size class: the words' highest bit, largest first; the same of the
  // receivers): a class's transfers are all placed before the next class's. A class keeps its
  // transfers' lower bounds on their starts in rank order (their order in `order`, or by round
  // first for a class in rounds) under a tree
  // of minimums, which finds the earliest bound and the first transfer by rank whose bound is
  // within a limit in a walk from the root (a scan of the transfers near the earliest was
  // quadratic in an all-to-all: seconds of compile time for a 1024^3 product).
  struct Class {
    std::vector<size_t> ranks; // ascending, or by round and then ascending (inRounds)
    bool rounds = false;        // ranked by rounds
    std::vector<uint64_t> tree; // tree[1] the root; leaves from `leaves` on, UINT64_MAX where placed
    size_t leaves = 1;
    /// Adds the transfer of rank r (in the class's order) before build().
    void add(size_t r, uint64_t bound) {
      ranks.push_back(r);
      tree.push_back(bound);
    }
    void build() {
      while (leaves < ranks.size()) leaves *= 2;
      tree.insert(tree.begin(), leaves, UINT64_MAX); // the bounds become the leaves
      tree.resize(2 * leaves, UINT64_MAX);
      for (size_t i = leaves - 1; i >= 1; --i) tree[i] = std::min(tree[2 * i], tree[2 * i + 1]);
    }
    void set(size_t i, uint64_t bound) {
      tree[i += leaves] = bound;
      for (i /= 2; i >= 1; i /= 2) tree[i] = std::min(tree[2 * i], tree[2 * i + 1]);
    }
    bool empty() const { return tree[1] == UINT64_MAX; }
    uint64_t earliest() const { return tree[1]; }
    /// The first transfer (by rank) whose bound is at most `limit` (one must be).
    size_t first(uint64_t limit) const {
      size_t i = 1;
      while (i < leaves) i = tree[2 * i] <= limit ? 2 * i : 2 * i + 1;
      return i - leaves;
    }
  };
  std::map<std::pair<int, int>, std::vector<size_t>> members; // each class's ranks, ascending
  for (size_t r = 0; r < order.size(); ++r) {
    const size_t k = order[r];
    if (transfers[k].words == 0 || transfers[k].dst.empty()) continue;
    shapes[k] = shape(k);
    members[{__builtin_clz(transfers[k].words), __builtin_clz(unsigned(transfers[k].dst.size()))}].push_back(r);
  }
  std::map<std::pair<int, int>, Class> classes;
  for (auto &[key, ranks] : members) {
    Class &c = classes[key];
    c.rounds = transfers[order[ranks[0]]].words >= kListWords && transfers[order[ranks[0]]].dst.size() == 1;
    if (c.rounds) ranks = inRounds(ranks);
    for (size_t r : ranks) c.add(r, shapes[order[r]].lower);
  }
  // An eighth of a transfer's cycles on its lane; half of them where the class is in rounds, so
  // that the round decides over differences in start of up to half a transfer.
  auto tolerance = [&](const Class &c, size_t k) { return c.rounds ? shapes[k].n / 2 : shapes[k].n / 8; };
  for (auto &[key, c] : classes) {
    c.build();
    while (!c.empty()) {
      const uint64_t earliest = c.earliest();
      size_t at = c.first(earliest); // the earliest, the first by rank among equals
      // (A class is all listed transfers or none: kListWords is a power of two.)
      const bool listed = transfers[order[c.ranks[at]]].words >= kListWords;
      if (listed) at = c.first(earliest + tolerance(c, order[c.ranks[at]]));
      const uint64_t bound = c.tree[c.leaves + at];
      c.set(at, UINT64_MAX);
      const size_t k = order[c.ranks[at]];
      const uint64_t T = fit(k, shapes[k], bound);
      // Placed now unless another of its class can start earlier by more than the tolerance.
      if (listed && T != bound && !c.empty() && T > c.earliest() + tolerance(c, k)) {
        c.set(at, T);
        continue;
      }
      commit(k, shapes[k], T);
      shapes[k] = Shape();
    }
  }

  // Each tile's instructions in cycle order.
  for (size_t k = 0; k < transfers.size(); ++k) {
    const ExchangeTransfer &x = transfers[k];
    if (x.words == 0 || x.dst.empty()) continue;
    uint8_t sctl = x.wide ? 4 : 0;
    for (unsigned d : x.dst) sctl |= uint8_t(layout.direction(x.src, d));
    TileExchange &te = out.tiles[x.src];
    const uint64_t items = x.wide ? x.words / 2 : x.words;
    // One op for the whole transfer: the code cuts it into instructions (Emit.cpp).
    ExchangeOp op{ExchangeOp::Send, sendCycle[k], uint32_t(k)};
    op.count = uint32_t(items);
    op.sctl = sctl;
    te.ops.push_back(op);
    for (size_t i = 0; i < x.dst.size(); ++i) {
      const uint64_t w = uint64_t(int64_t(sendCycle[k]) + layout.writeOffset(x.src, x.dst[i]));
      ExchangeOp op{ExchangeOp::Delta, w, uint32_t(k)};
      op.value = uint32_t(i);
      out.tiles[x.dst[i]].ops.push_back(op);
      if (x.wide) {
        ExchangeOp on{ExchangeOp::Format, w - 1, uint32_t(k)};
        on.value = uint32_t(layout.direction(x.src, x.dst[i]));
        ExchangeOp off{ExchangeOp::Format, w + items, uint32_t(k)};
        off.value = 0;
        out.tiles[x.dst[i]].ops.push_back(on);
        out.tiles[x.dst[i]].ops.push_back(off);
      }
    }
  }
  for (auto &[t, line] : tl) {
    TileExchange &te = out.tiles[t];
    for (const auto &[cycle, value] : line.mux) {
      ExchangeOp op{ExchangeOp::Mux, cycle, 0};
      op.value = value;
      te.ops.push_back(op);
    }
    std::sort(te.ops.begin(), te.ops.end(), [](const ExchangeOp &a, const ExchangeOp &b) { return a.cycle < b.cycle; });
    uint64_t end = line.lastWrite;
    for (const ExchangeOp &op : te.ops) end = std::max(end, op.cycle + (op.kind == ExchangeOp::Send ? op.count : 1));
    te.end = end;
    out.cycles = std::max(out.cycles, end);
  }
  return out;
}

} // namespace ipusim::gc
