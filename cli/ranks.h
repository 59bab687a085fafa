// Multi-process runs: `mpirun -np N bpeforge train|count ...`. Which rank this process is, and
// the collective steps the commands take (distributed/mpi_job.h). Without MPI in the build, or
// outside mpirun, there is one rank and every step is the single-process one.
#ifndef BPEFORGE_CLI_RANKS_H_
#define BPEFORGE_CLI_RANKS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bpeforge/bpeforge.h"

namespace bpeforge::cli::ranks {

void Init(int* argc, char*** argv);  // from main, before parsing arguments
void Shutdown();                     // from main, before returning
// Ends every rank of the job at once (MPI_Abort); without MPI, nothing. For failures outside
// the collective steps (out of memory), where the other ranks would wait forever.
void Abort(int exit_code);

int Size();     // 1 when not under mpirun
bool Leader();  // rank 0, which reports and writes

// Collective: an error on any rank is an error on all; the leader's names the rank.
absl::Status Agree(const absl::Status& local);
struct Counted {
  std::optional<CountedText> counted;  // whole on the leader, nullopt elsewhere
  std::vector<uint64_t> peaks;         // every rank's peak RSS after counting (leader only)
  std::vector<uint64_t> sent;          // what every rank sent in the exchange (leader only)
};
// Collective: the counts of all ranks' shares (one process: CountShare of the whole).
absl::StatusOr<Counted> Count(const std::vector<std::string>& inputs, const TrainOptions& options);
// Collective: the leader's exit code, on every rank. Other ranks wait without spinning.
int ExitCode(int leader_code);

// "; ranks: 812, 790 MB" for the summary's memory line ("" for one rank).
std::string DescribeRankPeaks(const std::vector<uint64_t>& peaks);
// The summary's line on the exchange: "exchange    96.1 MB of counts sent (ranks: 48.2, 47.9
// MB)\n" ("" for one rank).
std::string DescribeExchange(const std::vector<uint64_t>& sent);

}  // namespace bpeforge::cli::ranks

#endif  // BPEFORGE_CLI_RANKS_H_
