#include "core/count/short_key_counts.h"

#include <algorithm>
#include <bit>

namespace bpeforge::internal {

template <typename Key>
void PackedKeyCounts<Key>::Rehash(size_t capacity, const Parallelism* fault_in) {
  capacity = std::max(capacity, kMinCapacity);
  Slot* old = slots_;
  const size_t old_capacity = this->capacity();
  slots_ = static_cast<Slot*>(AllocateMaybeHuge(capacity * sizeof(Slot)));
  if (fault_in != nullptr) FaultInParallel(slots_, capacity * sizeof(Slot), *fault_in);
  Slot empty{};
  Traits::Last(empty.key) = kEmpty;
  for (size_t i = 0; i < capacity; ++i) slots_[i] = empty;
  mask_ = capacity - 1;
  shift_ = 64 - std::countr_zero(capacity);
  grow_at_ = capacity / 4 * 3;
  for (size_t i = 0; i < old_capacity; ++i) {
    if (Traits::Last(old[i].key) == kEmpty) continue;
    size_t at = Home(old[i].key);
    while (Traits::Last(slots_[at].key) != kEmpty) at = (at + 1) & mask_;
    slots_[at] = old[i];
  }
  FreeMaybeHuge(old, old_capacity * sizeof(Slot));
}

template class PackedKeyCounts<ShortKey>;
template class PackedKeyCounts<MediumKey>;

}  // namespace bpeforge::internal
