// GPT-2 byte-to-unicode mapping, vocab.json / merges.txt round trips, UTF-8 helpers.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <optional>
#include <random>
#include <vector>

#include "absl/strings/escaping.h"
#include "core/formats/counts_file.h"
#include "core/formats/gpt2_files.h"
#include "core/formats/manifest.h"
#include "core/internal/byte_unicode.h"
#include "core/internal/utf8.h"
#include "core/train/vocab.h"
#include "tests/test_util.h"

namespace bpeforge::internal {
namespace {

TEST(ByteUnicodeTest, KnownCharacters) {
  EXPECT_EQ(BytesToGpt2(" "), "Ġ");
  EXPECT_EQ(BytesToGpt2("\n"), "Ċ");
  EXPECT_EQ(BytesToGpt2("a"), "a");
  EXPECT_EQ(BytesToGpt2(std::string(1, '\0')), "Ā");
  EXPECT_EQ(BytesToGpt2("\xAD"), "Ń");  // the soft hyphen byte is not printable
}

TEST(ByteUnicodeTest, EveryByteRoundTrips) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  absl::StatusOr<std::string> back = Gpt2ToBytes(BytesToGpt2(all));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, all);
  EXPECT_FALSE(Gpt2ToBytes("日").ok());  // not a byte character
  EXPECT_FALSE(Gpt2ToBytes("\xFF").ok());
}

TEST(FilesTest, VocabAndMergesRoundTrip) {
  Merges merges = {{" ", "t"}, {"h", "e"}, {" t", "he"}, {"\n", "\xC3"}, {"\xC3", "\xA9"}};
  Vocab vocab = BuildVocab({"<|endoftext|>"}, merges, IdLayout::kBytesFirst);
  testing::TempDir dir;
  const VocabSpelling tokens(vocab, merges);
  testing::WriteFile(dir.File("vocab.json"),
                     TextOf([&](TextSink& out) { WriteVocabJson(tokens, out); }));
  testing::WriteFile(dir.File("merges.txt"),
                     TextOf([&](TextSink& out) { WriteMergesTxt(tokens, out); }));
  absl::StatusOr<Vocab> v = ReadVocabJson(dir.File("vocab.json"));
  absl::StatusOr<Merges> m = ReadMergesTxt(dir.File("merges.txt"));
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(*v, vocab);
  EXPECT_EQ(*m, merges);
}

TEST(FilesTest, BadFilesNameTheProblem) {
  testing::TempDir dir;
  testing::WriteFile(dir.File("m.txt"), "#version: 0.2\nĠ t\nonlyone\n");
  absl::StatusOr<Merges> m = ReadMergesTxt(dir.File("m.txt"));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("m.txt:3"), absl::string_view::npos) << m.status();
  testing::WriteFile(dir.File("v.json"), "{\"a\": 0, \"b\": 0}");
  EXPECT_FALSE(ReadVocabJson(dir.File("v.json")).ok());
  testing::WriteFile(dir.File("v.json"), "{\"a\": 0,");
  absl::StatusOr<Vocab> v = ReadVocabJson(dir.File("v.json"));
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("v.json"), absl::string_view::npos);
  EXPECT_FALSE(ReadVocabJson(dir.File("absent.json")).ok());
  // A Hugging Face tokenizer.json given for vocab.json is named as such.
  testing::WriteFile(dir.File("tokenizer.json"),
                     R"({"version": "1.0", "added_tokens": [], "model": {"type": "BPE"}})");
  v = ReadVocabJson(dir.File("tokenizer.json"));
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("is a Hugging Face tokenizer.json, not a GPT-2 vocab.json"),
            absl::string_view::npos)
      << v.status();
}

TEST(FilesTest, ManifestRoundTrip) {
  testing::TempDir dir;
  Manifest m{Pattern::kO200k, {"<|endoftext|>", "<pad>"}, IdLayout::kHf, 1234};
  testing::WriteFile(dir.File("bpeforge.json"), FormatManifestJson(m));
  absl::StatusOr<Manifest> back = ReadManifest(dir.File("bpeforge.json"));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->pattern, m.pattern);
  EXPECT_EQ(back->special_tokens, m.special_tokens);
  EXPECT_EQ(back->layout, m.layout);
  EXPECT_EQ(back->vocab_size, m.vocab_size);
}

// A count file lists its pre-tokens in the order of their bytes (std::string's), whatever the
// map's order: pre-tokens that share 8 bytes or more, hold zero bytes, or are prefixes of
// others, among random ones. (Its bytes must not depend on the threads that counted.)
TEST(FilesTest, CountFilesListPreTokensInByteOrder) {
  PreTokenCounts counts;
  const std::string zeros("ab\0\0\0\0\0\0", 8);
  for (const std::string& word :
       {std::string("ab"), std::string("ab\0", 3), zeros, zeros + "x", zeros + "\x01",
        std::string("abcdefgh"), std::string("abcdefghi"), std::string("abcdefgg\xff"),
        std::string("\xff"), std::string("\xff\xff"), std::string(" the"), std::string(20, 'a'),
        std::string(19, 'a'), std::string("")}) {
    counts[word] = word.size() + 1;
  }
  std::mt19937 rng(3);
  for (int i = 0; i < 2000; ++i) {
    std::string word(1 + rng() % 12, ' ');
    for (char& c : word) c = static_cast<char>("ab\0\xff"[rng() % 4]);
    counts[word] += 1;
  }
  std::string file;
  ASSERT_TRUE(WriteCountsFile({}, counts, [&](absl::string_view bytes) {
                file.append(bytes.data(), bytes.size());
                return absl::OkStatus();
              }).ok());
  // After the header (magic, version, "gpt2", no special tokens, three totals): the entries.
  size_t at = 8 + 4 + 4 + 4 + 4 + 3 * 8;
  auto get = [&](size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
      v |= uint64_t{static_cast<unsigned char>(file[at + i])} << (8 * i);
    at += n;
    return v;
  };
  std::vector<std::string> listed;
  while (at + 4 < file.size()) {
    const size_t n = get(4);
    listed.push_back(file.substr(at, n));
    at += n;
    EXPECT_EQ(get(8), counts[listed.back()]);
  }
  ASSERT_EQ(listed.size(), counts.size());
  EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end()));
  PreTokenCounts back;
  ASSERT_TRUE(ParseCountsFile(file, "t", &back).ok());
  EXPECT_EQ(back, counts);
}

// The bytes that write_with(write) gives a count file writer's `write`.
template <typename WriteWith>
std::string Written(WriteWith write_with) {
  std::string file;
  EXPECT_TRUE(write_with([&](absl::string_view bytes) {
                file.append(bytes.data(), bytes.size());
                return absl::OkStatus();
              }).ok());
  return file;
}

// Runs sorted by several workers, a share each and then merged: the bytes of one run sorted
// whole. Tied on their first 8 bytes, prefixes of each other, split at random among three
// runs, and more of them than a run sorts on one thread.
TEST(FilesTest, CountRunsSortedInPartsGiveTheBytesOfOne) {
  PreTokenCounts counts;
  std::mt19937 rng(5);
  while (counts.size() < 140000) {
    std::string word = rng() % 2 == 0 ? "abcdefgh" : "";
    for (size_t n = 1 + rng() % 6; n > 0; --n)
      word += static_cast<char>("abcdefgh\0\xff"[rng() % 10]);
    counts[word] += 1 + rng() % 1000;
  }
  const std::string expected =
      Written([&](auto sink) { return WriteCountsFile({}, counts, sink); });
  for (size_t workers : {2, 3, 4}) {
    Parallelism parallelism;
    parallelism.workers = workers;
    // The tasks one after the other, the last first: no task may count on another's being done.
    parallelism.run = [](size_t n, const std::function<void(size_t)>& task) {
      for (size_t i = n; i-- > 0;) task(i);
    };
    std::vector<CountRun> runs(3);
    // Half of them in the last run: enough to be sorted in parts.
    for (const auto& [word, n] : counts) runs[std::min<size_t>(rng() % 4, 2)].Add(word, n);
    for (CountRun& run : runs) run.Sort(parallelism);
    EXPECT_EQ(Written([&](auto sink) { return WriteCountsFile({}, runs, sink); }), expected)
        << workers;
  }
}

// Entries laid out already (AppendCountEntry), in blocks some of which are empty: the bytes of
// the same entries written from a map.
TEST(FilesTest, CountFilesWrittenFromBlocksOfEntries) {
  PreTokenCounts counts;
  for (const char* word : {"", "a", "ab", "abcdefghij", "b", "the", "\xff"}) {
    counts[word] = std::string(word).size() + 7;
  }
  std::vector<std::pair<std::string, uint64_t>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::string> blocks(6);
  for (size_t i = 0; i < sorted.size(); ++i) {
    AppendCountEntry(sorted[i].first, sorted[i].second, &blocks[i < 3 ? 1 : 4]);
  }
  const std::vector<absl::string_view> views(blocks.begin(), blocks.end());
  EXPECT_EQ(Written([&](auto sink) { return WriteCountsFile({}, counts.size(), views, sink); }),
            Written([&](auto sink) { return WriteCountsFile({}, counts, sink); }));
}

TEST(FilesTest, CountFilesOutOfOrderOrListingAPreTokenTwiceAreRefused) {
  // Checksummed, so only the order check can refuse them: files are merged as they are read,
  // which needs each sorted, each pre-token once.
  const std::vector<std::vector<std::pair<std::string, uint64_t>>> bad = {
      {{"ab", 1}, {"aa", 2}}, {{"ab", 1}, {"ab", 2}}, {{"abc", 1}, {"ab", 1}}};
  for (const auto& entries : bad) {
    std::string file;
    size_t next = 0;
    ASSERT_TRUE(WriteCountsFile(
                    {}, entries.size(),
                    [&](absl::string_view* word, uint64_t* n) {
                      *word = entries[next].first;
                      *n = entries[next].second;
                      ++next;
                      return true;
                    },
                    [&](absl::string_view bytes) {
                      file.append(bytes.data(), bytes.size());
                      return absl::OkStatus();
                    })
                    .ok());
    PreTokenCounts back;
    absl::Status s = ParseCountsFile(file, "t.counts", &back).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("t.counts: the entry at byte offset"), std::string::npos) << s;
    EXPECT_NE(s.message().find("not in order"), std::string::npos) << s;
  }
}

TEST(Utf8Test, FindsFirstInvalidByte) {
  EXPECT_EQ(FindInvalidUtf8("plain ascii text that is long enough"), std::nullopt);
  EXPECT_EQ(FindInvalidUtf8("héllo 日本 🙂"), std::nullopt);
  EXPECT_EQ(FindInvalidUtf8("abcdefghij\x80"), 10u);
  EXPECT_EQ(FindInvalidUtf8("a\xC0\xAF"), 1u);          // overlong
  EXPECT_EQ(FindInvalidUtf8("a\xED\xA0\x80"), 1u);      // surrogate
  EXPECT_EQ(FindInvalidUtf8("a\xF4\x90\x80\x80"), 1u);  // above U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("ab\xE6\x97"), 2u);         // truncated
}

// A bad byte at every offset of a long ASCII text: found by the 8-byte blocks and by the
// byte-by-byte tail alike.
TEST(Utf8Test, FindsABadByteAtEveryOffsetOfAsciiText) {
  for (size_t at = 0; at < 139; ++at) {
    std::string text(139, 'x');
    text[at] = '\xff';
    EXPECT_EQ(FindInvalidUtf8(text), at) << "at " << at;
    text[at] = 'y';
    EXPECT_EQ(FindInvalidUtf8(text), std::nullopt);
  }
  // The same after a two-byte character, so that the blocks start at an odd offset.
  for (size_t at = 2; at < 139; ++at) {
    std::string text = "\xC3\xA9" + std::string(137, 'x');
    text[at] = '\x80';
    EXPECT_EQ(FindInvalidUtf8(text), at) << "at " << at;
  }
}

// Random bytes, mostly well-formed characters of every length, now and then a stray byte or
// an ill-formed sequence (overlong, surrogate, above U+10FFFF): the first bad offset is where
// decoding one character at a time stops. Each text lies in a buffer of its exact size, so
// that an ASan build sees any read past its end.
TEST(Utf8Test, FindsWhatDecodingOneCharacterAtATimeFinds) {
  std::mt19937_64 rng(11);
  const char* const kGood[] = {"a",
                               "bcdefghijklmnopq",
                               "\xC3\xA9",
                               "\xD0\x96",
                               "\xE6\x97\xA5",
                               "\xEF\xBF\xBD",
                               "\xF0\x9F\x99\x82",
                               "\xF4\x8F\xBF\xBF"};
  const char* const kBad[] = {"\x80",
                              "\xBF",
                              "\xC0\xAF",
                              "\xC1",
                              "\xC2",
                              "\xE0\x9F\xBF",
                              "\xED\xA0\x80",
                              "\xF0\x8F\xBF\xBF",
                              "\xF4\x90\x80\x80",
                              "\xF5",
                              "\xFF",
                              "\xE6\x97",
                              "\xF0\x9F\x99"};
  for (int c = 0; c < 20000; ++c) {
    std::string text;
    const size_t n = 1 + rng() % 40;
    for (size_t i = 0; i < n; ++i) {
      text += rng() % 8 == 0 ? kBad[rng() % std::size(kBad)] : kGood[rng() % std::size(kGood)];
    }
    std::optional<size_t> expected;
    for (size_t i = 0; i < text.size();) {
      char32_t cp;
      const size_t len = DecodeUtf8(absl::string_view(text).substr(i), &cp);
      if (len == 0) {
        expected = i;
        break;
      }
      i += len;
    }
    const std::vector<char> exact(text.begin(), text.end());
    ASSERT_EQ(FindInvalidUtf8(absl::string_view(exact.data(), exact.size())), expected)
        << absl::CEscape(text);
  }
}

TEST(Utf8Test, ReplacementFollowsPython) {
  // bytes.decode("utf-8", "replace") semantics: one U+FFFD per maximal invalid prefix.
  EXPECT_EQ(ReplaceInvalidUtf8("a\xE6\x97z"), "a\xEF\xBF\xBDz");
  EXPECT_EQ(ReplaceInvalidUtf8("\x80\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(ReplaceInvalidUtf8("\xF0\x9F\x99"), "\xEF\xBF\xBD");
  EXPECT_EQ(ReplaceInvalidUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(ReplaceInvalidUtf8("ok 🙂"), "ok 🙂");
}

}  // namespace
}  // namespace bpeforge::internal
