// Encoding text to token ids and back, with the semantics of tiktoken (and so of GPT-2):
// special tokens are matched first (leftmost, then longest); the text between them is cut by
// the pre-tokenizer pattern; a pre-token that is itself a token is that token, otherwise its
// bytes are merged pairwise, always joining the adjacent pair whose concatenation has the
// lowest rank, until no adjacent pair forms a token. Streaming encoding of text that arrives
// in pieces is in core/encode/stream_encoder.h.
#ifndef BPEFORGE_CORE_ENCODE_BPE_CODEC_H_
#define BPEFORGE_CORE_ENCODE_BPE_CODEC_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/encode/encode_cache.h"
#include "core/encode/long_tokens.h"
#include "core/internal/short_key.h"
#include "core/internal/types.h"
#include "core/pretokenize/pretokenizer.h"
#include "core/pretokenize/special_tokens.h"

namespace bpeforge::internal {

// A special token and, optionally, the id it must have. Without one it takes the id of an
// equal vocab entry if there is one, else the next free id.
struct SpecialToken {
  std::string text;
  std::optional<TokenId> id;
};

// Byte-level BPE both ways: text to ids (special tokens, pre-tokens, merges by rank) and ids
// to bytes. The public bpeforge::Tokenizer (api/tokenizer.cc) is one of these and its files.
class BpeCodec {
 public:
  // From a vocab (id -> bytes) and merges in rank order: the rank of a merge is its index.
  // Every single byte and every merge result must be in `vocab`; when two ids have the same
  // bytes the lower one is produced. `special_tokens` take their id from `vocab` when an
  // entry has the same bytes, else the next free ids in order.
  static absl::StatusOr<BpeCodec> Create(const Vocab& vocab, const Merges& merges,
                                         const std::vector<std::string>& special_tokens,
                                         Pattern pattern = Pattern::kGpt2,
                                         absl::string_view custom_regex = "");
  // As above, but an empty vocab entry is an id no token has (files that leave ids out), and
  // a special token may come with its id. A vocab entry that no merge makes is still a
  // pre-token's id when the whole pre-token is its bytes (as tiktoken looks a pre-token up
  // whole, and Hugging Face does with `ignore_merges`), unless `vocab_tokens_whole` is false
  // (Hugging Face without `ignore_merges`: merges alone).
  static absl::StatusOr<BpeCodec> CreateWithIds(const Vocab& vocab, const Merges& merges,
                                                const std::vector<SpecialToken>& special_tokens,
                                                Pattern pattern = Pattern::kGpt2,
                                                absl::string_view custom_regex = "",
                                                bool vocab_tokens_whole = true);
  // From tiktoken ranks (token bytes, rank); a token's id is its rank. All 256 single bytes
  // must be present, ranks must be distinct.
  static absl::StatusOr<BpeCodec> FromRanks(
      const std::vector<std::pair<std::string, TokenId>>& ranks,
      const std::vector<SpecialToken>& special_tokens, Pattern pattern = Pattern::kGpt2,
      absl::string_view custom_regex = "");

  class Builder;

  BpeCodec(BpeCodec&&) = default;
  BpeCodec& operator=(BpeCodec&&) = default;

  // `text` must be valid UTF-8 (Python strings always are); for other bytes the ids still
  // decode to the same bytes only if the pre-tokenizer tiles them, which is not promised.
  std::vector<TokenId> Encode(absl::string_view text) const;
  // Appends the ids of `text` to *out, using `cache` (one per thread).
  void Encode(absl::string_view text, EncodeCache* cache, std::vector<TokenId>* out) const;
  // As Encode, but special tokens are ordinary text.
  void EncodeOrdinary(absl::string_view text, EncodeCache* cache, std::vector<TokenId>* out) const;
  // Appends the ids of one pre-token.
  void EncodePreToken(absl::string_view piece, EncodeCache* cache, std::vector<TokenId>* out) const;
  // The same, for a pre-token whose text may be read up to `readable_end` (to pack its key).
  void EncodePreToken(absl::string_view piece, const char* readable_end, EncodeCache* cache,
                      std::vector<TokenId>* out) const;

  // Concatenated bytes of the ids; fails on an id that is not in the vocabulary.
  absl::StatusOr<std::string> DecodeBytes(absl::Span<const TokenId> ids) const;
  // DecodeBytes with ill-formed UTF-8 replaced by U+FFFD, as bytes.decode(errors="replace").
  absl::StatusOr<std::string> Decode(absl::Span<const TokenId> ids) const;
  // The bytes of one id, or nullopt if no token has it. A long token (long_tokens.h) is
  // spelled out at the first call and kept: AppendTokenBytes and ForEachTokenPiece do not keep
  // it.
  std::optional<absl::string_view> TokenBytes(TokenId id) const;
  bool HasToken(TokenId id) const;
  uint64_t TokenLength(TokenId id) const;  // in bytes (HasToken)
  // Appends the bytes of `id` (HasToken) to *out.
  void AppendTokenBytes(TokenId id, std::string* out) const;
  // Calls `piece` with the bytes of `id` (HasToken), left to right, in one piece or several.
  void ForEachTokenPiece(TokenId id, absl::FunctionRef<void(absl::string_view)> piece) const;

  // One more than the largest id (special tokens included).
  size_t id_limit() const { return decoder_.size(); }
  Pattern pattern() const { return pattern_; }
  // The regex of a kCustom pattern ("" for the others).
  const std::string& custom_regex() const { return custom_regex_; }
  const SpecialTokens& special_tokens() const { return specials_; }
  const std::vector<TokenId>& special_ids() const { return special_ids_; }  // by index
  const PreTokenizer& pretokenizer() const { return *pretokenizer_; }
  // The ids of each merge's two parts, in rank order, for a tokenizer made by a Builder (else
  // empty: the merges are the caller's).
  const std::vector<std::pair<TokenId, TokenId>>& merge_ids() const { return merge_ids_; }
  // The ids that byte pair merging gives `piece` (no whole-token shortcut, no cache). With
  // `stop`, as EncodeCache::set_stop says.
  void BytePairEncode(absl::string_view piece, std::vector<TokenId>* out,
                      const std::atomic<bool>* stop = nullptr) const;

  // What encoding one pre-token does, rank by rank. A token's rank is its merge's (256 + i for
  // merge i of a vocab and merges; a rank file's own rank), a single byte's below them all; a
  // vocab entry that no merge makes, looked up only whole, ranks after every merge, in id order
  // (the vocabulary grows by them last).
  // Cut to the tokens ranked below T (a vocabulary of its first T - 256 merges), encoding
  // applies the longest prefix of `ranks` that holds no rank of T or more (each round joins
  // the lowest-ranked pair there is; until one ranks T or more, both agree), and a pre-token
  // that is a token of rank `whole` below T is that token.
  struct MergeTrace {
    std::vector<uint32_t> ranks;  // of the joins, in order
    uint32_t whole = UINT32_MAX;  // the pre-token's own rank when it is a token of 2+ bytes
    std::vector<TokenId> ids;     // what EncodePreToken gives
  };
  void TraceMerges(absl::string_view piece, MergeTrace* trace) const;
  // The ranks of the vocabulary: 256 + its merges (a repeated merge result too) + its entries
  // that no merge makes, or one more than a rank file's largest rank. And one more than the
  // largest rank of a single byte (the least T that keeps every byte; 256 but for a rank file
  // that ranks a byte later).
  uint32_t rank_limit() const { return static_cast<uint32_t>(id_of_rank_.size()); }
  uint32_t byte_rank_limit() const {
    return *std::max_element(byte_ranks_.begin(), byte_ranks_.end()) + 1;
  }

 private:
  // Pre-tokens up to this many bytes use tiktoken's quadratic scan, which is fastest on short
  // input; longer ones a heap, so that a megabyte-long pre-token cannot take hours.
  static constexpr size_t kLongPiece = 64;

  // What a token is to the encoder: its merge rank and the id it is written as.
  struct Entry {
    uint32_t rank;
    TokenId id;
  };
  using EntryMap = absl::flat_hash_map<std::string, Entry>;

  BpeCodec() = default;
  // Builds the tables the encoder reads (bpe_codec_create.cc).
  static absl::StatusOr<BpeCodec> Finish(BpeCodec t, const std::vector<SpecialToken>& specials);
  // The rank of the token `bytes` (two bytes or more), or UINT32_MAX.
  uint32_t RankOf(absl::string_view bytes) const;
  // Inside a short piece's merge a token is named by its rank, which is as unique as its bytes
  // (a single byte's rank is never a pair's, see Create): the joined token's rank is then the
  // pair's rank and the next lookup's key at once, and its id is read once, at the end.
  // The rank of the token that tokens ranked `left` and `right` make joined, or UINT32_MAX.
  // Always inlined: called from each merging loop's instance, GCC stopped inlining it.
  [[gnu::always_inline]] uint32_t JoinRanks(uint32_t left, uint32_t right) const {
    if (left < dense_side_ && right < dense_side_) {
      return dense_joins_[size_t{left} * dense_side_ + right];
    }
    auto it = joins_.find(uint64_t{left} << 32 | right);
    return it == joins_.end() ? UINT32_MAX : it->second;
  }
  TokenId IdOf(absl::string_view bytes) const;  // of a mergeable token
  // The id of a pre-token that is a token whole (a mergeable one, or one of whole_only_).
  std::optional<TokenId> WholeToken(absl::string_view piece) const;
  // EncodePreToken, the key of a short piece packed already (`key` is null for a long one or
  // without a cache).
  void EncodePacked(absl::string_view piece, const ShortKey* key, EncodeCache* cache,
                    std::vector<TokenId>* out) const;
  // EncodeOrdinary with the pre-tokenizer's loop `loop`: a function per loop (WithLoop).
  template <typename Loop>
  static void EncodeOrdinaryWith(Loop loop, const BpeCodec& tokenizer, absl::string_view text,
                                 EncodeCache* cache, std::vector<TokenId>* out);
  class LookAheadQueue;  // pre-tokens on their way to EncodePacked while their slots are fetched
  // Byte pair merging of a short piece; `on_join(rank)` hears of each join.
  template <typename OnJoin>
  void MergeShortWith(absl::string_view piece, std::vector<TokenId>* out, OnJoin on_join) const;
  // The same for a long piece (long_merge.h); `on_join`, when given, hears of each join.
  void MergeLong(absl::string_view piece, std::vector<TokenId>* out, const std::atomic<bool>* stop,
                 std::optional<absl::FunctionRef<void(uint32_t)>> on_join = std::nullopt) const;

  Pattern pattern_ = Pattern::kGpt2;
  std::string custom_regex_;
  EntryMap encoder_;                  // the mergeable tokens: bytes -> rank, id
  std::vector<uint32_t> pair_ranks_;  // the two-byte tokens' ranks, by 256 * first + second
  std::vector<uint32_t> byte_ranks_;  // the single bytes' ranks
  std::vector<TokenId> byte_ids_;     // the single bytes
  std::vector<std::string> decoder_;  // id -> bytes; "" where no token has the id
  // Every way to cut a mergeable token into two: (left rank << 32 | right rank) -> the token's
  // rank, except those in dense_joins_. Merging inside a pre-token looks its pairs up by rank,
  // not by hashing joined bytes.
  absl::flat_hash_map<uint64_t, uint32_t> joins_;
  // The joins of two tokens ranked below dense_side_ (at most 1,024: the bytes and the first
  // merges, most of the joins merging asks for), at left * dense_side_ + right: the
  // rank joined, or kNoRank. One load from 4 MB, where the map above loads a control group and
  // then a slot.
  uint32_t dense_side_ = 0;
  std::vector<uint32_t> dense_joins_;
  std::vector<TokenId> id_of_rank_;  // for every mergeable token's rank
  // The mergeable tokens of up to kLongPiece bytes that merging their bytes does not make (a
  // vocabulary can hold them: "abcd" from "ab" + "cd" where "bc" ranks first). GPT-2's, cl100k's
  // and o200k's have none.
  absl::flat_hash_set<std::string> unmerged_tokens_;
  // Vocab entries that no merge makes, looked up only whole (CreateWithIds): bytes -> their
  // rank (after the merges') and id. Those of up to kLongPiece bytes are in unmerged_tokens_ too.
  EntryMap whole_only_;
  // The ranks the merges and whole_only_ take, at least: a repeated merge result takes none of
  // its own, but counts as a merge (Finish sizes id_of_rank_ by it).
  uint32_t ranks_ = 0;
  // The tokens merges make of more than LongTokens::kStoredBytes: not in encoder_, "" in
  // decoder_.
  LongTokens long_;
  std::vector<std::pair<TokenId, TokenId>> merge_ids_;  // Builder's
  // Their bytes as TokenBytes has spelled them out.
  struct Spelled {
    std::mutex mu;
    absl::node_hash_map<TokenId, std::string> tokens;
  };
  std::unique_ptr<Spelled> spelled_ = std::make_unique<Spelled>();
  SpecialTokens specials_;
  std::vector<TokenId> special_ids_;
  std::unique_ptr<const PreTokenizer> pretokenizer_;
  uint64_t serial_ = 0;  // tells this tokenizer's thread-local cache from another's
};

// A tokenizer of ids laid out as BuildVocab (core/train/vocab.h) lays them out, made one merge
// at a time from the merges' bytes: for a merges.txt read line by line, whose long tokens are
// then never held as bytes (long_tokens.h). It gives the tokenizer that Create gives the
// vocab BuildVocab makes of the same merges.
//
//   BpeCodec::Builder builder(special_tokens, IdLayout::kBytesFirst);
//   for (...) BPEFORGE_RETURN_IF_ERROR(builder.AddMerge(left, right));
//   absl::StatusOr<BpeCodec> t = std::move(builder).Finish({}, Pattern::kGpt2, "");
class BpeCodec::Builder {
 public:
  Builder(const std::vector<std::string>& special_tokens, IdLayout layout);
  // Adds the next merge: both parts must be tokens already (bytes or earlier merges' results).
  absl::Status AddMerge(absl::string_view left, absl::string_view right);
  // Ids so far.
  size_t size() const { return t_.decoder_.size(); }
  // Whether token `id` (below size()) has the bytes `bytes`.
  bool Is(TokenId id, absl::string_view bytes) const;
  // The tokenizer, with `extra_specials` after the layout's special tokens (at the next ids).
  absl::StatusOr<BpeCodec> Finish(const std::vector<std::string>& extra_specials, Pattern pattern,
                                  absl::string_view custom_regex) &&;

 private:
  std::optional<TokenId> Find(absl::string_view bytes) const;
  BpeCodec t_;
  std::vector<SpecialToken> specials_;  // with their ids
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_ENCODE_BPE_CODEC_H_
