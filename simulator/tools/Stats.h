// The tools' statistics: a flat JSON object of hierarchical names in the order they are added
// (`ipu0.cycles`, `ipu0.tile17.worker3.bundles` ...). Written out directly: an ordered JSON map
// finds each key by a linear search, which made 1472 tiles' statistics cost a quarter second.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ipusim::tools {

class Stats {
public:
  /// Appends `key` (each key once: the callers make them unique by construction).
  template <class T> void add(std::string key, const T &value) { entries_.emplace_back(std::move(key), nlohmann::json(value)); }
  /// Each context's bundles and stall cycles under `tile` ("ipu0.tile3."): the supervisor always,
  /// a worker (context c is worker c - 1) only if it issued.
  template <class Counts> void addContexts(const std::string &tile, const Counts &bundles, const Counts &stalls) {
    for (unsigned c = 0; c < 7; ++c) {
      if (c && !bundles[c]) continue;
      const std::string ctx = tile + (c ? "worker" + std::to_string(c - 1) : std::string("supervisor")) + ".";
      add(ctx + "bundles", bundles[c]);
      add(ctx + "stall_cycles", stalls[c]);
    }
  }
  /// The host's figures, the only ones that differ between runs: seconds and simulated cycles per second.
  void addHost(double seconds, uint64_t cycles) {
    add("host.seconds", seconds);
    add("host.cycles_per_second", seconds > 0 ? double(cycles) / seconds : 0.0);
  }
  /// As nlohmann's dump(2) of the same object, with a final newline.
  std::string dump() const {
    if (entries_.empty()) return "{}\n";
    std::string out = "{\n";
    for (size_t i = 0; i < entries_.size(); ++i) {
      out += "  " + nlohmann::json(entries_[i].first).dump() + ": " + entries_[i].second.dump();
      out += i + 1 < entries_.size() ? ",\n" : "\n";
    }
    return out + "}\n";
  }

private:
  std::vector<std::pair<std::string, nlohmann::json>> entries_;
};

} // namespace ipusim::tools
