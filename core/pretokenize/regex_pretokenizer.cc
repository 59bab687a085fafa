// The reference pre-tokenizer: Boost.Regex with ICU, so that \p-style classes follow Unicode.
// Boost's ICU flavour spells properties differently from Python's `regex`: `\p{L}` there
// would mean lower-case letters and `\p{..}` inside brackets is not a property, so the
// patterns are rewritten with [[:Letter:]]-style classes of the same meaning.
#include <algorithm>
#include <boost/regex/icu.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/pretokenize/pretokenizer.h"

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
    case Pattern::kCustom:
      break;
  }
  return "";
}

absl::Status CommentElsewhere(size_t offset) {
  return absl::InvalidArgumentError(absl::StrCat(
      "\"(?#\" at offset ", offset,
      " is not supported inside [...] or after a backslash (Boost.Regex 1.74 may never finish "
      "reading it); write \\(\\?# for the three characters"));
}

// Python's spelling of a custom regex -> Boost's ICU flavour: \p{..} and \s as above.
absl::StatusOr<std::string> BoostSpelling(absl::string_view regex) {
  // Python's one-letter general categories; Boost reads [:L:] as lower-case letters.
  // Boost knows the two-letter names and most long ones, not these.
  static const std::pair<const char*, const char*> kLong[] = {
      {"L", "Letter"},          {"M", "Mark"},       {"N", "Number"}, {"P", "Punctuation"},
      {"S", "Symbol"},          {"Z", "Separator"},  {"C", "Other"},  {"Spacing_Mark", "Mc"},
      {"Decimal_Number", "Nd"}, {"Unassigned", "Cn"}};
  auto category = [](absl::string_view name) -> std::string {
    for (const auto& [short_name, long_name] : kLong) {
      if (name == short_name) return long_name;
    }
    return std::string(name);
  };
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < regex.size(); ++i) {
    const char c = regex[i];
    if (c == '\\' && i + 1 < regex.size()) {
      const char e = regex[i + 1];
      if (e == 'p' || e == 'P') {
        const size_t close = regex.find('}', i + 2);
        if (i + 2 >= regex.size() || regex[i + 2] != '{' || close == absl::string_view::npos) {
          return absl::InvalidArgumentError(absl::StrCat("\\", std::string(1, e), " at offset ", i,
                                                         " must be written \\", std::string(1, e),
                                                         "{Name}"));
        }
        const std::string name = category(regex.substr(i + 3, close - i - 3));
        if (e == 'P' && in_class) {
          return absl::InvalidArgumentError(
              absl::StrCat("\\P{..} inside [...] (offset ", i, ") is not supported"));
        }
        out += in_class ? absl::StrCat("[:", name, ":]")
                        : absl::StrCat(e == 'P' ? "[^[:" : "[[:", name, ":]]");
        i = close;
        continue;
      }
      if (e == 's') {
        out += in_class ? WS : "[" WS "]";
        ++i;
        continue;
      }
      if (e == 'S') {
        if (in_class) {
          return absl::InvalidArgumentError(
              absl::StrCat("\\S inside [...] (offset ", i, ") is not supported"));
        }
        out += "[^" WS "]";
        ++i;
        continue;
      }
      if (regex.substr(i + 1, 3) == "(?#") return CommentElsewhere(i + 1);
      out.append(regex.data() + i, 2);
      ++i;
      continue;
    }
    // A comment is dropped, as Python drops it (so "a(?#c)+" is "a+"). Boost.Regex 1.74 would
    // also loop forever on one after a possessive quantifier ("a++(?#c)b": its skip of the
    // comment never ends; found by fuzzing tiktoken.json's "pat_str"). The three characters
    // anywhere else are refused: Boost may read a class or an escape differently from this
    // loop ("\c" takes the next character, even a backslash) and find a comment there.
    if (c == '(' && regex.substr(i, 3) == "(?#") {
      if (in_class) return CommentElsewhere(i);
      const size_t close = regex.find(')', i + 3);
      if (close == absl::string_view::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat("the comment \"(?#\" at offset ", i, " is not closed"));
      }
      i = close;
      continue;
    }
    if (c == '[' && !in_class) {
      in_class = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal.
      if (i + 1 < regex.size() && regex[i + 1] == '^') out += regex[++i];
      if (i + 1 < regex.size() && regex[i + 1] == ']') out += regex[++i];
      continue;
    }
    if (c == ']' && in_class) in_class = false;
    out += c;
  }
  if (in_class) return absl::InvalidArgumentError("a '[' is not closed");
  // The same hang, through a name in \p{..} (spelled into the pattern as it is).
  if (out.find("(?#") != std::string::npos) return CommentElsewhere(regex.find("(?#"));
  return out;
}

#undef CONTRACTION
#undef LN
#undef UPPER
#undef LOWER

// boost::make_u32regex, but parsing a UTF-32 copy of the pattern with a NUL after its end:
// Boost.Regex 1.74 reads one character past the end of a pattern that ends in "(?+" (its digit
// reader does not check the end; found by fuzzing tiktoken.json's "pat_str"), and the copy
// make_u32regex parses has nothing after it; a user's --pattern could do the same. Invalid UTF-8
// throws, as there.
boost::u32regex CompileU32Regex(const std::string& utf8) {
  using Utf32 = boost::u8_to_u32_iterator<std::string::const_iterator, UChar32>;
  std::vector<UChar32> pattern(Utf32(utf8.begin(), utf8.begin(), utf8.end()),
                               Utf32(utf8.end(), utf8.begin(), utf8.end()));
  const size_t size = pattern.size();
  pattern.push_back(0);
  // Const pointers: the (const charT*, const charT*) constructor parses the buffer in place;
  // the iterator one would copy it, without the NUL.
  const UChar32* begin = pattern.data();
  return boost::u32regex(begin, begin + size, boost::regex_constants::perl);
}

// Whether to give up, looked at every 1,024th match: a relaxed load per match would cost
// little, but a regex's matches are many and short.
bool StopNow(const std::atomic<bool>* stop, uint64_t matches) {
  return stop != nullptr && matches % 1024 == 0 && stop->load(std::memory_order_relaxed);
}

class RegexPreTokenizer : public PreTokenizer {
 public:
  explicit RegexPreTokenizer(Pattern pattern) : regex_(CompileU32Regex(BoostSpelling(pattern))) {}

  void SplitUntil(absl::string_view text, absl::FunctionRef<void(absl::string_view)> sink,
                  const std::atomic<bool>* stop) const override {
    const char* begin = text.data();
    const char* end = begin + text.size();
    boost::u32regex_iterator<const char*> it(begin, end, regex_), last;
    for (uint64_t n = 0; it != last && !StopNow(stop, ++n); ++it) {
      const auto& m = (*it)[0];
      sink(absl::string_view(m.first, static_cast<size_t>(m.second - m.first)));
    }
  }

 private:
  boost::u32regex regex_;
};

// A custom regex: the text between matches is a piece too, so the pieces tile the text.
class CustomPreTokenizer : public PreTokenizer {
 public:
  explicit CustomPreTokenizer(boost::u32regex regex) : regex_(std::move(regex)) {}

  void SplitUntil(absl::string_view text, absl::FunctionRef<void(absl::string_view)> sink,
                  const std::atomic<bool>* stop) const override {
    const char* begin = text.data();
    const char* end = begin + text.size();
    const char* done = begin;
    boost::u32regex_iterator<const char*> it(begin, end, regex_), last;
    for (uint64_t n = 0; it != last; ++it) {
      if (StopNow(stop, ++n)) return;
      const auto& m = (*it)[0];
      if (m.first > done) sink(absl::string_view(done, static_cast<size_t>(m.first - done)));
      if (m.second > m.first)
        sink(absl::string_view(m.first, static_cast<size_t>(m.second - m.first)));
      done = std::max(done, m.second);
    }
    if (done < end) sink(absl::string_view(done, static_cast<size_t>(end - done)));
  }

 private:
  boost::u32regex regex_;
};

}  // namespace

#undef WS

std::unique_ptr<PreTokenizer> MakeRegexPreTokenizer(Pattern pattern) {
  return std::make_unique<RegexPreTokenizer>(pattern);
}

absl::StatusOr<std::unique_ptr<PreTokenizer>> MakeCustomPreTokenizer(absl::string_view regex) {
  if (regex.empty()) return absl::InvalidArgumentError("the custom pattern is empty");
  absl::StatusOr<std::string> spelled = BoostSpelling(regex);
  if (!spelled.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pattern ", regex, ": ", spelled.status().message()));
  }
  try {
    return std::make_unique<CustomPreTokenizer>(CompileU32Regex(*spelled));
  } catch (const std::exception& e) {  // boost::regex_error, or ICU's conversion errors
    return absl::InvalidArgumentError(
        absl::StrCat("pattern ", regex, " does not compile: ", e.what()));
  }
}

absl::StatusOr<std::unique_ptr<PreTokenizer>> MakeAnyPreTokenizer(Pattern pattern,
                                                                  absl::string_view custom_regex) {
  if (pattern == Pattern::kCustom) return MakeCustomPreTokenizer(custom_regex);
  return MakePreTokenizer(pattern);
}

}  // namespace bpeforge::internal
