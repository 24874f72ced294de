// Writing one tile's supervisor program (Emit.cpp) and its vertex states.
#pragma once

#include "Build.h"
#include "SupervisorCode.h"

#include <map>
#include <string>
#include <vector>

namespace ipusim::gc::build {

/// What the codelet link of a tile gave: each entry symbol's address.
struct TileLinkInfo {
  std::map<std::string, uint32_t> entries;
};

class TileEmitter {
public:
  /// `final`: item addresses are known (else every address is 0: the pass that sizes the code).
  TileEmitter(Build &b, unsigned tile, const TileLinkInfo &link, uint32_t base, bool final);
  /// Every program's entry, then the functions. Stacks: each worker's top, the supervisor's.
  void emitAll(const std::vector<uint32_t> &workerTops, uint32_t supervisorTop);

  const SupervisorCode &code() const { return code_; }
  const std::vector<uint32_t> &entries() const { return entries_; }
  const std::map<uint32_t, int> &syncSteps() const { return syncSteps_; }
  const std::map<uint32_t, unsigned> &hostSyncs() const { return hostSyncs_; }

private:
  void node(const Node &n);
  void step(unsigned s);
  void predicate(const Predicate &p, bool truth);
  void dispatch(const TileWork &w);
  void exchange(const Step &st, const TileExchange &te);
  void syncAt(unsigned zone, int step);
  uint32_t addr(Ref r) const;
  uint32_t controlAddr(uint32_t word) const;
  uint32_t entryOf(unsigned codelet) const;

  Build &b_;
  unsigned tile_;
  const TileLinkInfo &link_;
  SupervisorCode code_;
  bool final_;
  std::vector<unsigned> functionLabels_;
  std::vector<uint32_t> entries_;
  std::map<uint32_t, int> syncSteps_;
  std::map<uint32_t, unsigned> hostSyncs_;
};

/// One vector descriptor (SPAN, ONE_PTR, SHORT_SPAN, SCALED_PTR32/64/128, PTR) at `at` in `out`.
void writeDescriptor(std::vector<uint8_t> &out, uint32_t at, const std::string &layout, uint32_t addr, uint64_t count,
                     uint32_t memoryBase, const std::string &what);

} // namespace ipusim::gc::build
