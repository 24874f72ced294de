#include "ipusim/sim/Image.h"

#include <cstdio>

namespace ipusim::sim {

void loadImage(Tile &tile, const cc::ObjectFile &image, const std::string &name) {
  if (!image.linked) throw std::runtime_error(name + ": error: not a linked tile image (link it with ipu-ld)");
  TileMemory &mem = tile.memory();
  for (const cc::Section &s : image.sections) {
    if (!(s.flags & 2) || s.size == 0) continue;
    if (!mem.contains(s.addr, s.size)) {
      char buf[128];
      std::snprintf(buf, sizeof buf, ": error: section %s at 0x%x..0x%x is outside tile memory", s.name.c_str(),
                    s.addr, s.addr + s.size);
      throw std::runtime_error(name + buf);
    }
    if (!s.isNobits()) std::copy(s.data.begin(), s.data.end(), mem.at(s.addr));
    if (s.isCode()) tile.predecode(s.addr, s.addr + s.size); // decode the code now, before any sharing
  }
  tile.setSourceLookup([&image](uint32_t pc) -> std::string {
    for (uint32_t s = 0; s < image.sections.size(); ++s) {
      const cc::Section &sec = image.sections[s];
      if (pc >= sec.addr && pc < sec.addr + sec.size)
        if (const cc::LineEntry *e = image.lineAt(s, pc - sec.addr)) return image.location(*e);
    }
    return "";
  });
  // Vertex and tile events in traces name the code they start: a global (else any) symbol at the
  // address, skipping local labels.
  tile.setSymbolLookup([&image](uint32_t pc) -> std::string {
    const cc::Symbol *best = nullptr;
    for (const cc::Symbol &s : image.symbols)
      if (s.value == pc && s.section >= 0 && s.type != cc::SymbolType::Section && !s.name.empty() && s.name.compare(0, 2, ".L") != 0 &&
          (!best || (best->binding == cc::SymbolBinding::Local && s.binding != cc::SymbolBinding::Local)))
        best = &s;
    return best ? best->name : "";
  });
}

} // namespace ipusim::sim
