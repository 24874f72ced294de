// Helpers shared by the tests: assemble snippets, read words, run the command-line tools.
#pragma once

#include "ipusim/cc/Assembler.h"
#include "ipusim/cc/Object.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace ipusim::test {

/// Assembles `text` (no preprocessor) as file "t.s".
inline cc::ObjectFile assemble(const std::string &text) { return cc::assembleText(text, "t.s"); }

/// The diagnostics of assembling `text`, or "" if it assembles.
inline std::string assembleError(const std::string &text) {
  try {
    assemble(text);
  } catch (const cc::AssemblyError &e) {
    return e.what();
  }
  return "";
}

/// The little-endian 32-bit words of section `name`.
inline std::vector<uint32_t> words(const cc::ObjectFile &obj, const std::string &name = ".text") {
  int i = obj.findSection(name);
  std::vector<uint32_t> out;
  if (i < 0) return out;
  const auto &d = obj.sections[size_t(i)].data;
  for (size_t k = 0; k + 4 <= d.size(); k += 4)
    out.push_back(uint32_t(d[k]) | uint32_t(d[k + 1]) << 8 | uint32_t(d[k + 2]) << 16 | uint32_t(d[k + 3]) << 24);
  return out;
}

/// The one instruction word `text` assembles to (a failure if it is not exactly one word).
inline uint32_t word(const std::string &text) {
  auto w = words(assemble(text));
  EXPECT_EQ(w.size(), 1u) << text;
  return w.empty() ? 0 : w[0];
}

struct ToolResult {
  int status;
  std::string out, err;
};

/// Runs a shell command, capturing stdout and stderr.
inline ToolResult run(const std::string &command) {
  char errPath[] = "/tmp/ipusim-test-stderr-XXXXXX";
  int fd = mkstemp(errPath);
  close(fd);
  FILE *p = popen((command + " 2>" + errPath).c_str(), "r");
  ToolResult r{-1, "", ""};
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream e(errPath);
  r.err.assign(std::istreambuf_iterator<char>(e), std::istreambuf_iterator<char>());
  std::remove(errPath);
  return r;
}

inline std::string tool(const std::string &name) { return std::string(IPUSIM_BIN_DIR) + "/" + name; }

/// A fresh temporary directory, removed at destruction.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char t[] = "/tmp/ipusim-test-XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string &name, const std::string &contents = "") const {
    std::string p = (path / name).string();
    if (!contents.empty()) std::ofstream(p) << contents;
    return p;
  }
};

} // namespace ipusim::test
