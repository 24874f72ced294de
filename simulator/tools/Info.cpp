// ipusim info: what a machine config describes, validated (docs/systems.md).
#include "Info.h"

#include "ipusim/arch/Config.h"
#include "ipusim/arch/Topology.h"

#include <cstdio>
#include <exception>

namespace ipusim::tools {

int runInfo(const std::string &config) {
  try {
    const arch::SystemConfig cfg = arch::loadConfigArgument(config);
    const arch::Topology topology(cfg);
    std::fputs(topology.describe(cfg).c_str(), stdout);
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}

} // namespace ipusim::tools
