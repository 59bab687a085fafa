// A read-only view of a whole input file: memory-mapped when it is a regular file, read into
// memory when it is not (a pipe, /dev/stdin, a /proc file that reports size 0). No file
// descriptor is held once the file is mapped or read, so that a corpus of thousands of files
// does not run into the process's limit on open files.
#ifndef BPEFORGE_INPUT_MAPPED_FILE_H_
#define BPEFORGE_INPUT_MAPPED_FILE_H_

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bpeforge::internal {

class MappedFile {
 public:
  // Maps `path`. Errors (missing, unreadable, a directory) name the file.
  static absl::StatusOr<MappedFile> Open(const std::string& path);
  // The same for a file whose size was looked at before, to plan the work (stat): an error if
  // the size changed since.
  static absl::StatusOr<MappedFile> Open(const std::string& path, uint64_t expected_size);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  absl::string_view data() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

  // Tells the kernel the pages of [offset, offset + length) will not be read again, so a
  // corpus larger than memory streams through without piling up in the resident set.
  void Release(size_t offset, size_t length) const;

  // Asks the kernel to start reading [offset, offset + length) into the page cache now, without
  // waiting for it, so that a worker finds its next chunk there (a no-op for a file read whole).
  // False if the kernel refused the advice; the file reads the same either way.
  bool WillNeed(size_t offset, size_t length) const;

  // Whether the kernel should read ahead of page faults (the default, for reading the file
  // through) or read only the pages touched (for looking at a few bytes here and there, as
  // finding the chunks' cuts does: with read-ahead, a cold file was read whole, on one thread,
  // before any counting began). False if the kernel refused the advice.
  bool ReadAhead(bool on) const;

  // An error if the file was written to (its size or modification time changed) since it was
  // mapped. Reading a mapped page past a new end raises SIGBUS, which would kill the process:
  // a handler installed by Open puts a page of zeros there instead, so the work goes on, and
  // this call reports it. A file replaced by another (renamed over) or removed is not an
  // error: the mapping keeps the bytes it had. Every result computed from data() must be
  // checked with it before it is used.
  absl::Status CheckUnchanged() const;

 private:
  void Unmap();

  // Tells the mapped file apart from one put in its place, and a write to it (looked at again by
  // its name: no descriptor is kept).
  struct Identity {
    dev_t device = 0;
    ino_t inode = 0;
    int64_t modified_ns = 0;
  };
  static Identity IdentityOf(const struct stat& st);

  std::string path_;
  const char* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  Identity identity_;
  int guard_slot_ = -1;  // this mapping's entry in the SIGBUS handler's table
  std::string owned_;    // the contents of a file that could not be mapped
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_INPUT_MAPPED_FILE_H_
