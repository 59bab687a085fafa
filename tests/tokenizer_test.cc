// The tokenizer against a naive encoder written from the definition, plus special tokens,
// decoding, streaming and the rank-file format.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/count/pretoken_counts.h"
#include "core/encode/bpe_codec.h"
#include "core/encode/long_merge.h"
#include "core/encode/stream_encoder.h"
#include "core/formats/tiktoken_files.h"
#include "core/train/trainer.h"
#include "core/train/vocab.h"
#include "tests/text_gen.h"

namespace bpeforge::internal {
namespace {

const std::string kEot = "<|endoftext|>";

TrainedVocab TrainOn(const std::string& text, size_t vocab_size, IdLayout layout,
                     const std::vector<std::string>& specials, Pattern pattern) {
  PreTokenCounts counts;
  CountPreTokens(text, SpecialTokens(specials), *MakeRegexPreTokenizer(pattern), &counts);
  TrainerConfig config{vocab_size, specials, layout, {}};
  absl::StatusOr<TrainedVocab> trained = TrainFromCounts({&counts}, config);
  EXPECT_TRUE(trained.ok()) << trained.status();
  return *trained;
}

std::string TrainingText() {
  std::string text;
  for (uint64_t seed = 100; seed < 110; ++seed) text += testing::RandomText(seed, {400, {}, true});
  return text;
}

// The definition, spelled out slowly: special tokens leftmost then longest; the reference
// regex pre-tokenizer; a pre-token that is a token is that token; otherwise repeatedly join
// the leftmost adjacent pair whose concatenation has the lowest rank (rank = index of the
// first merge making it), recomputing everything each round.
class NaiveEncoder {
 public:
  NaiveEncoder(const Vocab& vocab, const Merges& merges, std::vector<std::string> specials,
               Pattern pattern)
      : specials_(std::move(specials)), pretokenizer_(MakeRegexPreTokenizer(pattern)) {
    for (size_t id = 0; id < vocab.size(); ++id) ids_.try_emplace(vocab[id], id);
    for (size_t i = 0; i < merges.size(); ++i) {
      ranks_.try_emplace(merges[i].first + merges[i].second, i);
    }
    for (int b = 0; b < 256; ++b) ranks_.try_emplace(std::string(1, char(b)), 0);
    TokenId next = vocab.size();
    for (const std::string& s : specials_) {
      if (!ids_.contains(s)) ids_[s] = next++;
    }
  }

  std::vector<TokenId> Encode(const std::string& text) const {
    std::vector<TokenId> out;
    size_t start = 0;
    for (size_t pos = 0; pos < text.size();) {
      size_t best = 0;
      for (const std::string& s : specials_) {
        if (text.compare(pos, s.size(), s) == 0) best = std::max(best, s.size());
      }
      if (best == 0) {
        ++pos;
        continue;
      }
      EncodeOrdinary(text.substr(start, pos - start), &out);
      out.push_back(ids_.at(text.substr(pos, best)));
      pos += best;
      start = pos;
    }
    EncodeOrdinary(text.substr(start), &out);
    return out;
  }

 private:
  void EncodeOrdinary(const std::string& text, std::vector<TokenId>* out) const {
    pretokenizer_->Split(text, [&](absl::string_view piece) {
      std::vector<std::string> parts;
      if (ranks_.contains(piece)) {
        parts.emplace_back(piece);
      } else {
        for (char c : piece) parts.emplace_back(1, c);
      }
      while (parts.size() > 1) {
        size_t best = 0, best_rank = SIZE_MAX;
        for (size_t i = 0; i + 1 < parts.size(); ++i) {
          auto it = ranks_.find(parts[i] + parts[i + 1]);
          if (it != ranks_.end() && it->second < best_rank) best = i, best_rank = it->second;
        }
        if (best_rank == SIZE_MAX) break;
        parts[best] += parts[best + 1];
        parts.erase(parts.begin() + best + 1);
      }
      for (const std::string& p : parts) out->push_back(ids_.at(p));
    });
  }

  std::vector<std::string> specials_;
  std::unique_ptr<PreTokenizer> pretokenizer_;
  absl::flat_hash_map<std::string, size_t> ranks_;
  absl::flat_hash_map<std::string, TokenId> ids_;
};

struct Case {
  Pattern pattern;
  IdLayout layout;
};

class AgreementTest : public ::testing::TestWithParam<Case> {};

TEST_P(AgreementTest, MatchesNaiveEncoderOnGeneratedText) {
  const auto [pattern, layout] = GetParam();
  const std::vector<std::string> specials = {kEot, kEot + kEot, "<|pad|>"};
  const TrainedVocab t = TrainOn(TrainingText(), 700, layout, {kEot}, pattern);
  ASSERT_GT(t.merges.size(), 300u);
  absl::StatusOr<BpeCodec> tok = BpeCodec::Create(t.vocab, t.merges, specials, pattern);
  ASSERT_TRUE(tok.ok()) << tok.status();
  const NaiveEncoder naive(t.vocab, t.merges, specials, pattern);
  for (uint64_t seed = 0; seed < 40; ++seed) {
    const std::string text = testing::RandomText(seed, {300, specials, seed % 4 != 0});
    const std::vector<TokenId> ids = tok->Encode(text);
    ASSERT_EQ(ids, naive.Encode(text)) << "seed " << seed;
    ASSERT_EQ(*tok->DecodeBytes(ids), text) << "seed " << seed;
  }
}

// Enough distinct words for the cache's 2-way table to be made (EncodeCache::kTwoWayAfterMisses)
// and then to be read: the third pass finds most words gone from the direct-mapped table and in
// the 2-way table, through the look-ahead queue.
TEST_P(AgreementTest, TwoWayTableGivesTheNaiveIds) {
  const auto [pattern, layout] = GetParam();
  const TrainedVocab t = TrainOn(TrainingText(), 700, layout, {kEot}, pattern);
  absl::StatusOr<BpeCodec> tok = BpeCodec::Create(t.vocab, t.merges, {kEot}, pattern);
  ASSERT_TRUE(tok.ok()) << tok.status();
  std::string text;
  const size_t kWords = EncodeCache::kGrowAfterMisses + EncodeCache::kTwoWayAfterMisses + 30000;
  for (size_t i = 0; i < kWords; ++i) {
    text += ' ';
    // Letters of i in base 13 (the letters of the training text's words), at least four, so
    // that most words merge into four ids or more, more than the direct-mapped table keeps.
    for (size_t k = i, n = 0; k > 0 || n < 4; k /= 13, ++n) text += "etaoinshrdlcu"[k % 13];
  }
  const std::vector<TokenId> expected =
      NaiveEncoder(t.vocab, t.merges, {kEot}, pattern).Encode(text);
  EncodeCache cache;
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<TokenId> ids;
    tok->Encode(text, &cache, &ids);
    ASSERT_EQ(ids, expected) << "pass " << pass;
    EXPECT_TRUE(cache.has_two_way()) << "pass " << pass;
  }
}

TEST_P(AgreementTest, LongPreTokensUseTheSameMerges) {
  const auto [pattern, layout] = GetParam();
  const TrainedVocab t = TrainOn(TrainingText(), 600, layout, {}, pattern);
  absl::StatusOr<BpeCodec> tok = BpeCodec::Create(t.vocab, t.merges, {}, pattern);
  ASSERT_TRUE(tok.ok()) << tok.status();
  const NaiveEncoder naive(t.vocab, t.merges, {}, pattern);
  std::mt19937_64 rng(7);
  const std::vector<std::string> alphabet = {"a", "b", "ab", "the", "low", "er", "é", "日"};
  for (int round = 0; round < 20; ++round) {
    std::string word;  // one long pre-token of letters, past the short-merge limit
    const size_t length = 65 + rng() % 400;
    while (word.size() < length) word += alphabet[rng() % alphabet.size()];
    const std::string text = "x " + word + "\n" + std::string(70 + rng() % 100, ' ') + "end";
    ASSERT_EQ(tok->Encode(text), naive.Encode(text)) << text;
  }
}

INSTANTIATE_TEST_SUITE_P(PatternsAndLayouts, AgreementTest,
                         ::testing::Values(Case{Pattern::kGpt2, IdLayout::kBytesFirst},
                                           Case{Pattern::kGpt2, IdLayout::kHf},
                                           Case{Pattern::kCl100k, IdLayout::kBytesFirst},
                                           Case{Pattern::kO200k, IdLayout::kHf}));

// tiktoken's merge, as it is written: the leftmost adjacent pair of least rank is joined, over
// and over. The long-piece merge must give its parts for any ranks, also where a joined pair
// makes a pair of lower rank than its own (vocabularies that are no BPE training's).
std::vector<std::string> QuadraticMerge(absl::string_view piece,
                                        const absl::flat_hash_map<std::string, uint32_t>& ranks) {
  std::vector<std::string> parts;
  for (char c : piece) parts.emplace_back(1, c);
  for (;;) {
    size_t best = parts.size();
    uint32_t best_rank = kNoRank;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      auto it = ranks.find(parts[i] + parts[i + 1]);
      if (it != ranks.end() && it->second < best_rank) {
        best_rank = it->second;
        best = i;
      }
    }
    if (best == parts.size()) return parts;
    parts[best] += parts[best + 1];
    parts.erase(parts.begin() + static_cast<ptrdiff_t>(best) + 1);
  }
}

TEST(LongMergeTest, MatchesTheQuadraticMergeForAnyRanks) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 40; ++round) {
    // Random tokens of 2 to 6 letters of "abc", at random distinct ranks.
    absl::flat_hash_map<std::string, uint32_t> ranks;
    std::vector<uint32_t> free_ranks(60);
    std::iota(free_ranks.begin(), free_ranks.end(), 0);
    std::shuffle(free_ranks.begin(), free_ranks.end(), rng);
    for (uint32_t rank : free_ranks) {
      std::string token(2 + rng() % 5, 'a');
      for (char& c : token) c = static_cast<char>('a' + rng() % 3);
      ranks.try_emplace(token, rank);
    }
    std::string piece(2 + rng() % 3000, 'a');
    for (char& c : piece) c = static_cast<char>('a' + (round % 4 == 0 ? 0 : rng() % 3));
    std::vector<std::string> parts;
    ASSERT_TRUE(MergeLongPiece(
        piece,
        [&](absl::string_view bytes) {
          auto it = ranks.find(bytes);
          return it == ranks.end() ? kNoRank : it->second;
        },
        [&](absl::string_view part) { parts.emplace_back(part); }, nullptr));
    ASSERT_EQ(parts, QuadraticMerge(piece, ranks)) << "round " << round;
  }
}

// The merge inside a pre-token compares ranks, not ids. A vocabulary file may give its tokens
// ids in any order, so the same tokens at shuffled ids, spread over three times as many (some
// below 1,024, some above), must still encode as the naive encoder does.
TEST(TokenizerTest, IdsOutOfMergeOrderEncodeByRank) {
  const TrainedVocab t = TrainOn(TrainingText(), 700, IdLayout::kBytesFirst, {}, Pattern::kGpt2);
  std::vector<size_t> new_id(t.vocab.size() * 3);
  std::iota(new_id.begin(), new_id.end(), 0);
  std::shuffle(new_id.begin(), new_id.end(), std::mt19937_64(11));
  Vocab spread(new_id.size());  // "": an id no token has
  for (size_t id = 0; id < t.vocab.size(); ++id) spread[new_id[id]] = t.vocab[id];
  absl::StatusOr<BpeCodec> tok = BpeCodec::CreateWithIds(spread, t.merges, {}, Pattern::kGpt2);
  ASSERT_TRUE(tok.ok()) << tok.status();
  const NaiveEncoder naive(spread, t.merges, {}, Pattern::kGpt2);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const std::string text = testing::RandomText(seed, {300, {}, true});
    ASSERT_EQ(tok->Encode(text), naive.Encode(text)) << "seed " << seed;
  }
}

// Joins of two tokens ranked below 1,024 are read from a dense table, the others from a map.
// Merges of bytes that UTF-8 never holds (0xc0, 0xc1, 0xf5-0xff) come first here, so that the
// trained merges are all ranked past 1,024 and most joins go through the map.
TEST(TokenizerTest, RanksPastTheDenseTableEncodeAsNaive) {
  const TrainedVocab t = TrainOn(TrainingText(), 700, IdLayout::kBytesFirst, {}, Pattern::kGpt2);
  std::vector<std::string> unused = {"\xc0", "\xc1"};
  for (int b = 0xf5; b <= 0xff; ++b) unused.emplace_back(1, static_cast<char>(b));
  Merges merges;
  for (const std::string& a : unused) {
    for (const std::string& b : unused) merges.emplace_back(a, b);
  }
  for (size_t i = 0; merges.size() < 900; ++i) {
    merges.emplace_back(merges[i].first + merges[i].second, unused[i % unused.size()]);
  }
  Vocab vocab = t.vocab;
  for (const Merge& m : merges) vocab.push_back(m.first + m.second);
  merges.insert(merges.end(), t.merges.begin(), t.merges.end());
  absl::StatusOr<BpeCodec> tok = BpeCodec::Create(vocab, merges, {}, Pattern::kGpt2);
  ASSERT_TRUE(tok.ok()) << tok.status();
  const NaiveEncoder naive(vocab, merges, {}, Pattern::kGpt2);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const std::string text = testing::RandomText(seed, {300, {}, true});
    ASSERT_EQ(tok->Encode(text), naive.Encode(text)) << "seed " << seed;
  }
}

// 256 bytes plus a few merges, so tests can name ids.
BpeCodec SmallTokenizer(const std::vector<std::string>& specials) {
  Merges merges = {{"a", "b"}, {"ab", "c"}, {" ", "ab"}};
  Vocab vocab;
  for (int b = 0; b < 256; ++b) vocab.emplace_back(1, char(b));
  for (const Merge& m : merges) vocab.push_back(m.first + m.second);  // ids 256, 257, 258
  vocab.push_back(kEot);                                              // id 259
  absl::StatusOr<BpeCodec> tok = BpeCodec::Create(vocab, merges, specials, Pattern::kGpt2);
  EXPECT_TRUE(tok.ok()) << tok.status();
  return *std::move(tok);
}

TEST(TokenizerTest, MergesByRank) {
  const BpeCodec tok = SmallTokenizer({});
  EXPECT_EQ(tok.Encode("abc"), (std::vector<TokenId>{257}));
  EXPECT_EQ(tok.Encode("abd ab"), (std::vector<TokenId>{256, 'd', 258}));
  EXPECT_EQ(tok.Encode(""), std::vector<TokenId>{});
}

// "abcd" is a token, made of "ab" and "cd", but merging its bytes joins "bc" first and then
// finds no pair to join. As in tiktoken, a pre-token that is a token is that token all the same.
TEST(TokenizerTest, PreTokenThatMergingDoesNotMakeIsStillItsToken) {
  Merges merges = {{"b", "c"}, {"a", "b"}, {"c", "d"}, {"ab", "cd"}};
  Vocab vocab;
  for (int b = 0; b < 256; ++b) vocab.emplace_back(1, char(b));
  for (const Merge& m : merges) vocab.push_back(m.first + m.second);  // ids 256 to 259
  absl::StatusOr<BpeCodec> tok = BpeCodec::Create(vocab, merges, {}, Pattern::kGpt2);
  ASSERT_TRUE(tok.ok()) << tok.status();
  EXPECT_EQ(tok->Encode("abcd"), (std::vector<TokenId>{259}));
  EXPECT_EQ(tok->Encode("abcde"), (std::vector<TokenId>{'a', 256, 'd', 'e'}));
  EXPECT_EQ(tok->Encode("ab cd"), (std::vector<TokenId>{257, ' ', 258}));
}

// A one-letter file trains tokens of megabytes; building the tokenizer must not cost their
// lengths squared (it once hashed every cut of every token: hours for this vocabulary).
TEST(TokenizerTest, TokensOfMegabytesLoadAndEncode) {
  Vocab vocab;
  Merges merges;
  for (int b = 0; b < 256; ++b) vocab.emplace_back(1, char(b));
  std::string run = "a";
  for (int doubling = 0; doubling < 21; ++doubling) {  // "aa", "aaaa", ..., 2 MiB of "a"
    merges.emplace_back(run, run);
    run += run;
    vocab.push_back(run);
  }
  absl::StatusOr<BpeCodec> tok = BpeCodec::Create(vocab, merges, {}, Pattern::kGpt2);
  ASSERT_TRUE(tok.ok()) << tok.status();
  const std::string text = run + "aaaaaaa";  // 2 MiB + 7: the longest token, then 4 + 2 + 1
  EXPECT_EQ(tok->Encode(text), (std::vector<TokenId>{256 + 20, 256 + 1, 256 + 0, 'a'}));
  EXPECT_EQ(tok->Encode("aaaaaaa"), (std::vector<TokenId>{257, 256, 'a'}));
}

// A tokenizer made merge by merge from their bytes, as a trained directory is read, is the one
// Create makes of the vocab BuildVocab gives, in both layouts: the same ids for every text
// (long runs too), the same bytes for every id. Its tokens of more than a kilobyte are kept as
// their merges, never as bytes.
TEST(TokenizerTest, ABuilderMakesWhatCreateMakes) {
  const TrainedVocab trained =
      TrainOn(TrainingText(), 600, IdLayout::kBytesFirst, {kEot}, Pattern::kGpt2);
  Merges runs;
  std::string run = "a";
  for (int doubling = 0; doubling < 16; ++doubling) {  // "aa", ..., 64 KiB of "a"
    runs.emplace_back(run, run);
    run += run;
  }
  runs.emplace_back(run.substr(0, 4), run);  // a repeated token's bytes: "aaaa" + 64 KiB
  runs.emplace_back(run, run.substr(0, 4));  // the same bytes again, from another merge
  for (const Merges& merges : {trained.merges, runs}) {
    for (IdLayout layout : {IdLayout::kBytesFirst, IdLayout::kHf}) {
      const Vocab vocab = BuildVocab({kEot}, merges, layout);
      absl::StatusOr<BpeCodec> created = BpeCodec::Create(vocab, merges, {kEot, "<|x|>"});
      ASSERT_TRUE(created.ok()) << created.status();
      BpeCodec::Builder builder({kEot}, layout);
      for (const auto& [left, right] : merges) ASSERT_TRUE(builder.AddMerge(left, right).ok());
      ASSERT_EQ(builder.size(), vocab.size());
      for (size_t id = 0; id < vocab.size(); ++id) {
        ASSERT_TRUE(builder.Is(static_cast<TokenId>(id), vocab[id])) << id;
      }
      EXPECT_FALSE(builder.Is(300, "no such bytes"));
      absl::StatusOr<BpeCodec> built = std::move(builder).Finish({"<|x|>"}, Pattern::kGpt2, "");
      ASSERT_TRUE(built.ok()) << built.status();
      ASSERT_EQ(built->id_limit(), created->id_limit());
      for (size_t id = 0; id < created->id_limit(); ++id) {
        ASSERT_EQ(built->TokenBytes(static_cast<TokenId>(id)),
                  created->TokenBytes(static_cast<TokenId>(id)))
            << id;
      }
      for (const std::string& text :
           {TrainingText().substr(0, 20000), run + run.substr(0, 1000) + " " + run.substr(0, 77),
            std::string("<|x|> the end") + kEot}) {
        EXPECT_EQ(built->Encode(text), created->Encode(text));
        EXPECT_EQ(*built->DecodeBytes(built->Encode(text)), text);
      }
    }
  }
  // A merge of parts that no earlier merge makes is refused.
  BpeCodec::Builder builder({}, IdLayout::kBytesFirst);
  EXPECT_FALSE(builder.AddMerge("ab", "c").ok());
}

TEST(TokenizerTest, SpecialTokensLongestFirstWhenOverlapping) {
  const std::string two = kEot + kEot;
  const BpeCodec tok = SmallTokenizer({kEot, two});
  // kEot is in the vocab (259); the doubled one is not, so it gets the next free id.
  EXPECT_EQ(tok.Encode("ab" + two + "ab" + kEot + kEot + kEot),
            (std::vector<TokenId>{256, 260, 256, 260, 259}));
  EXPECT_EQ(tok.id_limit(), 261u);
  EXPECT_EQ(*tok.DecodeBytes({260}), two);
  // Without special tokens the same text is ordinary.
  const BpeCodec plain = SmallTokenizer({});
  EXPECT_EQ(*plain.DecodeBytes(plain.Encode(kEot)), kEot);
  EXPECT_GT(plain.Encode(kEot).size(), 1u);
}

TEST(TokenizerTest, MissingSpecialTokensGetNextFreeIdsInOrder) {
  const BpeCodec tok = SmallTokenizer({"<|a|>", kEot, "<|b|>", "<|a|>"});
  EXPECT_EQ(tok.Encode("<|b|><|a|>" + kEot), (std::vector<TokenId>{261, 260, 259}));
  absl::StatusOr<BpeCodec> ranked = BpeCodec::FromRanks(
      [] {
        Ranks r;
        for (int b = 0; b < 256; ++b) r.emplace_back(std::string(1, char(b)), b);
        return r;
      }(),
      {{"<|x|>", 1000}, {"<|y|>", std::nullopt}}, Pattern::kGpt2);
  ASSERT_TRUE(ranked.ok()) << ranked.status();
  EXPECT_EQ(ranked->Encode("<|y|><|x|>"), (std::vector<TokenId>{1001, 1000}));
  EXPECT_FALSE(ranked->DecodeBytes({500}).ok());  // a gap in the ids
}

TEST(TokenizerTest, DecodeReplacesInvalidUtf8) {
  const BpeCodec tok = SmallTokenizer({});
  EXPECT_EQ(*tok.DecodeBytes({0xE2, 0x82, 'a', 0xFF}),
            "\xE2\x82"
            "a\xFF");
  EXPECT_EQ(*tok.Decode({0xE2, 0x82, 'a', 0xFF}),
            "\xEF\xBF\xBD"
            "a\xEF\xBF\xBD");
  EXPECT_EQ(*tok.Decode({0xE2, 0x82, 0xAC}), "\xE2\x82\xAC");
  absl::StatusOr<std::string> bad = tok.Decode({1, 99999});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("99999"), std::string::npos);
}

TEST(TokenizerTest, RejectsBadInput) {
  Vocab vocab;
  for (int b = 1; b < 256; ++b) vocab.emplace_back(1, char(b));
  EXPECT_FALSE(BpeCodec::Create(vocab, {}, {}).ok());  // byte 0 missing
  vocab.emplace_back(1, '\0');
  EXPECT_TRUE(BpeCodec::Create(vocab, {}, {}).ok());
  EXPECT_FALSE(BpeCodec::Create(vocab, {{"a", "b"}}, {}).ok());  // "ab" not in vocab
  EXPECT_FALSE(BpeCodec::Create(vocab, {}, {""}).ok());
  Ranks ranks;
  for (int b = 0; b < 256; ++b) ranks.emplace_back(std::string(1, char(b)), b);
  ranks.emplace_back("ab", 7);
  EXPECT_FALSE(BpeCodec::FromRanks(ranks, {}).ok());  // rank 7 twice
  ranks.back().second = 300;
  EXPECT_TRUE(BpeCodec::FromRanks(ranks, {}).ok());
  EXPECT_FALSE(BpeCodec::FromRanks(ranks, {{"<|s|>", 300}}).ok());  // id taken
}

TEST(TokenizerTest, ConcurrentEncodesAgree) {
  const TrainedVocab t = TrainOn(TrainingText(), 500, IdLayout::kBytesFirst, {}, Pattern::kGpt2);
  const BpeCodec tok = *BpeCodec::Create(t.vocab, t.merges, {kEot});
  std::vector<std::string> texts;
  std::vector<std::vector<TokenId>> expected;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    texts.push_back(testing::RandomText(seed, {200, {kEot}, true}));
    expected.push_back(tok.Encode(texts.back()));
  }
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      for (int round = 0; round < 5; ++round) {
        for (size_t i = 0; i < texts.size(); ++i)
          mismatches[w] += tok.Encode(texts[i]) != expected[i];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

TEST(EncodeCacheTest, StaysBounded) {
  EncodeCache cache(8);
  for (int i = 0; i < 100; ++i) {
    const std::vector<TokenId> ids = {TokenId(i), 1};
    cache.Insert(absl::StrCat("k", i), ids);
    EXPECT_LE(cache.size(), 8u);
  }
  std::vector<TokenId> out;
  EXPECT_TRUE(cache.Find("k99", &out));
  EXPECT_EQ(out, (std::vector<TokenId>{99, 1}));
  EXPECT_FALSE(cache.Find("k0", &out));
}

TEST(EncodeCacheTest, DirectMappedTableKeepsWhatItHoldsWhenItGrows) {
  EncodeCache cache;
  const ShortKey kept = PackShortKey("kept");
  const std::vector<TokenId> kept_ids = {7, 8};
  cache.InsertShort(kept, kept_ids);
  // Misses on other keys, none in kept's slot before or after growing, until it has grown.
  auto elsewhere = [&](const ShortKey& k) {
    return ShortKeySlot(k, EncodeCache::kSmallDirectBits) !=
               ShortKeySlot(kept, EncodeCache::kSmallDirectBits) &&
           ShortKeySlot(k, EncodeCache::kLargeDirectBits) !=
               ShortKeySlot(kept, EncodeCache::kLargeDirectBits);
  };
  std::vector<ShortKey> others;
  for (uint32_t i = 0; others.size() < 2 * EncodeCache::kGrowAfterMisses; ++i) {
    const ShortKey k = PackShortKey(absl::StrCat("w", i));
    if (elsewhere(k)) others.push_back(k);
  }
  for (size_t i = 0; i < others.size(); ++i) {
    cache.InsertShort(others[i], std::vector<TokenId>{TokenId(i)});
  }
  std::vector<TokenId> out;
  ASSERT_TRUE(cache.FindDirect(kept, &out));
  EXPECT_EQ(out, kept_ids);
  out.clear();  // the last key inserted, after growing
  ASSERT_TRUE(cache.FindDirect(others.back(), &out));
  EXPECT_EQ(out, std::vector<TokenId>{TokenId(others.size() - 1)});
}

// Misses of `count` distinct keys, each found missing first (as the encoder does).
void Miss(EncodeCache& cache, uint32_t first, uint32_t count) {
  std::vector<TokenId> out;
  for (uint32_t i = first; i < first + count; ++i) {
    const ShortKey key = PackShortKey(absl::StrCat("m", i));
    ASSERT_FALSE(cache.FindDirect(key, &out));
    ASSERT_FALSE(cache.FindTwoWay(key, &out));
    cache.CountLookups(1);
    cache.InsertShort(key, std::vector<TokenId>{i, i, i, i, i});
  }
}

TEST(EncodeCacheTest, TwoWayTableIsMadeWhereTheDirectMappedTableMissesOften) {
  EncodeCache cache;
  Miss(cache, 0, EncodeCache::kGrowAfterMisses + EncodeCache::kTwoWayAfterMisses - 1);
  EXPECT_FALSE(cache.has_two_way());
  Miss(cache, 1u << 19, 2);
  ASSERT_TRUE(cache.has_two_way());
  // Five ids, more than the direct-mapped table keeps, are in the 2-way table; a hit there is
  // copied to the direct-mapped table only where its ids fit.
  std::vector<TokenId> out;
  const ShortKey last = PackShortKey(absl::StrCat("m", (1u << 19) + 1));
  EXPECT_FALSE(cache.FindDirect(last, &out));
  ASSERT_TRUE(cache.FindTwoWay(last, &out));
  EXPECT_EQ(out, std::vector<TokenId>(5, (1u << 19) + 1));
  const ShortKey few = PackShortKey("few");
  cache.InsertShort(few, std::vector<TokenId>{1, 2});
  out.clear();
  ASSERT_TRUE(cache.FindTwoWay(few, &out));
  EXPECT_EQ(out, (std::vector<TokenId>{1, 2}));
}

// Keys that share a set of the 2-way table: two of them are kept, the one last hit and the
// newest, which takes the second way: a key that was hit outlasts any number of new ones.
// Up to six ids below 2^20 are kept exactly; more ids, or a larger one, are not kept at all.
TEST(EncodeCacheTest, TwoWayTableKeepsTwoKeysASetAndSixIdsBelow2To20) {
  EncodeCache cache;
  Miss(cache, 0, EncodeCache::kGrowAfterMisses + EncodeCache::kTwoWayAfterMisses + 1);
  ASSERT_TRUE(cache.has_two_way());
  std::vector<ShortKey> same_set;
  const size_t set = ShortKeySlot(PackShortKey("c0"), EncodeCache::kTwoWayBits);
  for (int i = 1; same_set.size() < 4; ++i) {
    const ShortKey key = PackShortKey(absl::StrCat("c", i));
    if (ShortKeySlot(key, EncodeCache::kTwoWayBits) == set) same_set.push_back(key);
  }
  const ShortKey a = same_set[0], b = same_set[1], c = same_set[2], d = same_set[3];
  const std::vector<TokenId> a_ids = {1, 2, 3, 4}, b_ids = {5, 6, 7, 8}, c_ids = {9, 9, 9, 9};
  cache.InsertShort(a, a_ids);
  std::vector<TokenId> out;
  ASSERT_TRUE(cache.FindTwoWay(a, &out));  // a is hit: it keeps its place
  EXPECT_EQ(out, a_ids);
  cache.InsertShort(b, b_ids);
  cache.InsertShort(c, c_ids);  // in b's place
  out.clear();
  EXPECT_FALSE(cache.FindTwoWay(b, &out));
  ASSERT_TRUE(cache.FindTwoWay(a, &out));
  EXPECT_EQ(out, a_ids);
  out.clear();
  ASSERT_TRUE(cache.FindTwoWay(c, &out));  // now c is the one last hit
  EXPECT_EQ(out, c_ids);
  cache.InsertShort(d, {7});  // in a's place
  out.clear();
  EXPECT_FALSE(cache.FindTwoWay(a, &out));
  ASSERT_TRUE(cache.FindTwoWay(c, &out));
  EXPECT_EQ(out, c_ids);
  out.clear();
  ASSERT_TRUE(cache.FindTwoWay(d, &out));
  EXPECT_EQ(out, std::vector<TokenId>{7});
  out.clear();

  // A set nothing was put in keeps its first two newcomers.
  auto set_of = [](const ShortKey& key) { return ShortKeySlot(key, EncodeCache::kTwoWayBits); };
  absl::flat_hash_set<size_t> used = {set};
  for (uint32_t i = 0; i < EncodeCache::kGrowAfterMisses + EncodeCache::kTwoWayAfterMisses + 1;
       ++i) {
    used.insert(set_of(PackShortKey(absl::StrCat("m", i))));
  }
  auto e = [](int i) { return PackShortKey(absl::StrCat("e", i)); };
  int first = 0;
  while (used.contains(set_of(e(first)))) ++first;
  int second = first + 1;
  while (set_of(e(second)) != set_of(e(first))) ++second;
  cache.InsertShort(e(first), {11, 12});
  cache.InsertShort(e(second), {13, 14});
  ASSERT_TRUE(cache.FindTwoWay(e(first), &out));
  ASSERT_TRUE(cache.FindTwoWay(e(second), &out));
  EXPECT_EQ(out, (std::vector<TokenId>{11, 12, 13, 14}));
  out.clear();

  const std::vector<TokenId> six = {0, (1u << 20) - 1, 1, 1u << 19, 77777, 5};
  const ShortKey six_key = PackShortKey("six");
  cache.InsertShort(six_key, six);
  out.clear();
  ASSERT_TRUE(cache.FindTwoWay(six_key, &out));
  EXPECT_EQ(out, six);
  const ShortKey seven_key = PackShortKey("seven"), large_key = PackShortKey("large");
  cache.InsertShort(seven_key, std::vector<TokenId>(7, 1));
  cache.InsertShort(large_key, std::vector<TokenId>{1, 1u << 20, 1, 1});
  EXPECT_FALSE(cache.FindTwoWay(seven_key, &out));
  EXPECT_FALSE(cache.FindTwoWay(large_key, &out));
}

TEST(EncodeCacheTest, NoTwoWayTableWhereTheDirectMappedTableSeldomMisses) {
  EncodeCache cache;
  Miss(cache, 0, EncodeCache::kGrowAfterMisses);
  // Nine lookups for each miss: the direct-mapped table misses less than one in eight.
  for (int round = 0; round < 3; ++round) {
    cache.CountLookups(uint64_t{8} * EncodeCache::kTwoWayAfterMisses);
    Miss(cache, (round + 1) << 20, EncodeCache::kTwoWayAfterMisses);
    EXPECT_FALSE(cache.has_two_way()) << "round " << round;
  }
}

TEST(EncodeCacheTest, IsBypassedWhileFewLookupsHitThenTriesAgain) {
  EncodeCache cache;
  std::vector<TokenId> out;
  const std::vector<TokenId> ids = {7};
  cache.Insert("kept", ids);
  // A window of lookups that all miss (each piece inserted, as the encoder does).
  for (uint32_t i = 0; i < EncodeCache::kBypassWindow; ++i) {
    const std::string piece = absl::StrCat("miss", i);
    ASSERT_FALSE(cache.Find(piece, &out));
    cache.Insert(piece, ids);
  }
  const size_t size = cache.size();
  // Bypassed: a cached piece is not found, and nothing new is kept.
  EXPECT_FALSE(cache.Find("kept", &out));
  cache.Insert("new", ids);
  EXPECT_EQ(cache.size(), size);
  for (uint32_t i = 1; i < EncodeCache::kBypassLookups; ++i) cache.Find("kept", &out);
  // Then it answers again.
  out.clear();
  EXPECT_TRUE(cache.Find("kept", &out));
  EXPECT_EQ(out, ids);
}

TEST(EncodeCacheTest, IsNotBypassedWhileMostLookupsHit) {
  EncodeCache cache;
  const std::vector<TokenId> ids = {7};
  for (int i = 0; i < 10; ++i) cache.Insert(absl::StrCat("k", i), ids);
  std::vector<TokenId> out;
  for (uint32_t i = 0; i < 3 * EncodeCache::kBypassWindow; ++i) {
    // Two hits in three lookups.
    const std::string piece = i % 3 == 2 ? absl::StrCat("miss", i) : absl::StrCat("k", i % 10);
    out.clear();
    ASSERT_EQ(cache.Find(piece, &out), i % 3 != 2) << i;
  }
}

// Splits `text` at random points (inside characters and special tokens too) and streams it.
std::vector<TokenId> StreamEncode(const BpeCodec& tok, const std::string& text, uint64_t seed,
                                  size_t max_pending, size_t* most_pending = nullptr) {
  std::mt19937_64 rng(seed);
  StreamEncoder encoder(tok, max_pending);
  std::vector<TokenId> ids;
  for (size_t pos = 0; pos < text.size();) {
    const size_t n = std::min<size_t>(text.size() - pos, rng() % 40);
    encoder.Push(absl::string_view(text).substr(pos, n), &ids);
    if (most_pending != nullptr) *most_pending = std::max(*most_pending, encoder.pending_bytes());
    pos += n;
  }
  encoder.Finish(&ids);
  return ids;
}

class StreamTest : public ::testing::TestWithParam<Pattern> {};

TEST_P(StreamTest, EqualsEncodeOfTheConcatenation) {
  const Pattern pattern = GetParam();
  const std::vector<std::string> specials = {kEot, kEot + kEot, "<|x|>"};
  const TrainedVocab t = TrainOn(TrainingText(), 600, IdLayout::kBytesFirst, {kEot}, pattern);
  const BpeCodec tok = *BpeCodec::Create(t.vocab, t.merges, specials, pattern);
  for (uint64_t seed = 0; seed < 30; ++seed) {
    const std::string text = testing::RandomText(seed, {400, specials, true});
    const std::vector<TokenId> whole = tok.Encode(text);
    // A large window cuts only at safe cuts; tiny ones force cuts between pre-tokens.
    for (size_t max_pending : {size_t{1} << 20, size_t{200}, size_t{1}}) {
      ASSERT_EQ(StreamEncode(tok, text, seed, max_pending), whole)
          << "seed " << seed << " window " << max_pending;
    }
  }
}

TEST_P(StreamTest, TextWithoutSafeCutsStaysBounded) {
  const Pattern pattern = GetParam();
  const TrainedVocab t = TrainOn(TrainingText(), 400, IdLayout::kBytesFirst, {}, pattern);
  const BpeCodec tok = *BpeCodec::Create(t.vocab, t.merges, {kEot}, pattern);
  // No letter is followed by white space, and every newline has spaces on both sides, so no
  // position is a safe cut (IsSafeCut) for any built-in pattern: the encoder must cut between
  // pre-tokens on its own once it holds its window.
  const std::vector<std::string> pieces = {"12", "345", "日本語!", " \n ", "  ",
                                           "!?", "١٢",  "Привет.", "'s.",  "x1"};
  std::mt19937_64 rng(3);
  std::string text;
  while (text.size() < 200000) text += pieces[rng() % pieces.size()];
  size_t most = 0;
  EXPECT_EQ(StreamEncode(tok, text, 1, 4096, &most), tok.Encode(text));
  EXPECT_GE(most, 4096u);  // held its window: no safe cut came sooner
  EXPECT_LT(most, 3 * 4096u);
}

// CJK paragraphs end in punctuation and a blank line, with no letter before white space: the
// encoder still cuts at every paragraph (before its newlines for gpt2, after them for cl100k and
// o200k), so it holds about one paragraph, not the whole text.
TEST_P(StreamTest, CjkParagraphsHoldLittle) {
  const Pattern pattern = GetParam();
  const TrainedVocab t = TrainOn(TrainingText(), 400, IdLayout::kBytesFirst, {}, pattern);
  const BpeCodec tok = *BpeCodec::Create(t.vocab, t.merges, {}, pattern);
  const std::string paragraph =
      "\u65e5\u672c\u8a9e\u306e\u6587\u3002\u201c\u4e2d\u6587\u201d\u3002\n\n";
  StreamEncoder encoder(tok);
  std::vector<TokenId> ids;
  size_t most = 0;
  std::string all;
  for (int i = 0; i < 5000; ++i) {
    encoder.Push(paragraph, &ids);
    most = std::max(most, encoder.pending_bytes());
    all += paragraph;
  }
  encoder.Finish(&ids);
  EXPECT_LE(most, 2 * paragraph.size());
  EXPECT_EQ(ids, tok.Encode(all));
}

INSTANTIATE_TEST_SUITE_P(Patterns, StreamTest,
                         ::testing::Values(Pattern::kGpt2, Pattern::kCl100k, Pattern::kO200k));

TEST(StreamTest, EnglishLinesHoldLittle) {
  const BpeCodec tok = SmallTokenizer({kEot});
  std::string line = "the quick brown fox jumps over the lazy dog, again and again\n";
  StreamEncoder encoder(tok);
  std::vector<TokenId> ids;
  size_t most = 0;
  for (int i = 0; i < 50000; ++i) {
    encoder.Push(line, &ids);
    most = std::max(most, encoder.pending_bytes());
  }
  encoder.Finish(&ids);
  EXPECT_LT(most, line.size());
  std::string all;
  for (int i = 0; i < 50000; ++i) all += line;
  EXPECT_EQ(ids, tok.Encode(all));
}

TEST(StreamTest, EncodeIterableYieldsEverything) {
  const BpeCodec tok = SmallTokenizer({kEot});
  const std::vector<std::string> lines = {"ab c", "d\n", "<|endo", "ftext|>ab", "", "c \n"};
  size_t i = 0;
  std::vector<TokenId> ids;
  EncodeIterable(
      tok,
      [&](absl::string_view* piece) {
        if (i == lines.size()) return false;
        *piece = lines[i++];
        return true;
      },
      [&](absl::Span<const TokenId> some) { ids.insert(ids.end(), some.begin(), some.end()); });
  EXPECT_EQ(ids, tok.Encode("ab cd\n<|endoftext|>abc \n"));
}

TEST(TiktokenFilesTest, ParsesFormatsAndReportsLines) {
  Ranks ranks = {{"a", 0}, {"\xff\x00 b", 1}, {"hello", 2}};
  const std::string text = TextOf([&](TextSink& out) { WriteTiktokenRanks(ranks, out); });
  absl::StatusOr<Ranks> back = ParseTiktokenRanks(text, "r.tiktoken");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, ranks);
  for (const auto& [bad, line] : std::vector<std::pair<std::string, std::string>>{
           {"YQ== 0\nYg== 1\n!!!! 2\n", "r.tiktoken:3:"},
           {"YQ== 0\nYg==\n", "r.tiktoken:2:"},
           {"YQ== x\n", "r.tiktoken:1:"},
           {"YQ== -1\n", "r.tiktoken:1:"}}) {
    absl::StatusOr<Ranks> r = ParseTiktokenRanks(bad, "r.tiktoken");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().rfind(line, 0), 0u) << r.status();
  }
}

}  // namespace
}  // namespace bpeforge::internal
