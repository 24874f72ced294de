#include "ipusim/sim/MpiPartition.h"

#include <mpi.h>

#include <cstdlib>

namespace ipusim::sim {

namespace {

class MpiPartition : public Partition {
public:
  MpiPartition() {
    MPI_Init(nullptr, nullptr);
    int r = 0, s = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    rank_ = unsigned(r);
    size_ = unsigned(s);
  }
  ~MpiPartition() override { MPI_Finalize(); }
  unsigned rank() const override { return rank_; }
  unsigned size() const override { return size_; }

  std::vector<std::vector<uint8_t>> allGather(const std::vector<uint8_t> &mine) override {
    const int count = int(mine.size());
    std::vector<int> counts(size_), offsets(size_);
    MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (unsigned r = 0; r < size_; ++r) {
      offsets[r] = total;
      total += counts[r];
    }
    std::vector<uint8_t> all(size_t(total) + 1);
    MPI_Allgatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD);
    std::vector<std::vector<uint8_t>> out(size_);
    for (unsigned r = 0; r < size_; ++r)
      out[r].assign(all.begin() + offsets[r], all.begin() + offsets[r] + counts[r]);
    return out;
  }

private:
  unsigned rank_ = 0, size_ = 1;
};

} // namespace

std::unique_ptr<Partition> mpiPartition() {
  // Open MPI's launcher sets OMPI_COMM_WORLD_SIZE; PMI and PMIx launchers set theirs.
  for (const char *v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return std::make_unique<MpiPartition>();
  return nullptr;
}

} // namespace ipusim::sim
