#include "core/internal/input_paths.h"

#include <fnmatch.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/internal/file_status.h"
#include "core/internal/status_macros.h"

namespace bpeforge::internal {
namespace {

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool Matches(const std::string& name, const std::vector<std::string>& include) {
  if (include.empty()) return true;
  return std::any_of(include.begin(), include.end(), [&](const std::string& pattern) {
    return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
  });
}

// The files under `dir`, sorted; symbolic links to files count, links to directories are not
// followed (a cycle would never end).
absl::Status WalkDirectory(const std::string& dir, const std::vector<std::string>& include,
                           std::vector<std::string>* out) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.empty() && name[0] == '.') {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && Matches(name, include)) found.push_back(it->path().string());
  }
  if (ec) return ErrnoStatus(ec.value(), "cannot list the directory", dir);
  if (found.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir, ": the directory holds no input file",
        include.empty() ? "" : absl::StrCat(" matching --include ", absl::StrJoin(include, " "))));
  }
  std::sort(found.begin(), found.end());
  out->insert(out->end(), found.begin(), found.end());
  return absl::OkStatus();
}

bool IsGlob(const std::string& arg) { return arg.find_first_of("*?[") != std::string::npos; }

}  // namespace

absl::StatusOr<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& inputs,
                                                      const std::vector<std::string>& include) {
  std::vector<std::string> out;
  for (const std::string& arg : inputs) {
    struct stat st;
    const bool exists = arg != "-" && stat(arg.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
      BPEFORGE_RETURN_IF_ERROR(WalkDirectory(arg, include, &out));
    } else if (!exists && arg != "-" && IsGlob(arg)) {
      glob_t g{};
      const int rc = glob(arg.c_str(), 0, nullptr, &g);  // sorted by glob itself
      std::vector<std::string> matches(g.gl_pathv, g.gl_pathv + (rc == 0 ? g.gl_pathc : 0));
      globfree(&g);
      if (rc == GLOB_NOMATCH || (rc == 0 && matches.empty())) {
        return absl::NotFoundError(absl::StrCat(arg, ": no file matches this pattern"));
      }
      if (rc != 0) return absl::InvalidArgumentError(absl::StrCat(arg, ": cannot expand"));
      for (const std::string& m : matches) {
        if (IsDirectory(m)) {
          BPEFORGE_RETURN_IF_ERROR(WalkDirectory(m, include, &out));
        } else {
          out.push_back(m);
        }
      }
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

}  // namespace bpeforge::internal
