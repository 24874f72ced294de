// Loads arch/configs/*.toml against one schema. See arch/include/ipusim/arch/Config.h.
#include "ipusim/arch/Config.h"
#include "ipusim/arch/Files.h"
#include "ipusim/arch/Isa.h"

#include <toml++/toml.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>

namespace ipusim::arch {
namespace {

namespace fs = std::filesystem;

enum class Kind { Integer, Number, String, Boolean };

/// One value as read from TOML, with where it came from.
struct Value {
  int64_t i = 0;
  double d = 0;
  std::string s;
  bool b = false;
};

/// `index` is the element of an array of tables (`[[tile.region]]`) the key belongs to.
using Setter = std::function<void(SystemConfig &, const Value &, size_t index)>;

struct KeySpec {
  Kind kind;
  double min, max;
  bool required;
  Setter set;
};

/// The schema: every key a config may hold. Paths of array-of-table members use "[]".
const std::map<std::string, KeySpec> &schema() {
  static const std::map<std::string, KeySpec> keys = [] {
    std::map<std::string, KeySpec> k;
    auto integer = [&](const char *path, double lo, double hi, auto setter) {
      k[path] = {Kind::Integer, lo, hi, true,
                 [setter](SystemConfig &c, const Value &v, size_t) { setter(c) = v.i; }};
    };
    auto number = [&](const char *path, double lo, double hi, auto setter) {
      k[path] = {Kind::Number, lo, hi, true,
                 [setter](SystemConfig &c, const Value &v, size_t) { setter(c) = v.d; }};
    };
    auto string = [&](const char *path, bool required, auto setter) {
      k[path] = {Kind::String, 0, 0, required,
                 [setter](SystemConfig &c, const Value &v, size_t) { setter(c) = v.s; }};
    };
    string("name", true, [](SystemConfig &c) -> std::string & { return c.name; });
    string("description", false, [](SystemConfig &c) -> std::string & { return c.description; });
    k["inherits"] = {Kind::String, 0, 0, false, [](SystemConfig &, const Value &, size_t) {}};

    integer("system.ipus", 1, 1024, [](SystemConfig &c) -> unsigned & { return c.ipus; });
    integer("system.ipus_per_chassis", 1, 4,
            [](SystemConfig &c) -> unsigned & { return c.ipusPerChassis; });
    string("system.topology", true, [](SystemConfig &c) -> std::string & { return c.topology; });

    integer("ipu.tiles", 1, 2048, [](SystemConfig &c) -> unsigned & { return c.ipu.tiles; });
    integer("ipu.columns", 1, 64, [](SystemConfig &c) -> unsigned & { return c.ipu.columns; });
    integer("ipu.tiles_per_supertile", 1, 16,
            [](SystemConfig &c) -> unsigned & { return c.ipu.tilesPerSupertile; });
    number("ipu.clock_hz", 1e6, 1e10, [](SystemConfig &c) -> double & { return c.ipu.clockHz; });

    integer("tile.worker_contexts", 1, 16,
            [](SystemConfig &c) -> unsigned & { return c.tile.workerContexts; });
    integer("tile.memory_base", 0, 0x1FFFFF,
            [](SystemConfig &c) -> uint32_t & { return c.tile.memoryBase; });
    integer("tile.memory_size", 1024, 0x200000,
            [](SystemConfig &c) -> uint32_t & { return c.tile.memorySize; });
    integer("tile.element_size", 64, 0x100000,
            [](SystemConfig &c) -> uint32_t & { return c.tile.elementSize; });
    integer("tile.address_bits", 16, 32,
            [](SystemConfig &c) -> unsigned & { return c.tile.addressBits; });
    integer("tile.repeat_count_bits", 1, 32,
            [](SystemConfig &c) -> unsigned & { return c.tile.repeatCountBits; });
    integer("tile.max_repeat_body_bundles", 1, 4096,
            [](SystemConfig &c) -> unsigned & { return c.tile.maxRepeatBodyBundles; });
    integer("tile.mrf_registers", 1, 16,
            [](SystemConfig &c) -> unsigned & { return c.tile.mrfRegisters; });
    integer("tile.arf_registers", 1, 16,
            [](SystemConfig &c) -> unsigned & { return c.tile.arfRegisters; });
    auto timing = [&](const char *key, unsigned TileTiming::*member) {
      k[std::string("tile.timing.") + key] = {Kind::Integer, 0, 10000, true,
                                              [member](SystemConfig &c, const Value &v, size_t) { c.tile.timing.*member = unsigned(v.i); }};
    };
    timing("supervisor_result_latency", &TileTiming::supervisorResultLatency);
    timing("supervisor_taken_branch", &TileTiming::supervisorTakenBranch);
    timing("runall", &TileTiming::runallCycles);
    timing("put_cccsload", &TileTiming::putCccsloadCycles);
    timing("sync_local", &TileTiming::syncLocalCycles);
    timing("worker_start", &TileTiming::workerStartCycles);
    timing("memory_conflict_stall", &TileTiming::memoryConflictStallCycles);
    // [tile.fp_worker_cycles]: one key per multi-cycle FP instruction of the ISA table.
    for (const InsnDesc &d : instructionTable())
      if (d.timing == TimingClass::FpMultiCycle && !k.count(std::string("tile.fp_worker_cycles.") + d.mnemonic)) {
        std::string name = d.mnemonic;
        k["tile.fp_worker_cycles." + name] = {Kind::Integer, 1, 1000, true, [name](SystemConfig &c, const Value &v, size_t) {
                                                c.tile.timing.fpWorkerCycles[name] = unsigned(v.i);
                                              }};
      }

    // Members of `[[tile.region]]`, an array of tables: the setter gets the element's index.
    auto region = [&](const char *key, Kind kind, double lo, double hi, auto member) {
      k[std::string("tile.region[].") + key] = {kind, lo, hi, true, [member](SystemConfig &c, const Value &v, size_t i) {
        if (c.tile.regions.size() <= i) c.tile.regions.resize(i + 1);
        MemoryRegion &r = c.tile.regions[i];
        if constexpr (std::is_same_v<decltype(r.*member), bool &>) r.*member = v.b;
        else r.*member = decltype(+(r.*member))(v.i);
      }};
    };
    region("base", Kind::Integer, 0, 0x1FFFFF, &MemoryRegion::base);
    region("end", Kind::Integer, 0, 0x200000, &MemoryRegion::end);
    region("interleave", Kind::Integer, 1, 8, &MemoryRegion::interleave);
    region("executable", Kind::Boolean, 0, 0, &MemoryRegion::executable);

    integer("exchange.bytes_per_cycle_per_tile", 1, 64,
            [](SystemConfig &c) -> unsigned & { return c.exchange.bytesPerCyclePerTile; });
    integer("exchange.tiles_per_shared_bus", 1, 8,
            [](SystemConfig &c) -> unsigned & { return c.exchange.tilesPerSharedBus; });
    integer("exchange.column_pitch_cycles", 0, 1000,
            [](SystemConfig &c) -> unsigned & { return c.exchange.columnPitchCycles; });
    integer("exchange.edge_cycles_per_column", 0, 1000,
            [](SystemConfig &c) -> unsigned & { return c.exchange.edgeCyclesPerColumn; });
    integer("exchange.row_cycles", 0, 1000, [](SystemConfig &c) -> unsigned & { return c.exchange.rowCycles; });
    integer("exchange.mux_lead_cycles", 0, 10000,
            [](SystemConfig &c) -> unsigned & { return c.exchange.muxLeadCycles; });
    integer("exchange.write_delay_cycles", 0, 10000,
            [](SystemConfig &c) -> unsigned & { return c.exchange.writeDelayCycles; });
    integer("exchange.write_cycles_per_row", 0, 1000,
            [](SystemConfig &c) -> unsigned & { return c.exchange.writeCyclesPerRow; });
    integer("exchange.max_send_words", 1, 1 << 16,
            [](SystemConfig &c) -> unsigned & { return c.exchange.maxSendWords; });

    integer("sync.internal_latency_cycles", 0, 100000,
            [](SystemConfig &c) -> unsigned & { return c.sync.internalLatencyCycles; });
    integer("sync.external_latency_cycles", 0, 1000000,
            [](SystemConfig &c) -> unsigned & { return c.sync.externalLatencyCycles; });
    integer("sync.release_skew_cycles", 0, 1000,
            [](SystemConfig &c) -> unsigned & { return c.sync.releaseSkewCycles; });

    integer("links.links_per_ipu", 0, 64,
            [](SystemConfig &c) -> unsigned & { return c.links.linksPerIpu; });
    number("links.bytes_per_second_per_direction", 0, 1e13,
           [](SystemConfig &c) -> double & { return c.links.bytesPerSecondPerDirection; });
    integer("links.latency_cycles", 0, 1000000,
            [](SystemConfig &c) -> unsigned & { return c.links.latencyCycles; });
    integer("links.rung_links", 0, 64, [](SystemConfig &c) -> unsigned & { return c.links.rungLinks; });
    integer("links.rail_links", 0, 64, [](SystemConfig &c) -> unsigned & { return c.links.railLinks; });
    integer("links.exchange_block_cycles", 0, 100000,
            [](SystemConfig &c) -> unsigned & { return c.links.exchangeBlockCycles; });

    string("host.kind", true, [](SystemConfig &c) -> std::string & { return c.host.kind; });
    number("host.bytes_per_second_per_direction", 1e6, 1e13,
           [](SystemConfig &c) -> double & { return c.host.bytesPerSecondPerDirection; });
    integer("host.latency_cycles", 0, 100000000,
            [](SystemConfig &c) -> unsigned & { return c.host.latencyCycles; });
    number("host.streaming_memory_bytes", 0, 1e15,
           [](SystemConfig &c) -> double & { return c.host.streamingMemoryBytes; });
    return k;
  }();
  return keys;
}

std::string where(const std::string &file, const toml::source_region &src) {
  std::ostringstream os;
  os << file << ':' << src.begin.line << ':' << src.begin.column;
  return os.str();
}

[[noreturn]] void fail(const std::string &file, const toml::source_region &src,
                       const std::string &msg) {
  throw ConfigError(where(file, src) + ": error: " + msg);
}

class Loader {
public:
  Loader(SystemConfig &cfg, std::set<std::string> &seen) : cfg_(cfg), seen_(seen) {}

  void walk(const std::string &file, const toml::table &table, const std::string &prefix,
            const std::string &schemaPrefix, size_t index) {
    for (auto &&[key, node] : table) {
      std::string path = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
      std::string spath = schemaPrefix.empty() ? std::string(key.str())
                                               : schemaPrefix + "." + std::string(key.str());
      if (auto *sub = node.as_table()) {
        if (!hasPrefix(spath + ".")) fail(file, key.source(), "unknown table '" + path + "'");
        walk(file, *sub, path, spath, index);
        continue;
      }
      if (auto *arr = node.as_array(); arr && arr->is_array_of_tables()) {
        if (!hasPrefix(spath + "[].")) fail(file, key.source(), "unknown key '" + path + "'");
        size_t i = 0;
        for (auto &elem : *arr) walk(file, *elem.as_table(), path, spath + "[]", i++);
        continue;
      }
      auto it = schema().find(spath);
      if (it == schema().end()) fail(file, key.source(), "unknown key '" + path + "'");
      const KeySpec &spec = it->second;
      Value v;
      switch (spec.kind) {
      case Kind::Integer:
        if (!node.is_integer()) fail(file, node.source(), "key '" + path + "' must be an integer");
        v.i = *node.value<int64_t>();
        v.d = double(v.i);
        break;
      case Kind::Number:
        if (!node.is_number()) fail(file, node.source(), "key '" + path + "' must be a number");
        v.d = *node.value<double>();
        break;
      case Kind::String:
        if (!node.is_string()) fail(file, node.source(), "key '" + path + "' must be a string");
        v.s = *node.value<std::string>();
        break;
      case Kind::Boolean:
        if (!node.is_boolean()) fail(file, node.source(), "key '" + path + "' must be a boolean");
        v.b = *node.value<bool>();
        break;
      }
      if ((spec.kind == Kind::Integer || spec.kind == Kind::Number) &&
          (v.d < spec.min || v.d > spec.max || std::isnan(v.d))) {
        std::ostringstream os;
        os << "key '" << path << "' is out of range: " << (spec.kind == Kind::Integer ? std::to_string(v.i) : std::to_string(v.d)) << " is not in [" << spec.min
           << ", " << spec.max << "]";
        fail(file, node.source(), os.str());
      }
      spec.set(cfg_, v, index);
      seen_.insert(spath);
    }
  }

private:
  static bool hasPrefix(const std::string &p) {
    auto it = schema().lower_bound(p);
    return it != schema().end() && it->first.compare(0, p.size(), p) == 0;
  }
  SystemConfig &cfg_;
  std::set<std::string> &seen_;
};

void loadInto(const std::string &path, SystemConfig &cfg, std::set<std::string> &seen, int depth) {
  if (depth > 8) throw ConfigError(path + ": error: 'inherits' chain is too deep");
  toml::table table;
  if (const std::string bad = unreadableFile(path, "a machine config (.toml)"); !bad.empty()) throw ConfigError(bad);
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error &e) {
    if (!fs::exists(path)) throw ConfigError(path + ": error: cannot open file");
    throw ConfigError(where(path, e.source()) + ": error: " + std::string(e.description()));
  }
  if (auto *base = table.get("inherits")) {
    if (!base->is_string()) fail(path, base->source(), "key 'inherits' must be a string");
    // A config beside this one, else a built-in one (so `inherits = "mk2"` works from any folder).
    const std::string name = *base->value<std::string>();
    std::string parent = (fs::path(path).parent_path() / (name + ".toml")).string();
    if (!fs::exists(parent)) {
      const std::string builtIn = configDirectory() + "/" + name + ".toml";
      if (!fs::exists(builtIn))
        fail(path, base->source(),
             "inherited config '" + name + "' is neither beside this file (" + parent + ") nor built in (" + builtIn + ")");
      parent = builtIn;
    }
    loadInto(parent, cfg, seen, depth + 1);
  }
  Loader(cfg, seen).walk(path, table, "", "", 0);
}

void check(const std::string &path, const SystemConfig &c, const std::set<std::string> &seen) {
  for (auto &[key, spec] : schema()) {
    if (!spec.required || seen.count(key) || key.find("[]") != std::string::npos) continue;
    throw ConfigError(path + ":1:1: error: missing key '" + key + "'");
  }
  auto bad = [&](const std::string &msg) { throw ConfigError(path + ":1:1: error: " + msg); };
  if (c.tile.regions.empty()) bad("no [[tile.region]] is given");
  uint32_t expect = c.tile.memoryBase;
  for (size_t i = 0; i < c.tile.regions.size(); ++i) {
    const MemoryRegion &r = c.tile.regions[i];
    if (r.base != expect)
      bad("tile.region " + std::to_string(i) + " must start where the previous one ends");
    if (r.end <= r.base) bad("tile.region " + std::to_string(i) + " is empty");
    if ((r.end - r.base) % c.tile.elementSize)
      bad("tile.region " + std::to_string(i) + " is not a whole number of elements");
    expect = r.end;
  }
  if (expect != c.tile.memoryEnd())
    bad("the tile regions do not cover tile.memory_base .. tile.memory_base + tile.memory_size");
  if (c.tile.memoryEnd() > (1ull << c.tile.addressBits))
    bad("tile memory does not fit in tile.address_bits");
  if (c.ipus % c.ipusPerChassis) bad("system.ipus is not a multiple of system.ipus_per_chassis");
  // The exchange model (ExchangeLayout, docs/tile-timing.md) places tiles by the GC200's floor plan.
  if (c.ipu.columns != 16 || c.ipu.tilesPerSupertile != 4)
    bad("the exchange model knows the GC200's floor plan only: ipu.columns = 16 and ipu.tiles_per_supertile = 4");
  if (c.ipu.tiles % (c.ipu.columns * c.ipu.tilesPerSupertile))
    bad("ipu.tiles = " + std::to_string(c.ipu.tiles) + " is not a whole number of supertile rows (a multiple of " +
        std::to_string(c.ipu.columns * c.ipu.tilesPerSupertile) + "); a program may still use fewer tiles");
  if (c.host.kind != "pcie" && c.host.kind != "gateway") bad("host.kind must be \"pcie\" or \"gateway\"");
}

} // namespace

const MemoryRegion *TileConfig::regionOf(uint32_t addr) const {
  for (const MemoryRegion &r : regions)
    if (addr >= r.base && addr < r.end) return &r;
  return nullptr;
}

SystemConfig loadConfig(const std::string &path) {
  SystemConfig cfg;
  std::set<std::string> seen;
  loadInto(path, cfg, seen, 0);
  check(path, cfg, seen);
  return cfg;
}

std::string configDirectory() {
  // Installed layout: <prefix>/bin/tool and <prefix>/share/ipusim/configs; the build tree mirrors it.
  fs::path dir = toolPrefix() / "share" / "ipusim" / "configs";
  return fs::exists(dir) ? dir.string() : IPUSIM_SOURCE_CONFIG_DIR;
}

std::filesystem::path toolPrefix() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path().parent_path();
}

SystemConfig loadConfigArgument(const std::string &s) {
  const bool isFile = s.find('/') != std::string::npos || (s.size() > 5 && s.compare(s.size() - 5, 5, ".toml") == 0);
  return isFile ? loadConfig(s) : loadNamedConfig(s);
}

SystemConfig loadNamedConfig(const std::string &name) {
  std::string path = configDirectory() + "/" + name + ".toml";
  if (!fs::exists(path)) throw ConfigError(name + ": error: no such machine config (" + path + ")");
  return loadConfig(path);
}

} // namespace ipusim::arch
