#include "ipusim/sim/Profile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace ipusim::sim {

namespace {

std::string commas(uint64_t v) {
  std::string s = std::to_string(v), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

std::string fixed(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  // Thousands separators on the integer part.
  std::string s = b;
  const size_t dot = s.find('.');
  std::string integer = s.substr(0, dot), frac = dot == std::string::npos ? "" : s.substr(dot);
  const bool neg = !integer.empty() && integer[0] == '-';
  if (neg) integer = integer.substr(1);
  return (neg ? "-" : "") + commas(std::stoull(integer)) + frac;
}

std::string kb(double bytes) { return fixed(bytes / 1024, 1) + " kB"; }
std::string mb(double bytes) { return fixed(bytes / (1024 * 1024), 1) + " MB"; }

/// "  Label:" padded to `width`, then the value.
void line(std::ostream &os, int indent, const std::string &label, const std::string &value, int width = 40) {
  std::string l(size_t(indent), ' ');
  l += label + ":";
  if (int(l.size()) < width) l += std::string(size_t(width - int(l.size())), ' ');
  else l += ' ';
  os << l << value << '\n';
}

std::string percent(uint64_t part, uint64_t total) {
  return fixed(total ? 100.0 * double(part) / double(total) : 0.0, 1) + "%";
}

} // namespace

void printProfileSummary(std::ostream &os, const nlohmann::json &p, const ProfileSummaryOptions &options) {
  const nlohmann::json &t = p.at("target");
  const uint64_t ipus = t.at("ipus"), tilesPerIpu = t.at("tilesPerIpu"), bytesPerTile = t.at("bytesPerTile");
  const double clockHz = t.at("clockHz");
  os << "Target:\n";
  line(os, 2, "Number of IPUs", commas(ipus), 26);
  line(os, 2, "Tiles per IPU", commas(tilesPerIpu), 26);
  line(os, 2, "Total Tiles", commas(ipus * tilesPerIpu), 26);
  line(os, 2, "Memory Per-Tile", kb(double(bytesPerTile)), 26);
  line(os, 2, "Total Memory", mb(double(bytesPerTile) * double(ipus * tilesPerIpu)), 26);
  line(os, 2, "Clock Speed (approx)", fixed(clockHz / 1e6, 1) + " MHz", 26);
  line(os, 2, "Simulator", t.value("simulator", std::string("ipusim")) + " (machine config " + t.value("config", std::string("")) + ")", 26);
  os << '\n';

  const nlohmann::json &g = p.at("graph");
  os << "Graph:\n";
  line(os, 2, "Number of vertices", commas(g.at("vertices")), 28);
  line(os, 2, "Number of edges", commas(g.at("edges")), 28);
  line(os, 2, "Number of variables", commas(g.at("variables")), 28);
  line(os, 2, "Number of compute sets", commas(g.at("computeSets")), 28);
  os << '\n';

  const nlohmann::json &m = p.at("memory");
  static const std::pair<const char *, const char *> categories[] = {
      {"variables", "Always Live Variables"},
      {"notAlwaysLive", "Not Always Live Variables (peak)"},
      {"constants", "Constants"},
      {"stack", "Stack"},
      {"vertexState", "Vertex Instances"},
      {"copyDescriptors", "Copy Descriptors"},
      {"vertexData", "Vertex Field Data"},
      {"controlCode", "Control Code"},
      {"vertexCode", "Vertex Code"},
      {"controlData", "Control Data"},
      {"temporaries", "Exchange And Rearrangement Buffers"},
  };
  std::map<std::string, uint64_t> totals, byType;
  uint64_t used = 0, extent = 0, interleaved = 0;
  std::vector<std::pair<uint64_t, uint64_t>> perTile; // used, extent
  for (const nlohmann::json &tile : m.at("tiles")) {
    for (auto &[key, label] : categories) totals[key] += tile.value(key, uint64_t(0));
    used += tile.at("used").get<uint64_t>();
    extent += tile.at("extent").get<uint64_t>();
    interleaved += tile.value("interleaved", uint64_t(0));
    for (auto &[k, v] : tile.at("byVertexType").items()) byType[k] += v.get<uint64_t>();
    perTile.push_back({tile.at("used"), tile.at("extent")});
  }
  os << "Memory Usage:\n";
  os << "  Total:\n";
  line(os, 4, "Including Gaps", commas(extent) + " B", 28);
  line(os, 4, "Excluding Gaps", commas(used) + " B", 28);
  os << "      By Memory Region:\n";
  line(os, 8, "Non-interleaved", commas(used - std::min(used, interleaved)) + " B", 32);
  line(os, 8, "Interleaved", commas(interleaved) + " B", 32);
  os << "      By Data Type:\n";
  for (auto &[key, label] : categories) line(os, 8, label, commas(totals[key]) + " B", 48);
  os << "      Vertex Data (" << commas(totals["vertexState"] + totals["vertexData"]) << "B):\n";
  os << "        By Type:\n";
  for (auto &[k, v] : byType) line(os, 10, k, commas(v) + " B", 56);
  os << '\n';
  // Tiles without anything on them use no memory.
  const uint64_t tiles = ipus * tilesPerIpu;
  while (perTile.size() < tiles) perTile.push_back({0, 0});
  uint64_t maxUsed = 0, maxExtent = 0;
  int64_t maxUsedTile = -1, maxExtentTile = -1;
  const nlohmann::json &tileList = m.at("tiles");
  for (size_t i = 0; i < tileList.size(); ++i) {
    if (perTile[i].first > maxUsed) maxUsed = perTile[i].first, maxUsedTile = tileList[i].at("tile");
    if (perTile[i].second > maxExtent) maxExtent = perTile[i].second, maxExtentTile = tileList[i].at("tile");
  }
  os << "  By Tile (Excluding Gaps):\n";
  const uint64_t bucket = std::max<uint64_t>(1, (maxUsed / 1024 + 10) / 10); // KB per bucket, about ten rows
  std::map<uint64_t, uint64_t> histogram;
  for (auto &[u, e] : perTile) ++histogram[u / 1024 / bucket];
  uint64_t most = 0;
  for (auto &[b, n] : histogram) most = std::max(most, n);
  os << "    Range (KB) Histogram (Excluding Gaps)               Count (tiles)\n";
  for (auto &[b, n] : histogram) {
    char range[32];
    std::snprintf(range, sizeof range, "%6llu - %-4llu", static_cast<unsigned long long>(b * bucket),
                  static_cast<unsigned long long>((b + 1) * bucket));
    const size_t stars = size_t(std::max<uint64_t>(1, n * 40 / std::max<uint64_t>(1, most)));
    std::string bar(stars, '*');
    bar.resize(40, ' ');
    os << "  " << range << " " << bar << "  " << commas(n) << '\n';
  }
  os << '\n';
  os << "    Maximum (Including Gaps): " << commas(maxExtent) << " (" << fixed(double(maxExtent) / 1024, 1) << " K) on tile "
     << maxExtentTile << '\n';
  os << "    Maximum (Excluding Gaps): " << commas(maxUsed) << " (" << fixed(double(maxUsed) / 1024, 1) << " K) on tile "
     << maxUsedTile << '\n';
  uint64_t oom = 0;
  for (auto &[u, e] : perTile) oom += e > bytesPerTile;
  os << "    " << oom << " tile(s) out of memory\n\n";
  // The fullest tiles, each by category.
  std::vector<size_t> order(tileList.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return tileList[a].at("used").get<uint64_t>() > tileList[b].at("used").get<uint64_t>();
  });
  os << "  Fullest Tiles (Excluding Gaps):\n";
  for (size_t k = 0; k < order.size() && k < 8; ++k) {
    const nlohmann::json &tile = tileList[order[k]];
    os << "    Tile " << tile.at("tile").get<uint64_t>() << ": " << commas(tile.at("used")) << " B (";
    bool first = true;
    for (auto &[key, label] : categories) {
      const uint64_t v = tile.value(key, uint64_t(0));
      if (!v) continue;
      os << (first ? "" : ", ") << label << " " << commas(v);
      first = false;
    }
    os << ")\n";
  }
  os << '\n';

  os << "Execution:\n\n";
  const nlohmann::json &programs = p.at("programs");
  bool any = false;
  for (const nlohmann::json &prog : programs)
    if (prog.at("runs").get<uint64_t>()) any = true;
  if (!any) {
    os << "  No programs have been run.\n";
    return;
  }
  os << "Programs executed:\n\n";
  for (const nlohmann::json &prog : programs) {
    const uint64_t runs = prog.at("runs");
    if (!runs) continue;
    const std::string name = prog.value("name", std::string(""));
    os << (name.empty() ? std::string("<anonymous>") : name) << ". (program " << prog.at("index").get<uint64_t>() << ", "
       << runs << (runs == 1 ? " run" : " runs") << ")\n\n";
    const uint64_t cycles = prog.at("cycles");
    const double us = double(cycles) / (clockHz / 1e6);
    line(os, 2, "Total cycles", commas(cycles) + " (approx " + fixed(us, 1) + " microseconds)", 40);
    if (runs > 1) line(os, 2, "Last run cycles", commas(prog.at("lastCycles")), 40);
    for (auto [key, label] : {std::make_pair("compute", "Compute cycles (critical path)"),
                              std::make_pair("exchange", "IPU exchange cycles"), std::make_pair("host", "Host exchange cycles"),
                              std::make_pair("sync", "Sync cycles"), std::make_pair("control", "Control cycles")}) {
      const uint64_t v = prog.at(key);
      line(os, 2, label, commas(v) + " (" + percent(v, cycles) + " of total)", 40);
    }
    line(os, 2, "Simulated cycles per host second", commas(uint64_t(prog.value("cyclesPerSecond", 0.0))), 40);
    os << '\n';
    if (options.showExecutionSteps) {
      os << "  Execution steps:\n";
      for (const nlohmann::json &s : prog.at("steps")) {
        const uint64_t c = s.at("cycles");
        os << "    " << s.at("type").get<std::string>() << ": " << s.at("name").get<std::string>() << '\n';
        os << "      Cycles:        IPU 0: " << commas(c) << " (" << percent(c, cycles) << ")\n";
        os << "      Executions:    " << commas(s.at("executions")) << '\n';
        os << "      Active Tiles:  IPU 0: " << commas(s.at("tiles")) << " / " << commas(tilesPerIpu) << '\n';
        if (s.at("bytes").get<uint64_t>()) os << "      Data:          " << commas(s.at("bytes")) << " B\n";
      }
      os << '\n';
    }
  }
}

} // namespace ipusim::sim
