// How often each merge occurred, as training records it (TokenTree, BpeModel::merge_counts,
// merge_counts.txt): equal to the slow reference's counts, the same on any number of threads,
// saved beside the merges and loaded back, and a tokenizer without them still loads.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "bpeforge/bpeforge.h"
#include "bpeforge/internal/front_ends.h"
#include "parallel/train.h"
#include "tests/reference_trainer.h"
#include "tests/test_util.h"
#include "tests/text_gen.h"

namespace bpeforge {
namespace {

using internal::testing::ReadFileOrDie;
using internal::testing::TempDir;
using internal::testing::WriteFile;

std::vector<uint64_t> CountsOf(const internal::TokenTree& tree) {
  std::vector<uint64_t> counts;
  for (size_t i = 0; i < tree.merges(); ++i) counts.push_back(tree.merge_count(i));
  return counts;
}

// The recorded counts of training `docs` on `threads`, merges split among them from
// `min_split_words` words on.
std::vector<uint64_t> TrainedCounts(const TempDir& dir, const std::vector<std::string>& docs,
                                    size_t vocab_size, const std::vector<std::string>& specials,
                                    int threads, size_t min_split_words) {
  internal::TrainJob job;
  for (size_t i = 0; i < docs.size(); ++i) {
    job.inputs.push_back(dir.File("doc" + std::to_string(i) + ".txt"));
    WriteFile(job.inputs.back(), docs[i]);
  }
  job.trainer.vocab_size = vocab_size;
  job.trainer.special_tokens = specials;
  job.threads = threads;
  job.min_split_words = min_split_words;
  absl::StatusOr<internal::TrainJobResult> result = internal::RunTrainJob(job);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? CountsOf(result->trained.tokens) : std::vector<uint64_t>{};
}

TEST(MergeCountsTest, TrainingRecordsHowOftenEachMergeOccurred) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    internal::testing::TextGenOptions gen;
    gen.fragments = 50 + seed * 10;
    gen.unicode = seed % 3 != 0;
    if (seed % 2 == 0) gen.special_tokens = {"<|endoftext|>"};
    const std::vector<std::string> docs = {internal::testing::RandomText(seed, gen)};
    const size_t vocab = 256 + gen.special_tokens.size() + 10 + (seed * 7) % 120;
    std::vector<uint64_t> expected;
    internal::testing::ReferenceTrain(docs, vocab, gen.special_tokens, Pattern::kGpt2, 0, 0, "",
                                      &expected);
    TempDir dir;
    for (int threads : {1, 2}) {
      ASSERT_EQ(TrainedCounts(dir, docs, vocab, gen.special_tokens, threads, 1), expected)
          << "seed " << seed << ", " << threads << " threads";
    }
  }
}

// Merges rewritten on one worker while the one before's count changes are applied on another
// (the merge loop's step 4e) record the same counts as one thread.
TEST(MergeCountsTest, CountsDoNotDependOnThreads) {
  internal::testing::TextGenOptions gen;
  gen.fragments = 20000;
  gen.special_tokens = {"<|endoftext|>"};
  const std::vector<std::string> docs = {internal::testing::RandomText(9, gen)};
  TempDir dir;
  const std::vector<uint64_t> one = TrainedCounts(dir, docs, 1000, gen.special_tokens, 1, 4096);
  ASSERT_GT(one.size(), 500u);
  for (size_t min_split_words : {size_t{8}, size_t{4096}}) {
    EXPECT_EQ(TrainedCounts(dir, docs, 1000, gen.special_tokens, 2, min_split_words), one);
  }
}

class SavedMergeCountsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    internal::testing::TextGenOptions gen;
    gen.fragments = 3000;
    corpus_ = dir_.File("corpus.txt");
    WriteFile(corpus_, internal::testing::RandomText(5, gen));
    options_.vocab_size = 400;
    options_.threads = 2;
  }
  TempDir dir_;
  std::string corpus_;
  TrainOptions options_;
};

TEST_F(SavedMergeCountsTest, SavedBesideTheMergesAndLoadedBack) {
  absl::StatusOr<TrainResult> trained = Train({corpus_}, options_);
  ASSERT_TRUE(trained.ok()) << trained.status();
  ASSERT_EQ(trained->model.merge_counts.size(), trained->model.merges.size());
  const std::string tok = dir_.File("tok");
  ASSERT_TRUE(TrainAndSave({corpus_}, options_, tok).ok());
  // Line for line beside merges.txt.
  const std::string text = ReadFileOrDie(tok + "/merge_counts.txt");
  EXPECT_EQ(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')),
            trained->model.merges.size());
  EXPECT_EQ(text.substr(0, text.find('\n')), std::to_string(trained->model.merge_counts[0]));
  absl::StatusOr<Tokenizer> loaded = Tokenizer::Load(tok);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->model()->merge_counts, trained->model.merge_counts);
  // Saved again (and from the model Train gives), the same file.
  ASSERT_TRUE(loaded->Save(dir_.File("again")).ok());
  EXPECT_EQ(ReadFileOrDie(dir_.File("again/merge_counts.txt")), text);
  ASSERT_TRUE(SaveTokenizer(trained->model, dir_.File("model")).ok());
  EXPECT_EQ(ReadFileOrDie(dir_.File("model/merge_counts.txt")), text);
}

TEST_F(SavedMergeCountsTest, ATokenizerWithoutThemLoadsAndSavesNone) {
  const std::string tok = dir_.File("tok");
  ASSERT_TRUE(TrainAndSave({corpus_}, options_, tok).ok());
  std::filesystem::remove(tok + "/merge_counts.txt");
  absl::StatusOr<Tokenizer> loaded = Tokenizer::Load(tok);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->model()->merge_counts.empty());
  // Saved over a folder that has counts, it leaves none that belong to other merges.
  ASSERT_TRUE(TrainAndSave({corpus_}, options_, dir_.File("other")).ok());
  ASSERT_TRUE(loaded->Save(dir_.File("other")).ok());
  EXPECT_FALSE(std::filesystem::exists(dir_.File("other/merge_counts.txt")));
  EXPECT_TRUE(Tokenizer::Load(dir_.File("other")).ok());
}

TEST_F(SavedMergeCountsTest, ADamagedFileIsRefusedNamingIt) {
  const std::string tok = dir_.File("tok");
  ASSERT_TRUE(TrainAndSave({corpus_}, options_, tok).ok());
  const std::string path = tok + "/merge_counts.txt";
  const std::string text = ReadFileOrDie(path);
  WriteFile(path, text + "12\n");
  absl::StatusOr<Tokenizer> loaded = Tokenizer::Load(tok);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("merge_counts.txt holds"), std::string::npos)
      << loaded.status();
  WriteFile(path, "# counts\n7\nseven\n");
  loaded = Tokenizer::Load(tok);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("merge_counts.txt:3:"), std::string::npos)
      << loaded.status();
}

}  // namespace
}  // namespace bpeforge
