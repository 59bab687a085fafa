#include "core/encode/long_merge.h"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <queue>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace bpeforge::internal {
namespace {

// The parts of the piece: one bit per byte, set where a part starts. A part ends where the next
// starts, found by scanning the bits, 64 at a time. The scan costs a 64th of what looking up
// the part's bytes costs anyway, and the bits take a 32nd of the memory of an array of ends.
class PartStarts {
 public:
  explicit PartStarts(size_t n) : n_(n), words_((n + 63) / 64, ~uint64_t{0}) {
    if (n % 64 != 0) words_.back() = (uint64_t{1} << (n % 64)) - 1;
  }
  bool IsStart(size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  void Clear(size_t i) { words_[i / 64] &= ~(uint64_t{1} << (i % 64)); }
  // The start of the part after the one at `i`, or n.
  size_t Next(size_t i) const {
    size_t w = (i + 1) / 64;
    if (w >= words_.size()) return n_;
    uint64_t bits = words_[w] & (~uint64_t{0} << ((i + 1) % 64));
    while (bits == 0) {
      if (++w == words_.size()) return n_;
      bits = words_[w];
    }
    return w * 64 + static_cast<size_t>(__builtin_ctzll(bits));
  }
  // The start of the part before the one at `i` (i > 0).
  size_t Previous(size_t i) const {
    size_t w = (i - 1) / 64;
    uint64_t bits = words_[w] & (~uint64_t{0} >> (63 - (i - 1) % 64));
    while (bits == 0) bits = words_[--w];  // byte 0 always starts a part
    return w * 64 + 63 - static_cast<size_t>(__builtin_clzll(bits));
  }

 private:
  size_t n_;
  std::vector<uint64_t> words_;
};

// The starts of the pairs waiting to be joined, by rank; the least start of the least rank
// comes first. Starts mostly arrive in increasing order (the initial pairs, and the pairs a
// left-to-right sweep of joins makes): those go to a sorted run, read from its front and
// compacted as it is read, so that its memory goes back as the work proceeds; the others to
// a heap. An entry can be stale (its pair changed since): the caller checks.
template <typename Index>
class WaitingPairs {
 public:
  void Add(uint32_t rank, Index start) {
    auto [it, inserted] = by_rank_.try_emplace(rank);
    if (inserted) ranks_.push(rank);
    Bucket& b = it->second;
    if (b.sorted.size() == b.taken || b.sorted.back() < start) {
      b.sorted.push_back(start);
    } else {
      b.heap.push_back(start);
      std::push_heap(b.heap.begin(), b.heap.end(), std::greater<>());
    }
  }
  bool empty() const { return ranks_.empty(); }
  // Takes the first entry (rank, start).
  std::pair<uint32_t, Index> Take() {
    const uint32_t rank = ranks_.top();
    auto it = by_rank_.find(rank);
    Bucket& b = it->second;
    Index start;
    if (b.heap.empty() || (b.taken < b.sorted.size() && b.sorted[b.taken] < b.heap.front())) {
      start = b.sorted[b.taken++];
      if (b.taken >= 4096 && b.taken * 2 >= b.sorted.size()) {
        b.sorted.erase(b.sorted.begin(), b.sorted.begin() + static_cast<ptrdiff_t>(b.taken));
        b.sorted.shrink_to_fit();
        b.taken = 0;
      }
    } else {
      std::pop_heap(b.heap.begin(), b.heap.end(), std::greater<>());
      start = b.heap.back();
      b.heap.pop_back();
    }
    if (b.taken == b.sorted.size() && b.heap.empty()) {
      by_rank_.erase(it);
      ranks_.pop();
    }
    return {rank, start};
  }

 private:
  struct Bucket {
    std::vector<Index> sorted;  // increasing; sorted[taken..] are waiting
    size_t taken = 0;
    std::vector<Index> heap;  // a min-heap
  };
  absl::flat_hash_map<uint32_t, Bucket> by_rank_;
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ranks_;  // of by_rank_
};

template <typename Index>
bool Merge(absl::string_view piece, absl::FunctionRef<uint32_t(absl::string_view)> rank_of,
           absl::FunctionRef<void(absl::string_view)> emit, const std::atomic<bool>* stop) {
  const size_t n = piece.size();
  PartStarts parts(n);
  WaitingPairs<Index> waiting;
  // The rank of the pair of parts starting at `i`, or kNoRank (also where no part follows).
  auto pair_rank = [&](size_t i) {
    const size_t j = parts.Next(i);
    if (j == n) return kNoRank;
    return rank_of(piece.substr(i, parts.Next(j) - i));
  };
  auto wait = [&](size_t i) {
    if (const uint32_t rank = pair_rank(i); rank != kNoRank) {
      waiting.Add(rank, static_cast<Index>(i));
    }
  };
  for (size_t i = 0; i + 1 < n; ++i) wait(i);
  uint64_t steps = 0;
  while (!waiting.empty()) {
    if (stop != nullptr && ++steps % 65536 == 0 && stop->load(std::memory_order_relaxed)) {
      return false;
    }
    const auto [rank, start] = waiting.Take();
    // Stale unless a part still starts there and its pair still has that rank (a rank names
    // one byte string).
    if (!parts.IsStart(start) || pair_rank(start) != rank) continue;
    parts.Clear(parts.Next(start));  // joined
    wait(start);
    if (start > 0) wait(parts.Previous(start));
  }
  for (size_t i = 0; i < n;) {
    const size_t next = parts.Next(i);
    emit(piece.substr(i, next - i));
    i = next;
  }
  return true;
}

}  // namespace

bool MergeLongPiece(absl::string_view piece, absl::FunctionRef<uint32_t(absl::string_view)> rank_of,
                    absl::FunctionRef<void(absl::string_view)> emit,
                    const std::atomic<bool>* stop) {
  if (piece.size() < (uint64_t{1} << 32)) return Merge<uint32_t>(piece, rank_of, emit, stop);
  return Merge<uint64_t>(piece, rank_of, emit, stop);
}

}  // namespace bpeforge::internal
