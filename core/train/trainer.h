// Training from pre-token counts, separated from all I/O: the parallel driver (and any
// other front end) counts pre-tokens and hands them here.
#ifndef BPEFORGE_CORE_TRAIN_TRAINER_H_
#define BPEFORGE_CORE_TRAIN_TRAINER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/count/counting_table.h"
#include "core/count/pretoken_counts.h"
#include "core/internal/parallelism.h"
#include "core/internal/types.h"
#include "core/train/merge_loop.h"
#include "core/train/token_tree.h"
#include "core/train/word_table.h"

namespace bpeforge::internal {

struct TrainerConfig {
  size_t vocab_size = 0;
  std::vector<std::string> special_tokens;  // duplicates are used once
  IdLayout layout = IdLayout::kBytesFirst;
  MergeRules rules;
  // Whether TrainedVocab holds the vocabulary and merges as byte strings, or only as the tree
  // (for a writer that spells them out one at a time: see core/train/token_tree.h).
  bool spell_out = true;
};

// What training learns: the vocabulary (id -> bytes), the merges in order, and the special
// tokens it was given. `tokens` holds the merges as a tree (token 256 + i is merge i), also
// when `vocab` and `merges` are left empty (TrainerConfig::spell_out).
struct TrainedVocab {
  Vocab vocab;
  Merges merges;
  std::vector<std::string> special_tokens;  // distinct, in given order
  TokenTree tokens;
};

// Checks the config: no empty special token, vocab_size >= 256 + distinct specials.
absl::Status ValidateTrainerConfig(const TrainerConfig& config);

// Learns merges until 256 + specials + merges reaches vocab_size or no pair is left.
// `parallelism` may spread the merge loop's word rewrites; it never changes the result.
// Once `cancel` reads true, returns Cancelled within a few merges.
absl::StatusOr<TrainedVocab> TrainFromCounts(const std::vector<const PreTokenCounts*>& counts,
                                             const TrainerConfig& config,
                                             const std::function<void(size_t)>& progress = nullptr,
                                             const Parallelism& parallelism = {},
                                             const std::atomic<bool>* cancel = nullptr);

// TrainFromCounts in its two steps, for a caller that frees the counts in between (on a web
// corpus they are about as large as the merge loop's own tables, which peak later):
//   absl::StatusOr<AnyWordTable> words = MakeWordTable(counts, config.vocab_size);
//   counts.clear();
//   absl::StatusOr<TrainedVocab> trained = TrainFromWords(*std::move(words), config);
// The words of `counts`: every pre-token of two bytes or more (one byte holds no pair). Given
// the vocabulary size it trains for, the table holds 16-bit symbols where they suffice (a
// NarrowWordTable: vocabularies of up to 65,536); without it (0), a WordTable.
absl::StatusOr<AnyWordTable> MakeWordTable(const std::vector<const PreTokenCounts*>& counts,
                                           size_t vocab_size = 0);
// The same from counting tables that may share pre-tokens (one per worker), each pre-token
// once; `tables` is left empty. Sets `*distinct` to the number of distinct pre-tokens. With
// `parallelism`, its workers fault in the word table's memory (huge_pages.h).
absl::StatusOr<AnyWordTable> MakeWordTable(std::vector<CountingTable>& tables, uint64_t* distinct,
                                           const Parallelism& parallelism = {},
                                           size_t vocab_size = 0);
// The same from distinct pre-tokens in `parts` parts (a count file's entries, as they lie):
// for_each_in(part, fn) calls fn(pre-token, count) for each pre-token of the part. With
// `parallelism`, the parts are read by its workers.
using DistinctPreTokens = std::function<void(
    size_t part, absl::FunctionRef<void(absl::string_view pretoken, uint64_t count)> fn)>;
absl::StatusOr<AnyWordTable> MakeWordTable(size_t parts, const DistinctPreTokens& for_each_in,
                                           const Parallelism& parallelism = {},
                                           size_t vocab_size = 0);
absl::StatusOr<TrainedVocab> TrainFromWords(AnyWordTable words, const TrainerConfig& config,
                                            const std::function<void(size_t)>& progress = nullptr,
                                            const Parallelism& parallelism = {},
                                            const std::atomic<bool>* cancel = nullptr);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_TRAINER_H_
