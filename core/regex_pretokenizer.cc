// The reference pre-tokenizer: Boost.Regex with ICU, so that \p-style classes follow Unicode.
// Boost's ICU flavour spells properties differently from Python's `regex`: `\p{L}` there
// would mean lower-case letters and `\p{..}` inside brackets is not a property, so the
// patterns are rewritten with [[:Letter:]]-style classes of the same meaning.
#include <boost/regex/icu.hpp>

#include "core/pretokenizer.h"

namespace bpeforge::internal {
namespace {

// Python's `regex` reads \s as the Unicode White_Space property; Boost's \s (ICU u_isspace)
// would add U+001C..U+001F, so the set is spelled out.
#define WS \
  R"(\t\n\x{0B}\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})"
// (?i:'s|'t|'re|'ve|'m|'ll|'d) under Python's simple case folding, where U+017F LATIN SMALL
// LETTER LONG S also matches 's' (Boost's (?i) folds with u_tolower and would not).
#define CONTRACTION R"('(?:[sS\x{17F}]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD]))"
#define LN "[:Letter:][:Number:]"
#define UPPER \
  "[[:Uppercase_Letter:][:Titlecase_Letter:][:Modifier_Letter:][:Other_Letter:][:Mark:]]"
#define LOWER "[[:Lowercase_Letter:][:Modifier_Letter:][:Other_Letter:][:Mark:]]"

const char* BoostSpelling(Pattern pattern) {
  switch (pattern) {
    case Pattern::kGpt2:
      return "'(?:[sdmt]|ll|ve|re)| ?[[:Letter:]]+| ?[[:Number:]]+| ?[^" WS LN "]+|[" WS
             "]+(?![^" WS "])|[" WS "]+";
    case Pattern::kCl100k:
      return CONTRACTION "|[^\\r\\n" LN "]?[[:Letter:]]+|[[:Number:]]{1,3}| ?[^" WS LN
                         "]+[\\r\\n]*|[" WS "]*[\\r\\n]+|[" WS "]+(?![^" WS "])|[" WS "]+";
    case Pattern::kO200k:
      return "[^\\r\\n" LN "]?" UPPER "*" LOWER "+(?:" CONTRACTION ")?|[^\\r\\n" LN "]?" UPPER
             "+" LOWER "*(?:" CONTRACTION ")?|[[:Number:]]{1,3}| ?[^" WS LN "]+[\\r\\n/]*|[" WS
             "]*[\\r\\n]+|[" WS "]+(?![^" WS "])|[" WS "]+";
  }
  return "";
}

#undef WS
#undef CONTRACTION
#undef LN
#undef UPPER
#undef LOWER

class RegexPreTokenizer : public PreTokenizer {
 public:
  explicit RegexPreTokenizer(Pattern pattern)
      : regex_(boost::make_u32regex(BoostSpelling(pattern))) {}

  void Split(absl::string_view text,
             absl::FunctionRef<void(absl::string_view)> sink) const override {
    const char* begin = text.data();
    const char* end = begin + text.size();
    boost::u32regex_iterator<const char*> it(begin, end, regex_), last;
    for (; it != last; ++it) {
      const auto& m = (*it)[0];
      sink(absl::string_view(m.first, static_cast<size_t>(m.second - m.first)));
    }
  }

 private:
  boost::u32regex regex_;
};

}  // namespace

std::unique_ptr<PreTokenizer> MakeRegexPreTokenizer(Pattern pattern) {
  return std::make_unique<RegexPreTokenizer>(pattern);
}

}  // namespace bpeforge::internal
