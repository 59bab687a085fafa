#include "core/encode/long_tokens.h"

#include <algorithm>
#include <cstring>

#include "absl/numeric/int128.h"

namespace bpeforge::internal {
namespace {

// A polynomial hash modulo the prime 2^61 - 1: that of a join follows from its parts',
// Hash(a + b) = Hash(a) * kBase^|b| + Hash(b), so a long token's hash is made without its bytes.
constexpr uint64_t kPrime = (uint64_t{1} << 61) - 1;
constexpr uint64_t kBase = 0x1b873593a5d2c5bbull % kPrime;

uint64_t MulMod(uint64_t a, uint64_t b) {
  const absl::uint128 product = absl::uint128(a) * b;
  const uint64_t low = absl::Uint128Low64(product), high = absl::Uint128High64(product);
  // product = high * 2^64 + low, and 2^61 = 1 modulo the prime: folded twice, the value is
  // at most 2^61, and the one subtraction leaves it in [0, prime), the same for equal products.
  uint64_t folded = (low & kPrime) + ((high << 3) | (low >> 61));
  folded = (folded & kPrime) + (folded >> 61);
  return folded >= kPrime ? folded - kPrime : folded;
}

uint64_t AddMod(uint64_t a, uint64_t b) {
  const uint64_t sum = a + b;
  return sum >= kPrime ? sum - kPrime : sum;
}

uint64_t PowMod(uint64_t base, uint64_t exponent) {
  uint64_t result = 1;
  for (; exponent > 0; exponent >>= 1) {
    if (exponent & 1) result = MulMod(result, base);
    base = MulMod(base, base);
  }
  return result;
}

uint64_t PolyHash(absl::string_view bytes) {
  uint64_t h = 0;
  for (unsigned char c : bytes) h = AddMod(MulMod(h, kBase), c + 1);
  return h;
}

}  // namespace

void LongTokens::Add(TokenId id, TokenId left, TokenId right, uint32_t rank,
                     const std::vector<std::string>& stored) {
  const uint64_t right_length = LengthOf(right, stored);
  Token token{left, right, rank, LengthOf(left, stored) + right_length, 0};
  token.hash =
      AddMod(MulMod(HashOf(left, stored), PowMod(kBase, right_length)), HashOf(right, stored));
  tokens_[id] = token;
  // Found only as the first token of its bytes (the one encoding produces).
  absl::InlinedVector<TokenId, 1>& same_hash = by_hash_[token.hash];
  for (TokenId other : same_hash) {
    if (tokens_.at(other).length == token.length && SameBytes(other, id, stored)) return;
  }
  same_hash.push_back(id);
}

std::optional<LongTokens::Found> LongTokens::Find(absl::string_view bytes,
                                                  const std::vector<std::string>& stored) const {
  if (bytes.size() <= kStoredBytes || tokens_.empty()) return std::nullopt;
  auto it = by_hash_.find(PolyHash(bytes));
  if (it == by_hash_.end()) return std::nullopt;
  for (TokenId id : it->second) {
    if (Equals(id, bytes, stored)) return Found{id, tokens_.at(id).rank};
  }
  return std::nullopt;
}

void LongTokens::ForEachPiece(TokenId id, const std::vector<std::string>& stored,
                              absl::FunctionRef<void(absl::string_view)> piece) const {
  std::vector<TokenId> stack = {id};
  while (!stack.empty()) {
    const TokenId t = stack.back();
    stack.pop_back();
    auto it = tokens_.find(t);
    if (it == tokens_.end()) {
      piece(stored[t]);
      continue;
    }
    stack.push_back(it->second.right);
    stack.push_back(it->second.left);
  }
}

void LongTokens::Append(TokenId id, const std::vector<std::string>& stored,
                        std::string* out) const {
  out->reserve(out->size() + LengthOf(id, stored));
  ForEachPiece(id, stored,
               [out](absl::string_view piece) { out->append(piece.data(), piece.size()); });
}

std::vector<TokenId> LongTokens::ids() const {
  std::vector<TokenId> out;
  out.reserve(tokens_.size());
  for (const auto& [id, token] : tokens_) out.push_back(id);
  return out;
}

bool LongTokens::Equals(TokenId id, absl::string_view bytes,
                        const std::vector<std::string>& stored) const {
  if (LengthOf(id, stored) != bytes.size()) return false;
  bool same = true;
  size_t at = 0;
  ForEachPiece(id, stored, [&](absl::string_view piece) {
    same = same && std::memcmp(piece.data(), bytes.data() + at, piece.size()) == 0;
    at += piece.size();
  });
  return same;
}

bool LongTokens::SameBytes(TokenId a, TokenId b, const std::vector<std::string>& stored) const {
  if (LengthOf(a, stored) != LengthOf(b, stored)) return false;
  // Tokens of the same bytes are rare (two merges that make one string): b is spelled out.
  std::string b_bytes;
  Append(b, stored, &b_bytes);
  return Equals(a, b_bytes, stored);
}

uint64_t LongTokens::LengthOf(TokenId id, const std::vector<std::string>& stored) const {
  auto it = tokens_.find(id);
  return it == tokens_.end() ? stored[id].size() : it->second.length;
}

uint64_t LongTokens::HashOf(TokenId id, const std::vector<std::string>& stored) const {
  auto it = tokens_.find(id);
  return it == tokens_.end() ? PolyHash(stored[id]) : it->second.hash;
}

}  // namespace bpeforge::internal
