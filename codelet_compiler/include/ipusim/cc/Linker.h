// ipu-ld: links relocatable objects into one tile image at the Mk2 memory map.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "ipusim/arch/Config.h"
#include "ipusim/cc/Object.h"

namespace ipusim::cc {

struct LinkInput {
  std::string name; ///< file name, for diagnostics
  ObjectFile object;
};

struct LinkOptions {
  std::string entry; ///< symbol whose address becomes e_entry ("" = none)
  /// If not empty, only the sections these symbols are in, and the sections they reach through
  /// relocations, are linked (what a tile needs of a codelet library).
  std::vector<std::string> roots;
};

/// Linking failed; what() holds every diagnostic, one per line.
class LinkError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Places code in the executable region (region 0 on Mk2), data after it (sections whose name
/// contains ".interleaved" go to the interleaved region 1), resolves symbols and relocations.
ObjectFile link(const std::vector<LinkInput> &inputs, const arch::TileConfig &tile,
                const LinkOptions &options = {});

/// Patches the field of relocation `type` at `p` with `value` (= S + A). Returns "" or, when the
/// value does not fit the field, a description of the problem.
std::string applyRelocation(uint32_t type, uint8_t *p, int64_t value);

} // namespace ipusim::cc
