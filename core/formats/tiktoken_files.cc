#include "core/formats/tiktoken_files.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/internal/atomic_file.h"
#include "core/internal/status_macros.h"

namespace bpeforge::internal {
namespace {

constexpr size_t kMaxRankGap = 1024;
size_t RankBound(size_t tokens) { return 2 * tokens + kMaxRankGap; }

}  // namespace

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
  // Ranks are ids, and the decoder is sized by the largest, so a far-off rank would cost
  // gigabytes. Gaps are allowed, but bounded: exported files leave the special tokens' ids and
  // repeated tokens out.
  const size_t bound = RankBound(ranks.size());
  // Each token once and each rank once, the second of two named with its line and the first's.
  absl::flat_hash_map<absl::string_view, size_t> token_line;
  absl::flat_hash_map<TokenId, size_t> rank_line;
  token_line.reserve(ranks.size());
  rank_line.reserve(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    const auto& [bytes, rank] = ranks[i];
    if (rank >= bound) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ":", lines[i], ": rank ", rank, " is out of range: the ", ranks.size(),
                       " tokens of this rank file must have ranks below ", bound,
                       " (twice their number + ", kMaxRankGap, ")"));
    }
    if (auto [it, added] = token_line.try_emplace(bytes, lines[i]); !added) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ":", lines[i], ": token \"", absl::CHexEscape(bytes.substr(0, 100)),
                       "\" is ranked twice (first on line ", it->second, ")"));
    }
    if (auto [it, added] = rank_line.try_emplace(rank, lines[i]); !added) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ":", lines[i], ": rank ", rank, " is used twice (first on line ", it->second, ")"));
    }
  }
  return ranks;
}

absl::StatusOr<Ranks> ReadTiktokenRanks(const std::string& path) {
  std::string text;
  BPEFORGE_RETURN_IF_ERROR(ReadFile(path, &text));
  return ParseTiktokenRanks(text, path);
}

absl::StatusOr<TiktokenTables> TiktokenTablesOf(const TokenSpelling& tokens,
                                                const std::vector<std::string>& special_tokens,
                                                const std::atomic<bool>* cancel) {
  auto cancelled = [cancel] {
    return cancel != nullptr && cancel->load(std::memory_order_relaxed);
  };
  TiktokenTables tables(tokens, cancel);
  if (cancelled()) return absl::CancelledError("writing was cancelled");
  for (const std::string& s : special_tokens) {
    const std::optional<TokenId> id = tables.first.Find(s);
    if (!id) {
      return absl::InvalidArgumentError(
          absl::StrCat("special token \"", absl::CHexEscape(s), "\" is not in the vocab"));
    }
    if (tables.special_ids.insert(*id).second) tables.specials.emplace_back(s, *id);
  }
  for (size_t id = 0; id < tokens.size(); ++id) {
    if (tables.special_ids.contains(static_cast<TokenId>(id))) continue;
    if (!tables.first.IsFirst(static_cast<TokenId>(id))) {
      ++tables.left_out;
      continue;
    }
    tables.ranks.push_back(static_cast<TokenId>(id));
  }
  int64_t last = -1;
  std::string left, right, joined;
  absl::flat_hash_set<TokenId> built;  // the merges' results
  for (size_t i = 0; i < tokens.merges(); ++i) {
    if (cancelled()) return absl::CancelledError("writing was cancelled");
    joined.clear();
    absl::StrAppend(&joined, tokens.MergeLeft(i, &left), tokens.MergeRight(i, &right));
    const std::optional<TokenId> id = tables.first.Find(joined);
    if (!id) {
      return absl::InvalidArgumentError(
          absl::StrCat("merge ", i + 1, " makes a token that is not in the vocab"));
    }
    if (static_cast<int64_t>(*id) < last) {
      return absl::InvalidArgumentError(absl::StrCat(
          "merge ", i + 1, " makes id ", *id, ", below an earlier merge's ", last,
          "; tiktoken merges in id order, so these ids cannot be written as a rank file"));
    }
    last = std::max<int64_t>(last, *id);
    built.insert(*id);
  }
  // A token that no merge makes is looked up only whole, by tiktoken as by Hugging Face with
  // ignore_merges; but tiktoken would also make it by joining two tokens whose bytes are its
  // own, where Hugging Face does not. Such a vocabulary cannot be written as ranks.
  std::string scratch;
  for (TokenId id : tables.ranks) {
    if (built.contains(id)) continue;
    const std::string bytes(tokens.Token(id, &scratch));
    for (size_t cut = 1; cut < bytes.size(); ++cut) {
      const absl::string_view whole = bytes;
      if (tables.first.Find(whole.substr(0, cut)) && tables.first.Find(whole.substr(cut))) {
        return absl::InvalidArgumentError(
            absl::StrCat("\"", absl::CHexEscape(bytes), "\" (id ", id,
                         ") is made by no merge, but tiktoken "
                         "would make it by joining \"",
                         absl::CHexEscape(whole.substr(0, cut)), "\" and \"",
                         absl::CHexEscape(whole.substr(cut)),
                         "\", where Hugging Face does not; a rank file "
                         "cannot hold this vocabulary"));
      }
    }
  }
  return tables;
}

void WriteTiktokenRanks(const TiktokenTables& tables, const TokenSpelling& tokens, TextSink& out) {
  std::string scratch;
  for (TokenId id : tables.ranks) {
    if (out.stopped()) return;
    out.Add(absl::Base64Escape(tokens.Token(id, &scratch)), " ", id, "\n");
  }
}

void WriteTiktokenJson(const TiktokenTables& tables, const TokenSpelling& tokens, Pattern pattern,
                       absl::string_view custom_regex, TextSink& out) {
  nlohmann::ordered_json j;
  j["pat_str"] = std::string(pattern == Pattern::kCustom ? custom_regex : PortableRegex(pattern));
  j["special_tokens"] = nlohmann::ordered_json::object();
  for (const auto& [token, id] : tables.specials) j["special_tokens"][token] = id;
  // The library writes the small head, ending in the empty string `"bpe_ranks": ""`; the
  // ranks, which can be far larger, are streamed into that string (base64, digits, spaces and
  // escaped newlines need no further escaping).
  j["bpe_ranks"] = "";
  const std::string head = j.dump(2);  // ends with `""\n}`
  out.Append(absl::string_view(head).substr(0, head.size() - 3));
  // js-tiktoken's form: each line starts a run of consecutive ranks.
  std::string scratch;
  for (size_t i = 0; i < tables.ranks.size() && !out.stopped(); ++i) {
    const TokenId rank = tables.ranks[i];
    const bool run_goes_on = i > 0 && i % 256 != 0 && tables.ranks[i - 1] + 1 == rank;
    if (!run_goes_on) out.Add(i > 0 ? "\\n" : "", "! ", rank);
    out.Add(" ", absl::Base64Escape(tokens.Token(rank, &scratch)));
  }
  out.Append("\"\n}\n");
}

absl::StatusOr<TiktokenJson> ParseTiktokenJson(absl::string_view text, absl::string_view path) {
  nlohmann::json json =
      nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": expected a JSON object"));
  }
  TiktokenJson out;
  if (json.contains("pat_str")) {
    if (!json["pat_str"].is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": \"pat_str\" is not a string"));
    }
    const std::string pat = json["pat_str"].get<std::string>();
    std::optional<Pattern> pattern = PatternOfRegex(pat);
    if (pattern.has_value()) {
      out.pattern = *pattern;
    } else {
      if (auto made = MakeCustomPreTokenizer(pat); !made.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(path, ": ", made.status().message()));
      }
      out.pattern = Pattern::kCustom;
      out.custom_regex = pat;
    }
  }
  if (json.contains("special_tokens")) {
    absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> specials =
        ParseSpecialTokenIds(json["special_tokens"].dump(), path);
    if (!specials.ok()) return specials.status();
    out.specials = *std::move(specials);
  }
  return out;
}

absl::StatusOr<TiktokenJson> ReadTiktokenJson(const std::string& path) {
  std::string text;
  BPEFORGE_RETURN_IF_ERROR(ReadFile(path, &text));
  return ParseTiktokenJson(text, path);
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
  BPEFORGE_RETURN_IF_ERROR(ReadFile(path, &text));
  return ParseSpecialTokenIds(text, path);
}

}  // namespace bpeforge::internal
