#include "core/internal/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/internal/file_status.h"
#include "core/internal/status_macros.h"

namespace bpeforge::internal {
namespace {

absl::Status ErrnoError(absl::string_view what, const std::string& path) {
  return ErrnoStatus(errno, what, path);
}

// The descriptor a name such as /dev/stdout or /proc/self/fd/3 stands for, or -1. Such a name
// is written through a copy of the descriptor, so that `>> file` appends and `> file` keeps its
// offset: opening the name again would start at the file's first byte.
int DescriptorNamed(const std::string& path) {
  if (path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (absl::string_view dir : {"/dev/fd/", "/proc/self/fd/"}) {
    if (int fd; absl::StartsWith(path, dir) && absl::SimpleAtoi(path.substr(dir.size()), &fd)) {
      return fd;
    }
  }
  return -1;
}

// Where the bytes for `path` go: `rename_over` is the file its symbolic links end at (perhaps not
// there yet), replaced by a temporary file in its directory; renaming over the link itself would
// leave the file it names stale. Empty where `path` is a pipe, a terminal, a device or a name of
// a descriptor, which are written as they are (`descriptor` >= 0 for the last).
struct Destination {
  std::string rename_over;
  int descriptor = -1;
};

absl::StatusOr<Destination> DestinationOf(const std::string& path) {
  if (struct stat st; stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return ErrnoStatus(EISDIR, "cannot write", path);
    return Destination{"", DescriptorNamed(path)};
  }
  std::filesystem::path p = path;
  for (int links = 0; links < 40; ++links) {
    if (const int fd = DescriptorNamed(p.string()); fd >= 0) return Destination{"", fd};
    std::error_code ec;
    if (!std::filesystem::is_symlink(p, ec)) return Destination{p.string()};
    const std::filesystem::path target = std::filesystem::read_symlink(p, ec);
    if (ec) return ErrnoStatus(ec.value(), "cannot read the link", p.string());
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return ErrnoStatus(ELOOP, "cannot write", path);
}

// The mode a file written at `target` gets: that of the file it replaces, else what open() would
// give a new one (0666 less the umask). mkstemp makes its file 0600, and a fixed mode would
// widen a private file, or ignore a umask of 077 on a shared machine.
mode_t ModeFor(const std::string& target) {
  if (struct stat st; stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    return st.st_mode & 07777;
  }
  // Read, not set and restored (umask() is process-wide: another thread could create a file
  // between the two calls).
  mode_t mask = 022;
  if (std::FILE* status = std::fopen("/proc/self/status", "re")) {
    char line[256];
    while (std::fgets(line, sizeof line, status) != nullptr) {
      if (unsigned m; std::sscanf(line, "Umask: %o", &m) == 1) {
        mask = static_cast<mode_t>(m);
        break;
      }
    }
    std::fclose(status);
  }
  return 0666 & ~mask;
}

}  // namespace

absl::Status AtomicFile::Open(const std::string& path, AtomicFile* file) {
  // Checked now, not when the finished file is renamed into place: by then the work (an
  // encoding of gigabytes, say) would be done and lost.
  absl::StatusOr<Destination> destination = DestinationOf(path);
  if (!destination.ok()) return destination.status();
  file->path_ = path;
  int fd;
  if (destination->descriptor >= 0) {
    fd = fcntl(destination->descriptor, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return ErrnoError("cannot write", path);
  } else if (destination->rename_over.empty()) {
    fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoError("cannot write", path);
  } else {
    file->target_ = std::move(destination->rename_over);
    file->temp_path_ = file->target_ + ".tmp-XXXXXX";
    fd = mkstemp(file->temp_path_.data());
    if (fd < 0) return ErrnoError("cannot create a file beside", file->target_);
    fchmod(fd, ModeFor(file->target_));
  }
  file->file_ = fdopen(fd, "wb");
  if (file->file_ == nullptr) {
    close(fd);
    if (!file->temp_path_.empty()) unlink(file->temp_path_.c_str());
    return ErrnoError("cannot open", file->streams() ? path : file->temp_path_);
  }
  return absl::OkStatus();
}

AtomicFile::~AtomicFile() {
  if (direct_ >= 0) close(direct_);
  if (file_ != nullptr) std::fclose(file_);
  if (!temp_path_.empty() && !committed_) unlink(temp_path_.c_str());
}

absl::Status AtomicFile::Write(absl::string_view data) {
  // Nothing to write may come as a null pointer (no ids in a chunk: an empty span's data), and
  // fwrite's pointer must not be null even for 0 bytes.
  if (data.empty()) return absl::OkStatus();
  if (std::fwrite(data.data(), 1, data.size(), file_) != data.size()) {
    return ErrnoError("cannot write", path_);
  }
  return absl::OkStatus();
}

int AtomicFile::direct_descriptor() {
  if (direct_ < 0 && !streams() && file_ != nullptr) {
    direct_ = open(temp_path_.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);  // -1: none
  }
  return direct_;
}

int AtomicFile::descriptor() const { return file_ == nullptr ? -1 : fileno(file_); }

absl::Status AtomicFile::SeekTo(uint64_t offset) {
  if (fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0) {
    return ErrnoError("cannot write", path_);
  }
  return absl::OkStatus();
}

void AtomicFile::Append(absl::string_view data) {
  if (stopped()) return;
  append_error_ = Write(data);
}

bool AtomicFile::stopped() const {
  if (append_error_.ok() && cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) {
    append_error_ = absl::CancelledError("writing was cancelled");
  }
  return !append_error_.ok();
}

absl::Status AtomicFile::Finish() {
  BPEFORGE_RETURN_IF_ERROR(append_error_);
  if (file_ == nullptr) return absl::OkStatus();
  if (direct_ >= 0) close(std::exchange(direct_, -1));  // synced with the file below
  std::FILE* f = std::exchange(file_, nullptr);
  // A pipe or a terminal cannot be synced (EINVAL); only a file renamed into place needs it.
  bool ok = std::fflush(f) == 0 && (streams() || fsync(fileno(f)) == 0);
  const int e = errno;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) return ErrnoStatus(errno != 0 ? errno : e, "cannot write", path_);
  return absl::OkStatus();
}

absl::Status AtomicFile::Commit() {
  BPEFORGE_RETURN_IF_ERROR(Finish());
  if (!streams() && std::rename(temp_path_.c_str(), target_.c_str()) != 0) {
    return ErrnoError("cannot write", path_);
  }
  committed_ = true;
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  AtomicFile file;
  BPEFORGE_RETURN_IF_ERROR(AtomicFile::Open(path, &file));
  BPEFORGE_RETURN_IF_ERROR(file.Write(contents));
  return file.Commit();
}

absl::Status ReadFile(const std::string& path, std::string* contents) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open", path);
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    close(fd);
    return ErrnoStatus(EISDIR, "cannot read", path);
  }
  contents->clear();
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status s = ErrnoError("cannot read", path);
      close(fd);
      return s;
    }
    if (n == 0) break;
    contents->append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return absl::OkStatus();
}

absl::Status WriteFilesAtomically(const std::string& dir,
                                  const std::vector<std::pair<std::string, WriteContents>>& files,
                                  const std::atomic<bool>* cancel) {
  auto cancelled = [cancel]() -> absl::Status {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
      return absl::CancelledError("writing was cancelled");
    }
    return absl::OkStatus();
  };
  if (dir.empty()) return absl::InvalidArgumentError("the output directory is empty (\"\")");
  // Directories made here are removed again if the files cannot all be written, so a failure
  // leaves the tree as it was. (Declared first: it runs after the files' own clean-up.)
  std::filesystem::path created;
  for (std::filesystem::path p = std::filesystem::absolute(dir); !p.empty() && !exists(p);
       p = p.parent_path()) {
    created = p;
    if (p == p.parent_path()) break;
  }
  struct RemoveIfFailed {
    const std::filesystem::path& top;
    bool ok = false;
    ~RemoveIfFailed() {
      std::error_code ignored;
      if (!ok && !top.empty()) std::filesystem::remove_all(top, ignored);
    }
  } cleanup{created};

  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return ErrnoStatus(ec.value(), "cannot create output directory", dir);
  if (!std::filesystem::is_directory(dir)) {
    return ErrnoStatus(ENOTDIR, "cannot write into", dir);
  }
  // All files are written and synced before the first is renamed into place, so a full disk
  // or an error leaves none of them.
  std::vector<std::unique_ptr<AtomicFile>> open;
  for (const auto& [name, write_contents] : files) {
    auto file = std::make_unique<AtomicFile>();
    const std::string path = (std::filesystem::path(dir) / name).string();
    BPEFORGE_RETURN_IF_ERROR(AtomicFile::Open(path, file.get()));
    file->set_cancel(cancel);
    BPEFORGE_RETURN_IF_ERROR(write_contents(*file));
    BPEFORGE_RETURN_IF_ERROR(cancelled());  // the writer may have stopped early, its text cut
    BPEFORGE_RETURN_IF_ERROR(file->Finish());
    open.push_back(std::move(file));
  }
  BPEFORGE_RETURN_IF_ERROR(cancelled());
  for (auto& file : open) {
    BPEFORGE_RETURN_IF_ERROR(file->Commit());
  }
  cleanup.ok = true;
  return absl::OkStatus();
}

}  // namespace bpeforge::internal
