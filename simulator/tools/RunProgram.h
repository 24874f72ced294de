#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ipusim::tools {

struct RunProgramOptions {
  std::string manifest, stats;
  std::string trace;             ///< canonical trace file (docs/trace-format.md), or none
  bool traceInstructions = false; ///< also trace every issued instruction
  unsigned threads = 0; ///< 0: all host cores
  std::vector<std::string> dumps; ///< TILE:ADDR:LEN:FILE
  uint64_t maxCycles = 1000000000;
};

/// `ipusim run PROGRAM.toml`: returns 0, 1 (bad input) or 2 (simulated exception or deadlock).
int runProgram(const RunProgramOptions &options);

} // namespace ipusim::tools
