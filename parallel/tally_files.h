// What tokenizers do to files, without encoding them: each file's pre-tokens are counted once
// for all the tokenizers that cut text alike (pattern and special tokens), then every distinct
// pre-token is encoded once per tokenizer and its tokens counted as often as it occurs
// (core/encode/encode_tally.h). Held-out text repeats most pre-tokens many times, so this is a
// fraction of the work of encoding it, and gives every vocabulary size at once.
#ifndef BPEFORGE_PARALLEL_TALLY_FILES_H_
#define BPEFORGE_PARALLEL_TALLY_FILES_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bpeforge/types.h"
#include "core/encode/bpe_codec.h"
#include "core/encode/encode_tally.h"
#include "input/jsonl.h"

namespace bpeforge::internal {

struct TallyOptions {
  // How text is cut into pre-tokens: as every tokenizer of the tally cuts it.
  Pattern pattern = Pattern::kGpt2;
  std::string custom_regex;                 // for Pattern::kCustom
  std::vector<std::string> special_tokens;  // distinct, in the tokenizers' order
  int threads = 0;                          // 0: all hardware threads
  size_t chunk_bytes = 4 << 20;             // results do not depend on it
  // From any thread, at most a few times a second: "pre-tokenizing" (bytes of each file as
  // stored), then "encoding" (of its distinct pre-tokens).
  std::function<void(const ProgressFigures&)> progress;
  const std::atomic<bool>* cancel = nullptr;
};

// A file, and for JSON Lines which field of which records to read.
struct TallyInput {
  std::string path;
  JsonlOptions jsonl;
};

// One input as the tokenizers of a tally saw it.
struct FileTally {
  uint64_t bytes = 0;      // of text (for JSON Lines, of the documents)
  uint64_t pretokens = 0;  // occurrences, special tokens not counted
  uint64_t documents = 0;
  uint64_t skipped_records = 0;  // bad JSON Lines records passed over
  std::vector<uint64_t> tokens;  // by tokenizer
};

struct FilesTally {
  std::vector<FileTally> files;     // by input
  std::vector<EncodeTally> totals;  // by tokenizer, over all inputs
};

// The tally of `inputs` by `tokenizers` (none: the inputs' pre-tokens only), which must all cut
// text as `options` says: its pattern and regex, its special tokens in their order.
absl::StatusOr<FilesTally> TallyFiles(const std::vector<TallyInput>& inputs,
                                      const std::vector<const BpeCodec*>& tokenizers,
                                      const TallyOptions& options);

// How many records of the JSON Lines files `paths` hold each value of `jsonl.group_field`
// (nullopt: those that lack it), most first, then by value. Bad records are as `jsonl` says.
absl::StatusOr<std::vector<std::pair<std::optional<std::string>, uint64_t>>> CountGroupValues(
    const std::vector<std::string>& paths, JsonlOptions jsonl, const TallyOptions& options);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_PARALLEL_TALLY_FILES_H_
