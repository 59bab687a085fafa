#include "core/train/counting_table.h"

namespace bpeforge::internal {

void CountingTable::ForEach(absl::FunctionRef<void(absl::string_view, uint64_t)> fn) const {
  char buf[16];
  for (const auto& [key, n] : short_) fn(UnpackShortKey(key, buf), n);
  for (const auto& [key, n] : long_) fn(key, n);
}

void CountingTable::MoveCommonInto(CountingTable& other) {
  auto move_common = [](auto& from, auto& to) {
    absl::erase_if(from, [&to](const auto& entry) {
      auto it = to.find(entry.first);
      if (it == to.end()) return false;
      it->second += entry.second;
      return true;
    });
  };
  move_common(short_, other.short_);
  move_common(long_, other.long_);
}

void CountingTable::MergeFrom(const CountingTable& other) {
  for (const auto& [key, n] : other.short_) short_[key] += n;
  for (const auto& [key, n] : other.long_) long_[key] += n;
}

}  // namespace bpeforge::internal
