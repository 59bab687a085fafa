// Ids equal tiktoken's for the reference texts and strings, for gpt2, cl100k_base and
// o200k_base from their rank files, and for gpt2 also from GPT-2's vocab.json + merges.txt.
// Skipped when the reference data is absent.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_split.h"
#include "core/encode/bpe_codec.h"
#include "core/encode/stream_encoder.h"
#include "core/formats/gpt2_files.h"
#include "core/formats/tiktoken_files.h"
#include "tests/test_util.h"

namespace bpeforge::internal {
namespace {

const std::string kEot = "<|endoftext|>";

struct Encoding {
  std::string name;
  Pattern pattern;
};
// So that test listings show the encoding, not the struct's bytes.
void PrintTo(const Encoding& e, std::ostream* os) { *os << e.name; }

nlohmann::json Expected(const std::string& fixtures) {
  return nlohmann::json::parse(testing::ReadFileOrDie(fixtures + "/expected_ids.json"));
}

BpeCodec FromRankFiles(const std::string& fixtures, const std::string& name, Pattern pattern) {
  absl::StatusOr<Ranks> ranks = ReadTiktokenRanks(fixtures + "/tiktoken_" + name + ".tiktoken");
  EXPECT_TRUE(ranks.ok()) << ranks.status();
  auto ids = ReadSpecialTokenIds(fixtures + "/tiktoken_" + name + ".json");
  EXPECT_TRUE(ids.ok()) << ids.status();
  std::optional<TokenId> eot;
  for (const auto& [token, id] : *ids) {
    if (token == kEot) eot = id;
  }
  EXPECT_TRUE(eot.has_value());
  absl::StatusOr<BpeCodec> tok = BpeCodec::FromRanks(*ranks, {{kEot, eot}}, pattern);
  EXPECT_TRUE(tok.ok()) << tok.status();
  return *std::move(tok);
}

// Encode, streaming by lines, and decoding back, against one encoding's expected ids.
void CheckEncoding(const BpeCodec& tok, const nlohmann::json& expected,
                   const std::string& fixtures) {
  for (const auto& [file, ids] : expected.at("files").items()) {
    const std::string text = testing::ReadFileOrDie(fixtures + "/cs336/" + file);
    const std::vector<TokenId> want = ids.get<std::vector<TokenId>>();
    EXPECT_EQ(tok.Encode(text), want) << file;
    std::vector<TokenId> streamed;
    StreamEncoder encoder(tok);
    for (absl::string_view line : absl::StrSplit(text, absl::ByString("\n"))) {
      encoder.Push(line, &streamed);
      if (line.data() + line.size() < text.data() + text.size()) encoder.Push("\n", &streamed);
    }
    encoder.Finish(&streamed);
    EXPECT_EQ(streamed, want) << file << " by lines";
    EXPECT_EQ(*tok.Decode(want), text) << file;
  }
  for (const auto& s : expected.at("strings")) {
    const std::string text = s.at("text").get<std::string>();
    EXPECT_EQ(tok.Encode(text), s.at("ids").get<std::vector<TokenId>>()) << text;
  }
}

class ConformanceTest : public ::testing::TestWithParam<Encoding> {};

TEST_P(ConformanceTest, RankFilesGiveTiktokenIds) {
  const std::optional<std::string> fixtures = testing::FixturesDir();
  if (!fixtures) GTEST_SKIP() << "reference data not found";
  const Encoding& e = GetParam();
  const BpeCodec tok = FromRankFiles(*fixtures, e.name, e.pattern);
  CheckEncoding(tok, Expected(*fixtures)["encodings"][e.name], *fixtures);
}

INSTANTIATE_TEST_SUITE_P(Encodings, ConformanceTest,
                         ::testing::Values(Encoding{"gpt2", Pattern::kGpt2},
                                           Encoding{"cl100k_base", Pattern::kCl100k},
                                           Encoding{"o200k_base", Pattern::kO200k}),
                         [](const auto& info) { return info.param.name; });

TEST(ConformanceTest, Gpt2VocabAndMergesGiveTiktokenIds) {
  const std::optional<std::string> fixtures = testing::FixturesDir();
  if (!fixtures) GTEST_SKIP() << "reference data not found";
  absl::StatusOr<Vocab> vocab = ReadVocabJson(*fixtures + "/cs336/gpt2_vocab.json");
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  absl::StatusOr<Merges> merges = ReadMergesTxt(*fixtures + "/cs336/gpt2_merges.txt");
  ASSERT_TRUE(merges.ok()) << merges.status();
  absl::StatusOr<BpeCodec> tok = BpeCodec::Create(*vocab, *merges, {kEot}, Pattern::kGpt2);
  ASSERT_TRUE(tok.ok()) << tok.status();
  EXPECT_EQ(tok->Encode(kEot), std::vector<TokenId>{50256});
  CheckEncoding(*tok, Expected(*fixtures)["encodings"]["gpt2"], *fixtures);
}

TEST(ConformanceTest, RankFileRoundTrip) {
  const std::optional<std::string> fixtures = testing::FixturesDir();
  if (!fixtures) GTEST_SKIP() << "reference data not found";
  const std::string path = *fixtures + "/tiktoken_gpt2.tiktoken";
  absl::StatusOr<Ranks> ranks = ReadTiktokenRanks(path);
  ASSERT_TRUE(ranks.ok()) << ranks.status();
  EXPECT_EQ(TextOf([&](TextSink& out) { WriteTiktokenRanks(*ranks, out); }),
            testing::ReadFileOrDie(path));
}

}  // namespace
}  // namespace bpeforge::internal
