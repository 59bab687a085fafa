// Compressed inputs (gzip, xz, zstd, told by their magic bytes) and standard input train to
// exactly the files of the plain text, for any chunk size and thread count; truncated or
// corrupted streams are errors naming the file and the offset.
#include <gtest/gtest.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <string>
#include <vector>

#include "parallel/byte_source.h"
#include "parallel/train.h"
#include "tests/test_util.h"
#include "tests/text_gen.h"

namespace bpeforge::internal {
namespace {

using testing::RunCli;
using testing::TempDir;

std::string Gzip(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Xz(const std::string& text) {
  std::string out(lzma_stream_buffer_bound(text.size()), '\0');
  size_t pos = 0;
  EXPECT_EQ(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, nullptr,
                                    reinterpret_cast<const uint8_t*>(text.data()), text.size(),
                                    reinterpret_cast<uint8_t*>(out.data()), &pos, out.size()),
            LZMA_OK);
  out.resize(pos);
  return out;
}

// With a checksum, as the zstd command writes by default, so that corruption is detected.
std::string Zstd(const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), text.data(), text.size());
  ZSTD_freeCCtx(cctx);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

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
  TrainOptions options;
  options.inputs = {path};
  options.trainer.vocab_size = 700;
  options.trainer.special_tokens = {"<|endoftext|>"};
  options.chunk_bytes = chunk;
  options.threads = threads;
  absl::StatusOr<TrainResult> r = Train(options);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->trained.merges : Merges{};
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
      absl::StatusOr<bool> streamed = IsStreamedInput(path);
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
    TrainOptions options;
    options.inputs = {path};
    options.trainer.vocab_size = 300;
    absl::StatusOr<TrainResult> r = Train(options);
    ASSERT_FALSE(r.ok()) << f.name;
    EXPECT_NE(r.status().message().find(path + ": " + f.name + " data is truncated"),
              std::string::npos)
        << r.status();
    std::string corrupt = data;
    for (size_t i = data.size() / 3; i < data.size() / 3 + 16; ++i) corrupt[i] ^= 0x5a;
    testing::WriteFile(path, corrupt);
    r = Train(options);
    ASSERT_FALSE(r.ok()) << f.name;
    EXPECT_NE(r.status().message().find("compressed byte offset"), std::string::npos) << r.status();
  }
  // Invalid UTF-8 inside: the offset is in the decompressed text.
  testing::WriteFile(dir.File("utf8.gz"), Gzip("fine text \xff more"));
  TrainOptions options;
  options.inputs = {dir.File("utf8.gz")};
  options.trainer.vocab_size = 300;
  absl::StatusOr<TrainResult> r = Train(options);
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
  testing::ExpectCleanFailure(RunCli("encode --tokenizer " + dir.File("a") + " " +
                                     dir.File("corpus.zst") + " --output " + dir.File("ids")),
                              "is compressed, which encode does not read yet");
}

}  // namespace
}  // namespace bpeforge::internal
