// Differential runs: the fast pre-tokenizer against the Boost.Regex reference on seeded
// generated text, for every built-in pattern and every SIMD path of this CPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/internal/utf8.h"
#include "core/pretokenize/pretokenizer.h"
#include "tests/pieces.h"
#include "tests/simd_paths.h"

namespace bpeforge::internal {
namespace {

// Words, numbers, emoji and white space from many scripts, with the ASCII edge characters.
std::string MultiScriptText(std::mt19937_64& rng) {
  static const char* const kFragments[] = {"caf\u00e9",
                                           "na\u00efve",
                                           "\u00c9COLE",
                                           "e\u0301t\u00e9",
                                           "\u01c5ungla",
                                           "Stra\u00dfe",
                                           "\u041f\u0440\u0438\u0432\u0435\u0442",
                                           "\u043c\u0438\u0440",
                                           "\u0393\u03b5\u03b9\u03ac",
                                           "\u039a\u038c\u03a3\u039c\u0395",
                                           "\u4f60\u597d",
                                           "\u65e5\u672c\u8a9e\u306e",
                                           "\u30c6\u30ad\u30b9\u30c8",
                                           "\ud55c\uad6d\uc5b4",
                                           "\u0645\u0631\u062d\u0628\u0627",
                                           "\u0627\u0644\u0639\u0627\u0644\u0645",
                                           "\u0928\u092e\u0938\u094d\u0924\u0947",
                                           "\u0926\u0941\u0928\u093f\u092f\u093e",
                                           "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35",
                                           "\U0001F642",
                                           "\U0001F468\u200d\U0001F469\u200d\U0001F467",
                                           "\U0001F3F3\ufe0f\u200d\U0001F308",
                                           "\u2764\ufe0f",
                                           "\U0001F44D\U0001F3FD",
                                           "\u0663\u0664\u0665",
                                           "\u0967\u0968",
                                           "\uff11\uff12\uff13\uff14",
                                           "\u00b2",
                                           "\u00bd",
                                           "\u2153",
                                           "\u216b",
                                           "\u2460",
                                           "12345",
                                           "7",
                                           "3.14",
                                           "'s",
                                           "'S",
                                           "'ll",
                                           "'LL",
                                           "'re",
                                           "'Ve",
                                           "'m",
                                           "'d",
                                           "'T",
                                           "'",
                                           "''",
                                           " ",
                                           "  ",
                                           "   ",
                                           "\t",
                                           "\n",
                                           "\r\n",
                                           "\n\n",
                                           "\r",
                                           "\f",
                                           "\v",
                                           "\u00a0",
                                           "\u3000",
                                           "\u2003",
                                           "\u2028",
                                           "\u200b",
                                           "\u0085",
                                           "\ufeff",
                                           ".",
                                           ",",
                                           "!?",
                                           "/",
                                           "//",
                                           "(",
                                           ")",
                                           "-",
                                           "_",
                                           "#",
                                           "\u2014",
                                           "\u3002",
                                           "\uff0c",
                                           "Hello",
                                           "world",
                                           "HTTPServer",
                                           "camelCase",
                                           "iPhone",
                                           "don't",
                                           "I'M",
                                           "x",
                                           "A",
                                           "\u0301",
                                           "\u0308"};
  std::string text;
  const size_t n = 1 + rng() % 12;
  for (size_t i = 0; i < n; ++i) {
    text += kFragments[rng() % std::size(kFragments)];
    if (rng() % 4 == 0) text += ' ';
  }
  return text;
}

// Code points from all planes, assigned or not.
std::string RandomCodePoints(std::mt19937_64& rng) {
  std::string text;
  const size_t n = 1 + rng() % 24;
  for (size_t i = 0; i < n;) {
    const uint64_t r = rng() % 10;
    const uint64_t limit = r < 3 ? 0x80 : r < 8 ? 0x10000 : 0x110000;
    const auto cp = static_cast<char32_t>(rng() % limit);
    if (cp >= 0xD800 && cp < 0xE000) continue;
    AppendUtf8(cp, &text);
    ++i;
  }
  return text;
}

// Dense mixes of the characters that the ASCII branches of the patterns look at.
std::string AsciiEdgeMix(std::mt19937_64& rng) {
  static const char* const kPieces[] = {
      "'",  "s",  "t", "re", "ve", "m", "ll", "d",  "S",  "T",  "RE", "VE",   "M",
      "LL", "D",  "e", "l",  "r",  "v", " ",  "  ", "\t", "\r", "\n", "\r\n", "\n\n",
      "\f", "\v", ".", ",",  "!",  "/", "-",  "_",  "0",  "42", "x",  "Q"};
  std::string text;
  const size_t n = 1 + rng() % 30;
  for (size_t i = 0; i < n; ++i) text += kPieces[rng() % std::size(kPieces)];
  return text;
}

// Texts of a few hundred bytes, longer than the 64-byte blocks of the ASCII fast path, so
// that pre-tokens, contractions and white-space runs straddle block edges: mostly ASCII edge
// pieces and words, any ASCII byte now and then, and (in half the texts) other scripts.
std::string LongMixedText(std::mt19937_64& rng) {
  static const char* const kWords[] = {
      "the",    "Once",  "upon",  "a",    "time",
      "little", "dog",   "won't", "it's", "they'll",
      "I've",   "we're", "2024",  "3.5",  "https://example.com/a_b?c=1",
      "e-mail"};
  const bool other_scripts = rng() % 2 == 0;
  const size_t size = rng() % 400;
  std::string text;
  while (text.size() < size) {
    const uint64_t r = rng() % 20;
    if (r < 8) {
      text += AsciiEdgeMix(rng);
    } else if (r < 15) {
      text += kWords[rng() % std::size(kWords)];
      text += ' ';
    } else if (r < 17) {
      text += static_cast<char>(rng() % 0x80);
    } else if (r < 18) {
      text += std::string(1 + rng() % 80, " \n\t"[rng() % 3]);  // runs longer than a block
    } else if (other_scripts) {
      text += MultiScriptText(rng);
    }
  }
  return text;
}

class PreTokenizerDifferentialTest : public ::testing::TestWithParam<Pattern> {
 protected:
  // The reference splits each text once; the fast matcher splits it on every SIMD path.
  void ExpectSameAsReference(std::string (*generate)(std::mt19937_64&), uint64_t seed) {
    constexpr int kCases = 5000;
    const std::unique_ptr<PreTokenizer> fast = MakePreTokenizer(GetParam());
    const std::unique_ptr<PreTokenizer> regex = MakeRegexPreTokenizer(GetParam());
    const std::vector<SimdPath> paths = testing::SimdPathsOfThisCpu();
    std::mt19937_64 rng(seed);
    int failures = 0;
    for (int i = 0; i < kCases && failures < 10; ++i) {
      const std::string text = generate(rng);
      const Pieces expected = Split(*regex, text);
      for (SimdPath path : paths) {
        const ScopedSimdPath active(path);
        const Pieces actual = Split(*fast, text);
        if (actual != expected) {
          ++failures;
          ADD_FAILURE() << PatternName(GetParam()) << " on " << SimdPathName(path) << " case " << i
                        << " " << Escaped(text) << "\n  regex: " << Escaped(expected)
                        << "\n  fast:  " << Escaped(actual);
        }
      }
    }
  }
};

TEST_P(PreTokenizerDifferentialTest, MultiScriptText) { ExpectSameAsReference(MultiScriptText, 1); }

TEST_P(PreTokenizerDifferentialTest, RandomCodePoints) {
  ExpectSameAsReference(RandomCodePoints, 2);
}

TEST_P(PreTokenizerDifferentialTest, AsciiEdgeMix) { ExpectSameAsReference(AsciiEdgeMix, 3); }

TEST_P(PreTokenizerDifferentialTest, LongMixedText) { ExpectSameAsReference(LongMixedText, 4); }

INSTANTIATE_TEST_SUITE_P(AllPatterns, PreTokenizerDifferentialTest,
                         ::testing::ValuesIn(kAllPatterns),
                         [](const ::testing::TestParamInfo<Pattern>& info) {
                           return std::string(PatternName(info.param));
                         });
}  // namespace
}  // namespace bpeforge::internal
