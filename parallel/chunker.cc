#include "parallel/chunker.h"

#include <algorithm>

#include "absl/strings/ascii.h"

namespace bpeforge {

bool IsSafeCut(absl::string_view text, size_t pos, const SpecialTokens& specials) {
  if (pos == 0 || pos >= text.size()) return false;
  const auto before = static_cast<unsigned char>(text[pos - 1]);
  const auto after = static_cast<unsigned char>(text[pos]);
  if (specials.ContainsBigram(before, after)) return false;
  if (absl::ascii_isalpha(before) && (after == ' ' || after == '\n')) return true;
  SpecialTokens::Match m;
  return specials.MatchAt(text, pos, &m);
}

std::vector<size_t> FindChunkBounds(absl::string_view text, const SpecialTokens& specials,
                                    size_t target) {
  std::vector<size_t> bounds = {0};
  target = std::max<size_t>(target, 1);
  size_t pos = target;
  while (pos < text.size()) {
    while (pos < text.size() && !IsSafeCut(text, pos, specials)) ++pos;
    if (pos >= text.size()) break;
    bounds.push_back(pos);
    pos += target;
  }
  bounds.push_back(text.size());
  return bounds;
}

}  // namespace bpeforge
