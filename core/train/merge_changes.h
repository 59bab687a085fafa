// The count changes of one merge, gathered by neighbour symbol while its words are rewritten,
// and the word lists of the inverted index (pair -> the words that may hold it).
//
//   MergeChanges changes;
//   changes.Prepare(token + 1);
//   changes.Add(Side::kLeft, neighbour, word_count, word);  // for each occurrence merged
//   for (uint32_t n : changes.touched(Side::kLeft)) Use(changes.at(Side::kLeft, n));
//   changes.Clear();
#ifndef BPEFORGE_CORE_TRAIN_MERGE_CHANGES_H_
#define BPEFORGE_CORE_TRAIN_MERGE_CHANGES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "core/internal/pooled_allocator.h"
#include "core/train/indexed_word.h"

namespace bpeforge::internal {

// The words that may hold a pair (its entry of the inverted index). Most pairs occur in a
// handful of words: their lists live inline, with no allocation (the same 24 bytes as a
// std::vector); the longer ones take their buffers from a per-thread pool, since lists grow
// and are freed at every merge.
using WordList = absl::InlinedVector<uint32_t, 4, PooledAllocator<uint32_t>>;

// The count changes of one merge of (a, b) into t, by neighbour. An occurrence with P on its
// left turns a (P, a) into a (P, t), one with N on its right a (b, N) into a (t, N): both pairs
// of a side move the same count, so one entry per neighbour symbol holds it, with the words
// that now hold the new pair. Entries sit in arrays by symbol: an occurrence costs two array
// updates, where a hash map of pairs would take four lookups.
class MergeChanges {
 public:
  struct Moved {
    int64_t count = 0;
    WordList words;  // empty: not touched by this merge
  };

  // Makes room for neighbours below `symbols`; entries must be cleared (Clear).
  void Prepare(size_t symbols) {
    if (symbols > left_.size()) {
      const size_t size = std::max(symbols, 2 * left_.size());
      left_.resize(size);
      right_.resize(size);
    }
  }
  void Add(Side side, uint32_t neighbour, int64_t count, uint32_t word) {
    Moved& m = at(side, neighbour);
    if (m.words.empty()) mutable_touched(side).push_back(neighbour);
    m.count += count;
    if (m.words.empty() || m.words.back() != word) m.words.push_back(word);
  }
  // Adds `part`'s entries of one side (made from other words) and clears them there. The two
  // sides share nothing: they may be added at once.
  void AddPart(MergeChanges& part, Side side) {
    for (uint32_t n : part.touched(side)) {
      Moved& from = part.at(side, n);
      Moved& to = at(side, n);
      if (to.words.empty()) mutable_touched(side).push_back(n);
      to.count += from.count;
      to.words.insert(to.words.end(), from.words.begin(), from.words.end());
      from.count = 0;
      from.words.clear();
    }
    part.mutable_touched(side).clear();
  }
  const std::vector<uint32_t>& touched(Side side) const {
    return side == Side::kLeft ? touched_left_ : touched_right_;
  }
  Moved& at(Side side, uint32_t neighbour) {
    return side == Side::kLeft ? left_[neighbour] : right_[neighbour];
  }
  const Moved& at(Side side, uint32_t neighbour) const {
    return side == Side::kLeft ? left_[neighbour] : right_[neighbour];
  }
  void Clear() {
    for (const Side side : {Side::kLeft, Side::kRight}) {
      for (uint32_t n : touched(side)) {
        at(side, n).count = 0;
        at(side, n).words.clear();  // frees a list that outgrew its inline room
      }
      mutable_touched(side).clear();
    }
  }

 private:
  std::vector<uint32_t>& mutable_touched(Side side) {
    return side == Side::kLeft ? touched_left_ : touched_right_;
  }
  std::vector<Moved> left_, right_;
  std::vector<uint32_t> touched_left_, touched_right_;
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_MERGE_CHANGES_H_
