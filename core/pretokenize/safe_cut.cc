#include "core/pretokenize/safe_cut.h"

#include <algorithm>

#include "absl/strings/ascii.h"

namespace bpeforge::internal {

bool IsSafeCut(absl::string_view text, size_t pos, const SpecialTokens& specials,
               bool letter_cuts) {
  if (pos == 0 || pos >= text.size()) return false;
  const auto before = static_cast<unsigned char>(text[pos - 1]);
  const auto after = static_cast<unsigned char>(text[pos]);
  if (specials.ContainsBigram(before, after)) return false;
  if (letter_cuts && absl::ascii_isalpha(before) && (after == ' ' || after == '\n')) return true;
  SpecialTokens::Match m;
  return specials.MatchAt(text, pos, &m);
}

size_t NextChunkEnd(absl::string_view text, size_t begin, const SpecialTokens& specials,
                    size_t target, bool letter_cuts) {
  size_t end = std::min(begin + std::max<size_t>(target, 1), text.size());
  while (end < text.size() && !IsSafeCut(text, end, specials, letter_cuts)) ++end;
  return end;
}

std::vector<size_t> FindChunkBounds(absl::string_view text, const SpecialTokens& specials,
                                    size_t target, bool letter_cuts) {
  std::vector<size_t> bounds = {0};
  do {
    bounds.push_back(NextChunkEnd(text, bounds.back(), specials, target, letter_cuts));
  } while (bounds.back() < text.size());
  return bounds;
}

}  // namespace bpeforge::internal
