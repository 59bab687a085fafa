#include "core/train/word_rewriter.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/train/find_pair.h"

namespace bpeforge::internal {
namespace {

// Words in flight while a merge's words are rewritten: the walk is bound by memory latency.
constexpr size_t kAhead = 8;
// Words of the next merge fetched during this one.
constexpr size_t kNextWords = 4;

// Rewrites every `left right` in word w (left to right, non-overlapping) as `merged`, and
// records each occurrence's neighbours. (left, right) itself is dropped wholesale after the
// merge.
template <typename Symbol>
void MergeWord(BasicWordTable<Symbol>& words, uint32_t w, uint32_t left, uint32_t right,
               uint32_t merged, MergeChanges& changes) {
  Symbol* s = words.symbols(w);
  const uint32_t n = words.length(w);
  uint32_t out = FindPair<Symbol>(s, n, left, right, BasicWordTable<Symbol>::kUnitsBefore);
  if (out == n) return;
  const auto f = static_cast<int64_t>(words.count(w));
  for (uint32_t i = out; i < n;) {
    if (i + 1 < n && s[i] == left && s[i + 1] == right) {
      if (out > 0) changes.Add(Side::kLeft, s[out - 1], f, w);
      if (i + 2 < n) changes.Add(Side::kRight, s[i + 2], f, w);
      s[out++] = static_cast<Symbol>(merged);
      i += 2;
    } else {
      s[out++] = s[i++];
    }
  }
  words.set_length(w, out);
}

// The words of `min_length` symbols or more, indexed; none in a NarrowWordTable (the merge
// loop widens one that would have some).
template <typename Symbol>
IndexedWords IndexLongWords(const BasicWordTable<Symbol>& words, size_t min_length) {
  IndexedWords indexed;
  if constexpr (std::is_same_v<Symbol, uint32_t>) {
    for (uint32_t w : words.ids()) {
      if (words.length(w) >= min_length) {
        indexed.try_emplace(w, words.symbols(w), words.length(w));
      }
    }
  }
  return indexed;
}

}  // namespace

template <typename Symbol>
WordRewriter<Symbol>::WordRewriter(BasicWordTable<Symbol>& words, const Parallelism& parallelism,
                                   size_t min_indexed_length)
    : words_(words),
      parallelism_(parallelism),
      workers_(Workers(parallelism)),
      // A NarrowWordTable's words are all rescanned (the merge loop widens one with a word
      // long enough to be indexed).
      min_indexed_(std::is_same_v<Symbol, uint32_t> ? std::max<size_t>(min_indexed_length, 2)
                                                    : SIZE_MAX),
      indexed_(IndexLongWords(words, min_indexed_)),
      changes_(workers_) {}

template <typename Symbol>
MergeChanges& WordRewriter<Symbol>::Merge(const WordList& visit, uint32_t left, uint32_t right,
                                          uint32_t merged) {
  const size_t parts = Splits(visit.size()) ? workers_ : 1;
  auto rewrite_part = [&](size_t part) {
    const size_t begin = visit.size() * part / parts, end = visit.size() * (part + 1) / parts;
    MergeWords(visit, begin, end, left, right, merged, changes_[part]);
  };
  changes_[0].Clear();
  for (MergeChanges& part : changes_) part.Prepare(merged + 1);
  if (parts == 1) {
    rewrite_part(0);
  } else {
    parallelism_.run(parts, rewrite_part);
    // Each side on a worker of its own: the two sides share nothing.
    parallelism_.run(2, [&](size_t side) {
      for (size_t part = 1; part < parts; ++part) {
        changes_[0].AddPart(changes_[part], side == 0 ? Side::kLeft : Side::kRight);
      }
    });
  }
  return changes_[0];
}

template <typename Symbol>
MergeChanges& WordRewriter<Symbol>::MergeBeside(const WordList& visit, uint32_t left,
                                                uint32_t right, uint32_t merged,
                                                const MergeChanges& applying) {
  MergeChanges& changes = &applying == &beside_[0] ? beside_[1] : beside_[0];
  changes.Clear();
  changes.Prepare(merged + 1);
  MergeWords(visit, 0, visit.size(), left, right, merged, changes);
  return changes;
}

template <typename Symbol>
bool WordRewriter<Symbol>::Splits(size_t words) const {
  return workers_ > 1 && words >= std::max<size_t>(parallelism_.min_split_words, 1);
}

template <typename Symbol>
void WordRewriter<Symbol>::FetchFirst(const WordList* visit) const {
  if (visit == nullptr) return;
  for (size_t i = 0; i < std::min<size_t>(visit->size(), kNextWords); ++i) {
    words_.Prefetch((*visit)[i]);
  }
}

// Rewrites the words visit[begin..end), each fetched kAhead words before its turn.
template <typename Symbol>
void WordRewriter<Symbol>::MergeWords(const WordList& visit, size_t begin, size_t end,
                                      uint32_t left, uint32_t right, uint32_t merged,
                                      MergeChanges& changes) {
  for (size_t i = begin; i < end; ++i) {
    if (i + kAhead < end) words_.Prefetch(visit[i + kAhead]);
    MergeAnyWord(visit[i], left, right, merged, changes);
  }
}

// An indexed word keeps its length (its positions) and is rewritten through its index.
template <typename Symbol>
void WordRewriter<Symbol>::MergeAnyWord(uint32_t w, uint32_t left, uint32_t right, uint32_t merged,
                                        MergeChanges& changes) {
  if (words_.length(w) < min_indexed_) return MergeWord(words_, w, left, right, merged, changes);
  if constexpr (std::is_same_v<Symbol, uint32_t>) {
    const auto f = static_cast<int64_t>(words_.count(w));
    indexed_.find(w)->second.Merge(
        words_.symbols(w), left, right, merged,
        [&](Side side, uint32_t neighbour) { changes.Add(side, neighbour, f, w); });
  }
}

template class WordRewriter<uint16_t>;
template class WordRewriter<uint32_t>;

}  // namespace bpeforge::internal
