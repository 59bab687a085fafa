#include "core/train/trainer.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <variant>
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
// parts are sized first, then copied, each word into its place, by the workers of
// `parallelism` at once (the copy of millions of words is too long a step for one thread).
// The words lie grouped by their first two bytes (a counting sort, within the two passes):
// the words that hold a pair then lie nearer each other, and the merge loop, which visits
// them, misses the caches less. (Sorted whole, the merge phase gained about what the sort
// cost.)
template <typename ForEachIn>
absl::StatusOr<AnyWordTable> CopyWords(size_t parts, const ForEachIn& for_each_in,
                                       const Parallelism& parallelism, size_t vocab_size) {
  auto run = [&](const std::function<void(size_t)>& task) { RunParts(parallelism, parts, task); };
  constexpr size_t kGroups = size_t{1} << 16;
  auto group_of = [](absl::string_view word) {
    return static_cast<size_t>(static_cast<uint8_t>(word[0])) << 8 | static_cast<uint8_t>(word[1]);
  };
  struct Size {
    size_t words = 0, bytes = 0;
  };
  // sizes[part][group]: the part's words of the group, then where they start in the table.
  std::vector<std::vector<Size>> sizes(parts);
  std::vector<size_t> longest(parts);
  run([&](size_t part) {
    std::vector<Size>& size = sizes[part];
    size.resize(kGroups);
    for_each_in(part, [&](absl::string_view word, uint64_t) {
      if (word.size() < 2) return;
      Size& s = size[group_of(word)];
      ++s.words;
      s.bytes += word.size();
      longest[part] = std::max(longest[part], word.size());
    });
  });
  size_t words = 0, bytes = 0;
  for (size_t group = 0; group < kGroups; ++group) {
    for (size_t part = 0; part < parts; ++part) {
      Size& s = sizes[part][group];
      const Size here = s;
      s = {words, bytes};
      words += here.words;
      bytes += here.bytes;
    }
  }
  size_t most = 0;
  for (size_t part_longest : longest) most = std::max(most, part_longest);
  if (most >= IndexedWord::kGoneBit) {
    return absl::ResourceExhaustedError(
        absl::StrCat("a pre-token of ", most, " bytes is longer than the ",
                     IndexedWord::kGoneBit - 1, " that training supports"));
  }
  auto fill = [&](auto table) -> absl::StatusOr<AnyWordTable> {
    using Table = decltype(table);
    const size_t header = Table::Units(0);
    const size_t units = words * header + bytes;
    if (units > Table::kMaxUnits) {
      return absl::ResourceExhaustedError("too many distinct pre-tokens for one word table");
    }
    table.Reserve(words, units);
    table.FaultIn(parallelism);
    table.Resize(words, units);
    table.set_longest(most);
    run([&](size_t part) {
      std::vector<Size>& next = sizes[part];  // where the part's next word of each group goes
      for_each_in(part, [&](absl::string_view word, uint64_t n) {
        if (word.size() < 2) return;
        Size& at = next[group_of(word)];
        table.Put(at.words, at.words * header + at.bytes, word, n);
        ++at.words;
        at.bytes += word.size();
      });
    });
    return AnyWordTable(std::move(table));
  };
  // 16-bit symbols where every id the merges make fits, and no word is long enough to be
  // indexed (an IndexedWord holds 32-bit ids; LearnMergeTree would copy the table to widen it).
  // With vocab_size 0 (not known) the symbols are 32-bit.
  if (vocab_size != 0 && vocab_size - 1 <= NarrowWordTable::kMaxSymbol &&
      most < kIndexedWordLength &&
      words * NarrowWordTable::Units(0) + bytes <= NarrowWordTable::kMaxUnits) {
    return fill(NarrowWordTable());
  }
  return fill(WordTable());
}

}  // namespace

absl::StatusOr<AnyWordTable> MakeWordTable(const std::vector<const PreTokenCounts*>& counts,
                                           size_t vocab_size) {
  return CopyWords(
      counts.size(),
      [&](size_t part, const auto& fn) {
        for (const auto& [word, n] : *counts[part]) fn(word, n);
      },
      Parallelism(), vocab_size);
}

absl::StatusOr<AnyWordTable> MakeWordTable(size_t parts, const DistinctPreTokens& for_each_in,
                                           const Parallelism& parallelism, size_t vocab_size) {
  return CopyWords(
      parts, [&](size_t part, const auto& fn) { for_each_in(part, fn); }, parallelism, vocab_size);
}

absl::StatusOr<AnyWordTable> MakeWordTable(std::vector<CountingTable>& tables, uint64_t* distinct,
                                           const Parallelism& parallelism, size_t vocab_size) {
  *distinct = 0;
  if (tables.empty()) return AnyWordTable();

  // The workers' tables overlap: on web text, two workers count 3.1 million distinct
  // pre-tokens each, 4.2 million in all.
  CountingTable::MakeDisjoint(tables, parallelism);
  const size_t used = tables.size();
  for (size_t t = 0; t < used; ++t) *distinct += tables[t].size();
  // Each table in as many parts as there are workers.
  const size_t per_table = Workers(parallelism);
  absl::StatusOr<AnyWordTable> words = CopyWords(
      used * per_table,
      [&](size_t part, const auto& fn) {
        tables[part / per_table].ForEachInPart(part % per_table, per_table, fn);
      },
      parallelism, vocab_size);
  tables.clear();
  return words;
}

absl::StatusOr<TrainedVocab> TrainFromWords(AnyWordTable words, const TrainerConfig& config,
                                            const std::function<void(size_t)>& progress,
                                            const Parallelism& parallelism,
                                            const std::atomic<bool>* cancel) {
  BPEFORGE_RETURN_IF_ERROR(ValidateTrainerConfig(config));
  TrainedVocab out;
  out.special_tokens = SpecialTokens(config.special_tokens).tokens();
  out.tokens = std::visit(
      [&](auto& table) {
        return LearnMergeTree(table, config.vocab_size - 256 - out.special_tokens.size(), progress,
                              parallelism, cancel, config.rules);
      },
      words);
  words = AnyWordTable();  // freed first: a vocabulary can be many times the corpus (one letter)
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
  absl::StatusOr<AnyWordTable> words = MakeWordTable(counts, config.vocab_size);
  if (!words.ok()) return words.status();
  return TrainFromWords(*std::move(words), config, progress, parallelism, cancel);
}

}  // namespace bpeforge::internal
