#include "input/byte_source.h"

#include <fcntl.h>
#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
// For ZSTD_getFrameHeader, which tells a frame's window size (exported by the shared library
// since zstd 1.3; only its declaration is kept apart).
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/internal/file_status.h"
#include "core/internal/status_macros.h"

namespace bpeforge::internal {
namespace {

constexpr size_t kInputBuffer = 1 << 17;
constexpr absl::string_view kGzipMagic("\x1f\x8b", 2);
constexpr absl::string_view kXzMagic(
    "\xfd"
    "7zXZ\0",
    6);
constexpr absl::string_view kZstdMagic("\x28\xb5\x2f\xfd", 4);

// Whether `next` and `magic` agree as far as both go.
bool AgreesWith(absl::string_view next, absl::string_view magic) {
  const size_t n = std::min(next.size(), magic.size());
  return next.substr(0, n) == magic.substr(0, n);
}
// The same for a zstd skippable frame's magic, 0x184D2A50 to 0x184D2A5F (little-endian): pzstd
// starts every file with such a frame.
bool AgreesWithSkippableFrame(absl::string_view next) {
  return !next.empty() && (static_cast<unsigned char>(next[0]) & 0xf0) == 0x50 &&
         AgreesWith(next.substr(1), "\x2a\x4d\x18");
}
// The largest zstd window decoded: 2 GiB, as `zstd -d --long=31` (ZSTD_WINDOWLOG_MAX_64).
constexpr int kMaxZstdWindowLog = 31;

// The raw bytes of a file descriptor, with a small buffer for the decoders to read from.
class RawInput {
 public:
  RawInput(int fd, std::string path, bool owned) : fd_(fd), path_(std::move(path)), owned_(owned) {}
  ~RawInput() {
    if (owned_ && fd_ >= 0) close(fd_);
  }
  const std::string& path() const { return path_; }
  uint64_t consumed() const { return consumed_; }

  // Up to `size` bytes; 0 at the end.
  absl::StatusOr<size_t> Read(char* buffer, size_t size) {
    if (!pending_.empty()) {  // the bytes read to detect the format
      const size_t n = std::min(size, pending_.size());
      std::memcpy(buffer, pending_.data(), n);
      pending_.erase(0, n);
      consumed_ += n;
      return n;
    }
    for (;;) {
      const ssize_t n = read(fd_, buffer, size);
      if (n >= 0) {
        consumed_ += static_cast<uint64_t>(n);
        return static_cast<size_t>(n);
      }
      if (errno != EINTR) return ErrnoStatus(errno, "cannot read", path_);
    }
  }

  // The first bytes, kept to be read again.
  absl::StatusOr<std::string> Peek(size_t size) {
    std::string head(size, '\0');
    size_t got = 0;
    while (got < size) {
      absl::StatusOr<size_t> n = Read(head.data() + got, size - got);
      if (!n.ok()) return n.status();
      if (*n == 0) break;
      got += *n;
    }
    head.resize(got);
    pending_ = head;
    consumed_ -= got;
    return head;
  }

 private:
  int fd_;
  std::string path_;
  bool owned_;
  uint64_t consumed_ = 0;
  std::string pending_;
};

absl::Status Corrupt(const RawInput& in, Compression c, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(in.path(), ": ", CompressionName(c), " data is ",
                                                 why, " near compressed byte offset ",
                                                 in.consumed()));
}

class PlainSource : public ByteSource {
 public:
  explicit PlainSource(std::unique_ptr<RawInput> in) : in_(std::move(in)) {}
  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    return in_->Read(buffer, size);
  }
  uint64_t consumed() const override { return in_->consumed(); }
  Compression compression() const override { return Compression::kNone; }

 private:
  std::unique_ptr<RawInput> in_;
};

// The decoders share one loop: refill the input buffer when it is empty, run the decoder,
// return what it produced; an end of input before the end of the stream is a truncation, and
// bytes after a stream that cannot start another are named as such (trailing garbage), not
// taken for a damaged stream.
class DecoderSource : public ByteSource {
 public:
  explicit DecoderSource(std::unique_ptr<RawInput> in) : in_(std::move(in)), input_(kInputBuffer) {}
  uint64_t consumed() const override { return in_->consumed(); }

  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    for (;;) {
      if (begin_ == end_ && !eof_) {
        absl::StatusOr<size_t> n = in_->Read(input_.data(), input_.size());
        if (!n.ok()) return n.status();
        begin_ = 0;
        end_ = *n;
        eof_ = *n == 0;
      }
      const absl::string_view next(input_.data() + begin_, end_ - begin_);
      if (at_frame_end_ && !next.empty() && !CouldStartStream(next)) {
        return absl::InvalidArgumentError(absl::StrCat(
            in_->path(), ": the ", CompressionName(compression()),
            " data ends at compressed byte offset ", in_->consumed() - next.size(),
            " and is followed by bytes that are not ", CompressionName(compression())));
      }
      size_t used = 0, produced = 0;
      absl::Status s = Step(next.data(), next.size(), &used, buffer, size, &produced);
      if (!s.ok()) return s;
      begin_ += used;
      if (produced > 0) return produced;
      if (begin_ == end_ && eof_) {
        if (!at_frame_end_) return Corrupt(*in_, compression(), "truncated");
        return 0;
      }
    }
  }

 protected:
  // Decodes from in[0..in_size) into out[0..out_size); sets at_frame_end_ when the input
  // consumed so far ends a whole stream (another may follow: concatenated files).
  virtual absl::Status Step(const char* in, size_t in_size, size_t* used, char* out,
                            size_t out_size, size_t* produced) = 0;
  // Whether bytes after a whole stream (at least one) may start another: a prefix of the
  // format's magic number, or padding the format allows there.
  virtual bool CouldStartStream(absl::string_view next) const = 0;
  const RawInput& raw() const { return *in_; }
  bool at_frame_end_ = true;  // nothing started yet: an empty file is an empty stream

 private:
  std::unique_ptr<RawInput> in_;
  std::vector<char> input_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
};

class GzipSource : public DecoderSource {
 public:
  explicit GzipSource(std::unique_ptr<RawInput> in) : DecoderSource(std::move(in)) {
    inflateInit2(&z_, 15 + 16);  // gzip header
  }
  ~GzipSource() override { inflateEnd(&z_); }
  Compression compression() const override { return Compression::kGzip; }

 protected:
  bool CouldStartStream(absl::string_view next) const override {
    return AgreesWith(next, kGzipMagic);
  }
  absl::Status Step(const char* in, size_t in_size, size_t* used, char* out, size_t out_size,
                    size_t* produced) override {
    if (in_size == 0 && at_frame_end_) return absl::OkStatus();
    // With no new input it is still called: output the last call had no room for is pending.
    static char empty = 0;
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in_size > 0 ? in : &empty));
    z_.avail_in = static_cast<uInt>(std::min<size_t>(in_size, UINT32_MAX));
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(out_size, UINT32_MAX));
    const int rc = inflate(&z_, Z_NO_FLUSH);
    *used = std::min<size_t>(in_size, UINT32_MAX) - z_.avail_in;
    *produced = std::min<size_t>(out_size, UINT32_MAX) - z_.avail_out;
    if (*used > 0 || *produced > 0) at_frame_end_ = false;
    if (rc == Z_STREAM_END) {  // a member ends; gzip files may hold several
      at_frame_end_ = true;
      inflateReset(&z_);
      return absl::OkStatus();
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return Corrupt(raw(), Compression::kGzip, z_.msg != nullptr ? z_.msg : "corrupted");
    }
    return absl::OkStatus();
  }

 private:
  z_stream z_{};
};

// Each stream is decoded on its own (not with LZMA_CONCATENATED), so that where one ends is
// known: what follows must be stream padding (zero bytes, a multiple of four) or another stream.
class XzSource : public DecoderSource {
 public:
  explicit XzSource(std::unique_ptr<RawInput> in) : DecoderSource(std::move(in)) {
    init_ = lzma_stream_decoder(&s_, UINT64_MAX, 0);
  }
  ~XzSource() override { lzma_end(&s_); }
  Compression compression() const override { return Compression::kXz; }

 protected:
  bool CouldStartStream(absl::string_view next) const override {
    const size_t zeros = std::min(next.find_first_not_of('\0'), next.size());
    return AgreesWith(next.substr(zeros), kXzMagic);
  }
  absl::Status Step(const char* in, size_t in_size, size_t* used, char* out, size_t out_size,
                    size_t* produced) override {
    *used = *produced = 0;
    if (init_ != LZMA_OK) return Corrupt(raw(), Compression::kXz, "not decodable (no decoder)");
    if (between_streams_) {
      while (*used < in_size && in[*used] == '\0') ++*used;
      padding_ += *used;
      at_frame_end_ = padding_ % 4 == 0;  // the end may come here, after whole padding
      if (*used == in_size) return absl::OkStatus();
      if (padding_ % 4 != 0) {
        return Corrupt(raw(), Compression::kXz,
                       "padded with a number of zero bytes that is not "
                       "a multiple of four");
      }
      lzma_end(&s_);
      s_ = LZMA_STREAM_INIT;
      init_ = lzma_stream_decoder(&s_, UINT64_MAX, 0);
      between_streams_ = false;
      return absl::OkStatus();
    }
    if (in_size == 0 && at_frame_end_) return absl::OkStatus();
    s_.next_in = reinterpret_cast<const uint8_t*>(in);
    s_.avail_in = in_size;
    s_.next_out = reinterpret_cast<uint8_t*>(out);
    s_.avail_out = out_size;
    const lzma_ret rc = lzma_code(&s_, in_size == 0 ? LZMA_FINISH : LZMA_RUN);
    *used = in_size - s_.avail_in;
    *produced = out_size - s_.avail_out;
    if (rc != LZMA_OK && rc != LZMA_STREAM_END && rc != LZMA_BUF_ERROR) {
      return Corrupt(raw(), Compression::kXz, "corrupted");
    }
    if (*used > 0 || *produced > 0) at_frame_end_ = false;
    if (rc == LZMA_STREAM_END) {  // another stream may follow
      at_frame_end_ = true;
      between_streams_ = true;
      padding_ = 0;
    }
    return absl::OkStatus();
  }

 private:
  lzma_stream s_ = LZMA_STREAM_INIT;
  lzma_ret init_ = LZMA_OK;
  bool between_streams_ = false;
  uint64_t padding_ = 0;  // zero bytes since the last stream ended
};

class ZstdSource : public DecoderSource {
 public:
  explicit ZstdSource(std::unique_ptr<RawInput> in)
      : DecoderSource(std::move(in)), d_(ZSTD_createDStream()) {
    // Windows up to what `zstd -d --long=31` accepts: files written with --long=28 or more
    // need more than the library's default limit (2^27 bytes).
    ZSTD_DCtx_setParameter(d_, ZSTD_d_windowLogMax, kMaxZstdWindowLog);
  }
  ~ZstdSource() override { ZSTD_freeDStream(d_); }
  Compression compression() const override { return Compression::kZstd; }
  uint64_t window_bytes() const override { return window_bytes_; }

 protected:
  bool CouldStartStream(absl::string_view next) const override {
    return AgreesWith(next, kZstdMagic) || AgreesWithSkippableFrame(next);
  }
  absl::Status Step(const char* in, size_t in_size, size_t* used, char* out, size_t out_size,
                    size_t* produced) override {
    // A complete frame has no output pending; otherwise it is called even without new input.
    if (in_size == 0 && at_frame_end_) return absl::OkStatus();
    if (at_frame_end_) {  // a frame (perhaps a skippable one) starts at `in`
      head_.clear();
      reading_head_ = true;
    }
    ZSTD_inBuffer input{in, in_size, 0};
    ZSTD_outBuffer output{out, out_size, 0};
    const size_t rc = ZSTD_decompressStream(d_, &output, &input);
    *used = input.pos;
    *produced = output.pos;
    if (ZSTD_isError(rc)) return Corrupt(raw(), Compression::kZstd, ZSTD_getErrorName(rc));
    if (reading_head_) NoteFrameHeader(absl::string_view(in, *used));
    if (*used > 0 || *produced > 0) at_frame_end_ = rc == 0;  // another frame may follow
    return absl::OkStatus();
  }

 private:
  // Reads the window size from a frame's first bytes as they are consumed (skippable frames
  // have none: the decoder skips them itself).
  void NoteFrameHeader(absl::string_view consumed) {
    const absl::string_view more = consumed.substr(0, ZSTD_FRAMEHEADERSIZE_MAX - head_.size());
    head_.append(more.data(), more.size());
    ZSTD_frameHeader header;
    const size_t rc = ZSTD_getFrameHeader(&header, head_.data(), head_.size());
    if (rc > 0 && !ZSTD_isError(rc)) return;  // more bytes needed
    reading_head_ = false;
    if (rc == 0 && header.frameType == ZSTD_frame) {
      window_bytes_ = std::max<uint64_t>(window_bytes_, header.windowSize);
    }
  }

  ZSTD_DStream* d_;
  std::string head_;  // the first bytes of the current frame, until its header is read
  bool reading_head_ = false;
  uint64_t window_bytes_ = 0;
};

absl::StatusOr<std::unique_ptr<RawInput>> OpenRaw(const std::string& path) {
  if (path == "-") return std::make_unique<RawInput>(STDIN_FILENO, "standard input", false);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open", path);
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return ErrnoStatus(EISDIR, "cannot read", path);
  }
  return std::make_unique<RawInput>(fd, path, true);
}

// Formats people store corpora in that are not read here; their first bytes cannot start text
// anyone trains on (bzip2's block magic "1AY&SY" follows "BZh" and a digit).
absl::Status CheckSupportedFormat(absl::string_view head, const std::string& path) {
  const char* name = nullptr;
  if (head.size() >= 10 && head.substr(0, 3) == "BZh" && head[3] >= '1' && head[3] <= '9' &&
      head.substr(4, 6) == "1AY&SY") {
    name = "bzip2";
  } else if (head.substr(0, 4) == "\x04\x22\x4d\x18") {
    name = "lz4";
  } else if (head.substr(0, 4) == "PK\x03\x04") {
    name = "zip";
  } else if (head.substr(0, 6) == "7z\xbc\xaf\x27\x1c") {
    name = "7z";
  }
  if (name == nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      path == "-" ? "standard input" : path, ": ", name,
      " data, which bpeforge does not read (gzip, xz and zstd it does); decompress it first, or "
      "pipe it in: ... | bpeforge train - ..."));
}

}  // namespace

Compression DetectCompression(absl::string_view head) {
  if (absl::StartsWith(head, kGzipMagic)) return Compression::kGzip;
  if (absl::StartsWith(head, kXzMagic)) return Compression::kXz;
  if (absl::StartsWith(head, kZstdMagic)) return Compression::kZstd;
  if (head.size() >= 4 && AgreesWithSkippableFrame(head)) return Compression::kZstd;
  return Compression::kNone;
}

absl::string_view CompressionName(Compression c) {
  switch (c) {
    case Compression::kGzip:
      return "gzip";
    case Compression::kXz:
      return "xz";
    case Compression::kZstd:
      return "zstd";
    case Compression::kNone:
      break;
  }
  return "none";
}

absl::StatusOr<bool> IsStreamedInput(const std::string& path, bool jsonl) {
  if (path == "-") return true;
  // Only regular files are looked into: opening a named pipe here, and closing it unread,
  // could end its writer. Others (and missing files) go to MappedFile, which reports them.
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return jsonl;
  BPEFORGE_ASSIGN_OR_RETURN(std::unique_ptr<RawInput> raw, OpenRaw(path));
  BPEFORGE_ASSIGN_OR_RETURN(const std::string head, raw->Peek(10));
  BPEFORGE_RETURN_IF_ERROR(CheckSupportedFormat(head, path));
  return DetectCompression(head) != Compression::kNone;
}

absl::StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path) {
  BPEFORGE_ASSIGN_OR_RETURN(std::unique_ptr<RawInput> raw, OpenRaw(path));
  BPEFORGE_ASSIGN_OR_RETURN(const std::string head, raw->Peek(10));
  BPEFORGE_RETURN_IF_ERROR(CheckSupportedFormat(head, path));
  switch (DetectCompression(head)) {
    case Compression::kGzip:
      return std::make_unique<GzipSource>(std::move(raw));
    case Compression::kXz:
      return std::make_unique<XzSource>(std::move(raw));
    case Compression::kZstd:
      return std::make_unique<ZstdSource>(std::move(raw));
    case Compression::kNone:
      break;
  }
  return std::make_unique<PlainSource>(std::move(raw));
}

}  // namespace bpeforge::internal
