#include "core/train/indexed_word.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <utility>

namespace bpeforge::internal {
namespace {

// Below this many dead entries the pool is not worth compacting.
constexpr uint32_t kCompactSlack = 1 << 16;
// A merged list's pages are given back this many entries at a time as it is read.
constexpr uint32_t kReleaseEvery = 1 << 18;

// A merge's new lists while they are counted and filled, by the other symbol of the pair:
// `ending` for (other, merged), `starting` for (merged, other). Zero between merges.
struct NewLists {
  std::vector<uint32_t> ending, starting;
  std::vector<uint32_t> ending_touched, starting_touched;
};

}  // namespace

IndexedWord::IndexedWord(const uint32_t* symbols, uint32_t length)
    : length_(length),
      symbols_(length),
      capacity_(std::max<uint32_t>(2 * length, 2)),
      // Not value-initialized: pages never used are never touched.
      pool_(new uint32_t[capacity_]) {
  assert(length < kGoneBit);
  // Counted first, so that each list is laid out once at its size.
  for (uint32_t i = 0; i + 1 < length; ++i) {
    assert(symbols[i] < kGoneBit);
    ++starts_[MakePair(symbols[i], symbols[i + 1])].size;
  }
  for (auto& [pair, list] : starts_) {
    list.begin = end_;
    end_ += list.size;
    list.size = 0;
  }
  for (uint32_t i = 0; i + 1 < length; ++i) {
    List& list = starts_.find(MakePair(symbols[i], symbols[i + 1]))->second;
    pool_[list.begin + list.size++] = i;
  }
}

void IndexedWord::Merge(uint32_t* s, uint32_t left, uint32_t right, uint32_t merged,
                        absl::FunctionRef<void(Side, uint32_t)> neighbour) {
  const PairKey pair = MakePair(left, right);
  auto it = starts_.find(pair);
  if (it == starts_.end()) return;
  // Compacted when half the pool is spent, or when this merge's new lists might not fit. They
  // always fit after it: each position merged at spends its own start and adds at most two, so
  // the starts listed grow by at most one per symbol merged away (length_ - symbols_ so far),
  // and a merge adds no more than the symbols left: length_ + (length_ - symbols_) + symbols_.
  const uint32_t most_added = std::min<uint64_t>(2 * uint64_t{it->second.size}, symbols_);
  if (spent_ > end_ / 2 + kCompactSlack || end_ + most_added > capacity_) {
    Compact();
    assert(end_ + most_added <= capacity_);
    it = starts_.find(pair);
  }
  const List list = it->second;
  starts_.erase(it);
  spent_ += list.size;

  // The new pairs are counted as the merge goes (their lists are laid out and filled after
  // it), by their other symbol: every one holds `merged`, so none is listed yet, and arrays by
  // symbol are cheaper than a hash map.
  thread_local NewLists scratch;
  NewLists& by = scratch;
  auto add = [](std::vector<uint32_t>& count, std::vector<uint32_t>& touched, uint32_t other) {
    if (other >= count.size()) count.resize(other + 1);
    if (count[other]++ == 0) touched.push_back(other);
  };

  // Left to right, as the scan: a later occurrence that overlaps an earlier one is gone by the
  // time it is reached (its first symbol was merged away), so it is skipped. The list is in
  // order: a pair's starts are all added by one merge (or by the first index), left to right.
  const uint32_t begin = list.begin, end = list.begin + list.size;
  assert(std::is_sorted(&pool_[begin], &pool_[end]));
  for (uint32_t k = begin; k < end; ++k) {
    const uint32_t p = pool_[k];
    if (s[p] != left) continue;  // gone, or no longer this pair
    const uint32_t q = Next(s, p);
    if (q == kNone || s[q] != right) continue;
    const uint32_t before = Prev(s, p), after = Next(s, q);
    if (before != kNone) {
      neighbour(Side::kLeft, s[before]);
      // If `before` was merged too, the pair starting there was counted by that merge.
      if (s[before] != merged) add(by.ending, by.ending_touched, s[before]);
    }
    if (after != kNone) {
      neighbour(Side::kRight, s[after]);
      // The pair starting at p is (merged, merged) once the merge reaches `after`, which it
      // will exactly when `after` starts the pair too (nothing left of it changes by then).
      const uint32_t next = s[after] == left ? Next(s, after) : kNone;
      const bool merges_next = next != kNone && s[next] == right;
      add(by.starting, by.starting_touched, merges_next ? merged : s[after]);
    }
    // Positions p+1 .. end-1 (q and the runs gone on either side of it) are now one run. Its
    // ends hold its length; q is marked too, so that a stale start inside a run reads as gone.
    const uint32_t run_end = after == kNone ? length_ : after, run = run_end - p - 1;
    s[p] = merged;
    s[q] = s[p + 1] = s[run_end - 1] = kGoneBit | run;
    --symbols_;
  }

  // The new lists, after the pool's end (so `list` is still intact): laid out, then filled. A
  // position holds `merged`, which is new, exactly where the merge was applied.
  for (const bool ends : {true, false}) {
    std::vector<uint32_t>& count = ends ? by.ending : by.starting;
    for (uint32_t other : ends ? by.ending_touched : by.starting_touched) {
      const PairKey pair = ends ? MakePair(other, merged) : MakePair(merged, other);
      starts_.emplace(pair, List{end_, count[other]});
      end_ += std::exchange(count[other], end_);  // now where its next start goes
    }
  }
  assert(end_ <= capacity_);
  resident_ = std::max(resident_, end_);
  // The merged list is read here for the last time, and its pages go back to the system as the
  // reading passes them: the first list of a word of one letter is the whole word, and the
  // lists this merge fills (half as long) would otherwise be resident beside all of it.
  uint32_t released = begin;
  for (uint32_t k = begin; k < end; ++k) {
    if (k - released >= kReleaseEvery) released = Release(released, k);
    const uint32_t p = pool_[k];
    if (s[p] != merged) continue;
    const uint32_t before = Prev(s, p), after = Next(s, p);
    if (before != kNone && s[before] != merged) pool_[by.ending[s[before]]++] = before;
    if (after != kNone) pool_[by.starting[s[after]]++] = p;
  }
  for (const bool ends : {true, false}) {
    std::vector<uint32_t>& touched = ends ? by.ending_touched : by.starting_touched;
    for (uint32_t other : touched) (ends ? by.ending : by.starting)[other] = 0;
    touched.clear();
  }
}

uint32_t IndexedWord::Release(uint32_t from, uint32_t to) {
  static const uintptr_t page = sysconf(_SC_PAGESIZE);
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(&pool_[from]) + page - 1) & ~(page - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(&pool_[to]) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
  return to;
}

void IndexedWord::Compact() {
  // In pool order, each list moves down (never past an unread entry). Stale starts stay: telling
  // them costs a random read of the word for each, as much as the merge that meets them later.
  std::vector<std::pair<uint32_t, List*>> lists;  // by begin
  lists.reserve(starts_.size());
  for (auto& [pair, list] : starts_) lists.emplace_back(list.begin, &list);
  std::sort(lists.begin(), lists.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  uint32_t out = 0;
  for (auto [begin, list] : lists) {
    std::copy(&pool_[begin], &pool_[begin + list->size], &pool_[out]);
    list->begin = out;
    out += list->size;
  }
  end_ = out;
  spent_ = 0;
  // The pages past the end go back to the system until the pool grows again: the spent lists
  // of the first merges (about the word's length) would otherwise stay resident while the rest
  // of the training grows. Only whole pages inside the pool, and only for a megabyte or more.
  static const uintptr_t page = sysconf(_SC_PAGESIZE);
  const uintptr_t from = (reinterpret_cast<uintptr_t>(&pool_[end_]) + page - 1) & ~(page - 1);
  const uintptr_t to = reinterpret_cast<uintptr_t>(&pool_[resident_]) & ~(page - 1);
  if (to > from + (uintptr_t{1} << 20)) {
    madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
    resident_ = end_;
  }
}

std::vector<uint32_t> IndexedWord::Symbols(const uint32_t* s) const {
  std::vector<uint32_t> out;
  for (uint32_t i = length_ == 0 ? kNone : 0; i != kNone; i = Next(s, i)) out.push_back(s[i]);
  return out;
}

}  // namespace bpeforge::internal
