// popc: compiles codelets (C++ through ipu-cc with __POPC__ defined, assembly through ipu-as) into
// one `.gp` file that Graph::addCodelets loads (docs/poplar.md "Codelets").
#include "ipusim/gc/Codelets.h"

#include <poplar/exceptions.hpp>

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

const char *const kUsage =
    "usage: popc [-O0|-O1|-O2|-O3] [-I DIR] [-D NAME[=VALUE]] [-std=STD] [-g] [-W...] [--target=T]\n"
    "            FILE... -o OUT.gp\n"
    "Compiles Poplar codelets (C++ through ipu-cc with __POPC__ defined, assembly through ipu-as)\n"
    "into one .gp file for Graph::addCodelets. Options may come before, between or after the files,\n"
    "with their values attached (-Iinc, -DN=1) or as the next word (-I inc, -D N=1).\n";

int usageError(const std::string &what) {
  std::cerr << "popc: error: " << what << "\n" << kUsage;
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  // gcc-style options, as Graphcore's popc takes them (a CLI11 parser took -O2 as "-O" "2" and let
  // -I/-D swallow the input files).
  std::vector<std::string> inputs;
  std::string output, flags = "-O2";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    // An option with a value: attached (-Ifoo) or the next word (-I foo).
    auto value = [&](size_t prefix, std::string &out) {
      if (a.size() > prefix) out = a.substr(prefix);
      else if (i + 1 < argc) out = argv[++i];
      else return false;
      return true;
    };
    std::string v;
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (a.rfind("-o", 0) == 0) {
      if (!value(2, output)) return usageError("-o needs a file name");
    } else if (a.rfind("-I", 0) == 0) {
      if (!value(2, v)) return usageError("-I needs a directory");
      flags += " -I" + v;
    } else if (a.rfind("-D", 0) == 0) {
      if (!value(2, v)) return usageError("-D needs NAME or NAME=VALUE");
      flags += " -D" + v;
    } else if (a == "-O0" || a == "-O1" || a == "-O2" || a == "-O3" || a == "-O") {
      flags += " " + (a == "-O" ? std::string("-O2") : a);
    } else if (a.rfind("-O", 0) == 0) {
      return usageError("unknown optimisation level '" + a + "' (use -O0, -O1, -O2 or -O3)");
    } else if (a == "--target") {
      if (!value(8, v)) return usageError("--target needs a value");
    } else if (a.rfind("-std=", 0) == 0 || a.rfind("--target=", 0) == 0 || a == "-g" || a == "-g0" || a == "-w" ||
               a.rfind("-W", 0) == 0 || a == "-ffast-math") {
      flags += " " + a;
    } else if (a.size() > 1 && a[0] == '-') {
      return usageError("unknown option '" + a + "'");
    } else {
      inputs.push_back(a);
    }
  }
  if (inputs.empty()) return usageError("no input files");
  if (output.empty()) return usageError("no output file (-o OUT.gp)");
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
