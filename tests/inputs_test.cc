// Compressed inputs (gzip, xz, zstd, told by their magic bytes) and standard input train to
// exactly the files of the plain text, for any chunk size and thread count; truncated or
// corrupted streams are errors naming the file and the offset.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "input/byte_source.h"
#include "input/mapped_file.h"
#include "parallel/train.h"
#include "tests/compression.h"
#include "tests/test_util.h"
#include "tests/text_gen.h"

namespace bpeforge::internal {
namespace {

using testing::Gzip;
using testing::RunCli;
using testing::TempDir;
using testing::WriteFile;
using testing::Xz;
using testing::Zstd;
using testing::ZstdSkippableFrame;
using testing::ZstdWithWindow;

using Compressor = std::string (*)(const std::string&);

// Each compressor, once as one stream and once as two concatenated ones (gzip members, xz
// streams, zstd frames: what parallel compressors write).
struct Format {
  const char* name;
  Compressor compress;
};
const Format kFormats[] = {{"gzip", Gzip}, {"xz", Xz}, {"zstd", Zstd}};

std::string Corpus() {
  testing::TextGenOptions gen;
  gen.fragments = 6000;
  gen.special_tokens = {"<|endoftext|>"};
  return testing::RandomText(21, gen);
}

Merges TrainOn(const std::string& path, size_t chunk, int threads) {
  TrainJob options;
  options.inputs = {path};
  options.trainer.vocab_size = 700;
  options.trainer.special_tokens = {"<|endoftext|>"};
  options.chunk_bytes = chunk;
  options.threads = threads;
  absl::StatusOr<TrainJobResult> r = RunTrainJob(options);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->trained.merges : Merges{};
}

// Read-ahead advice is only a hint, but the kernel must take it for any range of the file:
// aligning the start to a page and stopping at the file's end is the caller's job. The bytes
// read stay the same.
TEST(InputsTest, ReadAheadAdviceIsTakenForAnyRange) {
  TempDir dir;
  const std::string path = dir.File("text.txt");
  const std::string text = testing::RandomText(1, {6000, {}, true});
  ASSERT_GT(text.size(), 3u * 4096);
  WriteFile(path, text);
  absl::StatusOr<MappedFile> file = MappedFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_TRUE(file->ReadAhead(false));
  EXPECT_TRUE(file->WillNeed(1, 10));
  EXPECT_TRUE(file->WillNeed(4095, 8000));
  EXPECT_TRUE(file->WillNeed(text.size() - 1, size_t{1} << 24));  // far past the end
  EXPECT_TRUE(file->WillNeed(text.size(), 100));                  // nothing left to read
  EXPECT_TRUE(file->ReadAhead(true));
  EXPECT_EQ(file->data(), text);
}

TEST(InputsTest, CompressedFilesTrainLikeTheirText) {
  TempDir dir;
  const std::string text = Corpus();
  testing::WriteFile(dir.File("plain.txt"), text);
  const Merges want = TrainOn(dir.File("plain.txt"), 4 << 20, 2);
  ASSERT_GT(want.size(), 300u);
  const size_t half = text.find("<|endoftext|>", text.size() / 2);
  for (const Format& f : kFormats) {
    const std::string one = f.compress(text);
    const std::string two = f.compress(text.substr(0, half)) + f.compress(text.substr(half));
    for (const std::string* data : {&one, &two}) {
      const std::string path = dir.File(std::string("corpus.") + f.name);
      testing::WriteFile(path, *data);
      absl::StatusOr<bool> streamed = IsStreamedInput(path, /*jsonl=*/false);
      ASSERT_TRUE(streamed.ok() && *streamed) << f.name;
      for (size_t chunk : {size_t{1}, size_t{997}, size_t{4} << 20}) {
        for (int threads : {1, 2}) {
          EXPECT_EQ(TrainOn(path, chunk, threads), want)
              << f.name << (data == &two ? " (two streams)" : "") << ", chunk " << chunk << ", "
              << threads << " threads";
        }
      }
    }
  }
}

TEST(InputsTest, TruncatedAndCorruptedStreamsAreErrors) {
  TempDir dir;
  const std::string text = Corpus();
  for (const Format& f : kFormats) {
    const std::string data = f.compress(text);
    const std::string path = dir.File(std::string("bad.") + f.name);
    testing::WriteFile(path, data.substr(0, data.size() / 2));
    TrainJob options;
    options.inputs = {path};
    options.trainer.vocab_size = 300;
    absl::StatusOr<TrainJobResult> r = RunTrainJob(options);
    ASSERT_FALSE(r.ok()) << f.name;
    EXPECT_NE(r.status().message().find(path + ": " + f.name + " data is truncated"),
              std::string::npos)
        << r.status();
    std::string corrupt = data;
    for (size_t i = data.size() / 3; i < data.size() / 3 + 16; ++i) corrupt[i] ^= 0x5a;
    testing::WriteFile(path, corrupt);
    r = RunTrainJob(options);
    ASSERT_FALSE(r.ok()) << f.name;
    EXPECT_NE(r.status().message().find("compressed byte offset"), std::string::npos) << r.status();
  }
  // Invalid UTF-8 inside: the offset is in the decompressed text.
  testing::WriteFile(dir.File("utf8.gz"), Gzip("fine text \xff more"));
  TrainJob options;
  options.inputs = {dir.File("utf8.gz")};
  options.trainer.vocab_size = 300;
  absl::StatusOr<TrainJobResult> r = RunTrainJob(options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("invalid UTF-8 at byte offset 10 of its decompressed text"),
            std::string::npos)
      << r.status();
}

// `-` reads standard input, itself compressed or not; the outputs are those of the file.
TEST(InputsTest, StandardInput) {
  TempDir dir;
  const std::string text = Corpus();
  testing::WriteFile(dir.File("plain.txt"), text);
  testing::WriteFile(dir.File("corpus.zst"), Zstd(text));
  const std::string flags = " --vocab-size 700 --special-token '<|endoftext|>' --quiet --out ";
  ASSERT_EQ(RunCli("train " + dir.File("plain.txt") + flags + dir.File("a")).exit_code, 0);
  auto r = RunCli("train -" + flags + dir.File("b"), dir.File("plain.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunCli("train - " + dir.File("plain.txt") + flags + dir.File("c"), dir.File("corpus.zst"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunCli("train " + dir.File("plain.txt") + " " + dir.File("plain.txt") + flags +
             dir.File("d"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string a = testing::ReadFileOrDie(dir.File("a/merges.txt"));
  EXPECT_EQ(a, testing::ReadFileOrDie(dir.File("b/merges.txt")));
  EXPECT_EQ(testing::ReadFileOrDie(dir.File("c/merges.txt")),
            testing::ReadFileOrDie(dir.File("d/merges.txt")));  // two documents either way
  // Encoding reads them too, to the ids of the plain file.
  const std::string encode = "encode --quiet --tokenizer " + dir.File("a") + " --output ";
  ASSERT_EQ(RunCli(encode + dir.File("plain.ids ") + dir.File("plain.txt")).exit_code, 0);
  ASSERT_EQ(RunCli(encode + dir.File("zst.ids ") + dir.File("corpus.zst")).exit_code, 0);
  r = RunCli(encode + dir.File("stdin.ids -"), dir.File("corpus.zst"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string ids = testing::ReadFileOrDie(dir.File("plain.ids"));
  ASSERT_GT(ids.size(), 1000u);
  EXPECT_EQ(ids, testing::ReadFileOrDie(dir.File("zst.ids")));
  EXPECT_EQ(ids, testing::ReadFileOrDie(dir.File("stdin.ids")));
}

// The count file of `path`, read as `count` reads it, or "" (with the error) on failure.
std::string CountFileOf(const std::string& path, const TempDir& dir,
                        std::string* summary = nullptr) {
  auto r = RunCli("count '" + path + "' --quiet --out '" + dir.File("c.counts") + "'");
  EXPECT_EQ(r.exit_code, 0) << path << ": " << r.err;
  if (summary != nullptr) *summary = r.out + r.err;
  return r.exit_code == 0 ? testing::ReadFileOrDie(dir.File("c.counts")) : "";
}

// Skippable frames are part of zstd's format: pzstd starts every file with one, and they may
// stand anywhere between frames. They hold no text.
TEST(InputsTest, SkippableFramesAreSkippedWhereverTheyStand) {
  TempDir dir;
  const std::string text = Corpus();
  testing::WriteFile(dir.File("plain.txt"), text);
  const std::string want = CountFileOf(dir.File("plain.txt"), dir);
  const size_t half = text.size() / 2;
  testing::WriteFile(dir.File("frames.zst"), ZstdSkippableFrame("\x10\x20\x30\x40") +
                                                 Zstd(text.substr(0, half)) +
                                                 ZstdSkippableFrame("seekable index", 15) +
                                                 Zstd(text.substr(half)) + ZstdSkippableFrame(""));
  EXPECT_EQ(CountFileOf(dir.File("frames.zst"), dir), want);
  // A file of skippable frames alone holds no text, as an empty file.
  testing::WriteFile(dir.File("empty.txt"), "");
  testing::WriteFile(dir.File("skippable.zst"), ZstdSkippableFrame(std::string(16, 'x'), 7));
  EXPECT_EQ(CountFileOf(dir.File("skippable.zst"), dir), CountFileOf(dir.File("empty.txt"), dir));
  // The files pzstd writes, where it is installed.
  if (std::system("command -v pzstd >/dev/null 2>&1") == 0) {
    ASSERT_EQ(std::system(("pzstd -q -p 2 '" + dir.File("plain.txt") + "' -o '" +
                           dir.File("pzstd.zst") + "'")
                              .c_str()),
              0);
    EXPECT_EQ(CountFileOf(dir.File("pzstd.zst"), dir), want);
  }
}

// Frames written with --long=28 or more need a window beyond zstd's default limit (128 MiB): up
// to what `zstd -d --long=31` accepts they are read, and the summary says what they took.
TEST(InputsTest, LargeWindowsAreReadAndNoted) {
  TempDir dir;
  const std::string text = Corpus();
  testing::WriteFile(dir.File("plain.txt"), text);
  std::string summary;
  const std::string want = CountFileOf(dir.File("plain.txt"), dir, &summary);
  EXPECT_EQ(summary.find("window"), std::string::npos) << summary;
  for (int window_log : {28, 30}) {
    testing::WriteFile(dir.File("long.zst"), ZstdWithWindow(text, window_log));
    auto r = RunCli("count '" + dir.File("long.zst") + "' --out '" + dir.File("c.counts") + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(testing::ReadFileOrDie(dir.File("c.counts")), want);
    EXPECT_NE(r.out.find(absl::StrCat("note: a zstd stream needed a ", 1 << (window_log - 20),
                                      " MiB decompression window")),
              std::string::npos)
        << r.out;
  }
}

// Bytes after the last stream that cannot start another are named as what they are, not
// taken for a truncated or damaged stream; xz's stream padding (zero bytes, four at a time)
// is allowed between streams.
TEST(InputsTest, TrailingGarbageIsNamedAsSuch) {
  TempDir dir;
  const std::string text = Corpus();
  testing::WriteFile(dir.File("plain.txt"), text);
  const std::string want = CountFileOf(dir.File("plain.txt"), dir);
  for (const Format& f : kFormats) {
    const std::string data = f.compress(text);
    for (const std::string& garbage :
         std::vector<std::string>{"garbage\n", "x", std::string(100, '\x5a')}) {
      const std::string path = dir.File(std::string("trailing.") + f.name);
      testing::WriteFile(path, data + garbage);
      testing::ExpectCleanFailure(
          RunCli("count '" + path + "' --out '" + dir.File("c.counts") + "'"),
          absl::StrCat(path, ": the ", f.name, " data ends at compressed byte offset ", data.size(),
                       " and is followed by bytes that are not ", f.name));
    }
  }
  const size_t half = text.size() / 2;
  testing::WriteFile(dir.File("padded.xz"), Xz(text.substr(0, half)) + std::string(8, '\0') +
                                                Xz(text.substr(half)) + std::string(4, '\0'));
  EXPECT_EQ(CountFileOf(dir.File("padded.xz"), dir), want);
  testing::WriteFile(dir.File("badly-padded.xz"), Xz(text) + std::string(3, '\0'));
  testing::ExpectCleanFailure(
      RunCli("count '" + dir.File("badly-padded.xz") + "' --out '" + dir.File("c.counts") + "'"),
      "xz data is");
}

// A folder below the one named that cannot be listed (here: its path is longer than the system
// takes; in use: one removed while the folder is scanned) is the one the error names.
TEST(InputsTest, AFolderThatCannotBeListedIsNamed) {
  TempDir dir;
  std::filesystem::create_directory(dir.File("top"));
  testing::WriteFile(dir.File("top/a.txt"), "some text");
  // Made one level at a time, each named relative to the last: no call sees the whole path.
  const std::string level(200, 'd');
  std::string deep = dir.File("top");
  int fd = open(deep.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  while (deep.size() < 4200) {
    ASSERT_EQ(mkdirat(fd, level.c_str(), 0755), 0);
    const int next = openat(fd, level.c_str(), O_RDONLY | O_DIRECTORY);
    close(fd);
    ASSERT_GE(next, 0);
    fd = next;
    deep += "/" + level;
  }
  close(fd);
  // The first folder whose path is longer than the system takes.
  std::string failing = dir.File("top");
  while (failing.size() < 4096) failing += "/" + level;
  auto r = RunCli("count '" + dir.File("top") + "' --out '" + dir.File("c.counts") + "'");
  testing::ExpectCleanFailure(r, "cannot list the directory " + failing + ":");
  // Removed again one level at a time (remove_all would meet the same limit).
  std::system(("cd '" + dir.File("top") + "' && rm -rf " + level).c_str());
}

// Formats that are not read are named, not taken for text (or for invalid UTF-8).
TEST(InputsTest, UnsupportedCompressionIsNamed) {
  TempDir dir;
  testing::WriteFile(dir.File("a.txt.bz2"), std::string("BZh91AY&SY\x12\x34 rest", 16));
  testing::WriteFile(dir.File("a.zip"), std::string("PK\x03\x04\x14\0\0\0\0\0", 10));
  testing::WriteFile(dir.File("BZh9.txt"), "BZh9 is how this text starts");
  for (const char* name : {"a.txt.bz2", "a.zip"}) {
    const std::string kind = absl::string_view(name).back() == '2' ? "bzip2" : "zip";
    testing::ExpectCleanFailure(
        RunCli("train " + dir.File(name) + " --vocab-size 300 --out " + dir.File("o")),
        dir.File(name) + ": " + kind + " data, which bpeforge does not read");
    testing::ExpectCleanFailure(RunCli("count - --out " + dir.File("c"), dir.File(name)),
                                "standard input: " + kind + " data");
  }
  auto r =
      RunCli("train " + dir.File("BZh9.txt") + " --vocab-size 300 --quiet --out " + dir.File("o"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace bpeforge::internal
