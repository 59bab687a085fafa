#include "cli/ranks.h"

#include <chrono>
#include <memory>
#include <thread>

#include "absl/strings/str_format.h"
#include "bpeforge/internal/front_ends.h"
#include "cli/command_support.h"

#ifdef BPEFORGE_WITH_MPI
#include <mpi.h>

#include "distributed/mpi_job.h"
#endif

namespace bpeforge::cli::ranks {
namespace {

absl::StatusOr<Counted> CountOneProcess(const std::vector<std::string>& inputs,
                                        const TrainOptions& options) {
  absl::StatusOr<CountedText> counted = CountShare(inputs, options, 0, 1);
  if (!counted.ok()) return counted.status();
  return Counted{*std::move(counted), {}, {}};
}

}  // namespace

#ifdef BPEFORGE_WITH_MPI
namespace {
std::unique_ptr<distributed::MpiJob>& Job() {
  static std::unique_ptr<distributed::MpiJob> job;
  return job;
}
}  // namespace

void Init(int* argc, char*** argv) {
  if (std::optional<distributed::MpiJob> job = distributed::MpiJob::InitIfLaunched(argc, argv)) {
    Job() = std::make_unique<distributed::MpiJob>(*std::move(job));
  }
}
void Shutdown() { Job().reset(); }
void Abort(int exit_code) {
  if (Size() > 1) MPI_Abort(MPI_COMM_WORLD, exit_code);
}
int Size() { return Job() ? Job()->size() : 1; }
bool Leader() { return !Job() || Job()->rank() == 0; }

absl::Status Agree(const absl::Status& local) { return Size() > 1 ? Job()->Agree(local) : local; }

absl::StatusOr<Counted> Count(const std::vector<std::string>& inputs, const TrainOptions& options) {
  if (Size() == 1) return CountOneProcess(inputs, options);
  absl::StatusOr<std::optional<CountedText>> counted = Job()->Count(inputs, options);
  if (!counted.ok()) return counted.status();
  Counted out{*std::move(counted), {}, {}};
  out.peaks = Job()->Gather(PeakRssBytes());
  out.sent = Job()->Gather(Job()->exchanged_bytes());
  return out;
}

int ExitCode(int leader_code) {
  if (Size() == 1) return leader_code;
  // Non-blocking, polled with a sleep: a blocking broadcast would spin a core on every waiting
  // rank while the leader learns merges.
  MPI_Request request;
  MPI_Ibcast(&leader_code, 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return leader_code;
}
#else
void Init(int*, char***) {}
void Shutdown() {}
void Abort(int) {}
int Size() { return 1; }
bool Leader() { return true; }
absl::Status Agree(const absl::Status& local) { return local; }
absl::StatusOr<Counted> Count(const std::vector<std::string>& inputs, const TrainOptions& options) {
  return CountOneProcess(inputs, options);
}
int ExitCode(int leader_code) { return leader_code; }
#endif

std::string DescribeRankPeaks(const std::vector<uint64_t>& peaks) {
  if (peaks.size() <= 1) return "";
  std::string s = "; ranks:";
  for (size_t r = 0; r < peaks.size(); ++r) {
    absl::StrAppendFormat(&s, "%s %.0f", r == 0 ? "" : ",", peaks[r] / 1e6);
  }
  return s + " MB";
}

std::string DescribeExchange(const std::vector<uint64_t>& sent) {
  if (sent.size() <= 1) return "";
  uint64_t total = 0;
  std::string each;
  for (size_t r = 0; r < sent.size(); ++r) {
    total += sent[r];
    absl::StrAppendFormat(&each, "%s%.1f", r == 0 ? "" : ", ", sent[r] / 1e6);
  }
  return absl::StrFormat("exchange    %.1f MB of counts sent (ranks: %s MB)\n", total / 1e6, each);
}

}  // namespace bpeforge::cli::ranks
