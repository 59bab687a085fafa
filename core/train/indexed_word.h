// A very long word that the merge loop rewrites without rescanning it.
//
// The merge loop normally rewrites a word by scanning all of its symbols, which costs the
// word's length at every merge that touches it. For a pre-token of megabytes (a file of one
// repeated letter, CJK text without spaces or punctuation: inputs with no safe cut point),
// that makes training cost length x merges. An IndexedWord keeps, for each pair, the positions
// where it may start, so a merge costs the number of its occurrences. Positions lists may hold
// stale entries (a position merged away or whose pair changed); each is checked when used.
// The symbols stay at their original positions; a run of positions merged away holds its
// length (with kGoneBit) in its first and last slot, so a neighbour is one step and one jump
// away, with no links beside the word.
//
//   IndexedWord word(symbols, length);              // symbols: the word table's run
//   word.Merge(symbols, left, right, merged,
//              [&](Side side, uint32_t neighbour) { ... });  // as the scanning rewrite
//
// Memory: all lists share one pool of 4-byte positions, filled a merge's new lists at a time
// (each list is made by one merge, which counts it as it goes) and compacted in place when half of
// it is spent lists, or when a merge's new lists might not fit. It never holds more than twice
// the word's symbols (8 bytes a symbol, against the 4 of the word itself); each list costs 16
// bytes more in the map, where one vector per pair would cost several times that.
// Only words of kIndexedWordLength symbols or more use it. Symbol ids and lengths must be below
// kGoneBit.
#ifndef BPEFORGE_CORE_TRAIN_INDEXED_WORD_H_
#define BPEFORGE_CORE_TRAIN_INDEXED_WORD_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "core/train/pair_queue.h"

namespace bpeforge::internal {

// Words at least this long are indexed. Below it a scan is as cheap as the index's lookups.
inline constexpr size_t kIndexedWordLength = 4096;

// Which side of a merged occurrence a neighbour stands on. Merging (a, b) into t where P is on
// the left turns a (P, a) into a (P, t); where N is on the right, a (b, N) into a (t, N).
enum class Side { kLeft, kRight };

class IndexedWord {
 public:
  // Indexes the pairs of symbols[0..length).
  IndexedWord(const uint32_t* symbols, uint32_t length);

  // Rewrites every `left right` (left to right, non-overlapping) as `merged`, in place in
  // `symbols` (positions merged away are marked as gone). Reports the neighbours of each
  // occurrence as it merges it, left then right, in the same order as the scanning rewrite (a
  // left neighbour may be `merged`, when the occurrence before it was merged just now).
  void Merge(uint32_t* symbols, uint32_t left, uint32_t right, uint32_t merged,
             absl::FunctionRef<void(Side, uint32_t)> neighbour);

  // The symbols left, in order (position 0 is never merged away: merges remove the right one).
  std::vector<uint32_t> Symbols(const uint32_t* symbols) const;

  static constexpr uint32_t kGoneBit = 0x80000000;

 private:
  static constexpr uint32_t kNone = 0xffffffff;
  // The positions still present next to position p (kNone at either end).
  uint32_t Next(const uint32_t* s, uint32_t p) const {
    uint32_t q = p + 1;
    if (q < length_ && (s[q] & kGoneBit)) q += s[q] & ~kGoneBit;
    return q < length_ ? q : kNone;
  }
  static uint32_t Prev(const uint32_t* s, uint32_t p) {
    if (p == 0) return kNone;
    const uint32_t q = p - 1;
    return (s[q] & kGoneBit) ? q - (s[q] & ~kGoneBit) : q;
  }

  // Moves the lists down to the start of the pool, over the spent ones.
  void Compact();
  // Gives the whole pages of pool_[from, to), which are read no more, back to the system;
  // returns `to`.
  uint32_t Release(uint32_t from, uint32_t to);

  struct List {  // where a pair may start: pool_[begin, begin + size)
    uint32_t begin, size;
  };
  uint32_t length_;
  uint32_t symbols_;       // present
  uint32_t end_ = 0;       // pool_[0, end_) is in use
  uint32_t spent_ = 0;     // of it, by lists already merged
  uint32_t resident_ = 0;  // pool_[0, resident_) may be resident
  uint32_t capacity_;      // of pool_: 2 * length_, the most ever needed (see Merge)
  std::unique_ptr<uint32_t[]> pool_;
  absl::flat_hash_map<PairKey, List> starts_;
};

// The words long enough to be indexed, by word id. Built before the first merge and read-only
// as a map afterwards, so the parts of a merge may rewrite their (disjoint) words at once.
using IndexedWords = absl::flat_hash_map<uint32_t, IndexedWord>;

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_INDEXED_WORD_H_
