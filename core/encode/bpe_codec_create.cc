// Making a BpeCodec (bpe_codec.h) from a vocab and merges or from tiktoken ranks: the tables
// the encoder looks tokens, ranks and joins up in.
#include <algorithm>
#include <atomic>
#include <memory>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/encode/bpe_codec.h"
#include "core/encode/long_merge.h"

namespace bpeforge::internal {
namespace {

// The joins of tokens ranked below this are in a dense table (BpeCodec::dense_joins_): it
// covers most of the joins that merging asks for, and larger and smaller sides encode in the
// same time.
constexpr size_t kDenseJoinSide = 1024;
// How far past the vocabulary a special token's given id may lie.
constexpr size_t kMaxSpecialIdGap = 1024;

uint64_t NextSerial() {
  static std::atomic<uint64_t> serial{0};
  return ++serial;
}

}  // namespace

absl::StatusOr<BpeCodec> BpeCodec::Create(const Vocab& vocab, const Merges& merges,
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

absl::StatusOr<BpeCodec> BpeCodec::CreateWithIds(const Vocab& vocab, const Merges& merges,
                                                 const std::vector<SpecialToken>& special_tokens,
                                                 Pattern pattern, absl::string_view custom_regex,
                                                 bool vocab_tokens_whole) {
  // The lowest id of each byte string in the vocab.
  absl::flat_hash_map<absl::string_view, TokenId> by_bytes;
  for (size_t id = 0; id < vocab.size(); ++id) {
    if (!vocab[id].empty()) by_bytes.try_emplace(vocab[id], static_cast<TokenId>(id));
  }
  BpeCodec t;
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

absl::StatusOr<BpeCodec> BpeCodec::FromRanks(
    const std::vector<std::pair<std::string, TokenId>>& ranks,
    const std::vector<SpecialToken>& special_tokens, Pattern pattern,
    absl::string_view custom_regex) {
  BpeCodec t;
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

absl::StatusOr<BpeCodec> BpeCodec::Finish(BpeCodec t, const std::vector<SpecialToken>& specials) {
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
    t.BytePairEncode(bytes, &merged);
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

}  // namespace bpeforge::internal
