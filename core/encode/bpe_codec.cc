#include "core/encode/bpe_codec.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/encode/long_merge.h"
#include "core/internal/utf8.h"
#include "core/pretokenize/inline_split.h"

namespace bpeforge::internal {
namespace {

// Only pre-tokens up to this size are cached, so the cache's memory stays bounded.
constexpr size_t kMaxCachedPiece = 64;

#if defined(__GNUC__) && !defined(__clang__)
#define BPEFORGE_NO_MEMMOVE_IDIOM [[gnu::optimize("no-tree-loop-distribute-patterns")]]
#else
#define BPEFORGE_NO_MEMMOVE_IDIOM
#endif

}  // namespace

std::vector<TokenId> BpeCodec::Encode(absl::string_view text) const {
  // Callers without a cache of their own share one per thread, reset when the tokenizer
  // changes, so that Encode stays const and thread-safe.
  thread_local uint64_t owner = 0;
  thread_local EncodeCache cache;
  if (owner != serial_) {
    cache = EncodeCache();
    owner = serial_;
  }
  std::vector<TokenId> ids;
  Encode(text, &cache, &ids);
  return ids;
}

void BpeCodec::Encode(absl::string_view text, EncodeCache* cache, std::vector<TokenId>* out) const {
  if (specials_.empty()) return EncodeOrdinary(text, cache, out);
  specials_.Split(
      text, [&](absl::string_view piece) { EncodeOrdinary(piece, cache, out); },
      [&](size_t index) { out->push_back(special_ids_[index]); });
}

// Look-ahead, once the cache has its 2-way table: each pre-token waits kDistance places in a
// queue before it is encoded, while its slots in both of the cache's tables are prefetched, so
// that those misses overlap the encoding of the pre-tokens before it. Its steps are calls, not a
// second copy of each pre-tokenizer's loop: with that copy GCC stopped inlining push_back into
// the direct-mapped table's hits (code growth), and TinyStories-like text encoded more slowly.
class BpeCodec::LookAheadQueue {
 public:
  LookAheadQueue(const BpeCodec& tokenizer, EncodeCache* cache, const char* readable_end,
                 std::vector<TokenId>* out)
      : tokenizer_(tokenizer), cache_(cache), end_(readable_end), out_(out) {}

  [[gnu::noinline]] void Push(absl::string_view piece) {
    Waiting& w = queue_[next_];
    if (waiting_ == kDistance) {
      Encode(w);
    } else {
      ++waiting_;
    }
    w.piece = piece;
    if (piece.size() <= kMaxShortKey) {
      w.key = PackShortKeyReadable(piece, end_);
      cache_->Prefetch(w.key);
    }
    next_ = (next_ + 1) & (kDistance - 1);
  }
  // Encodes the pre-tokens still waiting.
  void Drain() {
    for (size_t i = waiting_; i > 0; --i) Encode(queue_[(next_ - i) & (kDistance - 1)]);
    waiting_ = 0;
  }

 private:
  static constexpr size_t kDistance = 8;  // a power of two
  struct Waiting {
    absl::string_view piece;
    ShortKey key;
  };
  void Encode(const Waiting& w) {
    tokenizer_.EncodePacked(w.piece, w.piece.size() <= kMaxShortKey ? &w.key : nullptr, cache_,
                            out_);
  }
  const BpeCodec& tokenizer_;
  EncodeCache* cache_;
  const char* end_;
  std::vector<TokenId>* out_;
  Waiting queue_[kDistance];
  size_t next_ = 0, waiting_ = 0;
};

template <typename Loop>
[[gnu::noinline]] void BpeCodec::EncodeOrdinaryWith(Loop loop, const BpeCodec& tokenizer,
                                                    absl::string_view text, EncodeCache* cache,
                                                    std::vector<TokenId>* out) {
  const char* const end = text.data() + text.size();
  if (cache != nullptr && cache->has_two_way()) {
    LookAheadQueue queue(tokenizer, cache, end, out);
    loop(text, [&](absl::string_view piece) { queue.Push(piece); });
    queue.Drain();
    return;
  }
  uint64_t lookups = 0;
  loop(text, [&](absl::string_view piece) {
    if (cache != nullptr && piece.size() <= kMaxShortKey) {
      const ShortKey key = PackShortKeyReadable(piece, end);
      tokenizer.EncodePacked(piece, &key, cache, out);
      ++lookups;
    } else {
      tokenizer.EncodePacked(piece, nullptr, cache, out);
    }
  });
  if (cache != nullptr) cache->CountLookups(lookups);
}

void BpeCodec::EncodeOrdinary(absl::string_view text, EncodeCache* cache,
                              std::vector<TokenId>* out) const {
  WithLoop(
      *pretokenizer_, [&](auto loop) { EncodeOrdinaryWith(loop, *this, text, cache, out); },
      cache != nullptr ? cache->stop() : nullptr);
}

void BpeCodec::EncodePreToken(absl::string_view piece, EncodeCache* cache,
                              std::vector<TokenId>* out) const {
  EncodePreToken(piece, piece.data() + piece.size(), cache, out);
}

void BpeCodec::EncodePreToken(absl::string_view piece, const char* readable_end, EncodeCache* cache,
                              std::vector<TokenId>* out) const {
  if (cache != nullptr && piece.size() <= kMaxShortKey) {
    const ShortKey key = PackShortKeyReadable(piece, readable_end);
    cache->CountLookups(1);
    EncodePacked(piece, &key, cache, out);
  } else {
    EncodePacked(piece, nullptr, cache, out);
  }
}

void BpeCodec::EncodePacked(absl::string_view piece, const ShortKey* key, EncodeCache* cache,
                            std::vector<TokenId>* out) const {
  if (key != nullptr &&
      (cache->FindDirect(*key, out) || (cache->has_two_way() && cache->FindTwoWay(*key, out)))) {
    return;
  }
  const size_t before = out->size();
  // As tiktoken: a pre-token that is a token is that token, merges or not. Merging a short
  // one's bytes makes it, unless it is one of unmerged_tokens_, so only the long ones and those
  // are looked up: most of web text's pre-tokens that get here are not tokens, and the lookup
  // would miss in a table larger than the processor's caches.
  std::optional<TokenId> whole;
  if (piece.size() > kLongPiece ||
      (!unmerged_tokens_.empty() && unmerged_tokens_.contains(piece))) {
    whole = WholeToken(piece);
  }
  if (whole.has_value()) {
    out->push_back(*whole);
  } else if (cache == nullptr || !cache->Find(piece, out)) {
    BytePairEncode(piece, out, cache != nullptr ? cache->stop() : nullptr);
    if (cache != nullptr && piece.size() <= kMaxCachedPiece) {
      cache->Insert(piece, absl::MakeConstSpan(*out).subspan(before));
    }
  }
  if (key != nullptr) cache->InsertShort(*key, absl::MakeConstSpan(*out).subspan(before));
}

std::optional<TokenId> BpeCodec::WholeToken(absl::string_view piece) const {
  if (auto it = encoder_.find(piece); it != encoder_.end()) return it->second.id;
  if (auto found = long_.Find(piece, decoder_)) return found->id;
  if (whole_only_.empty()) return std::nullopt;
  auto it = whole_only_.find(piece);
  if (it == whole_only_.end()) return std::nullopt;
  return it->second.id;
}

uint32_t BpeCodec::RankOf(absl::string_view bytes) const {
  if (bytes.size() == 2) {
    return pair_ranks_[static_cast<unsigned char>(bytes[0]) * 256 +
                       static_cast<unsigned char>(bytes[1])];
  }
  if (bytes.size() > LongTokens::kStoredBytes) {
    std::optional<LongTokens::Found> found = long_.Find(bytes, decoder_);
    return found.has_value() ? found->rank : kNoRank;
  }
  auto it = encoder_.find(bytes);
  return it == encoder_.end() ? kNoRank : it->second.rank;
}

void BpeCodec::BytePairEncode(absl::string_view piece, std::vector<TokenId>* out,
                              const std::atomic<bool>* stop) const {
  if (piece.size() <= 1) {
    if (piece.size() == 1) out->push_back(byte_ids_[static_cast<unsigned char>(piece[0])]);
    return;
  }
  if (piece.size() <= kLongPiece) {
    MergeShortWith(piece, out, [](uint32_t) {});
  } else {
    MergeLong(piece, out, stop);
  }
}

void BpeCodec::TraceMerges(absl::string_view piece, MergeTrace* trace) const {
  trace->ranks.clear();
  trace->ids.clear();
  trace->whole = kNoRank;
  if (piece.size() <= 1) {
    BytePairEncode(piece, &trace->ids);
    return;
  }
  auto record = [trace](uint32_t rank) { trace->ranks.push_back(rank); };
  if (piece.size() <= kLongPiece) {
    MergeShortWith(piece, &trace->ids, record);
  } else {
    MergeLong(piece, &trace->ids, nullptr, record);
  }
  // As EncodePacked: a pre-token that is a token is that token, one that merges make or one
  // looked up only whole.
  if (auto whole = encoder_.find(piece); whole != encoder_.end()) {
    trace->whole = whole->second.rank;
    trace->ids.assign(1, whole->second.id);
  } else if (auto found = long_.Find(piece, decoder_)) {
    trace->whole = found->rank;
    trace->ids.assign(1, found->id);
  } else if (auto only = whole_only_.find(piece); only != whole_only_.end()) {
    trace->whole = only->second.rank;
    trace->ids.assign(1, only->second.id);
  }
}

// tiktoken's byte_pair_merge on ranks: part i is a token's rank and the rank of the token that
// parts i and i+1 make joined (JoinRanks). Each round joins the leftmost pair of lowest rank.
// The parts are written field by field into a plain array: building each in a temporary and
// copying it stalls on store forwarding. GCC would make the shift after a join a call of
// memmove, which for the few parts moved costs more than the loop.
// Each join's rank goes to `on_join` (a no-op when encoding).
template <typename OnJoin>
BPEFORGE_NO_MEMMOVE_IDIOM void BpeCodec::MergeShortWith(absl::string_view piece,
                                                        std::vector<TokenId>* out,
                                                        OnJoin on_join) const {
  struct Part {
    uint32_t token;
    uint32_t pair;
  };
  Part parts[kLongPiece];
  const auto* bytes = reinterpret_cast<const unsigned char*>(piece.data());
  size_t n = piece.size();
  for (size_t i = 0; i + 1 < n; ++i) {
    parts[i].token = byte_ranks_[bytes[i]];
    parts[i].pair = pair_ranks_[bytes[i] * 256 + bytes[i + 1]];
  }
  parts[n - 1].token = byte_ranks_[bytes[n - 1]];
  parts[n - 1].pair = kNoRank;
  while (true) {
    size_t best = 0;
    uint32_t min_rank = kNoRank;
    for (size_t i = 0; i + 1 < n; ++i) {
      if (parts[i].pair < min_rank) {
        min_rank = parts[i].pair;
        best = i;
      }
    }
    if (min_rank == kNoRank) break;
    on_join(min_rank);
    parts[best].token = min_rank;
    for (size_t i = best + 1; i + 1 < n; ++i) parts[i] = parts[i + 1];
    --n;
    parts[best].pair = best + 1 < n ? JoinRanks(min_rank, parts[best + 1].token) : kNoRank;
    if (best > 0) parts[best - 1].pair = JoinRanks(parts[best - 1].token, min_rank);
  }
  for (size_t i = 0; i < n; ++i) out->push_back(id_of_rank_[parts[i].token]);
}

// The same merges for a long piece, in O(n log n) (long_merge.h).
void BpeCodec::MergeLong(absl::string_view piece, std::vector<TokenId>* out,
                         const std::atomic<bool>* stop,
                         std::optional<absl::FunctionRef<void(uint32_t)>> on_join) const {
  MergeLongPiece(
      piece, [this](absl::string_view bytes) { return RankOf(bytes); },
      [&](absl::string_view part) { out->push_back(IdOf(part)); }, stop, on_join);
}

TokenId BpeCodec::IdOf(absl::string_view bytes) const {
  if (bytes.size() > LongTokens::kStoredBytes) return long_.Find(bytes, decoder_)->id;
  return encoder_.find(bytes)->second.id;
}

bool BpeCodec::HasToken(TokenId id) const {
  return id < decoder_.size() && (!decoder_[id].empty() || long_.contains(id));
}

uint64_t BpeCodec::TokenLength(TokenId id) const {
  return long_.contains(id) ? long_.length(id) : decoder_[id].size();
}

void BpeCodec::AppendTokenBytes(TokenId id, std::string* out) const {
  if (long_.contains(id)) {
    long_.Append(id, decoder_, out);
  } else {
    out->append(decoder_[id]);
  }
}

void BpeCodec::ForEachTokenPiece(TokenId id,
                                 absl::FunctionRef<void(absl::string_view)> piece) const {
  if (long_.contains(id)) {
    long_.ForEachPiece(id, decoder_, piece);
  } else {
    piece(decoder_[id]);
  }
}

std::optional<absl::string_view> BpeCodec::TokenBytes(TokenId id) const {
  if (!HasToken(id)) return std::nullopt;
  if (!long_.contains(id)) return decoder_[id];
  // Spelled out once asked for, and kept for the views handed out.
  std::lock_guard<std::mutex> lock(spelled_->mu);
  auto [it, inserted] = spelled_->tokens.try_emplace(id);
  if (inserted) long_.Append(id, decoder_, &it->second);
  return it->second;
}

absl::StatusOr<std::string> BpeCodec::DecodeBytes(absl::Span<const TokenId> ids) const {
  std::string text;
  for (TokenId id : ids) {
    if (!HasToken(id)) {
      return absl::InvalidArgumentError(absl::StrCat("id ", id, " is not in the vocabulary"));
    }
    AppendTokenBytes(id, &text);
  }
  return text;
}

absl::StatusOr<std::string> BpeCodec::Decode(absl::Span<const TokenId> ids) const {
  absl::StatusOr<std::string> bytes = DecodeBytes(ids);
  if (!bytes.ok()) return bytes.status();
  return ReplaceInvalidUtf8(*bytes);
}

}  // namespace bpeforge::internal
