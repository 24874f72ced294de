// ipusim bench: microbenchmarks run on the model (tile memory bandwidth, exchange bandwidth and
// latency, internal sync latency), printed beside the published figures of ipu-facts §1 and §5
// (docs/bench.md).
#pragma once

#include <string>

namespace ipusim::tools {

struct BenchOptions {
  bool json = false;         ///< a JSON object instead of the table
  unsigned tiles = 0;        ///< tiles taking part (0: all the IPU's tiles)
  unsigned threads = 0;      ///< host threads (0: all host cores); results do not depend on it
  std::string config = "mk2"; ///< machine config name or .toml file
};

/// `ipusim bench`: returns 0, 1 (bad options) or 2 (a benchmark failed in the simulator or
/// did not deliver what it sent).
int runBench(const BenchOptions &options);

} // namespace ipusim::tools
