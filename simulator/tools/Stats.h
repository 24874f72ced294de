// The tools' statistics: a flat JSON object of hierarchical names in the order they are added
// (`ipu0.cycles`, `ipu0.tile17.worker3.bundles` ...). Written out directly: an ordered JSON map
// finds each key by a linear search, which made 1472 tiles' statistics cost a quarter second.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace ipusim::tools {

class Stats {
public:
  /// Appends `key` (each key once: the callers make them unique by construction).
  template <class T> void add(std::string key, const T &value) { entries_.emplace_back(std::move(key), nlohmann::json(value)); }
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
