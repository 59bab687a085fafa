// Writing a file as the library writes its own (core/internal/atomic_file.h), for front ends
// with files of their own, such as the command line's --stats-json.
#include "bpeforge/bpeforge.h"
#include "core/internal/atomic_file.h"

namespace bpeforge {

absl::Status WriteFileWhole(const std::string& path, absl::string_view contents) {
  return internal::WriteFileAtomically(path, contents);
}

}  // namespace bpeforge
