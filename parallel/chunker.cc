#include "parallel/chunker.h"

#include <algorithm>

#include "absl/strings/ascii.h"

namespace bpeforge::internal {

bool IsSafeCut(absl::string_view text, size_t pos, const SpecialTokens& specials) {
  if (pos == 0 || pos >= text.size()) return false;
  const auto before = static_cast<unsigned char>(text[pos - 1]);
  const auto after = static_cast<unsigned char>(text[pos]);
  if (specials.ContainsBigram(before, after)) return false;
  if (absl::ascii_isalpha(before) && (after == ' ' || after == '\n')) return true;
  SpecialTokens::Match m;
  return specials.MatchAt(text, pos, &m);
}

size_t NextChunkEnd(absl::string_view text, size_t begin, const SpecialTokens& specials,
                    size_t target) {
  size_t end = std::min(begin + std::max<size_t>(target, 1), text.size());
  while (end < text.size() && !IsSafeCut(text, end, specials)) ++end;
  return end;
}

std::vector<size_t> FindChunkBounds(absl::string_view text, const SpecialTokens& specials,
                                    size_t target) {
  std::vector<size_t> bounds = {0};
  do {
    bounds.push_back(NextChunkEnd(text, bounds.back(), specials, target));
  } while (bounds.back() < text.size());
  return bounds;
}

}  // namespace bpeforge::internal
