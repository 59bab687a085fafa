#include "parallel/background_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "core/internal/file_status.h"

namespace bpeforge::internal {

void BackgroundWriter::FreeBytes::operator()(char* p) const { std::free(p); }

BackgroundWriter::BackgroundWriter(AtomicFile* file, bool direct) : file_(file) {
  if (direct) direct_ = file->direct_descriptor();
  if (direct_ >= 0) thread_ = std::thread([this] { Run(); });
}

BackgroundWriter::~BackgroundWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Unfinished: what is queued is not written (the file will not be committed).
    if (error_.ok()) error_ = absl::CancelledError("the writer stopped before it finished");
  }
  Stop();
}

absl::Status BackgroundWriter::Write(absl::string_view data) {
  if (direct_ < 0) return file_->Write(data);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_.ok()) return error_;
  }
  while (!data.empty()) {
    if (current_.bytes == nullptr) current_ = TakeFreeBuffer();
    const size_t n = std::min(data.size(), kBufferBytes - current_.size);
    std::memcpy(current_.bytes + current_.size, data.data(), n);
    current_.size += n;
    data.remove_prefix(n);
    if (current_.size == kBufferBytes) Send(kBufferBytes);
  }
  return absl::OkStatus();
}

absl::Status BackgroundWriter::Finish() {
  if (direct_ < 0) return absl::OkStatus();
  // The aligned part of the last buffer goes to the thread; the few bytes after it, which a
  // direct write cannot take, through the file once the thread is done.
  std::string tail;
  if (current_.bytes != nullptr) {
    const size_t aligned =
        current_.size / AtomicFile::kDirectAlignment * AtomicFile::kDirectAlignment;
    tail.assign(current_.bytes + aligned, current_.size - aligned);
    if (aligned > 0) Send(aligned);
  }
  Stop();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_.ok()) return error_;
  }
  direct_ = -1;  // done: any later Write goes through the file, after these bytes
  if (absl::Status s = file_->SeekTo(sent_); !s.ok()) return s;
  return file_->Write(tail);
}

void BackgroundWriter::Send(size_t bytes) {
  Queued queued{std::exchange(current_, Buffer{}), sent_};
  queued.buffer.size = bytes;
  sent_ += bytes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(queued);
  }
  changed_.notify_all();
}

BackgroundWriter::Buffer BackgroundWriter::TakeFreeBuffer() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return !free_.empty() || owned_.size() < kBuffers; });
  if (!free_.empty()) {
    Buffer b = free_.back();
    free_.pop_back();
    b.size = 0;
    return b;
  }
  char* bytes = static_cast<char*>(std::aligned_alloc(AtomicFile::kDirectAlignment, kBufferBytes));
  if (bytes == nullptr) throw std::bad_alloc();
  owned_.emplace_back(bytes);
  return Buffer{bytes, 0};
}

void BackgroundWriter::Run() {
  for (;;) {
    Queued next;
    bool write = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      next = queue_.front();
      queue_.pop_front();
      write = error_.ok();
    }
    const absl::Status s = write ? WriteAt(next.buffer, next.offset) : absl::OkStatus();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!s.ok() && error_.ok()) error_ = s;
      free_.push_back(next.buffer);
    }
    changed_.notify_all();
  }
}

absl::Status BackgroundWriter::WriteAt(const Buffer& b, uint64_t offset) {
  size_t done = 0;
  while (done < b.size) {
    const int fd = plain_ ? file_->descriptor() : direct_;
    const ssize_t n = pwrite(fd, b.bytes + done, b.size - done, static_cast<off_t>(offset + done));
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EINVAL && !plain_) {
      plain_ = true;  // direct writes refused here (alignment, file system): plain ones
    } else {
      return ErrnoStatus(n < 0 ? errno : EIO, "cannot write", file_->path());
    }
  }
  return absl::OkStatus();
}

void BackgroundWriter::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace bpeforge::internal
