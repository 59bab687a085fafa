#include "core/train/indexed_word.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace bpeforge::internal {

IndexedWord::IndexedWord(const uint32_t* symbols, uint32_t length) : next_(length), prev_(length) {
  for (uint32_t i = 0; i < length; ++i) {
    next_[i] = i + 1 < length ? i + 1 : kNone;
    prev_[i] = i > 0 ? i - 1 : kNone;
    if (i + 1 < length) starts_[MakePair(symbols[i], symbols[i + 1])].push_back(i);
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
    const uint32_t q = next_[p];
    if (q == kNone || s[q] != right) continue;
    const uint32_t before = prev_[p], after = next_[q];
    if (before != kNone) {
      change(MakePair(s[before], left), -1);
      change(MakePair(s[before], merged), +1);
      starts_[MakePair(s[before], merged)].push_back(before);
    }
    if (after != kNone) {
      change(MakePair(right, s[after]), -1);
      change(MakePair(merged, s[after]), +1);
      starts_[MakePair(merged, s[after])].push_back(p);
      prev_[after] = p;
    }
    s[p] = merged;
    s[q] = kGone;
    next_[p] = after;
  }
}

std::vector<uint32_t> IndexedWord::Symbols(const uint32_t* s) const {
  std::vector<uint32_t> out;
  for (uint32_t i = next_.empty() ? kNone : 0; i != kNone; i = next_[i]) out.push_back(s[i]);
  return out;
}

}  // namespace bpeforge::internal
