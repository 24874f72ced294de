// ipu-cc: compiles Poplar-style C++ codelets for the Mk2 tile (docs/ipu-cc.md).
//   ipu-cc [-O0..3] [-I DIR] [-D NAME[=VAL]] [-std=c++17] (-c | -S) IN.cpp [-o OUT]
//   ipu-cc --print-vertex-layout IN.o
#include "ipusim/arch/ToolError.h"
#include "ipusim/cc/Compiler.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace {

int fail(const std::string &what) {
  ipusim::arch::printToolError("ipu-cc", what);
  return 1;
}

std::string defaultOutput(const std::string &in, const char *ext) {
  std::string base = in.substr(in.find_last_of('/') + 1);
  size_t dot = base.find_last_of('.');
  return (dot == std::string::npos ? base : base.substr(0, dot)) + ext;
}

} // namespace

int main(int argc, char **argv) {
  // -O2 and -std=c++17 are single tokens in the usual compiler spelling; CLI11 wants them split.
  std::vector<std::string> args;
  ipusim::cc::CompileOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() == 3 && a.rfind("-O", 0) == 0 && a[2] >= '0' && a[2] <= '3') options.optLevel = a[2] - '0';
    else if (a.rfind("-std=", 0) == 0) options.cxxStandard = a.substr(5);
    else args.push_back(a);
  }
  CLI::App app{"ipu-cc: compiles Poplar-style C++ codelets to Mk2 tile objects", "ipu-cc"};
  std::string input, output, layoutOf;
  bool compile = false, assembly = false;
  app.add_option("-I", options.includeDirs, "add an include directory")->allow_extra_args(false);
  app.add_option("-D", options.defines, "define a preprocessor macro (NAME or NAME=VALUE)")->allow_extra_args(false);
  app.add_option("-o", output, "output file");
  app.add_flag("-c", compile, "write a relocatable object (default)");
  app.add_flag("-S", assembly, "write the generated assembly");
  app.add_option("--print-vertex-layout", layoutOf, "print the vertex-state layouts recorded in an object as JSON");
  app.add_option("input", input, "codelet source (.cpp)");
  app.footer("Optimisation: -O0, -O1, -O2 (default), -O3. Language: -std=c++17 (default), -std=c++20.");
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }
  try {
    if (!layoutOf.empty()) {
      std::fputs(ipusim::cc::vertexLayoutsToJson(ipusim::cc::readVertexLayouts(ipusim::cc::readElfFile(layoutOf))).c_str(),
                 stdout);
      return 0;
    }
    if (input.empty()) return fail("ipu-cc: error: no input file (ipu-cc -c IN.cpp -o OUT.o)");
    ipusim::cc::CompileResult r = ipusim::cc::compileCodelet(input, options);
    std::fputs(r.warnings.c_str(), stderr);
    if (assembly) {
      std::string out = output.empty() ? defaultOutput(input, ".s") : output;
      std::ofstream f(out);
      f << r.assembly;
      if (!f) return fail("ipu-cc: error: cannot write " + out);
      return 0;
    }
    (void)compile;
    ipusim::cc::writeElfFile(r.object, output.empty() ? defaultOutput(input, ".o") : output);
  } catch (const std::exception &e) {
    return fail(e.what());
  }
  return 0;
}
