// Writing files so that a failure never leaves a partial file behind: write a temporary file
// in the target directory, flush it, then rename it over the target. A symbolic link is written
// through (the file it names is replaced, the link kept), as the shell's `>` would. A pipe, a
// terminal or a device (/dev/stdout, /dev/null) cannot be replaced, only written: it gets the
// bytes as they come.
#ifndef BPEFORGE_CORE_INTERNAL_ATOMIC_FILE_H_
#define BPEFORGE_CORE_INTERNAL_ATOMIC_FILE_H_

#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/internal/text_sink.h"

namespace bpeforge::internal {

class AtomicFile : public TextSink {
 public:
  // Opens a temporary file beside the file `path` names (its links followed), or, where `path`
  // is a pipe, a terminal, a device or a name of an open descriptor, `path` itself.
  static absl::Status Open(const std::string& path, AtomicFile* file);
  // Whether the bytes go straight to `path` (a pipe, a device, ...), not into a file renamed
  // into place: then a failure can leave part of the output there.
  bool streams() const { return temp_path_.empty(); }
  AtomicFile() = default;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // Removes the temporary file unless Commit() succeeded.

  absl::Status Write(absl::string_view data);
  // Write, for writers that stream (text_sink.h): the first error is kept, and returned by
  // Finish() and Commit().
  void Append(absl::string_view data) override;
  // Flushes, syncs and closes the temporary file (so that a full disk shows here, before any
  // file of a set is renamed into place).
  absl::Status Finish();
  // Finishes, then renames the temporary file to the target path.
  absl::Status Commit();

 private:
  std::string path_;
  std::string target_;     // the file renamed over: `path_` with its links followed
  std::string temp_path_;  // empty where the bytes go straight to `path_`
  std::FILE* file_ = nullptr;
  bool committed_ = false;
  absl::Status append_error_;
};

// Writes `contents` to `path` atomically.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

// Creates `dir` (and parents) if needed, writes every file to a temporary file there, and
// renames them into place only after all were written. On failure no file of the set is left
// behind (earlier files of the same name are kept as they were). Each file is streamed by its
// writer into its temporary file, so that no file is held in memory (a tokenizer's files can
// be many times its input).
using WriteContents = std::function<absl::Status(TextSink&)>;
absl::Status WriteFilesAtomically(const std::string& dir,
                                  const std::vector<std::pair<std::string, WriteContents>>& files);

// Reads a whole file; errors name the file.
absl::Status ReadFile(const std::string& path, std::string* contents);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_INTERNAL_ATOMIC_FILE_H_
