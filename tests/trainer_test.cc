// The trainer against the slow reference on many generated corpora, and the results'
// independence of thread count and chunk size.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/train/vocab.h"
#include "parallel/train.h"
#include "tests/reference_trainer.h"
#include "tests/test_util.h"
#include "tests/text_gen.h"

namespace bpeforge::internal {
namespace {

using testing::ReferenceTrain;
using testing::TempDir;

TrainJobResult TrainDocs(const TempDir& dir, const std::vector<std::string>& docs,
                         size_t vocab_size, const std::vector<std::string>& specials,
                         int threads = 2, size_t chunk_bytes = 1 << 20,
                         Pattern pattern = Pattern::kGpt2, MergeRules rules = {},
                         const std::string& custom_regex = "", size_t min_split_words = 1) {
  TrainJob options;
  for (size_t i = 0; i < docs.size(); ++i) {
    options.inputs.push_back(dir.File("doc" + std::to_string(i) + ".txt"));
    testing::WriteFile(options.inputs.back(), docs[i]);
  }
  options.trainer.vocab_size = vocab_size;
  options.trainer.special_tokens = specials;
  options.threads = threads;
  options.chunk_bytes = chunk_bytes;
  options.pattern = pattern;
  options.trainer.rules = rules;
  options.custom_regex = custom_regex;
  // By default every merge with threads > 1 splits its word rewrites among them, however few
  // words it has: the comparisons below then cover the split path, which large corpora take.
  options.min_split_words = min_split_words;
  absl::StatusOr<TrainJobResult> result = RunTrainJob(options);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : TrainJobResult{};
}

TEST(TrainerTest, TextbookExample) {
  // The CS336 handout's example, pre-tokenized: "low" x5, "lower" x2, "widest" x3,
  // "newest" x6 (with leading spaces, as the GPT-2 pattern attaches them).
  TempDir dir;
  TrainJobResult r =
      TrainDocs(dir,
                {"low low low low low lower lower widest widest widest newest newest newest newest "
                 "newest newest"},
                256 + 6, {});
  Merges expected = {{"s", "t"}, {"e", "st"}, {"o", "w"}, {"l", "ow"}, {"w", "est"}, {"n", "e"}};
  EXPECT_EQ(r.trained.merges, expected);
}

TEST(TrainerTest, TieGoesToLexicographicallyGreaterPair) {
  // "ab" and "cd" occur equally often; ("c","d") > ("a","b") so it merges first.
  TempDir dir;
  TrainJobResult r = TrainDocs(dir, {"ab cd ab cd"}, 256 + 1, {});
  ASSERT_EQ(r.trained.merges.size(), 1u);
  EXPECT_EQ(r.trained.merges[0], Merge("c", "d"));
}

TEST(TrainerTest, OverlappingRunsCountOnceAndMergeLeftToRight) {
  // "aaaa" holds the pair (a,a) three times but merges into two "aa".
  TempDir dir;
  TrainJobResult r = TrainDocs(dir, {"aaaa aaa"}, 256 + 3, {});
  Merges expected = {{"a", "a"}, {"aa", "aa"}, {" ", "aa"}};
  EXPECT_EQ(r.trained.merges, ReferenceTrain({"aaaa aaa"}, 256 + 3, {}));
  EXPECT_EQ(r.trained.merges[0], expected[0]);
  EXPECT_EQ(r.trained.merges[1], expected[1]);
}

TEST(TrainerTest, SpecialTokensNeverMerge) {
  TempDir dir;
  const std::string text = "ab<|endoftext|>ab<|endoftext|><|endoftext|>ab";
  TrainJobResult r = TrainDocs(dir, {text}, 1000, {"<|endoftext|>"});
  // Only "ab" is left once the special tokens are cut out: exactly one merge is possible.
  ASSERT_EQ(r.trained.merges.size(), 1u);
  EXPECT_EQ(r.trained.merges[0], Merge("a", "b"));
  EXPECT_EQ(r.trained.vocab.size(), 256u + 1 + 1);
  EXPECT_EQ(r.trained.vocab[256], "<|endoftext|>");
}

TEST(TrainerTest, OverlappingSpecialTokensLongestWins) {
  TempDir dir;
  const std::vector<std::string> specials = {"<|endoftext|>", "<|endoftext|><|endoftext|>"};
  const std::string text = "x<|endoftext|><|endoftext|>y <|endoftext|>z";
  TrainJobResult r = TrainDocs(dir, {text}, 400, specials);
  EXPECT_EQ(r.trained.merges, ReferenceTrain({text}, 400, specials));
  EXPECT_EQ(r.stats.pretokens, 4u);  // "x", "y", " ", "z"
}

TEST(TrainerTest, StopsWhenNoPairIsLeft) {
  TempDir dir;
  TrainJobResult r = TrainDocs(dir, {"abc"}, 100000, {});
  EXPECT_EQ(r.trained.merges.size(), 2u);
  EXPECT_EQ(r.trained.vocab.size(), 258u);
}

TEST(TrainerTest, EmptyInputGivesBytesAndSpecials) {
  TempDir dir;
  TrainJobResult r = TrainDocs(dir, {""}, 1000, {"<|endoftext|>", "<pad>", "<pad>"});
  EXPECT_TRUE(r.trained.merges.empty());
  EXPECT_EQ(r.trained.vocab.size(), 258u);  // duplicate special used once
  EXPECT_EQ(r.stats.bytes, 0u);
}

TEST(TrainerTest, SeparateFilesAreSeparateDocuments) {
  // "ab" split across two files must not produce the pair (a, b).
  TempDir dir;
  TrainJobResult r = TrainDocs(dir, {"xa", "bx"}, 300, {});
  for (const Merge& m : r.trained.merges) EXPECT_NE(m, Merge("a", "b"));
  EXPECT_EQ(r.trained.merges, ReferenceTrain({"xa", "bx"}, 300, {}));
}

TEST(TrainerTest, HfLayoutPutsSpecialsFirstThenBytesInGpt2Order) {
  TempDir dir;
  TrainJobResult r = TrainDocs(dir, {"hello hello"}, 260, {"<s>"});
  Vocab hf = BuildVocab({"<s>"}, r.trained.merges, IdLayout::kHf);
  EXPECT_EQ(hf[0], "<s>");
  EXPECT_EQ(hf[1], "!");                         // first printable byte in GPT-2 order
  EXPECT_EQ(hf[1 + 188], std::string(1, '\0'));  // then the non-printable ones
  EXPECT_EQ(hf[257], r.trained.merges[0].first + r.trained.merges[0].second);
}

TEST(TrainerTest, IsBuiltVocabTellsAVocabThatTheLayoutDoesNotMake) {
  const Merges merges = {{"h", "e"}, {"he", "llo"}, {"l", "lo"}};
  for (IdLayout layout : {IdLayout::kBytesFirst, IdLayout::kHf}) {
    const Vocab built = BuildVocab({"<s>", "</s>"}, merges, layout);
    EXPECT_TRUE(IsBuiltVocab(built, {"<s>", "</s>"}, merges, layout));
    EXPECT_FALSE(IsBuiltVocab(built, {"</s>", "<s>"}, merges, layout));  // specials swapped
    EXPECT_FALSE(IsBuiltVocab(built, {"<s>", "</s>"}, merges,
                              layout == IdLayout::kHf ? IdLayout::kBytesFirst : IdLayout::kHf));
    Vocab edited = built;
    edited[edited.size() - 2] = "hellp";  // merge "he" "llo": same length, last byte off
    EXPECT_FALSE(IsBuiltVocab(edited, {"<s>", "</s>"}, merges, layout));
    edited[edited.size() - 2] = "jello";  // first byte off
    EXPECT_FALSE(IsBuiltVocab(edited, {"<s>", "</s>"}, merges, layout));
    edited = built;
    edited.pop_back();  // one token short
    EXPECT_FALSE(IsBuiltVocab(edited, {"<s>", "</s>"}, merges, layout));
  }
}

// Many random corpora: merges equal the slow reference, for several vocab sizes, with and
// without Unicode and special tokens.
TEST(TrainerTest, MatchesReferenceOnRandomCorpora) {
  const std::vector<std::string> specials = {"<|endoftext|>", "<|endoftext|><|endoftext|>",
                                             "[SEP]"};
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    testing::TextGenOptions gen;
    gen.fragments = 50 + seed * 10;
    gen.unicode = seed % 3 != 0;
    if (seed % 2 == 0) gen.special_tokens = specials;
    std::vector<std::string> docs = {testing::RandomText(seed, gen)};
    if (seed % 5 == 0) docs.push_back(testing::RandomText(seed * 1000, gen));
    const size_t vocab = 256 + gen.special_tokens.size() + 10 + (seed * 7) % 120;
    TempDir dir;
    TrainJobResult r = TrainDocs(dir, docs, vocab, gen.special_tokens, 2, 1 + seed * 13);
    ASSERT_EQ(r.trained.merges, ReferenceTrain(docs, vocab, gen.special_tokens)) << "seed " << seed;
  }
}

// Hugging Face's options: the reference learns the same rule, and the merges agree.
TEST(TrainerTest, MatchesReferenceWithMinFrequencyAndMaxTokenLength) {
  int stopped_by_min_frequency = 0;
  for (uint64_t seed = 200; seed < 230; ++seed) {
    testing::TextGenOptions gen;
    gen.fragments = 100 + seed % 7 * 40;
    gen.special_tokens = {"<|endoftext|>"};
    const std::vector<std::string> docs = {testing::RandomText(seed, gen)};
    const MergeRules rules{seed % 3 == 0 ? 0 : seed % 13 + 2, seed % 4 == 0 ? 0 : seed % 5 + 2};
    TempDir dir;
    TrainJobResult r =
        TrainDocs(dir, docs, 700, gen.special_tokens, 2, 1 + seed, Pattern::kGpt2, rules);
    ASSERT_EQ(r.trained.merges, ReferenceTrain(docs, 700, gen.special_tokens, Pattern::kGpt2,
                                               rules.min_frequency, rules.max_token_length))
        << "seed " << seed;
    if (rules.min_frequency > 0 && r.trained.merges.size() < 700 - 257 &&
        r.trained.merges != ReferenceTrain(docs, 700, gen.special_tokens, Pattern::kGpt2, 0,
                                           rules.max_token_length)) {
      ++stopped_by_min_frequency;
    }
    for (const auto& [left, right] : r.trained.merges) {
      if (rules.max_token_length > 0) {
        ASSERT_LE(left.size() + right.size(), rules.max_token_length);
      }
    }
  }
  EXPECT_GT(stopped_by_min_frequency, 5);  // the rule did change results
}

TEST(TrainerTest, MinFrequencyStopsOnTheTextbookExample) {
  // Pair counts in merge order: st 9, est 9, ow 7, low 7, west 6, ne 6, ...: a minimum of 7
  // keeps the first four.
  TempDir dir;
  TrainJobResult r =
      TrainDocs(dir,
                {"low low low low low lower lower widest widest widest newest newest "
                 "newest newest newest newest"},
                256 + 100, {}, 2, 1 << 20, Pattern::kGpt2, MergeRules{7, 0});
  Merges expected = {{"s", "t"}, {"e", "st"}, {"o", "w"}, {"l", "ow"}};
  EXPECT_EQ(r.trained.merges, expected);
  // No token longer than 2 bytes: "est" and "low" are passed over.
  r = TrainDocs(dir, {"low low low low low lower lower widest widest widest newest newest"},
                256 + 3, {}, 2, 1 << 20, Pattern::kGpt2, MergeRules{0, 2});
  for (const auto& [left, right] : r.trained.merges) EXPECT_EQ(left.size() + right.size(), 2u);
}

// A custom regex: the reference (the same Boost matcher, one pass, no chunks) learns the same
// merges, for any thread count and chunk size; text is cut only at special tokens.
TEST(TrainerTest, CustomPatternMatchesReferenceForAnyThreadsAndChunks) {
  const std::vector<std::string> regexes = {
      R"(\p{L}+|\p{N}|[^\s\p{L}\p{N}]+|\s+)",  // tiles the text
      R"( ?\p{Lu}?\p{Ll}+|\p{N}{1,2})",        // leaves gaps, which become pieces of their own
      R"((?i:the|and)|\w+|\s+(?!\S)|\s)",
  };
  const std::vector<std::string> specials = {"<|endoftext|>"};
  for (size_t k = 0; k < regexes.size(); ++k) {
    testing::TextGenOptions gen;
    gen.fragments = 400;
    gen.special_tokens = specials;
    const std::vector<std::string> docs = {testing::RandomText(300 + k, gen),
                                           testing::RandomText(400 + k, gen)};
    const Merges want = ReferenceTrain(docs, 600, specials, Pattern::kCustom, 0, 0, regexes[k]);
    ASSERT_GT(want.size(), 100u);
    for (int threads : {1, 2, 4}) {
      for (size_t chunk : {size_t{1}, size_t{97}, size_t{1} << 20}) {
        TempDir dir;
        TrainJobResult r =
            TrainDocs(dir, docs, 600, specials, threads, chunk, Pattern::kCustom, {}, regexes[k]);
        ASSERT_EQ(r.trained.merges, want)
            << regexes[k] << " " << threads << " threads, chunk " << chunk;
      }
    }
  }
}

TEST(TrainerTest, MatchesReferenceUnderOtherPatterns) {
  for (Pattern p : {Pattern::kCl100k, Pattern::kO200k}) {
    for (uint64_t seed = 100; seed < 110; ++seed) {
      testing::TextGenOptions gen;
      gen.fragments = 300;
      std::vector<std::string> docs = {testing::RandomText(seed, gen)};
      TempDir dir;
      TrainJobResult r = TrainDocs(dir, docs, 400, {}, 2, 97, p);
      ASSERT_EQ(r.trained.merges, ReferenceTrain(docs, 400, {}, p))
          << PatternName(p) << " seed " << seed;
    }
  }
}

// Same bytes out for any thread count and chunk size, including text with no special token.
TEST(TrainerTest, ThreadAndChunkInvariance) {
  testing::TextGenOptions gen;
  gen.fragments = 20000;
  gen.special_tokens = {"<|endoftext|>"};
  const std::vector<std::string> with = {testing::RandomText(7, gen)};
  gen.special_tokens.clear();
  const std::vector<std::string> without = {testing::RandomText(8, gen)};
  for (const auto* docs : {&with, &without}) {
    TempDir dir;
    TrainJobResult base = TrainDocs(dir, *docs, 600, {"<|endoftext|>"}, 1, 1 << 30);
    ASSERT_GT(base.trained.merges.size(), 100u);
    for (int threads : {1, 2, 4, 8}) {
      for (size_t chunk : {size_t{1}, size_t{17}, size_t{1000}, size_t{65536}}) {
        TrainJobResult r = TrainDocs(dir, *docs, 600, {"<|endoftext|>"}, threads, chunk);
        ASSERT_EQ(r.trained.merges, base.trained.merges) << threads << " threads, chunk " << chunk;
        ASSERT_EQ(r.trained.vocab, base.trained.vocab);
        ASSERT_EQ(r.stats.pretokens, base.stats.pretokens);
        ASSERT_EQ(r.stats.distinct_pretokens, base.stats.distinct_pretokens);
      }
    }
  }
}

// With a split threshold above most merges' words, each merge the count changes of the one
// before cannot alter is rewritten on one worker while those changes are applied on another
// (the merge loop's look-ahead), at once here: the merges are those of one thread.
TEST(TrainerTest, MergesRewrittenWhileCountsChangeAreTheSame) {
  testing::TextGenOptions gen;
  gen.fragments = 20000;
  gen.special_tokens = {"<|endoftext|>"};
  const std::vector<std::string> docs = {testing::RandomText(9, gen)};
  TempDir dir;
  const TrainJobResult base = TrainDocs(dir, docs, 1000, {"<|endoftext|>"}, 1);
  ASSERT_GT(base.trained.merges.size(), 500u);
  for (int threads : {2, 4}) {
    for (size_t min_split_words : {size_t{8}, size_t{64}, size_t{4096}}) {
      const TrainJobResult r = TrainDocs(dir, docs, 1000, {"<|endoftext|>"}, threads, 1 << 20,
                                         Pattern::kGpt2, {}, "", min_split_words);
      ASSERT_EQ(r.trained.merges, base.trained.merges)
          << threads << " threads, split from " << min_split_words;
    }
  }
}

// Each word of a table as (bytes, count), sorted: what the merge loop learns from.
std::vector<std::pair<std::string, uint64_t>> WordsOf(const AnyWordTable& any) {
  std::vector<std::pair<std::string, uint64_t>> words;
  std::visit(
      [&](const auto& table) {
        for (WordTable::WordId w : table.ids()) {
          std::string bytes(table.symbols(w), table.symbols(w) + table.length(w));
          words.emplace_back(bytes, table.count(w));
        }
      },
      any);
  std::sort(words.begin(), words.end());
  return words;
}

// The first two bytes of each word, in table order.
std::vector<std::string> FirstBytesOf(const AnyWordTable& any) {
  std::vector<std::string> first;
  std::visit(
      [&](const auto& table) {
        for (WordTable::WordId w : table.ids()) {
          first.emplace_back(table.symbols(w), table.symbols(w) + 2);
        }
      },
      any);
  return first;
}

TEST(TrainerTest, WordTableFromWorkersTablesEqualsTheOneFromSummedCounts) {
  // Three workers' tables sharing many pre-tokens, short (packed), medium and long, and one-byte
  // ones, which are distinct pre-tokens but no words. The tables are copied in parts by one to
  // four workers (one after the other here; training with threads runs them at once, as in
  // ThreadAndChunkInvariance).
  for (size_t workers : {1, 2, 4}) {
    PreTokenCounts sum;
    auto make_tables = [&sum] {
      std::mt19937 rng(3);
      std::vector<CountingTable> tables(3);
      sum.clear();
      for (size_t t = 0; t < tables.size(); ++t) {
        for (int i = 0; i < 5000 * static_cast<int>(t + 1); ++i) {
          std::string token(1 + rng() % 40, 'a');
          for (char& c : token) c = static_cast<char>('a' + rng() % 3);
          const uint64_t n = 1 + rng() % 5;
          tables[t].Add(token, n);
          sum[token] += n;
        }
      }
      return tables;
    };
    Parallelism parallelism;
    parallelism.workers = workers;
    parallelism.run = [](size_t n, const std::function<void(size_t)>& task) {
      for (size_t i = n; i > 0; --i) task(i - 1);  // any order
    };
    // Vocabulary size 0 (not given) and above 65,536 make 32-bit symbols, 1,000 16-bit ones.
    for (size_t vocab_size : {size_t{0}, size_t{1000}, size_t{70000}}) {
      std::vector<CountingTable> copies = make_tables();
      uint64_t distinct = 0;
      absl::StatusOr<AnyWordTable> from_tables =
          MakeWordTable(copies, &distinct, parallelism, vocab_size);
      absl::StatusOr<AnyWordTable> from_sum = MakeWordTable({&sum}, vocab_size);
      ASSERT_TRUE(from_tables.ok() && from_sum.ok());
      const bool narrow = vocab_size == 1000;
      EXPECT_EQ(std::holds_alternative<NarrowWordTable>(*from_tables), narrow) << vocab_size;
      EXPECT_EQ(std::holds_alternative<NarrowWordTable>(*from_sum), narrow) << vocab_size;
      EXPECT_EQ(distinct, sum.size());
      EXPECT_TRUE(copies.empty());
      const auto words = WordsOf(*from_tables);
      EXPECT_EQ(words, WordsOf(*from_sum)) << workers << " workers";
      EXPECT_EQ(words.size() + 3, sum.size());  // "a", "b" and "c" hold no pair
      // The words that start with the same two bytes lie together, in one run of ids.
      for (const AnyWordTable* table : {&*from_tables, &*from_sum}) {
        std::set<std::string> ended;
        std::string run;
        for (const std::string& first : FirstBytesOf(*table)) {
          if (first == run) continue;
          ended.insert(run);
          EXPECT_EQ(ended.count(first), 0u) << first << " again after its run, " << workers;
          run = first;
        }
      }
    }
  }
}

TEST(TrainerTest, InvalidUtf8IsReportedWithFileAndOffset) {
  TempDir dir;
  TrainJob options;
  options.inputs = {dir.File("good.txt"), dir.File("bad.txt")};
  testing::WriteFile(options.inputs[0], "fine text");
  testing::WriteFile(options.inputs[1], std::string("hello wor") + "\xC3\x28" + " more");
  options.trainer.vocab_size = 300;
  options.chunk_bytes = 3;
  absl::StatusOr<TrainJobResult> r = RunTrainJob(options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad.txt"), absl::string_view::npos) << r.status();
  EXPECT_NE(r.status().message().find("byte offset 9"), absl::string_view::npos) << r.status();
}

TEST(TrainerTest, RejectsBadConfig) {
  TempDir dir;
  TrainJob options;
  options.inputs = {dir.File("a.txt")};
  testing::WriteFile(options.inputs[0], "abc");
  options.trainer.vocab_size = 256;
  options.trainer.special_tokens = {"<|endoftext|>"};
  EXPECT_FALSE(RunTrainJob(options).ok());  // 256 < 256 + 1
  options.trainer.vocab_size = 300;
  options.trainer.special_tokens = {""};
  EXPECT_FALSE(RunTrainJob(options).ok());
  options.trainer.special_tokens = {};
  options.inputs = {dir.File("missing.txt")};
  absl::StatusOr<TrainJobResult> r = RunTrainJob(options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("missing.txt"), absl::string_view::npos);
  options.inputs = {dir.path()};
  r = RunTrainJob(options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("directory"), absl::string_view::npos);
}

}  // namespace
}  // namespace bpeforge::internal
