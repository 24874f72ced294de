// ipu-ld -o OUT.elf A.o B.o ... : links objects into a tile image at the Mk2 memory map.
// --keep SYMBOL (repeatable) links only what those symbols reach, as the graph compiler links a
// tile's codelets: a whole codelet library does not fit a tile's executable region.
#include "ipusim/arch/ToolError.h"
#include "ipusim/arch/Config.h"
#include "ipusim/cc/Linker.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  CLI::App app{"ipu-ld: links IPU objects into one tile image"};
  std::string output, entry, config = "mk2";
  std::vector<std::string> inputs, keep;
  app.add_option("-o", output, "output tile image")->required();
  app.add_option("-e,--entry", entry, "symbol whose address is the image's entry point");
  app.add_option("--config", config, "machine config whose tile memory map to use (default: mk2)");
  app.add_option("--keep", keep, "link only the sections these symbols are in and what they reach")
      ->allow_extra_args(false);
  app.add_option("inputs", inputs, "objects")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    ipusim::arch::SystemConfig cfg = ipusim::arch::loadNamedConfig(config);
    std::vector<ipusim::cc::LinkInput> objs;
    for (const std::string &in : inputs) objs.push_back({in, ipusim::cc::readElfFile(in)});
    ipusim::cc::writeElfFile(ipusim::cc::link(objs, cfg.tile, {entry, keep}), output);
  } catch (const std::exception &e) {
    ipusim::arch::printToolError("ipu-ld", e.what());
    return 1;
  }
  return 0;
}
