// The shares of a multi-process count partition the input exactly: for any number of shares,
// their counts and statistics add up to those of the whole, over mapped, compressed and JSON
// Lines inputs alike.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bpeforge/bpeforge.h"
#include "bpeforge/internal/front_ends.h"
#include "tests/compression.h"
#include "tests/test_util.h"
#include "tests/text_gen.h"

namespace bpeforge {
namespace {

using internal::testing::TempDir;

TEST(SharesTest, SharesAddUpToTheWhole) {
  TempDir dir;
  std::vector<std::string> inputs;
  for (int i = 0; i < 5; ++i) {
    internal::testing::TextGenOptions gen;
    gen.fragments = 300 + 200 * i;
    gen.special_tokens = {"<|endoftext|>"};
    const std::string text = internal::testing::RandomText(50 + i, gen);
    const std::string name = dir.File("in" + std::to_string(i));
    if (i == 1) {
      internal::testing::WriteFile(name + ".zst", internal::testing::Zstd(text));
      inputs.push_back(name + ".zst");
    } else if (i == 3) {
      internal::testing::WriteFile(name + ".jsonl",
                                   "{\"text\": \"one doc\"}\n{\"text\": \"two\"}\n");
      inputs.push_back(name + ".jsonl");
    } else {
      internal::testing::WriteFile(name + ".txt", text);
      inputs.push_back(name + ".txt");
    }
  }
  internal::testing::WriteFile(dir.File("empty.txt"), "");
  inputs.push_back(dir.File("empty.txt"));
  TrainOptions options;
  options.special_tokens = {"<|endoftext|>"};
  options.chunk_bytes = 1000;
  absl::StatusOr<CountedText> whole = CountShare(inputs, options, 0, 1);
  ASSERT_TRUE(whole.ok()) << whole.status();
  for (size_t shares : {1, 2, 3, 4, 7}) {
    PreTokenCounts sum;
    uint64_t bytes = 0, pretokens = 0, documents = 0, stored = 0;
    for (size_t share = 0; share < shares; ++share) {
      absl::StatusOr<CountedText> part = CountShare(inputs, options, share, shares);
      ASSERT_TRUE(part.ok()) << part.status();
      for (const auto& [word, n] : part->counts) sum[word] += n;
      bytes += part->bytes;
      pretokens += part->pretokens;
      documents += part->input.documents;
      stored += part->input.stored_bytes;
    }
    EXPECT_EQ(sum, whole->counts) << shares;
    EXPECT_EQ(bytes, whole->bytes);
    EXPECT_EQ(pretokens, whole->pretokens);
    EXPECT_EQ(documents, whole->input.documents);
    EXPECT_EQ(stored, whole->input.stored_bytes);
  }
  EXPECT_FALSE(CountShare(inputs, options, 3, 3).ok());
}

}  // namespace
}  // namespace bpeforge
