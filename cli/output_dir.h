// Writing a set of files into an output directory all or nothing.
#ifndef BPEFORGE_CLI_OUTPUT_DIR_H_
#define BPEFORGE_CLI_OUTPUT_DIR_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace bpeforge {

// Creates `dir` (and parents) if needed, writes every (name, contents) to a temporary file
// there, and renames them into place only after all were written. On failure no file of the
// set is left behind (earlier files of the same name are kept as they were).
absl::Status WriteOutputFiles(const std::string& dir,
                              const std::vector<std::pair<std::string, std::string>>& files);

// Peak resident set size of this process so far, in bytes.
uint64_t PeakRssBytes();

}  // namespace bpeforge

#endif  // BPEFORGE_CLI_OUTPUT_DIR_H_
