// The ranks of an MPI launch (`mpirun -np K ipusim run ...`) as a Partition (DESIGN decision 7;
// docs/systems.md "Several processes"). Open MPI from Debian; the library ipusim_sim_mpi.
#pragma once

#include "ipusim/sim/Partition.h"

#include <memory>

namespace ipusim::sim {

/// The MPI ranks this process is one of, or nullptr when no MPI launcher started it (then one
/// process runs every IPU, without touching MPI). MPI is finalised when the object goes.
std::unique_ptr<Partition> mpiPartition();

} // namespace ipusim::sim
