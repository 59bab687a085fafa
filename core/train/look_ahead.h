// The merge loop's look-ahead: the next merge's pair is often known before this merge's count
// changes are applied, and its words can then be rewritten on another worker meanwhile, so
// that two serial steps of consecutive merges overlap.
//
//   LookAhead<uint32_t> ahead(rewriter, stats, parallelism, min_frequency);
//   std::optional<LookAhead<uint32_t>::Merge> next = ahead.Take();  // picked ahead, if any
//   ...
//   ahead.ApplyAndPickNext(changes, merged, token, /*more=*/true);   // instead of stats.Apply
#ifndef BPEFORGE_CORE_TRAIN_LOOK_AHEAD_H_
#define BPEFORGE_CORE_TRAIN_LOOK_AHEAD_H_

#include <cstdint>
#include <optional>

#include "core/internal/parallelism.h"
#include "core/train/merge_changes.h"
#include "core/train/pair_stats.h"
#include "core/train/word_rewriter.h"

namespace bpeforge::internal {

// The next merge is picked ahead only where it is sure: the best pair now stays the best if
// this merge's changes lower no count of it (it is no (P, a) or (b, N) of the merged (a, b))
// and make no pair that outranks it (a gained pair counts at most its change). The merges are
// then the same for any number of workers.
template <typename Symbol>
class LookAhead {
 public:
  // A merge picked ahead: its pair, taken out of the statistics, and its changes once its
  // words are rewritten (null until then).
  struct Merge {
    PairKey pair;
    PairTable::node_type taken;
    MergeChanges* changes = nullptr;
  };

  // Pairs below `min_frequency` are never picked ahead.
  LookAhead(WordRewriter<Symbol>& rewriter, PairStats& stats, const Parallelism& parallelism,
            uint64_t min_frequency)
      : rewriter_(rewriter),
        stats_(stats),
        parallelism_(parallelism),
        min_frequency_(min_frequency) {}

  // The merge picked ahead, if any; the loop then merges it instead of popping the queue.
  std::optional<Merge> Take();

  // Applies `changes`, of the merge of `merged` into `token`, to the statistics. With more
  // than one worker, and where `more` merges follow, it first picks the next merge if sure,
  // and rewrites its words on another worker while the changes are applied when they are
  // enough to be worth a hand-over and too few to be split.
  void ApplyAndPickNext(MergeChanges& changes, PairKey merged, uint32_t token, bool more);

 private:
  // Whether `best`, of count `count`, stays the best pair after `changes` are applied.
  bool StaysBest(PairKey best, int64_t count, const MergeChanges& changes, PairKey merged,
                 uint32_t token) const;

  WordRewriter<Symbol>& rewriter_;
  PairStats& stats_;
  const Parallelism& parallelism_;
  const uint64_t min_frequency_;
  std::optional<Merge> next_;
};

extern template class LookAhead<uint16_t>;
extern template class LookAhead<uint32_t>;

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_LOOK_AHEAD_H_
