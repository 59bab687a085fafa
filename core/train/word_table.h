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
    if (at + kHeader + bytes.size() > std::numeric_limits<WordId>::max()) return false;
    ids_.push_back(static_cast<WordId>(at));
    arena_.push_back(static_cast<uint32_t>(count));
    arena_.push_back(static_cast<uint32_t>(count >> 32));
    arena_.push_back(static_cast<uint32_t>(bytes.size()));
    for (unsigned char c : bytes) arena_.push_back(c);
    return true;
  }
  void Reserve(size_t words, size_t bytes) {
    ids_.reserve(words);
    arena_.reserve(words * kHeader + bytes);
  }
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
  std::vector<uint32_t, HugePageAllocator<uint32_t>> arena_;
  std::vector<WordId> ids_;
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_WORD_TABLE_H_
