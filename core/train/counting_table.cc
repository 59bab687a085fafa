#include "core/train/counting_table.h"

namespace bpeforge::internal {

void CountingTable::ForEach(absl::FunctionRef<void(absl::string_view, uint64_t)> fn) const {
  char buf[16];
  for (const auto& [key, n] : short_) fn(UnpackShortKey(key, buf), n);
  for (const auto& [key, n] : long_) fn(key, n);
}

void CountingTable::MergeFrom(const CountingTable& other) {
  for (const auto& [key, n] : other.short_) short_[key] += n;
  for (const auto& [key, n] : other.long_) long_[key] += n;
}

}  // namespace bpeforge::internal
