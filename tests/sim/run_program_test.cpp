// ipusim run: a program manifest puts work on several tiles of one IPU; stats, dumps and errors.
#include "TestUtil.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace ipusim;
using test::run;
using test::tool;

namespace {

void writeWords(const std::string &path, const std::vector<uint32_t> &words) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char *>(words.data()), std::streamsize(4 * words.size()));
}
std::vector<float> readFloats(const std::string &path, size_t n) {
  std::vector<float> v(n);
  std::ifstream(path, std::ios::binary).read(reinterpret_cast<char *>(v.data()), std::streamsize(4 * n));
  return v;
}

TEST(RunProgram, VectorAddOnThreeTiles) {
  test::TempDir dir;
  std::string obj = dir.file("v.o"), elf = dir.file("v.elf");
  ASSERT_EQ(run(tool("ipu-as") + " " + IPUSIM_SOURCE_DIR "/examples/asm/vector_add.S -o " + obj).status, 0);
  ASSERT_EQ(run(tool("ipu-ld") + " -o " + elf + " " + obj).status, 0);
  // Tile t adds 6 (t + 1) float pairs: in0[i] = i, in1[i] = 100 t.
  std::string manifest = "tiles = 4\n";
  for (unsigned t = 0; t < 3; ++t) {
    std::vector<uint32_t> in0, in1;
    for (unsigned i = 0; i < 12 * (t + 1); ++i) {
      float a = float(i), b = 100.0f * float(t);
      uint32_t ua, ub;
      std::memcpy(&ua, &a, 4);
      std::memcpy(&ub, &b, 4);
      in0.push_back(ua);
      in1.push_back(ub);
    }
    std::string s = "state" + std::to_string(t) + ".bin", i0 = "in0_" + std::to_string(t) + ".bin",
                i1 = "in1_" + std::to_string(t) + ".bin";
    writeWords(dir.file(s), {0x60000, 0x61000, 0x62000, 6 * (t + 1)});
    writeWords(dir.file(i0), in0);
    writeWords(dir.file(i1), in1);
    manifest += "\n[[tile]]\ntiles = " + std::to_string(t) + "\nimage = \"v.elf\"\nentry = \"VectorAdd_f32\"\n"
                "vertex_base = 0x70000\nload = [\"" + s + "@0x70000\", \"" + i0 + "@0x60000\", \"" + i1 + "@0x61000\"]\n";
  }
  std::string m = dir.file("program.toml", manifest), out = dir.file("out2.bin");
  auto r = run(tool("ipusim") + " run " + m + " --threads 2 --dump 2:0x62000:144:" + out);
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  // Tile 0 has 6 pairs, one per worker: 16 + 1 (rpt) + 4 + 1 (exitz) = 22 bundles each. As in
  // tests/sim/vertices_test.cpp: c0 setzi, c6 runall; context k issues first at 11 + k and exits
  // 21 turns later, at 137 + k (138..143). The supervisor's first free slot is 144 (context 1's):
  // sync there resumes at max(144, 143) + 6 = 150; br $lr returns at 156.
  EXPECT_EQ(j["ipu0.tile0.cycles"], 156);
  EXPECT_EQ(j["ipu0.tile0.worker0.bundles"], 22);
  EXPECT_EQ(j["ipu0.tile1.cycles"], 180); // 12 pairs: as in the vertex test
  EXPECT_EQ(j["ipu0.tile0.supervisor.bundles"], 4);
  EXPECT_EQ(j["ipu0.sync.count"], 0);
  EXPECT_EQ(j["ipu0.cycles"], j["ipu0.tile2.cycles"]);
  EXPECT_FALSE(j.contains("ipu0.tile3.cycles")); // tile 3 had no work
  std::vector<float> v = readFloats(out, 36);
  for (unsigned i = 0; i < 36; ++i) EXPECT_EQ(v[i], float(i) + 200.0f) << i;
}

TEST(RunProgram, ManifestErrorsNameFileLineAndKey) {
  test::TempDir dir;
  auto err = [&](const std::string &text) {
    auto r = run(tool("ipusim") + " run " + dir.file("p.toml", text));
    EXPECT_EQ(r.status, 1);
    return r.err.substr(r.err.rfind('/') + 1);
  };
  EXPECT_EQ(err("tiles = 2\nthreads = 3\n"), "p.toml:2:1: error: unknown key 'threads'\n");
  EXPECT_EQ(err("tiles = 2\n[[tile]]\ntiles = 0\nimage = \"x.elf\"\nentry = \"e\"\ncolour = 1\n"),
            "p.toml:6:1: error: unknown key 'tile.colour'\n");
  EXPECT_EQ(err("tiles = 5000\n"), "p.toml:1:9: error: key 'tiles' is out of range: 5000 is not in [1, 1472]\n");
  EXPECT_EQ(err("tiles = 2\n[[tile]]\ntiles = \"0-1\"\nimage = \"x.elf\"\nentry = \"e\"\n[[tile]]\ntiles = 1\n"
                "image = \"x.elf\"\nentry = \"e\"\n"),
            "p.toml:6:1: error: tile 1 is given work twice\n");
  EXPECT_EQ(err("tiles = 2\n[[tile]]\ntiles = 0\nimage = \"x.elf\"\nentry = \"e\"\n"), "x.elf: error: cannot open file\n");
}

} // namespace

namespace {

TEST(RunProgram, RingShiftExampleOverTheExchange) {
  // examples/programs/ring_shift.S on 8 tiles: tile t receives (100 (t - 1 mod 8) + i), i = 0..3.
  test::TempDir dir;
  std::string obj = dir.file("r.o"), elf = dir.file("r.elf");
  ASSERT_EQ(run(tool("ipu-as") + " " + IPUSIM_SOURCE_DIR "/examples/programs/ring_shift.S -o " + obj).status, 0);
  ASSERT_EQ(run(tool("ipu-ld") + " -o " + elf + " " + obj).status, 0);
  writeWords(dir.file("n.bin"), {8});
  std::string m = dir.file("p.toml", "tiles = 8\n[[tile]]\ntiles = \"0-7\"\nimage = \"r.elf\"\nentry = \"ring_shift\"\n"
                                     "vertex_base = 0x70000\nload = [\"n.bin@0x70000\"]\n");
  std::string dumps;
  for (unsigned t = 0; t < 8; ++t) dumps += " --dump " + std::to_string(t) + ":0x71000:16:" + dir.file("t" + std::to_string(t));
  auto r = run(tool("ipusim") + " run " + m + " --threads 2" + dumps);
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ipu0.sync.count"], 2);
  for (unsigned t = 0; t < 8; ++t) {
    std::ifstream in(dir.file("t" + std::to_string(t)), std::ios::binary);
    uint32_t w[4];
    in.read(reinterpret_cast<char *>(w), 16);
    for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(w[i], 100 * ((t + 7) % 8) + i) << t << " " << i;
  }
}

} // namespace
