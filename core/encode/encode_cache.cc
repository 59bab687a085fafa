// The encoder's cache of recent pre-tokens (EncodeCache in tokenizer.h): a direct-mapped front,
// the far table behind it, and a bounded map of longer pre-tokens.
#include <iterator>
#include <memory>
#include <utility>

#include "core/encode/tokenizer.h"

namespace bpeforge::internal {

bool EncodeCache::Find(absl::string_view piece, std::vector<TokenId>* out) {
  if (aside_ > 0) {
    --aside_;
    return false;
  }
  if (++lookups_ == kWindow) {
    if (hits_ < kWindow / 2) aside_ = kStandAside;
    lookups_ = hits_ = 0;
  }
  auto it = index_.find(piece);
  if (it == index_.end()) return false;
  ++hits_;
  const TokenId* begin = ids_.data() + it->second.begin;
  out->insert(out->end(), begin, begin + it->second.size);
  return true;
}

bool EncodeCache::FindFar(const ShortKey& key, std::vector<TokenId>* out) {
  if (far_ == nullptr) return false;
  FarBucket& bucket = far_[FarSlotOf(key)];
  if (!(bucket.way[0].key == key)) {
    if (!(bucket.way[1].key == key)) return false;
    std::swap(bucket.way[0], bucket.way[1]);  // the most recently used first
  }
  const FarEntry& entry = bucket.way[0];
  const size_t size = entry.size();
  for (size_t i = 0; i < size; ++i) out->push_back(entry.Id(i));
  PutFront(key, absl::MakeConstSpan(*out).last(size));
  return true;
}

void EncodeCache::InsertShort(const ShortKey& key, absl::Span<const TokenId> ids) {
  if (max_entries_ == 0) return;
  if (short_ == nullptr) {
    short_ = std::make_unique<ShortSlot[]>(size_t{1} << short_bits_);
  } else if (short_bits_ < kLargeShortBits) {
    if (++short_misses_ == kGrowAfterMisses) {
      GrowShort();
      short_misses_ = 0;
      short_lookups_ = 0;
    }
  } else if (far_ == nullptr && ++short_misses_ == kFarAfterMisses) {
    if (short_misses_ >= short_lookups_ / kFarFromMissShare) {
      // Fresh pages are zero: every slot empty.
      far_.reset(static_cast<FarBucket*>(AllocateMaybeHuge(kFarBytes)));
    }
    short_misses_ = 0;
    short_lookups_ = 0;
  }
  if (far_ != nullptr && FarEntry::Fits(ids)) {
    FarBucket& bucket = far_[FarSlotOf(key)];
    // A pre-token new to the table takes the second way, and the first only once it is hit
    // there (FindFar): most of web text's pre-tokens that get this far are never seen again,
    // and put first they pushed out entries that had been hit (web text: 3% fewer pre-tokens
    // merged, encoding in 0.97-1.00 of the time, bench/RESULTS.md).
    bucket.way[bucket.way[0].empty() ? 0 : 1] = FarEntry(key, ids);
  }
  PutFront(key, ids);
}

void EncodeCache::PutFront(const ShortKey& key, absl::Span<const TokenId> ids) {
  if (ids.size() > std::size(ShortSlot{}.ids)) return;
  ShortSlot& slot = short_[ShortKeySlot(key, short_bits_)];
  slot.key = key;
  for (size_t i = 0; i < ids.size(); ++i) slot.ids[i] = ids[i];
  slot.size = static_cast<uint32_t>(ids.size());
}

void EncodeCache::GrowShort() {
  auto large = std::make_unique<ShortSlot[]>(size_t{1} << kLargeShortBits);
  for (size_t i = 0; i < (size_t{1} << short_bits_); ++i) {
    if (short_[i].size != 0) large[ShortKeySlot(short_[i].key, kLargeShortBits)] = short_[i];
  }
  short_ = std::move(large);
  short_bits_ = kLargeShortBits;
}

void EncodeCache::Insert(absl::string_view piece, absl::Span<const TokenId> ids) {
  if (max_entries_ == 0 || aside_ > 0) return;
  if (index_.size() >= max_entries_) {
    index_.clear();
    ids_.clear();
  }
  auto [it, inserted] = index_.try_emplace(
      piece, Slice{static_cast<uint32_t>(ids_.size()), static_cast<uint32_t>(ids.size())});
  if (inserted) ids_.insert(ids_.end(), ids.begin(), ids.end());
}

}  // namespace bpeforge::internal
