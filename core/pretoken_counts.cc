#include "core/pretoken_counts.h"

namespace bpeforge {

uint64_t CountPreTokens(absl::string_view text, const SpecialTokens& specials,
                        const PreTokenizer& pretokenizer, PreTokenCounts* counts) {
  uint64_t seen = 0;
  specials.Split(
      text,
      [&](absl::string_view piece) {
        pretokenizer.Split(piece, [&](absl::string_view token) {
          ++(*counts)[token];
          ++seen;
        });
      },
      [](size_t) {});
  return seen;
}

}  // namespace bpeforge
