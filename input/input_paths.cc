#include "input/input_paths.h"

#include <fnmatch.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/formats/id_array.h"
#include "core/formats/manifest.h"
#include "core/formats/own_files.h"
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
// followed (a cycle would never end). What bpeforge wrote there goes to `left_out` (sorted)
// instead: tokenizer folders, ids files with their sidecars, and count files unless they are
// the inputs (own_files.h).
absl::Status WalkDirectory(const std::string& dir, const std::vector<std::string>& include,
                           bool count_files, std::vector<std::string>* out,
                           std::vector<std::string>* left_out) {
  namespace fs = std::filesystem;
  if (IsTokenizerFolder(dir)) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir, ": a tokenizer folder written by bpeforge (it holds ", kManifestFile, "), not text"));
  }
  // Each directory listed on its own, so that an error (a subfolder removed meanwhile, one
  // that cannot be read) names the directory it is about.
  std::vector<std::string> found, own;
  std::vector<std::string> pending = {dir};
  while (!pending.empty()) {
    const std::string listed = std::move(pending.back());
    pending.pop_back();
    std::error_code ec;
    fs::directory_iterator it(listed, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      const std::string path = it->path().string();
      // A link to nothing (or to a loop) is neither a file nor a folder: passed over.
      std::error_code entry_ec;
      if (it->is_directory(entry_ec)) {
        if (it->is_symlink(entry_ec) || (!name.empty() && name[0] == '.')) continue;
        if (IsTokenizerFolder(path)) {
          own.push_back(path);
        } else {
          pending.push_back(path);
        }
        continue;
      }
      if (name.empty() || name[0] == '.' || !it->is_regular_file(entry_ec) ||
          !Matches(name, include)) {
        continue;
      }
      const bool ours = (absl::EndsWith(name, ".json") && IsIdsSidecar(path)) ||
                        IsIdsSidecar(IdsSidecarPath(path)) || (!count_files && IsCountsFile(path));
      (ours ? own : found).push_back(path);
    }
    if (ec) return ErrnoStatus(ec.value(), "cannot list the directory", listed);
  }
  if (found.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir, ": the directory holds no input file",
        include.empty() ? "" : absl::StrCat(" matching --include ", absl::StrJoin(include, " ")),
        own.empty() ? "" : " (only files bpeforge wrote)"));
  }
  std::sort(found.begin(), found.end());
  out->insert(out->end(), found.begin(), found.end());
  std::sort(own.begin(), own.end());
  if (left_out != nullptr) left_out->insert(left_out->end(), own.begin(), own.end());
  return absl::OkStatus();
}

bool IsGlob(const std::string& arg) { return arg.find_first_of("*?[") != std::string::npos; }

}  // namespace

absl::StatusOr<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& inputs,
                                                      const std::vector<std::string>& include,
                                                      std::vector<std::string>* left_out,
                                                      bool count_files) {
  std::vector<std::string> out;
  for (const std::string& arg : inputs) {
    struct stat st;
    const bool exists = arg != "-" && stat(arg.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
      BPEFORGE_RETURN_IF_ERROR(WalkDirectory(arg, include, count_files, &out, left_out));
    } else if (!exists && arg != "-" && IsGlob(arg)) {
      glob_t g{};
      const int rc = glob(arg.c_str(), 0, nullptr, &g);  // sorted by glob itself
      std::vector<std::string> matches(g.gl_pathv, g.gl_pathv + (rc == 0 ? g.gl_pathc : 0));
      globfree(&g);
      if (rc == GLOB_NOMATCH || (rc == 0 && matches.empty())) {
        return absl::NotFoundError(absl::StrCat(arg, ": no file matches this pattern"));
      }
      if (rc != 0) return absl::InvalidArgumentError(absl::StrCat(arg, ": cannot expand"));
      const size_t before = out.size();
      for (const std::string& m : matches) {
        if (!IsDirectory(m)) {
          out.push_back(m);
        } else if (IsTokenizerFolder(m)) {  // "data/*" matched data/tok too
          if (left_out != nullptr) left_out->push_back(m);
        } else {
          BPEFORGE_RETURN_IF_ERROR(WalkDirectory(m, include, count_files, &out, left_out));
        }
      }
      if (out.size() == before) {
        return absl::InvalidArgumentError(
            absl::StrCat(arg, ": matches only tokenizer folders written by bpeforge, not text"));
      }
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

}  // namespace bpeforge::internal
