// The table pre-tokens are counted into, at the speed of the pre-tokenizer (one per worker;
// the trainer then takes the plain PreTokenCounts map).
//
// Almost every pre-token is at most 15 bytes, so those are packed into a 16-byte key (bytes
// plus length) held inline in a ShortKeyCounts: no allocation, no pointer chase and a cheap
// compare per pre-token. Those of 16 to 31 bytes are packed into 32 bytes the same way
// (MediumKeyCounts); longer ones go to an absl::flat_hash_map keyed by string.
#ifndef BPEFORGE_CORE_COUNT_COUNTING_TABLE_H_
#define BPEFORGE_CORE_COUNT_COUNTING_TABLE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "core/count/short_key_counts.h"
#include "core/internal/huge_pages.h"
#include "core/internal/parallelism.h"
#include "core/internal/short_key.h"

namespace bpeforge::internal {

class CountingTable {
 public:
  void Add(absl::string_view token, uint64_t n = 1) {
    if (token.size() <= kMaxShort) {
      short_[PackShortKey(token)] += n;
    } else {
      AddLonger(token, n);
    }
  }

  // Add, for a token of a text whose bytes may be read up to `readable_end`: a short token
  // with 16 readable bytes is packed by two loads and masks, without branching on its length
  // (lengths vary from token to token, so those branches are mispredicted often).
  void Add(absl::string_view token, const char* readable_end) {
    if (token.size() <= kMaxShort) {
      short_[PackShortKeyReadable(token, readable_end)] += 1;
    } else {
      AddLonger(token, 1);
    }
  }

  // Once the table has outgrown the caches (a web corpus has millions of distinct
  // pre-tokens), most new slots miss all of them, and adding in batches pays (Batches, below).
  // While the table is small, plain Add is faster: its slots are still in the caches.
  bool PrefersBatches() const { return short_.capacity() >= kPrefetchFromSlots; }

  class Batches;      // below
  class RecentCache;  // below

  // (The frequent pre-tokens are in the table too: the small table only holds counts.)
  size_t size() const { return short_.size() + medium_.size() + long_.size(); }
  // Makes room for `n` distinct short pre-tokens, so that adding them never rehashes.
  void Reserve(size_t n) { short_.Reserve(n); }

  // Calls fn(bytes, count) for every distinct pre-token, in no particular order.
  void ForEach(absl::FunctionRef<void(absl::string_view, uint64_t)> fn) const;
  // ForEach for the part-th of `parts` stretches of the table (part < parts): the parts, one
  // after the other, call fn as ForEach does, in its order. Parts may be read at once.
  void ForEachInPart(size_t part, size_t parts,
                     absl::FunctionRef<void(absl::string_view, uint64_t)> fn) const;

  // Adds every count of `other` to this one.
  void MergeFrom(const CountingTable& other);
  // Adds the counts of the pre-tokens `other` holds too into `other`, and removes them from
  // this table, which keeps only those `other` lacks. `other` never grows (nor rehashes). The
  // workers of `parallelism` each take a stretch of the packed keys (EraseIf).
  void MoveCommonInto(CountingTable& other, const Parallelism& parallelism = {});
  // Leaves `tables` (one per worker, which may share pre-tokens) as at most two tables that
  // share none, with the same counts in all. The largest keeps its own; every other hands it
  // the pre-tokens they share, and what is left of the others is added up in the second. So
  // the largest never grows: adding all into it rehashed it into a fresh table twice its size,
  // every page of it touched for the first time. The workers of `parallelism`
  // share the reading of each other table (MoveCommonInto).
  static void MakeDisjoint(std::vector<CountingTable>& tables, const Parallelism& parallelism = {});

 private:
  static constexpr size_t kMaxShort = kMaxShortKey;
  static constexpr size_t kMaxMedium = kMaxMediumKey;
  // About 3 MB of slots, beyond a core's L2: below it prefetching costs more than it saves.
  static constexpr size_t kPrefetchFromSlots = size_t{1} << 17;
  // A token longer than kMaxShort.
  void AddLonger(absl::string_view token, uint64_t n) {
    if (token.size() <= kMaxMedium) {
      medium_[PackMediumKey(token)] += n;
    } else {
      long_[token] += n;
    }
  }
  ShortKeyCounts short_;
  MediumKeyCounts medium_;

  // The most frequent short pre-tokens' own table (see Batches), direct-mapped: a frequent
  // pre-token whose slot a more frequent one took is counted in the table. Every key in it is
  // in the table too; it only holds counts to add to theirs.
  struct HotSlot {
    ShortKey key;
    uint64_t count;
  };
  static constexpr uint64_t kEmptyHi = ~uint64_t{0};  // no key has a length byte of 0xff
  // 32,768 slots of 24 bytes (768 KB, in a core's 1 MB L2) for at most 16,384 of the most
  // frequent pre-tokens (most of the text).
  static constexpr int kHotBits = 15;
  static constexpr size_t kHotSlots = size_t{1} << kHotBits;
  // Chosen from the counts so far at the first batch, again when the table holds this many
  // short pre-tokens, and last at 16 times as many (the ranks at the top settle early).
  static constexpr size_t kHotFirst = size_t{1} << 16;
  static size_t HotIndex(const ShortKey& key) { return ShortKeySlot(key, kHotBits); }
  // The count of `key` in the small table.
  uint64_t HotCount(const ShortKey& key) const {
    if (hot_ == nullptr) return 0;
    const HotSlot& slot = hot_[HotIndex(key)];
    return slot.key == key ? slot.count : 0;
  }
  // Adds the small table's counts into the table, then fills it with the most frequent.
  void ChooseHot();
  // Adds the small table's counts into the table and drops it (the next batch chooses again).
  void FlushHot();
  std::unique_ptr<HotSlot[]> hot_;
  size_t hot_from_ = 0;  // short_.size() at which ChooseHot is next called
  struct LongKeyHash {   // transparent: looks up by string_view without a copy
    using is_transparent = void;
    size_t operator()(absl::string_view s) const { return absl::Hash<absl::string_view>{}(s); }
  };
  absl::flat_hash_map<std::string, uint64_t, LongKeyHash, std::equal_to<>,
                      HugePageAllocator<std::pair<const std::string, uint64_t>>>
      long_;

 public:
  // Adds pre-tokens to a large table, a batch at a time; all have been added once it goes out
  // of scope. Three things keep the misses of a table of hundreds of MB from queuing:
  // - The most frequent pre-tokens (most of the text) are counted in a small table
  //   of their own, which stays in the caches. In the table they lie one per cache line
  //   across all of it, and their lines keep leaving the caches (a probe in the small table
  //   first did not pay: its hit-or-miss branch is taken at random, so it is a compare and
  //   an add of 0 or 1).
  // - The others are prefetched, and added kAhead misses later, so that about that many are
  //   in flight at all times (a batch's own misses, four or so, were too few to overlap).
  // - The table is a ShortKeyCounts: a lookup reads a slot's line and the next, both
  //   prefetched, where absl::flat_hash_map's control bytes and slots were two places (and
  //   its slot prefetch often the wrong line).
  class Batches {
   public:
    static constexpr size_t kBatch = 16;
    explicit Batches(CountingTable& table) : table_(table) {}
    Batches(const Batches&) = delete;
    Batches& operator=(const Batches&) = delete;
    ~Batches() {
      for (size_t k = pending_ > kAhead ? pending_ - kAhead : 0; k < pending_; ++k) {
        ++table_.short_[ahead_[k % kAhead]];
      }
      for (size_t k = medium_pending_ > kMediumAhead ? medium_pending_ - kMediumAhead : 0;
           k < medium_pending_; ++k) {
        ++table_.medium_[medium_ahead_[k % kMediumAhead]];
      }
    }

    // Adds each of tokens[0..n) once, n <= kBatch; they are bytes of a text readable up to
    // `readable_end` (see PackShortKeyReadable).
    void Add(const absl::string_view* tokens, size_t n, const char* readable_end) {
      CountingTable& t = table_;
      if (t.short_.size() >= t.hot_from_) t.ChooseHot();
      ShortKey keys[kBatch];
      size_t missed = 0;
      for (size_t i = 0; i < n; ++i) {
        if (tokens[i].size() > kMaxShort) {
          AddLonger(tokens[i], readable_end);
          continue;
        }
        const ShortKey key = PackShortKeyReadable(tokens[i], readable_end);
        HotSlot& slot = t.hot_[HotIndex(key)];
        const bool hit = ((slot.key.lo ^ key.lo) | (slot.key.hi ^ key.hi)) == 0;
        slot.count += hit;
        keys[missed] = key;
        missed += !hit;
      }
      for (size_t i = 0; i < missed; ++i) {
        t.short_.Prefetch(keys[i]);
        ShortKey& due = ahead_[pending_ % kAhead];
        if (pending_ >= kAhead) ++t.short_[due];
        due = keys[i];
        ++pending_;
      }
    }

   private:
    // A token longer than kMaxShort: one of kMaxMedium bytes or fewer is prefetched too, and
    // added kMediumAhead such tokens later (few pre-tokens, but most often new ones, each of
    // which missed the caches in the map of strings).
    void AddLonger(absl::string_view token, const char* readable_end) {
      CountingTable& t = table_;
      if (token.size() > kMaxMedium) {
        ++t.long_[token];
        return;
      }
      const MediumKey key = PackMediumKeyReadable(token, readable_end);
      t.medium_.Prefetch(key);
      MediumKey& due = medium_ahead_[medium_pending_ % kMediumAhead];
      if (medium_pending_ >= kMediumAhead) ++t.medium_[due];
      due = key;
      ++medium_pending_;
    }

    static constexpr size_t kAhead = 32;
    static constexpr size_t kMediumAhead = 8;
    CountingTable& table_;
    ShortKey ahead_[kAhead];                // the last kAhead misses (fewer at first), prefetched
    uint64_t pending_ = 0;                  // misses so far
    MediumKey medium_ahead_[kMediumAhead];  // the same for tokens of up to kMaxMedium bytes
    uint64_t medium_pending_ = 0;
  };

 public:
  // A direct-mapped cache of recent short pre-tokens in front of the table while it is small,
  // for a chunk or for all of a worker's texts (packed as Add(token, readable_end) does). A hit
  // costs a multiply and two compares instead of the table's hashing and probing, and in
  // TinyStories-like text a few thousand words are most of the text. It flushes into the table
  // when it goes out of scope.
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
    // The batches that add pre-tokens once the table prefers them (PrefersBatches), kept from
    // one text to the next as the cache is: made anew for each text, they added a short text's
    // prefetched misses at its end, before the lines had come (and zeroed their buffers), which
    // slowed training on many short JSON Lines records.
    Batches& batches() {
      if (!batches_) batches_.emplace(table_);
      return *batches_;
    }
    // Inlined into each pre-tokenizer's loop (a call per pre-token measured slower; GCC
    // stopped inlining it once counting had a loop per built-in pattern).
    [[gnu::always_inline]] void Add(absl::string_view token, const char* readable_end) {
      if (token.size() > kMaxShort) {
        table_.AddLonger(token, 1);
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
    // 16,384 slots of 24 bytes (384 KB, beyond L1 but in a core's L2): against smaller caches,
    // the fewer collisions outweigh the larger footprint.
    static constexpr int kSlotBits = 14;
    static constexpr size_t kSlots = size_t{1} << kSlotBits;
    struct Slot {
      ShortKey key{0, 0};  // with count 0: empty (an empty token's key only adds to the count)
      uint64_t count = 0;
    };
    CountingTable& table_;
    std::unique_ptr<Slot[]> slots_;
    std::optional<Batches> batches_;  // adds its pending misses when destroyed
  };
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_COUNT_COUNTING_TABLE_H_
