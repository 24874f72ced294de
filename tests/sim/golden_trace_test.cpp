// Golden traces (traces/README.md): each known run, re-run now, must give its committed trace
// event for event (ipu-trace diff, no tolerance), for one host thread and for two.
#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace ipusim::test;

namespace {

TEST(GoldenTrace, RingShiftOnEightTilesIsUnchanged) {
  TempDir dir;
  std::string obj = dir.file("r.o"), elf = dir.file("ring_shift.elf");
  ASSERT_EQ(run(tool("ipu-as") + " " IPUSIM_SOURCE_DIR "/examples/programs/ring_shift.S -o " + obj).status, 0);
  ASSERT_EQ(run(tool("ipu-ld") + " -o " + elf + " " + obj).status, 0);
  dir.file("n.bin", std::string("\x08\x00\x00\x00", 4));
  std::string m = dir.file("p.toml", "tiles = 8\n[[tile]]\ntiles = \"0-7\"\nimage = \"ring_shift.elf\"\n"
                                     "entry = \"ring_shift\"\nvertex_base = 0x70000\nload = [\"n.bin@0x70000\"]\n");
  for (const char *threads : {"1", "2"}) {
    std::string trace = dir.file(std::string("t") + threads + ".trace");
    auto r = run(tool("ipusim") + " run " + m + " --threads " + threads + " --trace " + trace + " --trace-instructions");
    ASSERT_EQ(r.status, 0) << r.err;
    auto d = run(tool("ipu-trace") + " diff " IPUSIM_SOURCE_DIR "/traces/ring_shift.trace " + trace);
    EXPECT_EQ(d.status, 0) << d.out << d.err;
  }
}

} // namespace
