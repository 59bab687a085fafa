// Counts by packed key (ShortKey, MediumKey), for the counting of a corpus with millions of
// distinct pre-tokens.
//
//   ShortKeyCounts counts;
//   counts.Prefetch(key);  // some time before
//   ++counts[key];
//   counts.ForEach([](const ShortKey& key, uint64_t n) { ... });
//
// One array of {key, count} slots, probed linearly from a home slot: a lookup reads the two
// cache lines its prefetch asked for. In absl::flat_hash_map the control bytes and the
// slots are two arrays, so a lookup that misses the caches waits for two lines, and the
// prefetch of the slot array fetches the first slot of the probed group, not the one found.
// With a million distinct pre-tokens per worker nearly every such lookup goes to memory,
// and the number of lines in flight is what bounds counting.
#ifndef BPEFORGE_CORE_COUNT_SHORT_KEY_COUNTS_H_
#define BPEFORGE_CORE_COUNT_SHORT_KEY_COUNTS_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/internal/huge_pages.h"
#include "core/internal/parallelism.h"
#include "core/internal/short_key.h"

namespace bpeforge::internal {

// What the table needs of a key: a hash, and a last word that no key holds while empty (the
// length byte 0xff, above any length).
template <typename Key>
struct PackedKeyTraits;
template <>
struct PackedKeyTraits<ShortKey> {
  static uint64_t Hash(const ShortKey& k) {
    return (k.lo ^ (k.hi * 0x9E3779B97F4A7C15u)) * 0xBF58476D1CE4E5B9u;
  }
  static uint64_t& Last(ShortKey& k) { return k.hi; }
  static uint64_t Last(const ShortKey& k) { return k.hi; }
};
template <>
struct PackedKeyTraits<MediumKey> {
  static uint64_t Hash(const MediumKey& k) {
    return ((k.w[0] ^ (k.w[1] * 0x9E3779B97F4A7C15u)) + (k.w[2] ^ (k.w[3] * 0xC2B2AE3D27D4EB4Fu))) *
           0xBF58476D1CE4E5B9u;
  }
  static uint64_t& Last(MediumKey& k) { return k.w[3]; }
  static uint64_t Last(const MediumKey& k) { return k.w[3]; }
};

template <typename Key>
class PackedKeyCounts {
 public:
  PackedKeyCounts() = default;
  PackedKeyCounts(PackedKeyCounts&& other) noexcept { Swap(other); }
  PackedKeyCounts& operator=(PackedKeyCounts&& other) noexcept {
    PackedKeyCounts(std::move(other)).Swap(*this);
    return *this;
  }
  ~PackedKeyCounts() { FreeMaybeHuge(slots_, capacity() * sizeof(Slot)); }

  size_t size() const { return size_; }
  size_t capacity() const { return slots_ == nullptr ? 0 : mask_ + 1; }

  // Starts fetching the lines of `key`'s home slot.
  void Prefetch(const Key& key) const {
    if (slots_ == nullptr) return;
    const Slot* slot = &slots_[Home(key)];
    __builtin_prefetch(slot);
    // And the next line, always: a slot of 24 or 40 bytes may end in it, and a probe goes on
    // into it when the home slot is taken (the table is up to three quarters full), so fetching
    // it only where the slot ends there would miss those probes.
    __builtin_prefetch(reinterpret_cast<const char*>(slot) + 64);
  }

  // The count of `key`, added at 0 if absent.
  uint64_t& operator[](const Key& key) {
    if (size_ >= grow_at_) Rehash(2 * capacity());
    for (size_t i = Home(key);; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.key == key) return slot.count;
      if (Traits::Last(slot.key) == kEmpty) {
        slot.key = key;
        ++size_;
        return slot.count;
      }
    }
  }
  // The count of `key`, or nullptr.
  uint64_t* Find(const Key& key) {
    if (slots_ == nullptr) return nullptr;
    for (size_t i = Home(key);; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.key == key) return &slot.count;
      if (Traits::Last(slot.key) == kEmpty) return nullptr;
    }
  }

  // Makes room for `n` keys without a rehash; a large new array's pages are first touched by
  // the workers of `parallelism`, if any.
  void Reserve(size_t n, const Parallelism& parallelism = {}) {
    size_t want = kMinCapacity;
    while (want / 4 * 3 < n) want *= 2;
    if (want > capacity()) Rehash(want, &parallelism);
  }

  template <typename Fn>  // fn(const Key&, uint64_t)
  void ForEach(Fn fn) const {
    ForEachInSlots(0, capacity(), fn);
  }
  // ForEach for the keys in slots [begin, end) (end <= capacity()), in slot order.
  template <typename Fn>
  void ForEachInSlots(size_t begin, size_t end, Fn fn) const {
    for (size_t i = begin; i < end; ++i) {
      if (Traits::Last(slots_[i].key) != kEmpty) fn(slots_[i].key, slots_[i].count);
    }
  }

  // Removes the keys for which pred(key, count) holds (called once for each key). What is left
  // goes into a table sized for it, in the same order. A large table's slots are read in
  // stretches by the workers of `parallelism` at once: pred is then called on several threads,
  // each key on one. (Training adds one worker's table into the other's this way, too long a
  // step for one thread.)
  template <typename Pred>
  void EraseIf(Pred pred, const Parallelism& parallelism = {}) {
    const size_t slots = capacity();
    const size_t parts = slots >= kSplitFromSlots ? Workers(parallelism) : 1;
    std::vector<std::vector<Slot>> kept(parts);
    RunParts(parallelism, parts, [&](size_t part) {
      kept[part].reserve(size_ / parts);
      ForEachInSlots(slots * part / parts, slots * (part + 1) / parts,
                     [&](const Key& key, uint64_t n) {
                       if (!pred(key, n)) kept[part].push_back(Slot{key, n});
                     });
    });
    size_t size = 0;
    for (const std::vector<Slot>& part : kept) size += part.size();
    PackedKeyCounts table;
    table.Reserve(size, parallelism);
    for (const std::vector<Slot>& part : kept) {
      for (const Slot& slot : part) table[slot.key] = slot.count;
    }
    Swap(table);
  }

 private:
  using Traits = PackedKeyTraits<Key>;
  struct Slot {
    Key key;
    uint64_t count;
  };
  static constexpr uint64_t kEmpty = ~uint64_t{0};  // as the last word: no key has length 0xff
  static constexpr size_t kMinCapacity = 1024;
  static constexpr size_t kSplitFromSlots = size_t{1} << 16;  // EraseIf's parts: from 1.5 MB

  size_t Home(const Key& key) const { return static_cast<size_t>(Traits::Hash(key) >> shift_); }
  // A large new array's pages are first touched by the workers of `fault_in`, if given.
  void Rehash(size_t capacity, const Parallelism* fault_in = nullptr);
  void Swap(PackedKeyCounts& other) noexcept {
    std::swap(slots_, other.slots_);
    std::swap(mask_, other.mask_);
    std::swap(shift_, other.shift_);
    std::swap(size_, other.size_);
    std::swap(grow_at_, other.grow_at_);
  }

  Slot* slots_ = nullptr;
  size_t mask_ = 0;
  int shift_ = 64;
  size_t size_ = 0;
  size_t grow_at_ = 0;  // at most three quarters full
};

extern template class PackedKeyCounts<ShortKey>;
extern template class PackedKeyCounts<MediumKey>;
using ShortKeyCounts = PackedKeyCounts<ShortKey>;
using MediumKeyCounts = PackedKeyCounts<MediumKey>;

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_COUNT_SHORT_KEY_COUNTS_H_
