// A tokenizer's long tokens kept as their merges: each is the join of two earlier tokens, and
// its bytes are never stored. A file of one letter makes tokens of megabytes whose bytes come
// to eight or more times the file; kept this way they cost a few dozen bytes each, and the
// tokenizer's memory no longer grows with them.
//
// A token is found by its bytes through a hash that composes (the hash of a join follows from
// its parts'), every match checked against the token's bytes, walked piece by piece.
//
//   LongTokens tokens;
//   tokens.Add(900, /*left=*/700, /*right=*/800, rank, stored);  // stored: id -> bytes
//   std::optional<LongTokens::Found> t = tokens.Find(bytes, stored);
//   std::string out;
//   tokens.Append(900, stored, &out);
#ifndef BPEFORGE_CORE_ENCODE_LONG_TOKENS_H_
#define BPEFORGE_CORE_ENCODE_LONG_TOKENS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "core/internal/types.h"

namespace bpeforge::internal {

class LongTokens {
 public:
  // Tokens longer than this are kept as their merges; shorter ones as bytes (`stored`, the
  // tokenizer's id -> bytes, "" for the long ones). No vocabulary trained on prose has one.
  static constexpr size_t kStoredBytes = 1024;

  // Adds token `id`, the join of `left` and `right` (stored or long), with merge rank `rank`.
  // A token whose bytes an earlier one has is kept (it decodes) but not found by Find.
  void Add(TokenId id, TokenId left, TokenId right, uint32_t rank,
           const std::vector<std::string>& stored);

  bool contains(TokenId id) const { return tokens_.contains(id); }
  bool empty() const { return tokens_.empty(); }
  size_t size() const { return tokens_.size(); }

  struct Found {
    TokenId id;
    uint32_t rank;
  };
  // The first token added whose bytes are `bytes`, if any.
  std::optional<Found> Find(absl::string_view bytes, const std::vector<std::string>& stored) const;
  // Calls `piece` with the token's bytes, left to right, in stored pieces.
  void ForEachPiece(TokenId id, const std::vector<std::string>& stored,
                    absl::FunctionRef<void(absl::string_view)> piece) const;
  // Whether token `id`'s bytes are `bytes`.
  bool Equals(TokenId id, absl::string_view bytes, const std::vector<std::string>& stored) const;
  // Appends the token's bytes to *out.
  void Append(TokenId id, const std::vector<std::string>& stored, std::string* out) const;
  uint64_t length(TokenId id) const { return tokens_.at(id).length; }
  uint32_t rank(TokenId id) const { return tokens_.at(id).rank; }
  // Every long token's id (in no order).
  std::vector<TokenId> ids() const;

 private:
  struct Token {
    TokenId left, right;
    uint32_t rank;
    uint64_t length;
    uint64_t hash;  // PolyHash of its bytes
  };
  bool SameBytes(TokenId a, TokenId b, const std::vector<std::string>& stored) const;
  uint64_t LengthOf(TokenId id, const std::vector<std::string>& stored) const;
  uint64_t HashOf(TokenId id, const std::vector<std::string>& stored) const;

  absl::flat_hash_map<TokenId, Token> tokens_;
  absl::flat_hash_map<uint64_t, absl::InlinedVector<TokenId, 1>> by_hash_;  // the findable ones
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_ENCODE_LONG_TOKENS_H_
