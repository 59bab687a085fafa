// The public TrainOptions as the parallel layer's TrainJob, for training and for counting alike;
// what api/ shares between its files.
#ifndef BPEFORGE_API_OPTIONS_H_
#define BPEFORGE_API_OPTIONS_H_

#include <string>
#include <vector>

#include "bpeforge/bpeforge.h"
#include "core/internal/atomic_file.h"
#include "parallel/train.h"

namespace bpeforge {

// The progress line of `figures` ("pre-tokenizing: 41% of 2000.0 MB"); `vocab_size` is the
// goal merging names (api/train.cc).
std::string ProgressLine(const ProgressFigures& figures, size_t vocab_size);

inline internal::TrainJob ToInternal(const TrainOptions& options) {
  internal::TrainJob out;
  out.trainer.vocab_size = options.vocab_size;
  out.trainer.special_tokens = options.special_tokens;
  out.trainer.layout = options.layout;
  out.trainer.rules.min_frequency = options.min_frequency;
  out.trainer.rules.max_token_length = options.max_token_length;
  out.pattern = options.pattern;
  out.custom_regex = options.pattern == Pattern::kCustom ? options.custom_pattern : "";
  out.threads = options.threads;
  out.chunk_bytes = options.chunk_bytes;
  out.jsonl.field = options.input.jsonl_field;
  out.jsonl.skip_bad_records = options.input.skip_bad_records;
  if (options.progress || options.progress_figures) {
    out.progress = [lines = options.progress, figures = options.progress_figures,
                    goal = options.vocab_size](const ProgressFigures& p) {
      if (figures) figures(p);
      if (lines) lines(ProgressLine(p, goal));
    };
  }
  out.cancel = options.cancel;
  return out;
}

// What a count with `options` counted, as the public API gives it, `counts` left empty
// (api/counts.cc).
CountedText CountedOf(const TrainOptions& options, const internal::ShardedCounts& sharded);
// Writes the workers' tables of `sharded` (dropped as they are copied) into `file` as a count
// file whose header is `*out`, adding the distinct pre-tokens to out->distinct (api/counts.cc).
absl::Status WriteWorkerCounts(internal::ShardedCounts& sharded, int threads, CountedText* out,
                               internal::AtomicFile& file);

// kInvalidArgument if `output` names the same file as one of `inputs` (device and inode), so that
// an output never replaces an input (api/files.cc).
absl::Status CheckNotAnInput(const std::string& output, const std::vector<std::string>& inputs);
// What training learnt, as the public API gives it (api/train.cc).
TrainResult FromInternal(internal::TrainJobResult result, const TrainOptions& options);
// Writes what training learnt without spelling out the vocabulary (api/train.cc).
absl::StatusOr<TrainStats> SaveTrained(const internal::TrainJobResult& result,
                                       const TrainOptions& options, const std::string& dir);

}  // namespace bpeforge

#endif  // BPEFORGE_API_OPTIONS_H_
