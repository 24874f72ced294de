// Loading a linked tile image (ipu-ld output, docs/object-format.md) into a tile.
#pragma once

#include "ipusim/cc/Object.h"
#include "ipusim/sim/Tile.h"

namespace ipusim::sim {

/// Copies the image's allocated sections into tile memory and makes exception reports name the
/// source line of each instruction (from `.ipu.lines`). Throws std::runtime_error, formatted as
/// `NAME: error: ...`, if a section lies outside tile memory. The image must outlive the tile's runs.
void loadImage(Tile &tile, const cc::ObjectFile &image, const std::string &name);

} // namespace ipusim::sim
