// EncodeCache (encode_cache.h): the direct-mapped table, the 2-way set-associative table
// behind it, and the bounded map of longer pre-tokens.
#include "core/encode/encode_cache.h"

#include <iterator>
#include <memory>
#include <utility>

namespace bpeforge::internal {

bool EncodeCache::Find(absl::string_view piece, std::vector<TokenId>* out) {
  if (bypass_left_ > 0) {
    --bypass_left_;
    return false;
  }
  if (++lookups_ == kBypassWindow) {
    if (hits_ < kBypassWindow / 2) bypass_left_ = kBypassLookups;
    lookups_ = hits_ = 0;
  }
  auto it = index_.find(piece);
  if (it == index_.end()) return false;
  ++hits_;
  const TokenId* begin = ids_.data() + it->second.begin;
  out->insert(out->end(), begin, begin + it->second.size);
  return true;
}

bool EncodeCache::FindTwoWay(const ShortKey& key, std::vector<TokenId>* out) {
  if (two_way_ == nullptr) return false;
  TwoWaySet& set = two_way_[SetOf(key)];
  if (!(set.way[0].key == key)) {
    if (!(set.way[1].key == key)) return false;
    std::swap(set.way[0], set.way[1]);  // the most recently used first
  }
  const TwoWayEntry& entry = set.way[0];
  const size_t size = entry.size();
  for (size_t i = 0; i < size; ++i) out->push_back(entry.Id(i));
  PutDirect(key, absl::MakeConstSpan(*out).last(size));
  return true;
}

void EncodeCache::InsertShort(const ShortKey& key, absl::Span<const TokenId> ids) {
  if (max_entries_ == 0) return;
  if (direct_ == nullptr) {
    direct_ = std::make_unique<DirectSlot[]>(size_t{1} << direct_bits_);
  } else if (direct_bits_ < kLargeDirectBits) {
    if (++direct_misses_ == kGrowAfterMisses) {
      GrowDirect();
      direct_misses_ = 0;
      direct_lookups_ = 0;
    }
  } else if (two_way_ == nullptr && ++direct_misses_ == kTwoWayAfterMisses) {
    if (direct_misses_ >= direct_lookups_ / kTwoWayFromMissShare) {
      // Fresh pages are zero: every entry empty.
      two_way_.reset(static_cast<TwoWaySet*>(AllocateMaybeHuge(kTwoWayBytes)));
    }
    direct_misses_ = 0;
    direct_lookups_ = 0;
  }
  if (two_way_ != nullptr && TwoWayEntry::Fits(ids)) {
    TwoWaySet& set = two_way_[SetOf(key)];
    // A pre-token new to the table takes the second way, and the first only once it is hit
    // there (FindTwoWay): most of web text's pre-tokens that get this far are never seen
    // again, and put first they pushed out entries that had been hit.
    set.way[set.way[0].empty() ? 0 : 1] = TwoWayEntry(key, ids);
  }
  PutDirect(key, ids);
}

void EncodeCache::PutDirect(const ShortKey& key, absl::Span<const TokenId> ids) {
  if (ids.size() > std::size(DirectSlot{}.ids)) return;
  DirectSlot& slot = direct_[ShortKeySlot(key, direct_bits_)];
  slot.key = key;
  for (size_t i = 0; i < ids.size(); ++i) slot.ids[i] = ids[i];
  slot.size = static_cast<uint32_t>(ids.size());
}

void EncodeCache::GrowDirect() {
  auto large = std::make_unique<DirectSlot[]>(size_t{1} << kLargeDirectBits);
  for (size_t i = 0; i < (size_t{1} << direct_bits_); ++i) {
    if (direct_[i].size != 0) large[ShortKeySlot(direct_[i].key, kLargeDirectBits)] = direct_[i];
  }
  direct_ = std::move(large);
  direct_bits_ = kLargeDirectBits;
}

void EncodeCache::Insert(absl::string_view piece, absl::Span<const TokenId> ids) {
  if (max_entries_ == 0 || bypass_left_ > 0) return;
  if (index_.size() >= max_entries_) {
    index_.clear();
    ids_.clear();
  }
  auto [it, inserted] = index_.try_emplace(
      piece, Slice{static_cast<uint32_t>(ids_.size()), static_cast<uint32_t>(ids.size())});
  if (inserted) ids_.insert(ids_.end(), ids.begin(), ids.end());
}

}  // namespace bpeforge::internal
