// Writes a large output (ids: gigabytes) into an AtomicFile from a thread of its own, straight
// to the disk where the file system allows (AtomicFile::direct_descriptor). Written through
// the page cache, each byte was copied there by the kernel, and then all of them flushed
// before the file could be renamed into place. Here the disk writes while the workers
// encode. Where the bytes stream (a pipe, a device) or
// the file system refuses such writes, they go through the file as its Write() sends them.
//
//   AtomicFile out;
//   BPEFORGE_RETURN_IF_ERROR(AtomicFile::Open(path, &out));
//   BackgroundWriter writer(&out);
//   for (...) BPEFORGE_RETURN_IF_ERROR(writer.Write(bytes));  // copied; an earlier error
//   BPEFORGE_RETURN_IF_ERROR(writer.Finish());                 // all written
//   BPEFORGE_RETURN_IF_ERROR(out.Commit());
#ifndef BPEFORGE_PARALLEL_BACKGROUND_WRITER_H_
#define BPEFORGE_PARALLEL_BACKGROUND_WRITER_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/internal/atomic_file.h"

namespace bpeforge::internal {

class BackgroundWriter {
 public:
  // Bytes are handed to the thread in buffers of this size, at most kBuffers at a time (the
  // memory it adds); the caller waits when all are taken.
  static constexpr size_t kBufferBytes = size_t{4} << 20;
  static constexpr size_t kBuffers = 4;

  // `file` must outlive the writer, and have nothing written yet. With `direct` false, every
  // byte goes through file->Write on the calling thread (tests use it to compare the two ways).
  explicit BackgroundWriter(AtomicFile* file, bool direct = true);
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;
  // Stops the thread; bytes not yet written are dropped (the file is then not committed).
  ~BackgroundWriter();

  // Appends `data`; returns the first error of a write so far.
  absl::Status Write(absl::string_view data);
  // Writes what is left and stops the thread; the first error of any write.
  absl::Status Finish();

 private:
  struct Buffer {
    char* bytes = nullptr;
    size_t size = 0;
  };
  struct Queued {
    Buffer buffer;
    uint64_t offset = 0;  // in the file
  };
  struct FreeBytes {
    void operator()(char* p) const;
  };
  void Run();               // the thread: writes queued buffers in order
  void Send(size_t bytes);  // queues the first `bytes` of current_
  Buffer TakeFreeBuffer();  // waits for one when kBuffers are taken
  absl::Status WriteAt(const Buffer& b, uint64_t offset);  // on the thread
  void Stop();

  AtomicFile* const file_;
  int direct_ = -1;     // the file's O_DIRECT descriptor, or -1: no thread, plain writes
  bool plain_ = false;  // the thread's: direct writes were refused, so plain ones (pwrite)
  Buffer current_;      // being filled by Write
  uint64_t sent_ = 0;   // bytes queued before current_

  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<char[], FreeBytes>> owned_;  // every buffer, at most kBuffers
  std::deque<Queued> queue_;                               // filled, to be written in order
  std::vector<Buffer> free_;                               // written, for reuse
  bool stopping_ = false;
  absl::Status error_;  // the first error of a write
  std::thread thread_;
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_PARALLEL_BACKGROUND_WRITER_H_
