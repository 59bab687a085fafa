#include "core/pretoken_counts.h"

#include <type_traits>

namespace bpeforge {
namespace {

template <typename Counts>
uint64_t Count(absl::string_view text, const SpecialTokens& specials,
               const PreTokenizer& pretokenizer, Counts& counts) {
  uint64_t seen = 0;
  specials.Split(
      text,
      [&](absl::string_view piece) {
        pretokenizer.Split(piece, [&](absl::string_view token) {
          if constexpr (std::is_same_v<Counts, PreTokenCounter>) {
            counts.Add(token);
          } else {
            ++counts[token];
          }
          ++seen;
        });
      },
      [](size_t) {});
  return seen;
}

}  // namespace

uint64_t CountPreTokens(absl::string_view text, const SpecialTokens& specials,
                        const PreTokenizer& pretokenizer, PreTokenCounts* counts) {
  return Count(text, specials, pretokenizer, *counts);
}

uint64_t CountPreTokens(absl::string_view text, const SpecialTokens& specials,
                        const PreTokenizer& pretokenizer, PreTokenCounter* counts) {
  return Count(text, specials, pretokenizer, *counts);
}

}  // namespace bpeforge
