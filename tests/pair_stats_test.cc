// The merge loop's pieces beside the loop: the pair counter, the pair statistics (counts, the
// inverted index, the queue under lazy deletion) and the look-ahead, each on a few words.
#include "core/train/pair_stats.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/train/look_ahead.h"
#include "core/train/pair_counter.h"
#include "core/train/word_rewriter.h"
#include "core/train/word_table.h"

namespace bpeforge::internal {
namespace {

PairKey P(char left, char right) {
  return MakePair(static_cast<uint8_t>(left), static_cast<uint8_t>(right));
}

WordTable TableOf(const std::vector<std::pair<std::string, uint64_t>>& words) {
  WordTable table;
  for (const auto& [bytes, count] : words) table.Add(bytes, count);
  return table;
}

std::vector<uint32_t> WordsOf(const PairTable& pairs, PairKey pair) {
  const WordList& words = pairs.at(pair).words;
  return std::vector<uint32_t>(words.begin(), words.end());
}

// Runs parts one after another: what is split, not the threads, is under test.
Parallelism SplitOneAfterAnother(size_t parts, size_t min_split_words) {
  Parallelism split;
  split.workers = parts;
  split.min_split_words = min_split_words;
  split.run = [](size_t n, const std::function<void(size_t)>& task) {
    for (size_t i = 0; i < n; ++i) task(i);
  };
  return split;
}

TEST(PairCounterTest, CountsByWordCountAndListsEachWordOnce) {
  const WordTable words = TableOf({{"abab", 3}, {"ba", 5}, {"x", 7}});
  const TokenTree tokens;
  for (const Parallelism& parallelism : {Parallelism{}, SplitOneAfterAnother(3, 1)}) {
    const PairTable pairs = CountPairs(words, IndexedWords{}, tokens.size(), parallelism);
    ASSERT_EQ(pairs.size(), 2u);
    EXPECT_EQ(pairs.at(P('a', 'b')).count, 6);
    EXPECT_EQ(pairs.at(P('b', 'a')).count, 8);
    EXPECT_EQ(WordsOf(pairs, P('a', 'b')), std::vector<uint32_t>{words.ids()[0]});
    EXPECT_EQ(WordsOf(pairs, P('b', 'a')), (std::vector<uint32_t>{words.ids()[0], words.ids()[1]}));
  }
}

TEST(PairCounterTest, CountsTheSameOnceSymbolsAreNoLongerBytes) {
  const WordTable words = TableOf({{"abab", 3}, {"ba", 5}, {"cab", 1}});
  const TokenTree tokens;
  const PairTable bytes = CountPairs(words, IndexedWords{}, tokens.size(), Parallelism{});
  const PairTable any = CountPairs(words, IndexedWords{}, tokens.size() + 1, Parallelism{});
  ASSERT_EQ(bytes.size(), any.size());
  for (const auto& [pair, info] : bytes) {
    EXPECT_EQ(any.at(pair).count, info.count);
    EXPECT_EQ(WordsOf(any, pair), WordsOf(bytes, pair));
  }
}

// Pairs of 16 occurrences or more are kept; the best goes first, ties to the greater bytes.
TEST(PairStatsTest, PopsTheBestKeptPairThenSaysWhenItFallsBelowTheFloor) {
  const Parallelism serial;  // outlives what keeps a reference to it
  WordTable words = TableOf({{"ab", 20}, {"cd", 20}, {"ef", 30}, {"gh", 3}});
  const TokenTree tokens;
  PairStats stats(tokens, 0, words.size(), serial);
  stats.Reset(CountPairs(words, IndexedWords{}, tokens.size(), serial));
  EXPECT_EQ(stats.Count(P('g', 'h')), 0);  // too rare to be kept
  EXPECT_EQ(stats.PopBest(), P('e', 'f'));
  EXPECT_EQ(stats.PopBest(), P('c', 'd'));
  EXPECT_EQ(stats.PopBest(), P('a', 'b'));
  EXPECT_EQ(stats.PopBest(), std::nullopt);
  EXPECT_FALSE(stats.keeps_all());
  stats.KeepAll(CountPairs(words, IndexedWords{}, tokens.size(), serial));
  EXPECT_TRUE(stats.keeps_all());
  EXPECT_EQ(stats.PopBest(), P('e', 'f'));
  stats.Requeue(P('e', 'f'));  // not merged after all
  EXPECT_EQ(stats.PopBest(), P('e', 'f'));
  EXPECT_EQ(stats.PopBest(), P('c', 'd'));
  EXPECT_EQ(stats.PopBest(), P('a', 'b'));
  EXPECT_EQ(stats.PopBest(), P('g', 'h'));
  EXPECT_EQ(stats.PopBest(), std::nullopt);
}

TEST(PairStatsTest, PassesOverPairsThatMakeTooLongATokenButCountsThem) {
  const Parallelism serial;  // outlives what keeps a reference to it
  WordTable words = TableOf({{"aab", 40}, {"cd", 20}});
  TokenTree tokens;
  const uint32_t aa = tokens.Add('a', 'a');
  PairStats stats(tokens, /*max_token_length=*/2, words.size(), serial);
  PairTable counted;
  counted[MakePair(aa, 'b')].count = 40;
  counted[P('c', 'd')].count = 20;
  stats.Reset(std::move(counted));
  EXPECT_EQ(stats.Count(MakePair(aa, 'b')), 40);
  EXPECT_EQ(stats.PopBest(), P('c', 'd'));
  EXPECT_EQ(stats.PopBest(), std::nullopt);
}

// Merging (b, c) in "abcd" x20 and "bcbc" x30: (a, b) and (c, d) lose, (a, t) and (t, d) are
// made with their words, (c, b) is gone, and (t, t) is made.
TEST(PairStatsTest, AppliesAMergesGainsAndLossesWithTheirWords) {
  const Parallelism serial;  // outlives what keeps a reference to it
  WordTable words = TableOf({{"abcd", 20}, {"bcbc", 30}});
  TokenTree tokens;
  WordRewriter<uint32_t> rewriter(words, serial, kIndexedWordLength);
  PairStats stats(tokens, 0, words.size(), serial);
  stats.KeepAll(CountPairs(words, rewriter.indexed(), tokens.size(), serial));
  const std::optional<PairKey> best = stats.PopBest();
  ASSERT_EQ(best, P('b', 'c'));
  EXPECT_EQ(stats.Count(*best), 80);
  PairTable::node_type taken = stats.Take(*best);
  EXPECT_EQ(stats.Count(*best), 0);
  const uint32_t t = tokens.Add('b', 'c');
  MergeChanges& changes = rewriter.Merge(taken.mapped().words, 'b', 'c', t);
  stats.Apply(changes, *best, t);
  EXPECT_EQ(stats.Count(P('a', 'b')), 0);
  EXPECT_EQ(stats.Count(P('c', 'd')), 0);
  EXPECT_EQ(stats.Count(P('c', 'b')), 0);
  EXPECT_EQ(stats.Count(MakePair('a', t)), 20);
  EXPECT_EQ(stats.Count(MakePair(t, 'd')), 20);
  EXPECT_EQ(stats.Count(MakePair(t, t)), 30);
  EXPECT_EQ(stats.PopBest(), MakePair(t, t));
  EXPECT_EQ(stats.PopBest(), MakePair(t, 'd'));  // ties: the greater bytes, "bc" "d"
  EXPECT_EQ(stats.PopBest(), MakePair('a', t));
  EXPECT_EQ(stats.PopBest(), std::nullopt);
}

// A merge loop on two workers run one after another, with merges of 1,000 words or more
// split, and every pair kept.
struct TwoWorkerLoop {
  explicit TwoWorkerLoop(WordTable table)
      : words(std::move(table)),
        rewriter(words, two, kIndexedWordLength),
        stats(tokens, 0, words.size(), two),
        ahead(rewriter, stats, two, 0) {
    stats.KeepAll(CountPairs(words, rewriter.indexed(), tokens.size(), two));
  }
  // Merges the best pair through the look-ahead, which may pick the next one.
  PairKey MergeBest() {
    const PairKey best = *stats.PopBest();
    PairTable::node_type taken = stats.Take(best);
    const uint32_t t = tokens.Add(PairLeft(best), PairRight(best));
    MergeChanges& changes =
        rewriter.Merge(taken.mapped().words, PairLeft(best), PairRight(best), t);
    ahead.ApplyAndPickNext(changes, best, t, /*more=*/true);
    return best;
  }

  const Parallelism two = SplitOneAfterAnother(2, 1000);
  WordTable words;
  TokenTree tokens;
  WordRewriter<uint32_t> rewriter;
  PairStats stats;
  LookAhead<uint32_t> ahead;
};

// After (a, b) merges in "ab" x50, the best pair (c, d) of 40 words is sure, and its words are
// rewritten at once (40 words: enough to hand over, too few to split).
TEST(LookAheadTest, PicksAndRewritesTheNextMergeWhereThisMergeCannotChangeIt) {
  std::vector<std::pair<std::string, uint64_t>> list = {{"ab", 50}};
  for (int i = 0; i < 40; ++i) {
    list.push_back(
        {"cd" + std::string{static_cast<char>('e' + i % 10), static_cast<char>('e' + i / 10)}, 1});
  }
  TwoWorkerLoop loop(TableOf(list));
  EXPECT_EQ(loop.MergeBest(), P('a', 'b'));
  std::optional<LookAhead<uint32_t>::Merge> next = loop.ahead.Take();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->pair, P('c', 'd'));
  ASSERT_NE(next->changes, nullptr);
  EXPECT_EQ(next->changes->touched(Side::kRight).size(), 10u);  // e..n after "cd"
  EXPECT_FALSE(loop.ahead.Take().has_value());
}

// After (a, b) merges in "ab" x60, "abc" x30 and "bc" x20, the queue's best (b, c), 50, loses
// 30: nothing is picked ahead, and the best is then (t, c).
TEST(LookAheadTest, PicksNothingWhereThisMergeLowersTheNextBest) {
  TwoWorkerLoop loop(TableOf({{"ab", 60}, {"abc", 30}, {"bc", 20}}));
  EXPECT_EQ(loop.MergeBest(), P('a', 'b'));
  EXPECT_FALSE(loop.ahead.Take().has_value());
  EXPECT_EQ(loop.stats.PopBest(), MakePair(256, 'c'));
  EXPECT_EQ(loop.stats.Count(P('b', 'c')), 20);
}

}  // namespace
}  // namespace bpeforge::internal
