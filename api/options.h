// The public TrainOptions as the parallel layer's TrainJob, for training and for counting alike;
// what api/ shares between its files.
#ifndef BPEFORGE_API_OPTIONS_H_
#define BPEFORGE_API_OPTIONS_H_

#include <string>
#include <vector>

#include "bpeforge/bpeforge.h"
#include "parallel/train.h"

namespace bpeforge {

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
  out.share = options.share;
  out.shares = options.shares;
  out.progress = options.progress;
  out.cancel = options.cancel;
  return out;
}

// kInvalidArgument if `output` names the same file as one of `inputs` (device and inode), so that
// an output never replaces an input (api/files.cc).
absl::Status CheckNotAnInput(const std::string& output, const std::vector<std::string>& inputs);
// What training learnt, as the public API gives it (api/train.cc).
TrainResult FromInternal(internal::TrainResult result, const TrainOptions& options);
// Writes what training learnt without spelling out the vocabulary (api/train.cc).
absl::StatusOr<TrainStats> SaveTrained(const internal::TrainResult& result,
                                       const TrainOptions& options, const std::string& dir);

}  // namespace bpeforge

#endif  // BPEFORGE_API_OPTIONS_H_
