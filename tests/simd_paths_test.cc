// Results never depend on the SIMD path: training and encoding on every path this CPU has, with
// one and two threads and several chunk sizes, give the same merges and ids; and BPEFORGE_SIMD
// chooses the path, which the summary and --stats-json name.
#include "tests/simd_paths.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <tbb/task_arena.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "core/encode/bpe_codec.h"
#include "core/internal/simd.h"
#include "parallel/parallel_encode.h"
#include "parallel/train.h"
#include "tests/test_util.h"
#include "tests/text_gen.h"

namespace bpeforge::internal {
namespace {

using testing::OnEverySimdPath;
using testing::TempDir;

constexpr Pattern kPatterns[] = {Pattern::kGpt2, Pattern::kCl100k, Pattern::kO200k};

// Text of many scripts with special tokens, long ASCII stretches (which the 64-byte blocks
// take) and the CS336 training corpus where the reference data is at hand.
std::vector<std::string> Corpora() {
  testing::TextGenOptions options;
  options.fragments = 20000;
  options.special_tokens = {"<|endoftext|>"};
  std::vector<std::string> corpora = {testing::RandomText(11, options)};
  options.unicode = false;
  corpora.push_back(testing::RandomText(12, options));
  if (const std::optional<std::string> fixtures = testing::FixturesDir()) {
    corpora.push_back(testing::ReadFileOrDie(*fixtures + "/cs336/corpus.en"));
  }
  return corpora;
}

TrainJobResult TrainOn(const std::string& path, Pattern pattern, int threads, size_t chunk_bytes) {
  TrainJob job;
  job.inputs = {path};
  job.trainer.vocab_size = 700;
  job.trainer.special_tokens = {"<|endoftext|>"};
  job.pattern = pattern;
  job.threads = threads;
  job.chunk_bytes = chunk_bytes;
  absl::StatusOr<TrainJobResult> result = RunTrainJob(job);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : TrainJobResult{};
}

TEST(SimdPathsTest, TrainingGivesTheSameMergesOnEveryPathThreadCountAndChunkSize) {
  TempDir dir;
  const std::vector<std::string> corpora = Corpora();
  for (size_t c = 0; c < corpora.size(); ++c) {
    const std::string path = dir.File("corpus" + std::to_string(c) + ".txt");
    testing::WriteFile(path, corpora[c]);
    for (Pattern pattern : kPatterns) {
      SCOPED_TRACE(std::string(PatternName(pattern)) + " on corpus " + std::to_string(c));
      std::optional<TrainedVocab> first;
      OnEverySimdPath([&](SimdPath) {
        for (int threads : {1, 2}) {
          for (size_t chunk_bytes : {size_t{4} << 20, size_t{4096}}) {
            const TrainJobResult r = TrainOn(path, pattern, threads, chunk_bytes);
            if (!first) {
              first = r.trained;
              EXPECT_GT(first->merges.size(), 100u);
              continue;
            }
            EXPECT_EQ(r.trained.merges, first->merges) << threads << " threads, " << chunk_bytes;
            EXPECT_EQ(r.trained.vocab, first->vocab) << threads << " threads, " << chunk_bytes;
          }
        }
      });
    }
  }
}

std::vector<TokenId> EncodeOn(const BpeCodec& tokenizer, const std::string& path, int threads,
                              size_t chunk_bytes) {
  std::vector<TokenId> ids;
  tbb::task_arena arena(threads);
  arena.execute([&] {
    EncodeFilesOptions options;
    options.chunk_bytes = chunk_bytes;
    absl::StatusOr<EncodeFilesStats> stats =
        EncodeFiles(tokenizer, {path}, options, [&](absl::Span<const TokenId> chunk) {
          ids.insert(ids.end(), chunk.begin(), chunk.end());
          return absl::OkStatus();
        });
    EXPECT_TRUE(stats.ok()) << stats.status();
  });
  return ids;
}

TEST(SimdPathsTest, EncodingGivesTheSameIdsOnEveryPathThreadCountAndChunkSize) {
  TempDir dir;
  const std::vector<std::string> corpora = Corpora();
  for (Pattern pattern : kPatterns) {
    // A tokenizer of this pattern, trained on the first corpus on the baseline path.
    const std::string train_path = dir.File("train.txt");
    testing::WriteFile(train_path, corpora[0]);
    TrainedVocab trained;
    {
      const ScopedSimdPath baseline(SimdPath::kBaseline);
      trained = TrainOn(train_path, pattern, 2, size_t{4} << 20).trained;
    }
    absl::StatusOr<BpeCodec> tokenizer =
        BpeCodec::Create(trained.vocab, trained.merges, {"<|endoftext|>"}, pattern);
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
    for (size_t c = 0; c < corpora.size(); ++c) {
      SCOPED_TRACE(std::string(PatternName(pattern)) + " on corpus " + std::to_string(c));
      const std::string path = dir.File("encode" + std::to_string(c) + ".txt");
      testing::WriteFile(path, corpora[c]);
      std::optional<std::vector<TokenId>> first;
      OnEverySimdPath([&](SimdPath) {
        EXPECT_EQ(tokenizer->Encode(corpora[c]), EncodeOn(*tokenizer, path, 1, size_t{1} << 20));
        for (int threads : {1, 2}) {
          for (size_t chunk_bytes : {size_t{1} << 20, size_t{4096}}) {
            std::vector<TokenId> ids = EncodeOn(*tokenizer, path, threads, chunk_bytes);
            if (!first) {
              first = std::move(ids);
              EXPECT_GT(first->size(), 1000u);
              continue;
            }
            EXPECT_EQ(ids, *first) << threads << " threads, " << chunk_bytes;
          }
        }
      });
    }
  }
}

// Sets an environment variable for the commands a test runs, and takes it away after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

// Trains as a user would with BPEFORGE_SIMD set to `simd` (unset when empty): the result, and
// the path that the stats name.
struct CliRun {
  testing::CommandResult result;
  std::string stats_simd;
};
CliRun TrainWithSimd(const TempDir& dir, const std::string& simd) {
  testing::TextGenOptions gen;
  gen.fragments = 3000;
  testing::WriteFile(dir.File("in.txt"), testing::RandomText(5, gen));
  std::optional<ScopedEnv> env;
  if (!simd.empty()) env.emplace("BPEFORGE_SIMD", simd);
  CliRun run;
  run.result = testing::RunCli("train " + dir.File("in.txt") + " --vocab-size 300 --out " +
                               dir.File("out") + " --stats-json " + dir.File("stats.json"));
  if (run.result.exit_code == 0) {
    const auto stats = nlohmann::json::parse(testing::ReadFileOrDie(dir.File("stats.json")));
    run.stats_simd = stats.value("simd", "");
  }
  return run;
}

std::string WidestPathOfThisCpu() {
  return std::string(SimdPathName(testing::SimdPathsOfThisCpu().back()));
}

TEST(SimdPathsTest, TheWidestPathIsUsedAndNamedInTheSummaryAndStats) {
  TempDir dir;
  const CliRun run = TrainWithSimd(dir, "");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_EQ(run.stats_simd, WidestPathOfThisCpu());
  EXPECT_NE(run.result.out.find(", " + WidestPathOfThisCpu()), std::string::npos) << run.result.out;
  EXPECT_EQ(run.result.err, "");
}

TEST(SimdPathsTest, BpeforgeSimdChoosesEachPathTheCpuHas) {
  for (SimdPath path : testing::SimdPathsOfThisCpu()) {
    TempDir dir;
    const std::string name(SimdPathName(path));
    const CliRun run = TrainWithSimd(dir, name);
    ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
    EXPECT_EQ(run.stats_simd, name);
    EXPECT_NE(run.result.out.find(", " + name), std::string::npos) << run.result.out;
    EXPECT_EQ(run.result.err, "") << name;
  }
}

// A speed setting is no reason to fail a job: the widest path runs instead, and one line on
// standard error says so.
TEST(SimdPathsTest, BpeforgeSimdWithAnUnknownNameFallsBackWithOneWarning) {
  TempDir dir;
  const CliRun run = TrainWithSimd(dir, "avx-512");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_EQ(run.stats_simd, WidestPathOfThisCpu());
  EXPECT_EQ(run.result.err,
            "bpeforge: BPEFORGE_SIMD=avx-512 is none of sse2, avx2, avx512; using " +
                WidestPathOfThisCpu() + "\n");
}

TEST(SimdPathsTest, BpeforgeSimdNamingAPathTheCpuLacksFallsBackWithOneWarning) {
  if (CpuHasSimdPath(SimdPath::kAvx512)) GTEST_SKIP() << "this CPU has every path";
  TempDir dir;
  const CliRun run = TrainWithSimd(dir, "avx512");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_EQ(run.stats_simd, WidestPathOfThisCpu());
  EXPECT_EQ(run.result.err, "bpeforge: BPEFORGE_SIMD=avx512: this CPU lacks avx512; using " +
                                WidestPathOfThisCpu() + "\n");
}

}  // namespace
}  // namespace bpeforge::internal
