// The reference pre-tokenizer: Boost.Regex with ICU, so that \p-style classes follow Unicode.
// Boost's ICU flavour spells properties differently from Python's `regex`: `\p{L}` there
// would mean lower-case letters and `\p{..}` inside brackets is not a property, so the
// patterns are rewritten with [[:Letter:]]-style classes of the same meaning.
#include <boost/regex/icu.hpp>

#include "core/pretokenizer.h"

namespace bpeforge {
namespace {

const char* BoostSpelling(Pattern pattern) {
  switch (pattern) {
    case Pattern::kGpt2:
      return R"('(?:[sdmt]|ll|ve|re)| ?[[:Letter:]]+| ?[[:Number:]]+|)"
             R"( ?[^\s[:Letter:][:Number:]]+|\s+(?!\S)|\s+)";
    case Pattern::kCl100k:
      return R"('(?i:[st]|re|ve|m|ll|d)|[^\r\n[:Letter:][:Number:]]?[[:Letter:]]+|)"
             R"([[:Number:]]{1,3}| ?[^\s[:Letter:][:Number:]]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    case Pattern::kO200k:
      return R"([^\r\n[:Letter:][:Number:]]?)"
             R"([[:Uppercase_Letter:][:Titlecase_Letter:][:Modifier_Letter:][:Other_Letter:][:Mark:]]*)"
             R"([[:Lowercase_Letter:][:Modifier_Letter:][:Other_Letter:][:Mark:]]+)"
             R"((?:'(?i:[st]|re|ve|m|ll|d))?|)"
             R"([^\r\n[:Letter:][:Number:]]?)"
             R"([[:Uppercase_Letter:][:Titlecase_Letter:][:Modifier_Letter:][:Other_Letter:][:Mark:]]+)"
             R"([[:Lowercase_Letter:][:Modifier_Letter:][:Other_Letter:][:Mark:]]*)"
             R"((?:'(?i:[st]|re|ve|m|ll|d))?|)"
             R"([[:Number:]]{1,3}| ?[^\s[:Letter:][:Number:]]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  }
  return "";
}

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

}  // namespace bpeforge
