// Running `bpeforge train` and `bpeforge count` as one job over many processes and machines
// with Open MPI (mpirun), on the public API only. Each rank counts its share of the inputs
// (CountShare, bpeforge/internal/front_ends.h), the counts are exchanged so that each rank owns the
// pre-tokens whose hash falls to it (MPI_Alltoallv), and the owned counts, each pre-token once, are
// gathered on rank 0, which learns the merges and writes the outputs. The result is byte for byte
// that of one process.
//
//   std::optional<MpiJob> job = MpiJob::InitIfLaunched(&argc, &argv);  // under mpirun only
//   absl::StatusOr<std::optional<CountedText>> counted = job->Count(inputs, options);
//   // rank 0: *counted holds the whole count; other ranks: nullopt
//   int exit_code = job->rank() == 0 ? Finish(...) : 0;
//   exit_code = job->Broadcast(exit_code);
#ifndef BPEFORGE_DISTRIBUTED_MPI_JOB_H_
#define BPEFORGE_DISTRIBUTED_MPI_JOB_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bpeforge/bpeforge.h"

namespace bpeforge::distributed {

class MpiJob {
 public:
  // Initializes MPI when this process was started by mpirun (Open MPI's environment says
  // so), else returns nullopt and the program runs as one process.
  static std::optional<MpiJob> InitIfLaunched(int* argc, char*** argv);
  MpiJob(MpiJob&& other) noexcept;
  ~MpiJob();  // MPI_Finalize

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Collective. Every rank passes its own status; every rank gets an error if any rank had
  // one. Rank 0's error names the first failing rank and its message; the others get a
  // short one that they need not print.
  absl::Status Agree(const absl::Status& local);

  // Collective: counts the inputs across all ranks. On rank 0 the whole count (stats summed
  // over ranks); elsewhere nullopt. An error on any rank is an error on all (as in Agree).
  absl::StatusOr<std::optional<CountedText>> Count(const std::vector<std::string>& inputs,
                                                   const TrainOptions& options);

  // Collective: rank 0's value, on every rank.
  int Broadcast(int value);
  // Collective: every rank's value, on rank 0 (empty elsewhere).
  std::vector<uint64_t> Gather(uint64_t value);

  // Bytes this rank sent in the exchange of counts (for reports).
  uint64_t exchanged_bytes() const { return exchanged_bytes_; }

 private:
  MpiJob(int rank, int size) : rank_(rank), size_(size) {}
  int rank_ = 0;
  int size_ = 1;
  bool owns_ = true;
  uint64_t exchanged_bytes_ = 0;
};

}  // namespace bpeforge::distributed

#endif  // BPEFORGE_DISTRIBUTED_MPI_JOB_H_
