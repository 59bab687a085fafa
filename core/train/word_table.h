// The distinct pre-tokens of a corpus with their counts, as runs of symbol ids that the merge
// loop rewrites in place.
//
// Each word is one record in a flat arena of uint32: [count lo, count hi, length,
// symbols...]. A word's id is the offset of its record, so visiting a word (the merge loop's
// inner step, dominated by cache misses) touches one place in memory, which can be prefetched.
#ifndef BPEFORGE_CORE_TRAIN_WORD_TABLE_H_
#define BPEFORGE_CORE_TRAIN_WORD_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/internal/huge_pages.h"
#include "core/internal/parallelism.h"

namespace bpeforge::internal {

class WordTable {
 public:
  using WordId = uint32_t;

  // Adds a distinct pre-token (callers count first, so each word appears once). Returns false
  // if the arena would outgrow 32-bit word ids (about 16 GB of words).
  bool Add(absl::string_view bytes, uint64_t count) {
    const size_t at = arena_.size();
    if (at + Units(bytes.size()) > kMaxUnits) return false;
    ids_.emplace_back();
    arena_.resize(at + Units(bytes.size()));
    Put(ids_.size() - 1, at, bytes, count);
    return true;
  }
  void Reserve(size_t words, size_t units) {
    ids_.reserve(words);
    arena_.reserve(units);
  }
  // Filling by several writers at once: Resize to `words` words in `units` arena units (the
  // sum of their Units), then Put each word once, the i-th at arena unit `at`, where the words
  // before it end.
  void Resize(size_t words, size_t units) {
    ids_.resize(words);
    arena_.resize(units);
  }
  void Put(size_t i, size_t at, absl::string_view bytes, uint64_t count) {
    ids_[i] = static_cast<WordId>(at);
    uint32_t* record = arena_.data() + at;
    record[0] = static_cast<uint32_t>(count);
    record[1] = static_cast<uint32_t>(count >> 32);
    record[2] = static_cast<uint32_t>(bytes.size());
    for (size_t k = 0; k < bytes.size(); ++k) record[kHeader + k] = static_cast<uint8_t>(bytes[k]);
  }
  // The arena units a word of `bytes` bytes takes.
  static size_t Units(size_t bytes) { return kHeader + bytes; }
  // Word ids are arena offsets: the arena must stay within them.
  static constexpr size_t kMaxUnits = std::numeric_limits<WordId>::max();
  // Has the reserved arena faulted in by the workers of `parallelism` (huge_pages.h).
  void FaultIn(const Parallelism& parallelism) {
    FaultInParallel(arena_.data(), arena_.capacity() * sizeof(uint32_t), parallelism);
  }

  // Every word, in the order added.
  const std::vector<WordId>& ids() const { return ids_; }
  size_t size() const { return ids_.size(); }

  uint64_t count(WordId w) const {
    return arena_[w] | (static_cast<uint64_t>(arena_[w + 1]) << 32);
  }
  uint32_t length(WordId w) const { return arena_[w + 2]; }
  void set_length(WordId w, uint32_t n) { arena_[w + 2] = n; }
  const uint32_t* symbols(WordId w) const { return arena_.data() + w + kHeader; }
  uint32_t* symbols(WordId w) { return arena_.data() + w + kHeader; }

  // A record of up to 13 symbols spans at most two cache lines: both are fetched.
  void Prefetch(WordId w) const {
    __builtin_prefetch(arena_.data() + w);
    __builtin_prefetch(arena_.data() + w + 16);
  }

 private:
  static constexpr size_t kHeader = 3;
  // Resize leaves the units to Put, rather than zeroing hundreds of MB on one thread first.
  template <typename T>
  struct UnzeroedAllocator : HugePageAllocator<T> {
    template <typename U>
    struct rebind {
      using other = UnzeroedAllocator<U>;
    };
    UnzeroedAllocator() = default;
    template <typename U>
    UnzeroedAllocator(const UnzeroedAllocator<U>& other) noexcept  // NOLINT: rebinding
        : HugePageAllocator<T>(other) {}
    void construct(T* p) noexcept { ::new (static_cast<void*>(p)) T; }
  };
  std::vector<uint32_t, UnzeroedAllocator<uint32_t>> arena_;
  std::vector<WordId> ids_;
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_WORD_TABLE_H_
