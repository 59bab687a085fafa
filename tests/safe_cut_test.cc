// Safe cuts: pre-tokenizing chunk by chunk gives exactly the pre-tokens of one pass.
#include "core/pretokenize/safe_cut.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/pretokenize/pretokenizer.h"
#include "tests/text_gen.h"

namespace bpeforge::internal {
namespace {

std::vector<std::string> Pieces(const PreTokenizer& p, const SpecialTokens& specials,
                                absl::string_view text) {
  std::vector<std::string> out;
  specials.Split(
      text,
      [&](absl::string_view piece) {
        p.Split(piece, [&](absl::string_view t) { out.emplace_back(t); });
      },
      [&](size_t index) { out.push_back("<special " + std::to_string(index) + ">"); });
  return out;
}

TEST(ChunkerTest, EveryChunkingGivesThePiecesOfOnePass) {
  const SpecialTokens specials({"<|endoftext|>", "<|endoftext|><|endoftext|>", "e f"});
  for (Pattern pattern : {Pattern::kGpt2, Pattern::kCl100k, Pattern::kO200k}) {
    auto regex = MakeRegexPreTokenizer(pattern);
    for (uint64_t seed = 0; seed < 40; ++seed) {
      testing::TextGenOptions gen;
      gen.fragments = 400;
      gen.special_tokens = specials.tokens();
      const std::string text = testing::RandomText(seed, gen);
      const std::vector<std::string> whole = Pieces(*regex, specials, text);
      for (size_t target : {size_t{1}, size_t{5}, size_t{64}}) {
        std::vector<size_t> bounds = FindChunkBounds(text, specials, target, pattern);
        ASSERT_EQ(bounds.front(), 0u);
        ASSERT_EQ(bounds.back(), text.size());
        ASSERT_GT(bounds.size(), 2u) << "no safe cut found in seed " << seed;
        std::vector<std::string> joined;
        for (size_t i = 0; i + 1 < bounds.size(); ++i) {
          auto part = Pieces(*regex, specials,
                             absl::string_view(text).substr(bounds[i], bounds[i + 1] - bounds[i]));
          joined.insert(joined.end(), part.begin(), part.end());
        }
        ASSERT_EQ(joined, whole) << PatternName(pattern) << " seed " << seed << " target "
                                 << target;
      }
    }
  }
}

TEST(ChunkerTest, NeverCutsInsideASpecialToken) {
  const SpecialTokens specials({"ab cd"});
  const std::string text = "xx ab cd yy ab cd";
  for (size_t pos = 1; pos < text.size(); ++pos) {
    for (Pattern pattern : {Pattern::kGpt2, Pattern::kCl100k, Pattern::kO200k}) {
      if (IsSafeCut(text, pos, specials, pattern)) {
        EXPECT_TRUE(pos != 4 && pos != 5 && pos != 6 && pos != 13 && pos != 14 && pos != 15) << pos;
      }
    }
  }
  EXPECT_TRUE(IsSafeCut(text, 2, specials, Pattern::kGpt2));  // "xx| ab"
}

TEST(ChunkerTest, CutsOtherScriptsAfterWordsAndNewlines) {
  const SpecialTokens none;
  // The cuts all three built-in patterns share; a pattern's own are tested below.
  auto cuts = [&](absl::string_view text) {
    std::vector<size_t> out;
    for (size_t pos = 1; pos < text.size(); ++pos) {
      bool all = true;
      for (Pattern pattern : {Pattern::kGpt2, Pattern::kCl100k, Pattern::kO200k}) {
        all = all && IsSafeCut(text, pos, none, pattern);
      }
      if (all) out.push_back(pos);
    }
    return out;
  };
  // After a letter in any script, before ' ' or '\n'.
  EXPECT_EQ(cuts("Привет мир"), (std::vector<size_t>{12}));
  EXPECT_EQ(cuts("γειά\nσου"), (std::vector<size_t>{8, 9}));
  // After a lone '\n', before what is neither white space nor '/'.
  EXPECT_EQ(cuts("。\n日本。\n.x"), (std::vector<size_t>{4, 14}));
  EXPECT_TRUE(cuts("。\n\n日").empty());  // no cut there holds for every pattern
  EXPECT_TRUE(cuts("。 \n日").empty());
  EXPECT_TRUE(cuts(".\n/x").empty());        // o200k's [\r\n/]* takes the '/'
  EXPECT_TRUE(cuts(".\n\u3000x").empty());   // the white space goes on
  EXPECT_TRUE(cuts("5\n\u0085x").empty());   // NEL is white space too
  EXPECT_TRUE(cuts(".\n\xe6\x97").empty());  // a character cut off
  EXPECT_TRUE(cuts("\xff\x80 x").empty());   // bytes that end no character
  EXPECT_TRUE(cuts("\u0301 x").empty());     // a mark is not a letter
  // Not for a custom pattern.
  EXPECT_FALSE(IsSafeCut("мир мир", 6, none, Pattern::kCustom));
}

// Paragraphs of CJK text end in punctuation and a blank line, "。\n\n", with no letter before
// white space: gpt2 restarts before the newlines (its punctuation never takes them), cl100k and
// o200k after them (their punctuation does, and \s+(?!\S) would split them at gpt2's cut).
TEST(ChunkerTest, CutsParagraphsAfterPunctuationAsEachPatternEndsThem) {
  const SpecialTokens none;
  auto cuts = [&](absl::string_view text, Pattern pattern) {
    std::vector<size_t> out;
    for (size_t pos = 1; pos < text.size(); ++pos) {
      if (IsSafeCut(text, pos, none, pattern)) out.push_back(pos);
    }
    return out;
  };
  const std::string text = "日。\n\n本";  // 日 0-2, 。 3-5, \n 6, \n 7, 本 8-10
  EXPECT_EQ(cuts(text, Pattern::kGpt2), (std::vector<size_t>{6}));
  EXPECT_EQ(cuts(text, Pattern::kCl100k), (std::vector<size_t>{8}));
  EXPECT_EQ(cuts(text, Pattern::kO200k), (std::vector<size_t>{8}));
  // gpt2: after any character but white space before a newline.
  EXPECT_EQ(cuts("1\n\n", Pattern::kGpt2), (std::vector<size_t>{1}));
  EXPECT_EQ(cuts("\t\n\n", Pattern::kGpt2), (std::vector<size_t>{}));
  // cl100k and o200k: after newlines (white space before them or not), before neither white
  // space nor '/'.
  EXPECT_EQ(cuts(" \n\n.", Pattern::kCl100k), (std::vector<size_t>{3}));
  EXPECT_EQ(cuts("\n\n/", Pattern::kO200k), (std::vector<size_t>{}));
  EXPECT_EQ(cuts("\n\n\u3000", Pattern::kCl100k), (std::vector<size_t>{}));
}

TEST(ChunkerTest, TextWithoutCutsIsOneChunk) {
  const SpecialTokens none;
  EXPECT_EQ(FindChunkBounds("日本語日本語", none, 1, Pattern::kGpt2), (std::vector<size_t>{0, 18}));
  EXPECT_EQ(FindChunkBounds("", none, 1, Pattern::kGpt2), (std::vector<size_t>{0, 0}));
}

}  // namespace
}  // namespace bpeforge::internal
