// Corpora that ship as thousands of shards: every command reads a folder of 5,000 files with
// a limit of 256 open files (count, train, encode, count --merge, train --counts), holding a
// bounded number open at once, with the results of reading them any other way.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/formats/counts_file.h"
#include "tests/test_util.h"

namespace bpeforge::internal {
namespace {

using testing::ReadFileOrDie;
using testing::TempDir;
using testing::WriteFile;

constexpr int kFiles = 5000;

// Runs the bpeforge command `args` under a limit of 256 open files (a soft limit that the
// usual 1,024 leaves far behind) and returns its exit status; its output goes to `log`.
int RunWithFewDescriptors(const std::string& args, const std::string& log) {
  const std::string cmd =
      absl::StrCat("ulimit -n 256 && '", BPEFORGE_CLI_PATH, "' ", args, " >'", log, "' 2>&1");
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class ManyFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directory(shards_);
    for (int i = 0; i < kFiles; ++i) {
      const std::string text = absl::StrFormat("shard %d of the corpus: words %d and %d.\n", i,
                                               i * 7 % 1000, i * 13 % 1000);
      WriteFile(absl::StrFormat("%s/part-%05d.txt", shards_, i), text);
      all_text_ += text;
    }
  }

  TempDir dir_;
  const std::string shards_ = dir_.File("shards");
  const std::string log_ = dir_.File("log");
  std::string all_text_;  // the shards' text, in the order a folder is read
};

TEST_F(ManyFilesTest, EveryCommandReadsThousandsOfFilesUnderALowDescriptorLimit) {
  ASSERT_EQ(RunWithFewDescriptors(
                "count --quiet '" + shards_ + "' --out '" + dir_.File("all.counts") + "'", log_),
            0)
      << ReadFileOrDie(log_);
  ASSERT_EQ(RunWithFewDescriptors(
                "train --quiet '" + shards_ + "' --vocab-size 400 --out '" + dir_.File("tok") + "'",
                log_),
            0)
      << ReadFileOrDie(log_);
  // Training on the folder equals training on its count file.
  ASSERT_EQ(RunWithFewDescriptors("train --quiet --counts '" + dir_.File("all.counts") +
                                      "' --vocab-size 400 --out '" + dir_.File("from-counts") + "'",
                                  log_),
            0)
      << ReadFileOrDie(log_);
  EXPECT_EQ(ReadFileOrDie(dir_.File("tok/merges.txt")),
            ReadFileOrDie(dir_.File("from-counts/merges.txt")));
  ASSERT_EQ(RunWithFewDescriptors("encode --quiet --tokenizer '" + dir_.File("tok") + "' '" +
                                      shards_ + "' --output '" + dir_.File("ids") + "'",
                                  log_),
            0)
      << ReadFileOrDie(log_);
  ASSERT_EQ(
      RunWithFewDescriptors("decode --tokenizer '" + dir_.File("tok") + "' '" + dir_.File("ids") +
                                "' --output '" + dir_.File("back.txt") + "'",
                            log_),
      0)
      << ReadFileOrDie(log_);
  EXPECT_EQ(ReadFileOrDie(dir_.File("back.txt")), all_text_);
}

// Thousands of count files (one per shard, as separate jobs write them) added up at once.
TEST_F(ManyFilesTest, ThousandsOfCountFilesAddUpUnderALowDescriptorLimit) {
  const std::string counts = dir_.File("counts");
  std::filesystem::create_directory(counts);
  PreTokenCounts total;
  CountsHeader total_header;
  for (int i = 0; i < kFiles; ++i) {
    PreTokenCounts shard = {{"common", 2}, {absl::StrCat("word", i), uint64_t(i % 9) + 1}};
    CountsHeader header;
    header.bytes = 10 + i % 3;
    header.pretokens = 2 + i % 9 + 1;
    std::string bytes;
    ASSERT_TRUE(WriteCountsFile(header, shard, [&](absl::string_view b) {
                  bytes.append(b.data(), b.size());
                  return absl::OkStatus();
                }).ok());
    WriteFile(absl::StrFormat("%s/part-%05d.counts", counts, i), bytes);
    for (const auto& [word, n] : shard) total[word] += n;
    total_header.bytes += header.bytes;
    total_header.pretokens += header.pretokens;
  }
  std::string want;
  ASSERT_TRUE(WriteCountsFile(total_header, total, [&](absl::string_view b) {
                want.append(b.data(), b.size());
                return absl::OkStatus();
              }).ok());
  ASSERT_EQ(RunWithFewDescriptors(
                "count --quiet --merge '" + counts + "' --out '" + dir_.File("merged.counts") + "'",
                log_),
            0)
      << ReadFileOrDie(log_);
  EXPECT_EQ(ReadFileOrDie(dir_.File("merged.counts")), want);
  ASSERT_EQ(RunWithFewDescriptors("train --quiet --counts '" + counts +
                                      "' --vocab-size 300 --out '" + dir_.File("tok") + "'",
                                  log_),
            0)
      << ReadFileOrDie(log_);
  ASSERT_EQ(RunWithFewDescriptors("train --quiet --counts '" + dir_.File("merged.counts") +
                                      "' --vocab-size 300 --out '" + dir_.File("tok1") + "'",
                                  log_),
            0)
      << ReadFileOrDie(log_);
  EXPECT_EQ(ReadFileOrDie(dir_.File("tok/merges.txt")),
            ReadFileOrDie(dir_.File("tok1/merges.txt")));
}

}  // namespace
}  // namespace bpeforge::internal
