#include "ipusim/gc/Codelets.h"

#include "ipusim/cc/Assembler.h"

#include <poplar/exceptions.hpp>

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace ipusim::gc {

std::string normalizeClassName(const std::string &name) {
  std::string s;
  for (char c : name)
    if (c != ' ') s += c;
  return s;
}

void CodeletRegistry::addObject(const std::string &name, cc::ObjectFile object) {
  auto obj = std::make_shared<const cc::ObjectFile>(std::move(object));
  // The same codelets again (a .gp and the source it came from): nothing new to add. Some of
  // them again beside new ones: the class would have two definitions.
  const std::vector<cc::VertexLayout> layouts = cc::readVertexLayouts(*obj);
  bool allKnown = !layouts.empty();
  for (const cc::VertexLayout &l : layouts) allKnown &= byName_.count(normalizeClassName(l.className)) != 0;
  if (allKnown) return;
  for (const cc::Symbol &s : obj->symbols) {
    if (s.binding != cc::SymbolBinding::Global || s.section < 0 || !obj->sections[size_t(s.section)].isCode()) continue;
    auto [it, fresh] = definedSymbols_.emplace(s.name, unsigned(objects_.size()));
    if (!fresh)
      throw poplar::graph_object_creation_error(name + ": error: '" + s.name + "' is already defined by " +
                                                objects_[it->second].first);
  }
  for (const cc::VertexLayout &l : layouts) {
    std::string key = normalizeClassName(l.className);
    auto it = byName_.find(key);
    if (it != byName_.end()) {
      // The same class from two files is the same vertex (an external codelet's C++ declaration
      // next to its assembly); keep the first layout.
      continue;
    }
    byName_[key] = unsigned(codelets_.size());
    codelets_.push_back({std::move(l), key});
  }
  objects_.push_back({name, std::move(obj)});
}

void CodeletRegistry::addArchive(const CodeletArchive &archive) {
  for (const auto &[name, object] : archive.objects) addObject(name, object);
}

int CodeletRegistry::find(const std::string &className) const {
  auto it = byName_.find(normalizeClassName(className));
  return it == byName_.end() ? -1 : int(it->second);
}

// ---- .gp archives ----

namespace {
const char kMagic[8] = {'I', 'P', 'U', 'S', 'I', 'M', 'G', 'P'};
constexpr uint32_t kArchiveVersion = 1;

void put32(std::vector<uint8_t> &out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
} // namespace

std::vector<uint8_t> writeCodeletArchive(const CodeletArchive &a) {
  std::vector<uint8_t> out(kMagic, kMagic + 8);
  put32(out, kArchiveVersion);
  put32(out, uint32_t(a.objects.size()));
  for (const auto &[name, object] : a.objects) {
    put32(out, uint32_t(name.size()));
    out.insert(out.end(), name.begin(), name.end());
    std::vector<uint8_t> elf = cc::writeElf(object);
    put32(out, uint32_t(elf.size()));
    out.insert(out.end(), elf.begin(), elf.end());
  }
  return out;
}

CodeletArchive readCodeletArchive(const std::vector<uint8_t> &bytes, const std::string &path) {
  size_t at = 0;
  auto fail = [&](const std::string &why) -> void {
    throw poplar::graph_object_load_error(path + ": error: not a codelet file written by popc (" + why + ")");
  };
  auto get32 = [&]() {
    if (at + 4 > bytes.size()) fail("truncated");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(bytes[at + size_t(i)]) << (8 * i);
    at += 4;
    return v;
  };
  if (bytes.size() < 8 || !std::equal(kMagic, kMagic + 8, bytes.begin())) fail("bad magic");
  at = 8;
  if (uint32_t v = get32(); v != kArchiveVersion) fail("version " + std::to_string(v) + ", expected " + std::to_string(kArchiveVersion));
  CodeletArchive a;
  const uint32_t n = get32();
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t len = get32();
    if (at + len > bytes.size()) fail("truncated");
    std::string name(bytes.begin() + long(at), bytes.begin() + long(at + len));
    at += len;
    len = get32();
    if (at + len > bytes.size()) fail("truncated");
    std::vector<uint8_t> elf(bytes.begin() + long(at), bytes.begin() + long(at + len));
    at += len;
    try {
      a.objects.push_back({name, cc::readElf(elf, path + "(" + name + ")")});
    } catch (const cc::ObjectError &e) {
      throw poplar::graph_object_load_error(e.what());
    }
  }
  return a;
}

// ---- compiling sources ----

namespace {

std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw poplar::graph_object_load_error(path + ": error: cannot open the file");
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
  const uint8_t *p = static_cast<const uint8_t *>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/// The files a source includes by quoted name (found next to the includer or in `dirs`),
/// recursively: their contents go into the cache key, so editing a local header recompiles.
void quotedIncludes(const fs::path &file, const std::vector<std::string> &dirs, std::set<std::string> &seen) {
  std::ifstream in(file);
  static const std::regex inc(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, inc)) continue;
    std::vector<fs::path> candidates{file.parent_path() / m[1].str()};
    for (const std::string &d : dirs) candidates.push_back(fs::path(d) / m[1].str());
    for (const fs::path &c : candidates) {
      std::error_code ec;
      if (!fs::is_regular_file(c, ec)) continue;
      std::string key = fs::weakly_canonical(c, ec).string();
      if (seen.insert(key).second) quotedIncludes(c, dirs, seen);
      break;
    }
  }
}

fs::path cacheDirectory() {
  if (const char *d = std::getenv("IPUSIM_CACHE_DIR"); d && *d) return d;
  if (const char *d = std::getenv("XDG_CACHE_HOME"); d && *d) return fs::path(d) / "ipusim";
  if (const char *d = std::getenv("HOME"); d && *d) return fs::path(d) / ".cache" / "ipusim";
  return fs::temp_directory_path() / "ipusim-cache";
}

cc::CompileOptions parseFlags(const std::vector<std::string> &flags, const std::string &source) {
  cc::CompileOptions o;
  o.defines.push_back("__POPC__");
  std::vector<std::string> words;
  for (const std::string &f : flags) {
    std::istringstream in(f);
    for (std::string w; in >> w;) words.push_back(w);
  }
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string &w = words[i];
    auto arg = [&](size_t prefix) -> std::string {
      if (w.size() > prefix) return w.substr(prefix);
      if (i + 1 < words.size()) return words[++i];
      throw poplar::graph_program_compilation_error(source + ": error: the codelet option '" + w + "' needs a value");
    };
    if (w.rfind("-I", 0) == 0) o.includeDirs.push_back(arg(2));
    else if (w.rfind("-D", 0) == 0) o.defines.push_back(arg(2));
    else if (w.size() == 3 && w.rfind("-O", 0) == 0 && w[2] >= '0' && w[2] <= '3') o.optLevel = w[2] - '0';
    else if (w == "-Os" || w == "-Oz") o.optLevel = 2;
    else if (w.rfind("-std=", 0) == 0) o.cxxStandard = w.substr(5);
    else if (w == "-g" || w == "-g0" || w == "-w" || w == "-Wall" || w == "-Werror" || w == "-ffast-math" ||
             w.rfind("--target=", 0) == 0 || w == "-O" || w.rfind("-W", 0) == 0)
      continue; // accepted: they do not change what ipu-cc generates
    else
      throw poplar::graph_program_compilation_error(source + ": error: unknown codelet compile option '" + w + "'");
  }
  return o;
}

/// Every device header codelets may include (<poplar/Vertex.hpp>, <ipu_intrinsics> ...): an
/// edit to them must not leave stale objects in the cache. Hashed once per process.
uint64_t deviceHeadersHash() {
  static const uint64_t hash = [] {
    uint64_t h = 0x84222325cbf29ce4ull;
    std::error_code ec;
    std::vector<std::string> files;
    for (fs::recursive_directory_iterator it(cc::builtinIncludeDirectory(), ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec)) files.push_back(it->path().string());
    std::sort(files.begin(), files.end());
    for (const std::string &f : files) {
      std::vector<uint8_t> b = readBytes(f);
      h = fnv1a(h, f.data(), f.size());
      h = fnv1a(h, b.data(), b.size());
    }
    return h;
  }();
  return hash;
}

/// The GNU build-id of the binary this code is linked into (a hash of its contents, written by
/// the linker): the codelet compiler linked beside it changes it, so a rebuilt ipu-cc never reuses
/// what an older one cached (this file's own __DATE__ and __TIME__ change only when it is
/// recompiled). Empty when the binary has none.
const std::string &buildIdentity() {
  static const std::string id = [] {
    struct Search {
      uintptr_t addr;
      std::string id;
    } search{reinterpret_cast<uintptr_t>(&buildIdentity), ""};
    dl_iterate_phdr(
        [](dl_phdr_info *info, size_t, void *data) -> int {
          auto *s = static_cast<Search *>(data);
          bool mine = false;
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const auto &ph = info->dlpi_phdr[i];
            const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
            mine |= ph.p_type == PT_LOAD && s->addr >= begin && s->addr < begin + ph.p_memsz;
          }
          if (!mine) return 0;
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const auto &ph = info->dlpi_phdr[i];
            if (ph.p_type != PT_NOTE) continue;
            const char *p = reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr), *end = p + ph.p_memsz;
            while (p + sizeof(ElfW(Nhdr)) <= end) {
              const auto *n = reinterpret_cast<const ElfW(Nhdr) *>(p);
              const char *name = p + sizeof(ElfW(Nhdr)), *desc = name + ((n->n_namesz + 3) & ~3u);
              if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
                s->id.assign(desc, n->n_descsz);
                return 1;
              }
              p = desc + ((n->n_descsz + 3) & ~3u);
            }
          }
          return 1;
        },
        &search);
    return search.id;
  }();
  return id;
}

cc::ObjectFile compileCpp(const std::string &path, const cc::CompileOptions &options) {
  // The cache key: ipusim's codelet compiler (the build of the binary it is linked into), the
  // options and every byte the compilation reads from the user's files.
  uint64_t h = 0xcbf29ce484222325ull;
  const std::string version = std::string("ipu-cc " __DATE__ " " __TIME__) + buildIdentity();
  h = fnv1a(h, version.data(), version.size());
  h ^= deviceHeadersHash();
  auto mix = [&](const std::string &s) { h = fnv1a(h, s.data(), s.size() + 1); };
  for (const std::string &d : options.defines) mix("-D" + d);
  for (const std::string &d : options.includeDirs) mix("-I" + d);
  mix("-O" + std::to_string(options.optLevel) + " -std=" + options.cxxStandard);
  // The path too: the object's line table names the file, which simulated exceptions report.
  std::error_code ec;
  mix(fs::weakly_canonical(path, ec).string());
  std::vector<uint8_t> main = readBytes(path);
  h = fnv1a(h, main.data(), main.size());
  std::set<std::string> includes;
  quotedIncludes(path, options.includeDirs, includes);
  for (const std::string &f : includes) {
    std::vector<uint8_t> b = readBytes(f);
    mix(f);
    h = fnv1a(h, b.data(), b.size());
  }
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.o", static_cast<unsigned long long>(h));
  const fs::path cached = cacheDirectory() / "codelets" / name;
  if (fs::is_regular_file(cached, ec)) {
    try {
      return cc::readElfFile(cached.string());
    } catch (const cc::ObjectError &) {
      // A damaged cache entry: compile again and replace it.
    }
  }
  cc::CompileResult r;
  try {
    r = cc::compileCodelet(path, options);
    std::fputs(r.warnings.c_str(), stderr); // as popc would print them
  } catch (const cc::CompileError &e) {
    std::string msg = e.what();
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    throw poplar::graph_program_compilation_error(msg);
  }
  fs::create_directories(cached.parent_path(), ec);
  if (!ec) {
    // Written under a temporary name and renamed, so concurrent programs never read half a file.
    fs::path tmp = cached;
    tmp += "." + std::to_string(::getpid()) + ".tmp";
    try {
      cc::writeElfFile(r.object, tmp.string());
      fs::rename(tmp, cached, ec);
    } catch (...) {
    }
    fs::remove(tmp, ec);
  }
  return r.object;
}

} // namespace

CodeletArchive compileCodeletFiles(const std::vector<std::string> &paths, const std::vector<std::string> &compileFlags) {
  CodeletArchive out;
  for (const std::string &path : paths) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw poplar::graph_object_load_error(path + ": error: no such codelet file");
    if (fs::is_directory(path, ec)) throw poplar::graph_object_load_error(path + ": error: is a directory, not a codelet file");
    const std::string ext = fs::path(path).extension().string();
    const std::string base = fs::path(path).filename().string();
    if (ext == ".gp") {
      CodeletArchive a = readCodeletArchive(readBytes(path), path);
      for (auto &o : a.objects) out.objects.push_back(std::move(o));
    } else if (ext == ".S" || ext == ".s") {
      cc::CompileOptions o = parseFlags(compileFlags, path);
      cc::AssemblerOptions ao;
      ao.includeDirs = o.includeDirs;
      ao.defines = o.defines;
      try {
        out.objects.push_back({base, cc::assembleFile(path, ao)});
      } catch (const cc::AssemblyError &e) {
        std::string msg = e.what();
        while (!msg.empty() && msg.back() == '\n') msg.pop_back();
        throw poplar::graph_program_compilation_error(msg);
      }
    } else if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c" || ext == ".C") {
      out.objects.push_back({base, compileCpp(path, parseFlags(compileFlags, path))});
    } else {
      throw poplar::graph_object_load_error(path + ": error: unknown codelet file type '" + ext +
                                            "' (expected .cpp, .S or a .gp file from popc)");
    }
  }
  return out;
}

const CodeletArchive &runtimeCodelets() {
  static std::once_flag once;
  static CodeletArchive archive;
  std::call_once(once, [] {
    // Next to libpoplar.so (build/lib/ipusim/runtime.gp) or the executable this code is linked
    // into, else where the build put it.
    std::vector<fs::path> candidates;
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&runtimeCodelets), &info) && info.dli_fname) {
      fs::path dir = fs::path(info.dli_fname).parent_path();
      candidates.push_back(dir / "ipusim" / "runtime.gp");
      candidates.push_back(dir.parent_path() / "lib" / "ipusim" / "runtime.gp");
    }
    candidates.push_back(IPUSIM_RUNTIME_CODELETS);
    for (const fs::path &p : candidates) {
      std::error_code ec;
      if (fs::is_regular_file(p, ec)) {
        archive = readCodeletArchive(readBytes(p.string()), p.string());
        return;
      }
    }
    throw poplar::graph_object_load_error("ipusim: error: the runtime codelets (runtime.gp) are missing; rebuild ipusim");
  });
  return archive;
}

} // namespace ipusim::gc
