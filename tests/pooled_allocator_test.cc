// The pooled allocator hands a freed block out again for the same size, keeps blocks apart
// while they are alive, and serves containers as the standard allocator does.
#include "core/internal/pooled_allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"

namespace bpeforge::internal {
namespace {

using List = absl::InlinedVector<uint32_t, 4, PooledAllocator<uint32_t>>;

TEST(PooledAllocatorTest, AFreedBlockServesTheNextRequestOfItsSize) {
  if (!pooled_allocator_internal::kKeepsBlocks) GTEST_SKIP() << "nothing is kept under ASan";
  PooledAllocator<uint32_t> alloc;
  for (size_t n : {1, 8, 9, 100, 1024}) {
    uint32_t* p = alloc.allocate(n);
    alloc.deallocate(p, n);
    EXPECT_EQ(alloc.allocate(n), p) << n;  // the same size
    alloc.deallocate(p, n);
  }
  // 9 and 16 words (36 and 64 bytes) are both 64-byte blocks; 17 words is a 128-byte one.
  uint32_t* p = alloc.allocate(9);
  alloc.deallocate(p, 9);
  EXPECT_EQ(alloc.allocate(16), p);
  alloc.deallocate(p, 16);
  uint32_t* q = alloc.allocate(17);
  EXPECT_NE(q, p);
  alloc.deallocate(q, 17);
}

TEST(PooledAllocatorTest, LiveBlocksNeverOverlap) {
  PooledAllocator<uint32_t> alloc;
  std::vector<std::pair<uint32_t*, size_t>> live;
  // Sizes across every kept size and past the largest, freed and taken again in turns.
  for (int round = 0; round < 3; ++round) {
    for (size_t n = 1; n <= 2000; n = n * 3 / 2 + 1) {
      uint32_t* p = alloc.allocate(n);
      std::fill(p, p + n, static_cast<uint32_t>(n));
      live.emplace_back(p, n);
    }
    for (const auto& [p, n] : live) {
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(p[i], n) << "block of " << n << " overwritten";
    }
    for (size_t i = 0; i < live.size(); i += 2) alloc.deallocate(live[i].first, live[i].second);
    std::vector<std::pair<uint32_t*, size_t>> kept;
    for (size_t i = 1; i < live.size(); i += 2) kept.push_back(live[i]);
    live = kept;
  }
  for (const auto& [p, n] : live) alloc.deallocate(p, n);
}

TEST(PooledAllocatorTest, ListsBehaveAsVectorsAcrossThreads) {
  // A list made on one thread and freed on another (as a merge's parts hand theirs over).
  std::vector<List> lists(64);
  std::thread maker([&] {
    for (size_t i = 0; i < lists.size(); ++i) {
      for (uint32_t k = 0; k < i * 37; ++k) lists[i].push_back(k);
    }
  });
  maker.join();
  for (size_t i = 0; i < lists.size(); ++i) {
    List copy = lists[i];
    ASSERT_EQ(copy.size(), i * 37);
    std::vector<uint32_t> expected(i * 37);
    std::iota(expected.begin(), expected.end(), 0u);
    EXPECT_TRUE(std::equal(copy.begin(), copy.end(), expected.begin(), expected.end()));
    lists[i].clear();
    EXPECT_TRUE(lists[i].empty());
  }
}

TEST(PooledAllocatorTest, ElementsMadeWithAValueHoldIt) {
  // Only elements made without a value are left uninitialized (the first pair count's lists).
  List list(3, 7u);
  list.resize(200, 9u);
  list.insert(list.begin() + 1, 5u);
  list.emplace_back(11u);
  ASSERT_EQ(list.size(), 202u);
  EXPECT_EQ(list[0], 7u);
  EXPECT_EQ(list[1], 5u);
  EXPECT_EQ(list[3], 7u);
  EXPECT_TRUE(std::all_of(list.begin() + 4, list.end() - 1, [](uint32_t v) { return v == 9u; }));
  EXPECT_EQ(list.back(), 11u);
  List sized;
  sized.resize(100);
  for (uint32_t i = 0; i < 100; ++i) sized[i] = i;
  List copy = sized;
  EXPECT_TRUE(std::equal(copy.begin(), copy.end(), sized.begin(), sized.end()));
}

}  // namespace
}  // namespace bpeforge::internal
