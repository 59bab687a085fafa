// Writing a file as the library writes its own (core/internal/atomic_file.h), for front ends
// with files of their own, such as the command line's --stats-json; and never over an input.
#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "api/options.h"
#include "bpeforge/bpeforge.h"
#include "bpeforge/internal/front_ends.h"
#include "core/internal/atomic_file.h"

namespace bpeforge {
namespace {

// Whether two paths name the same file (device and inode).
bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace

absl::Status CheckNotAnInput(const std::string& output, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    if (SameFile(output, input)) {
      return absl::InvalidArgumentError(absl::StrCat("the output ", output, " is the input ", input,
                                                     "; refusing to overwrite it"));
    }
  }
  return absl::OkStatus();
}

absl::Status WriteFileWhole(const std::string& path, absl::string_view contents) {
  return internal::WriteFileAtomically(path, contents);
}

}  // namespace bpeforge
