// An allocator that keeps freed blocks of up to 4 KB per thread, by size, and hands them out
// again: for containers made, grown and freed millions of times in a run (the merge loop's
// word lists).
//
//   using WordList = absl::InlinedVector<uint32_t, 4, PooledAllocator<uint32_t>>;
//
// glibc's per-thread cache keeps 7 freed blocks of a size; past that, a free and the next
// malloc go through its bins, which the merge loop's word lists otherwise do all the time. A block
// is rounded up to 32 bytes << k (k < 8), and at most 1 MB of each of the eight sizes is kept per
// thread, given back when the thread exits. The allocator is stateless: all instances are equal,
// and a block may be freed on another thread than the one that took it. Under AddressSanitizer
// nothing is kept, so that a use after free is still reported. Elements made without a value
// (`resize(n)`) are left uninitialized, as `new T` leaves them, not zeroed: the merge loop's first
// pair count sizes its lists and then fills every place, and zeroing them first would be a pass
// over all of them.
#ifndef BPEFORGE_CORE_INTERNAL_POOLED_ALLOCATOR_H_
#define BPEFORGE_CORE_INTERNAL_POOLED_ALLOCATOR_H_

#include <bit>
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace bpeforge::internal {

namespace pooled_allocator_internal {

inline constexpr size_t kMinBlock = 32, kMaxBlock = 4096;
inline constexpr int kSizes = 8;  // 32 B to 4 KB
static_assert(kMinBlock << (kSizes - 1) == kMaxBlock);
inline constexpr size_t kKeptBytes = size_t{1} << 20;  // of each size, per thread

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kKeepsBlocks = false;
#else
inline constexpr bool kKeepsBlocks = true;
#endif

// The calling thread's freed blocks of one size.
struct KeptBlocks {
  size_t block_bytes;         // the size: kMinBlock << k
  size_t most;                // kept at most: kKeptBytes worth
  std::vector<void*> blocks;  // reserved for `most`: keeping one never allocates
};

// Where the calling thread keeps freed blocks of `bytes`, or nullptr for blocks not kept.
inline KeptBlocks* KeptBlocksFor(size_t bytes) {
  if (!kKeepsBlocks || bytes > kMaxBlock) return nullptr;
  struct ThreadBlocks {
    ThreadBlocks() {
      for (int k = 0; k < kSizes; ++k) {
        sizes[k].block_bytes = kMinBlock << k;
        sizes[k].most = kKeptBytes / sizes[k].block_bytes;
        sizes[k].blocks.reserve(sizes[k].most);
      }
    }
    ~ThreadBlocks() {
      for (KeptBlocks& size : sizes) {
        for (void* p : size.blocks) ::operator delete(p);
      }
    }
    KeptBlocks sizes[kSizes];
  };
  thread_local ThreadBlocks thread_blocks;
  return &thread_blocks.sizes[bytes <= kMinBlock ? 0 : std::bit_width((bytes - 1) / kMinBlock)];
}

}  // namespace pooled_allocator_internal

template <typename T>
struct PooledAllocator {
  using value_type = T;

  PooledAllocator() = default;
  template <typename U>
  PooledAllocator(const PooledAllocator<U>&) noexcept {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    pooled_allocator_internal::KeptBlocks* kept =
        pooled_allocator_internal::KeptBlocksFor(n * sizeof(T));
    if (kept == nullptr) return static_cast<T*>(::operator new(n * sizeof(T)));
    if (kept->blocks.empty()) return static_cast<T*>(::operator new(kept->block_bytes));
    void* p = kept->blocks.back();
    kept->blocks.pop_back();
    return static_cast<T*>(p);
  }

  void deallocate(T* p, size_t n) noexcept {
    pooled_allocator_internal::KeptBlocks* kept =
        pooled_allocator_internal::KeptBlocksFor(n * sizeof(T));
    if (kept != nullptr && kept->blocks.size() < kept->most) {
      kept->blocks.push_back(p);
    } else {
      ::operator delete(p);
    }
  }

  // Default-initialized (uninitialized for integers), not value-initialized.
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <typename U>
  bool operator==(const PooledAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_INTERNAL_POOLED_ALLOCATOR_H_
