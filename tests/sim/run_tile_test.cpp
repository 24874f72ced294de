// ipusim run-tile end to end: the tools assemble and link, the simulator runs, and its JSON,
// dumps, trace, exception report and exit statuses are checked.
#include "TestUtil.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace ipusim;
using test::run;
using test::tool;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Built {
  test::TempDir dir;
  std::string elf;
};

/// Assembles and links `source` with the tools.
void build(Built &b, const std::string &source) {
  std::string src = b.dir.file("p.s", source), obj = b.dir.file("p.o");
  b.elf = b.dir.file("p.elf");
  auto r = run(tool("ipu-as") + " " + src + " -o " + obj);
  ASSERT_EQ(r.status, 0) << r.err;
  r = run(tool("ipu-ld") + " -o " + b.elf + " " + obj);
  ASSERT_EQ(r.status, 0) << r.err;
}

TEST(RunTile, WorkerModeStatsLoadsDumpsAndTrace) {
  Built b;
  build(b, R"(
  .globl w
w:
  ld32 $m0, $mvertex_base, 0
  add $m0, $m0, 1
  st32 $m0, $mvertex_base, 1
  exitnz $mzero
)");
  std::string in = b.dir.file("in.bin", std::string("\x29\x00\x00\x00", 4)), out = b.dir.file("out.bin"),
              trace = b.dir.file("trace.txt");
  auto r = run(tool("ipusim") + " run-tile " + b.elf + " --entry w --mode worker --vertex-base 0x70000 --load " + in +
               "@0x70000 --dump 0x70004:4:" + out + " --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  // Four worker bundles at 18, 24, 30, 36 (exit); sync resumes at 42; br $lr: 48
  // (docs/tile-timing.md; the same derivation as tests/sim/timing_test.cpp).
  // The statistics have `ipusim run`'s shape (issue 14), and the host's figures.
  EXPECT_EQ(j["ipu0.cycles"], 48);
  EXPECT_EQ(j["ipu0.tile0.cycles"], 48);
  EXPECT_EQ(j["ipu0.tile0.exit_status"], 0); // exitnz $mzero: false
  EXPECT_EQ(j["ipu0.tile0.supervisor.bundles"], 5);
  EXPECT_EQ(j["ipu0.tile0.worker0.bundles"], 4);
  EXPECT_EQ(j["ipu0.tile0.worker0.stall_cycles"], 1);
  EXPECT_FALSE(j.contains("ipu0.tile0.worker1.bundles"));
  EXPECT_GT(j["host.seconds"].get<double>(), 0.0);
  EXPECT_NEAR(j["host.cycles_per_second"].get<double>(), 48 / j["host.seconds"].get<double>(), 1e-6 * j["host.cycles_per_second"].get<double>());
  EXPECT_EQ(readFile(out), std::string("\x2a\x00\x00\x00", 4));
  // The canonical trace (docs/trace-format.md) with every issue: the launcher's setzi at 0 and 1,
  // run at 7 (it waits for $m2: no forwarding), which starts worker 0; sync 2 at 13; the worker's
  // four bundles as above, its exit at 36; br $lr at 42 and the return at 48.
  EXPECT_EQ(readFile(trace), R"(ipusim-trace 1
config name=mk2 clock_hz=1325000000 ipus=1 tiles=1
0 tile.begin ipu0.tile0.supervisor pc=0x1fff00 m0=0x0
0 issue ipu0.tile0.supervisor pc=0x1fff00 insn="setzi $m1, 0x4c000"
1 issue ipu0.tile0.supervisor pc=0x1fff04 insn="setzi $m2, 0x24000"
7 issue ipu0.tile0.supervisor pc=0x1fff08 insn="run $m1, $m2, 0"
7 vertex.begin ipu0.tile0.worker0 pc=0x4c000 vertex_base=0x70000 symbol=w
13 issue ipu0.tile0.supervisor pc=0x1fff0c insn="sync 2"
18 issue ipu0.tile0.worker0 pc=0x4c000 insn="ld32 $m0, $mvertex_base, $mzero, 0"
24 issue ipu0.tile0.worker0 pc=0x4c004 insn="add $m0, $m0, 1"
30 issue ipu0.tile0.worker0 pc=0x4c008 insn="st32 $m0, $mvertex_base, $mzero, 1"
36 issue ipu0.tile0.worker0 pc=0x4c00c insn="exitnz $mzero"
36 vertex.end ipu0.tile0.worker0 status=0
42 issue ipu0.tile0.supervisor pc=0x1fff10 insn="br $lr"
48 tile.end ipu0.tile0.supervisor
)");
}

TEST(RunTile, SimulatedExceptionExitsWith2) {
  Built b;
  build(b, "  .globl w\nw:\n  setzi $m0, 0x70001\n  ld32 $m1, $m0, 0\n  exitz $mzero\n");
  auto r = run(tool("ipusim") + " run-tile " + b.elf + " --entry w --mode multi");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("ipusim: simulated exception: ipu 0, tile 0, context "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("pc 0x4c004 (ld32 $m1, $m0, $mzero, 0) at " + b.dir.file("p.s") +
                       ":4:3: misaligned 4-byte access at 0x70001"),
            std::string::npos)
      << r.err;
}

TEST(RunTile, BadInputIsAClearErrorWithStatus1) {
  Built b;
  build(b, "  .globl w\nw:\n  exitz $mzero\n");
  auto r = run(tool("ipusim") + " run-tile " + b.elf + " --entry nosuch");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, b.elf + ": error: no symbol 'nosuch'\n");
  r = run(tool("ipusim") + " run-tile " + b.elf + " --entry w --mode worker --load " + b.dir.file("missing.bin") + "@0x70000");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, b.dir.file("missing.bin") + ": error: no such file\n");
  r = run(tool("ipusim") + " run-tile " + b.elf + " --entry w --mode worker --dump 0xE8000:4:" + b.dir.file("x"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "ipusim: error: --dump 0xE8000:4:" + b.dir.file("x") +
                       ": 0xe8000..0xe8004 is outside tile memory 0x4c000..0xe8000\n");
  r = run(tool("ipusim") + " run-tile " + b.dir.file("p.o") + " --entry w");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, b.dir.file("p.o") + ": error: not a linked tile image (link it with ipu-ld)\n");
  r = run(tool("ipusim") + " run-tile " + b.elf + " --entry w --mode worker --vertex-base zz");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "ipusim: error: --vertex-base: 'zz' is not a number\n");
  // A program that never returns is stopped, not waited for.
  Built spin;
  build(spin, "  .globl w\nw:\n  bri w\n");
  // A worker that loops forever is named, with its pc (issue 14: it was reported as the
  // supervisor's launcher never returning).
  r = run(tool("ipusim") + " run-tile " + spin.elf + " --entry w --mode worker --max-cycles 10000");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("context 1 (worker 1), pc 0x4c000 (bri 0x4c000)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("still running after 10000 cycles (the run's limit): a worker that never exits?"), std::string::npos)
      << r.err;
  // A supervisor that loops forever: the supervisor.
  Built spinSupervisor;
  build(spinSupervisor, "  .supervisor\n  .globl w\nw:\n  bri w\n");
  r = run(tool("ipusim") + " run-tile " + spinSupervisor.elf + " --entry w --mode supervisor --max-cycles 10000");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("context 0 (supervisor)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no return to the caller within 10000 cycles"), std::string::npos) << r.err;
  // Negative counts are errors, not 2^64 - 5 (issue 14: that turned the cycle limit off).
  r = run(tool("ipusim") + " run-tile " + spin.elf + " --entry w --mode worker --max-cycles -5");
  EXPECT_EQ(r.status, 105);
  EXPECT_NE(r.err.find("--max-cycles: '-5' is not a whole number of 0 or more"), std::string::npos) << r.err;
  // The object knows each function's mode (issue 14: worker code started as the supervisor
  // failed at its first instruction with a CSR error).
  r = run(tool("ipusim") + " run-tile " + spin.elf + " --entry w --mode supervisor");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, spin.elf + ": error: entry 'w' is worker code (assembled after .worker): use --mode worker (one worker) "
                              "or --mode multi (all six)\n");
  r = run(tool("ipusim") + " run-tile " + spinSupervisor.elf + " --entry w --mode multi");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, spinSupervisor.elf + ": error: entry 'w' is supervisor code (assembled after .supervisor): use --mode supervisor\n");
}

std::vector<uint8_t> bytesOf(const std::string &file) {
  std::ifstream in(file, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// ipusim pack-state: raw words, and fields by the layout ipu-cc recorded (issue 14: nobody
// writes struct.pack by hand).
TEST(PackState, RawWordsAndFieldsByLayout) {
  test::TempDir d;
  auto r = run(tool("ipusim") + " pack-state -o " + d.file("w.bin") + " 0x60000 7 -1 2.5");
  ASSERT_EQ(r.status, 0) << r.err;
  // 2.5f = 0x40200000; -1 = 0xffffffff; all little-endian.
  EXPECT_EQ(bytesOf(d.file("w.bin")), (std::vector<uint8_t>{0x00, 0x00, 0x06, 0x00, 7, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
                                                            0x00, 0x00, 0x20, 0x40}));
  // examples/codelets/vector_add.cpp: a (SPAN: pointer, count), b and out (ONE_PTR).
  const std::string obj = d.file("v.o");
  ASSERT_EQ(run(tool("ipu-cc") + " -c " + IPUSIM_SOURCE_DIR "/examples/codelets/vector_add.cpp -o " + obj).status, 0);
  const std::string data = d.file("a.bin", std::string(40, 'x')); // 10 floats
  r = run(tool("ipusim") + " pack-state --layout " + obj + " --vertex VectorAdd -o " + d.file("s.bin") + " a=" + data +
          "@0x60000 b=0x61000 out=0x62008");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(bytesOf(d.file("s.bin")), (std::vector<uint8_t>{0x00, 0x00, 0x06, 0x00, 10, 0, 0, 0, 0x00, 0x10, 0x06, 0x00,
                                                            0x08, 0x20, 0x06, 0x00}));
  // Errors name the field and the problem.
  auto err = [&](const std::string &args) {
    auto e = run(tool("ipusim") + " pack-state --layout " + obj + " --vertex VectorAdd -o " + d.file("e.bin") + " " + args);
    EXPECT_EQ(e.status, 1) << args;
    return e.err;
  };
  EXPECT_EQ(err("a=0x60000:4 b=0x61000"), "ipusim pack-state: error: VectorAdd: no value for out\n");
  EXPECT_EQ(err("a=0x60000:4 b=0x61000 out=0x62000 c=1"), "ipusim pack-state: error: VectorAdd has no field 'c'\n");
  EXPECT_EQ(err("a=0x60000 b=0x61000 out=0x62000"),
            "ipusim pack-state: error: field 'a' (Input SPAN of float): a SPAN field needs a count: ADDR:COUNT or FILE@ADDR\n");
  EXPECT_EQ(err("a=0x60000:4 b=0x61004 out=0x62000"),
            "ipusim pack-state: error: field 'b' (Input ONE_PTR of float): the data must be 8-byte aligned, not at 0x61004\n");
  EXPECT_EQ(err("a=0x60000:4 b=zz out=0x62000"),
            "ipusim pack-state: error: field 'b' (Input ONE_PTR of float): the address 'zz' is not a number\n");
  auto nov = run(tool("ipusim") + " pack-state --layout " + obj + " --vertex Nope -o " + d.file("e.bin") + " a=1");
  EXPECT_EQ(nov.err, obj + ": error: no vertex 'Nope' (it has: VectorAdd)\n");
}

// Every tool given a directory where it reads a file names it and says what it wanted (issue 14:
// some printed "basic_filebuf::underflow error reading the file", ipu-cc printed clang's warnings).
TEST(Tools, ADirectoryIsNamed) {
  test::TempDir d;
  const std::string dir = d.path.string();
  const std::pair<std::string, std::string> cases[] = {
      {tool("ipu-as") + " " + dir + " -o " + d.file("x.o"), "an assembly file"},
      {tool("ipu-cc") + " -c " + dir + " -o " + d.file("x.o"), "a C++ source file"},
      {tool("ipu-ld") + " " + dir + " -o " + d.file("x.elf"), "an ELF file"},
      {tool("ipu-objdump") + " -d " + dir, "an ELF file"},
      {tool("ipu-trace") + " show " + dir, "a trace"},
      {tool("ipusim") + " run " + dir, "a program manifest (.toml)"},
      {tool("ipusim") + " run-tile " + dir + " --entry w", "an ELF file"},
      // Once "error:", not "ipusim bench: error: DIR: error: ..." (issue 14).
      {tool("ipusim") + " bench --config " + dir, "a machine config (.toml)"},
  };
  for (const auto &[command, what] : cases) {
    const test::ToolResult r = test::run(command);
    EXPECT_NE(r.status, 0) << command;
    EXPECT_EQ(r.err, dir + ": error: is a directory, not " + what + "\n") << command;
  }
}

} // namespace
