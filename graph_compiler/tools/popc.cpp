// popc: compiles codelets (C++ through ipu-cc with __POPC__ defined, assembly through ipu-as) into
// one `.gp` file that Graph::addCodelets loads (docs/poplar.md "Codelets").
#include "ipusim/gc/Codelets.h"

#include <poplar/exceptions.hpp>

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>

int main(int argc, char **argv) {
  CLI::App app{"popc: compile Poplar codelets (C++ or assembly) into a .gp file for Graph::addCodelets"};
  std::vector<std::string> inputs, includes, defines;
  std::string output, opt = "-O2";
  app.add_option("inputs", inputs, "codelet sources (.cpp, .S) or .gp files")->required();
  app.add_option("-o", output, "the .gp file to write")->required();
  app.add_option("-I", includes, "include directory");
  app.add_option("-D", defines, "macro definition NAME or NAME=VALUE");
  app.add_option("-O", opt, "optimisation level 0..3 (as -O2)")->check(CLI::IsMember({"0", "1", "2", "3"}))
      ->transform([](std::string s) { return "-O" + s; });
  app.set_help_flag("-h,--help", "print this help and exit");
  CLI11_PARSE(app, argc, argv);
  std::string flags = opt;
  for (const std::string &i : includes) flags += " -I" + i;
  for (const std::string &d : defines) flags += " -D" + d;
  try {
    const ipusim::gc::CodeletArchive a = ipusim::gc::compileCodeletFiles(inputs, {flags});
    const std::vector<uint8_t> bytes = ipusim::gc::writeCodeletArchive(a);
    std::ofstream out(output, std::ios::binary);
    if (!out) {
      std::cerr << "popc: error: cannot write " << output << "\n";
      return 1;
    }
    out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
    if (!out) {
      std::cerr << "popc: error: writing " << output << " failed\n";
      return 1;
    }
  } catch (const poplar::poplar_error &e) {
    std::string msg = e.what();
    if (!msg.empty() && msg.back() == '\n') msg.pop_back();
    std::cerr << msg << "\n";
    return 1;
  }
  return 0;
}
