#include "core/train/look_ahead.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace bpeforge::internal {
namespace {

// The fewest words of a merge rewritten on another worker while the merge before it applies
// its changes: a hand-over costs about as much as rewriting a few dozen words.
constexpr size_t kMinWordsBeside = 32;

}  // namespace

template <typename Symbol>
std::optional<typename LookAhead<Symbol>::Merge> LookAhead<Symbol>::Take() {
  return std::exchange(next_, std::nullopt);
}

template <typename Symbol>
void LookAhead<Symbol>::ApplyAndPickNext(MergeChanges& changes, PairKey merged, uint32_t token,
                                         bool more) {
  if (Workers(parallelism_) > 1 && more) {
    if (const std::optional<PairKey> best = stats_.PopBest()) {
      const int64_t count = stats_.Count(*best);
      if (static_cast<uint64_t>(count) >= min_frequency_ &&
          StaysBest(*best, count, changes, merged, token)) {
        next_ = Merge{*best, stats_.Take(*best)};
      } else {
        stats_.Requeue(*best);
      }
    }
  }
  if (!next_) return stats_.Apply(changes, merged, token);
  const WordList& next_words = next_->taken.mapped().words;
  if (next_words.size() < kMinWordsBeside || rewriter_.Splits(next_words.size())) {
    return stats_.Apply(changes, merged, token);
  }
  RunParts(parallelism_, 2, [&](size_t part) {
    if (part == 0) return stats_.Apply(changes, merged, token);
    next_->changes = &rewriter_.MergeBeside(next_words, PairLeft(next_->pair),
                                            PairRight(next_->pair), token + 1, changes);
  });
}

template <typename Symbol>
bool LookAhead<Symbol>::StaysBest(PairKey best, int64_t count, const MergeChanges& changes,
                                  PairKey merged, uint32_t token) const {
  if (PairRight(best) == PairLeft(merged) || PairLeft(best) == PairRight(merged)) return false;
  for (const Side side : {Side::kLeft, Side::kRight}) {
    for (const uint32_t n : changes.touched(side)) {
      const int64_t gain = changes.at(side, n).count;
      if (gain >= count && stats_.Outranks(PairStats::Gained(side, n, token), gain, best, count)) {
        return false;
      }
    }
  }
  return true;
}

template class LookAhead<uint16_t>;
template class LookAhead<uint32_t>;

}  // namespace bpeforge::internal
