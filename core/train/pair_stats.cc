#include "core/train/pair_stats.h"

#include <algorithm>
#include <vector>

namespace bpeforge::internal {
namespace {

// The floor below which new pairs are not kept until the best pair falls below it.
constexpr int64_t kFloor = 16;
// The table is sized for one pair kept per this many words.
constexpr size_t kWordsPerPair = 4;
// Pair slots fetched ahead while the changes are applied, so that misses overlap.
constexpr size_t kAhead = 16;

// Calls fn(side, n) for each neighbour `changes` touched, with the slot of the pair
// pair_of(side, n) of the neighbour kAhead on fetched, so that about that many misses are in
// flight.
template <typename PairOf, typename Fn>
void ForEachTouched(const MergeChanges& changes, const PairTable& pairs, PairOf pair_of, Fn fn) {
  for (const Side side : {Side::kLeft, Side::kRight}) {
    const std::vector<uint32_t>& touched = changes.touched(side);
    for (size_t i = 0; i < touched.size() && i < kAhead; ++i) {
      pairs.prefetch(pair_of(side, touched[i]));
    }
    for (size_t i = 0; i < touched.size(); ++i) {
      if (i + kAhead < touched.size()) pairs.prefetch(pair_of(side, touched[i + kAhead]));
      fn(side, touched[i]);
    }
  }
}

}  // namespace

PairStats::PairStats(const TokenTree& tokens, size_t max_token_length, size_t words,
                     const Parallelism& parallelism)
    : tokens_(tokens),
      max_token_length_(max_token_length),
      words_(words),
      floor_(kFloor),
      pairs_(0, PairTable::hasher(), PairTable::key_equal(),
             PairTable::allocator_type(&parallelism)),
      queue_(tokens) {}

void PairStats::Reset(PairTable counted) {
  pairs_.clear();
  queue_.Clear();
  // The table starts with the byte pairs and grows with the pairs merges make: sized for them
  // at once, it skips a rehash of every pair at each doubling.
  pairs_.reserve(std::max(counted.size(), words_ / kWordsPerPair));
  for (auto& [pair, info] : counted) {
    if (info.count < floor_) continue;
    if (MayMerge(pair)) queue_.Push(pair, info.count);
    pairs_.try_emplace(pair, std::move(info));
  }
}

void PairStats::KeepAll(PairTable counted) {
  floor_ = 1;
  Reset(std::move(counted));
}

std::optional<PairKey> PairStats::PopBest() {
  const std::optional<PairKey> best = queue_.PopMax([this](PairKey pair) { return Count(pair); });
  if (best && Count(*best) < floor_) {
    Requeue(*best);
    return std::nullopt;
  }
  return best;
}

const WordList* PairStats::LikelyNextWords() const {
  const std::optional<PairKey> next = queue_.Top();
  if (!next) return nullptr;
  auto it = pairs_.find(*next);
  return it == pairs_.end() ? nullptr : &it->second.words;
}

int64_t PairStats::Count(PairKey pair) const {
  auto it = pairs_.find(pair);
  return it == pairs_.end() ? 0 : it->second.count;
}

void PairStats::Apply(MergeChanges& changes, PairKey merged, uint32_t token) {
  // The gains first: each is a new pair (it holds the new token; no two sides make the same
  // one, since a right neighbour is never the new token), its word list complete. Then the
  // losses, which may take back part of a gain: (t, a) where "a b a b" merged.
  const auto gained = [token](Side side, uint32_t n) { return Gained(side, n, token); };
  ForEachTouched(changes, pairs_, gained, [&](Side side, uint32_t n) {
    MergeChanges::Moved& moved = changes.at(side, n);
    if (moved.count < floor_) return;  // too few to be kept
    const PairKey pair = gained(side, n);
    PairInfo& info = pairs_[pair];
    info.count += moved.count;
    info.words = std::move(moved.words);
    if (MayMerge(pair)) queue_.Push(pair, info.count);
  });
  const auto lost = [merged](Side side, uint32_t n) { return Lost(side, n, merged); };
  ForEachTouched(changes, pairs_, lost, [&](Side side, uint32_t n) {
    const PairKey pair = lost(side, n);
    if (pair == merged) return;  // merging (a, a): gone already
    auto it = pairs_.find(pair);
    if (it == pairs_.end()) return;  // a pair not kept
    it->second.count -= changes.at(side, n).count;
    if (it->second.count <= 0) pairs_.erase(it);
  });
}

bool PairStats::MayMerge(PairKey pair) const {
  return max_token_length_ == 0 ||
         tokens_.length(PairLeft(pair)) + tokens_.length(PairRight(pair)) <= max_token_length_;
}

}  // namespace bpeforge::internal
