// The faults found when bpeforge was tried as a hostile user would (issue "Nothing crashes,
// nothing is lost"), each reproduced as it was reported and checked to be fixed. The numbers
// are the report's.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "input/mapped_file.h"
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

// Runs `shell` (which may use $BPEFORGE for the command) and returns the exit status.
int Shell(const std::string& shell) {
  const std::string cmd = "BPEFORGE='" + std::string(BPEFORGE_CLI_PATH) + "'; " + shell;
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string Ranks(int count) {
  std::string out;
  for (int b = 0; b < count; ++b) {
    absl::StrAppend(&out, absl::Base64Escape(std::string(1, static_cast<char>(b))), " ", b, "\n");
  }
  return out;
}

class HardeningTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::TextGenOptions gen;
    gen.fragments = 2000;
    gen.special_tokens = {"<|endoftext|>"};
    WriteFile(corpus_, testing::RandomText(7, gen));
    CommandResult r = RunCli("train '" + corpus_ + "' --vocab-size 400 --special-token " +
                             "'<|endoftext|>' --quiet --out '" + tok_ + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::string Encode(const std::string& extra) {
    return "encode --tokenizer '" + tok_ + "' '" + corpus_ + "' --quiet " + extra;
  }

  TempDir dir_;
  const std::string corpus_ = dir_.File("corpus.txt");
  const std::string tok_ = dir_.File("tok");
};

// 1. A rank or special id near 2^32 sized the decoder by it (bad_alloc, or gigabytes).
TEST_F(HardeningTest, Fault01_HugeRanksAndSpecialIdsAreRefused) {
  WriteFile(dir_.File("far.tiktoken"), Ranks(256) + "YWJjZGVmZ2g= 4294967294\n");
  CommandResult r = RunCli("encode --ranks '" + dir_.File("far.tiktoken") + "' '" + corpus_ +
                           "' --output '" + dir_.File("x") + "'");
  ExpectCleanFailure(r, "far.tiktoken:257: rank 4294967294 is out of range");
  // A gap is allowed (exports leave special and repeated tokens' ids out), a far one is not.
  WriteFile(dir_.File("gap.tiktoken"), Ranks(256) + "YWJj 1538\n");
  r = RunCli("encode --ranks '" + dir_.File("gap.tiktoken") + "' '" + corpus_ + "' --output '" +
             dir_.File("x") + "'");
  ExpectCleanFailure(r, "gap.tiktoken:257: rank 1538 is out of range");
  WriteFile(dir_.File("gap.tiktoken"), Ranks(256) + "YWJj 1537\n");
  r = RunCli("encode --ranks '" + dir_.File("gap.tiktoken") + "' '" + corpus_ + "' --output '" +
             dir_.File("x") + "' --quiet --pattern gpt2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::filesystem::remove(dir_.File("x"));
  std::filesystem::remove(dir_.File("x.json"));
  WriteFile(dir_.File("ok.tiktoken"), Ranks(256));
  WriteFile(dir_.File("ids.json"), "{\"<|endoftext|>\": 4294967294}");
  r = RunCli("encode --ranks '" + dir_.File("ok.tiktoken") + "' --special-ids '" +
             dir_.File("ids.json") + "' --special-token '<|endoftext|>' --pattern gpt2 '" +
             corpus_ + "' --output '" + dir_.File("x") + "'");
  ExpectCleanFailure(r, "special token ids must be below");
  EXPECT_FALSE(Exists(dir_.File("x")));
}

// 2. A file truncated while it was mapped killed the process with SIGBUS.
TEST(HardeningMappedFile, Fault02_TruncationWhileReadingIsAnErrorNotACrash) {
  TempDir dir;
  const std::string path = dir.File("big.txt");
  WriteFile(path, std::string(1 << 20, 'a'));
  absl::StatusOr<MappedFile> file = MappedFile::Open(path);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(file->CheckUnchanged().ok());
  ASSERT_EQ(truncate(path.c_str(), 1000), 0);
  uint64_t sum = 0;  // reads every page, most of them now past the end of the file
  for (char c : file->data()) sum += static_cast<unsigned char>(c);
  EXPECT_GE(sum, 1000u * 'a');
  absl::Status s = file->CheckUnchanged();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("changed size while it was read"), absl::string_view::npos) << s;
}

// 4 and 9. Files of a directory from different runs, or damaged, were used as they were.
TEST_F(HardeningTest, Fault04And09_ADirectoryWhoseFilesDisagreeIsRefused) {
  CommandResult r =
      RunCli("train '" + corpus_ + "' --vocab-size 300 --quiet --out '" + dir_.File("other") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::filesystem::copy_file(dir_.File("other/vocab.json"), tok_ + "/vocab.json",
                             std::filesystem::copy_options::overwrite_existing);
  ExpectCleanFailure(RunCli(Encode("--output '" + dir_.File("ids") + "'")), "does not match");
  WriteFile(tok_ + "/vocab.json", "garbage");
  ExpectCleanFailure(RunCli(Encode("--output '" + dir_.File("ids") + "'")), "vocab.json");
  WriteFile(tok_ + "/vocab.json", "{\"a\": 4e912}");  // threw out of the parser (fuzzing)
  ExpectCleanFailure(RunCli(Encode("--output '" + dir_.File("ids") + "'")), "vocab.json");
  std::filesystem::remove(tok_ + "/vocab.json");
  ExpectCleanFailure(RunCli(Encode("--output '" + dir_.File("ids") + "'")), "vocab.json");
  // The layout edited in the manifest changes every id: refused too.
  ASSERT_EQ(RunCli("train '" + corpus_ + "' --vocab-size 400 --special-token '<|endoftext|>' " +
                   "--quiet --out '" + tok_ + "'")
                .exit_code,
            0);
  std::string manifest = ReadFileOrDie(tok_ + "/bpeforge.json");
  manifest.replace(manifest.find("bytes-first"), 11, "hf");
  WriteFile(tok_ + "/bpeforge.json", manifest);
  ExpectCleanFailure(RunCli(Encode("--output '" + dir_.File("ids") + "'")), "does not match");
  EXPECT_FALSE(Exists(dir_.File("ids")));
}

// 5. A full disk left a lone vocab.json (and a new empty directory).
TEST_F(HardeningTest, Fault05_AFullDiskLeavesNothing) {
  // A file-size limit makes every write past 4 KiB fail with EFBIG, as a full disk would.
  const std::string out = dir_.File("new/deeper");
  const int status = Shell("ulimit -f 4; trap '' XFSZ; \"$BPEFORGE\" train '" + corpus_ +
                           "' --vocab-size 400 --quiet --out '" + out + "' 2>/dev/null");
  EXPECT_EQ(status, 1);
  EXPECT_FALSE(Exists(dir_.File("new")));
}

// 6. Pipes, /dev/stdin and /proc files were read as empty, with exit status 0.
TEST_F(HardeningTest, Fault06_NonRegularInputsAreRead) {
  ASSERT_EQ(RunCli(Encode("--output '" + dir_.File("file.ids") + "'")).exit_code, 0);
  ASSERT_EQ(Shell("cat '" + corpus_ + "' | \"$BPEFORGE\" encode --tokenizer '" + tok_ +
                  "' /dev/stdin --quiet --output '" + dir_.File("pipe.ids") + "' >/dev/null"),
            0);
  EXPECT_EQ(ReadFileOrDie(dir_.File("pipe.ids")), ReadFileOrDie(dir_.File("file.ids")));
  CommandResult r = RunCli("train /proc/self/status --vocab-size 260 --quiet --out '" +
                           dir_.File("proc") + "' --stats-json '" + dir_.File("proc.json") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto stats = nlohmann::json::parse(ReadFileOrDie(dir_.File("proc.json")));
  EXPECT_GT(stats["bytes"].get<uint64_t>(), 100u);
  EXPECT_GT(stats["merges"].get<uint64_t>(), 0u);
}

// 7. encode --output equal to the input overwrote the input.
TEST_F(HardeningTest, Fault07_OutputsNeverOverwriteInputs) {
  const std::string before = ReadFileOrDie(corpus_);
  ExpectCleanFailure(RunCli(Encode("--output '" + corpus_ + "'")), "refusing to overwrite");
  EXPECT_EQ(ReadFileOrDie(corpus_), before);
  ASSERT_EQ(RunCli(Encode("--output '" + dir_.File("ids") + "'")).exit_code, 0);
  const std::string ids = ReadFileOrDie(dir_.File("ids"));
  ExpectCleanFailure(RunCli("decode --tokenizer '" + tok_ + "' '" + dir_.File("ids") +
                            "' --output '" + dir_.File("ids") + "'"),
                     "refusing to overwrite");
  EXPECT_EQ(ReadFileOrDie(dir_.File("ids")), ids);
}

// 8. Output paths were checked only after the work; a failing --stats-json claimed failure.
TEST_F(HardeningTest, Fault08_DestinationsAreCheckedFirst) {
  WriteFile(dir_.File("a-file"), "x");
  CommandResult r =
      RunCli("train '" + corpus_ + "' --vocab-size 400 --out '" + dir_.File("a-file/sub") + "'");
  ExpectCleanFailure(r, "--out");
  EXPECT_EQ(r.err.find("pre-tokenizing"), std::string::npos);  // failed before the work
  r = RunCli("train '" + corpus_ + "' --vocab-size 400 --quiet --out '" + dir_.File("o") +
             "' --stats-json '" + dir_.File("no/such/dir/stats.json") + "'");
  ExpectCleanFailure(r, "--stats-json");
  EXPECT_FALSE(Exists(dir_.File("o")));
}

// 10. Sizes were parsed leniently (-1 wrapped, 0x200 was 512); early stops went unsaid.
TEST_F(HardeningTest, Fault10_VocabSizeIsAStrictDecimalAndEarlyStopsAreReported) {
  for (const char* bad : {"-1", "18446744073709551616", "1000000000000", "0x200", " 512", ""}) {
    CommandResult r =
        RunCli("train '" + corpus_ + "' --vocab-size '" + bad + "' --out '" + dir_.File("o") + "'");
    ExpectCleanFailure(r, "--vocab-size must be a decimal integer from 1 to 2147483647");
  }
  WriteFile(dir_.File("tiny.txt"), "abab");
  CommandResult r =
      RunCli("train '" + dir_.File("tiny.txt") + "' --vocab-size 1000 --quiet " + "--out '" +
             dir_.File("o") + "' --stats-json '" + dir_.File("s.json") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("stopped before the requested 1000"), std::string::npos) << r.out;
  const auto stats = nlohmann::json::parse(ReadFileOrDie(dir_.File("s.json")));
  EXPECT_EQ(stats["stopped_early"], true);
  EXPECT_EQ(stats["vocab_size"], 258);
}

// 11. decode --dtype uint16 of a uint32 file printed garbage with exit status 0.
TEST_F(HardeningTest, Fault11_DecodeChecksTheSidecar) {
  ASSERT_EQ(RunCli(Encode("--output '" + dir_.File("ids") + "'")).exit_code, 0);
  const auto sidecar = nlohmann::json::parse(ReadFileOrDie(dir_.File("ids.json")));
  EXPECT_EQ(sidecar["dtype"], "uint32");
  ExpectCleanFailure(
      RunCli("decode --tokenizer '" + tok_ + "' '" + dir_.File("ids") + "' --dtype uint16"),
      "holds uint32 ids");
  // Another tokenizer's ids are refused; without --dtype the sidecar's type is used.
  ASSERT_EQ(
      RunCli("train '" + corpus_ + "' --vocab-size 300 --quiet --out '" + dir_.File("other") + "'")
          .exit_code,
      0);
  ExpectCleanFailure(
      RunCli("decode --tokenizer '" + dir_.File("other") + "' '" + dir_.File("ids") + "'"),
      "encoded with another tokenizer");
  CommandResult r = RunCli("decode --tokenizer '" + tok_ + "' '" + dir_.File("ids") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ReadFileOrDie(corpus_));
}

// 12. Flags that train refuses were accepted by encode; the summary showed requested threads.
TEST_F(HardeningTest, Fault12_EncodeRefusesWhatTrainRefusesAndReportsRealThreads) {
  ExpectCleanFailure(
      RunCli(Encode("--output '" + dir_.File("x") + "' --special-token \"$(printf '\\377')\"")),
      "not valid UTF-8");
  CommandResult r = RunCli(Encode("--output '" + dir_.File("ids") + "' --threads 4096"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("4096 threads"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;  // --quiet: nothing at all on stderr
}

// The unclear errors: each is now one line that says what is wrong.
TEST_F(HardeningTest, UnclearErrorsAreOneClearLine) {
  ExpectCleanFailure(RunCli("train '" + corpus_ + "' --vocab-size 400 --threads -1 --out o"),
                     "--threads must be a decimal integer from 0 to 4096, not \"-1\"");
  ExpectCleanFailure(RunCli("train '" + corpus_ + "' --vocab-size 400 --out ''"), "--out is empty");
  ExpectCleanFailure(RunCli(Encode("--output ''")), "--output is empty");
  std::string manifest = ReadFileOrDie(tok_ + "/bpeforge.json");
  manifest.replace(manifest.find("\"<|endoftext|>\""), 15, "\"\"");
  WriteFile(tok_ + "/bpeforge.json", manifest);
  ExpectCleanFailure(RunCli(Encode("--output '" + dir_.File("x") + "'")),
                     "special token 1 is empty");
  // Web-safe base64, which the rank reader's comment promised, is accepted.
  std::string ranks = Ranks(256);
  ranks.replace(ranks.find("/w== 255"), 4, "_w==");
  WriteFile(dir_.File("web.tiktoken"), ranks);
  CommandResult r = RunCli("encode --ranks '" + dir_.File("web.tiktoken") + "' '" + corpus_ +
                           "' --quiet --pattern gpt2 --output '" + dir_.File("web.ids") + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A file name with a line break or a terminal's escape sequence is shown escaped: the error
  // stays one line, and cannot recolour or rewrite the user's terminal.
  r = RunCli("train \"$(printf 'a\\nb\\033[2Jc.txt')\" --vocab-size 300 --out '" + dir_.File("o") +
             "'");
  ExpectCleanFailure(r, "a\\nb\\x1b[2Jc.txt");
  ExpectCleanFailure(RunCli("\"$(printf 'x\\033[2J')\""), "unknown command \"x\\x1b[2J\"");
}

// What a command prints after it succeeded names its output as given: escaped the same way.
TEST_F(HardeningTest, NamesInSummariesAreEscaped) {
  // The shell's words for a name holding a line break and a terminal's escape sequence.
  auto odd = [&](const std::string& stem) {
    return "\"" + dir_.path() + "/$(printf '" + stem + "\\nx\\033[2J')\"";
  };
  const std::string shown = "\\nx\\x1b[2J";
  const std::vector<std::string> commands = {
      "train '" + corpus_ + "' --vocab-size 300 --out " + odd("trained"),
      Encode("--output " + odd("ids")), "count '" + corpus_ + "' --quiet --out " + odd("counts"),
      "export --tokenizer '" + tok_ + "' --out " + odd("exported")};
  for (const std::string& command : commands) {
    const CommandResult r = RunCli(command);
    ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.err;
    const std::string printed = r.out + r.err;
    EXPECT_NE(printed.find(shown), std::string::npos) << command << "\n" << printed;
    EXPECT_EQ(printed.find('\x1b'), std::string::npos) << command << "\n" << printed;
  }
}

}  // namespace
}  // namespace bpeforge::internal
