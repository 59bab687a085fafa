#include "core/internal/huge_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <new>

namespace bpeforge::internal {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
// Below this a block faults in within milliseconds; handing it to workers is not worth it.
constexpr size_t kFaultInParallelFrom = size_t{32} << 20;

size_t RoundUp(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

}  // namespace

void* AllocateMaybeHuge(size_t bytes) {
  if (bytes < kHugePage) return ::operator new(bytes);
  const size_t size = RoundUp(bytes);
  // Map one huge page more than needed, then trim both ends to a 2 MiB boundary.
  void* raw =
      mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(raw, aligned - start);
  if (const size_t tail = start + size + kHugePage - (aligned + size); tail > 0) {
    munmap(reinterpret_cast<void*>(aligned + size), tail);
  }
  void* p = reinterpret_cast<void*>(aligned);
  madvise(p, size, MADV_HUGEPAGE);  // a hint: without THP the memory is still fine
  return p;
}

void FreeMaybeHuge(void* p, size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes < kHugePage) {
    ::operator delete(p);
    return;
  }
  munmap(p, RoundUp(bytes));
}

void FaultInParallel(void* p, size_t bytes, const Parallelism& parallelism) {
  const size_t workers = parallelism.run ? parallelism.workers : 1;
  if (workers < 2 || bytes < kFaultInParallelFrom) return;
  volatile char* const base = static_cast<char*>(p);
  const size_t blocks = (bytes + kHugePage - 1) / kHugePage;
  parallelism.run(workers, [&](size_t part) {
    const size_t begin = blocks * part / workers * kHugePage;
    const size_t end = std::min(bytes, blocks * (part + 1) / workers * kHugePage);
    // A write per 4 KiB: a huge page faults in whole at the first, small pages each at theirs.
    for (size_t at = begin; at < end; at += 4096) base[at] = 0;
  });
}

}  // namespace bpeforge::internal
