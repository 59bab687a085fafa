// The distinct pre-tokens of a corpus with their counts, each stored as a run of symbol ids
// in one flat array. The merge loop rewrites the runs in place as symbols merge.
#ifndef BPEFORGE_CORE_WORD_TABLE_H_
#define BPEFORGE_CORE_WORD_TABLE_H_

#include <cstddef>
#include <cstdint>
#include "absl/strings/string_view.h"
#include <vector>

namespace bpeforge {

class WordTable {
 public:
  // Adds a distinct pre-token. Adding the same bytes twice makes two words; callers count
  // first (see PreTokenCounts), so each word appears once.
  void Add(absl::string_view bytes, uint64_t count) {
    begin_.push_back(symbols_.size());
    length_.push_back(static_cast<uint32_t>(bytes.size()));
    count_.push_back(count);
    for (unsigned char c : bytes) symbols_.push_back(c);
  }
  void Reserve(size_t words, size_t bytes) {
    begin_.reserve(words);
    length_.reserve(words);
    count_.reserve(words);
    symbols_.reserve(bytes);
  }

  size_t size() const { return count_.size(); }
  uint64_t count(size_t w) const { return count_[w]; }
  uint32_t* symbols(size_t w) { return symbols_.data() + begin_[w]; }
  uint32_t length(size_t w) const { return length_[w]; }
  void set_length(size_t w, uint32_t n) { length_[w] = n; }

 private:
  std::vector<uint32_t> symbols_;
  std::vector<size_t> begin_;
  std::vector<uint32_t> length_;
  std::vector<uint64_t> count_;
};

}  // namespace bpeforge

#endif  // BPEFORGE_CORE_WORD_TABLE_H_
