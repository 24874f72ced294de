// ipusim's Poplar SDK: the kinds of sync a program::Sync waits in.
#ifndef IPUSIM_POPLAR_SYNCTYPE_HPP
#define IPUSIM_POPLAR_SYNCTYPE_HPP

namespace poplar {
/// INTERNAL: all tiles of an IPU; EXTERNAL: all IPUs of the device; GLOBAL: those and the host.
enum class SyncType { INTERNAL, EXTERNAL, GLOBAL };
}

#endif
