// A very long word that the merge loop rewrites without rescanning it.
//
// The merge loop normally rewrites a word by scanning all of its symbols, which costs the
// word's length at every merge that touches it. For a pre-token of megabytes (a file of one
// repeated letter, CJK text without spaces or punctuation: inputs with no safe cut point),
// that makes training cost length x merges. An IndexedWord keeps the word's symbols as a
// linked list over their original positions, and for each pair the positions where it may
// start, so a merge costs the number of its occurrences. Positions lists may hold stale
// entries (a position merged away or whose pair changed); each is checked when used.
//
//   IndexedWord word(symbols, length);              // symbols: the word table's run
//   word.Merge(symbols, left, right, merged,
//              [&](PairKey pair, int sign) { ... });  // the same changes MergeWord reports
//
// Memory: about 24 bytes per symbol at most (links, and positions added by merges), against
// the 4 of the word itself; so only words of kIndexedWordLength symbols or more use it.
#ifndef BPEFORGE_CORE_TRAIN_INDEXED_WORD_H_
#define BPEFORGE_CORE_TRAIN_INDEXED_WORD_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "core/train/pair_queue.h"

namespace bpeforge::internal {

// Words at least this long are indexed. Below it a scan is as cheap as the index's lookups.
inline constexpr size_t kIndexedWordLength = 4096;

class IndexedWord {
 public:
  // Indexes the pairs of symbols[0..length).
  IndexedWord(const uint32_t* symbols, uint32_t length);

  // Rewrites every `left right` (left to right, non-overlapping) as `merged`, in place in
  // `symbols` (positions merged away become kGone). Reports each pair that gains (+1) or
  // loses (-1) an occurrence, in the same order as the scanning rewrite.
  void Merge(uint32_t* symbols, uint32_t left, uint32_t right, uint32_t merged,
             absl::FunctionRef<void(PairKey, int)> change);

  // The symbols left, in order (position 0 is never merged away: merges remove the right one).
  std::vector<uint32_t> Symbols(const uint32_t* symbols) const;

  static constexpr uint32_t kGone = 0xffffffff;

 private:
  static constexpr uint32_t kNone = 0xffffffff;
  std::vector<uint32_t> next_, prev_;  // neighbours among the positions still present
  absl::flat_hash_map<PairKey, std::vector<uint32_t>> starts_;  // where each pair may start
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_INDEXED_WORD_H_
