// The compact-key counter counts exactly what a plain map of strings counts.
#include "core/count/counting_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/count/pretoken_counts.h"
#include "core/pretokenize/pretokenizer.h"
#include "core/pretokenize/special_tokens.h"

namespace bpeforge::internal {
namespace {

std::map<std::string, uint64_t> Contents(const CountingTable& c) {
  std::map<std::string, uint64_t> out;
  c.ForEach([&](absl::string_view w, uint64_t n) { out[std::string(w)] += n; });
  return out;
}

TEST(CountingTableTest, MatchesAPlainMapForEveryLength) {
  std::mt19937_64 rng(5);
  CountingTable counter;
  std::map<std::string, uint64_t> expected;
  for (int i = 0; i < 20000; ++i) {
    const size_t len = rng() % 40;
    std::string w;
    // Few distinct bytes, including NUL and high bytes, so keys collide in prefixes.
    for (size_t j = 0; j < len; ++j) w.push_back("a\0\xff b"[rng() % 5]);
    // Read through a window of a larger buffer: the counter must not read outside it.
    std::string padded = "XXXXXXXX" + w + "YYYYYYYY";
    counter.Add(absl::string_view(padded).substr(8, w.size()), i % 3 + 1);
    expected[w] += i % 3 + 1;
  }
  EXPECT_EQ(Contents(counter), expected);
  EXPECT_EQ(counter.size(), expected.size());
}

// Words as text has them: a few frequent ones (counted apart once the table is large) half
// of the time, else rare ones of 4 to 19 letters.
std::vector<std::string> FrequentAndRareWords(uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> words;
  for (int i = 0; i < n; ++i) {
    if (i % 2 == 0) {
      words.push_back(absl::StrCat("f", rng() % 2000));
      continue;
    }
    std::string w(4 + rng() % 16, ' ');
    for (char& c : w) c = static_cast<char>('a' + rng() % 26);
    words.push_back(std::move(w));
  }
  return words;
}

// Adds `words` to `counter` in batches of every size, as the counting of a text does.
void AddInBatches(const std::vector<std::string>& words, uint64_t seed, CountingTable& counter) {
  std::mt19937_64 rng(seed);
  // The words lie in one text, each followed by other bytes the keys must not take in.
  std::string text;
  std::vector<size_t> starts;
  for (const std::string& w : words) {
    starts.push_back(text.size());
    text += w + "#garbage";
  }
  const char* end = text.data() + text.size();
  CountingTable::Batches batches(counter);
  for (size_t i = 0; i < words.size();) {
    const size_t n =
        std::min<size_t>(rng() % (CountingTable::Batches::kBatch + 1), words.size() - i);
    std::vector<absl::string_view> batch;
    for (size_t j = i; j < i + n; ++j) {
      batch.push_back(absl::string_view(text).substr(starts[j], words[j].size()));
    }
    batches.Add(batch.data(), n, end);
    i += n;
  }
}

// Counts as unordered maps: the large tests' std::map took seconds.
using Tallies = absl::flat_hash_map<std::string, uint64_t>;
Tallies Tally(const std::vector<std::string>& words) {
  Tallies out;
  for (const std::string& w : words) ++out[w];
  return out;
}
Tallies UnorderedContents(const CountingTable& c) {
  Tallies out;
  c.ForEach([&](absl::string_view w, uint64_t n) { out[std::string(w)] += n; });
  return out;
}

// Batches take the prefetching path once the table is large: hundreds of thousands of
// distinct keys of every length, some frequent, in batches of every size. The frequent ones
// are chosen again on the way, at 65,536 and at 1,048,576 distinct short keys.
TEST(CountingTableTest, BatchesMatchAPlainMapOnLargeTables) {
  const std::vector<std::string> words = FrequentAndRareWords(9, 3200000);
  CountingTable counter;
  AddInBatches(words, 10, counter);
  const Tallies expected = Tally(words);
  ASSERT_GT(std::count_if(expected.begin(), expected.end(),
                          [](const auto& e) { return e.first.size() <= kMaxShortKey; }),
            1100000);
  EXPECT_EQ(UnorderedContents(counter), expected);
  EXPECT_EQ(counter.size(), expected.size());
}

// Tables filled in batches, whose frequent pre-tokens are counted apart, combine exactly.
TEST(CountingTableTest, TablesFilledInBatchesCombine) {
  const std::vector<std::string> a_words = FrequentAndRareWords(1, 300000);
  const std::vector<std::string> b_words = FrequentAndRareWords(2, 200000);
  const std::vector<std::string> c_words = FrequentAndRareWords(3, 200000);
  CountingTable a, b, c;
  AddInBatches(a_words, 4, a);
  AddInBatches(b_words, 5, b);
  AddInBatches(c_words, 6, c);
  Tallies all = Tally(a_words);
  for (const auto& [w, n] : Tally(b_words)) all[w] += n;
  Tallies b_and_c = Tally(b_words);
  for (const auto& [w, n] : Tally(c_words)) b_and_c[w] += n;

  b.MergeFrom(c);
  EXPECT_EQ(UnorderedContents(b), b_and_c);
  b.MoveCommonInto(a);
  Tallies both = UnorderedContents(a);
  for (const auto& [w, n] : UnorderedContents(b)) {
    EXPECT_EQ(both.count(w), 0u) << w;
    both[w] += n;
  }
  for (const auto& [w, n] : Tally(c_words)) all[w] += n;
  EXPECT_EQ(both, all);
  // Both tables are still counted into, in batches.
  AddInBatches(c_words, 7, a);
  AddInBatches(c_words, 8, b);
  for (const auto& [w, n] : Tally(c_words)) all[w] += 2 * n;
  both = UnorderedContents(a);
  for (const auto& [w, n] : UnorderedContents(b)) both[w] += n;
  EXPECT_EQ(both, all);
}
// Counting a text with so many distinct pre-tokens that the counter switches to batches part
// way through gives the counts of the plain map.
TEST(CountingTableTest, CountPreTokensMatchesThePlainMapAcrossTheSwitchToBatches) {
  std::mt19937_64 rng(11);
  std::string text;
  for (int i = 0; i < 600000; ++i) {
    text += i % 7 == 0 ? " the" : " w" + std::to_string(rng() % 400000);
    if (i % 5000 == 0) text += "<|endoftext|>";
  }
  const SpecialTokens specials({"<|endoftext|>"});
  const std::unique_ptr<PreTokenizer> pretokenizer = MakePreTokenizer(Pattern::kGpt2);
  CountingTable counter;
  PreTokenCounts plain;
  const uint64_t seen = CountPreTokens(text, specials, *pretokenizer, &counter);
  EXPECT_EQ(seen, CountPreTokens(text, specials, *pretokenizer, &plain));
  ASSERT_TRUE(counter.PrefersBatches());
  std::map<std::string, uint64_t> expected(plain.begin(), plain.end());
  EXPECT_EQ(Contents(counter), expected);
}

// A worker keeps one cache of recent pre-tokens across many short texts (JSON Lines documents),
// and its table has every count once the cache is gone, including across the switch to batches.
TEST(CountingTableTest, OneCacheAcrossManyTextsLosesNoCount) {
  std::mt19937_64 rng(17);
  const SpecialTokens specials({"<|endoftext|>"});
  const std::unique_ptr<PreTokenizer> pretokenizer = MakePreTokenizer(Pattern::kGpt2);
  CountingTable counter;
  PreTokenCounts plain;
  uint64_t seen = 0, expected_seen = 0;
  {
    CountingTable::RecentCache recent(counter);
    for (int doc = 0; doc < 3000; ++doc) {
      std::string text;
      for (int i = 0; i < 200; ++i) {
        text += i % 5 == 0 ? " the" : " w" + std::to_string(rng() % (doc < 1000 ? 300 : 400000));
      }
      seen += CountPreTokens(text, specials, *pretokenizer, &recent);
      expected_seen += CountPreTokens(text, specials, *pretokenizer, &plain);
    }
  }
  EXPECT_EQ(seen, expected_seen);
  EXPECT_TRUE(counter.PrefersBatches());
  std::map<std::string, uint64_t> expected(plain.begin(), plain.end());
  EXPECT_EQ(Contents(counter), expected);
}

// A token with 16 (32 for one of 16 to 31 bytes) readable bytes after its start is packed by
// loads and masks, one near the end of its text byte by byte: both must give the same key,
// whatever bytes follow it. The cache of recent pre-tokens and the batches (which pack that
// way) hold some counts until they go out of scope; thousands of distinct keys collide in the
// cache's slots.
TEST(CountingTableTest, TokensReadPastTheirEndGiveTheKeysOfExactReads) {
  std::mt19937_64 rng(13);
  CountingTable counter;
  std::map<std::string, uint64_t> expected;
  auto cache = std::make_unique<CountingTable::RecentCache>(counter);
  auto batches = std::make_unique<CountingTable::Batches>(counter);
  for (int i = 0; i < 40000; ++i) {
    const size_t len = rng() % 40;
    std::string w;
    for (size_t j = 0; j < len; ++j) w.push_back("a\0\xff b"[rng() % 5]);
    std::string text = w;
    const size_t after = rng() % 40;  // readable bytes after the token: often fewer than 32
    for (size_t j = 0; j < after; ++j) text.push_back(static_cast<char>(rng()));
    const absl::string_view token = absl::string_view(text).substr(0, len);
    const char* end = text.data() + text.size();
    cache->Add(token, end);
    counter.Add(token, end);
    counter.Add(token);
    batches->Add(&token, 1, end);
    expected[w] += 4;
  }
  cache.reset();
  batches.reset();
  EXPECT_EQ(Contents(counter), expected);
  EXPECT_EQ(counter.size(), expected.size());
}

// Tokens of 16 to 31 bytes have a table of their own: a hundred thousand distinct ones (and
// short and longer ones among them), counted in batches into two tables and combined, give the
// counts of a plain map.
TEST(CountingTableTest, MediumTokensCountAndCombineLikeAPlainMap) {
  auto words_of = [](uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    std::vector<std::string> words;
    for (int i = 0; i < n; ++i) {
      std::string w(1 + rng() % 40, ' ');
      for (char& c : w) c = static_cast<char>('a' + rng() % 3);  // many share long prefixes
      words.push_back(std::move(w));
    }
    return words;
  };
  const std::vector<std::string> a_words = words_of(31, 300000), b_words = words_of(32, 200000);
  CountingTable a, b;
  AddInBatches(a_words, 33, a);
  AddInBatches(b_words, 34, b);
  Tallies all = Tally(a_words);
  for (const auto& [w, n] : Tally(b_words)) all[w] += n;
  ASSERT_GT(std::count_if(all.begin(), all.end(),
                          [](const auto& e) {
                            return e.first.size() > kMaxShortKey && e.first.size() <= kMaxMediumKey;
                          }),
            100000);
  EXPECT_EQ(UnorderedContents(a), Tally(a_words));
  b.MoveCommonInto(a);
  Tallies both = UnorderedContents(a);
  for (const auto& [w, n] : UnorderedContents(b)) {
    EXPECT_EQ(both.count(w), 0u) << w;
    both[w] += n;
  }
  EXPECT_EQ(both, all);
  CountingTable c;
  c.MergeFrom(a);
  c.MergeFrom(b);
  EXPECT_EQ(UnorderedContents(c), all);
  EXPECT_EQ(c.size(), all.size());
}

// The benchmarks' counting-free pass sees exactly the pre-tokens that counting sees.
TEST(CountingTableTest, ScanPreTokensSeesWhatCountingCounts) {
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    text += i % 11 == 0  ? "<|endoftext|>"
            : i % 3 == 0 ? " don't 42!\n"
                         : " caf\u00e9 w" + std::to_string(i);
  }
  const SpecialTokens specials({"<|endoftext|>"});
  const std::unique_ptr<PreTokenizer> pretokenizer = MakePreTokenizer(Pattern::kGpt2);
  PreTokenCounts plain;
  const uint64_t counted = CountPreTokens(text, specials, *pretokenizer, &plain);
  uint64_t total = 0;
  for (const auto& [token, n] : plain) total += n;
  EXPECT_EQ(counted, total);
  EXPECT_EQ(ScanPreTokens(text, specials, *pretokenizer), total);
  EXPECT_GT(total, 6000u);
}

TEST(CountingTableTest, LengthIsPartOfTheKey) {
  CountingTable c;
  c.Add(absl::string_view("a", 1));
  c.Add(absl::string_view("a\0", 2));
  c.Add(absl::string_view("a\0\0\0\0\0\0\0\0", 9));
  EXPECT_EQ(c.size(), 3u);
}

TEST(CountingTableTest, MergeFromAddsCounts) {
  CountingTable a, b;
  a.Add("the", 2);
  b.Add("the", 3);
  b.Add("a very long pre-token of many bytes", 1);
  a.MergeFrom(b);
  auto m = Contents(a);
  EXPECT_EQ(m["the"], 5u);
  EXPECT_EQ(m["a very long pre-token of many bytes"], 1u);
}

TEST(CountingTableTest, MoveCommonIntoMovesOnlyWhatBothHold) {
  const std::string long_token = "a very long pre-token of many bytes";
  CountingTable a, b;
  a.Add("the", 2);
  a.Add(long_token, 1);
  a.Add("only in a", 7);
  b.Add("the", 3);
  b.Add(long_token, 4);
  b.Add("only in b", 5);
  a.MoveCommonInto(b);
  EXPECT_EQ(Contents(a), (std::map<std::string, uint64_t>{{"only in a", 7}}));
  EXPECT_EQ(Contents(b),
            (std::map<std::string, uint64_t>{{"the", 5}, {long_token, 5}, {"only in b", 5}}));
}

// Parts on threads of their own, all at once.
Parallelism OnThreads(size_t workers) {
  Parallelism parallelism;
  parallelism.workers = workers;
  parallelism.run = [](size_t n, const std::function<void(size_t)>& task) {
    std::vector<std::thread> threads;
    for (size_t part = 0; part < n; ++part) threads.emplace_back(task, part);
    for (std::thread& thread : threads) thread.join();
  };
  return parallelism;
}

// Two tables of 150,000 random words each (most short, some medium and long), half of them
// shared: large enough that MoveCommonInto reads the short keys in parts.
void FillOverlapping(CountingTable& a, CountingTable& b) {
  std::mt19937_64 rng(9);
  for (int i = 0; i < 300000; ++i) {
    const uint64_t id = rng() % 200000;
    std::string word = absl::StrCat("w", id);
    if (id % 50 == 0) word.append(20, 'm');
    if (id % 500 == 0) word.append(40, 'l');
    (i % 2 == 0 ? a : b).Add(word, id % 7 + 1);
  }
}

TEST(CountingTableTest, MoveCommonIntoOnThreadsMatchesOneThreadInOrder) {
  CountingTable a1, b1, a2, b2;
  FillOverlapping(a1, b1);
  FillOverlapping(a2, b2);
  a1.MoveCommonInto(b1);
  a2.MoveCommonInto(b2, OnThreads(3));
  // The packed keys in the order the word table takes them (the long ones' order is the hash
  // map's, which differs between two maps of the same keys).
  auto packed_in_order = [](const CountingTable& c) {
    std::vector<std::pair<std::string, uint64_t>> out;
    c.ForEach([&](absl::string_view w, uint64_t n) {
      if (w.size() < 40) out.emplace_back(std::string(w), n);
    });
    return out;
  };
  const auto a_left = Contents(a1), b_left = Contents(b1);
  EXPECT_GT(a_left.size(), 10000u);
  EXPECT_EQ(Contents(a2), a_left);
  EXPECT_EQ(Contents(b2), b_left);
  EXPECT_EQ(packed_in_order(a2), packed_in_order(a1));
  for (const auto& [word, n] : a_left) EXPECT_EQ(b_left.count(word), 0u) << word;
}

// The table under the counter, through its growth and an erase.
TEST(ShortKeyCountsTest, CountsLikeAMapThroughRehashesAndErasing) {
  std::mt19937_64 rng(21);
  ShortKeyCounts counts;
  absl::flat_hash_map<uint64_t, uint64_t> expected;  // by the key's first word
  for (int i = 0; i < 300000; ++i) {
    const uint64_t lo = rng() % 100000;
    counts[ShortKey{lo, uint64_t{8} << 56}] += 2;
    expected[lo] += 2;
  }
  EXPECT_EQ(counts.size(), expected.size());
  EXPECT_EQ(counts.Find(ShortKey{100000, uint64_t{8} << 56}), nullptr);
  ASSERT_NE(counts.Find(ShortKey{7, uint64_t{8} << 56}), nullptr);
  EXPECT_EQ(*counts.Find(ShortKey{7, uint64_t{8} << 56}), expected[7]);
  size_t asked = 0;
  counts.EraseIf([&](const ShortKey& key, uint64_t) {
    ++asked;
    return key.lo % 3 == 0;
  });
  EXPECT_EQ(asked, expected.size());
  absl::erase_if(expected, [](const auto& e) { return e.first % 3 == 0; });
  absl::flat_hash_map<uint64_t, uint64_t> left;
  counts.ForEach([&](const ShortKey& key, uint64_t n) { left[key.lo] += n; });
  EXPECT_EQ(left, expected);
  EXPECT_EQ(counts.size(), expected.size());
  ++counts[ShortKey{3, uint64_t{8} << 56}];  // erased: counted from 0 again
  EXPECT_EQ(*counts.Find(ShortKey{3, uint64_t{8} << 56}), 1u);
}

}  // namespace
}  // namespace bpeforge::internal
