#include "cli/output_dir.h"

#include <sys/resource.h>

#include <filesystem>
#include <memory>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "core/atomic_file.h"

namespace bpeforge {

absl::Status WriteOutputFiles(const std::string& dir,
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

uint64_t PeakRssBytes() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace bpeforge
