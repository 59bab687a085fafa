#include "core/count/counting_table.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace bpeforge::internal {

void CountingTable::ForEach(absl::FunctionRef<void(absl::string_view, uint64_t)> fn) const {
  ForEachInPart(0, 1, fn);
}

void CountingTable::ForEachInPart(size_t part, size_t parts,
                                  absl::FunctionRef<void(absl::string_view, uint64_t)> fn) const {
  // The short keys' slots are cut into `parts` runs; the few longer pre-tokens go to the last.
  char buf[16];
  const size_t slots = short_.capacity();
  short_.ForEachInSlots(
      slots * part / parts, slots * (part + 1) / parts,
      [&](const ShortKey& key, uint64_t n) { fn(UnpackShortKey(key, buf), n + HotCount(key)); });
  if (part + 1 < parts) return;
  char medium_buf[32];
  medium_.ForEach(
      [&](const MediumKey& key, uint64_t n) { fn(UnpackMediumKey(key, medium_buf), n); });
  for (const auto& [key, n] : long_) fn(key, n);
}

void CountingTable::FlushHot() {
  if (hot_ == nullptr) return;
  for (size_t i = 0; i < kHotSlots; ++i) {
    const HotSlot& slot = hot_[i];
    if (slot.key.hi != kEmptyHi && slot.count != 0) *short_.Find(slot.key) += slot.count;
  }
  hot_.reset();
  hot_from_ = 0;  // chosen again at the next batch
}

void CountingTable::ChooseHot() {
  FlushHot();
  const size_t size = short_.size();
  hot_from_ = size < kHotFirst        ? kHotFirst
              : size < 16 * kHotFirst ? 16 * kHotFirst
                                      : std::numeric_limits<size_t>::max();
  std::vector<std::pair<uint64_t, ShortKey>> by_count;
  by_count.reserve(size);
  short_.ForEach([&](const ShortKey& key, uint64_t n) { by_count.emplace_back(n, key); });
  const size_t keep = std::min(kHotSlots / 2, by_count.size());
  auto more = [](const auto& a, const auto& b) { return a.first > b.first; };
  if (keep > 0) {
    std::nth_element(by_count.begin(), by_count.begin() + (keep - 1), by_count.end(), more);
  }
  // In order of count, so that where two collide the more frequent takes the slot.
  std::sort(by_count.begin(), by_count.begin() + keep, more);
  hot_ = std::make_unique<HotSlot[]>(kHotSlots);
  for (size_t i = 0; i < kHotSlots; ++i) hot_[i] = HotSlot{ShortKey{0, kEmptyHi}, 0};
  for (size_t k = 0; k < keep; ++k) {
    HotSlot& slot = hot_[HotIndex(by_count[k].second)];
    if (slot.key.hi == kEmptyHi) slot.key = by_count[k].second;
  }
}

void CountingTable::MoveCommonInto(CountingTable& other, const Parallelism& parallelism) {
  FlushHot();
  auto move_common = [](auto& from, auto& to) {
    absl::erase_if(from, [&to](const auto& entry) {
      auto it = to.find(entry.first);
      if (it == to.end()) return false;
      it->second += entry.second;
      return true;
    });
  };
  // The workers add into `to` at once, each the counts of other keys.
  auto move_common_packed = [&parallelism](auto& from, auto& to) {
    from.EraseIf(
        [&to](const auto& key, uint64_t n) {
          uint64_t* there = to.Find(key);
          if (there == nullptr) return false;
          *there += n;
          return true;
        },
        parallelism);
  };
  move_common_packed(short_, other.short_);
  move_common_packed(medium_, other.medium_);
  move_common(long_, other.long_);
}

void CountingTable::MakeDisjoint(std::vector<CountingTable>& tables,
                                 const Parallelism& parallelism) {
  std::sort(tables.begin(), tables.end(),
            [](const CountingTable& a, const CountingTable& b) { return a.size() > b.size(); });
  for (size_t t = 1; t < tables.size(); ++t) tables[t].MoveCommonInto(tables[0], parallelism);
  for (size_t t = 2; t < tables.size(); ++t) {
    tables[1].MergeFrom(tables[t]);
    tables[t] = CountingTable();  // freed as soon as it is added
  }
  tables.resize(std::min<size_t>(tables.size(), 2));
}

void CountingTable::MergeFrom(const CountingTable& other) {
  other.short_.ForEach(
      [&](const ShortKey& key, uint64_t n) { short_[key] += n + other.HotCount(key); });
  other.medium_.ForEach([&](const MediumKey& key, uint64_t n) { medium_[key] += n; });
  for (const auto& [key, n] : other.long_) long_[key] += n;
}

}  // namespace bpeforge::internal
