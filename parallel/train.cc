#include "parallel/train.h"

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace bpeforge {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

absl::StatusOr<TrainResult> Train(const TrainOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (absl::Status s = ValidateTrainerConfig(options.trainer); !s.ok()) return s;
  if (options.inputs.empty()) return absl::InvalidArgumentError("no input file given");
  const int threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<size_t>(threads));

  CountOptions count_options;
  count_options.special_tokens = options.trainer.special_tokens;
  count_options.pattern = options.pattern;
  count_options.chunk_bytes = options.chunk_bytes;
  if (options.progress) {
    count_options.progress = [&](uint64_t done, uint64_t total) {
      options.progress(
          absl::StrFormat("pre-tokenizing: %.0f%% of %.1f MB", 100.0 * done / total, total / 1e6));
    };
  }
  absl::StatusOr<ShardedCounts> counts = CountFiles(options.inputs, count_options);
  if (!counts.ok()) return counts.status();

  TrainResult result;
  result.stats.threads = threads;
  result.stats.bytes = counts->bytes;
  result.stats.pretokens = counts->pretokens;
  result.stats.distinct_pretokens = counts->distinct();
  result.stats.pretokenize_seconds = SecondsSince(start);

  const auto merge_start = std::chrono::steady_clock::now();
  std::function<void(size_t)> merge_progress;
  if (options.progress) {
    const size_t goal = options.trainer.vocab_size;
    merge_progress = [&, goal](size_t done) {
      options.progress(absl::StrCat("merging: ", done, " merges (vocab goal ", goal, ")"));
    };
  }
  Parallelism parallelism;
  parallelism.workers = static_cast<size_t>(threads);
  parallelism.min_split_words = options.min_split_words;
  parallelism.run = [](size_t n, const std::function<void(size_t)>& task) {
    tbb::parallel_for(size_t{0}, n, [&task](size_t i) { task(i); });
  };
  absl::StatusOr<Trained> trained =
      TrainFromCounts(counts->views(), options.trainer, merge_progress, parallelism);
  if (!trained.ok()) return trained.status();
  result.trained = *std::move(trained);
  result.stats.merges = result.trained.merges.size();
  result.stats.merge_seconds = SecondsSince(merge_start);
  result.stats.total_seconds = SecondsSince(start);
  return result;
}

}  // namespace bpeforge
