// Pre-token count files: what `bpeforge count` writes and `bpeforge train --counts` reads, so
// that the expensive pass over the text is made once for many vocabulary sizes, or made in
// pieces (one file per shard of a corpus) and added up.
//
// Layout (all integers little-endian):
//   "BPEFCNTS"                          8-byte magic
//   u32 version (1)
//   u32 n, n bytes                      the pattern's name ("gpt2", "cl100k", "o200k"), or
//                                       "custom:" and the regex
//   u32 k, then k times: u32 n, n bytes the special tokens, in given order
//   u64 input bytes, u64 pre-tokens, u64 distinct pre-tokens
//   distinct times: u32 n, n bytes, u64 count     sorted by bytes, so a file's bytes depend on
//                                                  its counts alone, never on threads
//   u32 CRC-32 (zlib's) of everything before it
#ifndef BPEFORGE_CORE_FORMATS_COUNTS_FILE_H_
#define BPEFORGE_CORE_FORMATS_COUNTS_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/internal/types.h"
#include "core/train/pretoken_counts.h"

namespace bpeforge::internal {

// The first bytes of every count file.
inline constexpr absl::string_view kCountsMagic = "BPEFCNTS";

struct CountsHeader {
  Pattern pattern = Pattern::kGpt2;
  std::vector<std::string> special_tokens;
  uint64_t bytes = 0;
  uint64_t pretokens = 0;
  std::string custom_regex = "";  // for Pattern::kCustom
};

// Writes the file's bytes through `write` (in pieces, so memory stays at the counts' own).
absl::Status WriteCountsFile(const CountsHeader& header, const PreTokenCounts& counts,
                             absl::FunctionRef<absl::Status(absl::string_view)> write);

// Checks `data` (magic, version, bounds, checksum) and adds its counts to *counts; errors name
// `name` and the byte offset.
absl::StatusOr<CountsHeader> ParseCountsFile(absl::string_view data, absl::string_view name,
                                             PreTokenCounts* counts);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_FORMATS_COUNTS_FILE_H_
