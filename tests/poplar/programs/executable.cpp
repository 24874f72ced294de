// Compiling once and running later: compileGraph, Executable::serialize to a file, deserialize
// and an Engine from it; the profile summary and the autoReport directory (profile.json and the
// run's trace), which `ipusim report` reads back into the same summary.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

using namespace poplar;
using namespace poplar::program;

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  Device device = ipuModel.createDevice();
  Graph graph(device.getTarget());
  graph.addCodelets("executable_codelets.cpp");
  Tensor x = graph.addVariable(FLOAT, {8}, "x");
  graph.setTileMapping(x.slice(0, 4), 0);
  graph.setTileMapping(x.slice(4, 8), 3);
  ComputeSet cs = graph.addComputeSet("square");
  for (unsigned i = 0; i < 2; ++i) {
    VertexRef v = graph.addVertex(cs, "Square", {{"x", x.slice(4 * i, 4 * i + 4)}});
    graph.setTileMapping(v, i == 0 ? 0 : 3);
  }
  graph.createHostWrite("x-in", x);
  graph.createHostRead("x-out", x);
  Sequence square({Execute(cs)}, "square it");
  Sequence print({PrintTensor("x", x)}, "print it");

  int progress = 0;
  Executable exe = compileGraph(graph, {square, print}, {}, [&](int, int) { ++progress; });
  std::cout << "progress reported: " << (progress > 0) << "\n";
  {
    std::ofstream out("program.ipusim", std::ios::binary);
    exe.serialize(out);
  }
  std::ifstream in("program.ipusim", std::ios::binary);
  Executable loaded = Executable::deserialize(in);
  Engine engine(std::move(loaded), {{"autoReport.all", "true"}, {"autoReport.directory", "report"}});
  engine.load(device);
  float values[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  engine.writeTensor("x-in", values, values + 8);
  engine.run(0);
  engine.run(0);
  engine.run(1);
  engine.readTensor("x-out", values, values + 8);
  std::cout << "x[7] = " << values[7] << "\n";

  std::ostringstream summary;
  engine.printProfileSummary(summary, {{"showExecutionSteps", "true"}});
  const std::string text = summary.str();
  for (const char *section : {"Target:", "Graph:", "Memory Usage:", "Execution:", "square it.", "print it.",
                              "Total cycles:", "OnTileExecute: square", "StreamCopy: print x"})
    std::cout << "summary has \"" << section << "\": " << (text.find(section) != std::string::npos) << "\n";
  std::cout << "runs of program 0 noted: " << (text.find("(program 0, 2 runs)") != std::string::npos) << "\n";
  std::cout << "last run counted cycles: " << (engine.getLastRunCycles() > 0) << "\n";

  // The report directory: profile.json and the trace, and ipusim report prints the same summary.
  std::cout << "profile.json written: " << !slurp("report/profile.json").empty() << "\n";
  const std::string trace = slurp("report/execution.trace");
  std::cout << "trace has vertex events: " << (trace.find("vertex") != std::string::npos) << "\n";
  std::cout << "trace has syncs: " << (trace.find(" sync ") != std::string::npos) << "\n";
  std::cout << "ipusim report: " << std::system("ipusim report report --steps > report.txt") << "\n";
  std::cout << "report matches the summary: " << (slurp("report.txt") == text) << "\n";
  std::cout << "perfetto export: " << std::system("ipu-trace export --perfetto report/execution.trace > trace.json") << "\n";
  std::cout << "perfetto JSON: " << (slurp("trace.json").find("traceEvents") != std::string::npos) << "\n";

  try {
    std::istringstream junk("not an executable");
    Executable::deserialize(junk);
  } catch (const poplar_error &e) {
    std::cout << e.what() << "\n";
  }
  return 0;
}
