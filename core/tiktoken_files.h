// tiktoken's files: rank files ("<base64 token> <rank>" per line) and the small JSON beside
// them with the pattern and the special-token ids ({"pat_str": ..., "special_tokens": {...}}).
#ifndef BPEFORGE_CORE_TIKTOKEN_FILES_H_
#define BPEFORGE_CORE_TIKTOKEN_FILES_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/types.h"

namespace bpeforge::internal {

using Ranks = std::vector<std::pair<std::string, TokenId>>;

// Parses rank-file text; errors give `name`:line and the reason.
absl::StatusOr<Ranks> ParseTiktokenRanks(absl::string_view text, absl::string_view name);
absl::StatusOr<Ranks> ReadTiktokenRanks(const std::string& path);
// Rank-file text, in the given order.
std::string FormatTiktokenRanks(const Ranks& ranks);

// Special-token ids from a JSON object, either tiktoken's {"special_tokens": {tok: id}} or
// a plain {tok: id}. Errors name the file.
absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> ReadSpecialTokenIds(
    const std::string& path);
absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> ParseSpecialTokenIds(
    absl::string_view text, absl::string_view path);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TIKTOKEN_FILES_H_
