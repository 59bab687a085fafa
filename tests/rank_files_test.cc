// tiktoken rank files loaded alone, through the public API and the command line alike: OpenAI's
// own (gpt2, cl100k_base, o200k_base) are told by their ranks and get their encoding's pattern
// and special tokens; any other rank file needs its pattern, since the wrong one gives wrong ids.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bpeforge/bpeforge.h"
#include "tests/test_util.h"

namespace bpeforge {
namespace {

using internal::testing::TempDir;

struct Encoding {
  std::string name;
  Pattern pattern;
  std::vector<std::pair<std::string, TokenId>> specials;
  std::vector<TokenId> hes_here;  // tiktoken's ids of "HE'S HERE"
};

const std::vector<Encoding>& Encodings() {
  static const auto* encodings = new std::vector<Encoding>{
      {"gpt2", Pattern::kGpt2, {{"<|endoftext|>", 50256}}, {13909, 6, 50, 15698}},
      {"cl100k_base",
       Pattern::kCl100k,
       {{"<|endoftext|>", 100257}, {"<|fim_prefix|>", 100258}, {"<|endofprompt|>", 100276}},
       {1837, 13575, 19804}},
      {"o200k_base",
       Pattern::kO200k,
       {{"<|endoftext|>", 199999}, {"<|endofprompt|>", 200018}},
       {2895, 31233, 32396}},
  };
  return *encodings;
}

TEST(RankFilesTest, OpenAisRankFilesAloneGetTheirPatternAndSpecialTokens) {
  const std::optional<std::string> fixtures = internal::testing::FixturesDir();
  if (!fixtures) GTEST_SKIP() << "reference data not found";
  for (const Encoding& e : Encodings()) {
    SCOPED_TRACE(e.name);
    // A folder of its own: nothing beside the file says what it is.
    TempDir dir;
    const std::string path = dir.File("ranks.tiktoken");
    std::filesystem::copy_file(*fixtures + "/tiktoken_" + e.name + ".tiktoken", path);
    absl::StatusOr<Tokenizer> t = Tokenizer::Load(path);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->pattern(), e.pattern);
    EXPECT_EQ(t->Encode("HE'S HERE"), e.hes_here);
    for (const auto& [token, id] : e.specials) {
      EXPECT_EQ(t->SpecialTokenId(token), id) << token;
      EXPECT_EQ(t->Encode(absl::StrCat("a", token)).back(), id) << token;
    }
    // A special token asked for by name takes the encoding's id.
    LoadOptions options;
    options.special_tokens = {"<|endoftext|>", "<|mine|>"};
    t = Tokenizer::Load(path, options);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->SpecialTokenId("<|endoftext|>"), e.specials[0].second);
    EXPECT_TRUE(t->SpecialTokenId("<|mine|>").has_value());
    // The command line reads it the same way.
    internal::testing::WriteFile(dir.File("text.txt"), "HE'S HERE");
    const internal::testing::CommandResult r = internal::testing::RunCli(
        absl::StrCat("encode --tokenizer '", path, "' '", dir.File("text.txt"), "' --output '",
                     dir.File("ids"), "' --dtype uint32 --quiet"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string ids = internal::testing::ReadFileOrDie(dir.File("ids"));
    ASSERT_EQ(ids.size(), 4 * e.hes_here.size());
    for (size_t i = 0; i < e.hes_here.size(); ++i) {
      TokenId id = 0;
      std::memcpy(&id, ids.data() + 4 * i, 4);
      EXPECT_EQ(id, e.hes_here[i]);
    }
  }
}

TEST(RankFilesTest, ARankFileNothingNamesAPatternForIsRefused) {
  const std::optional<std::string> fixtures = internal::testing::FixturesDir();
  if (!fixtures) GTEST_SKIP() << "reference data not found";
  // GPT-2's ranks less the last: no longer OpenAI's file.
  TempDir dir;
  std::string ranks = internal::testing::ReadFileOrDie(*fixtures + "/tiktoken_gpt2.tiktoken");
  ranks.erase(ranks.rfind('\n', ranks.size() - 2) + 1);
  const std::string path = dir.File("ranks.tiktoken");
  internal::testing::WriteFile(path, ranks);
  absl::StatusOr<Tokenizer> t = Tokenizer::Load(path);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            absl::StrCat(path,
                         ": a tiktoken rank file does not say which pre-tokenizer pattern it was "
                         "made with, and no tiktoken.json is beside it to say so; give the "
                         "pattern (gpt2, cl100k, o200k or a regex)"));
  internal::testing::ExpectCleanFailure(
      internal::testing::RunCli(absl::StrCat("encode --tokenizer '", path, "' '", path,
                                             "' --output '", dir.File("ids"), "' --quiet")),
      "give the pattern");
  LoadOptions options;
  options.pattern = Pattern::kGpt2;
  t = Tokenizer::Load(path, options);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->Encode("HE'S HERE"), Encodings()[0].hes_here);
  EXPECT_FALSE(t->SpecialTokenId("<|endoftext|>").has_value());  // not OpenAI's file
}

TEST(RankFilesTest, APatternOtherThanTheEncodingsIsRefused) {
  const std::optional<std::string> fixtures = internal::testing::FixturesDir();
  if (!fixtures) GTEST_SKIP() << "reference data not found";
  const std::string path = *fixtures + "/tiktoken_cl100k_base.tiktoken";
  LoadOptions options;
  options.pattern = Pattern::kGpt2;
  absl::StatusOr<Tokenizer> t = Tokenizer::Load(path, options);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(), absl::StrCat("pattern gpt2 differs from the pattern cl100k in ",
                                               path, " (OpenAI's cl100k_base ranks)"));
  options.pattern = Pattern::kCl100k;
  EXPECT_TRUE(Tokenizer::Load(path, options).ok());
}

}  // namespace
}  // namespace bpeforge
