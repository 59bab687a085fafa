#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <unordered_set>

#include "absl/strings/ascii.h"
#include "bench/corpus_generator.h"
#include "core/internal/utf8.h"

namespace bpeforge::internal::bench {
namespace {

std::string Make(Flavor flavor, uint64_t size, uint64_t seed, int threads = 1) {
  CorpusOptions options;
  options.flavor = flavor;
  options.size = size;
  options.seed = seed;
  options.threads = threads;
  return GenerateCorpusString(options);
}

size_t DistinctWords(const std::string& text) {
  std::unordered_set<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n')) ++i;
    const size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\n') ++i;
    if (i > start) words.insert(text.substr(start, i - start));
  }
  return words.size();
}

class GenCorpusTest : public ::testing::TestWithParam<Flavor> {};

TEST_P(GenCorpusTest, SameSeedSameBytes) {
  EXPECT_EQ(Make(GetParam(), 3'000'000, 7), Make(GetParam(), 3'000'000, 7));
}

TEST_P(GenCorpusTest, ThreadCountDoesNotMatter) {
  EXPECT_EQ(Make(GetParam(), 5'000'000, 7, 1), Make(GetParam(), 5'000'000, 7, 3));
}

TEST_P(GenCorpusTest, DifferentSeedsDiffer) {
  const std::string a = Make(GetParam(), 1'000'000, 1);
  const std::string b = Make(GetParam(), 1'000'000, 2);
  EXPECT_NE(a, b);
  EXPECT_NE(a.substr(0, 1000), b.substr(0, 1000));
}

TEST_P(GenCorpusTest, ExactSizeAndShorterIsPrefix) {
  for (uint64_t size : {0ULL, 1ULL, 17ULL, 4096ULL, 1'234'567ULL, 2'100'000ULL}) {
    EXPECT_EQ(Make(GetParam(), size, 3).size(), size) << size;
  }
  // Documented: a shorter corpus is a prefix of a longer one, up to the cut and padding of
  // the last character.
  const std::string longer = Make(GetParam(), 2'100'000, 3);
  const std::string shorter = Make(GetParam(), 1'234'567, 3);
  const size_t end = shorter.find_last_not_of('\n');
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(shorter.substr(0, end + 1), longer.substr(0, end + 1));
}

TEST_P(GenCorpusTest, ValidUtf8EvenWhenCut) {
  const std::string text = Make(GetParam(), 3'000'000, 11);
  EXPECT_EQ(FindInvalidUtf8(text), std::nullopt);
  // Cuts just after the lead byte of multi-byte characters: the cut moves back to the
  // character boundary and the rest is padding.
  int cuts = 0;
  for (size_t pos = 0; pos < text.size() && cuts < 20; ++pos) {
    if ((static_cast<unsigned char>(text[pos]) & 0xC0) != 0xC0) continue;
    const std::string cut = Make(GetParam(), pos + 1, 11);
    ASSERT_EQ(cut.size(), pos + 1);
    EXPECT_EQ(FindInvalidUtf8(cut), std::nullopt) << pos;
    EXPECT_EQ(cut.back(), '\n');
    ++cuts;
    pos += 100'000;  // spread the cuts over the first blocks
  }
  EXPECT_GT(cuts, 0);
}

TEST_P(GenCorpusTest, DocumentsSeparatedByEndOfTextOnItsOwnLine) {
  const std::string text = Make(GetParam(), 2'000'000, 5);
  size_t count = 0;
  for (size_t pos = text.find("<|endoftext|>"); pos != std::string::npos;
       pos = text.find("<|endoftext|>", pos + 1)) {
    ++count;
    ASSERT_GT(pos, 0u);
    EXPECT_EQ(text[pos - 1], '\n');
    if (pos + 13 < text.size()) {
      EXPECT_EQ(text[pos + 13], '\n');
    }
  }
  EXPECT_GT(count, 100u);
}

INSTANTIATE_TEST_SUITE_P(Flavors, GenCorpusTest,
                         ::testing::Values(Flavor::kStories, Flavor::kWeb, Flavor::kCjk),
                         [](const ::testing::TestParamInfo<Flavor>& info) {
                           return std::string(FlavorName(info.param));
                         });

TEST(GenCorpusFlavorTest, StoriesLookLikeStories) {
  const std::string text = Make(Flavor::kStories, 2'000'000, 1);
  EXPECT_NE(text.find("Once upon a time"), std::string::npos);
  EXPECT_NE(text.find("\""), std::string::npos);
  for (const char* contraction : {"don't", "It's", "I'm"}) {
    EXPECT_NE(text.find(contraction), std::string::npos) << contraction;
  }
  EXPECT_NE(text.find("\n\n"), std::string::npos);
}

TEST(GenCorpusFlavorTest, WebHasFarMoreDistinctWordsThanStories) {
  const size_t stories = DistinctWords(Make(Flavor::kStories, 4'000'000, 1));
  const size_t web = DistinctWords(Make(Flavor::kWeb, 4'000'000, 1));
  EXPECT_GT(stories, 300u);
  EXPECT_GT(web, 20 * stories) << "stories " << stories << ", web " << web;
}

TEST(GenCorpusFlavorTest, WebHasOtherScriptsNumbersAndUrls) {
  const std::string text = Make(Flavor::kWeb, 4'000'000, 1);
  for (const char* needle : {"https://", "@", "%", "$", "\xD0", "\xCE", "\xD8", "\xE4",
                             "\xF0\x9F"}) {  // Cyrillic, Greek, Arabic, CJK, emoji lead bytes
    EXPECT_NE(text.find(needle), std::string::npos) << needle;
  }
}

// A language written without spaces: no cut after a letter before white space, only the
// paragraphs' "。\n\n" and the <|endoftext|> lines; thousands of distinct characters.
TEST(GenCorpusFlavorTest, CjkHasNoSpacesAndEndsParagraphsInPunctuation) {
  std::string text = Make(Flavor::kCjk, 2'000'000, 1);
  EXPECT_NE(text.find("\u3002\n\n"), std::string::npos);
  EXPECT_NE(text.find("\u201C"), std::string::npos);
  for (size_t pos; (pos = text.find("<|endoftext|>")) != std::string::npos;) text.erase(pos, 13);
  for (char c : text) {
    ASSERT_FALSE(c == ' ' || absl::ascii_isalpha(c)) << "'" << c << "'";
  }
  std::unordered_set<char32_t> ideographs;
  size_t i = 0;
  while (i < text.size()) {
    char32_t cp;
    const size_t n = DecodeUtf8(absl::string_view(text).substr(i), &cp);
    ASSERT_GT(n, 0u) << i;
    if (cp >= 0x4E00 && cp <= 0x9FFF) ideographs.insert(cp);
    i += n;
  }
  EXPECT_GT(ideographs.size(), 1000u);
}

TEST(GenCorpusParseTest, Sizes) {
  EXPECT_EQ(*ParseSize("123"), 123u);
  EXPECT_EQ(*ParseSize("100M"), 100'000'000u);
  EXPECT_EQ(*ParseSize("2G"), 2'000'000'000u);
  EXPECT_EQ(*ParseSize("16K"), 16'000u);
  EXPECT_EQ(*ParseSize("1GiB"), 1ULL << 30);
  EXPECT_EQ(*ParseSize("4Mi"), 4ULL << 20);
  EXPECT_EQ(*ParseSize("12GB"), 12'000'000'000u);
  EXPECT_FALSE(ParseSize("").ok());
  EXPECT_FALSE(ParseSize("M").ok());
  EXPECT_FALSE(ParseSize("10X").ok());
  EXPECT_FALSE(ParseSize("-5").ok());
  EXPECT_FALSE(ParseSize("99999999999T").ok());
}

TEST(GenCorpusParseTest, Flavors) {
  EXPECT_EQ(*ParseFlavor("stories"), Flavor::kStories);
  EXPECT_EQ(*ParseFlavor("web"), Flavor::kWeb);
  EXPECT_EQ(*ParseFlavor("cjk"), Flavor::kCjk);
  EXPECT_FALSE(ParseFlavor("poems").ok());
}

}  // namespace
}  // namespace bpeforge::internal::bench
