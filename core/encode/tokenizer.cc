#include "core/encode/tokenizer.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/encode/long_merge.h"
#include "core/internal/utf8.h"
#include "core/pretokenize/inline_split.h"

namespace bpeforge::internal {
namespace {

// Pre-tokens up to this many bytes use tiktoken's quadratic scan, which is fastest on short
// input; longer ones a heap, so that a megabyte-long pre-token cannot take hours.
constexpr size_t kLongPiece = 64;
// Only pre-tokens up to this size are cached, so the cache's memory stays bounded.
constexpr size_t kMaxCachedPiece = 64;
// The joins of tokens ranked below this are in a dense table (Tokenizer::dense_joins_).
// Larger and smaller sides encode web text in the same time within the noise; 1,024 (4 MB)
// covers most of the joins.
constexpr size_t kDenseJoinSide = 1024;
// How far past the vocabulary a special token's given id may lie.
constexpr size_t kMaxSpecialIdGap = 1024;

#if defined(__GNUC__) && !defined(__clang__)
#define BPEFORGE_NO_MEMMOVE_IDIOM [[gnu::optimize("no-tree-loop-distribute-patterns")]]
#else
#define BPEFORGE_NO_MEMMOVE_IDIOM
#endif

uint64_t NextSerial() {
  static std::atomic<uint64_t> serial{0};
  return ++serial;
}

}  // namespace

absl::StatusOr<Tokenizer> Tokenizer::Create(const Vocab& vocab, const Merges& merges,
                                            const std::vector<std::string>& special_tokens,
                                            Pattern pattern, absl::string_view custom_regex) {
  for (size_t id = 0; id < vocab.size(); ++id) {
    if (vocab[id].empty())
      return absl::InvalidArgumentError(absl::StrCat("vocab id ", id, " is empty"));
  }
  std::vector<SpecialToken> specials;
  for (const std::string& s : special_tokens) specials.push_back({s, std::nullopt});
  return CreateWithIds(vocab, merges, specials, pattern, custom_regex);
}

absl::StatusOr<Tokenizer> Tokenizer::CreateWithIds(const Vocab& vocab, const Merges& merges,
                                                   const std::vector<SpecialToken>& special_tokens,
                                                   Pattern pattern, absl::string_view custom_regex,
                                                   bool vocab_tokens_whole) {
  // The lowest id of each byte string in the vocab.
  absl::flat_hash_map<absl::string_view, TokenId> by_bytes;
  for (size_t id = 0; id < vocab.size(); ++id) {
    if (!vocab[id].empty()) by_bytes.try_emplace(vocab[id], static_cast<TokenId>(id));
  }
  Tokenizer t;
  t.pattern_ = pattern;
  t.custom_regex_ = pattern == Pattern::kCustom ? std::string(custom_regex) : "";
  t.decoder_ = vocab;
  for (int b = 0; b < 256; ++b) {
    const std::string byte(1, static_cast<char>(b));
    auto it = by_bytes.find(byte);
    if (it == by_bytes.end()) {
      return absl::InvalidArgumentError(absl::StrFormat("vocab lacks the single byte 0x%02x", b));
    }
    // A single byte is never a pair, so its rank is never compared: the byte itself names it
    // apart from the merges' tokens (JoinRanks).
    t.encoder_.try_emplace(byte, Entry{static_cast<uint32_t>(b), it->second});
  }
  for (size_t i = 0; i < merges.size(); ++i) {
    const auto& [left, right] = merges[i];
    const std::string joined = left + right;
    for (const std::string* token : {&left, &right, &joined}) {
      if (!by_bytes.contains(*token)) {
        return absl::InvalidArgumentError(
            absl::StrCat("merge ", i + 1, " uses or makes a token missing from the vocab: \"",
                         absl::CHexEscape(*token), "\""));
      }
    }
    // Ranks above the bytes, in merge order; a repeated result keeps its first rank.
    t.encoder_.try_emplace(joined, Entry{static_cast<uint32_t>(256 + i), by_bytes[joined]});
  }
  t.ranks_ = static_cast<uint32_t>(256 + merges.size());
  if (vocab_tokens_whole) {
    absl::flat_hash_set<absl::string_view> special_texts;
    for (const SpecialToken& s : special_tokens) special_texts.insert(s.text);
    std::vector<std::pair<TokenId, absl::string_view>> whole_only;
    for (const auto& [bytes, id] : by_bytes) {
      if (!t.encoder_.contains(bytes) && !special_texts.contains(bytes)) {
        whole_only.emplace_back(id, bytes);
      }
    }
    // Ranked after the merges, in id order (TraceMerges).
    std::sort(whole_only.begin(), whole_only.end());
    for (const auto& [id, bytes] : whole_only)
      t.whole_only_.try_emplace(bytes, Entry{t.ranks_++, id});
  }
  // The long tokens the merges make are kept as their merges (long_tokens.h), not as bytes.
  for (size_t i = 0; i < merges.size(); ++i) {
    const auto& [left, right] = merges[i];
    if (left.size() + right.size() <= LongTokens::kStoredBytes) continue;
    auto it = t.encoder_.find(left + right);
    // An earlier merge's bytes: that one is found.
    if (it == t.encoder_.end() || it->second.rank != 256 + i) continue;
    t.long_.Add(it->second.id, by_bytes[left], by_bytes[right], it->second.rank, t.decoder_);
    t.encoder_.erase(it);
  }
  for (TokenId id : t.long_.ids()) std::string().swap(t.decoder_[id]);
  std::vector<SpecialToken> specials = special_tokens;
  for (SpecialToken& s : specials) {
    auto it = by_bytes.find(s.text);
    if (!s.id.has_value() && it != by_bytes.end()) s.id = it->second;
  }
  return Finish(std::move(t), specials);
}

absl::StatusOr<Tokenizer> Tokenizer::FromRanks(
    const std::vector<std::pair<std::string, TokenId>>& ranks,
    const std::vector<SpecialToken>& special_tokens, Pattern pattern,
    absl::string_view custom_regex) {
  Tokenizer t;
  t.pattern_ = pattern;
  t.custom_regex_ = pattern == Pattern::kCustom ? std::string(custom_regex) : "";
  for (const auto& [bytes, rank] : ranks) {
    if (bytes.empty()) return absl::InvalidArgumentError("a ranked token is empty");
    if (rank == kNoRank)
      return absl::InvalidArgumentError(absl::StrCat("rank ", rank, " is too large"));
    if (!t.encoder_.try_emplace(bytes, Entry{rank, rank}).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("token \"", absl::CHexEscape(bytes), "\" is ranked twice"));
    }
    if (rank >= t.decoder_.size()) t.decoder_.resize(size_t{rank} + 1);
    if (!t.decoder_[rank].empty()) {
      return absl::InvalidArgumentError(absl::StrCat("rank ", rank, " is used twice"));
    }
    t.decoder_[rank] = bytes;
  }
  for (int b = 0; b < 256; ++b) {
    if (!t.encoder_.contains(std::string(1, static_cast<char>(b)))) {
      return absl::InvalidArgumentError(absl::StrFormat("no rank for the single byte 0x%02x", b));
    }
  }
  return Finish(std::move(t), special_tokens);
}

absl::StatusOr<Tokenizer> Tokenizer::Finish(Tokenizer t,
                                            const std::vector<SpecialToken>& specials) {
  absl::flat_hash_map<std::string, TokenId> ids;
  // Given ids may leave a gap after the vocabulary (tiktoken's cl100k_base does), but a small
  // one: the decoder is sized by the largest id.
  const size_t id_bound = t.decoder_.size() + specials.size() + kMaxSpecialIdGap;
  for (const SpecialToken& s : specials) {
    if (s.text.empty()) return absl::InvalidArgumentError("a special token is empty");
    if (ids.contains(s.text)) continue;
    TokenId id = s.id.has_value() ? *s.id : static_cast<TokenId>(t.decoder_.size());
    if (id >= id_bound) {
      return absl::InvalidArgumentError(absl::StrCat(
          "special token \"", absl::CHexEscape(s.text), "\" has id ", id,
          "; special token ids must be below ", id_bound, " (the vocabulary's ", t.decoder_.size(),
          " ids + ", specials.size(), " special tokens + ", kMaxSpecialIdGap, ")"));
    }
    if (id >= t.decoder_.size()) t.decoder_.resize(size_t{id} + 1);
    if (t.long_.contains(id) || (!t.decoder_[id].empty() && t.decoder_[id] != s.text)) {
      return absl::InvalidArgumentError(absl::StrCat("special token \"", absl::CHexEscape(s.text),
                                                     "\" has id ", id, ", which is taken"));
    }
    t.decoder_[id] = s.text;
    ids[s.text] = id;
  }
  std::vector<std::string> texts;
  for (const SpecialToken& s : specials) texts.push_back(s.text);
  t.specials_ = SpecialTokens(texts);
  for (const std::string& s : t.specials_.tokens()) t.special_ids_.push_back(ids[s]);
  // Every piece starts as single bytes joined pairwise, so these small tables answer the
  // most frequent lookups without hashing.
  t.byte_ids_.resize(256);
  t.byte_ranks_.resize(256);
  t.pair_ranks_.assign(256 * 256, kNoRank);
  uint32_t rank_limit = t.ranks_;
  for (const auto& [bytes, entry] : t.encoder_) rank_limit = std::max(rank_limit, entry.rank + 1);
  for (TokenId id : t.long_.ids()) rank_limit = std::max(rank_limit, t.long_.rank(id) + 1);
  t.id_of_rank_.assign(rank_limit, 0);
  for (TokenId id : t.long_.ids()) t.id_of_rank_[t.long_.rank(id)] = id;
  for (const auto& [bytes, entry] : t.encoder_) {
    const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
    if (bytes.size() == 1) {
      t.byte_ids_[b[0]] = entry.id;
      t.byte_ranks_[b[0]] = entry.rank;
    }
    if (bytes.size() == 2) t.pair_ranks_[b[0] * 256 + b[1]] = entry.rank;
    t.id_of_rank_[entry.rank] = entry.id;
  }
  for (const auto& [bytes, entry] : t.whole_only_) t.id_of_rank_[entry.rank] = entry.id;
  // Only short pieces merge by rank, so only tokens that fit in one need their cuts: a longer
  // token would cost its length squared in hashing (a one-letter file's vocabulary has tokens
  // of megabytes). A pair of ranks names one token (the bytes of both, joined), so each cut is
  // written once, into the dense table or the map.
  t.dense_side_ = std::min<uint32_t>(rank_limit, kDenseJoinSide);
  t.dense_joins_.assign(size_t{t.dense_side_} * t.dense_side_, kNoRank);
  for (const auto& [bytes, entry] : t.encoder_) {
    if (bytes.size() > kLongPiece) continue;
    for (size_t cut = 1; cut < bytes.size(); ++cut) {
      auto left = t.encoder_.find(absl::string_view(bytes).substr(0, cut));
      if (left == t.encoder_.end()) continue;
      auto right = t.encoder_.find(absl::string_view(bytes).substr(cut));
      if (right == t.encoder_.end()) continue;
      const uint32_t l = left->second.rank, r = right->second.rank;
      if (l < t.dense_side_ && r < t.dense_side_) {
        t.dense_joins_[size_t{l} * t.dense_side_ + r] = entry.rank;
      } else {
        t.joins_.try_emplace(uint64_t{l} << 32 | r, entry.rank);
      }
    }
  }
  // A short pre-token that is a token is looked up only if merging its bytes does not make it
  // (EncodePreToken). Two bytes that are a token always join.
  std::vector<TokenId> merged;
  for (const auto& [bytes, entry] : t.encoder_) {
    if (bytes.size() <= 2 || bytes.size() > kLongPiece) continue;
    merged.clear();
    t.MergeShortWith(bytes, &merged, [](uint32_t) {});
    if (merged.size() != 1 || merged[0] != entry.id) t.unmerged_tokens_.insert(bytes);
  }
  for (const auto& [bytes, entry] : t.whole_only_) {
    if (bytes.size() <= kLongPiece) t.unmerged_tokens_.insert(bytes);
  }
  absl::StatusOr<std::unique_ptr<PreTokenizer>> pretokenizer =
      MakeAnyPreTokenizer(t.pattern_, t.custom_regex_);
  if (!pretokenizer.ok()) return pretokenizer.status();
  t.pretokenizer_ = *std::move(pretokenizer);
  t.serial_ = NextSerial();
  return t;
}

std::vector<TokenId> Tokenizer::Encode(absl::string_view text) const {
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

void Tokenizer::Encode(absl::string_view text, EncodeCache* cache,
                       std::vector<TokenId>* out) const {
  if (specials_.empty()) return EncodeOrdinary(text, cache, out);
  specials_.Split(
      text, [&](absl::string_view piece) { EncodeOrdinary(piece, cache, out); },
      [&](size_t index) { out->push_back(special_ids_[index]); });
}

// With the far table, each pre-token waits kLag places in a ring before it is encoded: a short
// one has its slots in the front and the far table fetched meanwhile. Its steps are calls, not a
// second copy of each pre-tokenizer's loop: with that copy GCC stopped inlining push_back into the
// hits of the front (code growth), and TinyStories-like text encoded more slowly.
class Tokenizer::WaitingRing {
 public:
  WaitingRing(const Tokenizer& tokenizer, EncodeCache* cache, const char* readable_end,
              std::vector<TokenId>* out)
      : tokenizer_(tokenizer), cache_(cache), end_(readable_end), out_(out) {}

  [[gnu::noinline]] void Push(absl::string_view piece) {
    Waiting& w = ring_[next_];
    if (waiting_ == kLag) {
      Encode(w);
    } else {
      ++waiting_;
    }
    w.piece = piece;
    if (piece.size() <= kMaxShortKey) {
      w.key = PackShortKeyReadable(piece, end_);
      cache_->Prefetch(w.key);
    }
    next_ = (next_ + 1) & (kLag - 1);
  }
  // Encodes the pre-tokens still waiting.
  void Drain() {
    for (size_t i = waiting_; i > 0; --i) Encode(ring_[(next_ - i) & (kLag - 1)]);
    waiting_ = 0;
  }

 private:
  static constexpr size_t kLag = 8;  // a power of two
  struct Waiting {
    absl::string_view piece;
    ShortKey key;
  };
  void Encode(const Waiting& w) {
    tokenizer_.EncodePacked(w.piece, w.piece.size() <= kMaxShortKey ? &w.key : nullptr, cache_,
                            out_);
  }
  const Tokenizer& tokenizer_;
  EncodeCache* cache_;
  const char* end_;
  std::vector<TokenId>* out_;
  Waiting ring_[kLag];
  size_t next_ = 0, waiting_ = 0;
};

template <typename Loop>
[[gnu::noinline]] void Tokenizer::EncodeOrdinaryWith(Loop loop, const Tokenizer& tokenizer,
                                                     absl::string_view text, EncodeCache* cache,
                                                     std::vector<TokenId>* out) {
  const char* const end = text.data() + text.size();
  if (cache != nullptr && cache->has_far()) {
    WaitingRing ring(tokenizer, cache, end, out);
    loop(text, [&](absl::string_view piece) { ring.Push(piece); });
    ring.Drain();
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

void Tokenizer::EncodeOrdinary(absl::string_view text, EncodeCache* cache,
                               std::vector<TokenId>* out) const {
  WithLoop(
      *pretokenizer_, [&](auto loop) { EncodeOrdinaryWith(loop, *this, text, cache, out); },
      cache != nullptr ? cache->stop() : nullptr);
}

void Tokenizer::EncodePreToken(absl::string_view piece, EncodeCache* cache,
                               std::vector<TokenId>* out) const {
  EncodePreToken(piece, piece.data() + piece.size(), cache, out);
}

void Tokenizer::EncodePreToken(absl::string_view piece, const char* readable_end,
                               EncodeCache* cache, std::vector<TokenId>* out) const {
  if (cache != nullptr && piece.size() <= kMaxShortKey) {
    const ShortKey key = PackShortKeyReadable(piece, readable_end);
    cache->CountLookups(1);
    EncodePacked(piece, &key, cache, out);
  } else {
    EncodePacked(piece, nullptr, cache, out);
  }
}

void Tokenizer::EncodePacked(absl::string_view piece, const ShortKey* key, EncodeCache* cache,
                             std::vector<TokenId>* out) const {
  if (key != nullptr &&
      (cache->FindShort(*key, out) || (cache->has_far() && cache->FindFar(*key, out)))) {
    return;
  }
  const size_t before = out->size();
  // As tiktoken: a pre-token that is a token is that token, merges or not. Merging a short
  // one's bytes makes it, unless it is one of unmerged_tokens_, so only the long ones and those
  // are looked up: of web text's pre-tokens that get here, 94% are not tokens, and the lookup
  // missed in a table of megabytes (0.94 of the time of encoding, bench/RESULTS.md).
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

std::optional<TokenId> Tokenizer::WholeToken(absl::string_view piece) const {
  if (auto it = encoder_.find(piece); it != encoder_.end()) return it->second.id;
  if (auto found = long_.Find(piece, decoder_)) return found->id;
  if (whole_only_.empty()) return std::nullopt;
  auto it = whole_only_.find(piece);
  if (it == whole_only_.end()) return std::nullopt;
  return it->second.id;
}

uint32_t Tokenizer::RankOf(absl::string_view bytes) const {
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

void Tokenizer::BytePairEncode(absl::string_view piece, std::vector<TokenId>* out,
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

void Tokenizer::TraceMerges(absl::string_view piece, MergeTrace* trace) const {
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
BPEFORGE_NO_MEMMOVE_IDIOM void Tokenizer::MergeShortWith(absl::string_view piece,
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
void Tokenizer::MergeLong(absl::string_view piece, std::vector<TokenId>* out,
                          const std::atomic<bool>* stop,
                          std::optional<absl::FunctionRef<void(uint32_t)>> on_join) const {
  MergeLongPiece(
      piece, [this](absl::string_view bytes) { return RankOf(bytes); },
      [&](absl::string_view part) { out->push_back(IdOf(part)); }, stop, on_join);
}

TokenId Tokenizer::IdOf(absl::string_view bytes) const {
  if (bytes.size() > LongTokens::kStoredBytes) return long_.Find(bytes, decoder_)->id;
  return encoder_.find(bytes)->second.id;
}

bool Tokenizer::HasToken(TokenId id) const {
  return id < decoder_.size() && (!decoder_[id].empty() || long_.contains(id));
}

uint64_t Tokenizer::TokenLength(TokenId id) const {
  return long_.contains(id) ? long_.length(id) : decoder_[id].size();
}

void Tokenizer::AppendTokenBytes(TokenId id, std::string* out) const {
  if (long_.contains(id)) {
    long_.Append(id, decoder_, out);
  } else {
    out->append(decoder_[id]);
  }
}

void Tokenizer::ForEachTokenPiece(TokenId id,
                                  absl::FunctionRef<void(absl::string_view)> piece) const {
  if (long_.contains(id)) {
    long_.ForEachPiece(id, decoder_, piece);
  } else {
    piece(decoder_[id]);
  }
}

std::optional<absl::string_view> Tokenizer::TokenBytes(TokenId id) const {
  if (!HasToken(id)) return std::nullopt;
  if (!long_.contains(id)) return decoder_[id];
  // Spelled out once asked for, and kept for the views handed out.
  std::lock_guard<std::mutex> lock(spelled_->mu);
  auto [it, inserted] = spelled_->tokens.try_emplace(id);
  if (inserted) long_.Append(id, decoder_, &it->second);
  return it->second;
}

absl::StatusOr<std::string> Tokenizer::DecodeBytes(absl::Span<const TokenId> ids) const {
  std::string text;
  for (TokenId id : ids) {
    if (!HasToken(id)) {
      return absl::InvalidArgumentError(absl::StrCat("id ", id, " is not in the vocabulary"));
    }
    AppendTokenBytes(id, &text);
  }
  return text;
}

absl::StatusOr<std::string> Tokenizer::Decode(absl::Span<const TokenId> ids) const {
  absl::StatusOr<std::string> bytes = DecodeBytes(ids);
  if (!bytes.ok()) return bytes.status();
  return ReplaceInvalidUtf8(*bytes);
}

}  // namespace bpeforge::internal
