// An allocator that keeps freed blocks of up to 4 KB per thread, by size, and hands them out
// again: for containers made, grown and freed millions of times in a run (the merge loop's
// word lists).
//
//   using WordList = absl::InlinedVector<uint32_t, 4, PooledAllocator<uint32_t>>;
//
// glibc's per-thread cache keeps 7 freed blocks of a size; past that, a free and the next
// malloc go through its bins (3.6% of the samples of a web training run, most of them the
// merge loop's). A block is rounded up to 32 bytes << k (k < 8), and at most 1 MB of each of
// the eight sizes is kept per thread, given back when the thread exits. The allocator is
// stateless: all instances are equal, and a block may be freed on another thread than the
// one that took it. Under AddressSanitizer nothing is kept, so that a use after free is
// still reported.
#ifndef BPEFORGE_CORE_INTERNAL_POOLED_ALLOCATOR_H_
#define BPEFORGE_CORE_INTERNAL_POOLED_ALLOCATOR_H_

#include <bit>
#include <cstddef>
#include <new>
#include <vector>

namespace bpeforge::internal {

namespace pooled_allocator_internal {

inline constexpr size_t kMinBlock = 32, kMaxBlock = 4096;
inline constexpr int kSizes = 8;                       // 32 B to 4 KB
inline constexpr size_t kKeptBytes = size_t{1} << 20;  // of each size, per thread

// The size index of a block of `bytes` (<= kMaxBlock): its blocks are kMinBlock << index.
inline int SizeIndex(size_t bytes) {
  return bytes <= kMinBlock ? 0 : std::bit_width((bytes - 1) / kMinBlock);
}
inline size_t MostKept(int index) { return kKeptBytes / (kMinBlock << index); }

// The calling thread's freed blocks, by size index.
struct FreeBlocks {
  FreeBlocks() {
    // Reserved now, so that keeping a block never allocates (deallocate is noexcept).
    for (int i = 0; i < kSizes; ++i) blocks[i].reserve(MostKept(i));
  }
  ~FreeBlocks() {
    for (std::vector<void*>& kept : blocks) {
      for (void* p : kept) ::operator delete(p);
    }
  }
  std::vector<void*> blocks[kSizes];
};
inline FreeBlocks& ThreadFreeBlocks() {
  thread_local FreeBlocks free_blocks;
  return free_blocks;
}

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kKeepsBlocks = false;
#else
inline constexpr bool kKeepsBlocks = true;
#endif

}  // namespace pooled_allocator_internal

template <typename T>
struct PooledAllocator {
  using value_type = T;

  PooledAllocator() = default;
  template <typename U>
  PooledAllocator(const PooledAllocator<U>&) noexcept {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    namespace internal = pooled_allocator_internal;
    const size_t bytes = n * sizeof(T);
    if (!internal::kKeepsBlocks || bytes > internal::kMaxBlock) {
      return static_cast<T*>(::operator new(bytes));
    }
    const int index = internal::SizeIndex(bytes);
    std::vector<void*>& kept = internal::ThreadFreeBlocks().blocks[index];
    if (kept.empty()) return static_cast<T*>(::operator new(internal::kMinBlock << index));
    void* p = kept.back();
    kept.pop_back();
    return static_cast<T*>(p);
  }

  void deallocate(T* p, size_t n) noexcept {
    namespace internal = pooled_allocator_internal;
    const size_t bytes = n * sizeof(T);
    if (internal::kKeepsBlocks && bytes <= internal::kMaxBlock) {
      const int index = internal::SizeIndex(bytes);
      std::vector<void*>& kept = internal::ThreadFreeBlocks().blocks[index];
      if (kept.size() < internal::MostKept(index)) {
        kept.push_back(p);
        return;
      }
    }
    ::operator delete(p);
  }

  template <typename U>
  bool operator==(const PooledAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_INTERNAL_POOLED_ALLOCATOR_H_
