// What the project's own front ends (the command line, the Python module, the MPI driver) need
// beyond the public API: writing files of their own, training that writes the tokenizer as it
// spells it out, counting straight into a file, and the in-memory counts of one process's share
// of the inputs. Built into the library and exported with it, but not installed: a project
// built against the install sees bpeforge/bpeforge.h only.
//
//   absl::StatusOr<TrainStats> stats = TrainAndSave(inputs, options, args.out_dir);
//   absl::StatusOr<CountedText> counted = CountAndSave(inputs, options, args.out);
//   absl::StatusOr<CountedText> mine = CountShare(inputs, options, rank, ranks);
//   absl::Status written = WriteFileWhole(args.stats_json, json);
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

// Train, then SaveTokenizer to `dir`, the same files byte for byte, without ever holding the
// vocabulary's bytes: tokens are kept as pairs of earlier tokens and spelled out one at a time
// as the files are written. For batch jobs (the command line trains this way): on text with
// no safe cut, such as a file of one letter, tokens run to megabytes and the vocabulary to many
// times the text, which a BpeModel would hold twice over.
BPEFORGE_API absl::StatusOr<TrainStats> TrainAndSave(const std::vector<std::string>& inputs,
                                                     const TrainOptions& options,
                                                     const std::string& dir);
// CountFiles::Train, then SaveTokenizer, the same way (declared a friend of CountFiles).
BPEFORGE_API absl::StatusOr<TrainStats> TrainAndSave(CountFiles& files, const TrainOptions& options,
                                                     const std::string& dir);
// Training from counts held in memory (an MPI job's sum), then SaveTokenizer, the same way;
// `options.pattern` is only recorded in the model.
BPEFORGE_API absl::StatusOr<TrainStats> TrainFromCountsAndSave(const PreTokenCounts& counts,
                                                               const TrainOptions& options,
                                                               const std::string& dir);

// Counts the pre-tokens of the files as Train does into the count file `path` (what
// CountFiles::Count writes), without a map: the workers' own counts are sorted by the workers
// and merged as the file is written. Returns what was counted, `counts` left empty.
BPEFORGE_API absl::StatusOr<CountedText> CountAndSave(const std::vector<std::string>& inputs,
                                                      const TrainOptions& options,
                                                      const std::string& path);
// The counts of share `share` of `shares` of the inputs, held in memory (one process's part of
// a multi-process count, distributed/mpi_job.h; 0 of 1 is the whole). The counts and
// statistics of shares 0 .. shares - 1 add up to exactly those of the whole; kInvalidArgument
// unless share < shares.
BPEFORGE_API absl::StatusOr<CountedText> CountShare(const std::vector<std::string>& inputs,
                                                    const TrainOptions& options, size_t share,
                                                    size_t shares);
// Writes counts held in memory as a count file (the file CountAndSave writes of the same
// counts), whole or not at all.
BPEFORGE_API absl::Status SaveCounts(const CountedText& counted, const std::string& path);

}  // namespace bpeforge

#endif  // BPEFORGE_INTERNAL_FRONT_ENDS_H_
