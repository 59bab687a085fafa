#include "core/tiktoken_files.h"

#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/atomic_file.h"

namespace bpeforge::internal {

absl::StatusOr<Ranks> ParseTiktokenRanks(absl::string_view text, absl::string_view name) {
  Ranks ranks;
  std::vector<size_t> lines;  // the line of each rank, for errors
  size_t line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    auto error = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat(name, ":", line_no, ": ", why));
    };
    std::vector<absl::string_view> fields = absl::StrSplit(line, ' ');
    if (fields.size() != 2) return error("expected \"<base64 token> <rank>\"");
    std::string bytes;
    // tiktoken writes standard base64; the web-safe alphabet is accepted too.
    if (fields[0].empty() ||
        !(absl::Base64Unescape(fields[0], &bytes) ||
          absl::WebSafeBase64Unescape(fields[0], &bytes)) ||
        bytes.empty()) {
      return error(absl::StrCat("invalid base64 token \"", fields[0], "\""));
    }
    uint32_t rank = 0;
    if (!absl::SimpleAtoi(fields[1], &rank) || fields[1].front() == '-' ||
        fields[1].front() == '+' || rank == UINT32_MAX) {
      return error(absl::StrCat("invalid rank \"", fields[1], "\""));
    }
    ranks.emplace_back(std::move(bytes), rank);
    lines.push_back(line_no);
  }
  // Ranks are ids, and the decoder is sized by the largest: they must be exactly 0..n-1
  // (distinct ranks below n leave no gap). A far-off rank would cost gigabytes, a gap a
  // silently missing token.
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i].second >= ranks.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ":", lines[i], ": rank ", ranks[i].second, " is out of range: the ", ranks.size(),
          " tokens of a rank file have the ranks 0..", ranks.size() - 1, ", each once"));
    }
  }
  return ranks;
}

absl::StatusOr<Ranks> ReadTiktokenRanks(const std::string& path) {
  std::string text;
  if (absl::Status s = ReadFile(path, &text); !s.ok()) return s;
  return ParseTiktokenRanks(text, path);
}

std::string FormatTiktokenRanks(const Ranks& ranks) {
  std::string out;
  for (const auto& [bytes, rank] : ranks) {
    absl::StrAppend(&out, absl::Base64Escape(bytes), " ", rank, "\n");
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> ParseSpecialTokenIds(
    absl::string_view text, absl::string_view path) {
  nlohmann::json json =
      nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": expected a JSON object"));
  }
  if (json.contains("special_tokens")) json = json["special_tokens"];
  if (!json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": \"special_tokens\" is not an object"));
  }
  std::vector<std::pair<std::string, TokenId>> ids;
  for (const auto& [token, id] : json.items()) {
    if (!id.is_number_unsigned() || id.get<uint64_t>() >= UINT32_MAX) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": special token ", nlohmann::json(token).dump(), " has id ",
                       id.dump(), "; expected an unsigned 32-bit integer"));
    }
    ids.emplace_back(token, id.get<TokenId>());
  }
  return ids;
}

absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> ReadSpecialTokenIds(
    const std::string& path) {
  std::string text;
  if (absl::Status s = ReadFile(path, &text); !s.ok()) return s;
  return ParseSpecialTokenIds(text, path);
}

}  // namespace bpeforge::internal
