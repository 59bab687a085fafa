// A read-only memory mapping of a whole input file.
#ifndef BPEFORGE_PARALLEL_MAPPED_FILE_H_
#define BPEFORGE_PARALLEL_MAPPED_FILE_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bpeforge::internal {

class MappedFile {
 public:
  // Maps `path`. Errors (missing, unreadable, a directory) name the file.
  static absl::StatusOr<MappedFile> Open(const std::string& path);

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

 private:
  std::string path_;
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_PARALLEL_MAPPED_FILE_H_
