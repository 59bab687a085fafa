#include "core/internal/huge_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace bpeforge::internal {
namespace {

// How many of the pages of [p, p + bytes) are resident, by mincore.
size_t ResidentPages(const void* p, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
  const size_t length = reinterpret_cast<uintptr_t>(p) + bytes - begin;
  std::vector<unsigned char> flags((length + page - 1) / page);
  EXPECT_EQ(mincore(reinterpret_cast<void*>(begin), length, flags.data()), 0);
  size_t resident = 0;
  for (unsigned char f : flags) resident += f & 1;
  return resident;
}

// A Parallelism that runs its parts one after another and counts the calls.
struct CountingRunner {
  size_t calls = 0;
  Parallelism parallelism;
  explicit CountingRunner(size_t workers) {
    parallelism.workers = workers;
    parallelism.run = [this](size_t n, const std::function<void(size_t)>& task) {
      ++calls;
      for (size_t i = 0; i < n; ++i) task(i);
    };
  }
};

TEST(HugePagesTest, LargeBlockIsFaultedInByTheWorkersAndReadsZero) {
  CountingRunner runner(3);
  HugePageAllocator<uint8_t> alloc(&runner.parallelism);
  const size_t bytes = (size_t{64} << 20) + 12345;
  uint8_t* p = alloc.allocate(bytes);
  EXPECT_EQ(runner.calls, 1u);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  EXPECT_EQ(ResidentPages(p, bytes), (bytes + page - 1) / page);
  for (size_t at = 0; at < bytes; at += 4093) ASSERT_EQ(p[at], 0) << at;
  alloc.deallocate(p, bytes);
}

TEST(HugePagesTest, BlockIsLeftToItsFirstTouchWithoutWorkers) {
  CountingRunner one(1), three(3);
  const size_t large = size_t{64} << 20, small = size_t{4} << 20;
  for (auto [runner, bytes] : {std::pair{&one, large}, std::pair{&three, small}}) {
    HugePageAllocator<uint8_t> alloc(&runner->parallelism);
    uint8_t* p = alloc.allocate(bytes);
    EXPECT_EQ(runner->calls, 0u);
    EXPECT_LT(ResidentPages(p, bytes), bytes / static_cast<size_t>(sysconf(_SC_PAGESIZE)));
    alloc.deallocate(p, bytes);
  }
  HugePageAllocator<uint8_t> plain;  // no Parallelism at all
  uint8_t* p = plain.allocate(large);
  EXPECT_LT(ResidentPages(p, large), large / static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  plain.deallocate(p, large);
}

}  // namespace
}  // namespace bpeforge::internal
