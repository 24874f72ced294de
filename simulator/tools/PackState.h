#pragma once
#include <string>
#include <vector>

namespace ipusim::tools {

struct PackStateOptions {
  std::string output, layout, vertex, config = "mk2";
  std::vector<std::string> items; ///< FIELD=VALUE with a layout; raw 32-bit words without
};

/// `ipusim pack-state` (docs/toolchain.md): writes a vertex state; returns the exit status.
int packState(const PackStateOptions &options);

} // namespace ipusim::tools
