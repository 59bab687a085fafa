// Compressed streams from arbitrary bytes (gzip, xz, zstd and its skippable frames, told by
// their first bytes, as a file holds them): reading never crashes or hangs, a failure is an
// error naming the file, and a stream read twice gives the same bytes.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "fuzz/fuzz_util.h"
#include "input/byte_source.h"

namespace {

// All the decompressed bytes (up to a bound: a small input may expand a thousandfold), or the
// error.
absl::StatusOr<std::string> ReadAll(const std::string& path) {
  using namespace bpeforge::internal;  // NOLINT
  absl::StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(path);
  if (!source.ok()) return source.status();
  std::string out;
  char buffer[1 << 14];
  while (out.size() < (8 << 20)) {
    absl::StatusOr<size_t> n = (*source)->Read(buffer, sizeof buffer);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    out.append(buffer, *n);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bpeforge::internal;  // NOLINT
  // A file in memory, opened by name as an input is.
  const int fd = memfd_create("fuzz", 0);
  if (fd < 0 || write(fd, data, size) != static_cast<ssize_t>(size)) fuzz::Fail("memfd");
  const std::string path = absl::StrCat("/proc/self/fd/", fd);
  absl::StatusOr<std::string> first = ReadAll(path);
  absl::StatusOr<std::string> second = ReadAll(path);
  close(fd);
  if (first.ok() != second.ok() || (first.ok() && *first != *second)) {
    fuzz::Fail("two reads of one stream differ");
  }
  if (!first.ok() && first.status().message().find(path) == std::string::npos) {
    fuzz::Fail(absl::StrCat("an error without the file's name: ", first.status().message()));
  }
  return 0;
}
