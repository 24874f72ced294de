// A simulated exception: the tile stops, and the report names where and why.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ipusim::sim {

struct SimException : std::runtime_error {
  unsigned ipu, tile, context; ///< context 0 is the supervisor, 1..6 the workers
  uint32_t pc;
  std::string instruction; ///< disassembly of the faulting instruction (or bundle)
  std::string reason;
  std::string source;      ///< file:line:col from the image's .ipu.lines, if known

  SimException(unsigned ipu, unsigned tile, unsigned context, uint32_t pc, std::string instruction,
               std::string reason, std::string source);
};

} // namespace ipusim::sim
