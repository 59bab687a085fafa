// `bpeforge train` as a user runs it: outputs, summary, and every kind of bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/formats/gpt2_files.h"
#include "tests/test_util.h"
#include "tests/text_gen.h"

namespace bpeforge::internal {
namespace {

using testing::RunCli;
using testing::TempDir;

size_t FilesIn(const std::string& dir) {
  if (!std::filesystem::exists(dir)) return 0;
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(TrainCliTest, WritesFilesSummaryAndStats) {
  TempDir dir;
  testing::TextGenOptions gen;
  gen.fragments = 3000;
  gen.special_tokens = {"<|endoftext|>"};
  testing::WriteFile(dir.File("in.txt"), testing::RandomText(3, gen));
  auto r = RunCli("train " + dir.File("in.txt") +
                  " --vocab-size 300 --special-token "
                  "'<|endoftext|>' --out " +
                  dir.File("out") + " --stats-json " + dir.File("stats.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("merges"), std::string::npos);
  EXPECT_NE(r.out.find("peak memory"), std::string::npos);
  auto stats = nlohmann::json::parse(testing::ReadFileOrDie(dir.File("stats.json")));
  for (const char* key :
       {"bytes", "pretokens", "distinct_pretokens", "merges", "pretokenize_seconds",
        "merge_seconds", "total_seconds", "seconds_in_all", "peak_rss_bytes", "threads"}) {
    EXPECT_TRUE(stats.contains(key)) << key;
  }
  // Training is part of the whole, which also includes writing the tokenizer.
  EXPECT_GE(stats["seconds_in_all"].get<double>(), stats["total_seconds"].get<double>());
  EXPECT_GT(stats["seconds_in_all"].get<double>(), 0);
  EXPECT_EQ(stats["merges"], 300 - 256 - 1);
  auto vocab = nlohmann::json::parse(testing::ReadFileOrDie(dir.File("out/vocab.json")));
  EXPECT_EQ(vocab.size(), 300u);
  EXPECT_EQ(vocab["<|endoftext|>"], 256);
  EXPECT_EQ(vocab["Ġ"], 32);
  auto manifest = nlohmann::json::parse(testing::ReadFileOrDie(dir.File("out/bpeforge.json")));
  EXPECT_EQ(manifest["pattern"], "gpt2");
}

TEST(TrainCliTest, OneAndTwoThreadsWriteIdenticalFiles) {
  TempDir dir;
  testing::TextGenOptions gen;
  gen.fragments = 20000;
  testing::WriteFile(dir.File("in.txt"), testing::RandomText(11, gen));
  for (const char* t : {"1", "2"}) {
    auto r = RunCli("train " + dir.File("in.txt") + " --vocab-size 700 --chunk-bytes 999 " +
                    "--threads " + t + " --out " + dir.File(std::string("out") + t));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // The summary names the threads used, in words that agree with the number.
    EXPECT_NE(r.out.find(t == std::string("1") ? "(1 thread," : "(2 threads,"), std::string::npos)
        << r.out;
  }
  for (const char* f : {"/vocab.json", "/merges.txt", "/bpeforge.json"}) {
    EXPECT_EQ(testing::ReadFileOrDie(dir.File("out1") + f),
              testing::ReadFileOrDie(dir.File("out2") + f));
  }
}

struct BadCase {
  std::string name;
  std::string args;     // {dir} is replaced by the temp dir
  std::string message;  // expected in stderr
};

TEST(TrainCliTest, BadInputFailsCleanlyWithoutOutput) {
  TempDir dir;
  testing::WriteFile(dir.File("ok.txt"), "some text here");
  testing::WriteFile(dir.File("bad.txt"), "valid start \xFF\xFE then junk");
  testing::WriteFile(dir.File("afile"), "x");
  const std::vector<BadCase> cases = {
      {"missing input", "train {dir}/nope.txt --vocab-size 300 --out {dir}/o", "nope.txt"},
      {"glob without a match", "train '{dir}/none/*.txt' --vocab-size 300 --out {dir}/o",
       "no file matches"},
      {"vocab too small",
       "train {dir}/ok.txt --vocab-size 256 --special-token '<|endoftext|>' --out {dir}/o",
       "smaller than"},
      {"empty special token",
       "train {dir}/ok.txt --vocab-size 300 --special-token '' --out {dir}/o", "empty"},
      {"invalid utf-8", "train {dir}/bad.txt --vocab-size 300 --out {dir}/o", "byte offset 12"},
      {"output is a file", "train {dir}/ok.txt --vocab-size 300 --out {dir}/afile", "afile"},
      {"output under a file", "train {dir}/ok.txt --vocab-size 300 --out {dir}/afile/sub", "afile"},
      {"bad layout", "train {dir}/ok.txt --vocab-size 300 --layout xyz --out {dir}/o", "layout"},
      {"missing vocab size", "train {dir}/ok.txt --out {dir}/o", "vocab-size"},
  };
  for (const BadCase& c : cases) {
    std::string args = c.args;
    for (size_t p; (p = args.find("{dir}")) != std::string::npos;) args.replace(p, 5, dir.path());
    auto r = RunCli(args);
    EXPECT_NE(r.exit_code, 0) << c.name;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
    EXPECT_EQ(FilesIn(dir.File("o")), 0u) << c.name;
  }
  EXPECT_EQ(FilesIn(dir.path()), 3u);  // nothing left beside the inputs
}

TEST(TrainCliTest, EmptyInputIsValid) {
  TempDir dir;
  testing::WriteFile(dir.File("empty.txt"), "");
  auto r = RunCli("train " + dir.File("empty.txt") +
                  " --vocab-size 1000 --special-token '<pad>' "
                  "--special-token '<pad>' --out " +
                  dir.File("o"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto vocab = nlohmann::json::parse(testing::ReadFileOrDie(dir.File("o/vocab.json")));
  EXPECT_EQ(vocab.size(), 257u);
  EXPECT_EQ(testing::ReadFileOrDie(dir.File("o/merges.txt")), "");
}

// Directories and files alike are named with --out or --output, whichever a command is given:
// each command took only one of them (train, count and export --out; encode and decode
// --output), and a user who had used the other was told the option was required.
TEST(TrainCliTest, OutAndOutputNameTheSameOption) {
  TempDir dir;
  testing::TextGenOptions gen;
  gen.fragments = 2000;
  const std::string text = testing::RandomText(5, gen);
  testing::WriteFile(dir.File("in.txt"), text);
  const std::string in = dir.File("in.txt");
  const std::string tok = " --tokenizer " + dir.File("t");
  for (const std::string& args :
       {"train " + in + " --vocab-size 300 --quiet --output " + dir.File("t"),
        "count " + in + " --quiet --output " + dir.File("c.counts"),
        "export" + tok + " --output " + dir.File("e"),
        "encode " + in + tok + " --quiet --out " + dir.File("ids.bin"),
        "decode " + dir.File("ids.bin") + tok + " --out " + dir.File("back.txt")}) {
    auto r = RunCli(args);
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
  }
  EXPECT_TRUE(std::filesystem::exists(dir.File("t/vocab.json")));
  EXPECT_TRUE(std::filesystem::exists(dir.File("c.counts")));
  EXPECT_EQ(testing::ReadFileOrDie(dir.File("e/merges.txt")),
            testing::ReadFileOrDie(dir.File("t/merges.txt")));
  EXPECT_EQ(testing::ReadFileOrDie(dir.File("back.txt")), text);
}

// 0 for help, 2 for every usage error (CLI11 had its own number for each kind), 1 for a run
// that fails.
// No output may be an input, by any name or link: count's file, --stats-json, and the files
// train writes into --out. Each used to be written over the text it was read from.
TEST(TrainCliTest, NoOutputIsAnInput) {
  TempDir dir;
  const std::string text = testing::RandomText(5, {});
  for (const char* name : {"in.txt", "out/merges.txt"}) {
    std::filesystem::create_directories(std::filesystem::path(dir.File(name)).parent_path());
    testing::WriteFile(dir.File(name), text);
  }
  std::filesystem::create_symlink("../in.txt", dir.File("out/vocab.json"));
  const std::string in = "'" + dir.File("in.txt") + "'";
  for (const std::string& command :
       {"count " + in + " --out " + in,
        "train " + in + " --vocab-size 300 --out '" + dir.File("t") + "' --stats-json " + in,
        "train '" + dir.File("out/merges.txt") + "' --vocab-size 300 --out '" + dir.File("out") +
            "'",
        "train " + in + " --vocab-size 300 --out '" + dir.File("out") + "'"}) {
    testing::ExpectCleanFailure(RunCli(command), "refusing to overwrite it");
  }
  EXPECT_EQ(testing::ReadFileOrDie(dir.File("in.txt")), text);
  EXPECT_EQ(testing::ReadFileOrDie(dir.File("out/merges.txt")), text);
  EXPECT_TRUE(std::filesystem::is_symlink(dir.File("out/vocab.json")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("t")));
}

// Outputs written into the folder being read (train data/ --out data/tok, then encode data/
// --tokenizer data/tok --output data/ids.bin) are not read back as text when the command runs
// again: the second run reads what the first read and writes the same bytes. (The second train
// read the tokenizer's vocab.json as JSON Lines and failed; encode read its tokenizer's files,
// then its own ids.)
TEST(TrainCliTest, ARunAgainSkipsItsOwnFilesInAFolder) {
  TempDir dir;
  std::filesystem::create_directory(dir.File("data"));
  testing::WriteFile(dir.File("data/a.txt"), testing::RandomText(7, {}));
  const std::string data = "'" + dir.File("data") + "'";
  std::string vocab, ids;
  for (int run = 0; run < 2; ++run) {
    const auto r = RunCli("train " + data + " --vocab-size 300 --out '" + dir.File("data/tok") +
                          "' --stats-json '" + dir.File("data/stats.txt") + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("in 1 file(s)"), std::string::npos) << r.out;
    if (run == 0) vocab = testing::ReadFileOrDie(dir.File("data/tok/vocab.json"));
  }
  EXPECT_EQ(testing::ReadFileOrDie(dir.File("data/tok/vocab.json")), vocab);
  for (int run = 0; run < 2; ++run) {
    const auto all = RunCli("encode " + data + " --tokenizer '" + dir.File("data/tok") +
                            "' --output '" + dir.File("data/all.bin") + "'");
    ASSERT_EQ(all.exit_code, 0) << all.err;
    EXPECT_NE(all.out.find("in 2 file(s)"), std::string::npos) << all.out;  // a.txt, stats.txt
    if (run == 0) ids = testing::ReadFileOrDie(dir.File("data/all.bin"));
  }
  EXPECT_EQ(testing::ReadFileOrDie(dir.File("data/all.bin")), ids);
}

// What other runs wrote into the folder being read (an earlier tokenizer, ids and their sidecar,
// a count file) is left out and named, so that training on the folder again learns the same
// merges. Before, --include '*.txt' let the earlier tokenizer's merges.txt in as text (other
// merges, no word of it), and without it the run failed on the tokenizer's bpeforge.json.
TEST(TrainCliTest, WhatOtherRunsWroteInAFolderIsLeftOut) {
  TempDir dir;
  std::filesystem::create_directory(dir.File("data"));
  testing::WriteFile(dir.File("data/a.txt"), testing::RandomText(11, {}));
  const std::string data = "'" + dir.File("data") + "'";
  const std::string train = " --vocab-size 400 --quiet --out ";
  ASSERT_EQ(RunCli("train " + data + train + "'" + dir.File("data/tok-1") + "'").exit_code, 0);
  const std::string merges = testing::ReadFileOrDie(dir.File("data/tok-1/merges.txt"));
  auto r = RunCli("encode " + data + " --tokenizer '" + dir.File("data/tok-1") + "' --output '" +
                  dir.File("data/ids.bin") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("note: left out"), std::string::npos) << r.err;  // its own tokenizer
  r = RunCli("count " + data + " --out '" + dir.File("data/a.counts") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: left out"), std::string::npos) << r.err;
  for (const std::string include : {"", " --include '*.txt'"}) {
    r = RunCli("train " + data + include + train + "'" + dir.File("data/tok-2") + "'");
    ASSERT_EQ(r.exit_code, 0) << include << ": " << r.err;
    EXPECT_EQ(testing::ReadFileOrDie(dir.File("data/tok-2/merges.txt")), merges) << include;
    for (const char* left_out : {"data/tok-1", include.empty() ? "data/ids.bin" : "data/tok-1",
                                 include.empty() ? "data/a.counts" : "data/tok-1"}) {
      EXPECT_NE(r.err.find(left_out), std::string::npos) << include << ": " << r.err;
    }
  }
  // Count files are what train --counts reads: not left out there.
  r = RunCli("train --counts " + data + " --include '*.counts'" + train + "'" + dir.File("t") +
             "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::ReadFileOrDie(dir.File("t/merges.txt")), merges);
  // A tokenizer folder named as the input is no text.
  r = RunCli("train '" + dir.File("data/tok-1") + "'" + train + "'" + dir.File("u") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("a tokenizer folder written by bpeforge"), std::string::npos) << r.err;
}

TEST(TrainCliTest, UsageErrorsExitWithTwo) {
  TempDir dir;
  testing::WriteFile(dir.File("in.txt"), "hello world");
  const std::string in = dir.File("in.txt"), out = " --out " + dir.File("o");
  EXPECT_EQ(RunCli("train --help").exit_code, 0);
  EXPECT_EQ(RunCli("--version").exit_code, 0);
  const std::vector<std::string> usage_errors = {
      "train " + in + " --vocab-size 300" + out + " --bogus", "train --vocab-size 300" + out,
      "train " + in + out, "train " + in + " --vocab-size 300" + out + " --layout weird",
      "encode " + in + " --tokenizer " + dir.File("none") + " --output " + dir.File("ids"), "",
      "frobnicate",
      // Values out of their range, found once the flags are read.
      "train " + in + " --vocab-size 1000000000000" + out,
      "train " + in + " --vocab-size 300 --threads 100000" + out,
      "train " + in + " --vocab-size 300 --chunk-bytes 0" + out,
      "train " + in + " --vocab-size 300 --jsonl-field ''" + out,
      "count " + in + " --threads 100000" + out, "count " + in + " --jsonl-field ''" + out,
      "encode " + in + " --tokenizer " + dir.File("none") + " --threads 100000 --output " +
          dir.File("ids"),
      "report --tokenizer " + dir.File("none") + " " + in + " --sizes x" + out,
      "report --tokenizer " + dir.File("none") + " " + in + " --threads 100000" + out,
      "report --tokenizer " + dir.File("none") + " " + in + " --list 0" + out,
      "report --tokenizer " + dir.File("none") + " " + in + " --max-groups 0" + out};
  for (const std::string& args : usage_errors) {
    auto r = RunCli(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("bpeforge: error: "), std::string::npos) << args;
  }
  auto r = RunCli("train " + dir.File("missing.txt") + " --vocab-size 300" + out);
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

TEST(TrainCliTest, HelpDescribesTheOptions) {
  auto r = RunCli("train --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag :
       {"--vocab-size", "--special-token", "--threads", "--layout", "--out", "--stats-json"}) {
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
  }
}

// --min-frequency and --max-token-length: the rule holds, it is recorded in the manifest, and
// training from a count file of the same text gives the same files.
TEST(TrainCliTest, MinFrequencyAndMaxTokenLength) {
  TempDir dir;
  testing::TextGenOptions gen;
  gen.fragments = 4000;
  gen.special_tokens = {"<|endoftext|>"};
  testing::WriteFile(dir.File("in.txt"), testing::RandomText(5, gen));
  const std::string flags =
      " --vocab-size 5000 --min-frequency 40 --max-token-length 5 --special-token "
      "'<|endoftext|>' --quiet --out ";
  auto r = RunCli("train " + dir.File("in.txt") + flags + dir.File("a"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no pair was left to merge 40 times or more"), std::string::npos) << r.out;
  absl::StatusOr<Merges> merges = ReadMergesTxt(dir.File("a/merges.txt"));
  ASSERT_TRUE(merges.ok()) << merges.status();
  ASSERT_GT(merges->size(), 20u);
  for (const auto& [left, right] : *merges) EXPECT_LE(left.size() + right.size(), 5u);
  auto manifest = nlohmann::json::parse(testing::ReadFileOrDie(dir.File("a/bpeforge.json")));
  EXPECT_EQ(manifest["min_frequency"], 40);
  EXPECT_EQ(manifest["max_token_length"], 5);
  ASSERT_EQ(RunCli("count " + dir.File("in.txt") + " --special-token '<|endoftext|>' --quiet " +
                   "--out " + dir.File("in.counts"))
                .exit_code,
            0);
  r = RunCli("train --counts " + dir.File("in.counts") + flags + dir.File("b"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* f : {"merges.txt", "vocab.json", "bpeforge.json", "tokenizer.json"}) {
    EXPECT_EQ(testing::ReadFileOrDie(dir.File(std::string("a/") + f)),
              testing::ReadFileOrDie(dir.File(std::string("b/") + f)))
        << f;
  }
  testing::ExpectCleanFailure(RunCli("train " + dir.File("in.txt") +
                                     " --vocab-size 300 --min-frequency -1 --out " + dir.File("c")),
                              "--min-frequency");
  EXPECT_FALSE(testing::Exists(dir.File("c")));
}

// --pattern REGEX: the same files for any threads and chunk size, from text or from counts;
// encode and decode round trip; count files with another regex are not added up.
// Text that one thread must take whole (no safe cut point in it) says so in the summary, as
// read from a file or as a stream, when training, counting and encoding; text with cuts does
// not. --stats-json gives the size of that piece.
TEST(TrainCliTest, TextWithoutSafeCutsIsNoted) {
  TempDir dir;
  std::string no_cuts;
  while (no_cuts.size() < 100000) no_cuts += "12,34;";  // no white space, no letter
  testing::WriteFile(dir.File("nocut.txt"), no_cuts);
  std::string english;
  while (english.size() < 100000) english += "the cat sat on the mat.\n";
  testing::WriteFile(dir.File("english.txt"), english);
  const std::string note = "had no safe cut point";
  const std::string chunks = " --chunk-bytes 4096 --quiet";
  auto r = RunCli("train " + dir.File("nocut.txt") + " --vocab-size 300 --out " + dir.File("a") +
                  " --stats-json " + dir.File("a.json") + chunks);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("note: 0.1 MB of text " + note), std::string::npos) << r.out;
  auto stats = nlohmann::json::parse(testing::ReadFileOrDie(dir.File("a.json")));
  EXPECT_EQ(stats["largest_piece_bytes"], no_cuts.size());
  r = RunCli("count - --out " + dir.File("c") + chunks, dir.File("nocut.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(note), std::string::npos) << r.out;
  r = RunCli("encode " + dir.File("nocut.txt") + " --tokenizer " + dir.File("a") + " --output " +
             dir.File("ids") + chunks);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(note), std::string::npos) << r.out;
  r = RunCli("train " + dir.File("english.txt") + " --vocab-size 300 --out " + dir.File("b") +
             " --stats-json " + dir.File("b.json") + chunks);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find(note), std::string::npos) << r.out;
  stats = nlohmann::json::parse(testing::ReadFileOrDie(dir.File("b.json")));
  EXPECT_LT(stats["largest_piece_bytes"].get<uint64_t>(), 4096u + 100);
}

TEST(TrainCliTest, CustomPattern) {
  TempDir dir;
  testing::TextGenOptions gen;
  gen.fragments = 3000;
  gen.special_tokens = {"<|endoftext|>"};
  testing::WriteFile(dir.File("in.txt"), testing::RandomText(9, gen));
  const std::string regex = R"('\p{L}+|\p{N}|[^\s\p{L}\p{N}]+|\s+')";
  const std::string flags =
      " --vocab-size 600 --special-token '<|endoftext|>' --quiet --pattern " + regex;
  ASSERT_EQ(RunCli("train " + dir.File("in.txt") + flags + " --threads 1 --out " + dir.File("a"))
                .exit_code,
            0);
  auto r = RunCli("train " + dir.File("in.txt") + flags + " --threads 2 --chunk-bytes 100 --out " +
                  dir.File("b"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(RunCli("count " + dir.File("in.txt") + " --special-token '<|endoftext|>' --quiet " +
                   "--pattern " + regex + " --out " + dir.File("in.counts"))
                .exit_code,
            0);
  r = RunCli("train --counts " + dir.File("in.counts") + " --vocab-size 600 --quiet --out " +
             dir.File("c"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* f :
       {"merges.txt", "vocab.json", "bpeforge.json", "tokenizer.json", "tiktoken.json"}) {
    const std::string a = testing::ReadFileOrDie(dir.File(std::string("a/") + f));
    EXPECT_EQ(a, testing::ReadFileOrDie(dir.File(std::string("b/") + f))) << f;
    EXPECT_EQ(a, testing::ReadFileOrDie(dir.File(std::string("c/") + f))) << f;
  }
  auto manifest = nlohmann::json::parse(testing::ReadFileOrDie(dir.File("a/bpeforge.json")));
  EXPECT_EQ(manifest["pattern"], "custom");
  EXPECT_EQ(manifest["pattern_regex"], R"(\p{L}+|\p{N}|[^\s\p{L}\p{N}]+|\s+)");
  ASSERT_EQ(RunCli("encode --tokenizer " + dir.File("a") + " " + dir.File("in.txt") +
                   " --quiet --output " + dir.File("ids"))
                .exit_code,
            0);
  ASSERT_EQ(RunCli("decode --tokenizer " + dir.File("a") + " " + dir.File("ids") + " --output " +
                   dir.File("back.txt"))
                .exit_code,
            0);
  EXPECT_EQ(testing::ReadFileOrDie(dir.File("back.txt")),
            testing::ReadFileOrDie(dir.File("in.txt")));
  ASSERT_EQ(RunCli("count " + dir.File("in.txt") + " --special-token '<|endoftext|>' --quiet " +
                   "--pattern '\\p{L}+' --out " + dir.File("other.counts"))
                .exit_code,
            0);
  testing::ExpectCleanFailure(
      RunCli("train --counts " + dir.File("in.counts") + " " + dir.File("other.counts") +
             " --vocab-size 600 --out " + dir.File("d")),
      "counts are added up only when both agree");
  testing::ExpectCleanFailure(RunCli("train " + dir.File("in.txt") +
                                     " --vocab-size 600 --pattern 'gpt3' --out " + dir.File("d")),
                              "is no pattern name");
  testing::ExpectCleanFailure(RunCli("train " + dir.File("in.txt") +
                                     " --vocab-size 600 --pattern '[a-' --out " + dir.File("d")),
                              "--pattern: pattern [a-");
  // A regex that Boost.Regex gives up on (catastrophic backtracking) is an error, not a crash.
  testing::WriteFile(dir.File("aaa.txt"), std::string(5000, 'a') + "c");
  const std::string hopeless = R"( --pattern '(a*)*b|\s+|.' )";
  testing::ExpectCleanFailure(RunCli("train " + dir.File("aaa.txt") + " --vocab-size 600" +
                                     hopeless + "--out " + dir.File("d")),
                              "aaa.txt: the pattern could not be matched");
  testing::ExpectCleanFailure(RunCli("encode --vocab " + dir.File("a/vocab.json") + " --merges " +
                                     dir.File("a/merges.txt") + hopeless + dir.File("aaa.txt") +
                                     " --output " + dir.File("d")),
                              "aaa.txt: the pattern could not be matched");
  EXPECT_FALSE(testing::Exists(dir.File("d")));
}

}  // namespace
}  // namespace bpeforge::internal
