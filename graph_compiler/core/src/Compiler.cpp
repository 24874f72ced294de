// Graph compilation (Compiler.h): lowering, exchange scheduling, codelet linking per tile, memory
// planning and code emission, then each tile's image.
#include "Build.h"
#include "Emit.h"

#include "ipusim/cc/Linker.h"

#include <poplar/exceptions.hpp>

#include <algorithm>
#include <cstring>
#include <memory>

namespace ipusim::gc {

using namespace build;

namespace {

/// The codelet code one tile needs, linked (shared by tiles needing the same set).
struct LinkedCodelets {
  cc::ObjectFile image;
  TileLinkInfo info;
  std::vector<std::pair<uint32_t, uint32_t>> occupied;
  uint32_t workerStack = 0, supervisorStack = 0;
};

constexpr uint32_t kMinStack = 32; // bytes: a floor for code that records no stack use

std::shared_ptr<LinkedCodelets> linkCodelets(const Build &b, const std::vector<unsigned> &codelets) {
  auto out = std::make_shared<LinkedCodelets>();
  out->workerStack = out->supervisorStack = kMinStack;
  if (codelets.empty()) {
    out->image.linked = true; // a tile without vertices runs no codelet code
    return out;
  }
  std::vector<cc::LinkInput> inputs;
  for (const auto &[name, obj] : b.codelets.objects()) inputs.push_back({name, *obj});
  cc::LinkOptions lo;
  for (unsigned c : codelets) lo.roots.push_back(b.codelets.codelet(c).layout.entrySymbol);
  try {
    out->image = cc::link(inputs, b.graph.target.config.tile, lo);
  } catch (const cc::LinkError &e) {
    throw poplar::link_error(std::string("linking the codelets failed:\n") + e.what());
  }
  std::map<std::string, uint32_t> absolute;
  for (const cc::Symbol &s : out->image.symbols) {
    if (s.section == cc::kAbsoluteSection) absolute[s.name] = s.value;
    else if (s.section >= 0 && s.binding != cc::SymbolBinding::Local) out->info.entries[s.name] = s.value;
  }
  for (const cc::Section &s : out->image.sections)
    if ((s.flags & 2) && s.size) out->occupied.push_back({s.addr, s.addr + s.size});
  out->workerStack = out->supervisorStack = kMinStack;
  for (unsigned c : codelets) {
    const cc::VertexLayout &l = b.codelets.codelet(c).layout;
    auto it = absolute.find(l.entrySymbol + ".stack_usage");
    const uint32_t use = it == absolute.end() ? 0 : it->second;
    uint32_t &stack = l.vertexKind == "SupervisorVertex" ? out->supervisorStack : out->workerStack;
    stack = std::max(stack, (use + 7) / 8 * 8);
  }
  return out;
}

void put32(std::vector<uint8_t> &s, uint32_t at, uint32_t v) { std::memcpy(s.data() + at, &v, 4); }

/// A VectorList field (DELTAN, DELTANELEMENTS): the base word (the lowest vector's address in bits
/// [0,20), the number of vectors in bits [20,32)), a SCALED_PTR32 to the table, and the table of
/// {offset from the base in bits [0,18), element count in bits [18,32)} (docs/device-headers.md:
/// the encoding poplibs' Mk2 assembly decodes; the offset unit, the list's alignment for DELTAN,
/// the element for DELTANELEMENTS and the byte for COMPACT_DELTAN, is ipusim's reading [I]).
template <class AddrOf>
void writeVectorList(std::vector<uint8_t> &state, const cc::VertexField &f, const FieldPlace &fp, AddrOf addrOf,
                     uint32_t memoryBase, const std::string &what,
                     std::vector<std::pair<uint32_t, std::vector<uint8_t>>> &chunks) {
  auto bad = [&](const std::string &why) { throw poplar::graph_connection_error(what + ": " + why); };
  const TypeId et = typeFromName(f.elementType);
  const uint32_t unit = f.layout == "DELTANELEMENTS"   ? (et == TypeId::Count ? 1 : typeSize(et))
                        : f.layout == "COMPACT_DELTAN" ? 1
                                                       : std::max(1u, f.elementAlign);
  if (fp.inner.size() > 0xFFF) bad("a VectorList holds at most 4095 vectors, not " + std::to_string(fp.inner.size()));
  uint32_t base = 0xFFFFFFFF;
  for (const auto &[ref, n] : fp.inner) base = std::min(base, addrOf(ref));
  if (fp.inner.empty()) base = 0;
  if (base > 0xFFFFF) bad("the vectors' base address does not fit in 20 bits");
  std::vector<uint8_t> table(std::max<size_t>(4 * fp.inner.size(), 4), 0);
  for (size_t i = 0; i < fp.inner.size(); ++i) {
    const uint32_t off = addrOf(fp.inner[i].first) - base;
    if (off % unit || off / unit > 0x3FFFF || fp.inner[i].second > 0x3FFF)
      bad("vector " + std::to_string(i) + " (" + std::to_string(fp.inner[i].second) + " elements at " +
          std::to_string(off) + " bytes from the list's base) does not fit the DeltaN encoding");
    put32(table, uint32_t(4 * i), off / unit | uint32_t(fp.inner[i].second) << 18);
  }
  chunks.push_back({addrOf(fp.table), table});
  put32(state, f.offset, base | uint32_t(fp.inner.size()) << 20);
  const uint32_t tableAddr = addrOf(fp.table);
  const uint16_t scaled = uint16_t((tableAddr - memoryBase) >> 2);
  std::memcpy(state.data() + f.offset + 4, &scaled, 2);
}

} // namespace

Executable compile(const GraphData &graph, const std::vector<ProgramPtr> &programs, const CompileOptions &options) {
  Build b(graph, options);
  lower(b, programs);
  const arch::SystemConfig &config = graph.target.config;
  const uint32_t memoryBase = config.tile.memoryBase;

  // The runtime's CopyList (or CopyWordList) vertex for each tile's on-tile copies: its
  // descriptors and its state.
  for (Step &st : b.steps) {
    if (st.kind != Step::Compute) continue;
    for (auto &[tile, w] : st.work)
      for (auto [list, state] : {std::make_pair(&w.pre, &w.preState), std::make_pair(&w.post, &w.postState)}) {
        if (list->empty()) continue;
        const cc::VertexLayout &copyLayout = b.codelets.codelet(b.copyCodeletFor(*list)).layout;
        Item d;
        d.kind = Item::CopyDescriptors;
        d.bytes = uint32_t((12 * list->size() + 7) / 8 * 8);
        d.name = "copy descriptors";
        Item s;
        s.kind = Item::VertexState;
        s.bytes = (std::max<uint32_t>(copyLayout.size, 4) + 3) / 4 * 4;
        s.align = std::max<uint32_t>(copyLayout.align, 4);
        s.name = "vertex state of " + copyLayout.className;
        s.vertexType = copyLayout.className;
        const uint32_t di = b.addItem(tile, d);
        *state = b.addItem(tile, s);
        b.tiles[tile].items[*state].begin = di; // the descriptors item, for writing the state
      }
  }

  computeLiveness(b);

  // Exchange schedules.
  for (Step &st : b.steps) {
    if (st.kind != Step::Exchange) continue;
    std::vector<ExchangeTransfer> xs;
    for (size_t i = 0; i < st.transfers.size(); ++i) {
      ExchangeTransfer x{st.transfers[i].src, st.transfers[i].words, {}, uint32_t(i), st.transfers[i].wide};
      for (const auto &[t, r] : st.transfers[i].to) x.dst.push_back(t);
      xs.push_back(std::move(x));
    }
    st.schedule = scheduleExchange(xs, b.layout, config);
  }

  // The codelets each tile runs, linked once per distinct set.
  std::map<unsigned, std::set<unsigned>> tileCodelets;
  for (unsigned t : b.participating) tileCodelets[t];
  for (const Vertex &v : graph.vertices) tileCodelets[unsigned(v.tile)].insert(v.codelet);
  for (const Step &st : b.steps)
    if (st.kind == Step::Compute)
      for (const auto &[tile, w] : st.work)
        for (const std::vector<TileCopy> *list : {&w.pre, &w.post})
          if (!list->empty()) tileCodelets[tile].insert(b.copyCodeletFor(*list));
  std::map<std::vector<unsigned>, std::shared_ptr<LinkedCodelets>> linked;
  std::map<unsigned, std::shared_ptr<LinkedCodelets>> tileLink;
  for (auto &[tile, set] : tileCodelets) {
    std::vector<unsigned> key(set.begin(), set.end());
    auto &l = linked[key];
    if (!l) l = linkCodelets(b, key);
    tileLink[tile] = l;
  }

  Executable exe;
  exe.configName = config.name;
  exe.numIpus = graph.target.numIpus;
  exe.tilesPerIpu = graph.target.tilesPerIpu;
  exe.numPrograms = unsigned(programs.size());
  for (const auto &[k, i] : b.programIndex) {
    if (k.rfind("write:", 0) == 0) exe.hostWritePrograms[k.substr(6)] = i;
    else exe.hostReadPrograms[k.substr(5)] = i;
  }
  exe.streams = graph.streams;
  exe.remoteBuffers = graph.remoteBuffers;
  exe.prints = b.prints;

  for (unsigned tile : b.participating) {
    const LinkedCodelets &lk = *tileLink[tile];
    TilePlanInput in;
    in.occupied = lk.occupied;
    in.workerStack = options.workerStackBytes ? (options.workerStackBytes + 7) / 8 * 8 : lk.workerStack;
    in.supervisorStack = options.supervisorStackBytes ? (options.supervisorStackBytes + 7) / 8 * 8 : lk.supervisorStack;
    const std::vector<uint32_t> noTops(6, 0);
    {
      TileEmitter sizing(b, tile, lk.info, memoryBase, false);
      sizing.emitAll(noTops, 0);
      in.controlBytes = uint32_t(sizing.code().words().size() * 4);
    }
    TilePlanOutput plan;
    planTile(b, tile, in, plan);
    // Worker w's stack ends at the top of memory less w stacks; the supervisor's below them.
    std::vector<uint32_t> tops;
    for (unsigned w = 0; w < 6; ++w) tops.push_back(config.tile.memoryEnd() - w * in.workerStack);
    const uint32_t supervisorTop = config.tile.memoryEnd() - 6 * in.workerStack;
    TileEmitter em(b, tile, lk.info, plan.controlBase, true);
    em.emitAll(tops, supervisorTop);
    if (em.code().words().size() * 4 != in.controlBytes)
      throw std::logic_error("graph compiler: the supervisor program changed size between passes");

    TileProgram tp;
    tp.tile = tile;
    tp.entries = em.entries();
    tp.syncSteps = em.syncSteps();
    tp.hostSyncs = em.hostSyncs();
    tp.memory = plan.usage;

    // The image: the codelets as linked, the supervisor program, then the initialised data.
    cc::ObjectFile &img = tp.image;
    img = lk.image;
    {
      cc::Section s;
      s.name = ".text.supervisor";
      s.flags = 2 | 4;
      s.align = 8;
      s.addr = plan.controlBase;
      s.size = in.controlBytes;
      s.data.reserve(4 * em.code().words().size());
      for (uint32_t w : em.code().words())
        for (int k = 0; k < 4; ++k) s.data.push_back(uint8_t(w >> (8 * k)));
      const uint32_t sec = uint32_t(img.sections.size());
      const uint32_t firstFile = uint32_t(img.files.size());
      for (const std::string &n : em.code().notes()) img.files.push_back("<" + n + ">");
      img.lines.reserve(img.lines.size() + em.code().words().size()); // one growth, not a copy a doubling
      for (size_t i = 0; i < em.code().words().size(); ++i)
        img.lines.push_back({sec, uint32_t(4 * i), firstFile + em.code().noteOf()[i], 1, 1, cc::kLineSupervisor});
      img.sections.push_back(std::move(s));
      for (size_t p = 0; p < tp.entries.size(); ++p) {
        cc::Symbol sym;
        sym.name = p < programs.size() ? "__ipusim_program_" + std::to_string(p) : "__ipusim_host_transfer_" + std::to_string(p);
        sym.section = int(sec);
        sym.value = tp.entries[p];
        sym.binding = cc::SymbolBinding::Global;
        sym.type = cc::SymbolType::Func;
        img.symbols.push_back(sym);
      }
    }

    // Initialised data, as (address, bytes) chunks.
    std::vector<std::pair<uint32_t, std::vector<uint8_t>>> chunks;
    std::vector<Item> &items = b.tiles[tile].items;
    auto addrOf = [&](Ref r) { return items.at(r.item).addr + r.offset; };
    for (const Item &it : items) {
      if ((it.kind == Item::Variable || it.kind == Item::Constant) && !graph.variables[it.var].initial.empty()) {
        const Variable &v = graph.variables[it.var];
        const unsigned size = typeSize(v.type);
        const uint64_t from = it.begin * size;
        const uint64_t n = std::min<uint64_t>(it.bytes, v.initial.size() - from);
        chunks.push_back({it.addr, std::vector<uint8_t>(v.initial.begin() + long(from), v.initial.begin() + long(from + n))});
      }
    }
    // Vertex states and their field data.
    for (size_t vi = 0; vi < graph.vertices.size(); ++vi) {
      const Vertex &v = graph.vertices[vi];
      if (unsigned(v.tile) != tile) continue;
      const cc::VertexLayout &l = b.codelets.codelet(v.codelet).layout;
      const Item &si = items[b.stateItem[vi]];
      std::vector<uint8_t> state(si.bytes, 0);
      const std::vector<FieldPlace> &places = b.fieldPlaces[vi];
      for (size_t fi = 0; fi < l.fields.size(); ++fi) {
        const cc::VertexField &f = l.fields[fi];
        const FieldBinding &fb = v.fields[fi];
        const std::string what = "vertex " + std::to_string(vi) + " (" + l.className + "): field '" + f.name + "'";
        if (f.kind == "Value") {
          if (fb.value.size() != f.size)
            throw poplar::graph_connection_error(what + " holds " + std::to_string(f.size) + " bytes but its value has " +
                                                 std::to_string(fb.value.size()));
          std::memcpy(state.data() + f.offset, fb.value.data(), f.size);
          continue;
        }
        const FieldPlace &fp = places[fi];
        if (f.kind == "Vector" && f.innerLayout.empty()) {
          chunks.push_back({addrOf(fp.data), fb.value});
          writeDescriptor(state, f.offset, f.layout, addrOf(fp.data), fp.elements, memoryBase, what);
          continue;
        }
        if (fp.table.valid() && isVectorList(f)) {
          writeVectorList(state, f, fp, addrOf, memoryBase, what, chunks);
          continue;
        }
        if (fp.table.valid()) {
          const std::string inner = f.innerLayout;
          const uint32_t each = inner == "SPAN" ? 8 : 4;
          std::vector<uint8_t> table(std::max<size_t>(each * fp.inner.size(), 4), 0);
          for (size_t i = 0; i < fp.inner.size(); ++i)
            writeDescriptor(table, uint32_t(each * i), inner, addrOf(fp.inner[i].first), fp.inner[i].second, memoryBase,
                            what + "[" + std::to_string(i) + "]");
          chunks.push_back({addrOf(fp.table), table});
          writeDescriptor(state, f.offset, f.layout, addrOf(fp.table), fp.elements, memoryBase, what);
          continue;
        }
        writeDescriptor(state, f.offset, f.layout, addrOf(fp.data), fp.elements, memoryBase, what);
      }
      chunks.push_back({si.addr, std::move(state)});
    }
    // CopyList states and descriptors.
    for (const Step &st : b.steps) {
      if (st.kind != Step::Compute) continue;
      auto it = st.work.find(tile);
      if (it == st.work.end()) continue;
      const TileWork &w = it->second;
      for (auto [list, stateItem] : {std::make_pair(&w.pre, w.preState), std::make_pair(&w.post, w.postState)}) {
        if (list->empty()) continue;
        const Item &si = items[stateItem];
        const Item &di = items[uint32_t(si.begin)];
        std::vector<uint8_t> desc(12 * list->size());
        for (size_t i = 0; i < list->size(); ++i) {
          put32(desc, uint32_t(12 * i), addrOf((*list)[i].dst));
          put32(desc, uint32_t(12 * i + 4), addrOf((*list)[i].src));
          put32(desc, uint32_t(12 * i + 8), (*list)[i].bytes);
        }
        chunks.push_back({di.addr, std::move(desc)});
        std::vector<uint8_t> state(si.bytes, 0);
        const cc::VertexLayout &copyLayout = b.codelets.codelet(b.copyCodeletFor(*list)).layout;
        writeDescriptor(state, copyLayout.fields.at(0).offset, copyLayout.fields.at(0).layout, di.addr, 3 * list->size(),
                        memoryBase, "CopyList");
        if (wordList(*list)) put32(state, copyLayout.fields.at(1).offset, leadingOneWordCopies(*list));
        chunks.push_back({si.addr, std::move(state)});
      }
    }
    // Coalesce into sections.
    std::sort(chunks.begin(), chunks.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
    for (auto &[a, bytes] : chunks) {
      if (bytes.empty()) continue;
      if (!img.sections.empty()) {
        cc::Section &last = img.sections.back();
        if (last.name.rfind(".data.tile", 0) == 0 && a >= last.addr + last.size && a - (last.addr + last.size) <= 64) {
          last.data.resize(a - last.addr, 0);
          last.data.insert(last.data.end(), bytes.begin(), bytes.end());
          last.size = uint32_t(last.data.size());
          continue;
        }
      }
      cc::Section s;
      s.name = ".data.tile";
      s.flags = 2 | 1;
      s.align = 4;
      s.addr = a;
      s.data = std::move(bytes);
      s.size = uint32_t(s.data.size());
      img.sections.push_back(std::move(s));
    }
    // Host transfers of this tile get their addresses.
    // (hostRefs: the pieces' refs, then the offsets').
    for (size_t h = 0; h < b.hostSteps.size(); ++h) {
      HostStep &hs = b.hostSteps[h];
      for (size_t p = 0; p < hs.pieces.size(); ++p)
        if (hs.pieces[p].tile == tile) hs.pieces[p].addr = addrOf(b.hostRefs[h][p]);
      for (size_t p = 0; p < hs.offsets.size(); ++p)
        if (hs.offsets[p].tile == tile) hs.offsets[p].addr = addrOf(b.hostRefs[h][hs.pieces.size() + p]);
    }
    exe.tiles.push_back(std::move(tp));
  }
  exe.hostSteps = b.hostSteps;

  for (const Step &st : b.steps) {
    StepInfo si;
    si.type = st.type;
    si.name = st.name;
    si.bytes = st.bytes;
    si.tiles = st.kind == Step::Compute ? unsigned(st.work.size())
               : st.kind == Step::Exchange ? unsigned(st.schedule.tiles.size())
                                           : unsigned(b.participating.size());
    exe.steps.push_back(si);
  }
  exe.numVertices = graph.vertices.size();
  exe.numComputeSets = graph.computeSets.size();
  exe.numVariables = graph.variables.size();
  for (size_t vi = 0; vi < graph.vertices.size(); ++vi) {
    const cc::VertexLayout &l = b.codelets.codelet(graph.vertices[vi].codelet).layout;
    ++exe.vertexTypes[l.className];
    for (const FieldPlace &fp : b.fieldPlaces[vi]) exe.numEdges += fp.table.valid() ? fp.inner.size() : fp.data.valid() ? 1 : 0;
  }
  return exe;
}

} // namespace ipusim::gc
