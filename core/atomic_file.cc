#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"

namespace bpeforge::internal {
namespace {

// The status code follows errno, so callers (and Python) can tell a missing directory or a
// permission problem from other failures.
absl::Status ErrnoError(absl::string_view what, const std::string& path) {
  const int e = errno;
  std::string message = absl::StrCat(what, " ", path, ": ", std::strerror(e));
  switch (e) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace

absl::Status AtomicFile::Open(const std::string& path, AtomicFile* file) {
  file->path_ = path;
  file->temp_path_ = path + ".tmp-XXXXXX";
  int fd = mkstemp(file->temp_path_.data());
  if (fd < 0) return ErrnoError("cannot create a file beside", path);
  fchmod(fd, 0644);
  file->file_ = fdopen(fd, "wb");
  if (file->file_ == nullptr) {
    close(fd);
    unlink(file->temp_path_.c_str());
    return ErrnoError("cannot open", file->temp_path_);
  }
  return absl::OkStatus();
}

AtomicFile::~AtomicFile() {
  if (file_ != nullptr) {
    std::fclose(file_);
    unlink(temp_path_.c_str());
  }
}

absl::Status AtomicFile::Write(absl::string_view data) {
  if (std::fwrite(data.data(), 1, data.size(), file_) != data.size()) {
    return ErrnoError("cannot write", path_);
  }
  return absl::OkStatus();
}

absl::Status AtomicFile::Commit() {
  std::FILE* f = std::exchange(file_, nullptr);
  bool ok = std::fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    absl::Status s = ErrnoError("cannot write", path_);
    unlink(temp_path_.c_str());
    return s;
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  AtomicFile file;
  if (absl::Status s = AtomicFile::Open(path, &file); !s.ok()) return s;
  if (absl::Status s = file.Write(contents); !s.ok()) return s;
  return file.Commit();
}

absl::Status ReadFile(const std::string& path, std::string* contents) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, " is a directory, not a file"));
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
                                  const std::vector<std::pair<std::string, std::string>>& files) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create output directory ", dir, ": ", ec.message()));
  }
  if (!std::filesystem::is_directory(dir)) {
    return absl::InvalidArgumentError(absl::StrCat("output path ", dir, " is not a directory"));
  }
  std::vector<std::unique_ptr<AtomicFile>> open;
  for (const auto& [name, contents] : files) {
    auto file = std::make_unique<AtomicFile>();
    const std::string path = (std::filesystem::path(dir) / name).string();
    if (absl::Status s = AtomicFile::Open(path, file.get()); !s.ok()) return s;
    if (absl::Status s = file->Write(contents); !s.ok()) return s;
    open.push_back(std::move(file));
  }
  for (auto& file : open) {
    if (absl::Status s = file->Commit(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace bpeforge::internal
