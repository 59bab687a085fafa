// tiktoken's files: rank files ("<base64 token> <rank>" per line) and the small JSON beside
// them with the pattern and the special-token ids ({"pat_str": ..., "special_tokens": {...}}).
#ifndef BPEFORGE_CORE_FORMATS_TIKTOKEN_FILES_H_
#define BPEFORGE_CORE_FORMATS_TIKTOKEN_FILES_H_

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/string_view.h"
#include "core/formats/token_spelling.h"
#include "core/internal/text_sink.h"
#include "core/internal/types.h"
#include "core/pretokenize/pretokenizer.h"

namespace bpeforge::internal {

inline constexpr char kTiktokenRanksFile[] = "tokenizer.tiktoken";
inline constexpr char kTiktokenJsonFile[] = "tiktoken.json";

using Ranks = std::vector<std::pair<std::string, TokenId>>;

// Parses rank-file text; errors give `name`:line and the reason.
absl::StatusOr<Ranks> ParseTiktokenRanks(absl::string_view text, absl::string_view name);
absl::StatusOr<Ranks> ReadTiktokenRanks(const std::string& path);
// Rank-file text, in the given order.
inline void WriteTiktokenRanks(const Ranks& ranks, TextSink& out) {
  for (const auto& [bytes, rank] : ranks) out.Add(absl::Base64Escape(bytes), " ", rank, "\n");
}

// What a tokenizer writes as tiktoken files: each token that merging can produce with the
// lowest id that has its bytes (the id our encoder emits; a later id with the same bytes, which
// the CS336 tie-break can create, is left out: a rank file holds one rank per byte string), and
// the special tokens with their ids. The tables refer to the spelling they were made from.
struct TiktokenTables {
  TiktokenTables(const TokenSpelling& tokens, const std::atomic<bool>* cancel)
      : first(tokens, cancel) {}
  FirstIds first;                                         // the first id of each byte string
  std::vector<TokenId> ranks;                             // the ids written as ranks, in id order
  std::vector<std::pair<std::string, TokenId>> specials;  // in the given order
  absl::flat_hash_set<TokenId> special_ids;
  size_t left_out = 0;  // ids whose bytes an earlier id has
};
// Fails when tiktoken would encode differently: its merge priority is the id, so the ids of the
// merge results must grow in merge order (they do in both layouts training writes). Spelling
// every token of a large vocabulary takes seconds: once `cancel` (when given) reads true, it
// returns Cancelled.
absl::StatusOr<TiktokenTables> TiktokenTablesOf(const TokenSpelling& tokens,
                                                const std::vector<std::string>& special_tokens,
                                                const std::atomic<bool>* cancel = nullptr);
// The rank file of `tables`.
void WriteTiktokenRanks(const TiktokenTables& tables, const TokenSpelling& tokens, TextSink& out);

// tiktoken.json: {"pat_str": ..., "special_tokens": {tok: id}, "bpe_ranks": ...}, where
// "bpe_ranks" holds the ranks again in js-tiktoken's form ("! FIRST_RANK TOKEN TOKEN ..."), so
// that the object is js-tiktoken's constructor argument as it is.
void WriteTiktokenJson(const TiktokenTables& tables, const TokenSpelling& tokens, Pattern pattern,
                       absl::string_view custom_regex, TextSink& out);
struct TiktokenJson {
  Pattern pattern = Pattern::kGpt2;
  std::string custom_regex;  // any "pat_str" but the known ones
  std::vector<std::pair<std::string, TokenId>> specials;
};
// Reads tiktoken.json; a "pat_str" that is none of the known patterns is a custom one, and
// must compile.
absl::StatusOr<TiktokenJson> ReadTiktokenJson(const std::string& path);
absl::StatusOr<TiktokenJson> ParseTiktokenJson(absl::string_view text, absl::string_view path);

// Special-token ids from a JSON object, either tiktoken's {"special_tokens": {tok: id}} or
// a plain {tok: id}. Errors name the file.
absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> ReadSpecialTokenIds(
    const std::string& path);
absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> ParseSpecialTokenIds(
    absl::string_view text, absl::string_view path);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_FORMATS_TIKTOKEN_FILES_H_
