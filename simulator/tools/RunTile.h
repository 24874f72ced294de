#pragma once
#include <string>
#include <vector>

namespace ipusim::tools {

struct RunTileOptions {
  std::string image, entry, mode = "supervisor", config = "mk2", trace;
  std::string vertexBase = "0";
  std::vector<std::string> loads, dumps;
};

/// `ipusim run-tile`: returns the exit status (0 done, 1 bad input, 2 simulated exception).
int runTile(const RunTileOptions &options);

} // namespace ipusim::tools
