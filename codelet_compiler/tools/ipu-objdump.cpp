// ipu-objdump -d FILE | ipu-objdump --asm FILE
#include "ipusim/arch/ToolError.h"
#include "ipusim/cc/Disassembler.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  CLI::App app{"ipu-objdump: disassembles IPU objects and tile images"};
  bool listing = false, source = false;
  std::string input;
  app.add_flag("-d,--disassemble", listing, "print addresses, words, instructions and symbols");
  app.add_flag("--asm", source, "print source that ipu-as reassembles to the same bytes");
  app.add_option("input", input, "object or tile image")->required();
  CLI11_PARSE(app, argc, argv);
  if (listing == source) {
    std::fprintf(stderr, "ipu-objdump: error: give exactly one of -d and --asm\n");
    return 1;
  }
  try {
    ipusim::cc::ObjectFile obj = ipusim::cc::readElfFile(input);
    std::string out = source ? ipusim::cc::disassembleToSource(obj, input) : ipusim::cc::disassemble(obj, input);
    std::fwrite(out.data(), 1, out.size(), stdout);
  } catch (const std::exception &e) {
    ipusim::arch::printToolError("ipu-objdump", e.what());
    return 1;
  }
  return 0;
}
