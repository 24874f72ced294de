// ipusim report: the profile summary of a Poplar engine's autoReport directory.
#pragma once

#include <string>

namespace ipusim::tools {

struct ReportOptions {
  std::string directory;
  bool steps = false;
};

/// Prints DIR/profile.json as Engine::printProfileSummary does; exit status 0, or 1 with an error.
int runReport(const ReportOptions &options);

} // namespace ipusim::tools
