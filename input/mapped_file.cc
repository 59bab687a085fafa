#include "input/mapped_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/internal/file_status.h"
#include "core/internal/status_macros.h"

namespace bpeforge::internal {
namespace {

// The SIGBUS guard: the address ranges of live mappings, and whether a read past the end of
// the file (truncated after it was mapped) hit each one. Lock-free, as a signal handler needs.
// Count files are merged with all of them mapped at once, so the table has room for as many
// mappings as a process may have by default (vm.max_map_count); its pages are touched only as
// slots are used.
constexpr int kGuardSlots = 1 << 16;
struct GuardSlot {
  std::atomic<uintptr_t> begin{0}, end{0};
  std::atomic<bool> faulted{false};
};
GuardSlot guard_slots[kGuardSlots];
std::atomic<int> guard_cursor{0};  // where the search for a free slot starts
struct sigaction previous_sigbus;

void OnSigbus(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (GuardSlot& slot : guard_slots) {
    if (address >= slot.begin.load() && address < slot.end.load()) {
      // Zeros in place of the missing page; CheckUnchanged reports the damage.
      const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
      void* at = reinterpret_cast<void*>(address & ~(page - 1));
      if (mmap(at, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
        slot.faulted.store(true);
        return;
      }
    }
  }
  // Not ours: whatever was there before (by default, the end of the process).
  if (previous_sigbus.sa_flags & SA_SIGINFO) {
    previous_sigbus.sa_sigaction(signal, info, context);
  } else if (previous_sigbus.sa_handler != SIG_IGN && previous_sigbus.sa_handler != SIG_DFL) {
    previous_sigbus.sa_handler(signal);
  } else {
    ::signal(SIGBUS, SIG_DFL);
    raise(SIGBUS);
  }
}

int GuardMapping(const char* data, size_t size) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    struct sigaction action {};
    action.sa_sigaction = OnSigbus;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &previous_sigbus);
  });
  // From the slot after the last one taken: slots are mostly freed in the order they were taken,
  // so that thousands of files opened one after another each find one at once.
  const int start = guard_cursor.load();
  for (int k = 0; k < kGuardSlots; ++k) {
    const int i = (start + k) % kGuardSlots;
    uintptr_t expected = 0;
    if (guard_slots[i].end.load() == 0 &&
        guard_slots[i].begin.compare_exchange_strong(expected, reinterpret_cast<uintptr_t>(data))) {
      guard_slots[i].faulted.store(false);
      guard_slots[i].end.store(reinterpret_cast<uintptr_t>(data) + size);
      guard_cursor.store((i + 1) % kGuardSlots);
      return i;
    }
  }
  return -1;  // more mappings than slots: this one goes unguarded
}

void Unguard(int slot) {
  if (slot < 0) return;
  guard_slots[slot].end.store(0);
  guard_slots[slot].begin.store(0);
}

absl::Status ReadAll(int fd, const std::string& path, std::string* out) {
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot read", path);
    }
    if (n == 0) return absl::OkStatus();
    out->append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace

MappedFile::Identity MappedFile::IdentityOf(const struct stat& st) {
  return {st.st_dev, st.st_ino, int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec};
}

absl::StatusOr<MappedFile> MappedFile::Open(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("an input path is empty (\"\")");
  MappedFile file;
  file.path_ = path;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open", path);
  // The descriptor goes as soon as the bytes are mapped or read.
  struct CloseAtEnd {
    int fd;
    ~CloseAtEnd() { close(fd); }
  } close_at_end{fd};
  struct stat st;
  if (fstat(fd, &st) != 0) return ErrnoStatus(errno, "cannot stat", path);
  if (S_ISDIR(st.st_mode)) return ErrnoStatus(EISDIR, "cannot read", path);
  if (!S_ISREG(st.st_mode) || st.st_size == 0) {
    // Pipes, character devices and /proc files (which say size 0) cannot be mapped: read
    // them, so that their bytes are not mistaken for an empty file.
    BPEFORGE_RETURN_IF_ERROR(ReadAll(fd, path, &file.owned_));
    file.data_ = file.owned_.data();
    file.size_ = file.owned_.size();
    return file;
  }
  file.size_ = static_cast<size_t>(st.st_size);
  void* p = mmap(nullptr, file.size_, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return ErrnoStatus(errno, "cannot map", path);
  file.data_ = static_cast<const char*>(p);
  file.mapped_ = true;
  file.identity_ = IdentityOf(st);
  file.ReadAhead(true);
  file.guard_slot_ = GuardMapping(file.data_, file.size_);
  return file;
}

absl::StatusOr<MappedFile> MappedFile::Open(const std::string& path, uint64_t expected_size) {
  absl::StatusOr<MappedFile> file = Open(path);
  if (file.ok() && file->size_ != expected_size) {
    return absl::DataLossError(absl::StrCat(path, " changed size while it was read (",
                                            expected_size, " bytes when listed, ", file->size_,
                                            " when opened); nothing was written from it"));
  }
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    Unmap();
    path_ = std::move(other.path_);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, false);
    identity_ = other.identity_;
    guard_slot_ = std::exchange(other.guard_slot_, -1);
    const bool owned = other.data_ != nullptr && other.data_ == other.owned_.data();
    owned_ = std::move(other.owned_);
    data_ = owned ? owned_.data() : other.data_;
    other.data_ = nullptr;
  }
  return *this;
}

MappedFile::~MappedFile() { Unmap(); }

void MappedFile::Unmap() {
  if (mapped_) {
    Unguard(guard_slot_);
    munmap(const_cast<char*>(data_), size_);
  }
  data_ = nullptr;
  mapped_ = false;
  guard_slot_ = -1;
}

absl::Status MappedFile::CheckUnchanged() const {
  if (!mapped_) return absl::OkStatus();  // read whole: nothing can change under us
  const bool faulted = guard_slot_ >= 0 && guard_slots[guard_slot_].faulted.load();
  struct stat st;
  const bool same_file = stat(path_.c_str(), &st) == 0 && st.st_dev == identity_.device &&
                         st.st_ino == identity_.inode;
  if (faulted || (same_file && static_cast<size_t>(st.st_size) != size_)) {
    return absl::DataLossError(
        absl::StrCat(path_, " changed size while it was read (", size_, " bytes when opened",
                     faulted ? ", fewer when read" : "", "); nothing was written from it"));
  }
  if (same_file && IdentityOf(st).modified_ns != identity_.modified_ns) {
    return absl::DataLossError(
        absl::StrCat(path_,
                     " was written to while it was read (its modification time changed); nothing "
                     "was written from it"));
  }
  return absl::OkStatus();
}

void MappedFile::Release(size_t offset, size_t length) const {
  if (!mapped_ || length == 0) return;
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // Only whole pages inside the range: neighbours may still be in use.
  size_t begin = (offset + page - 1) / page * page;
  size_t end = (offset + length) / page * page;
  if (offset + length == size_) end = offset + length;
  if (end > begin) madvise(const_cast<char*>(data_) + begin, end - begin, MADV_DONTNEED);
}

bool MappedFile::WillNeed(size_t offset, size_t length) const {
  if (!mapped_ || length == 0 || offset >= size_) return true;
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t begin = offset / page * page;
  const size_t end = std::min(offset + length, size_);
  return madvise(const_cast<char*>(data_) + begin, end - begin, MADV_WILLNEED) == 0;
}

bool MappedFile::ReadAhead(bool on) const {
  if (!mapped_) return true;
  return madvise(const_cast<char*>(data_), size_, on ? MADV_SEQUENTIAL : MADV_RANDOM) == 0;
}

}  // namespace bpeforge::internal
