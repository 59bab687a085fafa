#include "core/train/indexed_word.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace bpeforge::internal {

IndexedWord::IndexedWord(const uint32_t* symbols, uint32_t length) : length_(length) {
  assert(length < kGoneBit);
  // Counted first, so each list is allocated once at its size: a word of one repeated letter
  // is a single list as long as the word.
  absl::flat_hash_map<PairKey, uint32_t> sizes;
  for (uint32_t i = 0; i + 1 < length; ++i) ++sizes[MakePair(symbols[i], symbols[i + 1])];
  for (const auto& [pair, n] : sizes) starts_[pair].reserve(n);
  for (uint32_t i = 0; i + 1 < length; ++i) {
    assert(symbols[i] < kGoneBit);
    starts_[MakePair(symbols[i], symbols[i + 1])].push_back(i);
  }
}

void IndexedWord::Merge(uint32_t* s, uint32_t left, uint32_t right, uint32_t merged,
                        absl::FunctionRef<void(PairKey, int)> change) {
  auto node = starts_.extract(MakePair(left, right));
  if (node.empty()) return;
  std::vector<uint32_t>& starts = node.mapped();
  // Left to right, as the scan: a later occurrence that overlaps an earlier one is gone by the
  // time it is reached (its first symbol was merged away), so it is skipped. The list is
  // already in order: a pair's starts are all added by one pass (the first index, or the
  // merge that made the newer of its two symbols, which walks left to right).
  assert(std::is_sorted(starts.begin(), starts.end()));
  for (uint32_t p : starts) {
    if (s[p] != left) continue;  // gone, or no longer this pair
    const uint32_t q = Next(s, p);
    if (q == kNone || s[q] != right) continue;
    const uint32_t before = Prev(s, p), after = Next(s, q);
    if (before != kNone) {
      change(MakePair(s[before], left), -1);
      change(MakePair(s[before], merged), +1);
      starts_[MakePair(s[before], merged)].push_back(before);
    }
    if (after != kNone) {
      change(MakePair(right, s[after]), -1);
      change(MakePair(merged, s[after]), +1);
      starts_[MakePair(merged, s[after])].push_back(p);
    }
    // Positions p+1 .. end-1 (q and the runs gone on either side of it) are now one run. Its
    // ends hold its length; q is marked too, so that a stale start inside a run reads as gone.
    const uint32_t end = after == kNone ? length_ : after, run = end - p - 1;
    s[p] = merged;
    s[q] = s[p + 1] = s[end - 1] = kGoneBit | run;
  }
}

std::vector<uint32_t> IndexedWord::Symbols(const uint32_t* s) const {
  std::vector<uint32_t> out;
  for (uint32_t i = length_ == 0 ? kNone : 0; i != kNone; i = Next(s, i)) out.push_back(s[i]);
  return out;
}

}  // namespace bpeforge::internal
