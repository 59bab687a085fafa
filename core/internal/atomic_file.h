// Writing files so that a failure never leaves a partial file behind: write a temporary file
// in the target directory, flush it, then rename it over the target. A symbolic link is written
// through (the file it names is replaced, the link kept), as the shell's `>` would. A pipe, a
// terminal or a device (/dev/stdout, /dev/null) cannot be replaced, only written: it gets the
// bytes as they come.
#ifndef BPEFORGE_CORE_INTERNAL_ATOMIC_FILE_H_
#define BPEFORGE_CORE_INTERNAL_ATOMIC_FILE_H_

#include <atomic>
#include <cstdint>
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
  const std::string& path() const { return path_; }
  AtomicFile() = default;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // Removes the temporary file unless Commit() succeeded.

  absl::Status Write(absl::string_view data);

  // For a writer of outputs of gigabytes on a thread of its own (parallel/background_writer.h):
  // a second descriptor of the temporary file whose writes bypass the page cache (O_DIRECT),
  // opened at the first call; -1 where the bytes stream or the file system has no such writes.
  // Its writes must be aligned to kDirectAlignment in address, size and offset; descriptor()
  // is the plain one, for positional writes (pwrite) where those are refused. Once done with
  // them, Write() goes on from SeekTo(the bytes they wrote).
  static constexpr size_t kDirectAlignment = 4096;
  int direct_descriptor();
  int descriptor() const;
  absl::Status SeekTo(uint64_t offset);

  // Write, for writers that stream (text_sink.h): the first error is kept, and returned by
  // Finish() and Commit(). Once `cancel` (set_cancel) reads true, that error is Cancelled.
  void Append(absl::string_view data) override;
  bool stopped() const override;
  void set_cancel(const std::atomic<bool>* cancel) { cancel_ = cancel; }
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
  int direct_ = -1;  // direct_descriptor(), once opened
  bool committed_ = false;
  mutable absl::Status append_error_;  // stopped() records a cancel here
  const std::atomic<bool>* cancel_ = nullptr;
};

// Writes `contents` to `path` atomically.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

// Creates `dir` (and parents) if needed, writes every file to a temporary file there, and
// renames them into place only after all were written. On failure no file of the set is left
// behind (earlier files of the same name are kept as they were). Each file is streamed by its
// writer into its temporary file, so that no file is held in memory (a tokenizer's files can
// be many times its input). Once `cancel` (when given) reads true, the writers' sinks stop
// taking text and the call returns Cancelled, having renamed nothing; once the renames have
// begun, they are finished.
using WriteContents = std::function<absl::Status(TextSink&)>;
absl::Status WriteFilesAtomically(const std::string& dir,
                                  const std::vector<std::pair<std::string, WriteContents>>& files,
                                  const std::atomic<bool>* cancel = nullptr);

// Reads a whole file; errors name the file.
absl::Status ReadFile(const std::string& path, std::string* contents);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_INTERNAL_ATOMIC_FILE_H_
