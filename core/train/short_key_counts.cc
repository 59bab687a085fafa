#include "core/train/short_key_counts.h"

#include <algorithm>
#include <bit>

namespace bpeforge::internal {

void ShortKeyCounts::Rehash(size_t capacity) {
  capacity = std::max(capacity, kMinCapacity);
  Slot* old = slots_;
  const size_t old_capacity = this->capacity();
  slots_ = static_cast<Slot*>(AllocateMaybeHuge(capacity * sizeof(Slot)));
  for (size_t i = 0; i < capacity; ++i) slots_[i] = Slot{ShortKey{0, kEmpty}, 0};
  mask_ = capacity - 1;
  shift_ = 64 - std::countr_zero(capacity);
  grow_at_ = capacity / 4 * 3;
  for (size_t i = 0; i < old_capacity; ++i) {
    if (old[i].key.hi == kEmpty) continue;
    size_t at = Home(old[i].key);
    while (slots_[at].key.hi != kEmpty) at = (at + 1) & mask_;
    slots_[at] = old[i];
  }
  FreeMaybeHuge(old, old_capacity * sizeof(Slot));
}

}  // namespace bpeforge::internal
