// The compact-key counter counts exactly what a plain map of strings counts.
#include "core/train/counting_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/pretokenize/pretokenizer.h"
#include "core/pretokenize/special_tokens.h"
#include "core/train/pretoken_counts.h"

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

// Batches take the prefetching path once the table is large: hundreds of thousands of
// distinct keys of every length, some repeated, in batches of every size.
TEST(CountingTableTest, BatchesMatchAPlainMapOnLargeTables) {
  std::mt19937_64 rng(9);
  std::vector<std::string> words;
  for (int i = 0; i < 400000; ++i) {
    std::string w = std::to_string(rng() % 300000);
    w.resize(1 + rng() % 24, static_cast<char>('a' + i % 26));
    words.push_back(std::move(w));
  }
  // The words lie in one text, each followed by other bytes the keys must not take in.
  std::string text;
  std::vector<size_t> starts;
  for (const std::string& w : words) {
    starts.push_back(text.size());
    text += w + "#garbage";
  }
  const char* end = text.data() + text.size();
  CountingTable counter;
  std::map<std::string, uint64_t> expected;
  for (size_t i = 0; i < words.size();) {
    const size_t n = std::min<size_t>(rng() % (CountingTable::kBatch + 1), words.size() - i);
    std::vector<absl::string_view> batch;
    for (size_t j = i; j < i + n; ++j) {
      batch.push_back(absl::string_view(text).substr(starts[j], words[j].size()));
    }
    counter.AddBatch(batch.data(), n, end);
    for (size_t j = 0; j < n; ++j) ++expected[words[i + j]];
    i += n;
  }
  ASSERT_GT(expected.size(), 200000u);
  EXPECT_EQ(Contents(counter), expected);
  EXPECT_EQ(counter.size(), expected.size());
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

// A token with 16 readable bytes after its start is packed by loads and masks, one near the
// end of its text byte by byte: both must give the same key, whatever bytes follow it. The
// cache of recent pre-tokens (which packs that way) holds some counts until it goes out of
// scope; thousands of distinct keys collide in its slots.
TEST(CountingTableTest, TokensReadPastTheirEndGiveTheKeysOfExactReads) {
  std::mt19937_64 rng(13);
  CountingTable counter;
  std::map<std::string, uint64_t> expected;
  auto cache = std::make_unique<CountingTable::RecentCache>(counter);
  for (int i = 0; i < 20000; ++i) {
    const size_t len = rng() % 20;
    std::string w;
    for (size_t j = 0; j < len; ++j) w.push_back("a\0\xff b"[rng() % 5]);
    std::string text = w;
    const size_t after = rng() % 20;  // readable bytes after the token: often fewer than 16
    for (size_t j = 0; j < after; ++j) text.push_back(static_cast<char>(rng()));
    cache->Add(absl::string_view(text).substr(0, len), text.data() + text.size());
    counter.Add(absl::string_view(text).substr(0, len), text.data() + text.size());
    counter.Add(absl::string_view(text).substr(0, len));
    expected[w] += 3;
  }
  cache.reset();
  EXPECT_EQ(Contents(counter), expected);
  EXPECT_EQ(counter.size(), expected.size());
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

}  // namespace
}  // namespace bpeforge::internal
