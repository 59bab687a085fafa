// The writer of large outputs (parallel/background_writer.h): the bytes of its writes, in order,
// whatever their sizes and whether the disk is written directly or through the file; nothing
// left when it does not finish; a failed write reaches the caller.
#include "parallel/background_writer.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/internal/atomic_file.h"
#include "tests/test_util.h"

namespace bpeforge::internal {
namespace {

using testing::ReadFileOrDie;
using testing::TempDir;

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// Writes pieces of these sizes through a BackgroundWriter into `path`; returns what was written.
std::string WriteThrough(const std::string& path, const std::vector<size_t>& sizes, bool direct) {
  AtomicFile file;
  EXPECT_TRUE(AtomicFile::Open(path, &file).ok());
  BackgroundWriter writer(&file, direct);
  std::string all;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const std::string piece = RandomBytes(sizes[i], static_cast<uint32_t>(i));
    EXPECT_TRUE(writer.Write(piece).ok());
    all += piece;
  }
  const absl::Status finished = writer.Finish();
  EXPECT_TRUE(finished.ok()) << finished;
  const absl::Status committed = file.Commit();
  EXPECT_TRUE(committed.ok()) << committed;
  return all;
}

TEST(BackgroundWriterTest, WritesTheBytesInOrderWhateverTheirSizes) {
  constexpr size_t kBuffer = BackgroundWriter::kBufferBytes;
  const std::vector<std::vector<size_t>> cases = {
      {},                                   // nothing
      {0, 1, 0},                            // a tail only
      {4096},                               // one aligned block, no tail
      {4095, 1, 4097, 3},                   // blocks and a tail, across pieces
      {kBuffer},                            // a whole buffer
      {kBuffer - 1, 2, kBuffer + 4096},     // across buffers
      {3 * kBuffer + 5, 7 * kBuffer, 123},  // more than all buffers at once
  };
  TempDir dir;
  // Where the file system of the test's folder allows direct writes, and (on tmpfs, or where
  // it refuses them) through the file; and with direct writes not asked for.
  std::vector<std::string> folders = {dir.path()};
  if (std::filesystem::is_directory("/dev/shm")) folders.push_back("/dev/shm");
  for (const std::string& folder : folders) {
    for (bool direct : {true, false}) {
      for (size_t c = 0; c < cases.size(); ++c) {
        const std::string path =
            folder + "/bw-" + std::to_string(getpid()) + "-" + std::to_string(c);
        const std::string want = WriteThrough(path, cases[c], direct);
        const std::string got = ReadFileOrDie(path);
        EXPECT_EQ(got.size(), want.size()) << path << " direct " << direct;
        EXPECT_TRUE(got == want) << path << " direct " << direct;  // (not printed: megabytes)
        std::filesystem::remove(path);
      }
    }
  }
}

TEST(BackgroundWriterTest, AStreamGetsTheBytesAsWritten) {
  AtomicFile file;
  ASSERT_TRUE(AtomicFile::Open("/dev/null", &file).ok());
  BackgroundWriter writer(&file);
  EXPECT_TRUE(writer.Write(RandomBytes(BackgroundWriter::kBufferBytes + 7, 1)).ok());
  EXPECT_TRUE(writer.Finish().ok());
  EXPECT_TRUE(file.Commit().ok());
}

TEST(BackgroundWriterTest, UnfinishedLeavesNoFile) {
  TempDir dir;
  {
    AtomicFile file;
    ASSERT_TRUE(AtomicFile::Open(dir.File("out.bin"), &file).ok());
    BackgroundWriter writer(&file);
    ASSERT_TRUE(writer.Write(RandomBytes(5 * BackgroundWriter::kBufferBytes + 3, 2)).ok());
  }  // no Finish, no Commit
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(BackgroundWriterTest, AFailedWriteReachesTheCaller) {
  // A file size limit makes writes past it fail (EFBIG) instead of raising SIGXFSZ.
  struct rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limited = old;
  limited.rlim_cur = 3 * BackgroundWriter::kBufferBytes / 2;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limited), 0);
  TempDir dir;
  for (bool direct : {true, false}) {
    absl::Status status;
    {
      AtomicFile file;
      ASSERT_TRUE(AtomicFile::Open(dir.File("big.bin"), &file).ok());
      BackgroundWriter writer(&file, direct);
      for (int i = 0; i < 8 && status.ok(); ++i) {
        status = writer.Write(RandomBytes(BackgroundWriter::kBufferBytes, 3));
      }
      if (status.ok()) status = writer.Finish();
      if (status.ok()) status = file.Commit();
    }
    EXPECT_FALSE(status.ok()) << "direct " << direct;
    EXPECT_NE(status.message().find("big.bin"), std::string::npos) << status;
    EXPECT_FALSE(std::filesystem::exists(dir.File("big.bin")));
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
}

}  // namespace
}  // namespace bpeforge::internal
