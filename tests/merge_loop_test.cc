// The merge loop's parts on their own, with no files and no threads: the pair queue's order
// and tie-break, and LearnMerges on the CS336 handout's example, on hand-made ties, under the
// trainer options, and against a naive merger that recounts every pair before each merge.
#include "core/train/merge_loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/train/indexed_word.h"
#include "core/train/pair_queue.h"
#include "core/train/word_table.h"
#include "tests/reference_trainer.h"

namespace bpeforge::internal {
namespace {

using WordCounts = std::vector<std::pair<std::string, uint64_t>>;

template <typename Table = WordTable>
Table TableOf(const WordCounts& words) {
  Table table;
  for (const auto& [bytes, count] : words) table.Add(bytes, count);
  return table;
}

// `n` random words of `min_length` to `max_length` letters of `alphabet`, each counted 1 to
// `max_count` times (a word drawn twice is counted for both).
WordCounts RandomWords(std::mt19937_64& rng, int n, const std::string& alphabet, size_t min_length,
                       size_t max_length, uint64_t max_count) {
  std::map<std::string, uint64_t> distinct;
  for (int w = 0; w < n; ++w) {
    std::string word;
    for (size_t k = min_length + rng() % (max_length - min_length + 1); k > 0; --k) {
      word += alphabet[rng() % alphabet.size()];
    }
    distinct[word] += 1 + rng() % max_count;
  }
  return WordCounts(distinct.begin(), distinct.end());
}

// The specification, spelled out (tests/reference_trainer.cc): count every adjacent pair of
// every word, weighted by its count; merge the most frequent (ties: the greater pair of byte
// strings) everywhere; repeat.
Merges NaiveMerges(const WordCounts& words, size_t max_merges, const MergeRules& rules = {}) {
  const std::map<std::string, uint64_t> counts(words.begin(), words.end());
  return testing::ReferenceMerges(counts, max_merges, rules.min_frequency, rules.max_token_length);
}

TEST(PairQueueTest, PopsTheHighestCountThenTheGreaterBytes) {
  TokenTree bytes;
  bytes.Add('s', 't');  // 256: ties compare bytes, not ids: "st" > "s" though 256 > 's'
  std::map<PairKey, int64_t> counts = {{MakePair('a', 'b'), 5}, {MakePair('b', 'a'), 5},
                                       {MakePair('a', 'c'), 5}, {MakePair('z', 'a'), 4},
                                       {MakePair(256, 'a'), 7}, {MakePair('s', 'u'), 7}};
  PairQueue queue(bytes);
  for (const auto& [pair, count] : counts) queue.Push(pair, count);
  auto now = [&](PairKey p) { return counts.count(p) ? counts[p] : 0; };
  EXPECT_EQ(queue.Top(), std::nullopt);  // every entry waits below the heap until a pop
  // 7: ("st","a") against ("s","u"): left "st" > "s".
  EXPECT_EQ(queue.PopMax(now), MakePair(256, 'a'));
  counts.erase(MakePair(256, 'a'));
  EXPECT_EQ(queue.Top(), MakePair('s', 'u'));  // the next pop's, none of its entries stale
  EXPECT_EQ(queue.PopMax(now), MakePair('s', 'u'));
  counts.erase(MakePair('s', 'u'));
  // 5: ("b","a") > ("a","c") > ("a","b").
  EXPECT_EQ(queue.PopMax(now), MakePair('b', 'a'));
  counts.erase(MakePair('b', 'a'));
  // A count that shrank is re-queued at its true value; one that is gone is dropped.
  counts[MakePair('a', 'c')] = 3;
  counts.erase(MakePair('a', 'b'));
  EXPECT_EQ(queue.PopMax(now), MakePair('z', 'a'));
  counts.erase(MakePair('z', 'a'));
  EXPECT_EQ(queue.PopMax(now), MakePair('a', 'c'));
  counts.erase(MakePair('a', 'c'));
  EXPECT_EQ(queue.PopMax(now), std::nullopt);
}

// Many pairs, counts with many ties that shrink between pops, and new pairs pushed as merges
// make them: the queue pops what an ordered set of the current counts says is the maximum.
// 20,000 pairs pass through the part of the queue that waits below the heap several times.
TEST(PairQueueTest, PopsTheMaximumWhenMostEntriesWaitBelowTheHeap) {
  std::mt19937_64 rng(5);
  // Tokens for ties: some with equal bytes made by other merges, some longer than the tree keeps
  // whole, with equal first 64 bytes, so that only spelling them out tells them apart.
  TokenTree tree;
  const uint32_t ab = tree.Add('a', 'b'), bc = tree.Add('b', 'c');
  tree.Add(ab, 'c');
  tree.Add('a', bc);  // "abc" again
  tree.Add('b', 'a');
  tree.Add('c', ab);
  tree.Add('a', tree.Add(' ', 'b'));
  uint32_t x = 'x';
  for (int i = 0; i < 6; ++i) x = tree.Add(x, x);  // 64 x's: the longest kept whole
  const uint32_t x128 = tree.Add(x, x), x96 = tree.Add(x, tree.Add(tree.Add(ab, ab), x));
  tree.Add(x96, x);  // x64 ab ab x64: 132 bytes
  tree.Add(x, 'y');
  tree.Add(x, tree.Add(x, 'y'));
  tree.Add(x128, 'y');
  tree.Add(x128, tree.Add(x, 'a'));
  std::vector<std::string> bytes(tree.size());
  for (uint32_t t = 0; t < tree.size(); ++t) tree.AppendBytes(t, &bytes[t]);
  const auto ids = static_cast<uint32_t>(bytes.size());
  std::map<PairKey, int64_t> counts;
  // The order the queue must follow: count, then left bytes, then right bytes.
  using Key = std::tuple<int64_t, std::string, std::string, PairKey>;
  std::set<Key> order;
  auto key = [&](PairKey p) { return Key{counts[p], bytes[PairLeft(p)], bytes[PairRight(p)], p}; };
  PairQueue queue(tree);
  auto add = [&](PairKey p, int64_t n) {
    counts[p] = n;
    order.insert(key(p));
    queue.Push(p, n);
  };
  auto random_pair = [&] { return MakePair(rng() % ids, rng() % ids); };
  while (counts.size() < 20000) {
    const PairKey p = random_pair();
    if (!counts.count(p)) add(p, 1 + rng() % 60);
  }
  auto now = [&](PairKey p) { return counts.count(p) ? counts[p] : 0; };
  size_t pops = 0;
  while (!order.empty()) {
    const PairKey want = std::get<3>(*order.rbegin());
    ASSERT_EQ(queue.PopMax(now), want) << "pop " << pops;
    ++pops;
    order.erase(key(want));
    counts.erase(want);
    for (int i = 0; i < 3 && !counts.empty(); ++i) {  // a merge shrinks some counts...
      auto it = counts.lower_bound(random_pair());
      if (it == counts.end()) continue;
      order.erase(key(it->first));
      it->second -= 1 + rng() % 20;
      if (it->second > 0) {
        order.insert(key(it->first));
      } else {
        counts.erase(it);
      }
    }
    if (rng() % 4 == 0) {  // ...and makes a new pair
      const PairKey p = random_pair();
      if (!counts.count(p)) add(p, 1 + rng() % 80);
    }
  }
  EXPECT_EQ(queue.PopMax(now), std::nullopt);
  EXPECT_GT(pops, 10000u);
}

// A merge's words cut into `parts`, run one after another: the split, not the threads, is
// under test.
Parallelism SplitOneAfterAnother(size_t parts) {
  Parallelism split;
  split.workers = parts;
  split.min_split_words = 1;
  split.run = [](size_t n, const std::function<void(size_t)>& task) {
    for (size_t i = 0; i < n; ++i) task(i);
  };
  return split;
}

// CS336 assignment 1, section 2.4: {low: 5, lower: 2, widest: 3, newest: 6}.
TEST(LearnMergesTest, TheHandoutsExample) {
  const WordCounts words = {{"low", 5}, {"lower", 2}, {"widest", 3}, {"newest", 6}};
  WordTable table = TableOf(words);
  const Merges merges = LearnMerges(table, 6);
  const Merges want = {{"s", "t"}, {"e", "st"}, {"o", "w"}, {"l", "ow"}, {"w", "est"}, {"n", "e"}};
  EXPECT_EQ(merges, want);
  EXPECT_EQ(NaiveMerges(words, 6), want);
}

// Every pair tied: the greater pair of byte strings goes first.
TEST(LearnMergesTest, TiesGoToTheGreaterPair) {
  const WordCounts words = {{"ab", 1}, {"ba", 1}, {"ca", 1}, {"aa", 1}, {"zz", 1}};
  WordTable table = TableOf(words);
  const Merges merges = LearnMerges(table, 10);
  const Merges want = {{"z", "z"}, {"c", "a"}, {"b", "a"}, {"a", "b"}, {"a", "a"}};
  EXPECT_EQ(merges, want);  // then no pair is left
  EXPECT_EQ(NaiveMerges(words, 10), want);
}

// Words counted 0 times (a count file may hold them) hold pairs that count for nothing: the
// merges are those of the other words, wherever they stand among them.
TEST(LearnMergesTest, WordsCountedZeroTimesChangeNothing) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 50; ++round) {
    std::map<std::string, uint64_t> distinct;
    for (int i = 0; i < 30; ++i) {
      std::string word(1 + rng() % 10, 'a');
      for (char& c : word) c = static_cast<char>('a' + rng() % 3);
      distinct.try_emplace(word, rng() % 4);
    }
    WordCounts all(distinct.begin(), distinct.end()), counted;
    std::shuffle(all.begin(), all.end(), rng);
    for (const auto& [word, count] : all) {
      if (count > 0) counted.emplace_back(word, count);
    }
    WordTable table = TableOf(all);
    ASSERT_EQ(LearnMerges(table, 40), NaiveMerges(counted, 40)) << "round " << round;
  }
}

// Pairs made with few occurrences are not kept while the most frequent pair has many; once it
// has few, all are counted again from the words, the long ones read through their index.
// Counts here run from hundreds down to 1, so that happens partway, with and without an
// index and with a merge's words split into parts.
TEST(LearnMergesTest, PairsLeftOutAreCountedOnceTheyMightMerge) {
  std::mt19937_64 rng(8);
  const Parallelism split = SplitOneAfterAnother(3);
  for (int round = 0; round < 12; ++round) {
    std::map<std::string, uint64_t> distinct;
    for (int i = 0; i < 60; ++i) {
      std::string word(1 + rng() % (round % 3 == 0 ? 300 : 12), 'a');
      for (char& c : word) c = static_cast<char>('a' + rng() % 4);
      distinct.try_emplace(word, 1 + rng() % (i < 10 ? 200 : 6));
    }
    const WordCounts words(distinct.begin(), distinct.end());
    const Merges want = NaiveMerges(words, 400);
    for (const size_t min_indexed : {size_t{2}, kIndexedWordLength}) {
      for (const Parallelism& parallelism : {Parallelism{}, split}) {
        WordTable table = TableOf(words);
        EXPECT_EQ(LearnMerges(table, 400, nullptr, parallelism, nullptr, {}, min_indexed), want)
            << "round " << round << ", min_indexed " << min_indexed;
      }
    }
  }
}

// Overlapping occurrences: in "aaa" the left pair merges, then what it made.
TEST(LearnMergesTest, OverlappingPairsMergeFromTheLeft) {
  const WordCounts words = {{"aaa", 1}, {"aaaaa", 2}};
  WordTable table = TableOf(words);
  const Merges merges = LearnMerges(table, 10);
  // aaa -> aa a, aaaaa -> aa aa a: then (aa,a) 1 + 2 beats (aa,aa) 2; aaaaa -> aa aaa.
  const Merges want = {{"a", "a"}, {"aa", "a"}, {"aa", "aaa"}};
  EXPECT_EQ(merges, want);
  EXPECT_EQ(NaiveMerges(words, 10), want);
}

TEST(LearnMergesTest, TrainerOptions) {
  const WordCounts words = {{"aaaa", 10}, {"abab", 3}, {"xyz", 1}};
  for (const MergeRules rules : {MergeRules{3, 0}, MergeRules{0, 2}, MergeRules{2, 3}}) {
    WordTable table = TableOf(words);
    EXPECT_EQ(LearnMerges(table, 20, nullptr, {}, nullptr, rules), NaiveMerges(words, 20, rules))
        << rules.min_frequency << " " << rules.max_token_length;
  }
}

// Random words over small alphabets (many ties, long runs), serially and with a merge's words
// split into parts (run one after another here: the split, not the threads, is under test).
TEST(LearnMergesTest, AgreesWithTheNaiveMerger) {
  std::mt19937_64 rng(5);
  const Parallelism split = SplitOneAfterAnother(3);
  for (int round = 0; round < 40; ++round) {
    const WordCounts words = RandomWords(rng, 30, round % 2 == 0 ? "ab" : "abcde", 1, 9, 4);
    const Merges want = NaiveMerges(words, 40);
    WordTable serial = TableOf(words);
    EXPECT_EQ(LearnMerges(serial, 40), want) << round;
    WordTable parted = TableOf(words);
    EXPECT_EQ(LearnMerges(parted, 40, nullptr, split), want) << round;
    // Every word of 5 symbols or more (about half), then every word, rewritten by its index.
    for (size_t min_indexed : {5, 2}) {
      WordTable indexed = TableOf(words);
      EXPECT_EQ(LearnMerges(indexed, 40, nullptr, split, nullptr, {}, min_indexed), want)
          << round << " " << min_indexed;
    }
    // 16-bit symbols, serially and split; with words long enough to be indexed, the loop first
    // widens the table.
    for (const Parallelism& parallelism : {Parallelism{}, split}) {
      for (size_t min_indexed : {kIndexedWordLength, size_t{5}}) {
        NarrowWordTable narrow = TableOf<NarrowWordTable>(words);
        EXPECT_EQ(LearnMerges(narrow, 40, nullptr, parallelism, nullptr, {}, min_indexed), want)
            << round << " narrow, " << min_indexed;
      }
    }
  }
}

// Words of 2 to 40 symbols, so that pairs lie in every lane of the rewrite's search (8 symbols
// of 16 bits or 4 of 32 compared at once), across the ends of its steps and in its last step,
// which ends at the word's end; with both widths of symbol, whole and with the words split.
TEST(LearnMergesTest, PairsAnywhereInLongerWordsAgreeWithTheNaiveMerger) {
  std::mt19937_64 rng(17);
  const Parallelism split = SplitOneAfterAnother(3);
  for (int round = 0; round < 20; ++round) {
    const WordCounts words = RandomWords(rng, 40, round % 2 == 0 ? "abc" : "abcdefg", 2, 40, 5);
    const Merges want = NaiveMerges(words, 80);
    for (const Parallelism& parallelism : {Parallelism{}, split}) {
      WordTable wide = TableOf(words);
      EXPECT_EQ(LearnMerges(wide, 80, nullptr, parallelism), want) << round;
      NarrowWordTable narrow = TableOf<NarrowWordTable>(words);
      EXPECT_EQ(LearnMerges(narrow, 80, nullptr, parallelism), want) << round << " narrow";
    }
  }
}

// With two workers, a merge too small to split is rewritten while the count changes of the
// merge before it are applied, when those changes can neither lower its pair's count nor make
// a pair that outranks it (the look-ahead). Here pairs are often tied or made by the
// merge before, counts fall to where all pairs are counted again, and the trainer options
// stop or pass over merges; some merges split, most do not. The parts run one after another:
// the choice of the next pair, not the threads, is under test.
TEST(LearnMergesTest, MergesRewrittenAheadAgreeWithTheNaiveMerger) {
  std::mt19937_64 rng(23);
  Parallelism ahead = SplitOneAfterAnother(2);
  ahead.min_split_words = 80;  // merges of 32 to 79 words are handed over
  const std::string alphabets[] = {"ab", "abcd", "abcdefgh"};
  for (int round = 0; round < 30; ++round) {
    const WordCounts words =
        RandomWords(rng, 160, alphabets[round % 3], 1, 12, round % 2 == 0 ? 3 : 200);
    for (const MergeRules rules : {MergeRules{}, MergeRules{5, 0}, MergeRules{0, 3}}) {
      const Merges want = NaiveMerges(words, 100, rules);
      WordTable wide = TableOf(words);
      EXPECT_EQ(LearnMerges(wide, 100, nullptr, ahead, nullptr, rules), want) << round;
      NarrowWordTable narrow = TableOf<NarrowWordTable>(words);
      EXPECT_EQ(LearnMerges(narrow, 100, nullptr, ahead, nullptr, rules), want)
          << round << " narrow";
    }
  }
}

// A word's count and length lie just before its symbols, and the search for a pair reads them
// along with the symbols of a short word: a count of 97 ('a') followed by zeros spells the pair
// "a\0" there, and must not be taken for an occurrence.
TEST(LearnMergesTest, AWordsCountIsNotTakenForItsSymbols) {
  using std::string_literals::operator""s;
  const WordCounts words = {{"a\0"s, 97}, {"ba\0"s, 97}, {"cba\0"s, 97}, {"dcba\0"s, 97}};
  const Merges want = NaiveMerges(words, 10);
  ASSERT_EQ(want.front(), std::make_pair("a"s, "\0"s));
  WordTable wide = TableOf(words);
  EXPECT_EQ(LearnMerges(wide, 10), want);
  NarrowWordTable narrow = TableOf<NarrowWordTable>(words);
  EXPECT_EQ(LearnMerges(narrow, 10), want);
}

// 16-bit symbols hold ids up to 65,535: a NarrowWordTable asked for more merges than that is
// widened first. Here the words allow more than 65,280 merges, so ids beyond 16 bits are made;
// the 32-bit table's merges are the reference (the naive merger would take minutes). A table
// with a word long enough to be indexed is widened too.
TEST(LearnMergesTest, NarrowTablesWidenWhereSixteenBitsCannotHoldTheIds) {
  std::mt19937_64 rng(11);
  std::map<std::string, uint64_t> distinct;
  while (distinct.size() < 30000) {
    std::string word;
    for (size_t n = 4 + rng() % 12; n > 0; --n) word += static_cast<char>('a' + rng() % 26);
    distinct[word] += 1 + rng() % 5;
  }
  const WordCounts words(distinct.begin(), distinct.end());
  WordTable wide = TableOf(words);
  const Merges want = LearnMerges(wide, 70000);
  ASSERT_GT(want.size(), 66000u);
  NarrowWordTable narrow = TableOf<NarrowWordTable>(words);
  EXPECT_EQ(LearnMerges(narrow, 70000), want);
  const WordCounts few(words.begin(), words.begin() + 300);
  const Merges want_few = NaiveMerges(few, 500);
  for (size_t min_indexed : {size_t{2}, size_t{8}, kIndexedWordLength}) {
    NarrowWordTable table = TableOf<NarrowWordTable>(few);
    EXPECT_EQ(LearnMerges(table, 500, nullptr, {}, nullptr, {}, min_indexed), want_few)
        << min_indexed;
  }
}

// A few very long words (runs of one letter, random text over small alphabets), as inputs
// without safe cut points produce: the indexed rewrite gives the scan's merges.
TEST(LearnMergesTest, LongWordsThroughTheIndex) {
  std::mt19937_64 rng(7);
  WordCounts words = {{std::string(3001, 'a'), 1}, {"aaab", 4}};
  for (const std::string alphabet : {"ab", "abcdefgh"}) {
    std::string word;
    for (int i = 0; i < 2500; ++i) word += alphabet[rng() % alphabet.size()];
    words.emplace_back(word, 1 + rng() % 3);
  }
  const Merges want = NaiveMerges(words, 60);
  ASSERT_EQ(want.size(), 60u);
  for (size_t min_indexed : {size_t{2}, size_t{1000}, kIndexedWordLength}) {
    WordTable table = TableOf(words);
    EXPECT_EQ(LearnMerges(table, 60, nullptr, {}, nullptr, {}, min_indexed), want) << min_indexed;
  }
}

// The pairs an occurrence's neighbour changes when (left, right) merges into `merged`: on the
// left, (P, left) becomes (P, merged); on the right, (right, N) becomes (merged, N).
auto PairChanges(std::map<PairKey, int>& changes, uint32_t left, uint32_t right, uint32_t merged) {
  return [&changes, left, right, merged](Side side, uint32_t n) {
    if (side == Side::kLeft) {
      --changes[MakePair(n, left)];
      ++changes[MakePair(n, merged)];
    } else {
      --changes[MakePair(right, n)];
      ++changes[MakePair(merged, n)];
    }
  };
}

// The index on its own: merging rewrites the same symbols as a scan, and reports each pair
// that appears or disappears.
TEST(IndexedWordTest, MergesLeftToRightAndReportsChanges) {
  std::vector<uint32_t> s = {'a', 'a', 'a', 'b', 'a', 'b', 'a', 'a'};
  IndexedWord word(s.data(), static_cast<uint32_t>(s.size()));
  std::map<PairKey, int> changes;
  word.Merge(s.data(), 'a', 'a', 'X', PairChanges(changes, 'a', 'a', 'X'));  // X a b a b X
  EXPECT_EQ(word.Symbols(s.data()), (std::vector<uint32_t>{'X', 'a', 'b', 'a', 'b', 'X'}));
  EXPECT_EQ(changes[MakePair('X', 'a')], 1);
  EXPECT_EQ(changes[MakePair('b', 'X')], 1);
  EXPECT_EQ(changes[MakePair('b', 'a')], -1);  // the last "b a" became "b X"
  changes.clear();
  word.Merge(s.data(), 'a', 'b', 'Y', PairChanges(changes, 'a', 'b', 'Y'));  // X Y Y X
  EXPECT_EQ(word.Symbols(s.data()), (std::vector<uint32_t>{'X', 'Y', 'Y', 'X'}));
  EXPECT_EQ(changes[MakePair('Y', 'Y')], 1);
  EXPECT_EQ(changes[MakePair('Y', 'X')], 1);
  EXPECT_EQ(changes[MakePair('X', 'Y')], 1);
  EXPECT_EQ(changes[MakePair('b', 'a')], -1);
  word.Merge(s.data(), 'Y', 'Y', 'Z', PairChanges(changes, 'Y', 'Y', 'Z'));  // X Z X
  changes.clear();
  word.Merge(s.data(), 'q', 'q', 'W', PairChanges(changes, 'q', 'q', 'W'));  // absent: nothing
  EXPECT_TRUE(changes.empty());
  EXPECT_EQ(word.Symbols(s.data()), (std::vector<uint32_t>{'X', 'Z', 'X'}));
}

// Random words over two or three letters, merged through the index until one symbol is left
// (most frequent pair first, as training would): after each merge the symbols equal a plain
// left-to-right rewrite, and the reported changes equal the change in the pair counts. Long
// runs merged away, and stale starts inside them, are what this exercises.
TEST(IndexedWordTest, MatchesAPlainRewriteUntilOneSymbolIsLeft) {
  std::mt19937_64 rng(11);
  auto pair_counts = [](const std::vector<uint32_t>& w) {
    std::map<PairKey, int> counts;
    for (size_t i = 0; i + 1 < w.size(); ++i) ++counts[MakePair(w[i], w[i + 1])];
    return counts;
  };
  for (int round = 0; round < 200; ++round) {
    std::vector<uint32_t> s(1 + rng() % 300);
    for (uint32_t& c : s) c = 'a' + rng() % (2 + round % 2);
    std::vector<uint32_t> plain = s;
    IndexedWord word(s.data(), static_cast<uint32_t>(s.size()));
    for (uint32_t merged = 256; plain.size() > 1; ++merged) {
      const std::map<PairKey, int> before = pair_counts(plain);
      const PairKey best = std::max_element(before.begin(), before.end(), [](auto& a, auto& b) {
                             return a.second < b.second;
                           })->first;
      std::vector<uint32_t> next;
      for (size_t i = 0; i < plain.size(); ++i) {
        const bool hit = i + 1 < plain.size() && MakePair(plain[i], plain[i + 1]) == best;
        next.push_back(hit ? merged : plain[i]);
        i += hit;
      }
      plain = next;
      std::map<PairKey, int> reported;
      word.Merge(s.data(), PairLeft(best), PairRight(best), merged,
                 PairChanges(reported, PairLeft(best), PairRight(best), merged));
      ASSERT_EQ(word.Symbols(s.data()), plain) << "round " << round << ", token " << merged;
      std::map<PairKey, int> want = pair_counts(plain);
      for (const auto& [pair, n] : before) want[pair] -= n;
      want.erase(best);
      for (auto it = want.begin(); it != want.end();) it = it->second == 0 ? want.erase(it) : ++it;
      reported.erase(best);
      for (auto it = reported.begin(); it != reported.end();) {
        it = it->second == 0 ? reported.erase(it) : ++it;
      }
      ASSERT_EQ(reported, want) << "round " << round << ", token " << merged;
    }
  }
}

}  // namespace
}  // namespace bpeforge::internal
