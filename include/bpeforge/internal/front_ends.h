// What the project's own front ends need beyond the public API: the command line's writing of
// files of its own, and the MPI driver's counting of one process's share of the inputs. Built
// into the library and exported with it, but not installed: a project built against the
// install sees bpeforge/bpeforge.h only.
//
//   absl::Status written = WriteFileWhole(args.stats_json, json);
//   absl::StatusOr<CountedText> mine = CountShare(inputs, options, rank, ranks);
#ifndef BPEFORGE_INTERNAL_FRONT_ENDS_H_
#define BPEFORGE_INTERNAL_FRONT_ENDS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "bpeforge/bpeforge.h"

namespace bpeforge {

// Writes `contents` to `path` as the library writes every file: whole or not at all (a
// temporary file beside it, renamed into place), a symbolic link written through, and a pipe
// or a device (/dev/stdout, /dev/null) given the bytes as they are.
BPEFORGE_API absl::Status WriteFileWhole(const std::string& path, absl::string_view contents);

// One process's part of a multi-process count (distributed/mpi_job.h): CountPreTokens of share
// `share` of `shares` of the inputs. The counts and statistics of shares 0 .. shares - 1 add up
// to exactly those of the whole; kInvalidArgument unless share < shares.
BPEFORGE_API absl::StatusOr<CountedText> CountShare(const std::vector<std::string>& inputs,
                                                    const TrainOptions& options, size_t share,
                                                    size_t shares);

}  // namespace bpeforge

#endif  // BPEFORGE_INTERNAL_FRONT_ENDS_H_
