// The CS336 reference: training corpus.en with vocab 500 and <|endoftext|> must reproduce
// the reference merges and vocab exactly. Skipped when ../shared/fixtures is absent.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/formats/gpt2_files.h"
#include "tests/test_util.h"

namespace bpeforge::internal {
namespace {

TEST(TrainConformanceTest, Cs336CorpusWithHfLayout) {
  std::optional<std::string> fixtures = testing::FixturesDir();
  if (!fixtures) GTEST_SKIP() << "no ../shared/fixtures";
  const std::string cs = *fixtures + "/cs336/";
  testing::TempDir out;
  testing::CommandResult r = testing::RunCli("train '" + cs +
                                             "corpus.en' --vocab-size 500 --special-token "
                                             "'<|endoftext|>' --layout hf --threads 2 --out '" +
                                             out.path() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::ReadFileOrDie(out.File("merges.txt")),
            testing::ReadFileOrDie(cs + "train-bpe-reference-merges.txt"));
  // Same tokens with the same ids.
  EXPECT_EQ(nlohmann::json::parse(testing::ReadFileOrDie(out.File("vocab.json"))),
            nlohmann::json::parse(testing::ReadFileOrDie(cs + "train-bpe-reference-vocab.json")));
}

TEST(TrainConformanceTest, Cs336CorpusBytesFirstHasTheSameTokens) {
  std::optional<std::string> fixtures = testing::FixturesDir();
  if (!fixtures) GTEST_SKIP() << "no ../shared/fixtures";
  const std::string cs = *fixtures + "/cs336/";
  testing::TempDir out;
  testing::CommandResult r =
      testing::RunCli("train '" + cs + "corpus.en' --vocab-size 500 " +
                      "--special-token '<|endoftext|>' --out '" + out.path() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<Vocab> ours = ReadVocabJson(out.File("vocab.json"));
  absl::StatusOr<Vocab> ref = ReadVocabJson(cs + "train-bpe-reference-vocab.json");
  ASSERT_TRUE(ours.ok() && ref.ok());
  std::vector<std::string> a = *ours, b = *ref;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  EXPECT_EQ((*ours)[256], "<|endoftext|>");
  EXPECT_EQ((*ours)['a'], "a");
}

}  // namespace
}  // namespace bpeforge::internal
