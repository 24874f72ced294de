// "0x1f": addresses and words in the simulator's messages.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace ipusim::sim {

inline std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

} // namespace ipusim::sim
