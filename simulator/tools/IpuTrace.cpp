// ipu-trace: show, diff and export traces in the canonical format (docs/trace-format.md).
// Exit status: 0 done (diff: equal), 1 diff found a difference, 2 a trace cannot be read; CLI11's
// own codes for bad command lines.
#include "ipusim/arch/ToolError.h"
#include "ipusim/sim/TraceTools.h"

#include "CliChecks.h"

#include <CLI/CLI.hpp>
#include <cstdio>

using namespace ipusim::sim;

namespace {

void write(const std::string &s) { std::fwrite(s.data(), 1, s.size(), stdout); }

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"ipu-trace: show, compare and export ipusim traces (docs/trace-format.md)"};
  app.require_subcommand(1);

  std::string showFile;
  TraceShowOptions show;
  CLI::App *showCmd = app.add_subcommand("show", "print a trace's events in aligned columns, then a summary");
  showCmd->add_option("file", showFile, "trace file")->required();
  showCmd->add_option("--tile", show.tile, "only this tile's events (its supervisor and workers)")->check(ipusim::tools::wholeNumber());
  showCmd->add_option("--from", show.from, "only events at this cycle or later")->check(ipusim::tools::wholeNumber());
  showCmd->add_option("--to", show.to, "only events at this cycle or earlier")->check(ipusim::tools::wholeNumber());
  showCmd->add_option("--event", show.eventPrefix, "only events whose name starts with this prefix");

  std::string diffA, diffB, tolerance = "0";
  CLI::App *diffCmd = app.add_subcommand(
      "diff", "compare two traces: exit 0 if equal, 1 printing the first divergence, 2 if one cannot be read");
  diffCmd->add_option("a", diffA, "the reference trace")->required();
  diffCmd->add_option("b", diffB, "the trace to compare with it")->required();
  diffCmd
      ->add_option("--cycle-tolerance", tolerance,
                   "how far cycle fields may differ: N cycles, or P% of the reference's value")
      ->check(CLI::Validator(
          [](std::string &s) -> std::string {
            CycleTolerance t;
            return parseCycleTolerance(s, t) ? "" : "expected N (cycles) or P% (percent), got '" + s + "'";
          },
          "N|P%"));

  std::string exportFile;
  bool perfetto = false;
  CLI::App *exportCmd = app.add_subcommand("export", "convert a trace for a viewer, written to stdout");
  exportCmd->add_flag("--perfetto", perfetto, "Chrome trace-event JSON for ui.perfetto.dev and chrome://tracing")
      ->required();
  exportCmd->add_option("file", exportFile, "trace file")->required();

  CLI11_PARSE(app, argc, argv);

  try {
    if (*showCmd) {
      write(showTrace(readTrace(showFile), show));
    } else if (*diffCmd) {
      CycleTolerance t;
      parseCycleTolerance(tolerance, t);
      TraceFile a = readTrace(diffA), b = readTrace(diffB);
      std::string report = diffTraces(a, diffA, b, diffB, t);
      write(report);
      return report.empty() ? 0 : 1;
    } else if (*exportCmd) {
      write(exportPerfetto(readTrace(exportFile)));
    }
  } catch (const TraceError &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const std::exception &e) { // nothing the tool does may end in an abort
    ipusim::arch::printToolError("ipu-trace", e.what());
    return 2;
  }
  return 0;
}
