#include "core/train/trainer.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/internal/status_macros.h"
#include "core/pretokenize/special_tokens.h"
#include "core/train/indexed_word.h"
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

namespace {

// Copies every pre-token of two bytes or more (one byte holds no pair) that `for_each(fn)`
// passes to fn(bytes, count) into a word table sized by a first pass.
template <typename ForEach>
absl::StatusOr<WordTable> CopyWords(const ForEach& for_each, const Parallelism& parallelism) {
  size_t words = 0, bytes = 0, longest = 0;
  for_each([&](absl::string_view word, uint64_t) {
    words += word.size() > 1;
    bytes += word.size();
    longest = std::max(longest, word.size());
  });
  if (longest >= IndexedWord::kGoneBit) {
    return absl::ResourceExhaustedError(
        absl::StrCat("a pre-token of ", longest, " bytes is longer than the ",
                     IndexedWord::kGoneBit - 1, " that training supports"));
  }
  WordTable table;
  table.Reserve(words, bytes);
  table.FaultIn(parallelism);
  bool fits = true;
  for_each([&](absl::string_view word, uint64_t n) {
    if (word.size() > 1) fits = fits && table.Add(word, n);
  });
  if (!fits) return absl::ResourceExhaustedError("too many distinct pre-tokens for one word table");
  return table;
}

}  // namespace

absl::StatusOr<WordTable> MakeWordTable(const std::vector<const PreTokenCounts*>& counts) {
  return CopyWords(
      [&](const auto& fn) {
        for (const PreTokenCounts* c : counts) {
          for (const auto& [word, n] : *c) fn(word, n);
        }
      },
      Parallelism());
}

absl::StatusOr<WordTable> MakeWordTable(std::vector<CountingTable>& tables, uint64_t* distinct,
                                        const Parallelism& parallelism) {
  *distinct = 0;
  if (tables.empty()) return WordTable();

  // The workers' tables overlap: on web text, two workers count 3.1 million distinct
  // pre-tokens each, 4.2 million in all. The largest keeps its own; every other hands it the
  // pre-tokens they share, and what is left of the others (each pre-token in one table only)
  // is added up in the second. So the largest never grows: adding all into it rehashed it
  // into a fresh table twice its size, and this first touch of 200 MB cost 0.08-0.5 s.
  std::sort(tables.begin(), tables.end(),
            [](const CountingTable& a, const CountingTable& b) { return a.size() > b.size(); });
  for (size_t t = 1; t < tables.size(); ++t) tables[t].MoveCommonInto(tables[0]);
  for (size_t t = 2; t < tables.size(); ++t) {
    tables[1].MergeFrom(tables[t]);
    tables[t] = CountingTable();
  }
  const size_t used = std::min<size_t>(tables.size(), 2);
  for (size_t t = 0; t < used; ++t) *distinct += tables[t].size();
  absl::StatusOr<WordTable> words = CopyWords(
      [&](const auto& fn) {
        for (size_t t = 0; t < used; ++t) tables[t].ForEach(fn);
      },
      parallelism);
  tables.clear();
  return words;
}

absl::StatusOr<TrainedVocab> TrainFromWords(WordTable words, const TrainerConfig& config,
                                            const std::function<void(size_t)>& progress,
                                            const Parallelism& parallelism,
                                            const std::atomic<bool>* cancel) {
  BPEFORGE_RETURN_IF_ERROR(ValidateTrainerConfig(config));
  TrainedVocab out;
  out.special_tokens = SpecialTokens(config.special_tokens).tokens();
  out.tokens = LearnMergeTree(words, config.vocab_size - 256 - out.special_tokens.size(), progress,
                              parallelism, cancel, config.rules);
  words = WordTable();  // freed first: a vocabulary can be many times the corpus (one letter)
  if (cancel != nullptr && cancel->load()) return absl::CancelledError("training was cancelled");
  if (config.spell_out) {
    out.merges = SpellMerges(out.tokens);
    out.vocab = BuildVocab(out.special_tokens, out.merges, config.layout);
  }
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
