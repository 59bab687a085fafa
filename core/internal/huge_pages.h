// An allocator for the few big tables of a training run (the pre-token maps, the word arena,
// the pair table). They are read at random, and with 4 KiB pages nearly every such read also
// misses the TLB; under virtualisation a TLB miss costs a two-level page walk. Blocks of
// 2 MiB and more are therefore mapped on their own, 2 MiB aligned, and offered to the kernel
// for transparent huge pages (madvise), which on a typical "madvise" THP setting it would
// not otherwise use. Smaller blocks come from operator new.
//
// The kernel zeroes a page at its first touch, on the thread that touches it; on a virtual
// machine that hands freed memory back to its host, first touches are a large part of a run. A
// table filled by one thread (the word table, the merge loop's pair table) can have its
// block's pages touched by the workers of a lent Parallelism first, all at once.
#ifndef BPEFORGE_CORE_INTERNAL_HUGE_PAGES_H_
#define BPEFORGE_CORE_INTERNAL_HUGE_PAGES_H_

#include <cstddef>

#include "core/internal/parallelism.h"

namespace bpeforge::internal {

// Storage for `bytes` bytes, aligned for any type; throws std::bad_alloc on failure.
void* AllocateMaybeHuge(size_t bytes);
// Frees what AllocateMaybeHuge(bytes) returned, given the same `bytes`.
void FreeMaybeHuge(void* p, size_t bytes) noexcept;
// Touches the pages of [p, p + bytes) from the workers of `parallelism`, a share each, if the
// block is large (tens of MB) and there are workers; else does nothing.
void FaultInParallel(void* p, size_t bytes, const Parallelism& parallelism);

// With `fault_in`, every large block it allocates is faulted in by those workers at once.
template <typename T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  explicit HugePageAllocator(const Parallelism* fault_in) noexcept : fault_in(fault_in) {}
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>& other) noexcept  // NOLINT: rebinding
      : fault_in(other.fault_in) {}

  T* allocate(size_t n) {
    void* p = AllocateMaybeHuge(n * sizeof(T));
    if (fault_in != nullptr) FaultInParallel(p, n * sizeof(T), *fault_in);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept { FreeMaybeHuge(p, n * sizeof(T)); }

  const Parallelism* fault_in = nullptr;  // not owned; must outlive the blocks' allocation

  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_INTERNAL_HUGE_PAGES_H_
