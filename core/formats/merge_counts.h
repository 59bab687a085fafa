// merge_counts.txt, written beside merges.txt by training: how often each merge's pair occurred
// in the training text when it was merged, one decimal count per line in merge order, line for
// line beside merges.txt (`paste merges.txt merge_counts.txt`). Lines starting with # are
// comments.
//
//   std::string text;
//   StringSink sink(&text);
//   WriteMergeCounts({5, 3}, sink);  // "5\n3\n"
//   absl::StatusOr<std::optional<std::vector<uint64_t>>> counts =
//       ReadMergeCountsIfThere("tok/merge_counts.txt", /*merges=*/2);
//
// The file is a record of the training, not needed to encode: a tokenizer folder without it
// (written before it existed, or by another tool) loads as before, only without the counts.
#ifndef BPEFORGE_CORE_FORMATS_MERGE_COUNTS_H_
#define BPEFORGE_CORE_FORMATS_MERGE_COUNTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/internal/text_sink.h"

namespace bpeforge::internal {

inline constexpr char kMergeCountsFile[] = "merge_counts.txt";

void WriteMergeCounts(absl::Span<const uint64_t> counts, TextSink& out);
// The counts of `text` (read from `path`, which errors name with the line), which must be one
// for each of `merges` merges.
absl::StatusOr<std::vector<uint64_t>> ParseMergeCounts(absl::string_view text,
                                                       absl::string_view path, size_t merges);
// ParseMergeCounts of the file at `path`, or nullopt when there is no such file.
absl::StatusOr<std::optional<std::vector<uint64_t>>> ReadMergeCountsIfThere(const std::string& path,
                                                                            size_t merges);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_FORMATS_MERGE_COUNTS_H_
