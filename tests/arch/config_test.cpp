// Machine configs: the shipped files load with the values of ipu-facts, and every kind of bad
// input is an error naming file, line, column and key.
#include "TestUtil.h"

#include "ipusim/arch/Config.h"

#include <gtest/gtest.h>

using namespace ipusim;
using arch::ConfigError;
using arch::loadConfig;

namespace {

std::string configDir() { return std::string(IPUSIM_SOURCE_DIR) + "/arch/configs"; }

TEST(Config, Mk2MatchesTheFacts) {
  arch::SystemConfig c = loadConfig(configDir() + "/mk2.toml");
  EXPECT_EQ(c.name, "mk2");
  EXPECT_EQ(c.ipus, 1u);
  EXPECT_EQ(c.ipu.tiles, 1472u);            // [F] S11
  EXPECT_DOUBLE_EQ(c.ipu.clockHz, 1.325e9); // [D] S12
  EXPECT_EQ(c.tile.workerContexts, 6u);     // [F] S3
  EXPECT_EQ(c.tile.memoryBase, 0x4C000u);   // [F] S6
  EXPECT_EQ(c.tile.memorySize, 624u * 1024);
  EXPECT_EQ(c.tile.memoryEnd(), 0xE8000u);
  EXPECT_EQ(c.tile.elementSize, 16384u);
  ASSERT_EQ(c.tile.regions.size(), 2u);
  EXPECT_TRUE(c.tile.regions[0].executable);
  EXPECT_EQ(c.tile.regions[0].end, 0x80000u);
  EXPECT_EQ(c.tile.regions[1].interleave, 2u);
  EXPECT_EQ(c.tile.regionOf(0x7FFFC), &c.tile.regions[0]);
  EXPECT_EQ(c.tile.regionOf(0x80000), &c.tile.regions[1]);
  EXPECT_EQ(c.tile.regionOf(0xE8000), nullptr);
  EXPECT_EQ(c.exchange.bytesPerCyclePerTile, 4u);
  EXPECT_EQ(c.links.linksPerIpu, 10u);
  EXPECT_EQ(c.host.kind, "pcie");
}

TEST(Config, SystemsInheritTheChip) {
  arch::SystemConfig m = loadConfig(configDir() + "/m2000.toml");
  EXPECT_EQ(m.ipus, 4u);
  EXPECT_EQ(m.ipu.tiles, 1472u);
  EXPECT_EQ(m.host.kind, "gateway");
  EXPECT_EQ(m.totalTiles(), 4u * 1472);
  EXPECT_EQ(loadConfig(configDir() + "/pod16.toml").ipus, 16u);
  arch::SystemConfig p = loadConfig(configDir() + "/pod64.toml");
  EXPECT_EQ(p.ipus, 64u);
  EXPECT_EQ(p.topology, "2d-torus");
  EXPECT_EQ(p.ipusPerChassis, 4u);
}

TEST(Config, NamedConfigsAreFoundNextToTheTools) {
  EXPECT_EQ(arch::loadNamedConfig("pod16").name, "pod16");
  try {
    arch::loadNamedConfig("mk3");
    FAIL();
  } catch (const ConfigError &e) {
    EXPECT_NE(std::string(e.what()).find("mk3: error: no such machine config"), std::string::npos) << e.what();
  }
}

/// Loads `text` (inheriting mk2 so that only the tested key matters) and returns the error.
std::string errorOf(const std::string &text) {
  test::TempDir dir;
  std::string mk2 = dir.file("mk2.toml");
  std::filesystem::copy_file(configDir() + "/mk2.toml", mk2);
  std::string path = dir.file("bad.toml", text);
  try {
    loadConfig(path);
  } catch (const ConfigError &e) {
    std::string msg = e.what(), prefix = dir.path.string() + "/";
    for (size_t p; (p = msg.find(prefix)) != std::string::npos;) msg.erase(p, prefix.size());
    return msg;
  }
  return "";
}

TEST(Config, UnknownKey) {
  EXPECT_EQ(errorOf("inherits = \"mk2\"\n[tile]\nworkers = 6\n"), "bad.toml:3:1: error: unknown key 'tile.workers'");
  EXPECT_EQ(errorOf("inherits = \"mk2\"\n[tiles]\nx = 1\n"), "bad.toml:2:2: error: unknown table 'tiles'");
}

TEST(Config, WrongType) {
  EXPECT_EQ(errorOf("inherits = \"mk2\"\n[ipu]\ntiles = \"many\"\n"),
            "bad.toml:3:9: error: key 'ipu.tiles' must be an integer");
  EXPECT_EQ(errorOf("inherits = \"mk2\"\n[tile.region]\n"), "bad.toml:2:7: error: unknown table 'tile.region'");
}

TEST(Config, OutOfRange) {
  EXPECT_EQ(errorOf("inherits = \"mk2\"\n[tile]\nworker_contexts = 0\n"),
            "bad.toml:3:19: error: key 'tile.worker_contexts' is out of range: 0 is not in [1, 16]");
}

TEST(Config, MissingKeyAndSyntaxError) {
  EXPECT_EQ(errorOf("name = \"x\"\n"), "bad.toml:1:1: error: missing key 'exchange.bytes_per_cycle_per_tile'");
  EXPECT_NE(errorOf("inherits = \"mk2\"\n[ipu\n").find("bad.toml:2:"), std::string::npos);
  EXPECT_EQ(errorOf("inherits = \"nothere\"\n"),
            "bad.toml:1:12: error: inherited config 'nothere' is neither beside this file (nothere.toml) nor built in (" +
                arch::configDirectory() + "/nothere.toml)");
}

// `inherits = "mk2"` from a folder without mk2.toml finds the built-in one (issue 14); a config
// the exchange model cannot place is refused with the reason.
TEST(Config, InheritsTheBuiltInConfigsFromAnyFolder) {
  test::TempDir dir;
  const arch::SystemConfig c = arch::loadConfig(dir.file("row.toml", "inherits = \"mk2\"\nname = \"row\"\n[ipu]\ntiles = 64\n"));
  EXPECT_EQ(c.name, "row");
  EXPECT_EQ(c.ipu.tiles, 64u);
  EXPECT_EQ(c.tile.memorySize, arch::loadNamedConfig("mk2").tile.memorySize);
  try {
    arch::loadConfig(dir.file("cols.toml", "inherits = \"mk2\"\n[ipu]\ncolumns = 8\n"));
    ADD_FAILURE() << "8 columns loaded";
  } catch (const ConfigError &e) {
    EXPECT_NE(std::string(e.what()).find("the exchange model knows the GC200's floor plan only"), std::string::npos) << e.what();
  }
}

TEST(Config, InconsistentRegions) {
  EXPECT_EQ(errorOf("inherits = \"mk2\"\n[tile]\nmemory_size = 524288\n"),
            "bad.toml:1:1: error: the tile regions do not cover tile.memory_base .. tile.memory_base + tile.memory_size");
}

} // namespace
