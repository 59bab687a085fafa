// Counts every adjacent pair of symbols in a word table, weighted by each word's count, with
// the words that hold each pair (the inverted index): the merge loop's first step, and its
// recount when it keeps all pairs.
//
//   PairTable pairs = CountPairs(words, indexed, tokens.size(), parallelism);
#ifndef BPEFORGE_CORE_TRAIN_PAIR_COUNTER_H_
#define BPEFORGE_CORE_TRAIN_PAIR_COUNTER_H_

#include <cstddef>

#include "core/internal/parallelism.h"
#include "core/train/indexed_word.h"
#include "core/train/pair_stats.h"
#include "core/train/word_table.h"

namespace bpeforge::internal {

// The pairs of all words, each word's list in word order; the words of `indexed` are read
// through their index. `symbols` is the number of symbols there may be in the words (256
// before any merge). With `parallelism`, the words are counted in parts at once; the result
// is the same for any number of workers.
template <typename Symbol>
PairTable CountPairs(const BasicWordTable<Symbol>& words, const IndexedWords& indexed,
                     size_t symbols, const Parallelism& parallelism);

extern template PairTable CountPairs(const WordTable&, const IndexedWords&, size_t,
                                     const Parallelism&);
extern template PairTable CountPairs(const NarrowWordTable&, const IndexedWords&, size_t,
                                     const Parallelism&);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_PAIR_COUNTER_H_
