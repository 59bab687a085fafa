// Input arguments as users type them, made into a list of files: directories walked, globs
// expanded (for shells that pass them through quoted), in an order that does not depend on the
// file system.
//
//   absl::StatusOr<std::vector<std::string>> files =
//       ExpandInputs({"shards/", "extra/*.txt", "-"}, {"*.jsonl.zst"});
#ifndef BPEFORGE_CORE_INTERNAL_INPUT_PATHS_H_
#define BPEFORGE_CORE_INTERNAL_INPUT_PATHS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace bpeforge::internal {

// A directory gives its files, recursively, sorted by path bytes, leaving out names that start
// with '.' (".git", ".DS_Store") and, when `include` is not empty, files whose name matches none
// of its patterns (fnmatch). An argument that is no file but holds *, ? or [ is a glob
// (glob(3), sorted); the directories it matches are walked too. Other arguments, "-" among
// them, pass unchanged (opening them reports what is wrong). A directory without a file to
// take and a glob without a match are errors that say so.
absl::StatusOr<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& inputs,
                                                      const std::vector<std::string>& include);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_INTERNAL_INPUT_PATHS_H_
