#pragma once
#include <string>

namespace ipusim::tools {

/// `ipusim info CONFIG`: loads and validates a machine config (a name or a .toml file) and its
/// IPU-Link topology, and prints the system (docs/systems.md). Returns 0, or 1 with the error.
int runInfo(const std::string &config);

} // namespace ipusim::tools
