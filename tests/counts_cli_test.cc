// `bpeforge count` and `bpeforge train --counts`: count files train exactly as the text does,
// add up across shards, do not depend on threads, and are refused when they do not fit.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "core/formats/counts_file.h"
#include "tests/test_util.h"
#include "tests/text_gen.h"

namespace bpeforge::internal {
namespace {

using testing::CommandResult;
using testing::Exists;
using testing::ExpectCleanFailure;
using testing::ReadFileOrDie;
using testing::RunCli;
using testing::TempDir;
using testing::WriteFile;

class CountsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 3; ++i) {
      testing::TextGenOptions gen;
      gen.fragments = 800;
      gen.special_tokens = {"<|endoftext|>"};
      shards_.push_back(dir_.File("shard" + std::to_string(i) + ".txt"));
      WriteFile(shards_.back(), testing::RandomText(40 + i, gen));
      all_ += " '" + shards_.back() + "'";
    }
  }
  void Run(const std::string& args) {
    CommandResult r = RunCli(args + " --quiet");
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  }
  void ExpectSameDirs(const std::string& a, const std::string& b) {
    for (const char* f : {"vocab.json", "merges.txt", "bpeforge.json"}) {
      EXPECT_EQ(ReadFileOrDie(a + "/" + f), ReadFileOrDie(b + "/" + f)) << f;
    }
  }

  TempDir dir_;
  std::vector<std::string> shards_;
  std::string all_;  // the shards, quoted, for a command line
  const std::string specials_ = " --special-token '<|endoftext|>'";
};

TEST_F(CountsCliTest, TrainingFromCountsEqualsTrainingFromText) {
  Run("train" + all_ + specials_ + " --vocab-size 600 --out '" + dir_.File("text") + "'");
  Run("count" + all_ + specials_ + " --threads 1 --chunk-bytes 100 --out '" + dir_.File("1.c") +
      "'");
  Run("count" + all_ + specials_ + " --threads 2 --out '" + dir_.File("2.c") + "'");
  EXPECT_EQ(ReadFileOrDie(dir_.File("1.c")), ReadFileOrDie(dir_.File("2.c")));  // thread-free
  Run("train --counts '" + dir_.File("2.c") + "' --vocab-size 600 --out '" + dir_.File("counts") +
      "'");
  ExpectSameDirs(dir_.File("text"), dir_.File("counts"));
  Run("train --counts '" + dir_.File("2.c") + "' --threads 1 --vocab-size 600 --out '" +
      dir_.File("counts1") + "'");  // the words copied by one worker, not two
  ExpectSameDirs(dir_.File("text"), dir_.File("counts1"));
  // Count files through pipes: count --out - | count --merge - | train --counts -.
  const CommandResult merged =
      RunCli("count --merge - --out - --quiet", /*stdin_path=*/dir_.File("2.c"));
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(merged.out, ReadFileOrDie(dir_.File("2.c")));
  const CommandResult piped =
      RunCli("train --counts - --vocab-size 600 --quiet --out '" + dir_.File("piped") + "'",
             /*stdin_path=*/dir_.File("2.c"));
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  ExpectSameDirs(dir_.File("text"), dir_.File("piped"));
  // A sweep: another vocabulary size from the same count file.
  Run("train" + all_ + specials_ + " --vocab-size 400 --out '" + dir_.File("text400") + "'");
  Run("train --counts '" + dir_.File("2.c") + "' --vocab-size 400 --out '" +
      dir_.File("counts400") + "'");
  ExpectSameDirs(dir_.File("text400"), dir_.File("counts400"));
}

TEST_F(CountsCliTest, ShardsCountedApartAddUp) {
  std::string parts;
  for (size_t i = 0; i < shards_.size(); ++i) {
    const std::string part = dir_.File("part" + std::to_string(i) + ".c");
    Run("count '" + shards_[i] + "'" + specials_ + " --out '" + part + "'");
    parts += " '" + part + "'";
  }
  Run("count" + all_ + specials_ + " --out '" + dir_.File("whole.c") + "'");
  Run("count --merge" + parts + " --out '" + dir_.File("merged.c") + "'");
  EXPECT_EQ(ReadFileOrDie(dir_.File("merged.c")), ReadFileOrDie(dir_.File("whole.c")));
  Run("train --counts" + parts + " --vocab-size 500 --out '" + dir_.File("from-parts") + "'");
  Run("train" + all_ + specials_ + " --vocab-size 500 --out '" + dir_.File("text") + "'");
  ExpectSameDirs(dir_.File("text"), dir_.File("from-parts"));
}

TEST_F(CountsCliTest, MismatchedDamagedOrForeignFilesAreRefused) {
  Run("count '" + shards_[0] + "'" + specials_ + " --out '" + dir_.File("a.c") + "'");
  Run("count '" + shards_[1] + "' --out '" + dir_.File("nospecial.c") + "'");
  Run("count '" + shards_[1] + "'" + specials_ + " --pattern cl100k --out '" +
      dir_.File("cl100k.c") + "'");
  const std::string out = " --vocab-size 400 --out '" + dir_.File("o") + "'";
  ExpectCleanFailure(
      RunCli("train --counts '" + dir_.File("a.c") + "' '" + dir_.File("nospecial.c") + "'" + out),
      "counts are added up only when both agree");
  ExpectCleanFailure(
      RunCli("train --counts '" + dir_.File("a.c") + "' '" + dir_.File("cl100k.c") + "'" + out),
      "pattern cl100k");
  ExpectCleanFailure(RunCli("count --merge '" + dir_.File("a.c") + "' '" + dir_.File("cl100k.c") +
                            "' --out '" + dir_.File("m.c") + "'"),
                     "counts are added up only when both agree");
  ExpectCleanFailure(RunCli("train --counts '" + dir_.File("a.c") + "' --pattern o200k" + out),
                     "--pattern o200k differs from the count files' gpt2");

  const std::string good = ReadFileOrDie(dir_.File("a.c"));
  WriteFile(dir_.File("cut.c"), good.substr(0, good.size() / 2));
  ExpectCleanFailure(RunCli("train --counts '" + dir_.File("cut.c") + "'" + out),
                     "truncated or corrupted");
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x20;
  WriteFile(dir_.File("flipped.c"), flipped);
  ExpectCleanFailure(RunCli("train --counts '" + dir_.File("flipped.c") + "'" + out),
                     "checksum mismatch");
  ExpectCleanFailure(RunCli("train --counts '" + shards_[0] + "'" + out),
                     "not a bpeforge count file");
  EXPECT_FALSE(Exists(dir_.File("o")));
  EXPECT_FALSE(Exists(dir_.File("m.c")));
}

// CRC-32 as zlib computes it (the count file's checksum), bit by bit.
uint32_t Crc32(const std::string& bytes) {
  uint32_t crc = ~uint32_t{0};
  for (unsigned char b : bytes) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

// A file whose header claims more pre-tokens than it holds, checksum and all, is refused as
// truncated: reading makes room for the pre-tokens up front, but never for more than the file
// can hold (room for 2^62 of them was an allocation that aborted the process).
TEST_F(CountsCliTest, AHeaderThatClaimsTooManyPreTokensIsRefused) {
  WriteFile(dir_.File("empty.txt"), "");
  Run("count '" + dir_.File("empty.txt") + "' --out '" + dir_.File("empty.c") + "'");
  std::string file = ReadFileOrDie(dir_.File("empty.c"));
  // magic, version, "gpt2", no special tokens, bytes, pre-tokens, distinct (at 40), checksum.
  ASSERT_EQ(file.size(), 52u);
  for (int i = 0; i < 8; ++i) file[40 + i] = static_cast<char>((uint64_t{1} << 62) >> (8 * i));
  const uint32_t crc = Crc32(file.substr(0, 48));
  for (int i = 0; i < 4; ++i) file[48 + i] = static_cast<char>(crc >> (8 * i));
  WriteFile(dir_.File("claims.c"), file);
  ExpectCleanFailure(RunCli("train --counts '" + dir_.File("claims.c") +
                            "' --vocab-size 300 --out '" + dir_.File("o") + "'"),
                     "truncated");
}

// A count file as `bpeforge count` lays one out, of any counts.
void WriteCounts(const std::string& path, const PreTokenCounts& counts,
                 const CountsHeader& header = {}) {
  std::string bytes;
  ASSERT_TRUE(WriteCountsFile(header, counts, [&](absl::string_view b) {
                bytes.append(b.data(), b.size());
                return absl::OkStatus();
              }).ok());
  WriteFile(path, bytes);
}

// Counts come from text, and the trainer counts pairs in signed 64-bit integers: a file (or
// files added up) whose counts stand for 2^63 bytes of pre-tokens or more, or whose header
// totals pass 2^63, is refused with one line naming it, and nothing is written.
TEST_F(CountsCliTest, CountsPastWhatTextHoldsAreRefused) {
  const uint64_t two_to_61 = uint64_t{1} << 61, two_to_63 = uint64_t{1} << 63;
  WriteCounts(dir_.File("huge.c"), {{"ab", two_to_63 + 5}, {"cd", 7}});
  const std::string out = " --vocab-size 300 --out '" + dir_.File("o") + "'";
  ExpectCleanFailure(RunCli("train --counts '" + dir_.File("huge.c") + "'" + out),
                     dir_.File("huge.c") + ": the entry at byte offset");
  // Each file within bounds, together past them.
  WriteCounts(dir_.File("half1.c"), {{"ab", two_to_61}, {"cd", 7}});
  WriteCounts(dir_.File("half2.c"), {{"ab", two_to_61}, {"ef", 7}});
  Run("train --counts '" + dir_.File("half1.c") + "'" + out);  // alone it trains
  std::filesystem::remove_all(dir_.File("o"));
  const std::string both = " '" + dir_.File("half1.c") + "' '" + dir_.File("half2.c") + "'";
  ExpectCleanFailure(RunCli("train --counts" + both + out), dir_.File("half2.c") + ": added to");
  ExpectCleanFailure(RunCli("count --merge" + both + " --out '" + dir_.File("m.c") + "'"),
                     dir_.File("half2.c") + ": added to");
  // Header totals that wrap when added up.
  CountsHeader header;
  header.bytes = two_to_63 - 1;
  WriteCounts(dir_.File("bytes1.c"), {{"ab", 1}}, header);
  WriteCounts(dir_.File("bytes2.c"), {{"cd", 1}}, header);
  ExpectCleanFailure(RunCli("count --merge '" + dir_.File("bytes1.c") + "' '" +
                            dir_.File("bytes2.c") + "' --out '" + dir_.File("m.c") + "'"),
                     dir_.File("bytes2.c") + ": added to");
  EXPECT_FALSE(Exists(dir_.File("o")));
  EXPECT_FALSE(Exists(dir_.File("m.c")));
}

// A count file whose custom pattern does not compile would train a tokenizer that no encoder
// loads: refused when it is read.
TEST_F(CountsCliTest, ACustomPatternThatDoesNotCompileIsRefused) {
  CountsHeader header;
  header.pattern = Pattern::kCustom;
  header.custom_regex = "(unclosed";
  WriteCounts(dir_.File("bad.c"), {{"ab", 3}}, header);
  ExpectCleanFailure(
      RunCli("train --counts '" + dir_.File("bad.c") + "' --vocab-size 300 --out '" +
             dir_.File("o") + "'"),
      dir_.File("bad.c") + ": the custom pattern it was counted with does not compile");
  EXPECT_FALSE(Exists(dir_.File("o")));
}

}  // namespace
}  // namespace bpeforge::internal
