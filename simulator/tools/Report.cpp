#include "Report.h"

#include "ipusim/sim/Profile.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace ipusim::tools {

int runReport(const ReportOptions &o) {
  namespace fs = std::filesystem;
  const fs::path file = fs::path(o.directory) / "profile.json";
  std::error_code ec;
  if (!fs::is_directory(o.directory, ec)) {
    std::cerr << o.directory << ": error: not a directory (give the autoReport.directory of a Poplar engine)\n";
    return 1;
  }
  std::ifstream in(file);
  if (!in) {
    std::cerr << file.string() << ": error: no profile here (run a program with the engine option autoReport.all=true)\n";
    return 1;
  }
  nlohmann::json p = nlohmann::json::parse(in, nullptr, false);
  if (p.is_discarded() || !p.is_object()) {
    std::cerr << file.string() << ": error: not a JSON profile written by a Poplar engine on ipusim\n";
    return 1;
  }
  try {
    sim::ProfileSummaryOptions so;
    so.showExecutionSteps = o.steps;
    sim::printProfileSummary(std::cout, p, so);
  } catch (const nlohmann::json::exception &e) {
    std::cerr << file.string() << ": error: malformed profile (" << e.what() << ")\n";
    return 1;
  }
  return 0;
}

} // namespace ipusim::tools
