#include "core/formats/merge_counts.h"

#include <sys/stat.h>

#include <cerrno>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/internal/atomic_file.h"
#include "core/internal/file_status.h"
#include "core/internal/status_macros.h"

namespace bpeforge::internal {
void WriteMergeCounts(absl::Span<const uint64_t> counts, TextSink& out) {
  std::string block;
  for (const uint64_t count : counts) {
    absl::StrAppend(&block, count, "\n");
    if (block.size() >= (1 << 16)) {
      out.Append(block);
      block.clear();
    }
  }
  out.Append(block);
}

absl::StatusOr<std::vector<uint64_t>> ParseMergeCounts(absl::string_view text,
                                                       absl::string_view path, size_t merges) {
  std::vector<uint64_t> counts;
  counts.reserve(merges);
  size_t line = 0;
  for (absl::string_view row : absl::StrSplit(text, '\n')) {
    ++line;
    if (row.empty() || row[0] == '#') continue;
    uint64_t count = 0;
    if (!absl::SimpleAtoi(row, &count) || row[0] == '+') {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", line,
                                                     ": not a count (a decimal number): \"",
                                                     absl::CHexEscape(row.substr(0, 40)), "\""));
    }
    counts.push_back(count);
  }
  if (counts.size() != merges) {
    return absl::InvalidArgumentError(absl::StrCat(path, " holds ", counts.size(),
                                                   " counts for the ", merges,
                                                   " merges of merges.txt beside it"));
  }
  return counts;
}

absl::StatusOr<std::optional<std::vector<uint64_t>>> ReadMergeCountsIfThere(const std::string& path,
                                                                            size_t merges) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::nullopt;
    return ErrnoStatus(errno, "cannot read", path);
  }
  std::string text;
  BPEFORGE_RETURN_IF_ERROR(ReadFile(path, &text));
  absl::StatusOr<std::vector<uint64_t>> counts = ParseMergeCounts(text, path, merges);
  if (!counts.ok()) return counts.status();
  return std::optional<std::vector<uint64_t>>(*std::move(counts));
}

}  // namespace bpeforge::internal
