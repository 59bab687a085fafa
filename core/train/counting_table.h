// The table pre-tokens are counted into, at the speed of the pre-tokenizer (one per worker;
// the trainer then takes the plain PreTokenCounts map).
//
// Almost every pre-token is at most 15 bytes, so those are packed into a 16-byte key (bytes
// plus length) held inline in an absl::flat_hash_map: no allocation,
// no pointer chase and a cheap compare per pre-token. Longer ones go to a map keyed by string.
#ifndef BPEFORGE_CORE_TRAIN_COUNTING_TABLE_H_
#define BPEFORGE_CORE_TRAIN_COUNTING_TABLE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "core/internal/huge_pages.h"
#include "core/internal/short_key.h"

namespace bpeforge::internal {

class CountingTable {
 public:
  void Add(absl::string_view token, uint64_t n = 1) {
    if (token.size() <= kMaxShort) {
      short_[PackShortKey(token)] += n;
    } else {
      long_[token] += n;
    }
  }

  // Add, for a token of a text whose bytes may be read up to `readable_end`: a short token
  // with 16 readable bytes is packed by two loads and masks, without branching on its length
  // (lengths vary from token to token, so those branches are mispredicted often).
  void Add(absl::string_view token, const char* readable_end) {
    if (token.size() <= kMaxShort) {
      short_[PackShortKeyReadable(token, readable_end)] += 1;
    } else {
      long_[token] += 1;
    }
  }

  // Once the table has outgrown the caches (a web corpus has millions of distinct
  // pre-tokens), most new slots miss all of them, and adding in batches pays: AddBatch
  // prefetches a batch's slots first, so the misses overlap instead of queuing. While the
  // table is small, plain Add is faster (measured: batching cost 12% on TinyStories-like
  // text).
  bool PrefersBatches() const { return short_.capacity() >= kPrefetchFromSlots; }

  // Adds each of tokens[0..n) once, n <= kBatch.
  static constexpr size_t kBatch = 16;
  void AddBatch(const absl::string_view* tokens, size_t n, const char* readable_end) {
    ShortKey keys[kBatch];
    for (size_t i = 0; i < n; ++i) {
      if (tokens[i].size() <= kMaxShort) {
        keys[i] = PackShortKeyReadable(tokens[i], readable_end);
        short_.prefetch(keys[i]);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (tokens[i].size() <= kMaxShort) {
        ++short_[keys[i]];
      } else {
        ++long_[tokens[i]];
      }
    }
  }

  class RecentCache;  // below

  size_t size() const { return short_.size() + long_.size(); }
  // Makes room for `n` distinct short pre-tokens, so that adding them never rehashes.
  void Reserve(size_t n) { short_.reserve(n); }

  // Calls fn(bytes, count) for every distinct pre-token, in no particular order.
  void ForEach(absl::FunctionRef<void(absl::string_view, uint64_t)> fn) const;

  // Adds every count of `other` to this one.
  void MergeFrom(const CountingTable& other);
  // Adds the counts of the pre-tokens `other` holds too into `other`, and removes them from
  // this table, which keeps only those `other` lacks. `other` never grows (nor rehashes).
  void MoveCommonInto(CountingTable& other);

 private:
  static constexpr size_t kMaxShort = kMaxShortKey;
  // About 3 MB of slots, beyond a core's L2: below it prefetching costs more than it saves.
  static constexpr size_t kPrefetchFromSlots = size_t{1} << 17;
  struct ShortKeyHash {
    size_t operator()(const ShortKey& k) const {
      // Abseil's mixing of the two words: measured faster here than a plain folded multiply,
      // whose weaker low bits cost SwissTable more tag collisions.
      return absl::Hash<std::pair<uint64_t, uint64_t>>{}({k.lo, k.hi});
    }
  };

  absl::flat_hash_map<ShortKey, uint64_t, ShortKeyHash, std::equal_to<ShortKey>,
                      HugePageAllocator<std::pair<const ShortKey, uint64_t>>>
      short_;
  struct LongKeyHash {  // transparent: looks up by string_view without a copy
    using is_transparent = void;
    size_t operator()(absl::string_view s) const { return absl::Hash<absl::string_view>{}(s); }
  };
  absl::flat_hash_map<std::string, uint64_t, LongKeyHash, std::equal_to<>,
                      HugePageAllocator<std::pair<const std::string, uint64_t>>>
      long_;

 public:
  // A direct-mapped cache of recent short pre-tokens in front of the table while it is small,
  // for a chunk or for all of a worker's texts (packed as Add(token, readable_end) does). A hit
  // costs a multiply and two compares instead of the table's hashing and probing: on
  // TinyStories-like text, where a few thousand words are most of the text, counting takes 0.79
  // of the time (bench/RESULTS.md). It flushes into the table when it goes out of scope.
  class RecentCache {
   public:
    explicit RecentCache(CountingTable& table) : table_(table), slots_(new Slot[kSlots]()) {}
    RecentCache(const RecentCache&) = delete;
    RecentCache& operator=(const RecentCache&) = delete;
    ~RecentCache() {
      for (size_t i = 0; i < kSlots; ++i) {
        if (slots_[i].count != 0) table_.short_[slots_[i].key] += slots_[i].count;
      }
    }
    CountingTable& table() { return table_; }
    // Inlined into each pre-tokenizer's loop (a call per pre-token measured slower; GCC
    // stopped inlining it once counting had a loop per built-in pattern).
    [[gnu::always_inline]] void Add(absl::string_view token, const char* readable_end) {
      if (token.size() > kMaxShort) {
        table_.long_[token] += 1;
        return;
      }
      const ShortKey key = PackShortKeyReadable(token, readable_end);
      Slot& slot = slots_[ShortKeySlot(key, kSlotBits)];
      if (slot.key == key) {
        ++slot.count;
        return;
      }
      if (slot.count != 0) table_.short_[slot.key] += slot.count;
      slot.key = key;
      slot.count = 1;
    }

   private:
    // 16,384 slots of 24 bytes (384 KB, beyond L1 but in a core's L2): measured against 4,096
    // and 8,192 with the scanner's loop inlined, the fewer collisions outweigh the larger
    // footprint (bench/RESULTS.md).
    static constexpr int kSlotBits = 14;
    static constexpr size_t kSlots = size_t{1} << kSlotBits;
    struct Slot {
      ShortKey key{0, 0};  // with count 0: empty (an empty token's key only adds to the count)
      uint64_t count = 0;
    };
    CountingTable& table_;
    std::unique_ptr<Slot[]> slots_;
  };
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_COUNTING_TABLE_H_
