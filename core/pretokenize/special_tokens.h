// Finding special tokens in text. Semantics of Python's re.split on the alternation of the
// escaped tokens sorted longest first: the leftmost occurrence wins, and at one position
// the longest token wins; scanning resumes after the match.
#ifndef BPEFORGE_CORE_PRETOKENIZE_SPECIAL_TOKENS_H_
#define BPEFORGE_CORE_PRETOKENIZE_SPECIAL_TOKENS_H_

#include <array>
#include <bitset>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace bpeforge::internal {

// Special tokens must be non-empty UTF-8: a token that can never occur in valid text would
// only hide a typo. The error names the token's position (from 1) or its bytes.
absl::Status ValidateSpecialTokens(const std::vector<std::string>& tokens);

class SpecialTokens {
 public:
  SpecialTokens() = default;
  // Duplicates are used once; empty tokens are ignored (callers reject them earlier).
  explicit SpecialTokens(const std::vector<std::string>& tokens);

  // Distinct tokens in first-given order; a token's index here is its index everywhere.
  const std::vector<std::string>& tokens() const { return tokens_; }
  bool empty() const { return tokens_.empty(); }

  struct Match {
    size_t pos = absl::string_view::npos;  // npos: none found
    size_t len = 0;
    size_t index = 0;  // into tokens()
  };
  // The first match at or after `from`, scanning as if a scan had just ended at `from`.
  Match FindNext(absl::string_view text, size_t from) const;

  // Walks `text`: on_text for each piece between matches (possibly empty pieces are
  // skipped), on_special for each match.
  void Split(absl::string_view text, absl::FunctionRef<void(absl::string_view)> on_text,
             absl::FunctionRef<void(size_t index)> on_special) const;

  // True if some token contains bytes a, b next to each other. A position whose two
  // neighbouring bytes form no such pair cannot lie inside any special-token occurrence.
  bool ContainsBigram(unsigned char a, unsigned char b) const {
    return bigrams_[static_cast<size_t>(a) * 256 + b];
  }

  // True if a token starts exactly at `pos` (the longest one is reported in *match).
  bool MatchAt(absl::string_view text, size_t pos, Match* match) const;

 private:
  std::vector<std::string> tokens_;
  std::vector<size_t> by_length_;  // indices into tokens_, longest first
  std::array<bool, 256> first_byte_{};
  int single_first_byte_ = -1;  // the only first byte of all tokens, or -1
  std::bitset<256 * 256> bigrams_;
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_PRETOKENIZE_SPECIAL_TOKENS_H_
