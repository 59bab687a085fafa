// A max-priority queue of symbol pairs with lazy deletion.
//
// Pair counts live in a table owned by the merge loop; the queue holds (count, pair) entries
// that may be stale. An entry is pushed whenever a pair's count grows; a shrinking count
// pushes nothing. Pop() discards entries whose count no longer matches and re-queues a pair
// whose entry overstates it, so the first valid entry is always the true maximum.
//
// Only entries of at least `floor_` are kept in the heap; the rest wait, unordered, in `low_`,
// and the highest of them are heaped when the heap runs out. Every count in the heap is then
// above every count in `low_` (an entry's count only overstates its pair's), so the heap's
// first valid entry is still the maximum. On a web corpus millions of pairs are queued and
// few are ever popped: a heap of all of them is tens of MB deep, and each pop's sift-down
// missed the caches at every level.
#ifndef BPEFORGE_CORE_TRAIN_PAIR_QUEUE_H_
#define BPEFORGE_CORE_TRAIN_PAIR_QUEUE_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "core/train/token_tree.h"

namespace bpeforge::internal {

using PairKey = uint64_t;  // (left << 32) | right
inline PairKey MakePair(uint32_t left, uint32_t right) {
  return (static_cast<uint64_t>(left) << 32) | right;
}
inline uint32_t PairLeft(PairKey p) { return static_cast<uint32_t>(p >> 32); }
inline uint32_t PairRight(PairKey p) { return static_cast<uint32_t>(p); }

class PairQueue {
 public:
  // `tokens` gives the bytes of each symbol, for breaking ties.
  explicit PairQueue(const TokenTree& tokens) : tokens_(tokens) {}

  void Clear() {
    heap_.clear();
    low_.clear();
    floor_ = std::numeric_limits<int64_t>::max();
  }

  void Push(PairKey pair, int64_t count) {
    if (count < floor_) {
      low_.push_back({count, pair});
      return;
    }
    heap_.push_back({count, pair});
    std::push_heap(heap_.begin(), heap_.end(), Less{tokens_});
  }

  // The pair at the top of the heap, which PopMax returns next unless its entry is stale or a
  // push outranks it; nothing if the heap is empty (entries may wait below it). A hint, for
  // fetching ahead.
  std::optional<PairKey> Top() const {
    if (heap_.empty()) return std::nullopt;
    return heap_.front().pair;
  }

  // Whether pair `a` of count `ca` comes out before pair `b` of count `cb`.
  bool Outranks(PairKey a, int64_t ca, PairKey b, int64_t cb) const {
    return Less{tokens_}({cb, b}, {ca, a});
  }

  // The pair with the highest current count (ties: greater bytes), or nothing.
  // `current_count(pair)` gives a pair's count now (0 for a pair that is gone).
  template <typename CountFn>
  std::optional<PairKey> PopMax(const CountFn& current_count) {
    while (!heap_.empty() || RaiseLow()) {
      std::pop_heap(heap_.begin(), heap_.end(), Less{tokens_});
      Entry top = heap_.back();
      heap_.pop_back();
      const int64_t current = current_count(top.pair);
      if (current == top.count && current > 0) return top.pair;
      if (current > 0 && current < top.count) Push(top.pair, current);
    }
    return std::nullopt;
  }

 private:
  struct Entry {
    int64_t count;
    PairKey pair;
  };
  struct Less {
    const TokenTree& tokens;
    bool operator()(const Entry& a, const Entry& b) const {
      if (a.count != b.count) return a.count < b.count;
      const int left = Compare(PairLeft(a.pair), PairLeft(b.pair));
      if (left != 0) return left < 0;
      return Compare(PairRight(a.pair), PairRight(b.pair)) < 0;
    }
    int Compare(uint32_t x, uint32_t y) const { return x == y ? 0 : tokens.Compare(x, y); }
  };
  // Moves the highest entries of low_ (about a 32nd, and at least kMinRaised) into the heap,
  // lowering floor_ to the least of them. False if low_ is empty.
  bool RaiseLow() {
    if (low_.empty()) return false;
    constexpr size_t kMinRaised = 4096;
    const size_t k = std::max(kMinRaised, low_.size() / 32);
    auto by_count = [](const Entry& a, const Entry& b) { return a.count > b.count; };
    if (k < low_.size()) {
      std::nth_element(low_.begin(), low_.begin() + (k - 1), low_.end(), by_count);
      floor_ = low_[k - 1].count;
    } else {
      floor_ = 0;
    }
    // All entries of the new floor's count go up, so that the tie-break sees them together.
    auto rest = std::partition(low_.begin(), low_.end(),
                               [this](const Entry& e) { return e.count >= floor_; });
    heap_.insert(heap_.end(), low_.begin(), rest);
    low_.erase(low_.begin(), rest);
    std::make_heap(heap_.begin(), heap_.end(), Less{tokens_});
    return true;
  }

  const TokenTree& tokens_;
  std::vector<Entry> heap_;  // entries of floor_ or more, heaped
  std::vector<Entry> low_;   // entries below floor_, unordered
  // Above any count at first: every entry waits in low_ until the first pop.
  int64_t floor_ = std::numeric_limits<int64_t>::max();
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_PAIR_QUEUE_H_
