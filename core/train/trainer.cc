#include "core/train/trainer.h"

#include <algorithm>
#include <functional>
#include <vector>

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

// Copies every pre-token of two bytes or more (one byte holds no pair) into a word table:
// for_each_in(part, fn) passes fn(bytes, count) for the pre-tokens of one of `parts` parts. The
// parts are sized first, then copied, each into its own stretch of the table, by the workers
// of `parallelism` at once (on web text one thread took 0.3 s to copy 4.2 million words); the
// words lie in the order of the parts.
template <typename ForEachIn>
absl::StatusOr<WordTable> CopyWords(size_t parts, const ForEachIn& for_each_in,
                                    const Parallelism& parallelism) {
  auto run = [&](const std::function<void(size_t)>& task) { RunParts(parallelism, parts, task); };
  struct Size {
    size_t words = 0, bytes = 0, longest = 0;
  };
  std::vector<Size> sizes(parts + 1);  // sizes[part + 1]; then where each part starts
  run([&](size_t part) {
    Size& size = sizes[part + 1];
    for_each_in(part, [&](absl::string_view word, uint64_t) {
      if (word.size() < 2) return;
      ++size.words;
      size.bytes += word.size();
      size.longest = std::max(size.longest, word.size());
    });
  });
  size_t longest = 0;
  for (size_t part = 1; part <= parts; ++part) {
    longest = std::max(longest, sizes[part].longest);
    sizes[part].words += sizes[part - 1].words;
    sizes[part].bytes += sizes[part - 1].bytes;
  }
  const size_t words = sizes[parts].words, bytes = sizes[parts].bytes;
  if (longest >= IndexedWord::kGoneBit) {
    return absl::ResourceExhaustedError(
        absl::StrCat("a pre-token of ", longest, " bytes is longer than the ",
                     IndexedWord::kGoneBit - 1, " that training supports"));
  }
  if (words * WordTable::Units(0) + bytes > WordTable::kMaxUnits) {
    return absl::ResourceExhaustedError("too many distinct pre-tokens for one word table");
  }
  WordTable table;
  table.Reserve(words, bytes);
  table.FaultIn(parallelism);
  table.Resize(words, bytes);
  run([&](size_t part) {
    size_t i = sizes[part].words;
    size_t at = i * WordTable::Units(0) + sizes[part].bytes;
    for_each_in(part, [&](absl::string_view word, uint64_t n) {
      if (word.size() < 2) return;
      table.Put(i++, at, word, n);
      at += WordTable::Units(word.size());
    });
  });
  return table;
}

}  // namespace

absl::StatusOr<WordTable> MakeWordTable(const std::vector<const PreTokenCounts*>& counts) {
  return CopyWords(
      counts.size(),
      [&](size_t part, const auto& fn) {
        for (const auto& [word, n] : *counts[part]) fn(word, n);
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
  // Each table in as many parts as there are workers.
  const size_t per_table = Workers(parallelism);
  absl::StatusOr<WordTable> words = CopyWords(
      used * per_table,
      [&](size_t part, const auto& fn) {
        tables[part / per_table].ForEachInPart(part % per_table, per_table, fn);
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
