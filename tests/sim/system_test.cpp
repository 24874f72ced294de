// Systems of IPUs: the IPU-Link topologies of arch/configs, inter-IPU packets over the links
// (timing, contention, routing, every link of an M2000 and a POD16 word by word), external syncs
// across IPUs, determinism for any thread count, and the errors (docs/systems.md).
#include "SimUtil.h"

#include "ipusim/arch/Topology.h"
#include "ipusim/sim/System.h"

#include <gtest/gtest.h>

#include <map>

using namespace ipusim;
using namespace ipusim::test;

namespace {

arch::SystemConfig config(const std::string &name) { return arch::loadNamedConfig(name); }

// --- topology ---------------------------------------------------------------------------------

TEST(Topology, M2000IsTwoRungsJoinedByTheRails) {
  const arch::SystemConfig c = config("m2000");
  arch::Topology t(c);
  ASSERT_EQ(t.connections().size(), 4u);
  EXPECT_GE(t.connectionBetween(0, 1), 0);
  EXPECT_GE(t.connectionBetween(2, 3), 0);
  EXPECT_GE(t.connectionBetween(0, 2), 0);
  EXPECT_GE(t.connectionBetween(1, 3), 0);
  EXPECT_EQ(t.connectionBetween(0, 3), -1);
  EXPECT_EQ(t.connections()[size_t(t.connectionBetween(0, 1))].links, c.links.rungLinks);
  EXPECT_EQ(t.connections()[size_t(t.connectionBetween(0, 2))].links, c.links.railLinks);
  EXPECT_EQ(t.linksUsed(0), c.links.rungLinks + c.links.railLinks);
  // ipu0 -> ipu3: up the rail to ipu2, then across the rung.
  auto r = t.route(0, 3);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].from, 0u);
  EXPECT_EQ(r[0].to, 2u);
  EXPECT_EQ(r[1].to, 3u);
  EXPECT_TRUE(t.route(2, 2).empty());
  EXPECT_EQ(t.rings("ring-on-line"), (std::vector<std::vector<unsigned>>{{0, 2, 3, 1}}));
  EXPECT_EQ(t.ringNames(), std::vector<std::string>{"ring-on-line"});
}

TEST(Topology, Pod16IsATorusAndEveryRingStepIsOneHop) {
  arch::Topology t(config("pod16"));
  // 8 rungs, 2 x 7 rails, 2 wraps.
  EXPECT_EQ(t.connections().size(), 8u + 14u + 2u);
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(t.linksUsed(i), 6u + 2u + 2u) << i;
  // Round the wrap: ipu0 to ipu14 is one hop, ipu1 to ipu12 two (down the odd rail to ipu13, across).
  EXPECT_EQ(t.route(0, 14).size(), 1u);
  auto r = t.route(1, 12);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].to, 15u);
  EXPECT_EQ(r[1].to, 13u);
  EXPECT_EQ(r[2].to, 12u);
  EXPECT_EQ(t.ringNames(), (std::vector<std::string>{"ring-on-line", "rung-ring-2", "rung-ring-4", "rung-ring-8"}));
  // Every step of every ring goes along one rail (or is ring-on-line's step to a neighbour): the
  // route between consecutive IPUs never crosses a rung, except ring-on-line's two end rungs.
  for (const std::string &name : t.ringNames())
    for (const std::vector<unsigned> &ring : t.rings(name))
      for (size_t k = 0; k < ring.size(); ++k) {
        const unsigned a = ring[k], b = ring[(k + 1) % ring.size()];
        if (name == "ring-on-line") {
          EXPECT_GE(t.connectionBetween(a, b), 0) << name << " " << k;
          continue;
        }
        EXPECT_EQ(a % 2, b % 2) << name;
        EXPECT_EQ(t.route(a, b).size(), std::stoul(name.substr(10)) / 2) << name << " " << a << " -> " << b;
      }
  EXPECT_EQ(t.rings("rung-ring-2"), (std::vector<std::vector<unsigned>>{{0, 2, 4, 6, 8, 10, 12, 14}, {1, 3, 5, 7, 9, 11, 13, 15}}));
  ASSERT_EQ(t.rings("rung-ring-8").size(), 8u);
  EXPECT_EQ(t.rings("rung-ring-8")[3], (std::vector<unsigned>{3, 11}));
  EXPECT_THROW(t.rings("ring-of-fire"), arch::ConfigError);
  EXPECT_THROW(t.route(0, 16), std::out_of_range);
}

TEST(Topology, ValidationNamesTheProblem) {
  arch::SystemConfig c = config("pod16");
  c.links.railLinks = 5; // 6 + 5 + 5
  try {
    arch::Topology t(c);
    FAIL();
  } catch (const arch::ConfigError &e) {
    EXPECT_STREQ(e.what(), "pod16: error: topology '2d-torus': IPU 0 needs 16 IPU-Links but has 10 (links.links_per_ipu)");
  }
  c = config("m2000");
  c.topology = "hypercube";
  EXPECT_THROW(arch::Topology{c}, arch::ConfigError);
  c = config("mk2");
  c.ipus = 2;
  EXPECT_THROW(arch::Topology{c}, arch::ConfigError);
}

// --- packets and external syncs -----------------------------------------------------------------

/// A sender: its packets' words at 0x70000 ($m0), sent in sends of at most 64 words with no
/// direction (to the external exchange); then the external sync GS1 and return.
std::string sender(unsigned words) {
  std::string s = "  .supervisor\n  .globl s\ns:\n  put $OUTGOING_BASE, $m0\n";
  for (unsigned at = 0; at < words; at += 64)
    s += "  send " + std::to_string(4 * at) + ", " + std::to_string(std::min(64u, words - at)) + ", 0\n";
  return s + "  sync 4\n  br $lr\n";
}
const char *kWaiter = "  .supervisor\n  .globl s\ns:\n  sync 4\n  br $lr\n";

struct SystemRun {
  std::vector<std::unique_ptr<cc::ObjectFile>> images; // outlive the tiles
  std::unique_ptr<sim::System> system;
  sim::SystemStats stats;
  std::vector<sim::TraceEvent> trace;
};

/// Runs `programs[{ipu, tile}]` with `words[{ipu, tile}]` at 0x70000 on a system of `cfg`.
SystemRun runSystem(const arch::SystemConfig &cfg, unsigned tiles, const std::map<std::pair<unsigned, unsigned>, std::string> &programs,
                    const std::map<std::pair<unsigned, unsigned>, std::vector<uint32_t>> &words, unsigned threads = 1) {
  SystemRun r;
  r.system = std::make_unique<sim::System>(cfg, tiles);
  r.system->setTracing(true, false);
  for (const auto &[at, program] : programs) {
    r.images.push_back(std::make_unique<cc::ObjectFile>(cc::link({{"t.o", assemble(program)}}, cfg.tile)));
    sim::Ipu &ipu = r.system->ipu(at.first);
    sim::loadImage(ipu.tile(at.second), *r.images.back(), "t.elf");
    if (auto w = words.find(at); w != words.end())
      for (size_t i = 0; i < w->second.size(); ++i) ipu.tile(at.second).memory().write<uint32_t>(0x70000 + 4 * uint32_t(i), w->second[i]);
    ipu.start(at.second, r.images.back()->symbols[size_t(r.images.back()->findSymbol("s"))].value, 0x70000);
  }
  r.stats = r.system->run(threads);
  r.trace = r.system->takeTrace();
  return r;
}

std::vector<uint32_t> packetWords(unsigned ipu, unsigned tile, uint32_t addr, const std::vector<uint32_t> &payload) {
  std::vector<uint32_t> w{sim::packet::header(ipu, tile, unsigned(payload.size())), addr};
  w.insert(w.end(), payload.begin(), payload.end());
  return w;
}

TEST(System, OnePacketOverOneLinkInCountedCycles) {
  // ipu0 tile 0: put $OUTGOING_BASE at 0, send at 1 streams its 6 words (2 header, 4 payload) at
  // 1..6, sync 4 at 7. ipu1 tile 0 enters the sync at 0. The packet reaches ipu0's link interface
  // at 6 + 1 + 64 (links.exchange_block_cycles) = 71 and crosses the rung in
  // ceil(24 B x 1.325e9 / 16e9 B/s) = ceil(1.99) = 2 cycles plus the hop's 1000
  // (links.latency_cycles): it arrives at 1073 and is written into ipu1's tile 0 64 cycles later,
  // at 1137..1140. The sync completes at max(7 + 600 (sync.external_latency_cycles), 1140 + 1) =
  // 1141; br $lr then returns at 1147 on both IPUs.
  const std::vector<uint32_t> payload{11, 22, 33, 44};
  SystemRun r = runSystem(config("m2000"), 1, {{{0, 0}, sender(6)}, {{1, 0}, kWaiter}},
                          {{{0, 0}, packetWords(1, 0, 0x71000, payload)}});
  for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(r.system->ipu(1).tile(0).memory().read<uint32_t>(0x71000 + 4 * i), payload[i]);
  EXPECT_EQ(r.stats.cycles, 1147u);
  EXPECT_EQ(r.stats.ipus[0].cycles, 1147u);
  EXPECT_EQ(r.stats.ipus[1].cycles, 1147u);
  EXPECT_EQ(r.stats.externalSyncs, 1u);
  EXPECT_EQ(r.stats.links.packets, 1u);
  EXPECT_EQ(r.stats.links.payloadBytes, 16u);
  EXPECT_EQ(r.stats.links.linkBytes, 24u);
  EXPECT_EQ(r.stats.ipus[1].wordsReceived, 4u);
  EXPECT_EQ(r.stats.ipus[0].wordsSent, 6u);
  std::string text;
  for (const sim::TraceEvent &e : r.trace)
    if (e.event == "link.packet" || e.event == "external_sync" || e.event == "link.receive") text += sim::formatTraceEvent(e) + "\n";
  EXPECT_EQ(text,
            "1 link.packet system.links from=ipu0.tile0 to=ipu1.tile0 words=4 addr=0x71000 hops=1 arrival_cycle=1073 first_write_cycle=1137\n"
            "1137 link.receive ipu1.tile0.supervisor words=4 addr=0x71000 last_cycle=1140\n"
            "1141 external_sync system.sync zone=4 index=0 last_arrival_cycle=7\n");
}

TEST(System, PacketsShareLinksAndReceivePortsInTurn) {
  // Tiles 0, 1, 2 of ipu0 each send one 4-word packet at 1..6 to ipu2 over the rail's 2 links:
  // tiles 0 and 1 take a link each at 71 and arrive at 1073; tile 2 waits for the first link to
  // free at 73 and arrives at 1075. Tiles 0 and 2 write into ipu2's tile 0: tile 0's words at
  // 1137..1140, tile 2's at 1139 + 2 = 1141..1144 (its port is busy to 1140); tile 1's packet
  // goes to ipu2's tile 1 at 1137. The sync completes at 1145; return at 1151.
  std::map<std::pair<unsigned, unsigned>, std::string> programs{
      {{0, 0}, sender(6)}, {{0, 1}, sender(6)}, {{0, 2}, sender(6)}, {{2, 0}, kWaiter}, {{2, 1}, kWaiter}, {{2, 2}, kWaiter}};
  SystemRun r = runSystem(config("m2000"), 3, programs,
                          {{{0, 0}, packetWords(2, 0, 0x71000, {1, 2, 3, 4})},
                           {{0, 1}, packetWords(2, 1, 0x71000, {5, 6, 7, 8})},
                           {{0, 2}, packetWords(2, 0, 0x71010, {9, 10, 11, 12})}});
  EXPECT_EQ(r.stats.cycles, 1151u);
  std::vector<uint32_t> got;
  for (unsigned i = 0; i < 8; ++i) got.push_back(r.system->ipu(2).tile(0).memory().read<uint32_t>(0x71000 + 4 * i));
  EXPECT_EQ(got, (std::vector<uint32_t>{1, 2, 3, 4, 9, 10, 11, 12}));
  EXPECT_EQ(r.system->ipu(2).tile(1).memory().read<uint32_t>(0x7100c), 8u);
  std::vector<uint64_t> firstWrites;
  for (const sim::TraceEvent &e : r.trace)
    if (e.event == "link.receive") firstWrites.push_back(e.cycle);
  EXPECT_EQ(firstWrites, (std::vector<uint64_t>{1137, 1137, 1141}));
  const arch::Topology &t = r.system->topology();
  EXPECT_EQ(r.stats.links.busyCycles[0][size_t(t.connectionBetween(0, 2))], 3u * 2u);
}

TEST(System, TwoHopsCrossTheRailThenTheRung) {
  // ipu0 -> ipu3 in an M2000: the rail to ipu2 and the rung to ipu3, each 2 + 1000 cycles: the
  // packet arrives at 71 + 2 x 1002 = 2075, is written at 2139..2140, and the sync completes at
  // 2141 (return 2147).
  SystemRun r = runSystem(config("m2000"), 1, {{{0, 0}, sender(4)}, {{3, 0}, kWaiter}},
                          {{{0, 0}, packetWords(3, 0, 0x71000, {7, 8})}});
  // The payload is 2 words: sent at 1..4, at the interface at 4 + 1 + 64 = 69, so 69 + 2004 = 2073
  // (serialisation ceil(16 x 1.325 / 16) = 2), written at 2137..2138, release 2139, return 2145.
  EXPECT_EQ(r.stats.cycles, 2145u);
  EXPECT_EQ(r.system->ipu(3).tile(0).memory().read<uint32_t>(0x71004), 8u);
}

TEST(System, AcrossAPod64TheRouteIsSeventeenHops) {
  // ipu0 -> ipu33: rung 0 to rung 16 is 16 rungs either way round the torus (a tie: upwards), up
  // the even rail to ipu32, then across the rung: 17 hops. The 1-word packet's last word leaves at
  // 3 and is at the link interface at 68; each hop takes 1 cycle (12 bytes) and 1000: it arrives
  // at 68 + 17 x 1001 = 17085 and is written at 17149; the sync completes at 17150, return 17156.
  arch::Topology t(config("pod64"));
  EXPECT_EQ(t.route(0, 33).size(), 17u);
  SystemRun r = runSystem(config("pod64"), 1, {{{0, 0}, sender(3)}, {{33, 0}, kWaiter}},
                          {{{0, 0}, packetWords(33, 0, 0x71000, {0xABCD})}});
  EXPECT_EQ(r.system->ipu(33).tile(0).memory().read<uint32_t>(0x71000), 0xABCDu);
  EXPECT_EQ(r.stats.cycles, 17156u);
  EXPECT_EQ(r.stats.links.linkBytes, 17u * 12u);
}

TEST(System, OfTwoPacketsForOneAddressTheLastToLandWins) {
  // ipu2 sends at 1..3 over the rail to ipu0; ipu1 waits 100 cycles first (delay at 1, send at 101)
  // and crosses the rung: its word lands 100 cycles later and stays, whatever the IPUs' order.
  const std::string late = "  .supervisor\n  .globl s\ns:\n  put $OUTGOING_BASE, $m0\n  delay 100\n  send 0, 3, 0\n"
                           "  sync 4\n  br $lr\n";
  SystemRun r = runSystem(config("m2000"), 1, {{{0, 0}, kWaiter}, {{1, 0}, late}, {{2, 0}, sender(3)}},
                          {{{1, 0}, packetWords(0, 0, 0x71000, {111})}, {{2, 0}, packetWords(0, 0, 0x71000, {222})}});
  EXPECT_EQ(r.system->ipu(0).tile(0).memory().read<uint32_t>(0x71000), 111u);
  std::vector<uint64_t> writes;
  for (const sim::TraceEvent &e : r.trace)
    if (e.event == "link.receive") writes.push_back(e.cycle);
  // ipu2's: last word at 3, + 1 + 64 + 1 (12 bytes on a link) + 1000 + 64 = 1133; ipu1's 100 later.
  EXPECT_EQ(writes, (std::vector<uint64_t>{1133, 1233}));
}

/// Every IPU's tile 0 sends a packet to each of its neighbours over every connection of `cfg`,
/// both ways; each receiver keeps the packet from IPU j at 0x71000 + 16 j. Checks every word.
void everyLinkBothWays(const std::string &name) {
  const arch::SystemConfig cfg = config(name);
  arch::Topology t(cfg);
  std::map<std::pair<unsigned, unsigned>, std::string> programs;
  std::map<std::pair<unsigned, unsigned>, std::vector<uint32_t>> words;
  for (unsigned i = 0; i < cfg.ipus; ++i) {
    std::vector<uint32_t> &w = words[{i, 0}];
    for (unsigned j = 0; j < cfg.ipus; ++j)
      if (t.connectionBetween(i, j) >= 0) {
        std::vector<uint32_t> p = packetWords(j, 0, 0x71000 + 16 * i, {1000000 * i + 1000 * j, i, j, 0xC0DE});
        w.insert(w.end(), p.begin(), p.end());
      }
    programs[{i, 0}] = sender(unsigned(w.size()));
  }
  SystemRun r = runSystem(cfg, 1, programs, words, 2);
  EXPECT_EQ(r.stats.links.packets, 2 * t.connections().size());
  for (unsigned j = 0; j < cfg.ipus; ++j)
    for (unsigned i = 0; i < cfg.ipus; ++i) {
      if (t.connectionBetween(i, j) < 0) continue;
      const sim::TileMemory &m = r.system->ipu(j).tile(0).memory();
      EXPECT_EQ(m.read<uint32_t>(0x71000 + 16 * i), 1000000 * i + 1000 * j) << name << " " << i << " -> " << j;
      EXPECT_EQ(m.read<uint32_t>(0x71004 + 16 * i), i);
      EXPECT_EQ(m.read<uint32_t>(0x71008 + 16 * i), j);
      EXPECT_EQ(m.read<uint32_t>(0x7100c + 16 * i), 0xC0DEu);
    }
  for (size_t c = 0; c < t.connections().size(); ++c)
    for (unsigned dir = 0; dir < 2; ++dir) EXPECT_EQ(r.stats.links.busyCycles[dir][c], 2u) << c; // ceil(24 B x 1.325e9 / 16e9 B/s) = ceil(1.99)
}

TEST(System, EveryLinkOfAnM2000BothWays) { everyLinkBothWays("m2000"); }
TEST(System, EveryLinkOfAPod16BothWays) { everyLinkBothWays("pod16"); }
TEST(System, EveryLinkOfAPod64BothWays) { everyLinkBothWays("pod64"); }

TEST(System, ResultsAndTraceDoNotDependOnThreads) {
  std::map<std::pair<unsigned, unsigned>, std::string> programs;
  std::map<std::pair<unsigned, unsigned>, std::vector<uint32_t>> words;
  for (unsigned i = 0; i < 4; ++i)
    for (unsigned tile = 0; tile < 16; ++tile) {
      words[{i, tile}] = packetWords((i + 1) % 4, 15 - tile, 0x71000 + 4 * tile, {i * 100 + tile});
      programs[{i, tile}] = sender(3);
    }
  SystemRun one = runSystem(config("m2000"), 16, programs, words, 1);
  SystemRun two = runSystem(config("m2000"), 16, programs, words, 2);
  EXPECT_EQ(one.stats.cycles, two.stats.cycles);
  ASSERT_EQ(one.trace.size(), two.trace.size());
  for (size_t k = 0; k < one.trace.size(); ++k) EXPECT_EQ(sim::formatTraceEvent(one.trace[k]), sim::formatTraceEvent(two.trace[k]));
  for (unsigned i = 0; i < 4; ++i)
    for (unsigned tile = 0; tile < 16; ++tile)
      EXPECT_EQ(two.system->ipu((i + 1) % 4).tile(15 - tile).memory().read<uint32_t>(0x71000 + 4 * tile), i * 100 + tile);
}

// --- errors -------------------------------------------------------------------------------------

std::string errorOf(const arch::SystemConfig &cfg, const std::map<std::pair<unsigned, unsigned>, std::string> &programs,
                    const std::map<std::pair<unsigned, unsigned>, std::vector<uint32_t>> &words) {
  try {
    runSystem(cfg, 2, programs, words);
  } catch (const std::exception &e) {
    return e.what();
  }
  return "no error";
}

TEST(System, DeadlocksNameTheIpusAndTiles) {
  const char *returns = "  .supervisor\n  .globl s\ns:\n  br $lr\n";
  EXPECT_EQ(errorOf(config("m2000"), {{{0, 0}, kWaiter}, {{0, 1}, kWaiter}, {{2, 0}, returns}}, {}),
            "deadlock: ipu0 (tiles 0, 1) wait in sync 4 (EXTERNAL GS1) from cycle 0, which ipu2 never reaches (its "
            "tiles returned)");
  const char *gs2 = "  .supervisor\n  .globl s\ns:\n  sync 6\n  br $lr\n";
  EXPECT_EQ(errorOf(config("m2000"), {{{0, 0}, kWaiter}, {{1, 0}, gs2}}, {}),
            "deadlock: ipu0 (tiles 0) wait in sync 4 (EXTERNAL GS1) but ipu1 (tiles 0) wait in sync 6 (EXTERNAL GS2)");
  // Inside one IPU the tiles must agree too, and the IPU is named.
  EXPECT_EQ(errorOf(config("m2000"), {{{1, 0}, kWaiter}, {{1, 1}, returns}}, {}),
            "deadlock: ipu1: tiles 0 wait in sync 4 (EXTERNAL GS1) from cycle 0, which tiles 1 never reach (they returned)");
}

TEST(System, BadPacketsAreExchangeErrors) {
  const arch::SystemConfig m2000 = config("m2000");
  auto send = [&](std::vector<uint32_t> w, unsigned count) {
    return errorOf(m2000, {{{0, 0}, sender(count)}, {{1, 0}, kWaiter}}, {{{0, 0}, w}});
  };
  EXPECT_EQ(send({0x12345678, 0x71000, 1}, 3),
            "exchange: the packet tile 0 of ipu0 began at cycle 1 has header 0x12345678, whose format 0 is not 2 (tile write)");
  EXPECT_EQ(send(packetWords(1, 0, 0x71000, {1, 2, 3}), 4),
            "exchange: the packet tile 0 of ipu0 began at cycle 1 announces 3 payload words but the tile sent 2 before "
            "the external sync");
  EXPECT_EQ(send(packetWords(0, 0, 0x71000, {1}), 3),
            "exchange: the packet tile 0 of ipu0 began at cycle 1 is for its own IPU: tiles of one IPU use the internal exchange");
  EXPECT_EQ(send(packetWords(9, 0, 0x71000, {1}), 3),
            "exchange: the packet tile 0 of ipu0 began at cycle 1 is for ipu9, but the system has 4 IPUs");
  EXPECT_EQ(send(packetWords(1, 1, 0x71000, {1}), 3),
            "exchange: the packet tile 0 of ipu0 sent at cycle 1 is for tile 1 of ipu1, which takes no part in the run");
  EXPECT_EQ(send(packetWords(1, 0, 0x10, {1}), 3),
            "exchange: the packet tile 0 of ipu0 sent at cycle 1 writes 4 bytes at 0x10, which is not aligned tile memory "
            "of tile 0 of ipu1");
  // A rung without links: ipu0 cannot reach ipu1.
  arch::SystemConfig cut = m2000;
  cut.links.rungLinks = 0;
  EXPECT_EQ(errorOf(cut, {{{0, 0}, sender(3)}, {{1, 0}, kWaiter}}, {{{0, 0}, packetWords(1, 0, 0x71000, {1})}}),
            "exchange: the packet tile 0 of ipu0 sent at cycle 1 for tile 0 of ipu1 has no route: no IPU-Link between "
            "IPU 0 and IPU 1");
  // Words sent after the last external sync have nothing to wait for them.
  const std::string late = "  .supervisor\n  .globl s\ns:\n  put $OUTGOING_BASE, $m0\n  send 0, 3, 0\n  br $lr\n";
  EXPECT_EQ(errorOf(m2000, {{{0, 0}, late}}, {{{0, 0}, packetWords(1, 0, 0x71000, {1})}}),
            "exchange: tile 0 of ipu0 sent words to the external exchange at cycle 1 after the last external sync: no "
            "sync waits for them to arrive");
}

TEST(System, AnIpuOnItsOwnHasNoExternalExchange) {
  cc::ObjectFile img = cc::link({{"t.o", assemble(sender(3))}}, mk2Config().tile);
  sim::Ipu ipu(mk2Config(), 1);
  sim::loadImage(ipu.tile(0), img, "t.elf");
  ipu.start(0, img.symbols[size_t(img.findSymbol("s"))].value, 0x70000);
  try {
    ipu.run(1);
    FAIL();
  } catch (const sim::ExchangeError &e) {
    EXPECT_STREQ(e.what(), "exchange: tile 0 sent a word to the external exchange (a send with no direction) at cycle 1, "
                           "but ipu0 is not part of a system of IPUs");
  }
}

} // namespace

// `ipusim info CONFIG` (docs/systems.md): prints the system and validates it.

namespace {

TEST(IpusimInfo, PrintsTheTopologyAndRefusesABadOne) {
  auto r = test::run(test::tool("ipusim") + " info m2000");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("  IPUs: 4 (1472 tiles each, 5888 tiles), 1 chassis of 4, clock 1.325 GHz\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    ipu0 <-> ipu1  rung, 6 links, 96 GB/s each way\n"), std::string::npos);
  EXPECT_NE(r.out.find("    ipu1 <-> ipu3  rail, 2 links, 32 GB/s each way\n"), std::string::npos);
  EXPECT_NE(r.out.find("    ipu0: 2 IPU-Links unconnected\n"), std::string::npos); // to the front panel's ports
  EXPECT_NE(r.out.find("  host: IPU-Gateway (GW-Links), 25 GB/s each way per M2000, latency 4000 cycles\n"), std::string::npos);
  EXPECT_NE(r.out.find("  ring ring-on-line: 0 2 3 1\n"), std::string::npos);
  auto pod64 = test::run(test::tool("ipusim") + " info pod64");
  ASSERT_EQ(pod64.status, 0);
  EXPECT_NE(pod64.out.find("    ipu0 <-> ipu62  wrap, 2 links, 32 GB/s each way\n"), std::string::npos);
  EXPECT_NE(pod64.out.find("  ring rung-ring-2: 1 3 5 7"), std::string::npos);
  EXPECT_NE(pod64.out.find("  ring rung-ring-8: 7 15 23 31 39 47 55 63\n"), std::string::npos);
  test::TempDir d;
  const std::string bad = d.file("bad.toml", "inherits = \"pod16\"\nname = \"bad\"\n[links]\nrail_links = 3\n");
  auto b = test::run(test::tool("ipusim") + " info " + bad);
  EXPECT_EQ(b.status, 1);
  EXPECT_EQ(b.out, "");
  EXPECT_EQ(b.err, "bad: error: topology '2d-torus': IPU 0 needs 12 IPU-Links but has 10 (links.links_per_ipu)\n");
  auto missing = test::run(test::tool("ipusim") + " info nosuch");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("nosuch: error: no such machine config"), std::string::npos) << missing.err;
}

} // namespace
