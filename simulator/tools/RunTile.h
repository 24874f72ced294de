#pragma once
#include <string>
#include <vector>

namespace ipusim::tools {

struct RunTileOptions {
  std::string image, entry, mode = "supervisor", config = "mk2", trace;
  std::string vertexBase = "0";
  std::vector<std::string> loads, dumps;
  uint64_t maxCycles = 1000000000; ///< a program still running then is reported, not waited for
};

/// `ipusim run-tile`: returns the exit status (0 done, 1 bad input, 2 simulated exception).
int runTile(const RunTileOptions &options);

} // namespace ipusim::tools
