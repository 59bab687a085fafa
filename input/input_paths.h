// Input arguments as users type them, made into a list of files: directories walked, globs
// expanded (for shells that pass them through quoted), in an order that does not depend on the
// file system.
//
//   absl::StatusOr<std::vector<std::string>> files =
//       ExpandInputs({"shards/", "extra/*.txt", "-"}, {"*.jsonl.zst"});
#ifndef BPEFORGE_INPUT_INPUT_PATHS_H_
#define BPEFORGE_INPUT_INPUT_PATHS_H_

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
// What bpeforge wrote under a directory is left out, and added to `*left_out` when it is given:
// tokenizer folders, ids files and their sidecars, and, unless `count_files` (the inputs are
// count files to add up or train from), count files (core/formats/own_files.h). A tokenizer
// folder named itself is an error, and so is a glob that matches only such folders; files
// named themselves, or matched by a glob, pass unchanged.
absl::StatusOr<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& inputs,
                                                      const std::vector<std::string>& include,
                                                      std::vector<std::string>* left_out = nullptr,
                                                      bool count_files = false);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_INPUT_INPUT_PATHS_H_
