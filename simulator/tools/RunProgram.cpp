// ipusim run: a program manifest (docs/program-manifest.md) loads work onto tiles of one IPU or of a
// system of IPUs.
#include "RunProgram.h"
#include "CliChecks.h"
#include "EntryMode.h"
#include "Progress.h"
#include "Stats.h"

#include "ipusim/arch/Config.h"
#include "ipusim/arch/Files.h"
#include "ipusim/cc/Object.h"
#include "ipusim/sim/Image.h"
#include "ipusim/sim/Ipu.h"
#include "ipusim/sim/IpuModule.h"
#include "ipusim/sim/SystemModule.h"
#include "ipusim/sim/MpiPartition.h"
#include "ipusim/sim/HostLink.h"

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <thread>

namespace ipusim::tools {

namespace {

namespace fs = std::filesystem;

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TileWork {
  unsigned ipu = 0;
  std::string image, entry, mode = "supervisor";
  uint32_t vertexBase = 0;
  std::vector<std::pair<std::string, uint32_t>> loads;
  // Where the manifest says each: "manifest.toml:LINE:COL", for errors about what it names.
  std::string imageAt, entryAt, ipuAt;
  std::vector<std::string> loadAt;
};

/// Where work runs: an IPU of the system and a tile of it.
using TileId = std::pair<unsigned, unsigned>;

/// A transfer the host makes at one of the program's host syncs (docs/systems.md "The host").
struct HostStep {
  enum Kind { Write, Read, RemoteWrite, RemoteRead } kind = Write; ///< host->tile, tile->host, tile->buffer, buffer->tile
  unsigned sync = 0;   ///< the program's n-th host sync (1-based)
  unsigned every = 0;  ///< device iterations: again every `every` host syncs after `sync` (0: once)
  unsigned times = 0;  ///< with `every`: how many times (0: at every such host sync the program makes)
  std::string file;    ///< Write: the bytes to send; Read: where the bytes go
  std::string buffer;  ///< the remote buffer (RemoteWrite, RemoteRead)
  unsigned ipu = 0, tile = 0;
  uint32_t addr = 0;
  uint64_t bytes = 0, offset = 0;
  std::string at;      ///< "manifest.toml:LINE:COL"
};

struct RemoteBufferSpec {
  std::string name, at;
  uint64_t bytes = 0;
};

/// An error about a file the manifest names, at the manifest's line: "AT: error: WHAT: WHY",
/// where `error` is the file's own message ("FILE: error: WHY").
BadInput located(const std::string &at, const std::string &what, const std::string &error) {
  std::string why = error;
  if (const size_t e = why.find(": error: "); e != std::string::npos) why = why.substr(e + 9);
  while (!why.empty() && why.back() == '\n') why.pop_back();
  return BadInput(at + ": error: " + what + ": " + why);
}

class Manifest {
public:
  explicit Manifest(const std::string &path) : path_(path), dir_(fs::path(path).parent_path()) {
    toml::table t;
    if (const std::string bad = arch::unreadableFile(path, "a program manifest (.toml)"); !bad.empty()) throw BadInput(bad);
    try {
      t = toml::parse_file(path);
    } catch (const toml::parse_error &e) {
      if (!fs::exists(path)) throw BadInput(path + ": error: cannot open file");
      fail(e.source(), std::string(e.description()));
    }
    for (auto &&[key, node] : t) {
      std::string k(key.str());
      if (k == "config") config = str(node, "config");
      else if (k == "tiles") tiles = unsigned(integer(node, "tiles", 1, 1472));
      else if (k == "tile") readTiles(node);
      else if (k == "host") readHostSteps(node);
      else if (k == "remote_buffer") readRemoteBuffers(node);
      else fail(key.source(), "unknown key '" + k + "'");
    }
    if (tiles == 0) fail(t.source(), "missing key 'tiles'");
    for (auto &[id, work] : work_)
      if (id.second >= tiles)
        throw BadInput(path_ + ": error: tile " + std::to_string(id.second) + " is beyond 'tiles' = " + std::to_string(tiles));
  }

  std::string config = "mk2";
  unsigned tiles = 0;
  const std::map<TileId, TileWork> &work() const { return work_; }
  std::vector<HostStep> hostSteps;
  std::vector<RemoteBufferSpec> remoteBuffers;
  std::string resolve(const std::string &file) const { return fs::path(file).is_absolute() ? file : (dir_ / file).string(); }

private:
  std::string path_;
  fs::path dir_;
  std::map<TileId, TileWork> work_;

  std::string at(const toml::source_region &src) const {
    return path_ + ":" + std::to_string(src.begin.line) + ":" + std::to_string(src.begin.column);
  }
  [[noreturn]] void fail(const toml::source_region &src, const std::string &msg) const {
    throw BadInput(at(src) + ": error: " + msg);
  }
  std::string str(const toml::node &n, const std::string &key) const {
    if (!n.is_string()) fail(n.source(), "key '" + key + "' must be a string");
    return *n.value<std::string>();
  }
  int64_t integer(const toml::node &n, const std::string &key, int64_t lo, int64_t hi) const {
    if (!n.is_integer()) fail(n.source(), "key '" + key + "' must be an integer");
    int64_t v = *n.value<int64_t>();
    if (v < lo || v > hi)
      fail(n.source(), "key '" + key + "' is out of range: " + std::to_string(v) + " is not in [" + std::to_string(lo) +
                           ", " + std::to_string(hi) + "]");
    return v;
  }
  const toml::table &tableIn(const toml::node &elem) const { return *elem.as_table(); }
  void readHostSteps(const toml::node &node) {
    const toml::array *arr = node.as_array();
    if (!arr || !arr->is_array_of_tables()) fail(node.source(), "'host' must be an array of tables ([[host]])");
    for (const toml::node &elem : *arr) {
      const toml::table &t = tableIn(elem);
      HostStep h;
      h.at = at(t.source());
      int kinds = 0;
      for (auto &&[key, n] : t) {
        const std::string k(key.str());
        if (k == "sync") h.sync = unsigned(integer(n, "host.sync", 1, 1 << 30));
        else if (k == "every") h.every = unsigned(integer(n, "host.every", 1, 1 << 30));
        else if (k == "times") h.times = unsigned(integer(n, "host.times", 1, 1 << 30));
        else if (k == "write" || k == "read") {
          h.kind = k == "write" ? HostStep::Write : HostStep::Read;
          // What the host sends is found beside the manifest; what it receives goes where it
          // says from the current folder, as --dump's files do.
          h.file = k == "write" ? resolve(str(n, "host." + k)) : str(n, "host." + k);
          ++kinds;
        } else if (k == "remote_write" || k == "remote_read") {
          h.kind = k == "remote_write" ? HostStep::RemoteWrite : HostStep::RemoteRead;
          h.buffer = str(n, "host." + k);
          ++kinds;
        } else if (k == "ipu") h.ipu = unsigned(integer(n, "host.ipu", 0, 1023));
        else if (k == "tile") h.tile = unsigned(integer(n, "host.tile", 0, 1471));
        else if (k == "addr") h.addr = uint32_t(integer(n, "host.addr", 0, 0x1FFFFF));
        else if (k == "bytes") h.bytes = uint64_t(integer(n, "host.bytes", 1, 1 << 30));
        else if (k == "offset") h.offset = uint64_t(integer(n, "host.offset", 0, int64_t(1) << 40));
        else fail(key.source(), "unknown key 'host." + k + "'");
      }
      if (!h.sync) fail(t.source(), "a [[host]] step needs 'sync' (which host sync of the program it runs at)");
      if (h.times && !h.every) fail(t.source(), "'times' needs 'every' (how many host syncs apart the times are)");
      if (kinds != 1) fail(t.source(), "a [[host]] step needs one of 'write', 'read', 'remote_write', 'remote_read'");
      if (h.kind != HostStep::Write && !h.bytes) fail(t.source(), "a [[host]] step that reads or uses a remote buffer needs 'bytes'");
      hostSteps.push_back(h);
    }
  }
  void readRemoteBuffers(const toml::node &node) {
    const toml::array *arr = node.as_array();
    if (!arr || !arr->is_array_of_tables()) fail(node.source(), "'remote_buffer' must be an array of tables ([[remote_buffer]])");
    for (const toml::node &elem : *arr) {
      const toml::table &t = tableIn(elem);
      RemoteBufferSpec b;
      b.at = at(t.source());
      for (auto &&[key, n] : t) {
        const std::string k(key.str());
        if (k == "name") b.name = str(n, "remote_buffer.name");
        else if (k == "bytes") b.bytes = uint64_t(integer(n, "remote_buffer.bytes", 1, int64_t(1) << 40));
        else fail(key.source(), "unknown key 'remote_buffer." + k + "'");
      }
      if (b.name.empty() || !b.bytes) fail(t.source(), "a [[remote_buffer]] needs 'name' and 'bytes'");
      for (const RemoteBufferSpec &o : remoteBuffers)
        if (o.name == b.name) fail(t.source(), "remote buffer '" + b.name + "' is declared twice");
      remoteBuffers.push_back(b);
    }
  }
  void readTiles(const toml::node &node) {
    const toml::array *arr = node.as_array();
    if (!arr || !arr->is_array_of_tables()) fail(node.source(), "'tile' must be an array of tables ([[tile]])");
    for (const toml::node &elem : *arr) {
      const toml::table &t = *elem.as_table();
      TileWork w;
      std::vector<unsigned> which;
      bool haveTiles = false;
      for (auto &&[key, n] : t) {
        std::string k(key.str());
        if (k == "tiles") {
          haveTiles = true;
          if (n.is_integer()) which.push_back(unsigned(integer(n, "tiles", 0, 1471)));
          else {
            std::string r = str(n, "tiles");
            unsigned a, b;
            char dash;
            if (std::sscanf(r.c_str(), "%u %c %u", &a, &dash, &b) != 3 || dash != '-' || a > b || b > 1471)
              fail(n.source(), "'tiles' must be a tile number or a range \"A-B\", not \"" + r + "\"");
            for (unsigned i = a; i <= b; ++i) which.push_back(i);
          }
        } else if (k == "ipu") {
          w.ipu = unsigned(integer(n, "ipu", 0, 1023));
          w.ipuAt = at(n.source());
        } else if (k == "image") {
          w.image = resolve(str(n, "image"));
          w.imageAt = at(n.source());
        } else if (k == "entry") {
          w.entry = str(n, "entry");
          w.entryAt = at(n.source());
        }
        else if (k == "mode") {
          w.mode = str(n, "mode");
          if (w.mode != "supervisor" && w.mode != "worker" && w.mode != "multi")
            fail(n.source(), "'mode' must be \"supervisor\", \"worker\" or \"multi\"");
        } else if (k == "vertex_base") w.vertexBase = uint32_t(integer(n, "vertex_base", 0, 0x1FFFFF));
        else if (k == "load") {
          const toml::array *loads = n.as_array();
          if (!loads) fail(n.source(), "'load' must be an array of \"FILE@ADDR\" strings");
          for (const toml::node &l : *loads) {
            std::string spec = str(l, "load");
            auto at = spec.rfind('@');
            char *end = nullptr;
            unsigned long addr = at == std::string::npos ? 0 : std::strtoul(spec.c_str() + at + 1, &end, 0);
            if (at == std::string::npos || !end || *end) fail(l.source(), "'load' wants \"FILE@ADDR\", not \"" + spec + "\"");
            w.loads.emplace_back(resolve(spec.substr(0, at)), uint32_t(addr));
            w.loadAt.push_back(this->at(l.source()));
          }
        } else fail(key.source(), "unknown key 'tile." + k + "'");
      }
      if (!haveTiles) fail(t.source(), "a [[tile]] needs 'tiles'");
      if (w.image.empty()) fail(t.source(), "a [[tile]] needs 'image'");
      if (w.entry.empty()) fail(t.source(), "a [[tile]] needs 'entry'");
      for (unsigned i : which) {
        if (work_.count({w.ipu, i}))
          fail(t.source(), "tile " + std::to_string(i) + (w.ipu ? " of ipu" + std::to_string(w.ipu) : "") +
                               " is given work twice");
        work_[{w.ipu, i}] = w;
      }
    }
  }
};

} // namespace

struct Dump {
  unsigned ipu = 0, tile = 0;
  uint32_t addr, len;
  std::string file;
};

/// [ipuI.]TILE:ADDR:LEN:FILE, each part checked: which part is wrong, and why.
Dump parseDump(const std::string &spec, const std::function<sim::Ipu &(unsigned)> &ipuAt, unsigned ipus, unsigned tiles) {
  const std::string what = "ipusim: error: --dump " + spec + ": ";
  std::vector<std::string> parts;
  size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    const size_t colon = spec.find(':', at);
    if (colon == std::string::npos) throw BadInput("ipusim: error: --dump wants TILE:ADDR:LEN:FILE, not '" + spec + "'");
    parts.push_back(spec.substr(at, colon - at));
    at = colon + 1;
  }
  Dump d;
  d.file = spec.substr(at);
  if (d.file.empty()) throw BadInput(what + "no file to write");
  uint64_t v = 0;
  if (parts[0].compare(0, 3, "ipu") == 0) { // ipuI.TILE
    const size_t dot = parts[0].find('.');
    const std::string ipu = parts[0].substr(3, dot == std::string::npos ? std::string::npos : dot - 3);
    if (std::string why = tools::parseNumber(ipu, ipus - 1, v); !why.empty())
      throw BadInput(what + "the IPU " + (why.find("out of range") == std::string::npos ? why : ipu + " is out of range (the system has " +
                                                                                              std::to_string(ipus) + " IPUs)"));
    d.ipu = unsigned(v);
    parts[0] = dot == std::string::npos ? "" : parts[0].substr(dot + 1);
  }
  const std::string why = tools::parseNumber(parts[0], tiles - 1, v);
  if (!why.empty() && why.find("out of range") == std::string::npos) throw BadInput(what + "the tile " + why);
  if (!why.empty())
    throw BadInput(what + "tile " + parts[0] + " is out of range (the program has " + std::to_string(tiles) + " tiles: 0-" +
                   std::to_string(tiles - 1) + ")");
  d.tile = unsigned(v);
  if (std::string why = tools::parseNumber(parts[1], 0xFFFFFFFFu, v); !why.empty()) throw BadInput(what + "the address " + why);
  d.addr = uint32_t(v);
  if (std::string why = tools::parseNumber(parts[2], 0xFFFFFFFFu, v); !why.empty()) throw BadInput(what + "the length " + why);
  d.len = uint32_t(v);
  const sim::TileMemory &mem = ipuAt(d.ipu).tile(d.tile).memory();
  if (!mem.contains(d.addr, d.len)) {
    char range[96];
    std::snprintf(range, sizeof range, "0x%x..0x%llx is outside tile memory 0x%x..0x%x", d.addr,
                  static_cast<unsigned long long>(uint64_t(d.addr) + d.len), mem.base(), mem.end());
    throw BadInput(what + range);
  }
  return d;
}

/// One IPU's statistics under "ipuN.": the run, its phases and syncs, and each tile that ran.
void addIpuStats(Stats &j, unsigned ipu, const sim::IpuStats &stats, const std::vector<unsigned> &tiles) {
  const std::string i = "ipu" + std::to_string(ipu) + ".";
  j.add(i + "cycles", stats.cycles);
  j.add(i + "sync.count", stats.syncs);
  j.add(i + "sync.cycles", stats.syncCycles);
  j.add(i + "phase.compute.count", stats.computePhases);
  j.add(i + "phase.compute.cycles", stats.computeCycles);
  j.add(i + "phase.exchange.count", stats.exchangePhases);
  j.add(i + "phase.exchange.cycles", stats.exchangeCycles);
  j.add(i + "exchange.words_sent", stats.wordsSent);
  j.add(i + "exchange.words_received", stats.wordsReceived);
  j.add(i + "exchange.bytes", 4 * stats.wordsReceived);
  for (unsigned t : tiles) {
    const sim::TileStats &s = stats.tiles[t];
    std::string p = i + "tile" + std::to_string(t) + ".";
    j.add(p + "cycles", s.cycles);
    j.add(p + "sync_wait_cycles", s.syncWaitCycles);
    j.add(p + "exchange.words_sent", s.wordsSent);
    j.add(p + "exchange.words_received", s.wordsReceived);
    j.addContexts(p, s.bundles, s.stallCycles);
  }
}

/// Reports the error that stopped a run; returns the exit status (2).
int reportRunError(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const sim::SimException &e) {
    std::fprintf(stderr, "ipusim: simulated exception: %s\n", e.what());
  } catch (const sim::DeadlockError &e) {
    std::fprintf(stderr, "ipusim: %s\n", e.what());
  } catch (const sim::ExchangeError &e) {
    std::fprintf(stderr, "ipusim: %s\n", e.what());
  }
  return 2;
}

int runProgram(const RunProgramOptions &o) {
  // Under mpirun the IPUs are split over the ranks (docs/systems.md "Several processes"); rank 0
  // alone prints, writes the trace and the statistics, and each rank writes the dumps of its IPUs.
  std::unique_ptr<sim::Partition> partition = sim::mpiPartition();
  const bool speaks = !partition || partition->rank() == 0;
  try {
    Manifest m(o.manifest);
    arch::SystemConfig cfg = arch::loadNamedConfig(m.config);
    if (partition && !m.remoteBuffers.empty())
      throw BadInput("ipusim: error: remote buffers need one process (each MPI rank would hold its own copy)");
    if (partition && partition->size() > cfg.ipus)
      throw BadInput("ipusim: error: " + std::to_string(partition->size()) + " MPI ranks for the " + std::to_string(cfg.ipus) +
                     " IPU" + (cfg.ipus == 1 ? "" : "s") + " of config '" + cfg.name + "': a rank runs whole IPUs");
    // A config of one IPU runs it alone; a system (m2000, pod16 ...) runs all its IPUs, joined by
    // IPU-Links and external syncs (docs/systems.md).
    std::unique_ptr<sim::Ipu> single;
    std::unique_ptr<sim::System> system;
    // Host steps need the system's host link, even on one IPU.
    const bool hostSteps = !m.hostSteps.empty() || !m.remoteBuffers.empty();
    if (cfg.ipus == 1 && !hostSteps) single = std::make_unique<sim::Ipu>(cfg, m.tiles);
    else {
      system = std::make_unique<sim::System>(cfg, m.tiles);
      system->setPartition(partition.get());
    }
    const auto mine = [&](unsigned ipu) { return !system || system->owns(ipu); };
    const std::function<sim::Ipu &(unsigned)> ipuAt = [&](unsigned i) -> sim::Ipu & { return single ? *single : system->ipu(i); };
    const bool tracing = !o.trace.empty();
    if (single) single->setTracing(tracing, tracing && o.traceInstructions);
    else system->setTracing(tracing, tracing && o.traceInstructions);
    std::map<std::string, std::unique_ptr<cc::ObjectFile>> images; // shared by the tiles that run them
    std::map<std::string, const sim::Tile *> firstTile;            // whose decode cache the others share
    std::map<std::string, std::vector<uint8_t>> dataFiles;         // the files loaded, by path
    std::map<unsigned, std::vector<unsigned>> tilesOf;              // per IPU, the tiles that run
    for (const auto &[id, w] : m.work()) {
      const unsigned t = id.second;
      if (w.ipu >= cfg.ipus)
        throw BadInput(w.ipuAt + ": error: ipu " + std::to_string(w.ipu) + " is beyond the " + std::to_string(cfg.ipus) +
                       " IPUs of config '" + cfg.name + "'");
      sim::Ipu &ipu = ipuAt(w.ipu);
      tilesOf[w.ipu].push_back(t);
      auto &img = images[w.image];
      if (!img) try {
          img = std::make_unique<cc::ObjectFile>(cc::readElfFile(w.image));
        } catch (const std::exception &e) {
          throw located(w.imageAt, "image " + w.image, e.what());
        }
      sim::Tile &tile = ipu.tile(t);
      if (mine(w.ipu)) {
        try {
          sim::loadImage(tile, *img, w.image);
        } catch (const std::exception &e) {
          throw located(w.imageAt, "image " + w.image, e.what());
        }
        if (auto it = firstTile.find(w.image); it != firstTile.end()) tile.shareDecodeCache(it->second->decodeCache());
        else firstTile[w.image] = &tile;
      }
      for (size_t l = 0; l < w.loads.size(); ++l) {
        const auto &[file, addr] = w.loads[l];
        // Each file is read once, however many tiles load it.
        auto [cached, fresh] = dataFiles.try_emplace(file);
        if (fresh) {
          if (const std::string bad = arch::unreadableFile(file, "a data file"); !bad.empty())
            throw located(w.loadAt[l], "load " + file, bad);
          std::ifstream in(file, std::ios::binary);
          in.seekg(0, std::ios::end);
          cached->second.resize(size_t(in.tellg()));
          in.seekg(0);
          in.read(reinterpret_cast<char *>(cached->second.data()), std::streamsize(cached->second.size()));
        }
        const std::vector<uint8_t> &bytes = cached->second;
        if (!tile.memory().contains(addr, uint32_t(bytes.size()))) {
          char range[96];
          std::snprintf(range, sizeof range, "its %zu bytes at 0x%x leave tile memory 0x%x..0x%x", bytes.size(), addr,
                        tile.memory().base(), tile.memory().end());
          throw BadInput(w.loadAt[l] + ": error: load " + file + ": " + range);
        }
        if (mine(w.ipu)) std::copy(bytes.begin(), bytes.end(), tile.memory().at(addr));
      }
      int sym = img->findSymbol(w.entry);
      if (sym < 0) throw BadInput(w.entryAt + ": error: entry '" + w.entry + "': no such symbol in " + w.image);
      if (std::string why = entryModeMismatch(*img, img->symbols[size_t(sym)], w.mode); !why.empty()) {
        // The manifest's words: 'mode = "worker"', not a command-line flag.
        for (const char *m : {"supervisor", "worker", "multi"})
          for (size_t at; (at = why.find(std::string("--mode ") + m)) != std::string::npos;)
            why.replace(at, 7 + std::strlen(m), std::string("mode = \"") + m + "\"");
        throw BadInput(w.entryAt + ": error: " + why);
      }
      uint32_t pc = img->symbols[size_t(sym)].value;
      if (!mine(w.ipu)) continue;
      if (w.mode == "supervisor") ipu.start(t, pc, w.vertexBase);
      else ipu.start(t, tile.installWorkerLauncher(pc, w.vertexBase, w.mode == "multi"), 0);
    }
    // The host steps are checked before the run too: IPU, tile, addresses, files, buffers.
    std::map<std::string, std::vector<uint8_t>> sendData; // per write step's file
    for (const HostStep &h : m.hostSteps) {
      if (h.ipu >= cfg.ipus)
        throw BadInput(h.at + ": error: host step: ipu " + std::to_string(h.ipu) + " is beyond the " + std::to_string(cfg.ipus) +
                       " IPUs of config '" + cfg.name + "'");
      if (h.tile >= m.tiles)
        throw BadInput(h.at + ": error: host step: tile " + std::to_string(h.tile) + " is beyond 'tiles' = " + std::to_string(m.tiles));
      uint64_t bytes = h.bytes;
      if (h.kind == HostStep::Write) {
        if (const std::string bad = arch::unreadableFile(h.file, "a data file"); !bad.empty())
          throw located(h.at, "host step write " + h.file, bad);
        std::ifstream in(h.file, std::ios::binary);
        std::vector<uint8_t> &d = sendData[h.file];
        d.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        if (d.empty()) throw BadInput(h.at + ": error: host step write " + h.file + ": the file is empty");
        // With 'bytes' the file is a stream the host sends `bytes` of at a time.
        if (!bytes) bytes = d.size();
        if (bytes > d.size())
          throw BadInput(h.at + ": error: host step write " + h.file + ": 'bytes' = " + std::to_string(bytes) + " but the file has " +
                         std::to_string(d.size()));
      }
      if (uint64_t(h.addr) + bytes > cfg.tile.memoryEnd() || h.addr < cfg.tile.memoryBase) {
        char range[96];
        std::snprintf(range, sizeof range, "0x%x..0x%llx is outside tile memory 0x%x..0x%x", h.addr,
                      static_cast<unsigned long long>(uint64_t(h.addr) + bytes), cfg.tile.memoryBase, cfg.tile.memoryEnd());
        throw BadInput(h.at + ": error: host step: " + range);
      }
      if (h.kind == HostStep::RemoteWrite || h.kind == HostStep::RemoteRead) {
        auto b = std::find_if(m.remoteBuffers.begin(), m.remoteBuffers.end(),
                              [&](const RemoteBufferSpec &r) { return r.name == h.buffer; });
        if (b == m.remoteBuffers.end()) throw BadInput(h.at + ": error: host step: no remote buffer '" + h.buffer + "'");
        if (h.offset + bytes > b->bytes)
          throw BadInput(h.at + ": error: host step: bytes " + std::to_string(h.offset) + ".." + std::to_string(h.offset + bytes) +
                         " are beyond remote buffer '" + h.buffer + "' of " + std::to_string(b->bytes) + " bytes");
      }
    }
    // The dumps are checked before the run, not after it.
    std::vector<Dump> dumps;
    for (const std::string &spec : o.dumps) dumps.push_back(parseDump(spec, ipuAt, cfg.ipus, m.tiles));
    unsigned threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
    std::ofstream trace;
    if (tracing && speaks) {
      trace.open(o.trace);
      if (!trace) throw BadInput(o.trace + ": error: cannot write file");
      trace << sim::formatTraceHeader({cfg.name, cfg.ipu.clockHz, cfg.ipus, m.tiles});
    }
    Progress progress("ipusim run", speaks);
    auto onProgress = [&](uint64_t cycle, uint64_t supersteps) { progress.update(cycle, int64_t(supersteps)); };
    Stats j;
    double seconds = 0;
    uint64_t cycles = 0;
    if (single) {
      // The IPU runs as a SystemC module; the trace is written superstep by superstep.
      sim::IpuModule module("ipu0", *single, cfg.ipu.clockHz, threads, o.maxCycles);
      if (tracing) {
        single->spillTrace(); // memory stays bounded however long a superstep runs
        module.onTraceEvent = [&trace](sim::TraceEvent &&e) { trace << sim::formatTraceEvent(e) << '\n'; };
      }
      module.onProgress = onProgress;
      sc_core::sc_start();
      seconds = progress.seconds();
      progress.finish();
      if (tracing && !trace.flush()) throw BadInput(o.trace + ": error: cannot write file");
      if (std::exception_ptr error = module.error()) return reportRunError(error);
      cycles = module.stats().cycles;
      addIpuStats(j, 0, module.stats(), tilesOf[0]);
    } else {
      sim::SystemModule module("system", *system, threads, o.maxCycles);
      // The host (docs/systems.md "The host"): its link as TLM-2.0 transactions; at each host
      // sync the manifest's steps for it run in order, and the tiles wait for the last.
      sim::HostLink hostLink("host_link", *system);
      sim::HostPort hostPort("host");
      hostPort.socket.bind(hostLink.socket);
      std::map<std::string, unsigned> buffers;
      for (const RemoteBufferSpec &b : m.remoteBuffers) try {
          buffers[b.name] = hostLink.addRemoteBuffer(b.name, b.bytes);
        } catch (const std::exception &e) {
          throw BadInput(b.at + ": error: " + e.what());
        }
      unsigned hostSyncs = 0;
      std::string hostError;
      module.onHostSync = [&](const sim::System::Step &) -> uint64_t {
        ++hostSyncs;
        const double clock = cfg.ipu.clockHz;
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        uint64_t done = 0;
        for (const HostStep &h : m.hostSteps) {
          // The step's k-th time (k > 0 only with 'every': a device iteration each time).
          if (hostSyncs < h.sync || !hostError.empty()) continue;
          const unsigned since = hostSyncs - h.sync;
          if (h.every ? since % h.every != 0 : since != 0) continue;
          const uint64_t k = h.every ? since / h.every : 0;
          if (h.times && k >= h.times) continue;
          const uint64_t tileAddr = sim::HostAddress::tile(h.ipu, h.tile, h.addr);
          sc_core::sc_time took;
          uint64_t bytes = h.bytes;
          try {
            if (h.kind == HostStep::Write) {
              // A file with 'bytes' is a stream: the k-th time sends its k-th `bytes` (without, the
              // whole file every time).
              std::vector<uint8_t> &d = sendData[h.file];
              if (!bytes) bytes = d.size();
              const uint64_t from = h.bytes ? k * bytes : 0;
              if (from + bytes > d.size()) {
                hostError = h.at + ": error: host step write " + h.file + ": stream overrun: host sync " + std::to_string(hostSyncs) +
                            " wants bytes " + std::to_string(from) + ".." + std::to_string(from + bytes) +
                            " of the file, which has " + std::to_string(d.size());
                continue;
              }
              took = hostPort.transfer(true, tileAddr, d.data() + from, unsigned(bytes), hostLink);
            } else {
              // A remote buffer is a stream too: the k-th time is `bytes` further on.
              const uint64_t remote = sim::HostAddress::remote(buffers[h.buffer], h.offset + k * bytes);
              std::vector<uint8_t> d(bytes);
              if (h.kind == HostStep::RemoteRead) hostPort.transfer(false, remote, d.data(), unsigned(d.size()), hostLink);
              took = hostPort.transfer(h.kind == HostStep::RemoteRead, tileAddr, d.data(), unsigned(d.size()), hostLink);
              if (h.kind == HostStep::RemoteWrite) hostPort.transfer(true, remote, d.data(), unsigned(d.size()), hostLink);
              if (h.kind == HostStep::Read && system->owns(h.ipu)) {
                // Each time appends to the file the first time made.
                std::ofstream out(h.file, std::ios::binary | (k ? std::ios::app : std::ios::trunc));
                out.write(reinterpret_cast<const char *>(d.data()), std::streamsize(d.size()));
                if (!out) hostError = h.file + ": error: cannot write file";
              }
            }
          } catch (const std::exception &e) {
            hostError = h.at + ": error: host step: " + e.what();
            continue;
          }
          const uint64_t end = uint64_t(std::llround((now + took).to_seconds() * clock));
          done = std::max(done, end);
          sim::TraceEvent e;
          e.cycle = uint64_t(std::llround(now.to_seconds() * clock));
          e.event = "host.transfer";
          e.where = "system.host";
          static const char *const kinds[] = {"write", "read", "remote_write", "remote_read"};
          e.add("kind", kinds[h.kind])
              .add("tile", "ipu" + std::to_string(h.ipu) + ".tile" + std::to_string(h.tile))
              .addHex("addr", h.addr)
              .add("bytes", bytes)
              .add("end_cycle", end);
          system->traceEvent(std::move(e));
        }
        return done;
      };
      if (tracing)
        module.onTraceLines = [&trace](std::vector<std::string> &&lines) {
          for (const std::string &l : lines) trace << l << '\n';
        };
      module.onProgress = onProgress;
      sc_core::sc_start();
      seconds = progress.seconds();
      progress.finish();
      if (tracing && !trace.flush()) throw BadInput(o.trace + ": error: cannot write file");
      if (std::exception_ptr error = module.error()) return speaks ? reportRunError(error) : 2;
      for (const HostStep &h : m.hostSteps)
        if (hostError.empty() && h.sync > hostSyncs)
          hostError = h.at + ": error: host step: it waits for host sync " + std::to_string(h.sync) + ", but the program made " +
                      std::to_string(hostSyncs) + " (sync 5 or 7)";
      if (!hostError.empty()) {
        if (speaks) std::fprintf(stderr, "ipusim: %s\n", hostError.c_str());
        return 2;
      }
      const sim::SystemStats &stats = module.stats();
      cycles = stats.cycles;
      j.add("system.cycles", stats.cycles);
      j.add("system.external_syncs", stats.externalSyncs);
      j.add("system.links.packets", stats.links.packets);
      j.add("system.links.payload_bytes", stats.links.payloadBytes);
      j.add("system.links.link_bytes", stats.links.linkBytes);
      j.add("system.host.syncs", hostSyncs);
      j.add("system.host.bytes", hostLink.bytesMoved());
      const auto &connections = system->topology().connections();
      for (size_t c = 0; c < connections.size(); ++c)
        for (unsigned dir = 0; dir < 2; ++dir)
          if (stats.links.busyCycles[dir][c]) {
            const unsigned from = dir ? connections[c].b : connections[c].a, to = dir ? connections[c].a : connections[c].b;
            j.add("system.links.ipu" + std::to_string(from) + "_to_ipu" + std::to_string(to) + ".busy_cycles",
                  stats.links.busyCycles[dir][c]);
          }
      for (const auto &[ipu, tiles] : tilesOf) addIpuStats(j, ipu, stats.ipus[ipu], tiles);
    }
    for (const Dump &d : dumps) {
      if (!mine(d.ipu)) continue;
      const sim::TileMemory &mem = ipuAt(d.ipu).tile(d.tile).memory();
      std::ofstream out(d.file, std::ios::binary);
      out.write(reinterpret_cast<const char *>(mem.at(d.addr)), std::streamsize(d.len));
      if (!out) throw BadInput(d.file + ": error: cannot write file");
    }
    j.addHost(seconds, cycles);
    if (!speaks) return 0;
    std::string text = j.dump();
    if (o.stats.empty()) std::fputs(text.c_str(), stdout);
    else {
      std::ofstream out(o.stats);
      out << text;
      if (!out) throw BadInput(o.stats + ": error: cannot write file");
    }
    return 0;
  } catch (const std::exception &e) {
    std::string msg = e.what();
    if (speaks) std::fprintf(stderr, "%s%s", msg.c_str(), !msg.empty() && msg.back() == '\n' ? "" : "\n");
    return 1;
  }
}

} // namespace ipusim::tools
