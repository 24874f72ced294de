// ipu-as [-I DIR] [-D NAME[=VAL]] IN.S -o OUT.o ; ipu-as --list-mnemonics
#include "ipusim/arch/ToolError.h"
#include "ipusim/arch/Isa.h"
#include "ipusim/cc/Assembler.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  CLI::App app{"ipu-as: assembler for the Colossus Mk2 tile ISA (.S files are preprocessed)"};
  ipusim::cc::AssemblerOptions options;
  std::string input, output;
  bool list = false;
  app.add_option("-I", options.includeDirs, "add an include directory")->allow_extra_args(false);
  app.add_option("-D", options.defines, "define a preprocessor macro (NAME or NAME=VALUE)")->allow_extra_args(false);
  app.add_option("-o", output, "output object file");
  app.add_flag("--list-mnemonics", list, "print every mnemonic of the ISA table, one per line");
  app.add_option("input", input, "assembly source (.S or .s)");
  CLI11_PARSE(app, argc, argv);
  if (list) {
    for (const std::string &m : ipusim::arch::allMnemonics()) std::printf("%s\n", m.c_str());
    return 0;
  }
  if (input.empty() || output.empty()) {
    std::fprintf(stderr, "ipu-as: error: usage: ipu-as [-I DIR] [-D NAME[=VAL]] IN.S -o OUT.o\n");
    return 1;
  }
  try {
    ipusim::cc::writeElfFile(ipusim::cc::assembleFile(input, options), output);
  } catch (const std::exception &e) {
    ipusim::arch::printToolError("ipu-as", e.what());
    return 1;
  }
  return 0;
}
