// The merge loop's tokens as a tree (core/train/token_tree.h): spelled out and compared
// exactly as the byte strings they stand for, whether stored whole or past the stored head.
#include "core/train/token_tree.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace bpeforge::internal {
namespace {

int Sign(int c) { return (c > 0) - (c < 0); }

TEST(TokenTreeTest, SpellsTheHandoutsMerges) {
  TokenTree tree;
  const uint32_t st = tree.Add('s', 't'), est = tree.Add('e', st), ow = tree.Add('o', 'w');
  const uint32_t low = tree.Add('l', ow), lowest = tree.Add(low, est);
  std::string scratch;
  EXPECT_EQ(tree.Bytes(lowest, &scratch), "lowest");
  EXPECT_EQ(tree.length(lowest), 6u);
  EXPECT_EQ(tree.parts(lowest), std::make_pair(low, est));
  EXPECT_EQ(tree.merges(), 5u);
  EXPECT_LT(tree.Compare(low, lowest), 0);  // a prefix is the lesser
  EXPECT_GT(tree.Compare(st, est), 0);
  EXPECT_GT(tree.Compare(0xff, 'a'), 0);  // bytes compare unsigned
}

// Random merges of random earlier tokens, many far past the 64 bytes kept whole and many equal
// in their first 64 bytes: every token spells as the concatenation of its parts, and every
// comparison agrees with comparing those strings.
TEST(TokenTreeTest, LongTokensSpellAndCompareAsTheirBytes) {
  std::mt19937 rng(11);
  TokenTree tree;
  std::vector<std::string> bytes(256);
  for (int b = 0; b < 256; ++b) bytes[b] = std::string(1, static_cast<char>(b));
  const std::vector<uint32_t> alphabet = {'a', 'b', 0xff};
  std::vector<uint32_t> pool(alphabet);
  for (int i = 0; i < 600; ++i) {
    // Mostly recent tokens, so that lengths grow; a byte now and then, so heads are shared.
    auto pick = [&] {
      return rng() % 4 == 0 ? alphabet[rng() % alphabet.size()]
                            : pool[pool.size() - 1 - rng() % std::min<size_t>(pool.size(), 12)];
    };
    const uint32_t left = pick(), right = pick();
    if (bytes[left].size() + bytes[right].size() > 5000) continue;
    const uint32_t id = tree.Add(left, right);
    bytes.push_back(bytes[left] + bytes[right]);
    ASSERT_EQ(id + 1, bytes.size());
    pool.push_back(id);
  }
  size_t long_tokens = 0, long_ties = 0;
  std::string a_scratch, b_scratch;
  for (uint32_t a = 256; a < tree.size(); ++a) {
    ASSERT_EQ(tree.Bytes(a, &a_scratch), bytes[a]) << a;
    ASSERT_EQ(tree.length(a), bytes[a].size());
    long_tokens += bytes[a].size() > TokenTree::kHeadBytes;
    const uint32_t others[] = {a - 1, static_cast<uint32_t>(256 + rng() % (a - 255)), 97, 0xff};
    for (uint32_t b : others) {
      const int want = Sign(bytes[a].compare(bytes[b]));
      ASSERT_EQ(Sign(tree.Compare(a, b)), want) << a << " " << b;
      ASSERT_EQ(Sign(tree.Compare(b, a)), -want) << a << " " << b;
      long_ties += bytes[a].size() > TokenTree::kHeadBytes &&
                   bytes[b].size() > TokenTree::kHeadBytes &&
                   bytes[a].compare(0, 64, bytes[b], 0, 64) == 0;
    }
  }
  EXPECT_GT(long_tokens, 100u);  // the test reaches the spelled-out paths
  EXPECT_GT(long_ties, 20u);
}

}  // namespace
}  // namespace bpeforge::internal
