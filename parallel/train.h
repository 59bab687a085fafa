// The whole training job: map the inputs, count pre-tokens in parallel, learn merges.
#ifndef BPEFORGE_PARALLEL_TRAIN_H_
#define BPEFORGE_PARALLEL_TRAIN_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bpeforge/types.h"
#include "core/formats/counts_file.h"
#include "core/train/trainer.h"
#include "parallel/parallel_count.h"

namespace bpeforge::internal {

// One training (or counting) run in the parallel layer's terms: the inputs, the core trainer's
// config and how to spread the work. The public API's TrainOptions becomes one (api/options.h).
struct TrainJob {
  std::vector<std::string> inputs;
  TrainerConfig trainer;
  Pattern pattern = Pattern::kGpt2;
  std::string custom_regex;      // for Pattern::kCustom
  int threads = 0;               // 0: all hardware threads
  size_t chunk_bytes = 4 << 20;  // results do not depend on it
  JsonlOptions jsonl;            // which inputs are JSON Lines
  size_t share = 0, shares = 1;  // CountInputs: this process's part (CountOptions)
  // Merges that rewrite at least this many words share the work among the threads (results
  // do not depend on it; tests lower it so that small inputs take that path too).
  size_t min_split_words = Parallelism{}.min_split_words;
  // How far counting and merging have come, from any thread, a few times a second at most.
  std::function<void(const ProgressFigures&)> progress;
  // Once it reads true, RunTrainJob returns Cancelled within a fraction of a second.
  const std::atomic<bool>* cancel = nullptr;
};

struct TrainJobResult {
  TrainedVocab trained;
  TrainStats stats;
};

// Counts the inputs' pre-tokens and learns merges on at most the hardware's threads;
// stats.threads says how many.
absl::StatusOr<TrainJobResult> RunTrainJob(const TrainJob& options);

// Learns merges from the workers' own tables of a count (CountInputs with per_worker, or a
// DocumentCounter), as RunTrainJob does after counting; the tables are dropped once copied into the
// word table. stats gets the count's bytes, pre-tokens and input, and `counted_seconds` as the
// pre-tokenize time.
absl::StatusOr<TrainJobResult> LearnFromTables(ShardedCounts counts, const TrainJob& options,
                                               double counted_seconds);

// CountOptions' progress as "pre-tokenizing" figures (bytes as stored) for `progress`; null
// where `progress` is.
std::function<void(uint64_t done, uint64_t total, uint64_t documents)> PreTokenizingProgress(
    std::function<void(const ProgressFigures&)> progress);

// The threads a run uses for `requested` (0: all): never more than the hardware has, since
// oneTBB would not start them (and would say so on stderr).
int ThreadsToUse(int requested);

// Counts the inputs' pre-tokens as RunTrainJob does (config checked, threads, progress, cancel);
// `per_worker` as in CountOptions.
absl::StatusOr<ShardedCounts> CountInputs(const TrainJob& options, bool per_worker = false);

// Learns merges from counts made before, as RunTrainJob does after counting (options.inputs and
// options.chunk_bytes are not used). stats has no bytes, pre-tokens or pre-tokenize time.
absl::StatusOr<TrainJobResult> LearnFromCounts(const std::vector<const PreTokenCounts*>& counts,
                                               const TrainJob& options);

// The thread pool, lent to core code as `threads` workers (under the caller's limit on them).
Parallelism LentParallelism(int threads);

// Runs task(0), ..., task(n - 1) on at most `threads` threads (0: all the hardware's).
void RunInParallel(size_t n, int threads, const std::function<void(size_t)>& task);

// The workers' tables (CountInputs with per_worker) as a count file's runs, one per table,
// each filled by a thread of its own and sorted by all; `tables` is left empty, each table
// freed once copied.
std::vector<CountRun> SortedCountRuns(std::vector<CountingTable>& tables, int threads);

// The same from distinct pre-tokens (a count file's entries), copied into the word table by
// the job's threads; `copied` is called once they are (to release what they lie in).
absl::StatusOr<TrainJobResult> LearnFromDistinct(size_t parts, const DistinctPreTokens& pretokens,
                                                 uint64_t distinct, const TrainJob& options,
                                                 const std::function<void()>& copied = nullptr);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_PARALLEL_TRAIN_H_
