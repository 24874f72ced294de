// The text summary of a run profile (docs/poplar.md "Profile"): what Engine::printProfileSummary
// prints and `ipusim report DIR` prints from an autoReport directory's profile.json. The profile
// is JSON written by the graph compiler's engine; its fields are documented in docs/poplar.md.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

namespace ipusim::sim {

struct ProfileSummaryOptions {
  bool showExecutionSteps = false;
};

/// Writes the Target, Graph, Memory Usage and Execution sections of `profile`.
void printProfileSummary(std::ostream &os, const nlohmann::json &profile, const ProfileSummaryOptions &options);

} // namespace ipusim::sim
