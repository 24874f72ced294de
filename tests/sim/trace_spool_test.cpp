// TraceSpool (simulator/include/ipusim/sim/TraceSpool.h): long traces wait on disk in sorted runs
// and come back merged in the canonical order, whatever the batches and the threads that spill.
#include "SimUtil.h"

#include "ipusim/sim/TraceSpool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>

using namespace ipusim;

namespace {

sim::KeyedEvent event(uint64_t cycle, uint32_t part, uint32_t context, uint64_t seq) {
  sim::KeyedEvent k;
  k.key = {cycle, part, context, seq};
  k.event.cycle = cycle;
  k.event.event = "issue";
  k.event.where = "ipu0.tile" + std::to_string(part) + ".worker" + std::to_string(context);
  k.event.add("pc", seq * 4).add("insn", "add $m0, $m0, " + std::to_string(seq) + " \"quoted\"");
  return k;
}

} // namespace

// Random events of 5 parts in random batches, spilled from 4 threads, with a fan-in of 3 so that
// runs are merged on disk many times; the drain gives exactly the events sorted by key.
TEST(TraceSpool, MergesRunsInCanonicalOrder) {
  std::mt19937 rng(7);
  std::vector<sim::KeyedEvent> all;
  std::vector<uint64_t> seq(5, 0);
  for (int i = 0; i < 20000; ++i) {
    const uint32_t part = rng() % 5;
    all.push_back(event(rng() % 3000, part, rng() % 7, seq[part]++));
  }
  sim::TraceSpool spool(3);
  std::vector<std::vector<sim::KeyedEvent>> batches(4);
  size_t at = 0;
  std::vector<sim::KeyedEvent> rest;
  while (at < all.size()) {
    const size_t n = std::min<size_t>(1 + rng() % 700, all.size() - at);
    std::vector<sim::KeyedEvent> b(all.begin() + long(at), all.begin() + long(at + n));
    at += n;
    if (at == all.size()) rest = std::move(b); // the last batch stays in memory
    else {
      std::vector<sim::KeyedEvent> &to = batches[rng() % 4];
      to.insert(to.end(), b.begin(), b.end());
    }
  }
  std::vector<std::thread> threads;
  for (auto &b : batches)
    threads.emplace_back([&spool, &b] {
      for (size_t i = 0; i < b.size(); i += 500)
        spool.spill(std::vector<sim::KeyedEvent>(b.begin() + long(i), b.begin() + long(std::min(b.size(), i + 500))));
    });
  for (std::thread &t : threads) t.join();
  EXPECT_EQ(spool.spilledEvents(), all.size() - rest.size());
  std::vector<sim::TraceEvent> out;
  spool.drain(std::move(rest), [&](sim::TraceEvent &&e) { out.push_back(std::move(e)); });
  std::stable_sort(all.begin(), all.end(), [](const sim::KeyedEvent &a, const sim::KeyedEvent &b) { return a.key < b.key; });
  ASSERT_EQ(out.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(sim::formatTraceEvent(out[i]), sim::formatTraceEvent(all[i].event)) << i;
  EXPECT_EQ(spool.spilledEvents(), 0u);
  // Drained, the spool is empty and works again.
  spool.spill({event(5, 1, 0, 0)});
  out.clear();
  spool.drain({event(4, 1, 0, 1)}, [&](sim::TraceEvent &&e) { out.push_back(std::move(e)); });
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].cycle, 4u);
  EXPECT_EQ(out[1].cycle, 5u);
}

// An instruction trace of a worker loop (six workers, each 2 x 2,001 issues in the loop: over
// 24,000 events): with a spool that
// takes every 1,000 events the tile never holds more than 1,000, and the trace is the same,
// event for event, as the one kept in memory.
TEST(TraceSpool, TileHoldsAtMostItsLimit) {
  const cc::ObjectFile obj = test::assemble(R"(
w:
  setzi $m1, 2000
loop:
  add $m2, $m2, 1
  brnzdec $m1, loop
  exitz $mzero
)");
  auto trace = [&](bool spill) {
    test::TileRun r;
    r.image = cc::link({{"t.o", obj}}, test::mk2Config().tile);
    r.tile = std::make_unique<sim::Tile>(test::mk2Config().tile);
    sim::loadImage(*r.tile, r.image, "t.elf");
    r.tile->setTracing(true, true);
    sim::TraceSpool spool;
    size_t most = 0;
    if (spill) r.tile->setTraceSpool(&spool, 1, 1000);
    const uint32_t pc = r.image.symbols[size_t(r.image.findSymbol("w"))].value;
    r.tile->runSupervisor(r.tile->installWorkerLauncher(pc, 0x70000, true), 0);
    most = r.tile->traceEvents().size();
    EXPECT_LE(most, spill ? 1000u : ~0u);
    if (spill) EXPECT_GE(spool.spilledEvents(), 23000u);
    std::vector<std::string> lines;
    spool.drain(r.tile->takeKeyedEvents(), [&](sim::TraceEvent &&e) { lines.push_back(sim::formatTraceEvent(e)); });
    return lines;
  };
  const std::vector<std::string> spilled = trace(true), held = trace(false);
  EXPECT_GT(held.size(), 24000u);
  EXPECT_EQ(spilled, held);
}
