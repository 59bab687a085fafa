#include "core/train/merge_loop.h"

#include <algorithm>
#include <optional>
#include <string>

#include "core/train/indexed_word.h"
#include "core/train/look_ahead.h"
#include "core/train/merge_changes.h"
#include "core/train/pair_counter.h"
#include "core/train/pair_stats.h"
#include "core/train/word_rewriter.h"

namespace bpeforge::internal {
namespace {

// The textbook loop: count every pair once, then, until the vocabulary is full, pick the most
// frequent pair, merge it in the words that hold it, and update the counts of the pairs it
// changed (not a recount).
template <typename Symbol>
TokenTree LearnMergeTreeOf(BasicWordTable<Symbol>& words, size_t max_merges,
                           const std::function<void(size_t)>& progress,
                           const Parallelism& parallelism, const std::atomic<bool>* cancel,
                           const MergeRules& rules, size_t min_indexed_length) {
  // 1. The first 256 tokens are the bytes; each merge appends the token it makes. Token ids
  //    stay below IndexedWord::kGoneBit (reached only past 8 GB of words).
  TokenTree tokens;
  max_merges = std::min<size_t>(max_merges, IndexedWord::kGoneBit - 256);

  // 2. Count every adjacent pair in every word, weighted by the word's count, with the words
  //    that hold it (the inverted index), and queue the pairs by count.
  WordRewriter<Symbol> rewriter(words, parallelism, min_indexed_length);
  PairStats stats(tokens, rules.max_token_length, words.size(), parallelism);
  stats.Reset(CountPairs(words, rewriter.indexed(), tokens.size(), parallelism));
  LookAhead<Symbol> look_ahead(rewriter, stats, parallelism, rules.min_frequency);
  using Merge = typename LookAhead<Symbol>::Merge;

  // 3. Merge the most frequent pair until the vocabulary is full or no pair is left.
  while (tokens.merges() < max_merges) {
    // 3a. Pick the most frequent pair (ties: the greater pair of byte strings), unless the
    //     look-ahead picked it already. Should it fall below the pairs kept, count them all.
    std::optional<Merge> merge = look_ahead.Take();
    if (!merge) {
      std::optional<PairKey> best = stats.PopBest();
      if (!best && !stats.keeps_all()) {
        stats.KeepAll(CountPairs(words, rewriter.indexed(), tokens.size(), parallelism));
        best = stats.PopBest();
      }
      // No pair left, or the best is below the minimum and so is every other.
      if (!best || static_cast<uint64_t>(stats.Count(*best)) < rules.min_frequency) break;
      merge = Merge{*best, stats.Take(*best)};
    }

    // 3b. Record the merge, the token it makes and how often the pair occurred.
    const uint32_t left = PairLeft(merge->pair), right = PairRight(merge->pair);
    const uint32_t token =
        tokens.Add(left, right, static_cast<uint64_t>(merge->taken.mapped().count));

    // 3c. Rewrite every word that holds the pair (unless the look-ahead did); each rewrite
    //     reports the neighbours of the occurrences it merges. The first words of the likely
    //     next merge are fetched meanwhile, so that their misses overlap this merge.
    MergeChanges* changes = merge->changes;
    if (changes == nullptr) {
      rewriter.FetchFirst(stats.LikelyNextWords());
      changes = &rewriter.Merge(merge->taken.mapped().words, left, right, token);
    }

    // 3d. Update the pair statistics: the pairs with the new token gain, the pairs with its
    //     parts lose. The look-ahead may pick the next merge first and rewrite its words
    //     meanwhile.
    look_ahead.ApplyAndPickNext(*changes, merge->pair, token, tokens.merges() < max_merges);

    if (progress && tokens.merges() % 1000 == 0) progress(tokens.merges());
    if (cancel != nullptr && tokens.merges() % 64 == 0 && cancel->load(std::memory_order_relaxed)) {
      break;
    }
  }
  if (progress && tokens.merges() % 1000 != 0) progress(tokens.merges());  // the end
  return tokens;
}

// The words of a NarrowWordTable with 32-bit symbols (they fit: a word takes fewer 32-bit
// units than 16-bit ones).
WordTable Widen(const NarrowWordTable& narrow) {
  WordTable wide;
  size_t units = 0;
  for (uint32_t w : narrow.ids()) units += WordTable::Units(narrow.length(w));
  wide.Reserve(narrow.size(), units);
  std::string bytes;
  for (uint32_t w : narrow.ids()) {
    const uint16_t* s = narrow.symbols(w);
    bytes.assign(s, s + narrow.length(w));  // every symbol is still a byte
    wide.Add(bytes, narrow.count(w));
  }
  return wide;
}

}  // namespace

TokenTree LearnMergeTree(WordTable& words, size_t max_merges,
                         const std::function<void(size_t)>& progress,
                         const Parallelism& parallelism, const std::atomic<bool>* cancel,
                         const MergeRules& rules, size_t min_indexed_length) {
  return LearnMergeTreeOf(words, max_merges, progress, parallelism, cancel, rules,
                          min_indexed_length);
}

TokenTree LearnMergeTree(NarrowWordTable& words, size_t max_merges,
                         const std::function<void(size_t)>& progress,
                         const Parallelism& parallelism, const std::atomic<bool>* cancel,
                         const MergeRules& rules, size_t min_indexed_length) {
  if (max_merges > NarrowWordTable::kMaxSymbol + 1 - 256 ||
      words.longest() >= std::max<size_t>(min_indexed_length, 2)) {
    WordTable wide = Widen(words);
    words = NarrowWordTable();
    return LearnMergeTreeOf(wide, max_merges, progress, parallelism, cancel, rules,
                            min_indexed_length);
  }
  return LearnMergeTreeOf(words, max_merges, progress, parallelism, cancel, rules,
                          min_indexed_length);
}

Merges SpellMerges(const TokenTree& tokens) {
  Merges merges;
  merges.reserve(tokens.merges());
  std::string left, right;
  for (size_t i = 0; i < tokens.merges(); ++i) {
    const auto [l, r] = tokens.parts(static_cast<uint32_t>(256 + i));
    merges.emplace_back(tokens.Bytes(l, &left), tokens.Bytes(r, &right));
  }
  return merges;
}

Merges LearnMerges(WordTable& words, size_t max_merges, const std::function<void(size_t)>& progress,
                   const Parallelism& parallelism, const std::atomic<bool>* cancel,
                   const MergeRules& rules, size_t min_indexed_length) {
  return SpellMerges(
      LearnMergeTree(words, max_merges, progress, parallelism, cancel, rules, min_indexed_length));
}

Merges LearnMerges(NarrowWordTable& words, size_t max_merges,
                   const std::function<void(size_t)>& progress, const Parallelism& parallelism,
                   const std::atomic<bool>* cancel, const MergeRules& rules,
                   size_t min_indexed_length) {
  return SpellMerges(
      LearnMergeTree(words, max_merges, progress, parallelism, cancel, rules, min_indexed_length));
}

}  // namespace bpeforge::internal
