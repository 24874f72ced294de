// Memory planning of one tile (docs/poplar.md "Memory"): the codelets' code and data where the
// linker put them, the supervisor program after them in the executable region 0, then every
// item. Items that are always live get their own bytes; temporaries of different step groups
// are never live together (a group is one Execute or Copy, which no other step interleaves), so
// each group is laid out in the same free space. Stacks sit at the top of memory, as the tile's
// reset state has them.
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
    std::map<uint32_t, uint64_t> groups;
    for (const Item &it : items) {
      if (it.temporary) groups[it.firstStep] += it.bytes;
      else need += it.bytes;
    }
    uint64_t temps = 0;
    for (auto &[g, n] : groups) temps = std::max(temps, n);
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
        ", stacks " + std::to_string(stackBytes) + ", temporaries " + std::to_string(temps) + "; largest items: " + top);
  };
  if (controlEnd > execEnd) overflow("the supervisor program", in.controlBytes);
  if (out.stackBase < controlEnd) overflow("the stacks", stackBytes);

  FreeList free;
  free.add(controlEnd, out.stackBase);
  for (auto [sb, se] : in.occupied) free.remove(sb, se);

  auto place = [&](Item &it, FreeList &fl) {
    uint32_t lo = base, hi = out.stackBase;
    if (it.interleaved) lo = interBase;
    if (it.maxAddr) hi = std::min<uint64_t>(hi, uint64_t(it.maxAddr) + it.bytes);
    uint32_t a = 0;
    // Tensor data prefers the interleaved region, leaving region 0 to code and vertex states.
    const bool data = it.kind == Item::Variable || it.kind == Item::Constant || it.kind == Item::Temporary;
    if (data && !it.maxAddr) a = fl.take(it.bytes, it.align, std::max(lo, interBase), hi);
    if (!a) a = fl.take(it.bytes, it.align, lo, hi);
    if (!a) overflow(it.name, it.bytes);
    it.addr = a;
  };

  // Always-live items: constrained ones first (they have the fewest places to go), then the
  // largest first.
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < items.size(); ++i)
    if (!items[i].temporary) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const Item &a = items[x], &c = items[y];
    const int ka = a.maxAddr ? 0 : a.interleaved ? 1 : 2, kc = c.maxAddr ? 0 : c.interleaved ? 1 : 2;
    if (ka != kc) return ka < kc;
    return a.bytes > c.bytes;
  });
  for (uint32_t i : order) place(items[i], free);

  // Temporaries, one group at a time in the same free space.
  std::map<uint32_t, std::vector<uint32_t>> groups;
  for (uint32_t i = 0; i < items.size(); ++i)
    if (items[i].temporary) groups[items[i].firstStep].push_back(i);
  uint64_t tempBytes = 0;
  for (auto &[g, list] : groups) {
    FreeList fl = free;
    std::stable_sort(list.begin(), list.end(), [&](uint32_t x, uint32_t y) { return items[x].bytes > items[y].bytes; });
    uint64_t n = 0;
    for (uint32_t i : list) {
      place(items[i], fl);
      n += items[i].bytes;
    }
    tempBytes = std::max(tempBytes, n);
  }

  // The profile's categories.
  u.controlCode = in.controlBytes;
  for (auto [sb, se] : in.occupied) u.vertexCode += se - sb;
  u.stack = stackBytes;
  u.temporaries = tempBytes;
  uint32_t top = controlEnd;
  for (auto [sb, se] : in.occupied) {
    top = std::max(top, se);
    if (sb >= interBase) u.interleaved += se - sb;
  }
  for (const Item &it : items) {
    top = std::max(top, it.addr + it.bytes);
    if (it.addr >= interBase && !it.temporary) u.interleaved += it.bytes;
    switch (it.kind) {
    case Item::Variable: u.variables += it.bytes; break;
    case Item::Constant: u.constants += it.bytes; break;
    case Item::VertexState: u.vertexState += it.bytes; u.byVertexType[it.vertexType] += it.bytes; break;
    case Item::VertexData: u.vertexData += it.bytes; u.byVertexType[it.vertexType] += it.bytes; break;
    case Item::CopyDescriptors: u.copyDescriptors += it.bytes; break;
    case Item::Control: u.controlData += it.bytes; break;
    case Item::Temporary: break;
    }
  }
  u.used = u.controlCode + u.vertexCode + u.stack + u.temporaries + u.variables + u.constants + u.vertexState +
           u.vertexData + u.copyDescriptors + u.controlData;
  u.extent = uint64_t(top - base) + stackBytes;
}

} // namespace ipusim::gc::build
