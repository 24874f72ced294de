// ipusim: the simulator's command line: run-tile (one tile), run (a program on an IPU or a system),
// info (a machine config), bench, report, pack-state.
#include "Bench.h"
#include "Info.h"
#include "PackState.h"
#include "RunProgram.h"
#include "Report.h"
#include "RunTile.h"

#include "CliChecks.h"

#include <CLI/CLI.hpp>
#include <systemc>

#include <cstdlib>

// SystemC's library calls sc_main; main only silences its banner first, so that stdout and stderr
// carry nothing but the tool's own output.
int main(int argc, char **argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char **argv) {
  CLI::App app{"ipusim: cycle-level simulator of Graphcore Mk2 IPU systems"};
  app.require_subcommand(1);
  ipusim::tools::RunTileOptions rt;
  CLI::App *runTile = app.add_subcommand("run-tile", "run an entry point of a tile image on one tile");
  runTile->add_option("image", rt.image, "linked tile image (ipu-ld output)")->required();
  runTile->add_option("--entry", rt.entry, "symbol to start")->required();
  runTile->add_option("--mode", rt.mode,
                      "supervisor: called with the vertex base in $m0, returns with br $lr; worker: started with "
                      "run on one worker; multi: started with runall on all six")
      ->check(CLI::IsMember({"supervisor", "worker", "multi"}));
  runTile->add_option("--vertex-base", rt.vertexBase, "vertex state address");
  runTile->add_option("--load", rt.loads, "FILE@ADDR: copy a file into tile memory before the run");
  runTile->add_option("--dump", rt.dumps, "ADDR:LEN:FILE: write tile memory to a file after the run");
  runTile->add_option("--config", rt.config, "machine config name or .toml file (default mk2)");
  runTile->add_option("--max-cycles", rt.maxCycles, "stop with an error after this many tile cycles (default 1e9)")->check(ipusim::tools::wholeNumber());
  runTile->add_option("--trace", rt.trace,
                      "write the canonical trace (docs/trace-format.md) with every issued instruction");
  std::string infoConfig;
  CLI::App *info = app.add_subcommand("info", "print and validate a machine config: IPUs, IPU-Links, host links, rings");
  info->add_option("config", infoConfig, "machine config name (mk2, m2000, pod16, pod64) or .toml file")->required();
  ipusim::tools::RunProgramOptions rp;
  CLI::App *run = app.add_subcommand("run", "run a program manifest on the tiles of one IPU or a system of IPUs (docs/program-manifest.md)");
  run->add_option("program", rp.manifest, "program manifest (TOML)")->required();
  run->add_option("--threads", rp.threads, "host threads (default: all cores); results do not depend on it")->check(ipusim::tools::wholeNumber());
  run->add_option("--stats", rp.stats, "write the JSON statistics to this file instead of stdout");
  run->add_option("--dump", rp.dumps, "[ipuI.]TILE:ADDR:LEN:FILE: write tile memory to a file after the run");
  run->add_option("--trace", rp.trace, "write the canonical trace (docs/trace-format.md)");
  run->add_flag("--trace-instructions", rp.traceInstructions, "also trace every issued instruction");
  run->add_option("--max-cycles", rp.maxCycles, "stop with an error after this many tile cycles (default 1e9)")->check(ipusim::tools::wholeNumber());
  ipusim::tools::BenchOptions bo;
  CLI::App *bench = app.add_subcommand("bench", "microbenchmarks run on the model beside the published figures (docs/bench.md)");
  bench->add_flag("--json", bo.json, "print a JSON object instead of the table");
  bench->add_option("--tiles", bo.tiles, "tiles taking part (default: all the IPU's); per-IPU figures scale to all")->check(ipusim::tools::wholeNumber());
  bench->add_option("--threads", bo.threads, "host threads (default: all cores); results do not depend on it")->check(ipusim::tools::wholeNumber());
  bench->add_option("--config", bo.config, "machine config name or .toml file (default mk2)");
  ipusim::tools::ReportOptions ro;
  CLI::App *report = app.add_subcommand("report", "the profile summary of a Poplar engine's autoReport directory");
  report->add_option("directory", ro.directory, "the engine option autoReport.directory")->required();
  report->add_flag("--steps", ro.steps, "list the execution steps (as showExecutionSteps)");
  ipusim::tools::PackStateOptions ps;
  CLI::App *pack = app.add_subcommand(
      "pack-state", "write a vertex state: FIELD=VALUE by the layout ipu-cc recorded, or raw 32-bit words");
  pack->add_option("-o", ps.output, "the state file to write (load it at the vertex base)")->required();
  pack->add_option("--layout", ps.layout, "object or tile image from ipu-cc holding the vertex's layout");
  pack->add_option("--vertex", ps.vertex, "the vertex class (or its entry symbol)");
  pack->add_option("--config", ps.config, "machine config (for SCALED_PTR32's memory base; default mk2)");
  pack->add_option("items", ps.items,
                   "with --vertex: FIELD=VALUE (edges ADDR:COUNT, ADDR, or FILE@ADDR; values numbers); "
                   "without: 32-bit words (integers; 2.5 or 1e-3 as float)")
      ->required();
  CLI11_PARSE(app, argc, argv);
  if (*pack) return ipusim::tools::packState(ps);
  if (*runTile) return ipusim::tools::runTile(rt);
  if (*run) return ipusim::tools::runProgram(rp);
  if (*info) return ipusim::tools::runInfo(infoConfig);
  if (*bench) return ipusim::tools::runBench(bo);
  if (*report) return ipusim::tools::runReport(ro);
  return 1;
}
