#include "parallel/train.h"

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/internal/status_macros.h"
#include "core/pretokenize/special_tokens.h"

namespace bpeforge::internal {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Learns merges from `words` (consumed), made from counts of `distinct` pre-tokens;
// the merge time counts from `start`.
absl::StatusOr<TrainJobResult> LearnFromWords(AnyWordTable words, uint64_t distinct,
                                              const TrainJob& options,
                                              std::chrono::steady_clock::time_point start) {
  const int threads = ThreadsToUse(options.threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<size_t>(threads));
  std::function<void(size_t)> merge_progress;
  if (options.progress) {
    const size_t specials = SpecialTokens(options.trainer.special_tokens).tokens().size();
    const size_t goal =
        options.trainer.vocab_size - std::min(options.trainer.vocab_size, 256 + specials);
    merge_progress = [&, goal](size_t done) {
      ProgressFigures figures;
      figures.phase = "merging";
      figures.done = done;
      figures.total = goal;
      figures.unit = "merges";
      options.progress(figures);
    };
  }
  Parallelism parallelism = LentParallelism(threads);
  parallelism.min_split_words = options.min_split_words;
  absl::StatusOr<TrainedVocab> trained = TrainFromWords(
      std::move(words), options.trainer, merge_progress, parallelism, options.cancel);
  if (!trained.ok()) return trained.status();
  TrainJobResult result;
  result.trained = *std::move(trained);
  result.stats.threads = threads;
  result.stats.distinct_pretokens = distinct;
  result.stats.merges = result.trained.tokens.merges();
  result.stats.vocab_size = 256 + result.trained.special_tokens.size() + result.stats.merges;
  result.stats.merge_seconds = SecondsSince(start);
  result.stats.total_seconds = result.stats.merge_seconds;
  return result;
}

}  // namespace

Parallelism LentParallelism(int threads) {
  Parallelism parallelism;
  parallelism.workers = static_cast<size_t>(threads);
  parallelism.run = [](size_t n, const std::function<void(size_t)>& task) {
    tbb::parallel_for(size_t{0}, n, [&task](size_t i) { task(i); });
  };
  return parallelism;
}

int ThreadsToUse(int requested) {
  // Never more than the hardware has: oneTBB would not start them anyway.
  return requested > 0 ? std::min(requested, tbb::info::default_concurrency())
                       : tbb::info::default_concurrency();
}

absl::StatusOr<TrainJobResult> LearnFromCounts(const std::vector<const PreTokenCounts*>& counts,
                                               const TrainJob& options) {
  const auto start = std::chrono::steady_clock::now();
  BPEFORGE_RETURN_IF_ERROR(ValidateTrainerConfig(options.trainer));
  absl::StatusOr<AnyWordTable> words = MakeWordTable(counts, options.trainer.vocab_size);
  if (!words.ok()) return words.status();
  uint64_t distinct = 0;
  for (const PreTokenCounts* c : counts) distinct += c->size();
  return LearnFromWords(*std::move(words), distinct, options, start);
}

void RunInParallel(size_t n, int threads, const std::function<void(size_t)>& task) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<size_t>(ThreadsToUse(threads)));
  tbb::parallel_for(size_t{0}, n, [&](size_t i) { task(i); });
}

std::vector<CountRun> SortedCountRuns(std::vector<CountingTable>& tables, int threads) {
  CountingTable::MakeDisjoint(tables, LentParallelism(ThreadsToUse(threads)));
  std::vector<CountRun> runs(tables.size());
  RunInParallel(tables.size(), threads, [&](size_t t) {
    // Room for pre-tokens of 16 bytes on average: pages reserved and never touched cost nothing.
    runs[t].Reserve(tables[t].size(), 16 * tables[t].size());
    tables[t].ForEach([&](absl::string_view word, uint64_t n) { runs[t].Add(word, n); });
    tables[t] = CountingTable();
  });
  tables.clear();
  // Each run sorted by all the threads: the largest table holds most of the pre-tokens (web
  // text: 3.2 of 4.2 million), and sorted by its own thread, it kept the others waiting.
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<size_t>(ThreadsToUse(threads)));
  for (CountRun& run : runs) run.Sort(LentParallelism(ThreadsToUse(threads)));
  return runs;
}

absl::StatusOr<TrainJobResult> LearnFromDistinct(size_t parts, const DistinctPreTokens& pretokens,
                                                 uint64_t distinct, const TrainJob& options,
                                                 const std::function<void()>& copied) {
  const auto start = std::chrono::steady_clock::now();
  BPEFORGE_RETURN_IF_ERROR(ValidateTrainerConfig(options.trainer));
  const int threads = ThreadsToUse(options.threads);
  absl::StatusOr<AnyWordTable> words;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<size_t>(threads));
    words = MakeWordTable(parts, pretokens, LentParallelism(threads), options.trainer.vocab_size);
  }
  if (copied) copied();
  if (!words.ok()) return words.status();
  return LearnFromWords(*std::move(words), distinct, options, start);
}

std::function<void(uint64_t, uint64_t, uint64_t)> PreTokenizingProgress(
    std::function<void(const ProgressFigures&)> progress) {
  if (!progress) return nullptr;
  return [progress = std::move(progress)](uint64_t done, uint64_t total, uint64_t documents) {
    progress({"pre-tokenizing", done, total, "bytes", documents});
  };
}

absl::StatusOr<ShardedCounts> CountInputs(const TrainJob& options, bool per_worker) {
  BPEFORGE_RETURN_IF_ERROR(ValidateTrainerConfig(options.trainer));
  if (options.inputs.empty()) return absl::InvalidArgumentError("no input file given");
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<size_t>(ThreadsToUse(options.threads)));
  CountOptions count_options;
  count_options.special_tokens = options.trainer.special_tokens;
  count_options.pattern = options.pattern;
  count_options.custom_regex = options.custom_regex;
  count_options.chunk_bytes = options.chunk_bytes;
  count_options.cancel = options.cancel;
  count_options.jsonl = options.jsonl;
  count_options.per_worker = per_worker;
  if (options.shares == 0 || options.share >= options.shares) {
    return absl::InvalidArgumentError(
        absl::StrCat("share ", options.share, " of ", options.shares, " does not exist"));
  }
  count_options.share = options.share;
  count_options.shares = options.shares;
  count_options.progress = PreTokenizingProgress(options.progress);
  return CountPreTokensInFiles(options.inputs, count_options);
}

absl::StatusOr<TrainJobResult> RunTrainJob(const TrainJob& options) {
  const auto start = std::chrono::steady_clock::now();
  if (options.shares != 1) {
    return absl::InvalidArgumentError("training takes the whole input (shares = 1)");
  }
  // The workers' tables go straight into the word table, and are dropped once copied: the
  // merge loop's tables, which peak later, would otherwise come on top of them.
  absl::StatusOr<ShardedCounts> counts = CountInputs(options, /*per_worker=*/true);
  if (!counts.ok()) return counts.status();
  return LearnFromTables(*std::move(counts), options, SecondsSince(start));
}

absl::StatusOr<TrainJobResult> LearnFromTables(ShardedCounts counts, const TrainJob& options,
                                               double counted_seconds) {
  const auto merge_start = std::chrono::steady_clock::now();
  BPEFORGE_RETURN_IF_ERROR(ValidateTrainerConfig(options.trainer));
  uint64_t distinct = 0;
  absl::StatusOr<AnyWordTable> words =
      MakeWordTable(counts.tables, &distinct, LentParallelism(ThreadsToUse(options.threads)),
                    options.trainer.vocab_size);
  if (!words.ok()) return words.status();
  absl::StatusOr<TrainJobResult> result =
      LearnFromWords(*std::move(words), distinct, options, merge_start);
  if (!result.ok()) return result.status();
  result->stats.bytes = counts.bytes;
  result->stats.pretokens = counts.pretokens;
  result->stats.input = counts.input_stats();
  result->stats.pretokenize_seconds = counted_seconds;
  result->stats.total_seconds = counted_seconds + SecondsSince(merge_start);
  return result;
}

}  // namespace bpeforge::internal
