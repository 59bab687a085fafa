// Pre-tokenizer tests. The regex reference and the fast matcher (on every SIMD path) must both
// reproduce the fixture (Python's `regex` module); hand-written cases pin exact pieces. Seeded
// differential runs are in pretokenizer_differential_test.cc.
#include "core/pretokenize/pretokenizer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/internal/utf8.h"
#include "tests/pieces.h"
#include "tests/simd_paths.h"
#include "tests/test_util.h"

namespace bpeforge::internal {
namespace {

// ---------------------------------------------------------------------------------------------
// Conformance with the fixture.

TEST(PreTokenizerFixtureTest, BothImplementationsMatchPythonRegex) {
  const std::optional<std::string> dir = testing::FixturesDir();
  if (!dir) GTEST_SKIP() << "no fixtures directory";
  std::ifstream in(*dir + "/pretokens.json");
  ASSERT_TRUE(in) << "cannot open pretokens.json in " << *dir;
  const nlohmann::json fixture = nlohmann::json::parse(in);
  ASSERT_GT(fixture.at("cases").size(), 0u);
  for (Pattern pattern : kAllPatterns) {
    const std::unique_ptr<PreTokenizer> implementations[] = {MakeRegexPreTokenizer(pattern),
                                                             MakePreTokenizer(pattern)};
    const char* const names[] = {"regex", "fast"};
    const std::string key(PatternName(pattern));
    for (const nlohmann::json& c : fixture.at("cases")) {
      const std::string text = c.at("text").get<std::string>();
      const Pieces expected = c.at(key).get<Pieces>();
      EXPECT_EQ(Split(*implementations[0], text), expected)
          << names[0] << " " << key << " on " << Escaped(text);
      testing::OnEverySimdPath([&](SimdPath path) {
        EXPECT_EQ(Split(*implementations[1], text), expected)
            << names[1] << " " << key << " on " << SimdPathName(path) << ", " << Escaped(text);
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-written cases. Expected pieces are those of Python's `regex` module.

struct Case {
  Pattern pattern;
  const char* text;
  Pieces pieces;
};

TEST(PreTokenizerTest, HandWrittenCases) {
  const std::vector<Case> cases = {
      {Pattern::kGpt2,
       "I'M YOU'RE it'S we'Ve",
       {"I", "'", "M", " YOU", "'", "RE", " it", "'", "S", " we", "'", "Ve"}},
      {Pattern::kGpt2, "''s 'x ' 'l 'lL", {"''", "s", " '", "x", " '", " '", "l", " '", "lL"}},
      {Pattern::kGpt2, "a\r\nb\r\n\r\n c", {"a", "\r", "\n", "b", "\r\n\r\n", " c"}},
      {Pattern::kGpt2, "x \r\n y!!\r\n\r\nz", {"x", " \r\n", " y", "!!", "\r\n\r", "\n", "z"}},
      {Pattern::kGpt2, "a   b\t\tc \t d", {"a", "  ", " b", "\t", "\t", "c", " \t", " d"}},
      {Pattern::kGpt2, "a \u00a0b\u3000word", {"a", " ", "\u00a0", "b", "\u3000", "word"}},
      {Pattern::kGpt2, "end  ", {"end", "  "}},
      {Pattern::kGpt2, "end \n", {"end", " \n"}},
      {Pattern::kGpt2, "end\n  ", {"end", "\n  "}},
      {Pattern::kGpt2,
       "1 12 123 1234 12345 123456 1234567",
       {"1", " 12", " 123", " 1234", " 12345", " 123456", " 1234567"}},
      {Pattern::kGpt2, "٣٤٥٦ １２３４ x²³⁴⁵ ½⅓", {"٣٤٥٦", " １２３４", " x", "²³⁴⁵", " ½⅓"}},
      {Pattern::kGpt2,
       "👨\u200d👩\u200d👧 ok 🏳\ufe0f\u200d🌈!",
       {"👨\u200d👩\u200d👧", " ok", " 🏳\ufe0f\u200d🌈!"}},
      {Pattern::kGpt2, "a🙂b 🙂🙂", {"a", "🙂", "b", " 🙂🙂"}},
      {Pattern::kGpt2,
       "e\u0301té \u0301x नमस\u094dत\u0947",
       {"e", "\u0301", "té", " \u0301", "x", " नमस", "\u094d", "त", "\u0947"}},
      {Pattern::kGpt2, "مرحبا שלום 你好。", {"مرحبا", " שלום", " 你好", "。"}},
      {Pattern::kGpt2, "a\u0085\u0085b", {"a", "\u0085", "\u0085", "b"}},
      {Pattern::kCl100k,
       "I'M YOU'RE it'S we'Ve",
       {"I", "'M", " YOU", "'RE", " it", "'S", " we", "'Ve"}},
      {Pattern::kCl100k, "''s 'x ' 'l 'lL", {"''", "s", " '", "x", " '", " '", "l", " '", "lL"}},
      {Pattern::kCl100k, "a\r\nb\r\n\r\n c", {"a", "\r\n", "b", "\r\n\r\n", " c"}},
      {Pattern::kCl100k, "x \r\n y!!\r\n\r\nz", {"x", " \r\n", " y", "!!\r\n\r\n", "z"}},
      {Pattern::kCl100k, "a   b\t\tc \t d", {"a", "  ", " b", "\t", "\tc", " \t", " d"}},
      {Pattern::kCl100k, "a \u00a0b\u3000word", {"a", " ", "\u00a0b", "\u3000word"}},
      {Pattern::kCl100k, "end  ", {"end", "  "}},
      {Pattern::kCl100k, "end \n", {"end", " \n"}},
      {Pattern::kCl100k, "end\n  ", {"end", "\n", "  "}},
      {Pattern::kCl100k,
       "1 12 123 1234 12345 123456 1234567",
       {"1", " ", "12", " ", "123", " ", "123", "4", " ", "123", "45", " ", "123", "456", " ",
        "123", "456", "7"}},
      {Pattern::kCl100k,
       "٣٤٥٦ １２３４ x²³⁴⁵ ½⅓",
       {"٣٤٥", "٦", " ", "１２３", "４", " x", "²³⁴", "⁵", " ", "½⅓"}},
      {Pattern::kCl100k,
       "👨\u200d👩\u200d👧 ok 🏳\ufe0f\u200d🌈!",
       {"👨\u200d👩\u200d👧", " ok", " 🏳\ufe0f\u200d🌈!"}},
      {Pattern::kCl100k, "a🙂b 🙂🙂", {"a", "🙂b", " 🙂🙂"}},
      {Pattern::kCl100k,
       "e\u0301té \u0301x नमस\u094dत\u0947",
       {"e", "\u0301té", " \u0301", "x", " नमस", "\u094dत", "\u0947"}},
      {Pattern::kCl100k, "مرحبا שלום 你好。", {"مرحبا", " שלום", " 你好", "。"}},
      {Pattern::kCl100k, "a\u0085\u0085b", {"a", "\u0085", "\u0085b"}},
      {Pattern::kO200k, "I'M YOU'RE it'S we'Ve", {"I'M", " YOU'RE", " it'S", " we'Ve"}},
      {Pattern::kO200k, "''s 'x ' 'l 'lL", {"''", "s", " '", "x", " '", " '", "l", " '", "l", "L"}},
      {Pattern::kO200k, "a\r\nb\r\n\r\n c", {"a", "\r\n", "b", "\r\n\r\n", " c"}},
      {Pattern::kO200k, "x \r\n y!!\r\n\r\nz", {"x", " \r\n", " y", "!!\r\n\r\n", "z"}},
      {Pattern::kO200k, "a/\r\n/b .//\n/c", {"a", "/\r\n/", "b", " .//\n/", "c"}},
      {Pattern::kO200k, "a   b\t\tc \t d", {"a", "  ", " b", "\t", "\tc", " \t", " d"}},
      {Pattern::kO200k, "a \u00a0b\u3000word", {"a", " ", "\u00a0b", "\u3000word"}},
      {Pattern::kO200k, "end  ", {"end", "  "}},
      {Pattern::kO200k, "end \n", {"end", " \n"}},
      {Pattern::kO200k, "end\n  ", {"end", "\n", "  "}},
      {Pattern::kO200k, "x1234567y", {"x", "123", "456", "7", "y"}},
      {Pattern::kO200k,
       "٣٤٥٦ １２３４ x²³⁴⁵ ½⅓",
       {"٣٤٥", "٦", " ", "１２３", "４", " x", "²³⁴", "⁵", " ", "½⅓"}},
      {Pattern::kO200k,
       "👨\u200d👩\u200d👧 ok 🏳\ufe0f\u200d🌈!",
       {"👨\u200d👩\u200d👧", " ok", " 🏳\ufe0f\u200d🌈!"}},
      {Pattern::kO200k, "a🙂b 🙂🙂", {"a", "🙂b", " 🙂🙂"}},
      {Pattern::kO200k,
       "HTTPServer camelCaseWord ǅungla ÉCOLE'S iPhone",
       {"HTTPServer", " camel", "Case", "Word", " ǅungla", " ÉCOLE'S", " i", "Phone"}},
      {Pattern::kO200k,
       "e\u0301té \u0301x नमस\u094dत\u0947",
       {"e\u0301té", " \u0301x", " नमस\u094dत\u0947"}},
      {Pattern::kO200k, "مرحبا שלום 你好。", {"مرحبا", " שלום", " 你好", "。"}},
      {Pattern::kO200k, "a\u0085\u0085b", {"a", "\u0085", "\u0085b"}},
  };
  for (const Case& c : cases) {
    testing::OnEverySimdPath([&](SimdPath path) {
      EXPECT_EQ(Split(*MakePreTokenizer(c.pattern), c.text), c.pieces)
          << "fast " << PatternName(c.pattern) << " on " << SimdPathName(path) << ", "
          << Escaped(c.text);
    });
    EXPECT_EQ(Split(*MakeRegexPreTokenizer(c.pattern), c.text), c.pieces)
        << "regex " << PatternName(c.pattern) << " on " << Escaped(c.text);
  }
}

TEST(PreTokenizerTest, DigitRunsOfOneToSeven) {
  const std::vector<Pieces> in_threes = {
      {"1"}, {"12"}, {"123"}, {"123", "4"}, {"123", "45"}, {"123", "456"}, {"123", "456", "7"}};
  const std::string digits = "1234567";
  for (size_t n = 1; n <= digits.size(); ++n) {
    const std::string text = digits.substr(0, n);
    EXPECT_EQ(Split(*MakePreTokenizer(Pattern::kCl100k), text), in_threes[n - 1]) << text;
    EXPECT_EQ(Split(*MakePreTokenizer(Pattern::kO200k), text), in_threes[n - 1]) << text;
    EXPECT_EQ(Split(*MakePreTokenizer(Pattern::kGpt2), text), Pieces{text}) << text;
  }
}

// Where Boost's defaults depart from Python's `regex` (and tiktoken), both pre-tokenizers
// follow Python: \s is White_Space, so U+001C..U+001F are not white space (ICU's u_isspace,
// behind Boost's \s, says they are); and (?i) uses simple case folding, under which U+017F
// LATIN SMALL LETTER LONG S matches 's' (Boost folds with u_tolower and does not).
TEST(PreTokenizerTest, FollowsPythonWhereBoostDefaultsDiffer) {
  const std::vector<Case> cases = {
      {Pattern::kGpt2, "it'ſ x'ſa", {"it", "'", "ſ", " x", "'", "ſa"}},
      {Pattern::kGpt2, "a\034b \037\036 c", {"a", "\034", "b", " \037\036", " c"}},
      {Pattern::kCl100k, "it'ſ x'ſa", {"it", "'ſ", " x", "'ſ", "a"}},
      {Pattern::kCl100k, "a\034b \037\036 c", {"a", "\034b", " \037\036", " c"}},
      {Pattern::kO200k, "it'ſ x'ſa", {"it'ſ", " x'ſ", "a"}},
      {Pattern::kO200k, "a\034b \037\036 c", {"a", "\034b", " \037\036", " c"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Split(*MakePreTokenizer(c.pattern), c.text), c.pieces)
        << PatternName(c.pattern) << " on " << Escaped(c.text);
    EXPECT_EQ(Split(*MakeRegexPreTokenizer(c.pattern), c.text), c.pieces)
        << "reference, " << PatternName(c.pattern) << " on " << Escaped(c.text);
  }
}

// Undecodable bytes are one-byte "other" characters: the pieces still tile the input.
TEST(PreTokenizerTest, InvalidUtf8IsSplitSafely) {
  std::mt19937_64 rng(7);
  for (Pattern pattern : kAllPatterns) {
    const std::unique_ptr<PreTokenizer> fast = MakePreTokenizer(pattern);
    EXPECT_EQ(Split(*fast, "a\xC3"), (Pieces{"a", "\xC3"}));
    EXPECT_EQ(Split(*fast, "\xE6\x97"), (Pieces{"\xE6\x97"}));
    EXPECT_EQ(Split(*fast, "x\xF4\x90\x80\x80"), (Pieces{"x", "\xF4\x90\x80\x80"}));
    for (int i = 0; i < 500; ++i) {
      std::string bytes(rng() % 24, '\0');
      for (char& b : bytes) {
        b = static_cast<char>(rng() % 4 == 0 ? "' \n\ra1"[rng() % 6] : rng());
      }
      std::string joined;
      fast->Split(bytes, [&](absl::string_view piece) {
        EXPECT_FALSE(piece.empty());
        joined.append(piece.data(), piece.size());
      });
      EXPECT_EQ(joined, bytes) << Escaped(bytes);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Custom patterns: Python's spelling, translated for Boost.

// The built-in patterns written as custom regexes (both spellings) split the fixture as Python
// does, except for "'ſ" under (?i:...): Python folds U+017F to 's', ICU does not.
TEST(CustomPatternTest, BuiltinPatternsSpelledAsRegexesMatchPython) {
  const std::optional<std::string> dir = testing::FixturesDir();
  if (!dir) GTEST_SKIP() << "no fixtures directory";
  std::ifstream in(*dir + "/pretokens.json");
  const nlohmann::json fixture = nlohmann::json::parse(in);
  int compared = 0;
  for (Pattern pattern : kAllPatterns) {
    for (absl::string_view regex : {PatternRegex(pattern), PortableRegex(pattern)}) {
      absl::StatusOr<std::unique_ptr<PreTokenizer>> custom = MakeCustomPreTokenizer(regex);
      ASSERT_TRUE(custom.ok()) << regex << ": " << custom.status();
      for (const nlohmann::json& c : fixture.at("cases")) {
        const std::string text = c.at("text").get<std::string>();
        if (pattern != Pattern::kGpt2 && text.find("\xC5\xBF") != std::string::npos) continue;
        EXPECT_EQ(Split(**custom, text), c.at(std::string(PatternName(pattern))).get<Pieces>())
            << regex << " on " << Escaped(text);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 100);
}

TEST(CustomPatternTest, TextBetweenMatchesIsAPieceOfItsOwn) {
  absl::StatusOr<std::unique_ptr<PreTokenizer>> letters = MakeCustomPreTokenizer(R"(\p{L}+)");
  ASSERT_TRUE(letters.ok()) << letters.status();
  EXPECT_EQ(Split(**letters, "ab, cd!"), (Pieces{"ab", ", ", "cd", "!"}));
  EXPECT_EQ(Split(**letters, "  "), (Pieces{"  "}));
  absl::StatusOr<std::unique_ptr<PreTokenizer>> empty = MakeCustomPreTokenizer("x*");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(Split(**empty, "axxb"), (Pieces{"a", "xx", "b"}));  // empty matches add nothing
  // Python's categories and white space, not Boost's: \p{L} is every letter, \s excludes
  // U+001C..U+001F.
  absl::StatusOr<std::unique_ptr<PreTokenizer>> classes =
      MakeCustomPreTokenizer(R"(\p{L}+|[\s]+|\S)");
  ASSERT_TRUE(classes.ok());
  EXPECT_EQ(Split(**classes, "Ab日\x1c \xc2\xa0x"), (Pieces{"Ab日", "\x1c", " \xc2\xa0", "x"}));
}

TEST(CustomPatternTest, CommentsAreDroppedAsPythonDrops) {
  // Boost.Regex 1.74 loops forever parsing a comment right after a possessive quantifier.
  absl::StatusOr<std::unique_ptr<PreTokenizer>> possessive = MakeCustomPreTokenizer("a++(?#x)b");
  ASSERT_TRUE(possessive.ok()) << possessive.status();
  EXPECT_EQ(Split(**possessive, "aab xaab"), (Pieces{"aab", " x", "aab"}));
  // Python's re: a quantifier after a comment applies to what came before it.
  absl::StatusOr<std::unique_ptr<PreTokenizer>> quantified = MakeCustomPreTokenizer("a(?#c)+");
  ASSERT_TRUE(quantified.ok()) << quantified.status();
  EXPECT_EQ(Split(**quantified, "aaab"), (Pieces{"aaa", "b"}));
  // Escaped, the three characters are text.
  absl::StatusOr<std::unique_ptr<PreTokenizer>> escaped = MakeCustomPreTokenizer("a++\\(\\?#x");
  ASSERT_TRUE(escaped.ok()) << escaped.status();
  EXPECT_EQ(Split(**escaped, "aa(?#x"), (Pieces{"aa(?#x"}));
}

TEST(CustomPatternTest, BadRegexesAreNamed) {
  struct Bad {
    const char* regex;
    const char* needle;
  };
  for (const Bad& b :
       {Bad{"", "empty"}, Bad{"(ab", "does not compile"}, Bad{"\\p{L", "must be written"},
        Bad{"[\\P{L}]", "not supported"}, Bad{"[\\S]", "not supported"},
        Bad{"\\p{Han}", "does not compile"}, Bad{"[ab", "not closed"},
        Bad{"a(?#x", "comment \"(?#\" at offset 1 is not closed"},
        // Where Boost may see a comment this code does not: a class that "\c" ends early in
        // Boost's reading (found by fuzzing), "(?#" inside a class, after a backslash, in \p{}.
        Bad{"[^\\c\\]a++(?#x)b]", "\"(?#\" at offset 9 is not supported inside [...]"},
        Bad{"[(?#]", "at offset 1 is not supported"}, Bad{"\\(?#x)", "at offset 1 is not"},
        Bad{"\\p{(?#}", "at offset 3 is not supported"}}) {
    absl::StatusOr<std::unique_ptr<PreTokenizer>> made = MakeCustomPreTokenizer(b.regex);
    ASSERT_FALSE(made.ok()) << b.regex;
    EXPECT_NE(made.status().message().find(b.needle), absl::string_view::npos)
        << b.regex << ": " << made.status();
  }
}

}  // namespace
}  // namespace bpeforge::internal
