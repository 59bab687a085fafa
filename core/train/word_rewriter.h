// Rewrites the words that hold a pair as the token merged from it, and gathers the count
// changes of the merge (merge_changes.h): the merge loop's "merge it in the words that hold
// it".
//
//   WordRewriter<uint32_t> rewriter(words, parallelism, kIndexedWordLength);
//   MergeChanges& changes = rewriter.Merge(info.words, left, right, token);
#ifndef BPEFORGE_CORE_TRAIN_WORD_REWRITER_H_
#define BPEFORGE_CORE_TRAIN_WORD_REWRITER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/internal/parallelism.h"
#include "core/train/indexed_word.h"
#include "core/train/merge_changes.h"
#include "core/train/word_table.h"

namespace bpeforge::internal {

// Rewrites the words of each merge, on the calling thread or split among the workers. The
// result is the same either way: a pair's word list holds each word once (lists are built a
// whole word at a time), so the parts rewrite disjoint words and only their changes are added
// up. Words of `min_indexed_length` symbols or more (in a WordTable) are rewritten through an
// IndexedWord rather than rescanned. `words` and `parallelism` must outlive it.
template <typename Symbol>
class WordRewriter {
 public:
  WordRewriter(BasicWordTable<Symbol>& words, const Parallelism& parallelism,
               size_t min_indexed_length);

  // Rewrites every `left right` as `merged` in every word of `visit`, left to right and
  // non-overlapping; returns the count changes (cleared by the next call).
  MergeChanges& Merge(const WordList& visit, uint32_t left, uint32_t right, uint32_t merged);

  // Merge for a merge too small to split, on the calling thread, while the changes of the
  // merge before it, in `applying`, are read on another: the changes go to a set of their own.
  MergeChanges& MergeBeside(const WordList& visit, uint32_t left, uint32_t right, uint32_t merged,
                            const MergeChanges& applying);
  // Whether Merge splits a merge of `words` words among the workers.
  bool Splits(size_t words) const;

  // Starts fetching the first words of `visit`, a merge likely to come next, so that their
  // misses overlap this merge's.
  void FetchFirst(const WordList* visit) const;

  // The indexed words, whose runs in the word table keep merged-away positions.
  const IndexedWords& indexed() const { return indexed_; }

 private:
  void MergeWords(const WordList& visit, size_t begin, size_t end, uint32_t left, uint32_t right,
                  uint32_t merged, MergeChanges& changes);
  void MergeAnyWord(uint32_t w, uint32_t left, uint32_t right, uint32_t merged,
                    MergeChanges& changes);

  BasicWordTable<Symbol>& words_;
  const Parallelism& parallelism_;
  const size_t workers_;
  const size_t min_indexed_;
  IndexedWords indexed_;
  std::vector<MergeChanges> changes_;  // one per part of a merge's words
  MergeChanges beside_[2];             // MergeBeside's, in turn
};

extern template class WordRewriter<uint16_t>;
extern template class WordRewriter<uint32_t>;

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_WORD_REWRITER_H_
