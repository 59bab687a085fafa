// The BPE merge loop: repeatedly merge the most frequent adjacent pair of symbols.
//
// The specification it must match, written plainly, is tests/reference_trainer.cc (which
// recounts every pair before each merge); tests/merge_loop_test.cc checks this loop against
// a naive merger on the CS336 handout's example, on ties and on random words.
#ifndef BPEFORGE_CORE_TRAIN_MERGE_LOOP_H_
#define BPEFORGE_CORE_TRAIN_MERGE_LOOP_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "core/internal/parallelism.h"
#include "core/internal/types.h"
#include "core/train/indexed_word.h"
#include "core/train/token_tree.h"
#include "core/train/word_table.h"

namespace bpeforge::internal {

// Which pairs may merge, besides the most frequent first (Hugging Face's trainer options).
struct MergeRules {
  uint64_t min_frequency = 0;   // stop once the most frequent pair occurs fewer times
  size_t max_token_length = 0;  // never make a token longer than this many bytes (0: any)
};

// Learns up to `max_merges` merges from `words` (consumed: its runs are rewritten), as a tree
// of tokens: token 256 + i is merge i.
// Counts are weighted by word count; a tie goes to the lexicographically greater pair of
// byte strings (left first, then right). Stops early when no pair is left.
// `progress`, if set, is called now and then with the number of merges done so far.
// With `parallelism`, the words a large merge rewrites are split among its workers; the
// result is the same for any number of workers. Once `cancel` reads true it stops early (the
// merges so far are returned; callers tell this from a finished run by the flag).
// `rules` may stop it earlier, or pass over pairs that would make too long a token.
// Words of `min_indexed_length` symbols or more are rewritten through an IndexedWord rather
// than rescanned (the result is the same; tests lower it to exercise the index).
TokenTree LearnMergeTree(WordTable& words, size_t max_merges,
                         const std::function<void(size_t)>& progress = nullptr,
                         const Parallelism& parallelism = {},
                         const std::atomic<bool>* cancel = nullptr, const MergeRules& rules = {},
                         size_t min_indexed_length = kIndexedWordLength);
// The same on 16-bit symbols, with the same result. Where a merge could make an id above
// 65,535, or a word is long enough to be indexed (an IndexedWord holds 32-bit ids), the words
// are first copied into a WordTable.
TokenTree LearnMergeTree(NarrowWordTable& words, size_t max_merges,
                         const std::function<void(size_t)>& progress = nullptr,
                         const Parallelism& parallelism = {},
                         const std::atomic<bool>* cancel = nullptr, const MergeRules& rules = {},
                         size_t min_indexed_length = kIndexedWordLength);
// The merges of a tree (its tokens from 256 on) as byte strings, in order.
Merges SpellMerges(const TokenTree& tokens);
// LearnMergeTree, spelled out.
Merges LearnMerges(WordTable& words, size_t max_merges,
                   const std::function<void(size_t)>& progress = nullptr,
                   const Parallelism& parallelism = {}, const std::atomic<bool>* cancel = nullptr,
                   const MergeRules& rules = {}, size_t min_indexed_length = kIndexedWordLength);
Merges LearnMerges(NarrowWordTable& words, size_t max_merges,
                   const std::function<void(size_t)>& progress = nullptr,
                   const Parallelism& parallelism = {}, const std::atomic<bool>* cancel = nullptr,
                   const MergeRules& rules = {}, size_t min_indexed_length = kIndexedWordLength);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_MERGE_LOOP_H_
