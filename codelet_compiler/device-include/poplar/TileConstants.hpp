// ipusim's stand-in for the Poplar SDK header <poplar/TileConstants.hpp> (not public): the tile
// constants codelets and poplibs assembly use. They are the architecture's, defined once in
// <arch/gc_tile_defines.h>.
#ifndef IPUSIM_POPLAR_TILE_CONSTANTS_HPP
#define IPUSIM_POPLAR_TILE_CONSTANTS_HPP

#include <arch/gc_tile_defines.h>

#endif
