// Writing files so that a failure never leaves a partial file behind: write a temporary file
// in the target directory, flush it, then rename it over the target.
#ifndef BPEFORGE_CORE_ATOMIC_FILE_H_
#define BPEFORGE_CORE_ATOMIC_FILE_H_

#include <cstdio>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace bpeforge {

class AtomicFile {
 public:
  // Opens a temporary file beside `path`.
  static absl::Status Open(const std::string& path, AtomicFile* file);
  AtomicFile() = default;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // Removes the temporary file unless Commit() succeeded.

  absl::Status Write(absl::string_view data);
  // Flushes, syncs and renames the temporary file to the target path.
  absl::Status Commit();

 private:
  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
};

// Writes `contents` to `path` atomically.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

// Reads a whole file; errors name the file.
absl::Status ReadFile(const std::string& path, std::string* contents);

}  // namespace bpeforge

#endif  // BPEFORGE_CORE_ATOMIC_FILE_H_
