// The distinct pre-tokens of a corpus with their counts, as runs of symbol ids that the merge
// loop rewrites in place.
//
// Each word is one record in a flat arena of symbols: [count (8 bytes), length (4 bytes),
// symbols...]. A word's id is the offset of its record, so visiting a word (the merge loop's
// inner step, dominated by cache misses) touches one place in memory, which can be prefetched.
// Symbols are 32-bit ids (WordTable), or 16-bit ones (NarrowWordTable) where every id the
// merges make fits (vocabularies of up to 65,536), for a smaller arena and a lower peak.
#ifndef BPEFORGE_CORE_TRAIN_WORD_TABLE_H_
#define BPEFORGE_CORE_TRAIN_WORD_TABLE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/internal/huge_pages.h"
#include "core/internal/parallelism.h"

namespace bpeforge::internal {

template <typename Symbol>
class BasicWordTable {
 public:
  using WordId = uint32_t;

  // Adds a distinct pre-token (callers count first, so each word appears once). Returns false
  // if the arena would outgrow 32-bit word ids (2^32 symbols).
  bool Add(absl::string_view bytes, uint64_t count) {
    const size_t at = arena_.size();
    if (at + Units(bytes.size()) > kMaxUnits) return false;
    ids_.emplace_back();
    arena_.resize(at + Units(bytes.size()));
    Put(ids_.size() - 1, at, bytes, count);
    longest_ = std::max(longest_, bytes.size());
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
    Symbol* record = arena_.data() + at;
    const auto length = static_cast<uint32_t>(bytes.size());
    std::memcpy(record, &count, sizeof(count));
    std::memcpy(record + kLengthAt, &length, sizeof(length));
    for (size_t k = 0; k < bytes.size(); ++k) record[kHeader + k] = static_cast<uint8_t>(bytes[k]);
  }
  // The arena units (symbols) a word of `bytes` bytes takes.
  static size_t Units(size_t bytes) { return kHeader + bytes; }
  // Word ids are arena offsets: the arena must stay within them.
  static constexpr size_t kMaxUnits = std::numeric_limits<WordId>::max();
  // The most symbols a word had when it was added (Put leaves it to the filler: set_longest).
  size_t longest() const { return longest_; }
  void set_longest(size_t n) { longest_ = n; }
  // The largest symbol id the table can hold.
  static constexpr uint32_t kMaxSymbol = std::numeric_limits<Symbol>::max();
  // Has the reserved arena faulted in by the workers of `parallelism` (huge_pages.h).
  void FaultIn(const Parallelism& parallelism) {
    FaultInParallel(arena_.data(), arena_.capacity() * sizeof(Symbol), parallelism);
  }

  // Every word, in the order added.
  const std::vector<WordId>& ids() const { return ids_; }
  size_t size() const { return ids_.size(); }

  uint64_t count(WordId w) const {
    uint64_t count;
    std::memcpy(&count, arena_.data() + w, sizeof(count));
    return count;
  }
  uint32_t length(WordId w) const {
    uint32_t length;
    std::memcpy(&length, arena_.data() + w + kLengthAt, sizeof(length));
    return length;
  }
  void set_length(WordId w, uint32_t n) {
    std::memcpy(arena_.data() + w + kLengthAt, &n, sizeof(n));
  }
  const Symbol* symbols(WordId w) const { return arena_.data() + w + kHeader; }
  Symbol* symbols(WordId w) { return arena_.data() + w + kHeader; }

  // A record of up to 64 bytes (13 symbols of 32 bits, 26 of 16) spans at most two cache
  // lines: both are fetched.
  void Prefetch(WordId w) const {
    const char* record = reinterpret_cast<const char*>(arena_.data() + w);
    __builtin_prefetch(record);
    __builtin_prefetch(record + 64);
  }

 private:
  // The count, then the length, then the symbols, at these offsets in symbols.
  static constexpr size_t kLengthAt = sizeof(uint64_t) / sizeof(Symbol);
  static constexpr size_t kHeader = kLengthAt + sizeof(uint32_t) / sizeof(Symbol);

 public:
  // The units of a word's record before its symbols (its count and length): they may be read
  // as part of the word.
  static constexpr size_t kUnitsBefore = kHeader;

 private:
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
  std::vector<Symbol, UnzeroedAllocator<Symbol>> arena_;
  std::vector<WordId> ids_;
  size_t longest_ = 0;
};

using WordTable = BasicWordTable<uint32_t>;
using NarrowWordTable = BasicWordTable<uint16_t>;
// What the trainer makes: a NarrowWordTable where the vocabulary's ids fit in 16 bits.
using AnyWordTable = std::variant<WordTable, NarrowWordTable>;

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_WORD_TABLE_H_
