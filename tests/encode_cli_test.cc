// `bpeforge encode` and `bpeforge decode` end to end: round trips, invariance to threads and
// chunk size, dtype limits, and clear failures that leave no output behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
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

class EncodeCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string corpus;
    for (uint64_t seed = 0; seed < 30; ++seed) {
      corpus += testing::RandomText(seed, {300, {"<|endoftext|>"}, true});
    }
    text_ = dir_.File("text.txt");
    WriteFile(text_, corpus);
    tok_ = dir_.File("tok");
    const CommandResult r =
        RunCli("train '" + text_ + "' --vocab-size 400 --special-token '<|endoftext|>' --out '" +
               tok_ + "' --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  std::string Encode(const std::string& input, const std::string& flags) {
    const std::string out = dir_.File("ids.bin");
    std::filesystem::remove(out);
    const CommandResult r =
        RunCli("encode --tokenizer '" + tok_ + "' '" + input + "' --output '" + out + "' " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("bytes per token"), std::string::npos) << r.out;
    return ReadFileOrDie(out);
  }

  TempDir dir_;
  std::string text_, tok_;
};

TEST_F(EncodeCliTest, RoundTripsAndIgnoresThreadsAndChunkSize) {
  const std::string ids = Encode(text_, "--threads 1");
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.size() % 4, 0u);
  EXPECT_EQ(Encode(text_, "--threads 2"), ids);
  EXPECT_EQ(Encode(text_, "--threads 2 --chunk-bytes 7"), ids);
  WriteFile(dir_.File("ids32.bin"), ids);
  const CommandResult r = RunCli("decode --tokenizer '" + tok_ + "' '" + dir_.File("ids32.bin") +
                                 "' --output '" + dir_.File("back.txt") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFileOrDie(dir_.File("back.txt")), ReadFileOrDie(text_));
  // To standard output as well, and with 16-bit ids.
  const std::string ids16 = Encode(text_, "--dtype uint16");
  EXPECT_EQ(ids16.size() * 2, ids.size());
  WriteFile(dir_.File("ids16.bin"), ids16);
  const CommandResult r16 =
      RunCli("decode --tokenizer '" + tok_ + "' --dtype uint16 '" + dir_.File("ids16.bin") + "'");
  ASSERT_EQ(r16.exit_code, 0) << r16.err;
  EXPECT_EQ(r16.out, ReadFileOrDie(text_));
}

// "-" is standard output, as it is standard input among the inputs: the ids go there (without
// a sidecar) and the summary to standard error, so that the two do not mix. Decoding and
// counting take "-" too; train and export, whose output is a directory, refuse it.
TEST_F(EncodeCliTest, DashIsStandardOutput) {
  const std::string ids = Encode(text_, "");
  const std::string cwd = std::filesystem::current_path();
  const CommandResult r = RunCli("encode --tokenizer '" + tok_ + "' '" + text_ + "' --output -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ids);
  EXPECT_NE(r.err.find("bytes per token"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(cwd + "/-"));
  EXPECT_FALSE(std::filesystem::exists(cwd + "/-.json"));

  const CommandResult d =
      RunCli("decode --tokenizer '" + tok_ + "' '" + dir_.File("ids.bin") + "' --output -");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(d.out, ReadFileOrDie(text_));
  // No output is a file of the tokenizer.
  const std::string vocab = ReadFileOrDie(tok_ + "/vocab.json");
  const std::string manifest = ReadFileOrDie(tok_ + "/tiktoken.json");
  for (const std::string& command :
       {"encode '" + text_ + "' --tokenizer '" + tok_ + "' --output '" + tok_ + "/vocab.json'",
        "encode '" + text_ + "' --tokenizer '" + tok_ + "' --output '" + tok_ + "/tiktoken'",
        "decode '" + dir_.File("ids.bin") + "' --tokenizer '" + tok_ + "' --output '" + tok_ +
            "/merges.txt'"}) {
    testing::ExpectCleanFailure(RunCli(command), "refusing to overwrite it");
  }
  EXPECT_EQ(ReadFileOrDie(tok_ + "/vocab.json"), vocab);
  EXPECT_EQ(ReadFileOrDie(tok_ + "/tiktoken.json"), manifest);
  // A full standard output is an error that says why.
  const std::string err = dir_.File("full.err");
  const int status =
      std::system(absl::StrCat("'", BPEFORGE_CLI_PATH, "' decode --tokenizer '", tok_, "' '",
                               dir_.File("ids.bin"), "' >/dev/full 2>'", err, "'")
                      .c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status;
  EXPECT_NE(ReadFileOrDie(err).find("cannot write to standard output: No space left on device"),
            std::string::npos)
      << ReadFileOrDie(err);
  // Standard input can be read once.
  testing::ExpectCleanFailure(
      RunCli("train - - --vocab-size 300 --out '" + dir_.File("twice") + "'",
             /*stdin_path=*/text_),
      "- (standard input) is given twice");
  // And - as decode's input is standard input.
  const CommandResult from_stdin =
      RunCli("decode --tokenizer '" + tok_ + "' -", /*stdin_path=*/dir_.File("ids.bin"));
  ASSERT_EQ(from_stdin.exit_code, 0) << from_stdin.err;
  EXPECT_EQ(from_stdin.out, ReadFileOrDie(text_));

  const CommandResult c = RunCli("count '" + text_ + "' --out '" + dir_.File("c.counts") + "'");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const CommandResult c2 = RunCli("count '" + text_ + "' --out -");
  ASSERT_EQ(c2.exit_code, 0) << c2.err;
  EXPECT_EQ(c2.out, ReadFileOrDie(dir_.File("c.counts")));
  EXPECT_NE(c2.err.find("distinct"), std::string::npos) << c2.err;

  const CommandResult t = RunCli("train '" + text_ + "' --vocab-size 300 --out '" + dir_.File("t") +
                                 "' --stats-json - --quiet");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(t.out.front(), '{') << t.out;
  EXPECT_NE(t.out.find("\"merges\": 44"), std::string::npos) << t.out;
  EXPECT_NE(t.err.find("merges      44"), std::string::npos) << t.err;

  // Binary output to a terminal is refused (here a pseudo-terminal's name, as /dev/stdout in a
  // shell would be); the text is short, so that an old binary writing there does not block.
  const int pty = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(pty, 0);
  ASSERT_EQ(grantpt(pty), 0);
  ASSERT_EQ(unlockpt(pty), 0);
  const std::string terminal = ptsname(pty);
  WriteFile(dir_.File("short.txt"), "hello world");
  for (const std::string& command :
       {"encode --tokenizer '" + tok_ + "' '" + dir_.File("short.txt") + "' --output " + terminal,
        "count '" + dir_.File("short.txt") + "' --out " + terminal}) {
    testing::ExpectCleanFailure(RunCli(command), "is a terminal, and the output is binary");
  }
  close(pty);

  for (const std::string& command :
       {"train '" + text_ + "' --vocab-size 300", "export --tokenizer '" + tok_ + "'"}) {
    testing::ExpectCleanFailure(RunCli(command + " --out -"), "standard output cannot hold");
  }
  EXPECT_FALSE(std::filesystem::exists(cwd + "/-"));
}

TEST_F(EncodeCliTest, SeveralInputsInOrder) {
  WriteFile(dir_.File("a.txt"), "hello world\n");
  WriteFile(dir_.File("b.txt"), "");
  WriteFile(dir_.File("c.txt"), "caf\xC3\xA9 <|endoftext|> again");
  const std::string out = dir_.File("abc.bin");
  const CommandResult r =
      RunCli("encode --tokenizer '" + tok_ + "' '" + dir_.File("a.txt") + "' '" +
             dir_.File("b.txt") + "' '" + dir_.File("c.txt") + "' --output '" + out + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  WriteFile(dir_.File("ids.bin"), ReadFileOrDie(out));
  const CommandResult back =
      RunCli("decode --tokenizer '" + tok_ + "' '" + dir_.File("ids.bin") + "'");
  EXPECT_EQ(back.out, "hello world\ncaf\xC3\xA9 <|endoftext|> again");
}

TEST_F(EncodeCliTest, BadIdsFilesFailWithoutOutput) {
  const std::string out = dir_.File("decoded.txt");
  WriteFile(dir_.File("trunc.bin"), std::string("\x01\x00\x00\x00\x02", 5));
  CommandResult r = RunCli("decode --tokenizer '" + tok_ + "' '" + dir_.File("trunc.bin") +
                           "' --output '" + out + "'");
  ExpectCleanFailure(r, "not a multiple of 4");
  EXPECT_FALSE(Exists(out));
  WriteFile(dir_.File("range.bin"), std::string("\x01\x00\x00\x00\xff\xff\x00\x00", 8));
  r = RunCli("decode --tokenizer '" + tok_ + "' '" + dir_.File("range.bin") + "' --output '" + out +
             "'");
  ExpectCleanFailure(r, "id 65535 at index 1");
  EXPECT_FALSE(Exists(out));
}

TEST_F(EncodeCliTest, InvalidUtf8IsReportedWithOffset) {
  std::string bad(5000, 'a');
  bad += " x\n";
  bad += "ok \xC3\x28 more";
  WriteFile(dir_.File("bad.txt"), bad);
  const std::string out = dir_.File("bad.bin");
  const CommandResult r = RunCli("encode --tokenizer '" + tok_ + "' '" + dir_.File("bad.txt") +
                                 "' --output '" + out + "' --chunk-bytes 100");
  ExpectCleanFailure(r, "bad.txt: invalid UTF-8 at byte offset 5006");
  EXPECT_FALSE(Exists(out));
}

TEST(EncodeCliErrors, BrokenTokenizerFiles) {
  TempDir dir;
  const std::string input = dir.File("in.txt"), out = dir.File("out.bin");
  WriteFile(input, "hello\n");
  // Missing files.
  CommandResult r = RunCli("encode --vocab '" + dir.File("nope.json") + "' --merges '" +
                           dir.File("nope.txt") + "' '" + input + "' --output '" + out + "'");
  ExpectCleanFailure(r, "nope.json");
  // A malformed vocab.json (the merges file is bad too, on line 3).
  WriteFile(dir.File("merges.txt"), "#version: 0.2\na b\na b c\n");
  WriteFile(dir.File("vocab.json"), "{\"a\": 0, \"b\": 1,}");
  r = RunCli("encode --vocab '" + dir.File("vocab.json") + "' --merges '" + dir.File("merges.txt") +
             "' '" + input + "' --output '" + out + "'");
  ExpectCleanFailure(r, "vocab.json");
  r = RunCli("encode --tokenizer '" + dir.path() + "' '" + input + "' --output '" + out + "'");
  ExpectCleanFailure(r, "vocab.json");
  // A rank file with bad base64 on line 3.
  WriteFile(dir.File("r.tiktoken"), "YQ== 0\nYg== 1\n!!!! 2\n");
  r = RunCli("encode --ranks '" + dir.File("r.tiktoken") + "' '" + input + "' --output '" + out +
             "'");
  ExpectCleanFailure(r, "r.tiktoken:3:");
  EXPECT_FALSE(Exists(out));
}

std::string ByteRanks() {
  std::string ranks;
  for (int b = 0; b < 256; ++b) {
    static const char* kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    ranks +=
        std::string{kB64[b >> 2], kB64[(b & 3) << 4], '=', '='} + " " + std::to_string(b) + "\n";
  }
  return ranks;
}

TEST(EncodeCliErrors, Uint16RefusesLargeIds) {
  TempDir dir;
  const std::string input = dir.File("in.txt"), out = dir.File("out.bin");
  WriteFile(input, "hi <|big|>\n");
  // The 256 bytes and 65,500 three-byte tokens that no merge can reach (there are no two-byte
  // tokens), so ids go past 65535 while text still encodes byte by byte.
  std::string ranks = ByteRanks();
  for (int k = 0; k < 65500; ++k) {
    const char token[3] = {static_cast<char>(k >> 8), static_cast<char>(k & 255), 1};
    ranks += absl::Base64Escape(absl::string_view(token, 3)) + " " + std::to_string(256 + k) + "\n";
  }
  WriteFile(dir.File("r.tiktoken"), ranks);
  WriteFile(dir.File("ids.json"), "{\"special_tokens\": {\"<|big|>\": 66000}}");
  const std::string tok = "--ranks '" + dir.File("r.tiktoken") + "' --special-ids '" +
                          dir.File("ids.json") + "' --special-token '<|big|>' --pattern gpt2 ";
  CommandResult r =
      RunCli("encode " + tok + "'" + input + "' --output '" + out + "' --dtype uint16");
  ExpectCleanFailure(r, "uint16");
  EXPECT_FALSE(Exists(out));
  r = RunCli("encode " + tok + "'" + input + "' --output '" + out + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string ids = ReadFileOrDie(out);
  ASSERT_EQ(ids.size(), 4u * 5);                                     // h i ' ' <|big|> '\n'
  EXPECT_EQ(ids.substr(12, 4), std::string("\xD0\x01\x01\x00", 4));  // 66000
  r = RunCli("decode " + tok + "'" + out + "'");
  EXPECT_EQ(r.out, "hi <|big|>\n");
}

TEST(EncodeCliErrors, HelpDescribesTheFlags) {
  const CommandResult r = RunCli("encode --help");
  for (const char* flag : {"--tokenizer", "--vocab", "--merges", "--ranks", "--special-ids",
                           "--pattern", "--special-token", "--output", "--dtype", "--threads"}) {
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
  }
  const CommandResult d = RunCli("decode --help");
  EXPECT_NE(d.out.find("--output"), std::string::npos);
}

TEST(EncodeCliConformance, Gpt2FilesGiveTiktokenIds) {
  const std::optional<std::string> fixtures = testing::FixturesDir();
  if (!fixtures) GTEST_SKIP() << "reference data not found";
  TempDir dir;
  const nlohmann::json expected =
      nlohmann::json::parse(ReadFileOrDie(*fixtures + "/expected_ids.json"));
  for (const auto& [file, ids] : expected["encodings"]["gpt2"]["files"].items()) {
    const std::string out = dir.File(file + ".bin");
    const CommandResult r =
        RunCli("encode --vocab '" + *fixtures + "/cs336/gpt2_vocab.json' --merges '" + *fixtures +
               "/cs336/gpt2_merges.txt' --special-token '<|endoftext|>' --dtype uint16 --threads 2 "
               "--chunk-bytes 64 '" +
               *fixtures + "/cs336/" + file + "' --output '" + out + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string bytes = ReadFileOrDie(out);
    std::vector<uint32_t> got;
    for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
      got.push_back(uint8_t(bytes[i]) | uint32_t{uint8_t(bytes[i + 1])} << 8);
    }
    EXPECT_EQ(got, ids.get<std::vector<uint32_t>>()) << file;
  }
}

// Decoding depends on the bytes of each id alone. <|endoftext|> is id 50256 of GPT-2's vocab
// whether it is named a special token or not, so ids encoded either way decode with GPT-2's
// files either way; a sidecar that an earlier version wrote (its fingerprint also covered the
// pattern and the special tokens) still decodes with the tokenizer it names.
TEST(EncodeCliConformance, IdsDecodeWithEveryTokenizerThatDecodesThemAlike) {
  const std::optional<std::string> fixtures = testing::FixturesDir();
  if (!fixtures) GTEST_SKIP() << "reference data not found";
  TempDir dir;
  const std::string gpt2 = "--vocab '" + *fixtures + "/cs336/gpt2_vocab.json' --merges '" +
                           *fixtures + "/cs336/gpt2_merges.txt'";
  const std::string special = " --special-token '<|endoftext|>'";
  const std::string text = "Hello world<|endoftext|>again, and again.";
  WriteFile(dir.File("in.txt"), text);
  for (const std::string& encoded_with : {special, std::string()}) {
    for (const std::string& decoded_with : {special, std::string()}) {
      CommandResult r = RunCli("encode " + gpt2 + encoded_with + " --quiet '" + dir.File("in.txt") +
                               "' --output '" + dir.File("ids") + "'");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      r = RunCli("decode " + gpt2 + decoded_with + " '" + dir.File("ids") + "'");
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, text);
    }
  }
  // Earlier versions' sidecar of these ids (encoded with the special token).
  CommandResult r = RunCli("encode " + gpt2 + special + " --quiet '" + dir.File("in.txt") +
                           "' --output '" + dir.File("ids") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json sidecar = nlohmann::json::parse(ReadFileOrDie(dir.File("ids.json")));
  sidecar["tokenizer"] = "fnv1a64:28c3dd6291831070";
  WriteFile(dir.File("ids.json"), sidecar.dump());
  r = RunCli("decode " + gpt2 + special + " '" + dir.File("ids") + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, text);
}

}  // namespace
}  // namespace bpeforge::internal
