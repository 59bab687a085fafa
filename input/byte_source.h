// Reading an input as a stream of bytes: standard input, or a file compressed with gzip, xz or
// zstd (told by its magic bytes, not its name), decompressed as it is read. Plain files are
// memory-mapped instead (mapped_file.h); this is for what cannot be mapped.
//
//   absl::StatusOr<std::unique_ptr<ByteSource>> in = OpenByteSource("corpus.txt.zst");
//   char buf[1 << 16];
//   for (;;) {
//     absl::StatusOr<size_t> n = (*in)->Read(buf, sizeof buf);  // 0: the end
//     ...
//   }
#ifndef BPEFORGE_INPUT_BYTE_SOURCE_H_
#define BPEFORGE_INPUT_BYTE_SOURCE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bpeforge::internal {

enum class Compression { kNone, kGzip, kXz, kZstd };

// The compression the first bytes of a file announce.
Compression DetectCompression(absl::string_view head);
absl::string_view CompressionName(Compression c);  // "gzip", "xz", "zstd", "none"

// Whether `path` names an input to stream rather than map: "-" (standard input), a compressed
// regular file, or, for `jsonl`, a JSON Lines file that is not a regular file (a pipe: read as
// it comes, not whole). Errors name the file (unreadable); other files that are not regular,
// and missing ones, are not streamed (MappedFile reads or reports them). Plain JSON Lines in a
// regular file are mapped and read in place: streamed, their bytes were copied three times on
// the one thread that reads.
absl::StatusOr<bool> IsStreamedInput(const std::string& path, bool jsonl);

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Up to `size` decompressed bytes into `buffer`; 0 at the end. Errors name the file and the
  // compressed byte offset (a truncated or corrupted stream, a read error).
  virtual absl::StatusOr<size_t> Read(char* buffer, size_t size) = 0;
  // Bytes read from the file so far (compressed), for progress.
  virtual uint64_t consumed() const = 0;
  virtual Compression compression() const = 0;
  // The largest window a frame read so far needs (zstd; 0 for the others): a decoder holds
  // that many bytes of memory. zstd's default limit is 128 MiB; `zstd --long=N` writes 2^N.
  virtual uint64_t window_bytes() const { return 0; }
};

// "-" is standard input (which may itself be compressed).
absl::StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_INPUT_BYTE_SOURCE_H_
