// Memory planning of one tile (docs/poplar.md "Memory"): the codelets' code and data where the
// linker put them, the supervisor program after them in the executable region 0, then every
// item. Items that are always live get their own bytes; the others (temporaries, and variables
// that are not always live) have a range of program points where they hold a value
// (Liveness.cpp), and two of them share bytes when their ranges do not overlap. Stacks sit at
// the top of memory, as the tile's reset state has them.
#include "Build.h"

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cstdio>

namespace ipusim::gc::build {

namespace {

/// Free address ranges of a tile, first fit.
class FreeList {
public:
  void add(uint32_t b, uint32_t e) {
    if (b < e) ranges_.push_back({b, e});
    std::sort(ranges_.begin(), ranges_.end());
  }
  void remove(uint32_t b, uint32_t e) {
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (auto [rb, re] : ranges_) {
      if (re <= b || rb >= e) {
        out.push_back({rb, re});
        continue;
      }
      if (rb < b) out.push_back({rb, b});
      if (re > e) out.push_back({e, re});
    }
    ranges_ = std::move(out);
  }
  /// The free ranges less `busy` (sorted by begin, possibly overlapping).
  FreeList without(const std::vector<std::pair<uint32_t, uint32_t>> &busy) const {
    FreeList out;
    size_t k = 0;
    for (auto [rb, re] : ranges_) {
      uint32_t at = rb;
      while (k < busy.size() && busy[k].second <= at) ++k;
      for (size_t j = k; j < busy.size() && busy[j].first < re; ++j) {
        if (busy[j].second <= at) continue;
        if (busy[j].first > at) out.ranges_.push_back({at, busy[j].first});
        at = std::max(at, busy[j].second);
        if (at >= re) break;
      }
      if (at < re) out.ranges_.push_back({at, re});
    }
    return out;
  }
  /// The lowest address in [lo, hi) where `bytes` aligned to `align` fit, taken; or 0.
  uint32_t take(uint32_t bytes, uint32_t align, uint32_t lo, uint32_t hi) {
    for (auto [rb, re] : ranges_) {
      uint64_t a = std::max(rb, lo);
      a = (a + align - 1) / align * align;
      if (a + bytes <= std::min(re, hi)) {
        remove(uint32_t(a), uint32_t(a + bytes));
        return uint32_t(a);
      }
    }
    return 0;
  }

private:
  std::vector<std::pair<uint32_t, uint32_t>> ranges_;
};

std::string kb(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f KiB", double(bytes) / 1024);
  return b;
}

} // namespace

void planTile(Build &b, unsigned tile, const TilePlanInput &in, TilePlanOutput &out) {
  const arch::TileConfig &tc = b.graph.target.config.tile;
  const uint32_t base = tc.memoryBase, end = tc.memoryEnd();
  uint32_t execEnd = base, interBase = end;
  for (const arch::MemoryRegion &r : tc.regions) {
    if (r.executable) execEnd = std::max(execEnd, r.end);
    if (r.interleave > 1) interBase = std::min(interBase, r.base);
  }
  std::vector<Item> &items = b.tiles[tile].items;
  TileMemoryUsage &u = out.usage;

  // Where the codelets' sections went (the linker put code, read-only data and data in region 0
  // from its base, interleaved data at the start of region 1).
  uint32_t codeTop = base;
  for (auto [sb, se] : in.occupied)
    if (sb < execEnd) codeTop = std::max(codeTop, se);
  out.controlBase = (codeTop + 7) / 8 * 8;
  const uint32_t controlEnd = out.controlBase + in.controlBytes;
  const uint32_t stackBytes = 6 * in.workerStack + in.supervisorStack;
  out.stackBase = end - stackBytes;

  auto overflow = [&](const std::string &what, uint32_t bytes) {
    // Everything the tile needs, and the largest items, for the message.
    uint64_t need = uint64_t(controlEnd - base) + stackBytes;
    for (auto [sb, se] : in.occupied)
      if (sb >= execEnd) need += se - sb;
    // Items with a live range count at the program point where most bytes of them are live.
    std::map<uint32_t, int64_t> delta;
    for (const Item &it : items) {
      if (!it.ranged) {
        need += it.bytes;
        continue;
      }
      delta[it.liveFirst] += it.bytes;
      delta[it.liveLast + 1] -= it.bytes;
    }
    int64_t live = 0;
    uint64_t temps = 0;
    for (auto &[pt, d] : delta) temps = std::max<uint64_t>(temps, uint64_t(live += d));
    need += temps;
    std::vector<const Item *> largest;
    for (const Item &it : items) largest.push_back(&it);
    std::stable_sort(largest.begin(), largest.end(), [](const Item *a, const Item *c) { return a->bytes > c->bytes; });
    std::string top;
    for (size_t i = 0; i < largest.size() && i < 5; ++i)
      top += (i ? ", " : "") + largest[i]->name + " (" + std::to_string(largest[i]->bytes) + " bytes)";
    throw poplar::graph_memory_allocation_error(
        "out of memory on tile " + std::to_string(tile) + ": " + what + " (" + std::to_string(bytes) +
        " bytes) does not fit; the tile needs " + std::to_string(need) + " bytes (" + kb(need) + ") of its " +
        std::to_string(tc.memorySize) + " (" + kb(tc.memorySize) + "): code " + std::to_string(controlEnd - base) +
        ", stacks " + std::to_string(stackBytes) + ", not always live (at the peak) " + std::to_string(temps) +
        "; largest items: " + top);
  };
  if (controlEnd > execEnd) overflow("the supervisor program", in.controlBytes);
  if (out.stackBase < controlEnd) overflow("the stacks", stackBytes);

  FreeList free;
  free.add(controlEnd, out.stackBase);
  for (auto [sb, se] : in.occupied) free.remove(sb, se);

  // The memory elements [begin, end) an address range touches: 16 KiB elements in region 0, pairs
  // of element arrays (even and odd 64-bit words) in the interleaved region (ipu-facts §2.4).
  const uint32_t elem = tc.elementSize;
  auto elementsOf = [&](uint32_t a, uint32_t bytes) -> std::pair<uint32_t, uint32_t> {
    auto start = [&](uint32_t x) { return x >= interBase ? interBase + (x - interBase) / (2 * elem) * (2 * elem) : base + (x - base) / elem * elem; };
    auto next = [&](uint32_t x) { return x >= interBase ? start(x) + 2 * elem : std::min(start(x) + elem, interBase); };
    return {start(a), next(a + bytes - 1)};
  };
  auto place = [&](Item &it, FreeList &fl) {
    uint32_t lo = base, hi = out.stackBase;
    if (it.interleaved) lo = interBase;
    if (it.maxAddr) hi = std::min<uint64_t>(hi, uint64_t(it.maxAddr) + it.bytes);
    const bool data = it.kind == Item::Variable || it.kind == Item::Constant || it.kind == Item::Temporary;
    auto take = [&](FreeList &l) {
      uint32_t a = 0;
      // Tensor data prefers the interleaved region, leaving region 0 to code and vertex states.
      if (data && !it.maxAddr) a = l.take(it.bytes, it.align, std::max(lo, interBase), hi);
      if (!a) a = l.take(it.bytes, it.align, lo, hi);
      return a;
    };
    // Away from the elements of the items it must not share one with, where there is room.
    std::vector<std::pair<uint32_t, uint32_t>> avoid;
    for (uint32_t k : it.apart)
      if (items[k].addr && items[k].bytes) avoid.push_back(elementsOf(items[k].addr, items[k].bytes));
    uint32_t a = 0;
    if (!avoid.empty()) {
      std::sort(avoid.begin(), avoid.end());
      FreeList apart = fl.without(avoid);
      if ((a = take(apart))) fl.remove(a, a + it.bytes);
    }
    if (!a) a = take(fl);
    if (!a) overflow(it.name, it.bytes);
    it.addr = a;
  };

  // Always-live items: constrained ones first (they have the fewest places to go), then the
  // largest first.
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < items.size(); ++i)
    if (!items[i].ranged) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const Item &a = items[x], &c = items[y];
    const int ka = a.maxAddr ? 0 : a.interleaved ? 1 : 2, kc = c.maxAddr ? 0 : c.interleaved ? 1 : 2;
    if (ka != kc) return ka < kc;
    return a.bytes > c.bytes;
  });
  for (uint32_t i : order) place(items[i], free);

  // Items with a live range: constrained ones first, then the largest first; each avoids the
  // bytes of those already placed whose ranges overlap its own.
  std::vector<uint32_t> ranged;
  for (uint32_t i = 0; i < items.size(); ++i)
    if (items[i].ranged) ranged.push_back(i);
  std::stable_sort(ranged.begin(), ranged.end(), [&](uint32_t x, uint32_t y) {
    const Item &a = items[x], &c = items[y];
    const int ka = a.maxAddr ? 0 : a.interleaved ? 1 : 2, kc = c.maxAddr ? 0 : c.interleaved ? 1 : 2;
    if (ka != kc) return ka < kc;
    return a.bytes > c.bytes;
  });
  // Those placed are kept in address order, so that each item's busy bytes come out sorted (a
  // tile may have thousands of such items).
  std::vector<uint32_t> placed;
  auto span = [&](uint32_t k) { return std::pair<uint32_t, uint32_t>(items[k].addr, items[k].addr + items[k].bytes); };
  std::vector<std::pair<uint32_t, uint32_t>> busy;
  for (uint32_t i : ranged) {
    const Item &it = items[i];
    busy.clear();
    for (uint32_t k : placed) {
      const Item &o = items[k];
      if (o.liveFirst <= it.liveLast && it.liveFirst <= o.liveLast) busy.push_back(span(k));
    }
    FreeList fl = free.without(busy);
    place(items[i], fl);
    placed.insert(std::upper_bound(placed.begin(), placed.end(), span(i),
                                   [&](const std::pair<uint32_t, uint32_t> &a, uint32_t k) { return a < span(k); }),
                  i);
  }
  // Peaks over program points of the bytes of ranged variables and of temporaries.
  std::map<uint32_t, std::pair<int64_t, int64_t>> delta; // point -> (variables, temporaries) change
  for (uint32_t i : ranged) {
    const Item &it = items[i];
    auto &d0 = delta[it.liveFirst], &d1 = delta[it.liveLast + 1];
    (it.temporary ? d0.second : d0.first) += it.bytes;
    (it.temporary ? d1.second : d1.first) -= it.bytes;
  }
  int64_t vars = 0, temps = 0;
  uint64_t peakVars = 0, tempBytes = 0;
  for (auto &[pt, d] : delta) {
    vars += d.first;
    temps += d.second;
    peakVars = std::max<uint64_t>(peakVars, uint64_t(vars));
    tempBytes = std::max<uint64_t>(tempBytes, uint64_t(temps));
  }

  // The profile's categories.
  u.controlCode = in.controlBytes;
  for (auto [sb, se] : in.occupied) u.vertexCode += se - sb;
  u.stack = stackBytes;
  u.temporaries = tempBytes;
  u.notAlwaysLive = peakVars;
  // Addresses in use: the union of everything placed (shared bytes count once).
  std::vector<std::pair<uint32_t, uint32_t>> spans(in.occupied.begin(), in.occupied.end());
  spans.push_back({out.controlBase, controlEnd});
  spans.push_back({out.stackBase, end});
  uint32_t top = controlEnd;
  for (auto [sb, se] : in.occupied) top = std::max(top, se);
  for (const Item &it : items) {
    top = std::max(top, it.addr + it.bytes);
    spans.push_back({it.addr, it.addr + it.bytes});
    switch (it.kind) {
    case Item::Variable:
      if (!it.ranged) u.variables += it.bytes;
      break;
    case Item::Constant: u.constants += it.bytes; break;
    case Item::VertexState: u.vertexState += it.bytes; u.byVertexType[it.vertexType] += it.bytes; break;
    case Item::VertexData: u.vertexData += it.bytes; u.byVertexType[it.vertexType] += it.bytes; break;
    case Item::CopyDescriptors: u.copyDescriptors += it.bytes; break;
    case Item::Control: u.controlData += it.bytes; break;
    case Item::Temporary: break;
    }
  }
  std::sort(spans.begin(), spans.end());
  uint32_t reach = base;
  for (auto [sb, se] : spans) {
    sb = std::max(sb, reach);
    if (se <= sb) continue;
    u.used += se - sb;
    if (se > interBase) u.interleaved += se - std::max(sb, interBase);
    reach = se;
  }
  u.extent = uint64_t(top - base) + stackBytes;
}

} // namespace ipusim::gc::build
