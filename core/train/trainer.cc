#include "core/train/trainer.h"

#include "absl/strings/str_cat.h"
#include "core/internal/status_macros.h"
#include "core/pretokenize/special_tokens.h"
#include "core/train/merge_loop.h"
#include "core/train/vocab.h"

namespace bpeforge::internal {

absl::Status ValidateTrainerConfig(const TrainerConfig& config) {
  BPEFORGE_RETURN_IF_ERROR(ValidateSpecialTokens(config.special_tokens));
  const size_t specials = SpecialTokens(config.special_tokens).tokens().size();
  if (config.vocab_size < 256 + specials) {
    return absl::InvalidArgumentError(absl::StrCat("vocab size ", config.vocab_size,
                                                   " is smaller than 256 bytes + ", specials,
                                                   " special tokens = ", 256 + specials));
  }
  return absl::OkStatus();
}

absl::StatusOr<WordTable> MakeWordTable(const std::vector<const PreTokenCounts*>& counts) {
  WordTable words;
  size_t distinct = 0, bytes = 0;
  for (const PreTokenCounts* c : counts) {
    distinct += c->size();
    for (const auto& [word, n] : *c) bytes += word.size();
  }
  words.Reserve(distinct, bytes);
  for (const PreTokenCounts* c : counts) {
    for (const auto& [word, n] : *c) {
      if (word.size() > 1 && !words.Add(word, n)) {  // one byte: no pair to count
        return absl::ResourceExhaustedError("too many distinct pre-tokens for one word table");
      }
    }
  }
  return words;
}

absl::StatusOr<TrainedVocab> TrainFromWords(WordTable words, const TrainerConfig& config,
                                            const std::function<void(size_t)>& progress,
                                            const Parallelism& parallelism,
                                            const std::atomic<bool>* cancel) {
  BPEFORGE_RETURN_IF_ERROR(ValidateTrainerConfig(config));
  TrainedVocab out;
  out.special_tokens = SpecialTokens(config.special_tokens).tokens();
  out.merges = LearnMerges(words, config.vocab_size - 256 - out.special_tokens.size(), progress,
                           parallelism, cancel, config.rules);
  if (cancel != nullptr && cancel->load()) return absl::CancelledError("training was cancelled");
  out.vocab = BuildVocab(out.special_tokens, out.merges, config.layout);
  return out;
}

absl::StatusOr<TrainedVocab> TrainFromCounts(const std::vector<const PreTokenCounts*>& counts,
                                             const TrainerConfig& config,
                                             const std::function<void(size_t)>& progress,
                                             const Parallelism& parallelism,
                                             const std::atomic<bool>* cancel) {
  BPEFORGE_RETURN_IF_ERROR(ValidateTrainerConfig(config));
  absl::StatusOr<WordTable> words = MakeWordTable(counts);
  if (!words.ok()) return words.status();
  return TrainFromWords(*std::move(words), config, progress, parallelism, cancel);
}

}  // namespace bpeforge::internal
