// The merge loop's pair statistics: each pair's count and the words that may hold it (the
// inverted index), with a priority queue of pairs by count under lazy deletion (pair_queue.h).
//
//   PairStats stats(tokens, /*max_token_length=*/0, words.size(), parallelism);
//   stats.Reset(CountPairs(words, indexed, tokens.size(), parallelism));
//   while (std::optional<PairKey> best = stats.PopBest()) {
//     PairTable::node_type merged = stats.Take(*best);  // its count and its words
//     ...  // rewrite merged.mapped().words, gathering the changes
//     stats.Apply(changes, *best, token);
//   }
#ifndef BPEFORGE_CORE_TRAIN_PAIR_STATS_H_
#define BPEFORGE_CORE_TRAIN_PAIR_STATS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "core/internal/huge_pages.h"
#include "core/internal/parallelism.h"
#include "core/train/merge_changes.h"
#include "core/train/pair_queue.h"
#include "core/train/token_tree.h"

namespace bpeforge::internal {

// What the merge loop knows about one pair: its current count, and the words that may hold
// it (entries can be stale: a rewrite checks each word).
struct PairInfo {
  int64_t count = 0;
  WordList words;
};
using PairTable = absl::flat_hash_map<PairKey, PairInfo, absl::Hash<PairKey>, std::equal_to<>,
                                      HugePageAllocator<std::pair<const PairKey, PairInfo>>>;

// The pairs merges may pick, by count. A pair's count never grows once it exists (a pair that
// gains holds the new token, so it is new), so a pair made with fewer occurrences than the
// floor cannot be merged while the best pair has more: it is left out, and its word list is
// never kept. Should the best pair fall below the floor, PopBest says so, and the caller
// counts all pairs again for KeepAll.
class PairStats {
 public:
  // `tokens` gives the bytes of each symbol (for ties and token lengths); a pair that would
  // make a token longer than `max_token_length` bytes (0: any) is counted but never picked.
  // The table is sized for `words` words; its memory is faulted in by the workers of
  // `parallelism`, which must outlive it.
  PairStats(const TokenTree& tokens, size_t max_token_length, size_t words,
            const Parallelism& parallelism);

  // Replaces the statistics with the pairs of `counted` at or above the floor.
  void Reset(PairTable counted);
  // Lowers the floor to 1 and replaces the statistics with `counted`, every pair kept.
  void KeepAll(PairTable counted);
  bool keeps_all() const { return floor_ == 1; }

  // The pair with the highest count (ties: the greater pair of byte strings), taken off the
  // queue; nothing if no pair is left or the best falls below the floor (see KeepAll).
  std::optional<PairKey> PopBest();
  // Queues `pair` again, after a PopBest that did not merge it.
  void Requeue(PairKey pair) { queue_.Push(pair, Count(pair)); }
  // Whether `a` of count `ca` would be picked before `b` of count `cb`.
  bool Outranks(PairKey a, int64_t ca, PairKey b, int64_t cb) const {
    return queue_.Outranks(a, ca, b, cb);
  }
  // The words of the pair that PopBest likely returns next, or nothing; a hint for fetching.
  const WordList* LikelyNextWords() const;

  // A pair's count now (0 for a pair not kept).
  int64_t Count(PairKey pair) const;
  // Takes a pair out of the statistics, with its count and words, to merge it.
  PairTable::node_type Take(PairKey pair) { return pairs_.extract(pair); }

  // Applies the count changes of the merge of `merged` into `token`: each neighbour's new
  // pair gains its count and words, each neighbour's old pair loses them.
  void Apply(MergeChanges& changes, PairKey merged, uint32_t token);

  // The pairs of a merge into `token` of (left, right): an occurrence with neighbour n on
  // `side` turns the lost pair into the gained one.
  static PairKey Gained(Side side, uint32_t n, uint32_t token) {
    return side == Side::kLeft ? MakePair(n, token) : MakePair(token, n);
  }
  static PairKey Lost(Side side, uint32_t n, PairKey merged) {
    return side == Side::kLeft ? MakePair(n, PairLeft(merged)) : MakePair(PairRight(merged), n);
  }

 private:
  bool MayMerge(PairKey pair) const;

  const TokenTree& tokens_;
  const size_t max_token_length_;
  const size_t words_;
  int64_t floor_;
  PairTable pairs_;
  PairQueue queue_;
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_PAIR_STATS_H_
