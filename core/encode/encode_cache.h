// The encoder's cache of recent pre-tokens and their ids, one per thread, in three parts:
//
// - a direct-mapped table of short pre-tokens (short_key.h), up to three ids inline, asked
//   first whatever the hit rate: a hit costs two loads, a multiply and a compare, where the
//   path behind it hashes the bytes and probes the vocabulary and then this cache's map;
// - behind it, made only where the direct-mapped table misses often (text in many words, as
//   web text), a 2-way set-associative table of short pre-tokens of up to six ids. It is larger
//   than the processor's caches, so the encoder looks ahead: it prefetches a pre-token's sets
//   some pre-tokens before it looks them up, so that the misses overlap (Prefetch);
// - a bounded map of pre-tokens of any length up to the caller's limit, bypassed for a while
//   when fewer than half of a window's lookups hit it (text whose pre-tokens rarely repeat).
//
// A hit gives the ids that merging would give: the cache holds results only.
//
//   EncodeCache cache;
//   const ShortKey key = PackShortKey(piece);
//   if (!cache.FindDirect(key, &ids) && !cache.FindTwoWay(key, &ids)) {
//     ...  // merge piece's bytes into ids
//     cache.InsertShort(key, ids);
//   }
#ifndef BPEFORGE_CORE_ENCODE_ENCODE_CACHE_H_
#define BPEFORGE_CORE_ENCODE_ENCODE_CACHE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/internal/huge_pages.h"
#include "core/internal/short_key.h"
#include "core/internal/types.h"

namespace bpeforge::internal {

// Not thread-safe: one per thread. Bounded: the map starts over when full.
class EncodeCache {
 public:
  explicit EncodeCache(size_t max_entries = 1 << 16) : max_entries_(max_entries) {}

  // The map: the cached ids of `piece`, or false. While bypassed, Find misses at once and
  // Insert keeps nothing.
  bool Find(absl::string_view piece, std::vector<TokenId>* out);
  void Insert(absl::string_view piece, absl::Span<const TokenId> ids);
  size_t size() const { return index_.size(); }

  // A flag that, once it reads true, lets the encoding done with this cache end early, the ids
  // then incomplete (for the caller that set it, which discards them): the text between two
  // special tokens under a custom pattern, and a pre-token of megabytes, each take seconds.
  void set_stop(const std::atomic<bool>* stop) { stop_ = stop; }
  const std::atomic<bool>* stop() const { return stop_; }

  // The direct-mapped table: the ids of `key`, or false.
  bool FindDirect(const ShortKey& key, std::vector<TokenId>* out) const {
    if (direct_ == nullptr) return false;
    const DirectSlot& slot = direct_[ShortKeySlot(key, direct_bits_)];
    if (slot.size == 0 || !(slot.key == key)) return false;
    // One to three ids: push_back each, where insert() would call memmove, which costs more
    // than the copy.
    for (uint32_t i = 0; i < slot.size; ++i) out->push_back(slot.ids[i]);
    return true;
  }
  // The 2-way set-associative table, asked after FindDirect: a hit is copied into the
  // direct-mapped table too.
  bool FindTwoWay(const ShortKey& key, std::vector<TokenId>* out);
  bool has_two_way() const { return two_way_ != nullptr; }
  // Keeps the ids of `key` (a miss of both tables) in the direct-mapped table (up to three)
  // and the 2-way table, in place of what their slots held.
  void InsertShort(const ShortKey& key, absl::Span<const TokenId> ids);
  // Starts fetching key's slot in the direct-mapped table and its set in the 2-way table,
  // without looking whether the direct-mapped table holds it: that test would wait on the
  // slot, and the fetch would start too late. GCC 12 at -O3 also dropped a __builtin_prefetch
  // placed behind that test.
  void Prefetch(const ShortKey& key) const {
    if (two_way_ == nullptr) return;
    __builtin_prefetch(&direct_[ShortKeySlot(key, direct_bits_)]);
    __builtin_prefetch(&two_way_[SetOf(key)]);
  }
  // Counts `n` lookups of FindDirect, for the choice of the 2-way table. The encoder's loop
  // adds them up after each text: a count in FindDirect slowed its hits.
  void CountLookups(uint64_t n) { direct_lookups_ += n; }

  // The direct-mapped table starts small enough for L2 and grows once this many pre-tokens
  // have missed it, keeping what it holds: web text's pre-tokens hit the large one far more
  // often, but a short text (an API call on a few KB) would pay more for zeroing the large one
  // than it saves.
  static constexpr int kSmallDirectBits = 12, kLargeDirectBits = 16;
  static constexpr uint32_t kGrowAfterMisses = 1 << 14;
  // The 2-way table has 2^kTwoWayBits sets of two entries, one cache line each. It is made once
  // the large direct-mapped table has missed kTwoWayAfterMisses more pre-tokens...
  static constexpr int kTwoWayBits = 20;
  static constexpr uint32_t kTwoWayAfterMisses = 1 << 18;
  // ... and only if at least this share of the lookups missed meanwhile (web text does).
  // Where the direct-mapped table seldom misses (TinyStories-like text), the look-ahead costs
  // more than the 2-way table saves; the count starts again.
  static constexpr uint32_t kTwoWayFromMissShare = 8;  // 1/8

  static constexpr uint32_t kBypassWindow = 1 << 13;   // lookups whose hit rate decides
  static constexpr uint32_t kBypassLookups = 1 << 17;  // lookups that miss while bypassed

 private:
  struct Slice {
    uint32_t begin, size;
  };
  struct DirectSlot {
    ShortKey key;
    TokenId ids[3];
    uint32_t size;  // 0: empty
  };
  // An entry of the 2-way table: the key, and up to six ids below 2^20 packed three to a word,
  // their number in the top bits of the second word. The pre-tokens that reach it merge into
  // a few ids, nearly all of them into six or fewer; the others, and the ids of vocabularies
  // beyond 2^20, are merged each time.
  struct TwoWayEntry {
    static constexpr size_t kMaxIds = 6;
    static constexpr uint64_t kIdMask = (uint64_t{1} << 20) - 1;
    static bool Fits(absl::Span<const TokenId> ids) {
      if (ids.size() > kMaxIds) return false;
      for (TokenId id : ids) {
        if (id > kIdMask) return false;
      }
      return true;
    }
    TwoWayEntry() = default;
    TwoWayEntry(const ShortKey& k, absl::Span<const TokenId> ids)  // ids that Fit
        : key(k), words{0, uint64_t{ids.size()} << 60} {
      for (size_t i = 0; i < ids.size(); ++i) words[i / 3] |= uint64_t{ids[i]} << (20 * (i % 3));
    }
    size_t size() const { return words[1] >> 60; }
    TokenId Id(size_t i) const { return (words[i / 3] >> (20 * (i % 3))) & kIdMask; }

    // An empty entry is all zero, which no key is: its length, in the top byte, is not 0.
    bool empty() const { return key.hi == 0; }

    ShortKey key;
    uint64_t words[2];
  };
  // A set: two entries in one cache line, the most recently used first and a newcomer
  // second: twice the pre-tokens of one entry a line in the same memory, and a second chance
  // where two collide.
  struct alignas(64) TwoWaySet {
    TwoWayEntry way[2];
  };
  static constexpr size_t kTwoWayBytes = sizeof(TwoWaySet) << kTwoWayBits;
  struct FreeTwoWay {
    void operator()(TwoWaySet* p) const { FreeMaybeHuge(p, kTwoWayBytes); }
  };
  // Keeps `ids` in key's direct-mapped slot, in place of what it held, if they fit (up to
  // three).
  void PutDirect(const ShortKey& key, absl::Span<const TokenId> ids);
  // Moves the direct-mapped table's entries into one of kLargeDirectBits.
  void GrowDirect();
  static size_t SetOf(const ShortKey& key) { return ShortKeySlot(key, kTwoWayBits); }

  std::unique_ptr<DirectSlot[]> direct_;  // made at the first insert
  int direct_bits_ = kSmallDirectBits;
  uint32_t direct_misses_ = 0;
  uint64_t direct_lookups_ = 0;
  std::unique_ptr<TwoWaySet[], FreeTwoWay> two_way_;  // zeroed pages, made by InsertShort
  size_t max_entries_;
  uint32_t lookups_ = 0, hits_ = 0, bypass_left_ = 0;
  absl::flat_hash_map<std::string, Slice> index_;
  std::vector<TokenId> ids_;
  const std::atomic<bool>* stop_ = nullptr;
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_ENCODE_ENCODE_CACHE_H_
