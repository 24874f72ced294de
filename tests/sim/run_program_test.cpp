// ipusim run: a program manifest puts work on several tiles of one IPU; stats, dumps and errors.
#include "TestUtil.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

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
  // What the manifest names is reported at the manifest's line and column (issue 14).
  auto full = [&](const std::string &text) {
    auto r = run(tool("ipusim") + " run " + dir.file("p.toml", text));
    EXPECT_EQ(r.status, 1);
    return r.err;
  };
  const std::string p = dir.file("p.toml"), d = dir.path.string() + "/";
  EXPECT_EQ(full("tiles = 2\n[[tile]]\ntiles = 0\nimage = \"x.elf\"\nentry = \"e\"\n"),
            p + ":4:9: error: image " + d + "x.elf: no such file\n");
  EXPECT_EQ(full("tiles = 2\n[[tile]]\ntiles = 0\nimage = \"p.toml\"\nentry = \"e\"\n"),
            p + ":4:9: error: image " + d + "p.toml: not an ELF file\n");
  // A real image: an entry it lacks, a load that is missing or does not fit.
  ASSERT_EQ(run(tool("ipu-as") + " " + IPUSIM_SOURCE_DIR "/examples/asm/vector_add.S -o " + dir.file("v.o")).status, 0);
  ASSERT_EQ(run(tool("ipu-ld") + " -o " + dir.file("v.elf") + " " + dir.file("v.o")).status, 0);
  const std::string head = "tiles = 2\n[[tile]]\ntiles = 0\nimage = \"v.elf\"\n";
  EXPECT_EQ(full(head + "entry = \"nope\"\n"), p + ":5:9: error: entry 'nope': no such symbol in " + d + "v.elf\n");
  EXPECT_EQ(full(head + "entry = \"VectorAdd_f32\"\nload = [\"in.bin@0x60000\"]\n"),
            p + ":6:9: error: load " + d + "in.bin: no such file\n");
  dir.file("big.bin", std::string(100000, 'x'));
  EXPECT_EQ(full(head + "entry = \"VectorAdd_f32\"\nload = [\"big.bin@0xe0000\"]\n"),
            p + ":6:9: error: load " + d + "big.bin: its 100000 bytes at 0xe0000 leave tile memory 0x4c000..0xe8000\n");
}

TEST(RunProgram, DumpsAreCheckedBeforeTheRun) {
  test::TempDir dir;
  ASSERT_EQ(run(tool("ipu-as") + " " + IPUSIM_SOURCE_DIR "/examples/asm/vector_add.S -o " + dir.file("v.o")).status, 0);
  ASSERT_EQ(run(tool("ipu-ld") + " -o " + dir.file("v.elf") + " " + dir.file("v.o")).status, 0);
  const std::string m = dir.file("p.toml", "tiles = 16\n[[tile]]\ntiles = 0\nimage = \"v.elf\"\nentry = \"VectorAdd_f32\"\n");
  auto err = [&](const std::string &spec) {
    auto r = run(tool("ipusim") + " run " + m + " --dump " + spec);
    EXPECT_EQ(r.status, 1) << spec;
    EXPECT_EQ(r.out, "") << spec; // nothing ran
    return r.err;
  };
  EXPECT_EQ(err("16:0x60000:4:x"), "ipusim: error: --dump 16:0x60000:4:x: tile 16 is out of range (the program has 16 tiles: 0-15)\n");
  EXPECT_EQ(err("t:0x60000:4:x"), "ipusim: error: --dump t:0x60000:4:x: the tile 't' is not a number\n");
  EXPECT_EQ(err("0:0x100000000:4:x"),
            "ipusim: error: --dump 0:0x100000000:4:x: the address '0x100000000' is out of range (at most 4294967295)\n");
  EXPECT_EQ(err("0:0xe7ffe:4:x"), "ipusim: error: --dump 0:0xe7ffe:4:x: 0xe7ffe..0xe8002 is outside tile memory 0x4c000..0xe8000\n");
  EXPECT_EQ(err("0:0x60000:4"), "ipusim: error: --dump wants TILE:ADDR:LEN:FILE, not '0:0x60000:4'\n");
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

// The example programs of examples/programs (docs/program-manifest.md): broadcast, all_to_all and
// elementwise, run by `ipusim run` from their committed manifests and on spread-out sets of tiles.
namespace {

const std::string kExamples = IPUSIM_SOURCE_DIR "/examples/programs/";

/// Assembles and links `source` (a path under the source tree) into DIR/NAME.elf.
std::string buildImage(const test::TempDir &dir, const std::string &source, const std::string &name) {
  std::string obj = dir.file(name + ".o"), elf = dir.file(name + ".elf");
  auto as = run(tool("ipu-as") + " " + IPUSIM_SOURCE_DIR "/" + source + " -o " + obj);
  EXPECT_EQ(as.status, 0) << as.err;
  auto ld = run(tool("ipu-ld") + " -o " + elf + " " + obj);
  EXPECT_EQ(ld.status, 0) << ld.err;
  return elf;
}

/// The committed manifest examples/programs/NAME.toml, copied into `dir` with the files it loads,
/// its image (built by scripts/run.sh into build/examples) replaced by `elf`.
std::string exampleManifest(const test::TempDir &dir, const std::string &name, const std::string &builtImage,
                            const std::string &elf) {
  std::ifstream in(kExamples + name + ".toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "\"../../build/examples/" + builtImage + "\"";
  size_t replaced = 0;
  for (size_t at; (at = text.find(from)) != std::string::npos; ++replaced)
    text.replace(at, from.size(), "\"" + elf + "\"");
  EXPECT_GT(replaced, 0u) << name << ".toml does not name " << from;
  for (const auto &entry : std::filesystem::directory_iterator(kExamples))
    if (entry.path().extension() == ".bin")
      std::filesystem::copy_file(entry.path(), dir.path / entry.path().filename());
  return dir.file(name + ".toml", text);
}

std::vector<uint32_t> readWords(const std::string &path, size_t n) {
  std::vector<uint32_t> v(n);
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char *>(v.data()), std::streamsize(4 * n));
  EXPECT_EQ(size_t(in.gcount()), 4 * n) << path;
  return v;
}

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// A [[tile]] table of a manifest.
std::string tileWork(const std::string &tiles, const std::string &elf, const std::string &entry,
                     const std::string &loads = "") {
  return "\n[[tile]]\ntiles = " + tiles + "\nimage = \"" + elf + "\"\nentry = \"" + entry +
         "\"\nvertex_base = 0x70000\n" + (loads.empty() ? "" : "load = [\"" + loads + "\"]\n");
}

std::string dumpArgs(const test::TempDir &dir, const std::vector<unsigned> &tiles, const std::string &spec) {
  std::string args;
  for (unsigned t : tiles)
    args += " --dump " + std::to_string(t) + ":" + spec + ":" + dir.file("d" + std::to_string(t));
  return args;
}

// --- broadcast -----------------------------------------------------------------------------------

// examples/programs/broadcast.S: tile 0 sends 16 words east and west; the others receive them at
// 0x71000. Every tile reaches the first sync at 0 (its first instruction) and is released at 126;
// tile 0: setzi 126, put $INCOMING_MUX 132 (waits for $m1), put $OUTGOING_BASE 133, delay 100 at
// 134, send at 234 (words leave at 234..249), delay 200 at 250, sync at 450. A receiver: put
// $INCOMING_MUX 126, setzi 127, put $INCOMING_BASE 133, put $INCOMING_DELTA 134, delay 315 at
// 135, sync at 450. The muxes select tile 0 from 126, before any word meets them (at least
// 234 - 77 = 157), and every word is written by 249 + 165 = 414 < 450, wherever the receiver is.
// The last arrival is at 450 on every tile: released at 576; br $lr: done at 582. The exchange
// phase runs from 126 to 450 (324 cycles); the compute phases before the first sync (0 cycles) and
// after the last (6).
void expectBroadcastStats(const nlohmann::json &j, unsigned receivers) {
  EXPECT_EQ(j["ipu0.cycles"], 582);
  EXPECT_EQ(j["ipu0.sync.count"], 2);
  EXPECT_EQ(j["ipu0.sync.cycles"], 2 * 126);
  EXPECT_EQ(j["ipu0.phase.exchange.count"], 1);
  EXPECT_EQ(j["ipu0.phase.exchange.cycles"], 450 - 126);
  EXPECT_EQ(j["ipu0.phase.compute.count"], 2);
  EXPECT_EQ(j["ipu0.phase.compute.cycles"], 6);
  EXPECT_EQ(j["ipu0.exchange.words_sent"], 16);
  EXPECT_EQ(j["ipu0.exchange.words_received"], 16 * receivers);
  EXPECT_EQ(j["ipu0.tile0.exchange.words_received"], 0);
  EXPECT_EQ(j["ipu0.tile0.supervisor.bundles"], 9);
}

TEST(RunProgram, BroadcastExampleOnSixteenTiles) {
  test::TempDir dir;
  std::string elf = buildImage(dir, "examples/programs/broadcast.S", "broadcast");
  std::string m = exampleManifest(dir, "broadcast", "broadcast.elf", elf), trace = dir.file("b.trace");
  std::vector<unsigned> receivers;
  for (unsigned t = 1; t < 16; ++t) receivers.push_back(t);
  auto r = run(tool("ipusim") + " run " + m + " --threads 2 --trace " + trace + dumpArgs(dir, receivers, "0x71000:64"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  expectBroadcastStats(j, 15);
  const std::vector<uint32_t> words = readWords(kExamples + "broadcast_words.bin", 16);
  for (unsigned t : receivers) {
    EXPECT_EQ(j["ipu0.tile" + std::to_string(t) + ".exchange.words_received"], 16) << t;
    EXPECT_EQ(j["ipu0.tile" + std::to_string(t) + ".cycles"], 582) << t;
    EXPECT_EQ(readWords(dir.file("d" + std::to_string(t)), 16), words) << "tile " << t;
  }
  // Where two of the words land (flight times of tests/arch/exchange_layout_test.cpp): tile 1 is
  // physical 2 (0 -> 2: ttm -28, row 0), written at 234 + (-28 + 1) + 52 = 259..274; tile 2 is
  // physical 64 (ttm -31, row 1): 234 - 30 + 52 + 2 = 258..273.
  std::string text = readText(trace);
  EXPECT_NE(text.find("\n234 exchange.send ipu0.tile0.supervisor words=16 addr=0x70000 width=32 receivers=15\n"),
            std::string::npos);
  EXPECT_NE(text.find("\n259 exchange.receive ipu0.tile1.supervisor from=0 words=16 addr=0x71000 last_cycle=274\n"),
            std::string::npos);
  EXPECT_NE(text.find("\n258 exchange.receive ipu0.tile2.supervisor from=0 words=16 addr=0x71000 last_cycle=273\n"),
            std::string::npos);
}

TEST(RunProgram, BroadcastAcrossTheIpu) {
  // 96 tiles 0, 15, 30, ..., 1425, in all 16 columns and 23 rows of the tile array. The timing
  // does not depend on where the receivers are (see above): the same 582 cycles.
  test::TempDir dir;
  std::string elf = buildImage(dir, "examples/programs/broadcast.S", "broadcast");
  std::string manifest =
      "tiles = 1472\n" + tileWork("0", elf, "broadcast_send", kExamples + "broadcast_words.bin@0x70000");
  std::vector<unsigned> receivers;
  for (unsigned t = 15; t < 96 * 15; t += 15) {
    receivers.push_back(t);
    manifest += tileWork(std::to_string(t), elf, "broadcast_receive");
  }
  auto r = run(tool("ipusim") + " run " + dir.file("p.toml", manifest) + " --threads 2" +
               dumpArgs(dir, receivers, "0x71000:64"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  expectBroadcastStats(j, 95);
  const std::vector<uint32_t> words = readWords(kExamples + "broadcast_words.bin", 16);
  for (unsigned t : receivers) EXPECT_EQ(readWords(dir.file("d" + std::to_string(t)), 16), words) << "tile " << t;
}

// --- all_to_all ----------------------------------------------------------------------------------

// examples/programs/all_to_all.S on n tiles (ring positions 0..n-1 in the vertex state), every
// tile on the same instructions:
// - Before the first sync: ld32 n at 0, get 1, add 2, setzi 3, add $m3 (waits for n) 6. The
//   position loop (ld32, cmpeq, mul, add, brnzdec; each waits for the one before) takes 25 cycles
//   an iteration (brnzdec +19, taken +6), n times from 12; the last brnzdec falls through at
//   12 + 25 (n - 1) + 19. mul $m7 waits for the last add (+18): at 36 + 25 (n - 1); setzi, add
//   $m3. The store loop (add, st32 +6, brnzdec +7, taken +6): 13 cycles an iteration, n times from
//   44 + 25 (n - 1); after the last (at 44 + 38 (n - 1)) brnzdec +7 falls through, setzi +8, add
//   +9, st32 +15 (waits for $m5), put +16, put +17, mov +18, add +19: sync at 64 + 38 (n - 1).
// - Released 126 later, at R. n - 1 steps of 260 cycles (in the source's comment); the last
//   brnzdec falls through at R + 260 (n - 2) + 254, delay 30 at +1: sync at R + 260 (n - 1) + 25.
// - Released 126 later; br $lr: done 6 later. In all: 347 + 298 (n - 1) cycles.
uint64_t allToAllCycles(uint64_t n) { return 347 + 298 * (n - 1); }

/// Checks an all_to_all run on `tiles` (in ring order; its stats `j`, each tile's received words
/// dumped to DIR/dTILE).
void expectAllToAll(const nlohmann::json &j, const std::vector<unsigned> &tiles, const test::TempDir &dir) {
  const unsigned n = unsigned(tiles.size());
  EXPECT_EQ(j["ipu0.cycles"], allToAllCycles(n));
  EXPECT_EQ(j["ipu0.sync.count"], 2);
  EXPECT_EQ(j["ipu0.phase.exchange.count"], 1);
  EXPECT_EQ(j["ipu0.phase.exchange.cycles"], 260 * (n - 1) + 25);
  EXPECT_EQ(j["ipu0.phase.compute.count"], 2);
  EXPECT_EQ(j["ipu0.phase.compute.cycles"], 64 + 38 * (n - 1) + 6);
  EXPECT_EQ(j["ipu0.exchange.words_sent"], n * (n - 1));
  EXPECT_EQ(j["ipu0.exchange.words_received"], n * (n - 1));
  for (unsigned q = 0; q < n; ++q) {
    const std::string p = "ipu0.tile" + std::to_string(tiles[q]) + ".";
    EXPECT_EQ(j[p + "exchange.words_sent"], n - 1) << tiles[q];
    EXPECT_EQ(j[p + "exchange.words_received"], n - 1) << tiles[q];
    EXPECT_EQ(j[p + "cycles"], allToAllCycles(n)) << tiles[q];
    // The word from position s at 0x74000 + 4 s: 1000 s + q (its own word at s = q).
    const std::vector<uint32_t> got = readWords(dir.file("d" + std::to_string(tiles[q])), n);
    for (unsigned s = 0; s < n; ++s) EXPECT_EQ(got[s], 1000 * s + q) << "tile " << tiles[q] << " from position " << s;
  }
}

TEST(RunProgram, AllToAllExampleOnSixteenTiles) {
  // The committed manifest: tiles 0-15 in order. 347 + 298 x 15 = 4817 cycles.
  test::TempDir dir;
  std::string elf = buildImage(dir, "examples/programs/all_to_all.S", "all_to_all");
  std::string m = exampleManifest(dir, "all_to_all", "all_to_all.elf", elf);
  std::vector<unsigned> tiles;
  for (unsigned t = 0; t < 16; ++t) tiles.push_back(t);
  auto r = run(tool("ipusim") + " run " + m + " --threads 2" + dumpArgs(dir, tiles, "0x74000:64"));
  ASSERT_EQ(r.status, 0) << r.err;
  expectAllToAll(nlohmann::json::parse(r.out), tiles, dir);
}

TEST(RunProgram, AllToAllAcrossTheIpu) {
  // 64 tiles 0, 22, ..., 1386, in all 16 columns and 23 rows of the tile array (flight times
  // from one end of the fabric to the other), in a ring order that is not the tile order:
  // 347 + 298 x 63 = 19121 cycles.
  std::vector<unsigned> tiles;
  for (unsigned t = 0; t < 64 * 22; t += 22) tiles.push_back(t);
  ASSERT_EQ(tiles.size(), 64u);
  std::reverse(tiles.begin() + 1, tiles.end());
  std::swap(tiles[5], tiles[40]);
  test::TempDir dir;
  std::string elf = buildImage(dir, "examples/programs/all_to_all.S", "all_to_all");
  std::vector<uint32_t> state{uint32_t(tiles.size())};
  state.insert(state.end(), tiles.begin(), tiles.end());
  writeWords(dir.file("state.bin"), state);
  std::string manifest = "tiles = 1472\n";
  for (unsigned t : tiles) manifest += tileWork(std::to_string(t), elf, "all_to_all", "state.bin@0x70000");
  auto r = run(tool("ipusim") + " run " + dir.file("p.toml", manifest) + " --threads 2" +
               dumpArgs(dir, tiles, "0x74000:256"));
  ASSERT_EQ(r.status, 0) << r.err;
  expectAllToAll(nlohmann::json::parse(r.out), tiles, dir);
}

TEST(RunProgram, AllToAllIsIdenticalForOneAndTwoThreads) {
  // all_to_all on tiles 0-63: the trace (with every instruction) and the stats do not depend on
  // the number of host threads.
  test::TempDir dir;
  std::string elf = buildImage(dir, "examples/programs/all_to_all.S", "all_to_all");
  std::vector<uint32_t> state{64};
  for (uint32_t t = 0; t < 64; ++t) state.push_back(t);
  writeWords(dir.file("state.bin"), state);
  std::string m = dir.file("p.toml", "tiles = 64\n" + tileWork("\"0-63\"", elf, "all_to_all", "state.bin@0x70000"));
  auto runWith = [&](unsigned threads) {
    std::string trace = dir.file("t" + std::to_string(threads) + ".trace");
    auto r = run(tool("ipusim") + " run " + m + " --threads " + std::to_string(threads) + " --trace " + trace +
                 " --trace-instructions");
    EXPECT_EQ(r.status, 0) << r.err;
    return std::make_pair(r.out, readText(trace));
  };
  auto [stats1, trace1] = runWith(1);
  auto [stats2, trace2] = runWith(2);
  // Everything but the host's own figures (host.seconds, host.cycles_per_second) is identical.
  auto simulated = [](const std::string &text) {
    nlohmann::json j = nlohmann::json::parse(text);
    EXPECT_TRUE(j.contains("host.seconds"));
    j.erase("host.seconds");
    j.erase("host.cycles_per_second");
    return j.dump();
  };
  EXPECT_EQ(nlohmann::json::parse(stats1)["ipu0.cycles"], allToAllCycles(64));
  EXPECT_EQ(simulated(stats1), simulated(stats2));
  EXPECT_GT(trace1.size(), 1000000u); // every instruction of 64 tiles
  EXPECT_TRUE(trace1 == trace2) << "the traces differ";
}

// --- elementwise ---------------------------------------------------------------------------------

TEST(RunProgram, ElementwiseOnEveryTile) {
  // examples/programs/elementwise.toml: VectorAdd_f32 (examples/asm/vector_add.S) on all 1472
  // tiles, 384 float pairs each. Timing as in VectorAddOnThreeTiles with 64 pairs per worker: each
  // worker issues 16 + 1 (rpt) + 4 x 64 + 1 (exitz) = 274 bundles, context k first at 11 + k and
  // exiting 273 turns later, at 1649 + k (1650..1655). The supervisor's first free slot is 1656
  // (context 1's): sync resumes at max(1656, 1655) + 6 = 1662; br $lr returns at 1668. No tile
  // syncs with the others: one compute phase.
  test::TempDir dir;
  std::string elf = buildImage(dir, "examples/asm/vector_add.S", "vector_add");
  std::string m = exampleManifest(dir, "elementwise", "vector_add.elf", elf), stats = dir.file("s.json");
  const std::vector<unsigned> checked{0, 1, 735, 736, 1000, 1471};
  auto r = run(tool("ipusim") + " run " + m + " --threads 2 --stats " + stats + dumpArgs(dir, checked, "0x62000:3072"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(readText(stats));
  EXPECT_EQ(j["ipu0.cycles"], 1668);
  EXPECT_EQ(j["ipu0.sync.count"], 0);
  EXPECT_EQ(j["ipu0.phase.compute.count"], 1);
  EXPECT_EQ(j["ipu0.phase.exchange.count"], 0);
  EXPECT_EQ(j["ipu0.exchange.words_sent"], 0);
  for (unsigned t : {0u, 735u, 1471u}) {
    const std::string p = "ipu0.tile" + std::to_string(t) + ".";
    EXPECT_EQ(j[p + "cycles"], 1668) << t;
    for (unsigned w = 0; w < 6; ++w) EXPECT_EQ(j[p + "worker" + std::to_string(w) + ".bundles"], 274) << t << " " << w;
  }
  const std::vector<float> in0 = readFloats(kExamples + "elementwise_in0.bin", 768),
                           in1 = readFloats(kExamples + "elementwise_in1.bin", 768);
  for (unsigned t : checked) {
    const std::vector<float> out = readFloats(dir.file("d" + std::to_string(t)), 768);
    for (unsigned i = 0; i < 768; ++i) EXPECT_EQ(out[i], in0[i] + in1[i]) << "tile " << t << " word " << i;
  }
}

} // namespace

namespace {

TEST(RunProgram, RunTimeErrorsExitWith2AndLeaveStdoutEmpty) {
  // A deadlock (tile 1 returns while tile 0 waits in sync 3), an exchange word nobody takes, and a
  // simulated exception: each is reported on stderr with exit status 2; stdout stays empty.
  test::TempDir dir;
  std::string obj = dir.file("e.o"), elf = dir.file("e.elf");
  dir.file("e.S", R"(
  .supervisor
  .globl waits
  .globl returns
  .globl sends
  .globl faults
waits:
  sync 3
  br $lr
returns:
  br $lr
sends:
  setzi $m1, 0x70000             // 0
  put $OUTGOING_BASE, $m1        // 6 (waits for $m1)
  send 0, 1, 1                   // 7
  delay 200
  sync 3
  br $lr
faults:
  setzi $m1, 0x70001
  ld32 $m2, $m1, 0
  br $lr
)");
  ASSERT_EQ(run(tool("ipu-as") + " " + dir.file("e.S") + " -o " + obj).status, 0);
  ASSERT_EQ(run(tool("ipu-ld") + " -o " + elf + " " + obj).status, 0);
  auto runWith = [&](const std::string &entry0, const std::string &entry1) {
    std::string m = dir.file("p.toml", "tiles = 2\n[[tile]]\ntiles = 0\nimage = \"e.elf\"\nentry = \"" + entry0 +
                                           "\"\n[[tile]]\ntiles = 1\nimage = \"e.elf\"\nentry = \"" + entry1 + "\"\n");
    auto r = run(tool("ipusim") + " run " + m);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    return r.err;
  };
  EXPECT_EQ(runWith("waits", "returns"),
            "ipusim: deadlock: tiles 0 wait in sync 3 (INTERNAL) from cycle 0, which tiles 1 never reach (they returned)\n");
  EXPECT_EQ(runWith("sends", "waits"),
            "ipusim: exchange: the word tile 0 sent at cycle 7 is selected by no tile's $INCOMING_MUX when it arrives\n");
  std::string fault = runWith("faults", "returns");
  EXPECT_NE(fault.find("ipusim: simulated exception: ipu 0, tile 0, context 0 (supervisor), pc 0x"), std::string::npos)
      << fault;
  EXPECT_NE(fault.find("misaligned 4-byte access at 0x70001"), std::string::npos) << fault;
}

} // namespace

// Systems of IPUs (docs/systems.md): a manifest with `ipu = N` tables on an M2000.
namespace {

// examples/programs/ring_allreduce.S on tiles 0-3 of the 4 IPUs of an M2000, round ring-on-line
// (0 -> 2 -> 3 -> 1 -> 0). IPU i starts with (i + 1) 1000 + k^2 at element k; all end with
// 10000 + 4 k^2. Timing (every tile runs the same instructions): the set-up reaches sync 3 at 42,
// released at 168. A step's `sync 4` issues at S, its last payload word having left at S - 1; the
// packet (16 words, 72 bytes with the header) is at the link interface at S + 64 and takes a link
// for ceil(72 x 1.325e9 / 16e9) = 6 cycles. The rails (ipu0 -> ipu2, ipu3 -> ipu1) have 2 links
// for 4 tiles' packets, so the second pair waits 6 cycles: it arrives at S + 64 + 12 + 1000 and
// is written from S + 1140 to S + 1155; every step's sync completes at S + 1156 (> S + 600).
// Reduce-scatter syncs at 213 (setzi 170, st32 176, sendoff 177, and 179, mul 185, add 191,
// sendoff 197: words 197..212), 1369 + 389 = 1758 and 2914 + 389 = 3303 (389: the 16-word add
// loop of 20 cycles a word, and the next send); releases 1369, 2914, 4459. All-gather syncs at
// 4459 + 379 = 4838, 5994 + 44 = 6038 and 7194 + 44 = 7238; releases 5994, 7194, 8394; then
// add, brnzdec (not taken) and br $lr at 8396: done at 8402.
TEST(RunProgram, RingAllReduceOverAnM2000) {
  test::TempDir dir;
  const std::string elf = buildImage(dir, "examples/programs/ring_allreduce.S", "ring_allreduce");
  const std::string m = exampleManifest(dir, "ring_allreduce_m2000", "ring_allreduce.elf", elf);
  std::string dumps;
  for (unsigned i = 0; i < 4; ++i)
    for (unsigned t = 0; t < 4; ++t)
      dumps += " --dump ipu" + std::to_string(i) + "." + std::to_string(t) + ":0x71000:256:" +
               dir.file("d" + std::to_string(i) + "_" + std::to_string(t));
  for (unsigned threads : {1u, 2u}) {
    auto r = run(tool("ipusim") + " run " + m + " --threads " + std::to_string(threads) + dumps);
    ASSERT_EQ(r.status, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["system.cycles"], 8402);
    EXPECT_EQ(j["system.external_syncs"], 6);
    EXPECT_EQ(j["system.links.packets"], 4 * 4 * 6);
    EXPECT_EQ(j["system.links.payload_bytes"], 96 * 64);
    EXPECT_EQ(j["system.links.link_bytes"], 96 * 72);
    for (const char *link : {"ipu0_to_ipu2", "ipu2_to_ipu3", "ipu3_to_ipu1", "ipu1_to_ipu0"})
      EXPECT_EQ(j[std::string("system.links.") + link + ".busy_cycles"], 24 * 6) << link;
    EXPECT_EQ(j["ipu3.cycles"], 8402);
    EXPECT_EQ(j["ipu3.sync.count"], 7);
    EXPECT_EQ(j["ipu2.tile1.exchange.words_received"], 6 * 16);
    for (unsigned i = 0; i < 4; ++i)
      for (unsigned t = 0; t < 4; ++t) {
        std::vector<uint32_t> w = readWords(dir.file("d" + std::to_string(i) + "_" + std::to_string(t)), 64);
        for (uint32_t k = 0; k < 64; ++k) ASSERT_EQ(w[k], 10000 + 4 * k * k) << i << " " << t << " " << k;
      }
  }
}

// The same program on every tile of a POD16: 16 IPUs x 1472 tiles = 23,552 tiles, round the
// 16-IPU ring-on-line, 15 reduce-scatter and 15 all-gather steps of 256-word vectors (16 chunks of
// 16 words). The code's timing is as on the M2000 above; only the links differ: each rail carries
// 1472 packets a step over its 2 links, 6 cycles each, so the last pair leaves the interface at
// S + 64 + 736 x 6 = S + 4480, arrives at S + 5480 and is written from S + 5544 to S + 5559: each
// sync completes at S + 5560. Releases: 213 + 5560 = 5773; then 14 reduce-scatter steps of
// 389 + 5560: 89059; the first all-gather step + 379 + 5560: 94998; 14 more of 44 + 5560:
// 173454; done 8 cycles later at 173462. Each ring link is busy 30 x 1472 x 6 = 264960 cycles.
TEST(RunProgram, RingAllReduceOnEveryTileOfAPod16) {
  test::TempDir dir;
  const std::string elf = buildImage(dir, "examples/programs/ring_allreduce.S", "ring_allreduce");
  const std::string m = exampleManifest(dir, "ring_allreduce_pod16", "ring_allreduce.elf", elf);
  const std::vector<std::pair<unsigned, unsigned>> probes{{0, 0}, {7, 735}, {15, 1471}, {1, 64}};
  std::string dumps;
  for (auto [i, t] : probes)
    dumps += " --dump ipu" + std::to_string(i) + "." + std::to_string(t) + ":0x71000:1024:" +
             dir.file("d" + std::to_string(i) + "_" + std::to_string(t));
  auto r = run(tool("ipusim") + " run " + m + " --threads 2" + dumps);
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["system.cycles"], 173462);
  EXPECT_EQ(j["system.external_syncs"], 30);
  EXPECT_EQ(j["system.links.packets"], 16 * 1472 * 30);
  EXPECT_EQ(j["system.links.ipu0_to_ipu2.busy_cycles"], 264960);
  EXPECT_EQ(j["system.links.ipu14_to_ipu15.busy_cycles"], 264960);
  EXPECT_EQ(j["ipu9.tile1000.exchange.words_received"], 30 * 16);
  for (auto [i, t] : probes) {
    std::vector<uint32_t> w = readWords(dir.file("d" + std::to_string(i) + "_" + std::to_string(t)), 256);
    for (uint32_t k = 0; k < 256; ++k) ASSERT_EQ(w[k], 136000 + 16 * k) << i << " " << t << " " << k;
  }
}

TEST(RunProgram, SystemManifestErrors) {
  test::TempDir dir;
  const std::string elf = buildImage(dir, "examples/programs/ring_allreduce.S", "r");
  auto err = [&](const std::string &text, const std::string &args = "") {
    auto r = run(tool("ipusim") + " run " + dir.file("p.toml", text) + args);
    EXPECT_EQ(r.status, 1);
    return r.err.substr(r.err.rfind('/') + 1);
  };
  const std::string work = "[[tile]]\nipu = 4\ntiles = 0\nimage = \"" + elf + "\"\nentry = \"ring_allreduce\"\n";
  EXPECT_EQ(err("config = \"m2000\"\ntiles = 2\n" + work), "p.toml:4:7: error: ipu 4 is beyond the 4 IPUs of config 'm2000'\n");
  EXPECT_EQ(err("tiles = 2\n" + work), "p.toml:3:7: error: ipu 4 is beyond the 1 IPUs of config 'mk2'\n");
  const std::string ok = "config = \"m2000\"\ntiles = 2\n[[tile]]\ntiles = 0\nimage = \"" + elf + "\"\nentry = \"ring_allreduce\"\n";
  auto r7 = run(tool("ipusim") + " run " + dir.file("p.toml", ok) + " --dump ipu7.0:0x71000:4:x");
  EXPECT_EQ(r7.status, 1);
  EXPECT_EQ(r7.err, "ipusim: error: --dump ipu7.0:0x71000:4:x: the IPU 7 is out of range (the system has 4 IPUs)\n");
  // A tile that waits in an external sync the other IPU never reaches: exit status 2, both named.
  dir.file("w.S", "  .supervisor\n  .globl w\nw:\n  sync 4\n  br $lr\n  .globl q\nq:\n  br $lr\n");
  ASSERT_EQ(run(tool("ipu-as") + " " + dir.file("w.S") + " -o " + dir.file("w.o")).status, 0);
  ASSERT_EQ(run(tool("ipu-ld") + " -o " + dir.file("w.elf") + " " + dir.file("w.o")).status, 0);
  auto r = run(tool("ipusim") + " run " + dir.file("q.toml", "config = \"m2000\"\ntiles = 1\n" + tileWork("0", "w.elf", "w") +
                                                                  "ipu = 0\n" + tileWork("0", "w.elf", "q") + "ipu = 1\n"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "ipusim: deadlock: ipu0 (tiles 0) wait in sync 4 (EXTERNAL GS1) from cycle 0, which ipu1 never reaches "
                   "(its tiles returned)\n");
}

} // namespace

// MPI scale-out (docs/systems.md "Several processes"): `mpirun -np K ipusim run` splits the IPUs
// over K ranks, which meet at the external syncs; what comes out is the one-process run's, byte
// for byte (statistics but the host's timing, traces, dumps, errors).
namespace {

std::string mpirun(unsigned ranks) {
  // Root may run MPI programs here (CI runs as root); --oversubscribe: more ranks than cores.
  return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 mpirun -np " +
         std::to_string(ranks) + " ";
}

std::string withoutHost(const std::string &json) {
  std::string out;
  std::istringstream in(json);
  for (std::string line; std::getline(in, line);)
    if (line.find("\"host.") == std::string::npos) out += line + "\n";
  return out;
}

TEST(RunProgram, MpiRanksGiveTheOneProcessRunByteForByte) {
  test::TempDir dir;
  const std::string elf = buildImage(dir, "examples/programs/compute_exchange.S", "compute_exchange");
  std::string m = exampleManifest(dir, "compute_exchange_m2000", "compute_exchange.elf", elf);
  // 8 tiles an IPU keep the test short.
  std::string text = readText(m);
  for (size_t at; (at = text.find("\"0-1471\"")) != std::string::npos;) text.replace(at, 8, "\"0-7\"");
  text.replace(text.find("tiles = 1472"), 12, "tiles = 8");
  m = dir.file("small.toml", text);
  auto runWith = [&](const std::string &launch, const std::string &tag) {
    auto r = run(launch + tool("ipusim") + " run " + m + " --threads 1 --trace " + dir.file(tag + ".trace") +
                 " --dump ipu3.7:0x70010:4:" + dir.file(tag + ".bin"));
    EXPECT_EQ(r.status, 0) << tag << " " << r.err;
    EXPECT_EQ(r.err, "") << tag;
    return withoutHost(r.out);
  };
  const std::string one = runWith("", "one");
  for (unsigned ranks : {2u, 4u}) {
    const std::string tag = "mpi" + std::to_string(ranks);
    EXPECT_EQ(runWith(mpirun(ranks), tag), one) << tag;
    // (Not EXPECT_EQ on the texts: a failure would print both traces whole.)
    EXPECT_TRUE(readText(dir.file(tag + ".trace")) == readText(dir.file("one.trace"))) << tag << ": the traces differ";
    EXPECT_EQ(readText(dir.file(tag + ".bin")), readText(dir.file("one.bin"))) << tag;
  }
  EXPECT_NE(one.find("\"system.external_syncs\": 8"), std::string::npos) << one;
  EXPECT_NE(readText(dir.file("one.trace")).find(" link.packet system.links from=ipu2.tile5 to=ipu3.tile5 "), std::string::npos);
}

TEST(RunProgram, MpiErrorsAreTheOneProcessErrors) {
  test::TempDir dir;
  dir.file("w.S", "  .supervisor\n  .globl w\nw:\n  sync 4\n  br $lr\n  .globl q\nq:\n  br $lr\n"
                  "  .globl bad\nbad:\n  ld32 $m1, $mzero, 0\n  br $lr\n");
  ASSERT_EQ(run(tool("ipu-as") + " " + dir.file("w.S") + " -o " + dir.file("w.o")).status, 0);
  ASSERT_EQ(run(tool("ipu-ld") + " -o " + dir.file("w.elf") + " " + dir.file("w.o")).status, 0);
  // ipu0 waits in GS1; ipu3 (on the other rank) returns; ipu2 (the other rank too) faults.
  const std::string deadlock = dir.file("d.toml", "config = \"m2000\"\ntiles = 1\n" + tileWork("0", "w.elf", "w") +
                                                      "ipu = 0\n" + tileWork("0", "w.elf", "q") + "ipu = 3\n");
  const std::string fault = dir.file("f.toml", "config = \"m2000\"\ntiles = 1\n" + tileWork("0", "w.elf", "w") +
                                                   "ipu = 0\n" + tileWork("0", "w.elf", "bad") + "ipu = 2\n");
  for (const std::string &m : {deadlock, fault}) {
    auto one = run(tool("ipusim") + " run " + m);
    auto two = run(mpirun(2) + tool("ipusim") + " run " + m);
    EXPECT_EQ(one.status, 2);
    EXPECT_EQ(two.status, 2);
    // mpirun adds its own notice of a rank's non-zero exit after ipusim's message.
    EXPECT_EQ(two.err.substr(0, one.err.size()), one.err);
    EXPECT_EQ(two.out, "");
  }
  EXPECT_EQ(run(tool("ipusim") + " run " + deadlock).err,
            "ipusim: deadlock: ipu0 (tiles 0) wait in sync 4 (EXTERNAL GS1) from cycle 0, which ipu3 never reaches (its "
            "tiles returned)\n");
  EXPECT_NE(run(tool("ipusim") + " run " + fault).err.find("ipusim: simulated exception: ipu 2, tile 0, context 0"),
            std::string::npos);
  // More ranks than IPUs: a rank runs whole IPUs.
  auto five = run(mpirun(5) + tool("ipusim") + " run " + deadlock);
  EXPECT_EQ(five.status, 1);
  const std::string want = "ipusim: error: 5 MPI ranks for the 4 IPUs of config 'm2000': a rank runs whole IPUs\n";
  EXPECT_EQ(five.err.substr(0, want.size()), want);
}

} // namespace

// The host (docs/systems.md "The host"): host steps at host syncs over the host link's TLM
// transactions, and remote buffers in Streaming Memory.
namespace {

// examples/programs/host_round_trip.S on tile 5 of ipu1 of an M2000 (gateway link: 25 GB/s each
// way, 4000 cycles latency). 256 bytes take ceil(256 x 1.325e9 / 25e9) = ceil(13.57) = 14 cycles
// on the link and 64 at the tile's exchange port (4 B a cycle), together: the port sets the pace.
// Host sync 1: the tile enters sync 5 at 7 (ld32 0, setzi 1, add 6 waits for the load, sync 7);
// the host hears at 7 + 600 = 607 and writes 64 words: done at 607 + 64 + 4000 = 4671, the
// release. The loop (64 words, 25 cycles a word but the last's 20: ld32, shl 6 later, add, st32,
// brnzdec, the taken branch's refill) reaches sync 2 at 4671 + 1595 = 6266; the host, at 6866,
// reads 256 bytes (the port busy to 6930: done 10930) and copies them to the remote buffer, a
// second read of the tile once its port is free (6930..6994, done 10994): release 10994. Host
// sync 3 at once (10994): the copy back, a write, from 11594: done 15658. br $lr: 15664.
TEST(RunProgram, HostRoundTripAndRemoteBufferOverTheGateway) {
  test::TempDir dir;
  const std::string elf = buildImage(dir, "examples/programs/host_round_trip.S", "host_round_trip");
  const std::string m = exampleManifest(dir, "host_round_trip", "host_round_trip.elf", elf);
  auto r = run("cd " + dir.path.string() + " && " + tool("ipusim") + " run " + m + " --trace t.trace --dump ipu1.5:0x72000:256:back.bin");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["system.cycles"], 15664);
  EXPECT_EQ(j["system.host.syncs"], 3);
  EXPECT_EQ(j["system.host.bytes"], 4 * 256);
  const std::vector<uint32_t> out = readWords(dir.file("host_out.bin"), 64), back = readWords(dir.file("back.bin"), 64);
  for (uint32_t k = 0; k < 64; ++k) {
    EXPECT_EQ(out[k], 2 * (1000 + k) + 1) << k;
    EXPECT_EQ(back[k], 2 * (1000 + k) + 1) << k;
  }
  std::string transfers;
  std::istringstream trace(readText(dir.file("t.trace")));
  for (std::string line; std::getline(trace, line);)
    if (line.find(" host.transfer ") != std::string::npos || line.find(" external_sync ") != std::string::npos)
      transfers += line + "\n";
  EXPECT_EQ(transfers,
            "607 host.transfer system.host kind=write tile=ipu1.tile5 addr=0x71000 bytes=256 end_cycle=4671\n"
            "4671 external_sync system.sync zone=5 index=0 last_arrival_cycle=7\n"
            "6866 host.transfer system.host kind=read tile=ipu1.tile5 addr=0x71000 bytes=256 end_cycle=10930\n"
            "6866 host.transfer system.host kind=remote_write tile=ipu1.tile5 addr=0x71000 bytes=256 end_cycle=10994\n"
            "10994 external_sync system.sync zone=5 index=1 last_arrival_cycle=6266\n"
            "11594 host.transfer system.host kind=remote_read tile=ipu1.tile5 addr=0x72000 bytes=256 end_cycle=15658\n"
            "15658 external_sync system.sync zone=5 index=2 last_arrival_cycle=10994\n");
}

// examples/programs/device_iterations.S on tile 2 of ipu3 of an M2000: 4 iterations of 16 words,
// the host steps repeating with them ('every = 2', 'times = 4'). Each host transfer of 64 bytes
// takes 16 cycles at the tile's port (the link's 3.39 is hidden under it) + 4000 latency = 4016;
// the copy into the remote buffer reads the tile again once its port is free: 4032; the stash's
// 256 bytes back: 64 + 4000 = 4064. The tile reaches host sync 1 at 7 (as host_round_trip's), the
// host hears at 607; an iteration's loop takes 401 cycles from the release (add 6, then 15 words
// of 25 and the last of 20, as host_round_trip's); from the output's release the taken brnzdec
// reaches the next sync 6 cycles later; each host transfer starts 600 after the last arrival.
TEST(RunProgram, DeviceIterationsStreamThroughTheHostSteps) {
  test::TempDir dir;
  const std::string elf = buildImage(dir, "examples/programs/device_iterations.S", "device_iterations");
  const std::string m = exampleManifest(dir, "device_iterations", "device_iterations.elf", elf);
  auto r = run("cd " + dir.path.string() + " && " + tool("ipusim") + " run " + m +
               " --trace t.trace --dump ipu3.2:0x73000:256:stash.bin");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["system.host.syncs"], 9);
  EXPECT_EQ(j["system.host.bytes"], 4 * 3 * 64 + 256);
  EXPECT_EQ(j["system.cycles"], 43286 + 6); // br $lr after the last release
  // Iteration k's words are 100 k + i; each comes back as 2 x + 1, appended to the output file and
  // to the stash in iteration order.
  const std::vector<uint32_t> out = readWords(dir.file("iterations_out.bin"), 64), stash = readWords(dir.file("stash.bin"), 64);
  for (uint32_t w = 0; w < 64; ++w) {
    EXPECT_EQ(out[w], 2 * (100 * (w / 16) + w % 16) + 1) << w;
    EXPECT_EQ(stash[w], out[w]) << w;
  }
  std::string transfers;
  std::istringstream trace(readText(dir.file("t.trace")));
  for (std::string line; std::getline(trace, line);)
    if (line.find(" host.transfer ") != std::string::npos && line.find("kind=read") != std::string::npos) transfers += line + "\n";
  // The outputs at host syncs 2, 4, 6, 8: arrivals 4623 + 401 = 5024, then (+ 600 + 4032 + 6 to
  // the next input's arrival, + 600 + 4016 + 401 to the output's) every 9655 cycles.
  EXPECT_EQ(transfers,
            "5624 host.transfer system.host kind=read tile=ipu3.tile2 addr=0x72000 bytes=64 end_cycle=9640\n"
            "15279 host.transfer system.host kind=read tile=ipu3.tile2 addr=0x72000 bytes=64 end_cycle=19295\n"
            "24934 host.transfer system.host kind=read tile=ipu3.tile2 addr=0x72000 bytes=64 end_cycle=28950\n"
            "34589 host.transfer system.host kind=read tile=ipu3.tile2 addr=0x72000 bytes=64 end_cycle=38605\n");
  EXPECT_NE(readText(dir.file("t.trace")).find("39222 host.transfer system.host kind=remote_read tile=ipu3.tile2 addr=0x73000 "
                                               "bytes=256 end_cycle=43286\n"),
            std::string::npos);

  // Without 'bytes' the write sends the whole file every time: each iteration gets iteration 0's
  // words (the file's first 16), so every output block is the first one's.
  std::string whole = readText(m);
  whole.replace(whole.find("write = \"iterations_in.bin\"\nbytes = 64\n"), 39, "write = \"iterations_in.bin\"\n");
  auto again = run("cd " + dir.path.string() + " && " + tool("ipusim") + " run " + dir.file("whole.toml", whole));
  ASSERT_EQ(again.status, 0) << again.err;
  const std::vector<uint32_t> same = readWords(dir.file("iterations_out.bin"), 64);
  for (uint32_t w = 0; w < 64; ++w) EXPECT_EQ(same[w], 2 * (w % 16) + 1) << w;

  // Without 'times' the input stream runs dry at host sync 9: a stream overrun, after the run.
  std::string text = readText(m);
  text.replace(text.find("times = 4\nwrite"), 10, "");
  auto dry = run("cd " + dir.path.string() + " && " + tool("ipusim") + " run " + dir.file("dry.toml", text));
  EXPECT_EQ(dry.status, 2);
  EXPECT_EQ(dry.err.substr(dry.err.find("dry.toml")),
            "dry.toml:22:1: error: host step write " + dir.file("iterations_in.bin") +
                ": stream overrun: host sync 9 wants bytes 256..320 of the file, which has 256\n");
}

TEST(RunProgram, HostStepErrors) {
  test::TempDir dir;
  const std::string elf = buildImage(dir, "examples/programs/host_round_trip.S", "h");
  writeWords(dir.file("n.bin"), {4});
  writeWords(dir.file("in.bin"), {1, 2, 3, 4});
  const std::string head = "config = \"m2000\"\ntiles = 2\n[[tile]]\ntiles = 0\nimage = \"" + elf +
                           "\"\nentry = \"host_round_trip\"\nvertex_base = 0x70000\nload = [\"n.bin@0x70000\"]\n";
  auto err = [&](const std::string &text, int status = 1, const std::string &config = "") {
    std::string t = text;
    if (!config.empty()) t.replace(t.find("m2000"), 5, config);
    auto r = run(tool("ipusim") + " run " + dir.file("p.toml", t));
    EXPECT_EQ(r.status, status) << r.err;
    return r.err.substr(r.err.find("p.toml") == std::string::npos ? 0 : r.err.find("p.toml"));
  };
  const std::string step = "[[host]]\nsync = 1\nwrite = \"in.bin\"\nipu = 0\ntile = 0\n";
  EXPECT_EQ(err(head + step + "addr = 0xe7ff8\n"),
            "p.toml:9:1: error: host step: 0xe7ff8..0xe8008 is outside tile memory 0x4c000..0xe8000\n");
  EXPECT_EQ(err(head + "[[host]]\nsync = 1\nipu = 0\n"),
            "p.toml:9:1: error: a [[host]] step needs one of 'write', 'read', 'remote_write', 'remote_read'\n");
  EXPECT_EQ(err(head + "[[remote_buffer]]\nname = \"b\"\nbytes = 64\n[[host]]\nsync = 1\nremote_read = \"b\"\noffset = 32\n"
                       "bytes = 64\nipu = 0\ntile = 0\naddr = 0x71000\n"),
            "p.toml:12:1: error: host step: bytes 32..96 are beyond remote buffer 'b' of 64 bytes\n");
  EXPECT_EQ(err(head + "[[host]]\nsync = 1\nremote_read = \"nope\"\nbytes = 4\nipu = 0\ntile = 0\naddr = 0x71000\n"),
            "p.toml:9:1: error: host step: no remote buffer 'nope'\n");
  EXPECT_EQ(err(head + "[[remote_buffer]]\nname = \"b\"\nbytes = 64\n", 1, "mk2"),
            "p.toml:9:1: error: remote buffer 'b': config 'mk2' has no Streaming Memory (host.streaming_memory_bytes = "
            "0: the host is a PCIe card)\n");
  EXPECT_EQ(err(head + step + "addr = 0x71000\ntimes = 2\n"),
            "p.toml:9:1: error: 'times' needs 'every' (how many host syncs apart the times are)\n");
  EXPECT_EQ(err(head + step + "addr = 0x71000\nbytes = 20\n"),
            "p.toml:9:1: error: host step write " + dir.file("in.bin") + ": 'bytes' = 20 but the file has 16\n");
  // The program makes 3 host syncs; a step at the 4th never runs: after the run, status 2.
  EXPECT_EQ(err(head + "[[host]]\nsync = 4\nwrite = \"in.bin\"\nipu = 0\ntile = 0\naddr = 0x71000\n", 2),
            "p.toml:9:1: error: host step: it waits for host sync 4, but the program made 3 (sync 5 or 7)\n");
}

} // namespace
